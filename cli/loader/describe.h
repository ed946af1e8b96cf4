/* The loader model's objects and rules in words, for evidence and printing. */
#ifndef CT_DESCRIBE_H
#define CT_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

/* The name an object is shown by: its path, or its file name when brief. */
const char *ct_lobj_name(const struct ct_lobj *o, bool brief);

/* "RUNPATH of libfoo.so.1", "LD_LIBRARY_PATH", "ld.so.cache"; into buf. */
char *ct_rule_text(enum ct_rule via, const struct ct_lobj *owner, char *buf, size_t size);

#endif

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

/*
 * ct_rule_text for a file found or tried at path: a relative path of
 * RPATH, RUNPATH or LD_LIBRARY_PATH (an empty entry, or a relative one) is
 * the working directory's, and says so: "RUNPATH of m, the working
 * directory (an empty entry)".
 */
char *ct_rule_text_at(enum ct_rule via, const struct ct_lobj *owner, const char *path, char *buf,
		      size_t size);

#endif

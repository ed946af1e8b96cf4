/* Printing what a trace shows, without judging it (facts.c). */
#ifndef CT_FACTS_H
#define CT_FACTS_H

#include <stdio.h>

#include "trace.h"

struct ct_diagnosis;

/*
 * Per process: the CUDA libraries as a tree (who asked, by which rule,
 * version), the arch coverage matrix (when d is given), failed loads,
 * driver and GPUs, modules.
 */
void ct_facts_print(FILE *out, const struct ct_trace *t, struct ct_diagnosis *d);

/*
 * A search's candidates, one line per directory and rule (its hwcaps
 * subdirectories folded in), or every path when every_path is set.
 */
void ct_print_candidates(FILE *out, const struct ct_try *tries, size_t n,
			 const char *indent, bool every_path);

/* A loader rule as users read it: "LD_LIBRARY_PATH", "RUNPATH", "ld.so.cache". */
const char *ct_rule_words(const char *via);

/* "sm_80 sm_90 compute_90" from a record's images array; into buf. */
void ct_images_words(const struct ct_jv *images, char *buf, size_t size);

#endif

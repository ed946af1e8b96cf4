/* Printing what a trace shows, without judging it (facts.c). */
#ifndef CT_FACTS_H
#define CT_FACTS_H

#include <stdio.h>

#include "trace.h"

/* What the default report shows of a process (-v: everything). */
#define CT_FACTS_TREE_LINES 15   /* lines of the library tree */
#define CT_FACTS_MATRIX_ROWS 6   /* rows of the arch matrix */

struct ct_diagnosis;
struct ct_roles;

/*
 * Per process shown (roles.h): the CUDA libraries as a tree (who asked,
 * by which rule, version), the arch coverage matrix (when d is given),
 * failed loads, driver and GPUs, modules; then the wrappers and the
 * quiet processes counted.
 */
void ct_facts_print(FILE *out, const struct ct_trace *t, const struct ct_diagnosis *d,
		    const struct ct_roles *roles, bool verbose);

/*
 * A search's candidates, one line per directory and rule (its hwcaps
 * subdirectories folded in), or every path when every_path is set.
 */
void ct_print_candidates(FILE *out, const struct ct_try *tries, size_t n,
			 const char *indent, bool every_path);

#endif

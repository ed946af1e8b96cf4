/*
 * cudatrace diff's output (diff_out.c): the differences compare.c found,
 * as text, Markdown or JSON (cudatrace.diff/1).
 */
#ifndef CT_DIFF_OUT_H
#define CT_DIFF_OUT_H

#include <stdio.h>

#include "compare.h"

enum ct_diff_format { CT_DIFF_TEXT, CT_DIFF_MARKDOWN, CT_DIFF_JSON };

/* What each side is, as said: its argument, and what it was read as. */
struct ct_diff_names {
	const char *a, *b;         /* the arguments */
	const char *a_what, *b_what; /* "trace folder", "report", "doctor" */
};

/* The first line of the text: "cudatrace diff: 3 differences that matter to CUDA" (diff -q). */
void ct_diff_headline(FILE *out, const struct ct_diff *d);
/* Print d (verbose: the sections not compared too). 0, or -1 when out failed (JSON). */
int ct_diff_print(FILE *out, enum ct_diff_format format, const struct ct_diff *d,
		  const struct ct_side *a, const struct ct_side *b, const struct ct_diff_names *n,
		  bool verbose);
/* --json when a side could not be read: one document all the same, its
 * "error" the message also said on stderr (a side not read: kind null). */
int ct_diff_print_error(FILE *out, const struct ct_diff_names *n, const char *error);

#endif

/*
 * cudatrace ldd's views of its model (ldd_model.h): the tree as text
 * (each library under its asker, with the rule that found it and its
 * CUDA facts; -q: only what is not found), and the JSON document
 * cudatrace.ldd/1. They read the model and nothing else.
 */
#ifndef CT_LDD_OUT_H
#define CT_LDD_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "ldd_model.h"

struct ct_ldd_view {
	bool verbose;              /* every candidate, and the libraries already loaded */
	bool quiet;                /* no tree: what is not found, and what stops it */
};

/* The text; a model with an error prints nothing (the command says it). */
void ct_ldd_print(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v);
/* The JSON document, its error's too. Returns ct_json_finish's answer. */
int ct_ldd_json(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v);

#endif

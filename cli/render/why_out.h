/*
 * cudatrace why's views of its model (why_model.h): the search step by
 * step as text (-q: the answer alone), and the JSON document
 * cudatrace.why/1. They read the model and nothing else.
 */
#ifndef CT_WHY_OUT_H
#define CT_WHY_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "why_model.h"

struct ct_why_view {
	bool verbose;              /* every candidate after the one taken */
	bool quiet;                /* the answer alone */
};

/* The text; a model with an error prints nothing (the command says it). */
void ct_why_print(FILE *out, const struct ct_why *m, const struct ct_why_view *v);
/* The JSON document, its error's too. Returns ct_json_finish's answer. */
int ct_why_json(FILE *out, const struct ct_why *m);

#endif

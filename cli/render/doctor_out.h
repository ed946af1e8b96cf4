/*
 * cudatrace doctor's views of its model (doctor_model.h): the text (the
 * verdict, the findings, then the machine's facts and the Python
 * packages; -q: the verdict and every finding), the JSON document
 * cudatrace.doctor/1 and GitHub Markdown. They read the model and
 * nothing else, into the FILE given.
 */
#ifndef CT_DOCTOR_OUT_H
#define CT_DOCTOR_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "doctor_model.h"

/* verbose: every line of evidence, the driver search's candidates, each package's objects. */
void ct_doctor_print(FILE *out, const struct ct_doctor_model *m, bool verbose, bool quiet,
		     bool colour);
/* Returns ct_json_finish's answer. */
int ct_doctor_json(FILE *out, const struct ct_doctor_model *m);
/* The JSON document of a doctor that could not model the loader. */
void ct_doctor_json_error(FILE *out);
/* Paths under home are shortened (markdown.h). */
void ct_doctor_markdown(FILE *out, const struct ct_doctor_model *m, const char *home,
			bool verbose, bool quiet);

#endif

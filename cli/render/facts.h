/* Printing what the report model says of each process, judging nothing (facts.c). */
#ifndef CT_FACTS_H
#define CT_FACTS_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

/* What the default report shows of a process (-v: everything). */
#define CT_FACTS_TREE_LINES 15   /* lines of the library tree */
#define CT_FACTS_MATRIX_ROWS CT_REPORT_MATRIX_ROWS /* rows of the arch matrix */

/*
 * Per process the model shows (show CT_RM_SHOWN): its heading, the CUDA
 * libraries as a tree (who asked, by which rule, version), the arch
 * coverage matrix, failed loads, driver and GPUs, modules, its ending;
 * then the processes folded, the wrappers and the quiet ones counted, and
 * the trace files left out.
 */
void ct_facts_print(FILE *out, const struct ct_report_model *m, bool verbose);

#endif

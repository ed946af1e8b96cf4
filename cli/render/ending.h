/*
 * How processes ended, as the report model says it (ending.c): a line of
 * each process's facts, and the verdict's lines about the processes that
 * died of a signal or left no exit record, each with the last CUDA event
 * it recorded, so that a crashed program never reads as "no problem
 * found"; and those that still run.
 */
#ifndef CT_ENDING_H
#define CT_ENDING_H

#include <stdio.h>

#include "report_model.h"

/* "  end: killed by SIGSEGV (signal 11) after cuInit returned 0 (ok)": a process's facts line. */
void ct_ending_print(FILE *out, const struct ct_rm_end *e);

/*
 * A line for each process of m that ended badly (the first few, then how
 * many more): which, how, and after which CUDA event; then one for each
 * traced process that still runs (the first few, then how many more).
 */
void ct_endings_print(FILE *out, const struct ct_report_model *m);

#endif

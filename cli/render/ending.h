/*
 * How processes ended, in words (ending.c): a line of each process's
 * facts, and the verdict's lines about the processes that died of a signal
 * or left no exit record, each with the last CUDA event it recorded, so
 * that a crashed program never reads as "no problem found".
 */
#ifndef CT_ENDING_H
#define CT_ENDING_H

#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

/*
 * p's last CUDA event as words that follow "after" ("cuInit returned 0
 * (ok)", "loading /usr/lib/libcuda.so.1"), or "" when it recorded none;
 * into buf, returns buf (unescaped: print it through ct_tprintf).
 */
const char *ct_last_cuda_words(const struct ct_proc *p, char *buf, size_t size);

/* "  end: killed by SIGSEGV (signal 11) after cuInit returned 0 (ok)": p's facts line. */
void ct_ending_print(FILE *out, const struct ct_proc *p);

/*
 * How the run ended, for the verdict's first line, into buf (unescaped:
 * print it through ct_tprintf): "the program was killed by SIGSEGV
 * (signal 11)", "process 12 (crash abrt) ended without an exit record",
 * "2 processes ended by a signal or without an exit record", or, for the
 * one program a run waited for, "the program exited with status 3".
 * Returns false (buf "") when every process ended as a clean run does.
 */
bool ct_endings_headline(const struct ct_trace *t, char *buf, size_t size);

/*
 * A line for each process of t that ended badly (the first few, then how
 * many more): which, how, and after which CUDA event; then one for each
 * traced process that still runs (the first few, then how many more).
 */
void ct_endings_print(FILE *out, const struct ct_trace *t);

#endif

/*
 * The rule that most likely found each object of a process read from
 * /proc (cudatrace ps, procs.h), which no trace recorded: the loader model
 * set up with the process's program and its LD_LIBRARY_PATH and
 * LD_PRELOAD replays the start-up; an object it maps there gets the rule
 * and the asker the model gives it. An object loaded later (dlopen) gets
 * the rule by which a dlopen of its DT_SONAME from the program finds that
 * same file, else "direct" (a path given). Only the objects' dynamic
 * sections are read; nothing is run.
 */
#ifndef CT_PROCRULES_H
#define CT_PROCRULES_H

#include "trace.h"

struct ct_loader;

/*
 * Set via, by and soname of the objects of t's running processes
 * (ct_proc.running); machine gives the loader's facts (borrowed). Strings
 * go into t.
 */
void ct_trace_guess_rules(struct ct_trace *t, const struct ct_loader *machine);

#endif

/*
 * The rule behind each object of a process read from /proc (cudatrace
 * ps, procs.h), which no trace recorded, named only where a replay
 * proves it: the loader model set up with the process's program and its
 * LD_LIBRARY_PATH and LD_PRELOAD replays the start-up; an object it maps
 * there gets the rule and the asker the model gives it. /proc does not
 * say how an object loaded later was found (a dlopen by a full path, or
 * a dependency found through a dlopen'ed library's RUNPATH): it is
 * marked run_time with no rule, and where else the loader would find
 * that same file is said apart (a dlopen of its DT_SONAME from the
 * program: name_via, name_path). Only the objects' dynamic sections are
 * read; nothing is run.
 */
#ifndef CT_PROCRULES_H
#define CT_PROCRULES_H

#include "trace.h"

struct ct_loader;

/*
 * Set via, by and soname of the objects of t's running processes
 * (ct_proc.running), and run_time, name_via and name_path of those the
 * start-up does not map; machine gives the loader's facts (borrowed).
 * Strings go into t.
 */
void ct_trace_guess_rules(struct ct_trace *t, const struct ct_loader *machine);

#endif

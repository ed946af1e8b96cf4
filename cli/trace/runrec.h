/*
 * A run record (<host>-<pid>.run.json, written by cudatrace run) read into
 * a struct ct_run (trace.h); the trace reader's, for ct_trace_read_dir.
 * Run records are untrusted as trace files are: read under the same line
 * and value limits, and a field of the wrong type reads as absent.
 */
#ifndef CT_RUNREC_H
#define CT_RUNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena.h"
#include "trace.h"

/*
 * Read the run record at path into r, its strings in a. *nbytes gets the
 * bytes read (at most CT_TRACE_LINE_MAX + 1). With only_owner, a file
 * another user owns is left out; with one_link, a file with more than one
 * link. 0, or -1
 * when it is not a run record (unreadable, another user's, no "run"
 * record with a run id).
 */
int ct_runrec_read(struct ct_arena *a, const char *path, bool only_owner, uid_t owner,
		   bool one_link, struct ct_run *r, uint64_t *nbytes);

#endif

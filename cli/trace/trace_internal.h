/*
 * What the pieces of the trace reader share (cli/README, trace/): the
 * arrays they grow, a process's arrays freed, the table of what the file
 * system said of a path, and the runs' and jobs' work that ct_trace_link
 * calls. Not for other layers or modules: trace.h is the interface.
 * The reader of one file has its own (reader.h).
 *
 * Ownership: as trace.h says; an array grown here is the caller's, freed
 * with free().
 */
#ifndef CT_TRACE_INTERNAL_H
#define CT_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"
#ifndef uthash_fatal
#define uthash_fatal(msg) ct_out_of_memory()
#endif
#include <uthash.h>

#include "trace.h"

/* What the file system said of a path, asked once per trace (t->stats). */
struct ct_trace_stat {
	const char *path;            /* in the trace's arena */
	bool exists;
	uint64_t dev, ino;
	UT_hash_handle hh;
};

/*
 * Room for element n of an array that holds n: it doubles when n is a
 * power of two, so appending is linear in all. Dies without memory.
 */
void *ct_trace_grow(void *arr, size_t n, size_t size);

/* Append one zeroed element to a growing array; returns it. */
#define CT_TRACE_PUSH(arr, n)                                                 \
	((arr) = ct_trace_grow((arr), (n), sizeof(*(arr))),                    \
	 memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])

/* An array that grew by doubling, cut to its n elements: a job keeps thousands. */
void *ct_trace_fit(void *arr, size_t n, size_t size);

/* Free p's arrays (its strings are the trace's); p itself is the caller's. */
void ct_trace_proc_release(struct ct_proc *p);

/* Runs by id, then owner (qsort, bsearch on const struct ct_run *): a run is both. */
int ct_run_cmp_ids(const void *a, const void *b);

/*
 * t->only_job: keep the processes of the runs in that job (ct_run_in_job);
 * the others are left out (released) and counted as another run's
 * files are (runs.c).
 */
void ct_trace_keep_job(struct ct_trace *t);

/*
 * t->job_notes of t's processes, joined to their run records, in three
 * passes: ct_trace_note_users (runs.c) starts them anew; then
 * ct_trace_note_restarts; ct_trace_note_ranks (runs.c) ends them.
 */
void ct_trace_note_users(struct ct_trace *t);
void ct_trace_note_ranks(struct ct_trace *t);

/*
 * The restarts of torchrun jobs (restarts.c): each process's attempt,
 * and a job note (CT_JOB_NOTE_RESTART) for each job whose ranks ran
 * again one after another; after the users' notes (it leaves a job
 * named by several users alone), before the notes of ranks claimed twice.
 */
void ct_trace_note_restarts(struct ct_trace *t);

/* strcmp of two const char * (qsort). */
int ct_trace_cmp_str(const void *a, const void *b);

#endif

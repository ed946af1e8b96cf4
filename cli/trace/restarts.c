/*
 * Restarts (trace_internal.h): torchrun's elastic agent stops a job's
 * workers when one fails and starts them all again, each a new run of
 * the same rank of the same job. Its restart count (job_restart) is the
 * agent's own: an agent that only saw its group change keeps 0, so the
 * count cannot tell attempts apart. Their order in time does: a rank's
 * runs are attempts when each started after the one before it ended.
 * Runs of one rank that overlap are no attempts (two runs claim the
 * rank: a forged record, runs.c's note).
 */
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

/* A run record's seconds are written to the millisecond, rounded (cmd_run.c). */
#define ROUNDED_NS 1000000

/* A process of a restartable job, and the rank and run it belongs to. */
struct rkey {
	const char *id;
	int64_t owner;
	const char *rank;
	const struct ct_run *run;
	struct ct_proc *proc;
};

static int cmp_ids(const struct rkey *a, const struct rkey *b)
{
	int c = strcmp(a->id, b->id);

	return c ? c : (a->owner > b->owner) - (a->owner < b->owner);
}

/* By job and owner, rank, then the run's start (and id: one run's processes together). */
static int cmp_rkeys(const void *x, const void *y)
{
	const struct rkey *a = x, *b = y;
	int c = cmp_ids(a, b);

	if (c || (c = strcmp(a->rank, b->rank)))
		return c;
	if (a->run->t != b->run->t)
		return a->run->t < b->run->t ? -1 : 1;
	return strcmp(a->run->run, b->run->run);
}

/*
 * keys[0..n), one rank's processes in the order their runs started: its
 * runs' attempts when each run started after the one before it ended
 * (both times recorded); then each process gets its attempt.
 */
static void mark_attempts(struct rkey *keys, size_t n)
{
	size_t i, runs = 1, attempt = 0;

	for (i = 1; i < n; i++) {
		const struct ct_run *a = keys[i - 1].run, *b = keys[i].run;

		if (a == b)
			continue;
		if (a->t <= 0 || a->ns < 0 || b->t <= 0 || b->t + ROUNDED_NS < a->t + a->ns)
			return;
		runs++;
	}
	if (runs < 2)
		return;
	for (i = 0; i < n; i++) {
		attempt += i > 0 && keys[i].run != keys[i - 1].run;
		keys[i].proc->attempt = attempt;
		keys[i].proc->attempts_known = true;
		keys[i].proc->superseded = attempt + 1 < runs;
	}
}

/* The note of one job (keys[0..n)) whose ranks were restarted: attempts, ranks, runs. */
static void add_restart_note(struct ct_trace *t, const struct rkey *keys, size_t n)
{
	struct ct_job_note *note;
	size_t i, k, attempts = 0, ranks = 0;

	for (i = 0; i < n; i++) {
		if (keys[i].proc->attempts_known && keys[i].proc->attempt + 1 > attempts)
			attempts = keys[i].proc->attempt + 1;
		ranks += i == 0 || strcmp(keys[i].rank, keys[i - 1].rank) != 0;
	}
	if (attempts < 2)
		return;
	t->job_notes = ct_trace_grow(t->job_notes, t->njob_notes, sizeof(*t->job_notes));
	note = &t->job_notes[t->njob_notes++];
	memset(note, 0, sizeof(*note));
	note->kind = CT_JOB_NOTE_RESTART;
	note->job = keys[0].id;
	note->from = keys[0].run->job_from;
	note->attempts = attempts;
	note->ranks = ranks;
	note->owners = ct_arena_alloc(&t->arena, sizeof(*note->owners));
	note->owner_runs = ct_arena_alloc(&t->arena, sizeof(*note->owner_runs));
	note->owners[0] = keys[0].owner;
	note->nowners = 1;
	note->runs = ct_arena_alloc(&t->arena, n * sizeof(*note->runs));
	for (i = 0; i < n; i++) {
		for (k = 0; k < note->nruns && strcmp(note->runs[k], keys[i].run->run) != 0; k++)
			;
		if (k == note->nruns)
			note->runs[note->nruns++] = keys[i].run->run;
	}
	note->owner_runs[0] = note->nruns;
	qsort(note->runs, note->nruns, sizeof(*note->runs), ct_trace_cmp_str);
}

void ct_trace_note_restarts(struct ct_trace *t)
{
	struct rkey *keys = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*keys));
	size_t i, j, k, n = 0;

	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		const struct ct_run *r = p->run_rec;

		p->attempt = 0;
		p->attempts_known = p->superseded = false;
		/* The elastic agent's restarts: a torchrun job's, each rank with its run record. */
		if (!r || !r->job || strcmp(r->job_from, "TORCHELASTIC_RUN_ID") != 0 || p->job_shared ||
		    !ct_proc_rank(p))
			continue;
		keys[n].id = r->job;
		keys[n].owner = p->owner;
		keys[n].rank = ct_proc_rank(p);
		keys[n].run = r;
		keys[n++].proc = p;
	}
	qsort(keys, n, sizeof(*keys), cmp_rkeys);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && cmp_ids(&keys[j], &keys[i]) == 0; j++)
			;
		for (k = i; k < j;) {
			size_t e = k + 1;

			while (e < j && strcmp(keys[e].rank, keys[k].rank) == 0)
				e++;
			mark_attempts(keys + k, e - k);
			k = e;
		}
		add_restart_note(t, keys + i, j - i);
	}
	free(keys);
}

/*
 * Runs and jobs (trace.h): the run records added to a trace (a program
 * that cannot be traced made a process from its record), the processes
 * of one job kept, how many runs and jobs the processes belong to, and
 * the notes on jobs whose id or rank several runs claim. A run is its
 * run id and the user who owns its files; a job, the runs of one user
 * that name it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "trace_internal.h"

/* A copy in the trace's arena (NULL stays NULL). */
static const char *arena_copy(struct ct_trace *t, const char *s)
{
	return s ? ct_arena_strdup(&t->arena, s) : NULL;
}

/*
 * A program that cannot be traced left no file: its run record stands
 * for it, so that the report says what it could not see instead of
 * nothing. It is the process cudatrace started, with what the record
 * knows of it and nothing else.
 */
static void untraced_process(struct ct_trace *t, const struct ct_run *r)
{
	struct ct_proc *p = CT_TRACE_PUSH(t->procs, t->nprocs);

	p->pid = r->pid;
	p->t = r->t;
	p->host = r->host;
	p->run = r->run;
	p->exe = r->command;
	p->argv = r->argv;
	p->argc = r->argc;
	p->cuinit = -1;
	p->untraced = r->untraced;
	p->owner = r->owner;
}

void ct_trace_add_run(struct ct_trace *t, const struct ct_run *r)
{
	struct ct_run *k;
	const char **argv = NULL;
	size_t i;

	if (!r->run || (t->only_run && strcmp(r->run, t->only_run) != 0))
		return;
	/* Another user's record of the same id is another run: it cannot replace this one. */
	for (i = 0; i < t->nruns; i++)
		if (strcmp(t->runs[i].run, r->run) == 0 && t->runs[i].owner == r->owner)
			return;
	if (r->argc) {
		argv = ct_arena_alloc(&t->arena, r->argc * sizeof(*argv));
		for (i = 0; i < r->argc; i++)
			argv[i] = arena_copy(t, r->argv[i]);
	}
	k = CT_TRACE_PUSH(t->runs, t->nruns);
	*k = *r;
	k->run = arena_copy(t, r->run);
	k->host = arena_copy(t, r->host);
	k->command = arena_copy(t, r->command);
	k->argv = argv;
	k->untraced = arena_copy(t, r->untraced);
	k->job_from = ct_job_var(r->job_from); /* a static string, never the caller's */
	k->job = k->job_from ? arena_copy(t, r->job) : NULL;
	k->job_step = k->job ? arena_copy(t, r->job_step) : NULL;
	k->job_array = k->job ? arena_copy(t, r->job_array) : NULL;
	k->job_array_task = k->job_array ? arena_copy(t, r->job_array_task) : NULL;
	k->job_restart = k->job ? arena_copy(t, r->job_restart) : NULL;
	k->job_in_from = k->job ? ct_job_var(r->job_in_from) : NULL;
	k->job_in = k->job_in_from ? arena_copy(t, r->job_in) : NULL;
	if (k->untraced && k->pid > 0)
		untraced_process(t, k);
}

/* Runs by id, then owner: a run is both (another user's file cannot be this user's run's). */
int ct_run_cmp_ids(const void *a, const void *b)
{
	const struct ct_run *x = *(const struct ct_run *const *)a, *y = *(const struct ct_run *const *)b;
	int c = strcmp(x->run, y->run);

	return c ? c : (x->owner > y->owner) - (x->owner < y->owner);
}

/* Is s "PREFIX" SEP "REST" for these three (a step's job, an array's task)? */
static bool joined(const char *s, const char *prefix, char sep, const char *rest)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 && s[n] == sep && strcmp(s + n + 1, rest) == 0;
}

bool ct_run_in_job(const struct ct_run *r, const char *id)
{
	if (!r->job)
		return false;
	/* The launch as its record names it: a step ("123.0"), torchrun's id, PMIx's namespace. */
	if (strcmp(r->job, id) == 0)
		return true;
	/* The job sbatch printed, with every step of it ("123" of "123.0"). */
	if (r->job_step && joined(r->job, id, '.', r->job_step))
		return true;
	/* The Slurm job around an mpirun or torchrun. */
	if (r->job_in && strcmp(r->job_in, id) == 0)
		return true;
	/* The array sbatch --array printed, or one task as Slurm names it ("120_2"). */
	return r->job_array && (strcmp(r->job_array, id) == 0 ||
				(r->job_array_task && joined(id, r->job_array, '_', r->job_array_task)));
}

/*
 * only_job: the processes of the runs in that job (ct_run_in_job), the
 * others left out as another run's files are. A process's run is known
 * by its run id and owner, on every host: a sort of the job's runs, a
 * search each.
 */
void ct_trace_keep_job(struct ct_trace *t)
{
	const struct ct_run **ids = ct_xcalloc(t->nruns ? t->nruns : 1, sizeof(*ids));
	size_t i, n = 0, nids = 0;

	for (i = 0; i < t->nruns; i++)
		if (ct_run_in_job(&t->runs[i], t->only_job))
			ids[nids++] = &t->runs[i];
	qsort(ids, nids, sizeof(*ids), ct_run_cmp_ids);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_run key = { .run = t->procs[i].run, .owner = t->procs[i].owner };
		const struct ct_run *kp = &key;

		if (key.run && nids && bsearch(&kp, ids, nids, sizeof(*ids), ct_run_cmp_ids)) {
			t->procs[n++] = t->procs[i];
		} else {
			/* A process made from its record has no file to count. */
			t->other_run_files += t->procs[i].untraced == NULL;
			ct_trace_proc_release(&t->procs[i]);
		}
	}
	t->nprocs = n;
	free(ids);
}

const char *ct_proc_run(const struct ct_proc *p)
{
	return p->run ? p->run : CT_TRACE_RUN_UNKNOWN;
}

/*
 * A process's place among runs and jobs: its job (the variable and id;
 * "" and its run outside a job), the user who owns its files, its host
 * and rank (for job_notes; "" otherwise), and its run. Sorted by all of
 * them in that order, so that each level groups the ones under it.
 */
struct job_key {
	const char *from, *id;
	int64_t owner;
	const char *host, *rank, *run;
	size_t proc;                 /* its index in t->procs */
};

enum { BY_FROM = 1, BY_JOB, BY_OWNER, BY_HOST, BY_RANK, BY_RUN };

/* x and y compared on their first level fields. */
static int cmp_keys_upto(const struct job_key *x, const struct job_key *y, int level)
{
	const char *const xs[] = { x->from, x->id, NULL, x->host, x->rank, x->run };
	const char *const ys[] = { y->from, y->id, NULL, y->host, y->rank, y->run };
	int i, c;

	for (i = 0; i < level; i++) {
		if (i + 1 == BY_OWNER)
			c = (x->owner > y->owner) - (x->owner < y->owner);
		else
			c = strcmp(xs[i], ys[i]);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_job_keys(const void *a, const void *b)
{
	return cmp_keys_upto(a, b, BY_RUN);
}

/* Each process's key: its job (with_job) or its run; host and rank with with_rank. */
static struct job_key *job_keys(const struct ct_trace *t, bool with_job, bool with_rank)
{
	struct job_key *keys = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*keys));
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct job_key *k = &keys[i];

		k->id = with_job ? ct_proc_job(p, &k->from) : NULL;
		if (!k->id) {
			k->from = "";
			k->id = ct_proc_run(p);
		}
		k->owner = p->owner;
		k->host = with_rank && p->host ? p->host : "";
		k->rank = with_rank && ct_proc_rank(p) ? ct_proc_rank(p) : "";
		k->run = ct_proc_run(p);
		k->proc = i;
	}
	qsort(keys, t->nprocs, sizeof(*keys), cmp_job_keys);
	return keys;
}

/* How many distinct keys, on their first level fields. */
static size_t distinct_keys(const struct job_key *keys, size_t n, int level)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		count += i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], level) != 0;
	return count;
}

size_t ct_trace_runs(const struct ct_trace *t)
{
	struct job_key *keys;
	size_t n;

	if (!t->nprocs)
		return 0;
	keys = job_keys(t, false, false);
	n = distinct_keys(keys, t->nprocs, BY_OWNER);
	free(keys);
	return n;
}

const char *ct_proc_job(const struct ct_proc *p, const char **from)
{
	const struct ct_run *r = p->run_rec;

	if (from)
		*from = r && r->job ? r->job_from : NULL;
	return r ? r->job : NULL;
}

/* The value of a launcher's variable in p's start record, or NULL. */
static const char *rank_value(const struct ct_proc *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nranks; i++)
		if (strcmp(p->ranks[i].name, name) == 0)
			return p->ranks[i].value;
	return NULL;
}

const char *ct_proc_rank(const struct ct_proc *p)
{
	const char *from = NULL, *var, *rank = NULL;
	size_t i;

	/*
	 * The rank under the launcher that named the job: the ranks of an
	 * mpirun in a batch job all inherit the batch step's SLURM_PROCID=0.
	 * Without a job (or a launcher that says no rank), the innermost
	 * launcher's, in jobs.def's order.
	 */
	ct_proc_job(p, &from);
	if ((var = ct_job_rank_var(from)))
		rank = rank_value(p, var);
	for (i = 0; !rank && (var = ct_job_rank_var_at(i)); i++)
		rank = rank_value(p, var);
	return rank;
}

size_t ct_trace_jobs(const struct ct_trace *t)
{
	struct job_key *keys;
	size_t n;

	if (!t->nprocs)
		return 0;
	keys = job_keys(t, true, false);
	n = distinct_keys(keys, t->nprocs, BY_OWNER);
	free(keys);
	return n;
}

int ct_trace_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t ct_trace_hosts(const struct ct_trace *t)
{
	const char **hosts = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*hosts));
	size_t i, n = 0, count = 0;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].host)
			hosts[n++] = t->procs[i].host;
	qsort(hosts, n, sizeof(*hosts), ct_trace_cmp_str);
	for (i = 0; i < n; i++)
		count += i == 0 || strcmp(hosts[i], hosts[i - 1]) != 0;
	free(hosts);
	return count;
}

/* A note about keys[0..n) (one group), its runs each once; its lists in t's arena. */
static struct ct_job_note *add_note(struct ct_trace *t, enum ct_job_note_kind kind,
				    const struct job_key *keys, size_t n)
{
	struct ct_job_note *note;
	size_t i;

	t->job_notes = ct_trace_grow(t->job_notes, t->njob_notes, sizeof(*t->job_notes));
	note = &t->job_notes[t->njob_notes++];
	memset(note, 0, sizeof(*note));
	note->kind = kind;
	note->job = keys[0].id;
	note->from = keys[0].from;
	note->host = kind == CT_JOB_NOTE_RANK && keys[0].host[0] ? keys[0].host : NULL;
	note->rank = kind == CT_JOB_NOTE_RANK ? keys[0].rank : NULL;
	note->owners = ct_arena_alloc(&t->arena, distinct_keys(keys, n, BY_OWNER) *
							 sizeof(*note->owners));
	note->owner_runs = ct_arena_alloc(&t->arena, distinct_keys(keys, n, BY_OWNER) *
							     sizeof(*note->owner_runs));
	note->runs = ct_arena_alloc(&t->arena, n * sizeof(*note->runs));
	for (i = 0; i < n; i++) {
		if (i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], BY_OWNER) != 0) {
			note->owners[note->nowners] = keys[i].owner;
			note->owner_runs[note->nowners++] = 0;
		}
		if (i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], BY_RUN) != 0) {
			note->runs[note->nruns++] = keys[i].run;
			note->owner_runs[note->nowners - 1]++;
		}
	}
	/* The runs by id, whoever owns them (the users' runs are counted above). */
	qsort(note->runs, note->nruns, sizeof(*note->runs), ct_trace_cmp_str);
	return note;
}

/*
 * job_notes, first: a job id that the runs of several users name (its
 * processes job_shared). The jobs of a trace sorted, then walked group by
 * group.
 */
void ct_trace_note_users(struct ct_trace *t)
{
	struct job_key *keys;
	size_t i, j, n;

	free(t->job_notes);
	t->job_notes = NULL;
	t->njob_notes = 0;
	if (!t->nprocs)
		return;
	keys = job_keys(t, true, false);
	for (i = 0; i < t->nprocs; i = j) {
		for (j = i + 1; j < t->nprocs && cmp_keys_upto(&keys[j], &keys[i], BY_JOB) == 0; j++)
			;
		if (!keys[i].from[0] || distinct_keys(keys + i, j - i, BY_OWNER) < 2)
			continue;
		add_note(t, CT_JOB_NOTE_USERS, keys + i, j - i);
		for (n = i; n < j; n++)
			t->procs[keys[n].proc].job_shared = true;
	}
	free(keys);
}

/*
 * job_notes, last: a rank of a job that several of its runs claim on one
 * host, not one after another (those are a restart's attempts,
 * restarts.c, marked before).
 */
void ct_trace_note_ranks(struct ct_trace *t)
{
	struct job_key *keys;
	size_t i, j, k, n;

	if (t->nprocs) {
		keys = job_keys(t, true, true);
		for (i = 0; i < t->nprocs; i = j) {
			bool attempts = true;

			for (j = i + 1; j < t->nprocs && cmp_keys_upto(&keys[j], &keys[i], BY_RANK) == 0;
			     j++)
				;
			n = j - i;
			for (k = i; k < j; k++)
				attempts = attempts && t->procs[keys[k].proc].attempts_known;
			if (keys[i].from[0] && keys[i].rank[0] && distinct_keys(keys + i, n, BY_RUN) > 1 &&
			    !attempts)
				add_note(t, CT_JOB_NOTE_RANK, keys + i, n);
		}
		free(keys);
	}
	t->job_notes = ct_trace_fit(t->job_notes, t->njob_notes, sizeof(*t->job_notes));
}

/*
 * The processes of a trace joined (trace.h: ct_trace_link): sorted by
 * start, each to its parent (a fork of the same image, a fork known by
 * its image alone, or the image it exec'd from), to the image it
 * exec'd, to the run record that started it and its run's; a process
 * read twice kept once; the auditor that a fork's image ran.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

static int cmp_procs(const void *a, const void *b)
{
	const struct ct_proc *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool same_host(const struct ct_proc *p, const struct ct_proc *q)
{
	return !p->host || !q->host || strcmp(p->host, q->host) == 0;
}

/* The processes of one pid, in the order they sort. */
struct by_pid {
	int64_t pid;
	size_t *procs;
	size_t n;
	UT_hash_handle hh;
};

static const struct by_pid *pid_procs(struct by_pid *pids, int64_t pid)
{
	struct by_pid *e;

	HASH_FIND(hh, pids, &pid, sizeof(pid), e);
	return e;
}

/* The first process (in start order) of each image id: its exec'd process. */
struct by_image {
	const char *image;
	size_t first;
	UT_hash_handle hh;
};

/*
 * The first process of p's image (the i-th) sorted before it, on its host,
 * or SIZE_MAX: an image id is the exec's own random bytes, so a process
 * that shares it is a fork of that exec, however many forks down.
 */
static size_t image_first(const struct ct_trace *t, struct by_image *images, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	struct by_image *e;

	if (!p->image)
		return SIZE_MAX;
	HASH_FIND_STR(images, p->image, e);
	if (!e || e->first >= i || !same_host(p, &t->procs[e->first]))
		return SIZE_MAX;
	return e->first;
}

/* The latest of e's processes sorted before i on p's host and started no later. */
static size_t earlier(const struct ct_trace *t, const struct by_pid *e, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	size_t lo = 0, hi = e ? e->n : 0;

	/* e->procs ascends: those below i. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->procs[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct ct_proc *q = &t->procs[e->procs[lo]];

		if (same_host(p, q) && q->t <= p->t)
			return e->procs[lo];
	}
	return SIZE_MAX;
}

/*
 * The process a run record names: its run's, on its host, with its pid;
 * the last image of that pid (an exec goes on in the same process), which
 * is the one that ended as the record says.
 */
static void join_run(struct ct_trace *t, const struct by_pid *e, const struct ct_run *r)
{
	struct ct_proc *top = NULL;
	size_t k;

	for (k = 0; e && r->pid > 0 && k < e->n; k++) {
		struct ct_proc *q = &t->procs[e->procs[k]];

		if (q->run && strcmp(q->run, r->run) == 0 && q->owner == r->owner &&
		    (!q->host || !r->host || strcmp(q->host, r->host) == 0))
			top = q; /* ascending: the last is the latest */
	}
	if (top)
		top->launched = r;
}

/*
 * Each process to its run's record, of the same id and owner (unique
 * among t->runs): a sort and a search each.
 */
static void join_run_records(struct ct_trace *t)
{
	const struct ct_run **by_id;
	size_t i;

	if (!t->nruns)
		return;
	by_id = ct_xcalloc(t->nruns, sizeof(*by_id));
	for (i = 0; i < t->nruns; i++)
		by_id[i] = &t->runs[i];
	qsort(by_id, t->nruns, sizeof(*by_id), ct_run_cmp_ids);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		struct ct_run key = { .run = p->run, .owner = p->owner };
		const struct ct_run *kp = &key, **found;

		if (!p->run)
			continue;
		found = bsearch(&kp, by_id, t->nruns, sizeof(*by_id), ct_run_cmp_ids);
		p->run_rec = found ? *found : NULL;
	}
	free(by_id);
}

/*
 * Does a chain of forks lead from process i to one whose auditor ran?
 * Each process is walked once: state says what is known of it (a cycle,
 * which a forged trace can make, ends a walk with no).
 */
enum { UNKNOWN, YES, NO, WALKING };

static void inherit_auditor(struct ct_trace *t, unsigned char *state, size_t i)
{
	unsigned char answer;
	size_t k = i;

	for (;;) {
		const struct ct_proc *q = &t->procs[k];

		if (state[k] == YES || state[k] == NO) {
			answer = state[k];
			break;
		}
		if (state[k] == WALKING) {
			answer = NO;
			break;
		}
		if (q->auditor) {
			answer = YES;
			break;
		}
		state[k] = WALKING;
		if (!q->forked || !q->parent) {
			answer = NO;
			break;
		}
		k = (size_t)(q->parent - t->procs);
	}
	/* Everything walked has that answer. */
	for (k = i; state[k] == WALKING;) {
		struct ct_proc *q = &t->procs[k];

		state[k] = answer;
		q->auditor = answer == YES;
		if (!q->forked || !q->parent)
			break;
		k = (size_t)(q->parent - t->procs);
	}
}

/*
 * A process read twice (`report T T`, or a copy of a file in the folder)
 * is one process: the same start record (host, pid, image, run and time)
 * cannot come from two. The copy with the most records stays (a copy made
 * while the process ran holds fewer); the others are counted, not read.
 */
struct by_start {
	const char *key;
	size_t proc;
	UT_hash_handle hh;
};

static void drop_duplicates(struct ct_trace *t)
{
	struct by_start *seen = NULL, *e, *tmp;
	struct ct_arena keys;
	bool *gone = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*gone));
	size_t i, n = 0;

	ct_arena_init(&keys);
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		char head[96];
		size_t len;
		char *key;

		if (!p->started)
			continue;
		/* Another user's copy is not this user's process (nor can it replace it). */
		snprintf(head, sizeof(head), "%lld %lld %lld ", (long long)p->pid, (long long)p->t,
			 (long long)p->owner);
		len = strlen(head) + strlen(p->host ? p->host : "") +
		      strlen(p->image ? p->image : "") + strlen(ct_proc_run(p)) + 3;
		key = ct_arena_alloc(&keys, len);
		snprintf(key, len, "%s%s/%s/%s", head, p->host ? p->host : "",
			 p->image ? p->image : "", ct_proc_run(p));
		HASH_FIND(hh, seen, key, strlen(key), e);
		if (!e) {
			e = ct_arena_alloc(&keys, sizeof(*e));
			memset(e, 0, sizeof(*e));
			e->key = key;
			e->proc = i;
			HASH_ADD_KEYPTR(hh, seen, e->key, strlen(e->key), e);
			continue;
		}
		if (p->records > t->procs[e->proc].records) {
			gone[e->proc] = true;
			e->proc = i;
		} else {
			gone[i] = true;
		}
		t->duplicate_files++;
	}
	for (i = 0; i < t->nprocs; i++) {
		if (gone[i])
			ct_trace_proc_release(&t->procs[i]);
		else
			t->procs[n++] = t->procs[i];
	}
	t->nprocs = n;
	HASH_ITER(hh, seen, e, tmp)
		HASH_DEL(seen, e);
	ct_arena_release(&keys);
	free(gone);
}

void ct_trace_link(struct ct_trace *t)
{
	struct by_pid *pids = NULL, *e, *tmp;
	struct by_image *images = NULL, *im, *imtmp, *ims;
	unsigned char *state;
	size_t i, j;

	if (t->only_job)
		ct_trace_keep_job(t);
	drop_duplicates(t);
	if (t->nprocs)
		qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_procs);
	for (i = 0; i < t->nprocs; i++) {
		int64_t pid = t->procs[i].pid;

		HASH_FIND(hh, pids, &pid, sizeof(pid), e);
		if (!e) {
			e = ct_xcalloc(1, sizeof(*e));
			e->pid = pid;
			HASH_ADD(hh, pids, pid, sizeof(e->pid), e);
		}
		e->procs = ct_trace_grow(e->procs, e->n, sizeof(*e->procs));
		e->procs[e->n++] = i;
	}
	ims = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*ims));
	for (i = 0; i < t->nprocs; i++) {
		const char *image = t->procs[i].image;

		if (!image)
			continue;
		HASH_FIND_STR(images, image, im);
		if (im)
			continue;
		ims[i].image = image;
		ims[i].first = i;
		HASH_ADD_KEYPTR(hh, images, ims[i].image, strlen(image), &ims[i]);
	}
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		const struct by_pid *parents = pid_procs(pids, p->ppid);
		size_t a, b;

		/* A fork shares its parent's image: that one, wherever it sorts. */
		for (j = 0; parents && p->image && j < parents->n && !p->parent; j++) {
			struct ct_proc *q = &t->procs[parents->procs[j]];

			if (q != p && q->image && strcmp(p->image, q->image) == 0 &&
			    (!p->host || !q->host || strcmp(p->host, q->host) == 0)) {
				p->parent = q;
				p->forked = true;
			}
		}
		if (p->parent)
			continue;
		/*
		 * Its parent pid is none of its image's (a daemon's worker: fork,
		 * setsid, fork, and the middle one exited, so its ppid is 1 or a
		 * subreaper): still a fork, of its image's first process.
		 */
		if ((a = image_first(t, images, i)) != SIZE_MAX) {
			p->parent = &t->procs[a];
			p->forked = true;
			p->fork_by_image = true;
			continue;
		}
		/*
		 * The latest before it on the same host: the same pid (the image
		 * it exec'd from) or its parent pid.
		 */
		a = earlier(t, pid_procs(pids, p->pid), i);
		b = earlier(t, pid_procs(pids, p->ppid), i);
		if (a != SIZE_MAX && (b == SIZE_MAX || a > b))
			p->parent = &t->procs[a];
		else if (b != SIZE_MAX)
			p->parent = &t->procs[b];
	}
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];

		if (p->parent && !p->forked && p->parent->pid == p->pid && !p->parent->next_image)
			p->parent->next_image = p;
	}
	for (i = 0; i < t->nruns; i++)
		join_run(t, pid_procs(pids, t->runs[i].pid), &t->runs[i]);
	join_run_records(t);
	for (i = 0; i < t->nprocs; i++)
		ct_proc_mark_cut(&t->procs[i]);
	HASH_ITER(hh, pids, e, tmp) {
		HASH_DEL(pids, e);
		free(e->procs);
		free(e);
	}
	HASH_ITER(hh, images, im, imtmp)
		HASH_DEL(images, im);
	free(ims);
	/*
	 * A fork's first record comes from the preload half, which cannot tell
	 * whether the auditor runs: its image's first process says (forks of
	 * forks too, whatever order they sorted in).
	 */
	state = ct_xcalloc(t->nprocs ? t->nprocs : 1, 1);
	for (i = 0; i < t->nprocs; i++)
		if (state[i] == UNKNOWN)
			inherit_auditor(t, state, i);
	free(state);
	ct_trace_note_users(t);
	/* A torchrun worker restarted is its rank's next attempt, not a second claim. */
	ct_trace_note_restarts(t);
	ct_trace_note_ranks(t);
}

/* What each process of a report is: shown, a wrapper, or quiet; see roles.h. */
#include <stdlib.h>
#include <string.h>

#include "libnames.h"
#include "roles.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* The places findings were seen at one pid. */
struct pid_places {
	int64_t pid;
	const struct ct_where **where;
	size_t n;
	UT_hash_handle hh;
};

static struct pid_places *index_places(const struct ct_diagnosis *d)
{
	struct pid_places *places = NULL, *e;
	size_t i, k;

	for (i = 0; d && i < d->findings.n; i++)
		for (k = 0; k < d->findings.f[i].nwhere; k++) {
			const struct ct_where *w = &d->findings.f[i].where[k];

			HASH_FIND(hh, places, &w->pid, sizeof(w->pid), e);
			if (!e) {
				e = ct_xcalloc(1, sizeof(*e));
				e->pid = w->pid;
				HASH_ADD(hh, places, pid, sizeof(e->pid), e);
			}
			e->where = ct_xrealloc(e->where, (e->n + 1) * sizeof(*e->where));
			e->where[e->n++] = w;
		}
	return places;
}

static void free_places(struct pid_places *places)
{
	struct pid_places *e, *tmp;

	HASH_ITER(hh, places, e, tmp) {
		HASH_DEL(places, e);
		free(e->where);
		free(e);
	}
}

/*
 * Was a finding seen in p? A pid names the program before and after an
 * exec: the command line tells them apart (the engine's, same width).
 */
static bool has_finding(const struct ct_proc *p, struct pid_places *places)
{
	struct pid_places *e;
	char cmd[160];
	size_t k;

	HASH_FIND(hh, places, &p->pid, sizeof(p->pid), e);
	if (!e)
		return false;
	ct_proc_command(p, cmd, sizeof(cmd), 60);
	for (k = 0; k < e->n; k++) {
		const struct ct_where *w = e->where[k];

		if ((!w->host || !p->host || strcmp(w->host, p->host) == 0) &&
		    (!w->program || strcmp(w->program, cmd) == 0))
			return true;
	}
	return false;
}

/*
 * Did p do anything with CUDA, or hide something from us? A process with
 * a finding is shown too (an extension without device code can be what
 * fails), and so is one that ended badly.
 */
static bool shown(const struct ct_proc *p, struct pid_places *places)
{
	struct ct_ending e;
	size_t i;

	if (has_finding(p, places))
		return true;
	if (p->nmodules || p->driver.present || p->ncuinit || p->dropped || p->bad_lines ||
	    p->cut)
		return true;
	for (i = 0; i < p->nexecs; i++)
		if (!p->execs[i].traced)
			return true;
	for (i = 0; i < p->nobjects; i++)
		if (ct_cuda_library(p->objects[i].path))
			return true;
	for (i = 0; i < p->nsearches; i++)
		if (ct_cuda_library(p->searches[i].name))
			return true;
	ct_proc_ending(p, &e);
	return ct_ending_abnormal(&e);
}

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

/* A shell, or env: what runs a script or another program for someone. */
static bool is_shell(const char *name)
{
	static const char *const shells[] = { "sh",   "bash",	 "dash", "zsh",	 "ksh", "mksh",
					      "ash",  "busybox", "fish", "tcsh", "csh", "env" };
	size_t i;

	for (i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(name, shells[i]) == 0)
			return true;
	return false;
}

/*
 * What p runs, as a name ("pyenv" for "bash /root/.pyenv/libexec/pyenv-exec
 * python", "python" for env bash /root/.pyenv/shims/python): past the
 * shells and env, the first argument that is no option nor a variable,
 * up to a '-' when three letters come before it; sh -c names the shell.
 */
static void script_name(const struct ct_proc *p, char *buf, size_t size)
{
	const char *name = base(p->exe), *dash;
	size_t i, n;

	for (i = 1; is_shell(name) && i < p->argc && p->argv[i]; i++) {
		const char *a = p->argv[i];

		/* sh -c 'a; b': a command line, no script: the shell is the name. */
		if (strcmp(a, "-c") == 0)
			break;
		if (a[0] == '-' || strchr(a, '='))
			continue;
		name = base(a);
		if (!is_shell(name))
			break;
	}
	if (!name[0])
		name = "?";
	dash = strchr(name, '-');
	n = dash && dash - name >= 3 ? (size_t)(dash - name) : strlen(name);
	snprintf(buf, size, "%.*s", (int)n, name);
}

/* The index of p's parent in t, or -1 (none, or not one of t's). */
static long parent_of(const struct ct_trace *t, const struct ct_proc *p)
{
	if (!p->parent || p->parent < t->procs || p->parent >= t->procs + t->nprocs)
		return -1;
	return (long)(p->parent - t->procs);
}

/* The wrappers' names, counted: the most frequent first. */
struct name_count {
	char name[64];
	size_t n, first;
};

static int by_count(const void *a, const void *b)
{
	const struct name_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Is name the program the user typed (a run's argv[0])? A shim is named
 * after the program it stands for (pyenv's shims/python): the wrappers
 * are named by what they are, the next one on the way.
 */
static bool typed(const struct ct_trace *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_run *run = t->procs[i].launched;

		if (run && run->argc && run->argv[0] && strcmp(base(run->argv[0]), name) == 0)
			return true;
	}
	return false;
}

static void name_wrappers(struct ct_roles *r, const struct ct_trace *t, const bool *on_way)
{
	struct name_count *c = NULL;
	size_t i, k, n = 0, stand_ins = 0;

	for (i = 0; i < t->nprocs; i++) {
		char name[64];

		if (r->role[i] != CT_ROLE_WRAPPER || !on_way[i])
			continue;
		script_name(&t->procs[i], name, sizeof(name));
		for (k = 0; k < n && strcmp(c[k].name, name) != 0; k++)
			;
		if (k == n) {
			c = ct_xrealloc(c, (n + 1) * sizeof(*c));
			snprintf(c[n].name, sizeof(c[n].name), "%s", name);
			c[n].n = 0;
			c[n].first = i;
			n++;
		}
		c[k].n++;
	}
	/* The stand-ins last, and left out when another name is there. */
	for (k = 0; k < n; k++)
		if (typed(t, c[k].name)) {
			c[k].n = 0;
			stand_ins++;
		}
	if (n)
		qsort(c, n, sizeof(*c), by_count);
	if (stand_ins < n)
		n -= stand_ins;
	for (k = 0; k < n && k < CT_ROLE_NAMES; k++)
		snprintf(r->names[k], sizeof(r->names[k]), "%s", c[k].name);
	r->nnames = k;
	r->more_names = n > CT_ROLE_NAMES;
	free(c);
}

void ct_roles_find(struct ct_roles *r, const struct ct_trace *t, const struct ct_diagnosis *d)
{
	struct pid_places *places = index_places(d);
	bool *work, *on_way, *may_fold;
	size_t i, n = t->nprocs;
	/* Decided: 0 not yet, 1 folded with a wrapper, 2 not; a walk's undecided nodes. */
	unsigned char *folded;
	size_t *stack;

	memset(r, 0, sizeof(*r));
	r->role = ct_xcalloc(n + 1, 1);
	work = ct_xcalloc(n + 1, sizeof(*work));
	on_way = ct_xcalloc(n + 1, sizeof(*on_way));
	may_fold = ct_xcalloc(n + 1, sizeof(*may_fold));
	folded = ct_xcalloc(n + 1, 1);
	stack = ct_xcalloc(n + 1, sizeof(*stack));
	for (i = 0; i < n; i++) {
		const struct ct_proc *p = &t->procs[i];

		if (shown(p, places))
			r->role[i] = CT_ROLE_SHOWN;
		work[i] = r->role[i] == CT_ROLE_SHOWN || p->launched;
		may_fold[i] = !work[i] && !p->untraced && !p->running;
	}
	/* On the way: every ancestor of the work (each marked once: the walks stop there). */
	for (i = 0; i < n; i++) {
		long j = work[i] ? parent_of(t, &t->procs[i]) : -1;
		size_t steps = 0;

		for (; j >= 0 && !on_way[j] && steps++ < n; j = parent_of(t, &t->procs[j]))
			on_way[j] = true;
	}
	for (i = 0; i < n; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct ct_ending e;

		if (!may_fold[i] || !on_way[i])
			continue;
		ct_proc_ending(p, &e);
		if (e.kind == CT_END_EXEC || is_shell(base(p->exe))) {
			r->role[i] = CT_ROLE_WRAPPER;
			folded[i] = 1;
		} else {
			folded[i] = 2;
		}
	}
	/*
	 * What a wrapper started besides the work (pyenv's subshells and the
	 * readlink they run): folded with it. Each walk up stops at the first
	 * process decided, so every process is walked once.
	 */
	for (i = 0; i < n; i++) {
		size_t top = 0, steps = 0;
		unsigned char verdict = 2;
		long j = (long)i;

		while (j >= 0 && steps++ <= n) {
			if (folded[j]) {
				verdict = folded[j];
				break;
			}
			if (!may_fold[j] || on_way[j]) {
				verdict = r->role[j] == CT_ROLE_WRAPPER ? 1 : 2;
				break;
			}
			stack[top++] = (size_t)j;
			j = parent_of(t, &t->procs[j]);
		}
		while (top--) {
			folded[stack[top]] = verdict;
			if (verdict == 1)
				r->role[stack[top]] = CT_ROLE_WRAPPER;
		}
	}
	for (i = 0; i < n; i++) {
		r->nshown += r->role[i] == CT_ROLE_SHOWN;
		r->nwrappers += r->role[i] == CT_ROLE_WRAPPER;
		r->nquiet += r->role[i] == CT_ROLE_QUIET;
	}
	name_wrappers(r, t, on_way);
	free(stack);
	free(folded);
	free(may_fold);
	free(on_way);
	free(work);
	free_places(places);
}

void ct_roles_release(struct ct_roles *r)
{
	free(r->role);
	memset(r, 0, sizeof(*r));
}

const char *ct_roles_names(const struct ct_roles *r, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < r->nnames && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0			     ? ""
					: i + 1 == r->nnames && !r->more_names ? " and "
									       : ", ",
					r->names[i]);
	if (r->more_names && len < size)
		snprintf(buf + len, size - len, " and others");
	return buf;
}

/*
 * How processes ended, in words, for the report model: each process's
 * "end:" line, and the verdict's: how the program ended (the headline),
 * the processes that died of a signal or left no exit record, each with
 * the last CUDA event it recorded (so that a crashed program never reads
 * as "no problem found"), and those that still run.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_errors.h"
#include "job.h"
#include "libnames.h"
#include "mask.h"
#include "model_internal.h"
#include "signals.h"
#include "util.h"

/* The verdict names this many processes that ended badly, then counts the rest. */
#define NAMED_MAX 3

/* "returned 0 (ok)", "returned 209 (no kernel image ...)". */
static void result_words(int64_t rc, char *buf, size_t size)
{
	snprintf(buf, size, "returned %lld (%s)", (long long)rc,
		 rc == 0 ? "ok" : ct_cu_error_text((int)rc));
}

/*
 * p's last CUDA event as words that follow "after" ("cuInit returned 0
 * (ok)", "loading /usr/lib/libcuda.so.1"), or "" when it recorded none;
 * into buf, returns buf.
 */
static const char *last_cuda_words(const struct ct_proc *p, char *buf, size_t size)
{
	size_t i = p->last_cuda_index;
	char rc[160];

	buf[0] = '\0';
	switch (p->last_cuda) {
	case CT_CUDA_EV_NONE:
		break;
	case CT_CUDA_EV_OPEN:
		if (i < p->nobjects)
			snprintf(buf, size, "loading %s", p->objects[i].path);
		break;
	case CT_CUDA_EV_SEARCH:
		if (i < p->nsearches)
			snprintf(buf, size, "a search for %s%s", p->searches[i].name,
				 p->searches[i].found ? "" : " that opened nothing");
		break;
	case CT_CUDA_EV_DLOPEN:
		if (i < p->nrequests)
			snprintf(buf, size, "%s of %s by %s", p->requests[i].api,
				 p->requests[i].name ? p->requests[i].name : "?",
				 ct_rm_base(p->requests[i].caller));
		break;
	case CT_CUDA_EV_MODULE:
		if (i >= p->nmodules)
			break;
		if (p->modules[i].registration) {
			snprintf(buf, size, "%s by %s", p->modules[i].api,
				 ct_rm_base(p->modules[i].caller));
			break;
		}
		result_words(p->modules[i].result, rc, sizeof(rc));
		snprintf(buf, size, "%s by %s %s", p->modules[i].api, ct_rm_base(p->modules[i].caller),
			 rc);
		break;
	case CT_CUDA_EV_CUINIT:
		result_words(p->cuinit, rc, sizeof(rc));
		snprintf(buf, size, "cuInit %s", rc);
		break;
	case CT_CUDA_EV_DRIVER:
		snprintf(buf, size, "asking %s for its entry points",
			 p->driver.path ? p->driver.path : "the driver");
		break;
	}
	return buf;
}

/* "SIGSEGV (signal 11)"; a signal without a name is its number. */
static void signal_words(int64_t sig, char *buf, size_t size)
{
	const char *name = ct_signal_abbrev(sig);

	if (name)
		snprintf(buf, size, "SIG%s (signal %lld)", name, (long long)sig);
	else
		snprintf(buf, size, "signal %lld", (long long)sig);
}

/* "killed by SIGSEGV (signal 11)", "exited with status 0", ...: how p ended (e). */
static void ending_words(const struct ct_proc *p, const struct ct_ending *e, char *buf,
			 size_t size)
{
	char sig[64];

	switch (e->kind) {
	case CT_END_EXIT:
		snprintf(buf, size, "exited with status %lld", (long long)e->status);
		break;
	case CT_END_RETURN:
		snprintf(buf, size, "returned from main (its exit status is not recorded)");
		break;
	case CT_END_SIGNAL:
		signal_words(e->signal, sig, sizeof(sig));
		snprintf(buf, size, "killed by %s", sig);
		break;
	case CT_END_EXEC:
		if (e->exec)
			snprintf(buf, size, "replaced by %s of %s", e->exec->api,
				 e->exec->path ? e->exec->path : "?");
		else
			snprintf(buf, size, "replaced by another program (exec)");
		break;
	case CT_END_NO_RECORD:
		snprintf(buf, size, "no exit record");
		break;
	case CT_END_UNKNOWN:
		snprintf(buf, size, "not known (records of it were lost)");
		break;
	case CT_END_RUNNING:
		snprintf(buf, size, p->running ? "still running (read from /proc)"
					       : "still running (its pid is alive, the same "
						 "process): what it does from now on is not in "
						 "this report");
		break;
	}
}

/* " after EVENT", or for a bad end with none, " before any CUDA event". */
static void after_words(const struct ct_proc *p, char *buf, size_t size)
{
	char ev[1024];

	if (last_cuda_words(p, ev, sizeof(ev))[0])
		snprintf(buf, size, " after %s", ev);
	else
		snprintf(buf, size, " before any CUDA event");
}

void ct_rm_end_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	struct ct_ending e;
	char how[1200], after[1100] = "";

	ct_proc_ending(p, &e);
	ending_words(p, &e, how, sizeof(how));
	if (ct_ending_abnormal(&e))
		after_words(p, after, sizeof(after));
	out->end.how = ct_rm_keep(b->m, how);
	out->end.after = ct_rm_keep(b->m, after);
	out->end.no_record = e.kind == CT_END_NO_RECORD;
}

/* The verdict's command of a process is cut at a whole argument past this many characters. */
#define WHO_COMMAND 48

/*
 * "python3 train.py --sleep 300 ...": the program and its script by their
 * file names (the heading has them whole), then whole arguments while
 * they fit, masked (mask.h); never a path cut in its middle.
 */
static void short_command(const struct ct_proc *p, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < p->argc && n + 1 < size; i++) {
		char *m = ct_mask_arg(p->argv, i);
		const char *a = m ? m : p->argv[i];

		/* The program, and the script an interpreter runs. */
		if ((i == 0 || (i == 1 && a[0] != '-')) && strrchr(a, '/') && strrchr(a, '/')[1])
			a = strrchr(a, '/') + 1;
		if (i > 0 && n + 1 + strlen(a) > WHO_COMMAND) {
			snprintf(buf + n, size - n, " ...");
			free(m);
			return;
		}
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", a);
		free(m);
	}
	if (!buf[0])
		snprintf(buf, size, "%s", p->exe ? ct_rm_base(p->exe) : "?");
}

/*
 * "the program", or "process 123 on node2, rank 3 (python3 train.py)":
 * who p is in the verdict's lines; the host when the report spans
 * several (a pid is on every host), the rank when it has one.
 */
static void who_words(const struct ct_proc *p, size_t runs, bool hosts, char *buf, size_t size)
{
	const char *rank = ct_proc_rank(p);
	char cmd[WHO_COMMAND + 8];

	/* One run: the program cudatrace started is "the program". */
	if (p->launched && runs == 1) {
		snprintf(buf, size, "the program");
		return;
	}
	short_command(p, cmd, sizeof(cmd));
	snprintf(buf, size, "process %lld%s%s%s%s (%s)", (long long)p->pid,
		 hosts && p->host ? " on " : "", hosts && p->host ? p->host : "",
		 rank ? ", rank " : "", rank ? rank : "", cmd);
}

/*
 * Does p's end belong in the verdict's lines? An abnormal end, but for a
 * worker of a restarted job's earlier attempt (its job note says how that
 * attempt ended: the agent stops them all when one fails).
 */
static bool said_abnormal(const struct ct_proc *p, struct ct_ending *e)
{
	ct_proc_ending(p, e);
	return ct_ending_abnormal(e) && !p->superseded;
}

/*
 * How the run ended, for the verdict's first line: "the program was
 * killed by SIGSEGV (signal 11)", "process 12 (crash abrt) ended without
 * an exit record", "2 processes ended by a signal or without an exit
 * record", or, for the one program a run waited for, "the program exited
 * with status 3"; NULL when every process ended as a clean run does.
 */
static const char *headline(struct ct_rm_build *b, bool hosts)
{
	const struct ct_trace *t = b->t;
	size_t i, bad = 0, runs = ct_trace_runs(t);
	const struct ct_proc *one = NULL, *launched = NULL;
	struct ct_ending e;
	char who[256], sig[64];

	for (i = 0; i < t->nprocs; i++) {
		if (said_abnormal(&t->procs[i], &e)) {
			bad++;
			one = &t->procs[i];
		}
		if (t->procs[i].launched)
			launched = &t->procs[i];
	}
	if (bad > 1)
		return ct_rm_strf(b, "%zu processes ended by a signal or without an exit record",
				  bad);
	if (bad == 1) {
		ct_proc_ending(one, &e);
		who_words(one, runs, hosts, who, sizeof(who));
		if (e.kind == CT_END_SIGNAL) {
			signal_words(e.signal, sig, sizeof(sig));
			return ct_rm_strf(b, "%s was killed by %s", who, sig);
		}
		return ct_rm_strf(b, "%s ended without an exit record", who);
	}
	/* A failure status is the program's word that it failed: no clean bill either. */
	if (runs == 1 && launched) {
		ct_proc_ending(launched, &e);
		if (e.kind == CT_END_EXIT && e.status != 0)
			return ct_rm_strf(b, "the program exited with status %lld",
					  (long long)e.status);
	}
	return NULL;
}

/* ---- a job whose ranks all ended by one signal ----------------------------------- */

/*
 * The job as its scheduler printed it, which a user names it by: the
 * Slurm job around an mpirun or torchrun (job_in), a step's job ("17" of
 * "17.0"), else the launch's id; into buf. NULL: no job.
 */
static const char *printed_job(const struct ct_run *r, char *buf, size_t size)
{
	if (!r || !r->job)
		return NULL;
	if (r->job_in)
		return r->job_in;
	if (r->job_step && strlen(r->job) > strlen(r->job_step) + 1) {
		snprintf(buf, size, "%.*s", (int)(strlen(r->job) - strlen(r->job_step) - 1), r->job);
		return buf;
	}
	return r->job;
}

/* A process and the job it is counted in. */
struct job_proc {
	char job[CT_JOB_ID_MAX + 1];
	int64_t owner;
	size_t proc;
};

static int cmp_job_procs(const void *x, const void *y)
{
	const struct job_proc *a = x, *b = y;
	int c = strcmp(a->job, b->job);

	if (c)
		return c;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	return (a->proc > b->proc) - (a->proc < b->proc);
}

/* The name of the last CUDA library p loaded, or NULL. */
static const char *last_cuda_library(const struct ct_proc *p)
{
	size_t i = p->nobjects;

	while (i-- > 0)
		if (ct_cuda_library(p->objects[i].path))
			return ct_rm_base(p->objects[i].path);
	return NULL;
}

/*
 * "after loading libnccl.so.2 (the last CUDA library each rank loaded)",
 * or each rank's when they differ, or "before loading any CUDA library":
 * how far the ranks had come when the signal ended them.
 */
static const char *after_loading(struct ct_rm_build *b, const struct ct_proc *const *ranks,
				 size_t n, const char *unit)
{
	const char **names = ct_xcalloc(n, sizeof(*names));
	size_t *count = ct_xcalloc(n, sizeof(*count));
	size_t i, k, nnames = 0, none = 0, len = 0;
	char words[1024] = "";

	for (i = 0; i < n; i++) {
		const char *l = last_cuda_library(ranks[i]);

		if (!l) {
			none++;
			continue;
		}
		for (k = 0; k < nnames && strcmp(names[k], l) != 0; k++)
			;
		if (k == nnames)
			names[nnames++] = l;
		count[k]++;
	}
	if (!nnames)
		snprintf(words, sizeof(words), "before loading any CUDA library");
	else if (nnames == 1 && !none)
		snprintf(words, sizeof(words), "after loading %s (the last CUDA library each %s loaded)",
			 names[0], unit);
	else {
		len = (size_t)snprintf(words, sizeof(words), "after loading CUDA libraries (the last: ");
		for (k = 0; k < nnames && k < 4 && len < sizeof(words); k++)
			len += (size_t)snprintf(words + len, sizeof(words) - len, "%s%s in %zu", k ? ", " : "",
						names[k], count[k]);
		if (k < nnames && len < sizeof(words))
			len += (size_t)snprintf(words + len, sizeof(words) - len, ", and others");
		if (none && len < sizeof(words))
			len += (size_t)snprintf(words + len, sizeof(words) - len, "; %zu loaded none", none);
		if (len < sizeof(words))
			snprintf(words + len, sizeof(words) - len, ")");
	}
	free(names);
	free(count);
	return ct_rm_keep(b->m, words);
}

/* A signal a scheduler or launcher stops a job with (scancel, a time limit, Ctrl-C on srun). */
static bool stop_signal(int64_t sig)
{
	return sig == SIGTERM || sig == SIGKILL || sig == SIGINT;
}

/*
 * procs[0..n), the processes of one job (as printed_job names it): when
 * every rank cudatrace ran (two at least) was killed by the same signal,
 * one line says it, and the processes killed by it are said no more
 * (covered). A job's ranks cancelled together are one event, not four.
 */
static void job_end(struct ct_rm_build *b, const char *job, const struct job_proc *procs, size_t n,
		    bool hosts, bool *covered)
{
	const struct ct_trace *t = b->t;
	const struct ct_proc **ranks = ct_xcalloc(n, sizeof(*ranks));
	const char *first_host = NULL, *unit = "rank";
	size_t i, nranks = 0, nhosts = 0, named = 0;
	struct ct_rm_job_end *je;
	struct ct_ending e;
	int64_t sig = 0;
	char sigw[64];

	for (i = 0; i < n; i++) {
		const struct ct_proc *p = &t->procs[procs[i].proc];

		if (!p->launched || p->superseded)
			continue;
		ct_proc_ending(p, &e);
		if (e.kind != CT_END_SIGNAL || (sig && e.signal != sig))
			goto out;
		sig = e.signal;
		ranks[nranks++] = p;
	}
	if (nranks < 2)
		goto out;
	for (i = 0; i < nranks; i++) {
		const char *h = ranks[i]->host;
		size_t k;

		for (k = 0; k < i && !(h && ranks[k]->host && strcmp(ranks[k]->host, h) == 0); k++)
			;
		nhosts += h && k == i;
		first_host = first_host ? first_host : h;
		named += ct_proc_rank(ranks[i]) != NULL;
	}
	if (named < nranks)
		unit = "process";
	/* job_ends has room for one per job (job_ends_build). */
	je = &b->m->job_ends[b->m->njob_ends++];
	je->job = ct_rm_keep(b->m, job);
	signal_words(sig, sigw, sizeof(sigw));
	je->how = stop_signal(sig) ? ct_rm_strf(b, "cancelled (SIG%s)", ct_signal_abbrev(sig))
				   : ct_rm_strf(b, "killed by %s", sigw);
	/* Its one host by name when the report spans several, else how many. */
	if (nhosts > 1)
		je->hosts = ct_rm_strf(b, "%zu hosts", nhosts);
	else if (hosts && first_host)
		je->hosts = ct_rm_str(b, first_host);
	else if (first_host)
		je->hosts = "1 host";
	je->ranks = ct_rm_strf(b, "%zu %s%s", nranks, unit,
			       strcmp(unit, "process") == 0 ? "es" : "s");
	je->after = after_loading(b, ranks, nranks, unit);
	/* Those the signal killed are in that line; anything else of the job still speaks. */
	for (i = 0; i < n; i++) {
		ct_proc_ending(&t->procs[procs[i].proc], &e);
		if (e.kind == CT_END_SIGNAL && e.signal == sig)
			covered[procs[i].proc] = true;
	}
out:
	free(ranks);
}

/* The jobs whose ranks all ended by one signal (job_end), each once. */
static void job_ends_build(struct ct_rm_build *b, bool hosts, bool *covered)
{
	const struct ct_trace *t = b->t;
	struct job_proc *jp = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*jp));
	size_t i, j, n = 0;

	for (i = 0; i < t->nprocs; i++) {
		const char *job = printed_job(t->procs[i].run_rec, jp[n].job, sizeof(jp[n].job));

		if (!job)
			continue;
		if (job != jp[n].job)
			snprintf(jp[n].job, sizeof(jp[n].job), "%s", job);
		jp[n].owner = t->procs[i].owner;
		jp[n++].proc = i;
	}
	qsort(jp, n, sizeof(*jp), cmp_job_procs);
	b->m->job_ends = ct_rm_calloc(b->m, n, sizeof(*b->m->job_ends));
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(jp[j].job, jp[i].job) == 0 && jp[j].owner == jp[i].owner;
		     j++)
			;
		job_end(b, jp[i].job, jp + i, j - i, hosts, covered);
	}
	free(jp);
}

void ct_rm_endings_build(struct ct_rm_build *b)
{
	const struct ct_trace *t = b->t;
	struct ct_report_model *m = b->m;
	size_t i, runs = ct_trace_runs(t);
	bool hosts = ct_trace_hosts(t) > 1;
	bool *covered = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*covered));
	struct ct_ending e;

	m->headline = headline(b, hosts);
	job_ends_build(b, hosts, covered);
	m->abnormal = ct_rm_calloc(m, NAMED_MAX, sizeof(*m->abnormal));
	m->running = ct_rm_calloc(m, NAMED_MAX, sizeof(*m->running));
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct ct_rm_abnormal *a;
		char who[256], how[1200], after[1100];

		if (!said_abnormal(p, &e) || covered[i])
			continue;
		if (m->nabnormal == NAMED_MAX) {
			m->abnormal_more++;
			continue;
		}
		who_words(p, runs, hosts, who, sizeof(who));
		if (e.kind == CT_END_SIGNAL)
			ending_words(p, &e, how, sizeof(how));
		else
			snprintf(how, sizeof(how), "ended without an exit record");
		after_words(p, after, sizeof(after));
		a = &m->abnormal[m->nabnormal++];
		a->who = ct_rm_keep(b->m, who);
		a->how = ct_rm_keep(b->m, how);
		a->after = ct_rm_keep(b->m, after);
		a->was = e.kind == CT_END_SIGNAL;
		a->no_record = e.kind == CT_END_NO_RECORD;
	}
	free(covered);
	/* A traced process that still runs (a daemon that outlived the program): its trace goes on. */
	for (i = 0; i < t->nprocs; i++) {
		char who[256];

		if (!t->procs[i].still_running)
			continue;
		if (m->nrunning == NAMED_MAX) {
			m->running_more++;
			continue;
		}
		who_words(&t->procs[i], runs, hosts, who, sizeof(who));
		m->running[m->nrunning++] = ct_rm_keep(b->m, who);
	}
}

/* ---- a job torchrun's agent restarted ------------------------------------------ */

/* When p's run ended, ns since the epoch (its attempts have both times). */
static int64_t run_end(const struct ct_proc *p)
{
	return p->run_rec->t + p->run_rec->ns;
}

/* Was p stopped by a signal the agent stops workers with? */
static bool stopped(const struct ct_proc *p)
{
	struct ct_ending e;

	ct_proc_ending(p, &e);
	return e.kind == CT_END_SIGNAL && stop_signal(e.signal);
}

/* Is p's end a likelier cause of its attempt's end than q's: not stopped when q was, or first. */
static bool likelier(const struct ct_proc *p, const struct ct_proc *q)
{
	if (stopped(p) != stopped(q))
		return !stopped(p);
	return run_end(p) < run_end(q);
}

/* "exited with status 1", "was killed by SIGSEGV (signal 11)": how a rank's run ended. */
static void rank_end_words(const struct ct_proc *p, const struct ct_ending *e, char *buf,
			   size_t size)
{
	bool was = e->kind == CT_END_SIGNAL && size > 4;

	if (was)
		memcpy(buf, "was ", 4);
	ending_words(p, e, buf + (was ? 4 : 0), size - (was ? 4 : 0));
}

/*
 * How attempt a of the job of note n ended: of its ranks (the processes
 * cudatrace ran) that did not exit 0, the first to end that was not
 * stopped by the agent's signal (SIGTERM, SIGKILL: it stops the others
 * when one fails), else the first to end; then the others, by how they
 * ended. false when every rank of it exited 0 (a new round of the group).
 */
static bool attempt_end(struct ct_rm_build *b, const struct ct_job_note *n, size_t a, bool hosts,
			struct ct_rm_attempt_end *out)
{
	const struct ct_trace *t = b->t;
	const struct ct_proc **bad = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*bad));
	const struct ct_proc *cause = NULL, *p, **same;
	size_t i, k, nbad = 0, nsame;
	struct ct_ending e;
	char how[1200], other[1200];

	for (i = 0; i < t->nprocs; i++) {
		const char *from;

		p = &t->procs[i];
		if (!p->attempts_known || p->attempt != a || !p->launched || p->owner != n->owners[0] ||
		    strcmp(ct_proc_job(p, &from), n->job) != 0 || strcmp(from, n->from) != 0)
			continue;
		ct_proc_ending(p, &e);
		if (e.kind == CT_END_EXIT && e.status == 0)
			continue;
		bad[nbad++] = p;
		if (!cause || likelier(p, cause))
			cause = p;
	}
	if (!cause) {
		free(bad);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->attempt = a;
	out->rank = ct_rm_str(b, ct_proc_rank(cause));
	out->host = ct_rm_str(b, cause->host);
	out->who = ct_rm_strf(b, "rank %s%s%s", ct_proc_rank(cause), hosts && cause->host ? " on " : "",
			      hosts && cause->host ? cause->host : "");
	ct_proc_ending(cause, &e);
	rank_end_words(cause, &e, how, sizeof(how));
	out->how = ct_rm_keep(b->m, how);
	out->has_exit_status = e.kind == CT_END_EXIT;
	out->exit_status = e.kind == CT_END_EXIT ? e.status : 0;
	out->signal = e.kind == CT_END_SIGNAL ? e.signal : 0;
	/* The others, grouped by how they ended, in the order first seen. */
	out->then = ct_rm_calloc(b->m, nbad, sizeof(*out->then));
	same = ct_xcalloc(nbad, sizeof(*same));
	for (i = 0; i < nbad; i++) {
		if (!bad[i] || bad[i] == cause)
			continue;
		ct_proc_ending(bad[i], &e);
		ending_words(bad[i], &e, how, sizeof(how));
		nsame = 0;
		for (k = i; k < nbad; k++) {
			struct ct_ending ek;

			if (!bad[k] || bad[k] == cause)
				continue;
			ct_proc_ending(bad[k], &ek);
			ending_words(bad[k], &ek, other, sizeof(other));
			if (strcmp(other, how) == 0) {
				same[nsame++] = bad[k];
				if (k > i)
					bad[k] = NULL;
			}
		}
		out->then[out->nthen].how = ct_rm_keep(b->m, how);
		out->then[out->nthen++].which = ct_rm_ranks_words(b, same, nsame, hosts);
	}
	free(same);
	free(bad);
	return true;
}

void ct_rm_restart_build(struct ct_rm_build *b, struct ct_rm_job_note *o, const struct ct_job_note *n)
{
	bool hosts = ct_trace_hosts(b->t) > 1;
	size_t a;

	o->attempts = n->attempts;
	o->ranks = n->ranks;
	o->restarted = n->attempts == 2   ? "once"
		       : n->attempts == 3 ? "twice"
					  : ct_rm_strf(b, "%zu times", n->attempts - 1);
	o->ends = ct_rm_calloc(b->m, n->attempts, sizeof(*o->ends));
	for (a = 0; a + 1 < n->attempts; a++)
		o->nends += attempt_end(b, n, a, hosts, &o->ends[o->nends]);
}

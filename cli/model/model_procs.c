/*
 * The processes of the report model: for every process what JSON says of
 * it (its libraries with their versions, the loads that failed, the
 * driver, the module loads, its device code, its variables and argv
 * masked, how it ended), what it is to the reader (roles.h: shown, a
 * wrapper, quiet; and shown processes alike folded into the first, unless
 * -v), and for each shown one what the text prints: its heading, its
 * library tree, its arch matrix, its failed loads grouped, its driver,
 * its module loads and its ending.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_errors.h"
#include "libnames.h"
#include "mask.h"
#include "model_internal.h"
#include "rules.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* ---- folding: processes alike ------------------------------------------------- */

/* Same program, same objects from the same files, same driver results. */
static bool alike(const struct ct_proc *a, const struct ct_proc *b)
{
	size_t i;

	if ((a->exe && b->exe && strcmp(a->exe, b->exe) != 0) || a->nobjects != b->nobjects ||
	    a->nsearches != b->nsearches || a->nmodules != b->nmodules || a->cuinit != b->cuinit ||
	    a->driver.present != b->driver.present)
		return false;
	for (i = 0; i < a->nobjects; i++)
		if (strcmp(a->objects[i].path, b->objects[i].path) != 0)
			return false;
	for (i = 0; i < a->nmodules; i++)
		if (a->modules[i].result != b->modules[i].result)
			return false;
	return true;
}

/* Did a and b end alike (a crash is never folded into a clean exit)? */
static bool ended_alike(const struct ct_proc *a, const struct ct_proc *b)
{
	struct ct_ending x, y;

	ct_proc_ending(a, &x);
	ct_proc_ending(b, &y);
	return x.kind == y.kind && x.status == y.status && x.signal == y.signal;
}

/* Processes that can fold into one another's (alike, ended alike): one kind. */
struct kind {
	uint64_t key;
	size_t *procs;  /* the trace's indexes, in order */
	size_t n;
	UT_hash_handle hh;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/*
 * What alike and ended_alike compare but the program (a process that
 * names none is like any), and whose trace it is (another user's process
 * never folds into this user's), hashed: equal for processes that fold.
 */
static uint64_t kind_key(const struct ct_proc *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct ct_ending e;
	const char *c;
	size_t i;

	h = mix(h, p->nobjects);
	h = mix(h, p->nsearches);
	h = mix(h, p->nmodules);
	h = mix(h, (uint64_t)p->cuinit);
	h = mix(h, p->driver.present);
	h = mix(h, (uint64_t)p->owner);
	for (i = 0; i < p->nobjects; i++)
		for (h = mix(h, '/'), c = p->objects[i].path; *c; c++)
			h = mix(h, (unsigned char)*c);
	for (i = 0; i < p->nmodules; i++)
		h = mix(h, (uint64_t)p->modules[i].result);
	ct_proc_ending(p, &e);
	h = mix(h, e.kind);
	h = mix(h, (uint64_t)e.status);
	return mix(h, (uint64_t)e.signal);
}

/*
 * Is an earlier process like the trace's i-th (one of kinds)? Adds it to
 * its kind. Ranks of one job are one kind: each is asked of its own kind
 * only, not of every process before it.
 */
static bool folds(struct kind **kinds, const struct ct_trace *t, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	uint64_t key = kind_key(p);
	struct kind *e;
	size_t k;

	HASH_FIND(hh, *kinds, &key, sizeof(key), e);
	if (!e) {
		e = ct_xcalloc(1, sizeof(*e));
		e->key = key;
		HASH_ADD(hh, *kinds, key, sizeof(e->key), e);
	}
	for (k = 0; k < e->n; k++)
		if (t->procs[e->procs[k]].owner == p->owner && alike(&t->procs[e->procs[k]], p) &&
		    ended_alike(&t->procs[e->procs[k]], p))
			break;
	e->procs = ct_xrealloc(e->procs, (e->n + 1) * sizeof(*e->procs));
	e->procs[e->n++] = i;
	return k < e->n - 1;
}

/*
 * Does the trace span several hosts? A process that names none counts as
 * a host of its own.
 */
static bool many_hosts(const struct ct_trace *t)
{
	const char *first = NULL;
	size_t i, n = 0;

	for (i = 0; i < t->nprocs && n < 2; i++) {
		const char *h = t->procs[i].host;

		if (!h || !first || strcmp(first, h) != 0)
			n++;
		if (h && !first)
			first = h;
	}
	return n > 1;
}

/*
 * Do the trace's files belong to several users (root's report of a shared
 * folder, --trust-owner)? Then each process says whose it is: another
 * user's rank 1 is not this user's.
 */
static bool many_owners(const struct ct_trace *t)
{
	size_t i;

	for (i = 1; i < t->nprocs; i++)
		if (t->procs[i].owner != t->procs[0].owner)
			return true;
	return false;
}

/* ---- what JSON says of a process -------------------------------------------------- */

/*
 * The variables the trace kept that shape loading (docs/trace-format.md,
 * "Privacy"), masked as elsewhere; not cudatrace's own (CUDATRACE_*, and
 * LD_AUDIT and LD_PRELOAD, which hold its shim). What diff compares.
 */
static void env_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	size_t i;

	out->env = ct_rm_calloc(b->m, p->nenv, sizeof(*out->env));
	for (i = 0; i < p->nenv; i++) {
		const struct ct_var *v = &p->env[i];
		struct ct_rm_var *o;
		char *m;

		if (!v->name || strncmp(v->name, "CUDATRACE_", 10) == 0 ||
		    strcmp(v->name, "LD_AUDIT") == 0 || strcmp(v->name, "LD_PRELOAD") == 0)
			continue;
		m = v->value ? ct_mask_value(v->name, v->value) : NULL;
		o = &out->env[out->nenv++];
		o->name = ct_rm_str(b, v->name);
		o->value = m ? ct_rm_keep(b->m, m) : ct_rm_str(b, v->value);
		free(m);
	}
	out->argv = ct_rm_calloc(b->m, p->argc, sizeof(*out->argv));
	for (i = 0; i < p->argc; i++) {
		/* Shared: the values of secret options and URL credentials masked. */
		char *m = ct_mask_arg(p->argv, i);

		out->argv[out->argc++] = m ? ct_rm_keep(b->m, m) : ct_rm_str(b, p->argv[i]);
		free(m);
	}
}

/* A CUDA library's version for JSON: the first soname a path is asked by, once per path. */
struct json_version {
	const char *path;
	const char *ver;
	UT_hash_handle hh;
};

static void libs_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p,
		       struct json_version **versions)
{
	size_t i, n = 0;

	for (i = 0; i < p->nobjects; i++)
		n += !p->objects[i].shim && !p->objects[i].main;
	out->libs = ct_rm_calloc(b->m, n, sizeof(*out->libs));
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		struct ct_rm_lib *l;

		if (o->shim || o->main)
			continue;
		l = &out->libs[out->nlibs++];
		l->name = ct_rm_str(b, o->name);
		l->path = ct_rm_str(b, o->path);
		l->soname = ct_rm_str(b, o->soname);
		l->found_via = o->via ? ct_rule_id(o->via) : NULL;
		l->requested_by = ct_rm_str(b, o->request ? o->request->caller : o->by);
		l->api = o->request ? ct_rm_str(b, o->request->api) : o->run_time ? "dlopen" : "needed";
		/* ps: a library loaded at run time, whose rule /proc does not say. */
		l->run_time = o->run_time;
		if (o->run_time && o->name_via) {
			l->name_via = ct_rule_id(o->name_via);
			l->name_path = ct_rm_str(b, o->name_path);
		}
		l->cuda = ct_cuda_library(o->path);
		l->closed = o->closed;
		if (l->cuda) {
			struct json_version *v;

			HASH_FIND_STR(*versions, o->path, v);
			if (!v) {
				char ver[64];

				v = ct_rm_scratch(b, sizeof(*v));
				v->path = o->path;
				v->ver = ct_rm_keep(b->m, ct_rm_version(b, o->path,
								    b->d ? ct_diagnosis_soname(b->d, o)
									 : o->soname,
								    ver, sizeof(ver)));
				HASH_ADD_KEYPTR(hh, *versions, v->path, strlen(v->path), v);
			}
			l->version = v->ver;
		}
	}
}

static void not_found_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	size_t i, k;

	out->not_found = ct_rm_calloc(b->m, p->nsearches, sizeof(*out->not_found));
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		struct ct_rm_not_found *nf;

		/* A search whose answer was lost or never came is no miss (trace-incomplete). */
		if (s->found || s->already_loaded || (s->request && s->request->noload) ||
		    (ct_search_known(p, s) != CT_SEARCH_KNOWN && !ct_diagnosis_refused(b->d, s, NULL)))
			continue;
		nf = &out->not_found[out->nnot_found++];
		nf->name = ct_rm_str(b, s->name);
		nf->requested_by = ct_rm_str(b, s->request ? s->request->caller : s->by);
		nf->api = s->request ? ct_rm_str(b, s->request->api) : "needed";
		nf->error = s->request ? ct_rm_str(b, s->request->error) : NULL;
		nf->tried = ct_rm_calloc(b->m, s->ntries, sizeof(*nf->tried));
		nf->ntried = s->ntries;
		for (k = 0; k < s->ntries; k++) {
			nf->tried[k].path = ct_rm_str(b, s->tries[k].path);
			nf->tried[k].via = s->tries[k].via ? ct_rule_id(s->tries[k].via) : "";
		}
	}
}

static void driver_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	struct ct_rm_driver *dr = &out->driver;
	size_t k;

	dr->present = p->driver.present;
	dr->path = ct_rm_str(b, p->driver.path);
	dr->version = p->driver.version;
	dr->ncuinit = p->ncuinit;
	dr->cuinit = p->cuinit;
	dr->cuinit_words = p->cuinit == 0 ? "ok" : ct_rm_str(b, ct_cu_error_text((int)p->cuinit));
	dr->probed = p->cuinit_probed;
	dr->unasked = p->driver_unasked;
	/* ps: asked by cudatrace itself, not recorded from the process. */
	if (p->running)
		dr->asked = p->driver_unasked ? "no" : p->cuinit_probed ? "same-file" : "machine";
	dr->gpus = ct_rm_calloc(b->m, p->driver.ngpus, sizeof(*dr->gpus));
	dr->ngpus = p->driver.ngpus;
	for (k = 0; k < p->driver.ngpus; k++) {
		const struct ct_gpu_rec *g = &p->driver.gpus[k];

		dr->gpus[k].index = g->index;
		dr->gpus[k].name = ct_rm_str(b, g->name);
		dr->gpus[k].cc = ct_rm_str(b, g->cc);
		dr->gpus[k].uuid = ct_rm_str(b, g->uuid);
	}
}

/* The text has room for this many bytes of a module's images in words. */
#define TEXT_IMAGES 255

/*
 * The module loads and registrations; all: every one (JSON), else the
 * loads alone (the text's: it counts the registrations, hundreds a rank,
 * whose images it never says).
 */
static void modules_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p,
			  bool all)
{
	size_t i;

	out->modules = ct_rm_calloc(b->m, p->nmodules, sizeof(*out->modules));
	for (i = 0; i < p->nmodules; i++) {
		const struct ct_module *m = &p->modules[i];
		struct ct_rm_module *o;

		out->nregistrations += m->registration;
		if (m->registration && !all)
			continue;
		o = &out->modules[out->nmodules++];
		o->registration = m->registration;
		o->api = m->registration ? "__cudaRegisterFatBinary" : ct_rm_str(b, m->api);
		o->caller = ct_rm_str(b, m->caller);
		o->caller_name = ct_rm_str(b, ct_rm_base(m->caller));
		o->file = ct_rm_str(b, m->file);
		o->result = m->result;
		if (!m->registration && m->result != 0) {
			o->result_text = ct_rm_str(b, ct_cu_error_text((int)m->result));
			o->result_name = ct_rm_str(b, ct_cu_error_name((int)m->result));
		}
		o->images = ct_rm_module_words(b, m);
		o->images_text = strlen(o->images) > TEXT_IMAGES
					 ? ct_rm_strf(b, "%.*s", TEXT_IMAGES, o->images)
					 : o->images;
	}
}

/* ---- what the text says of a shown process -------------------------------------------- */

/* Why a program was not traced, in an exec record's words ("static"), said. */
static const char *untraced_words(const char *why)
{
	return strcmp(why ? why : "", "setuid") == 0
		       ? "set-user-ID program: the loader ignores LD_AUDIT and LD_PRELOAD"
	       : strcmp(why ? why : "", "static") == 0
		       ? "statically linked: no loader to trace"
		       : "its environment no longer names the cudatrace shim";
}

static void heading_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p,
			  bool hosts, bool owners)
{
	char cmd[128];

	ct_proc_command(p, cmd, sizeof(cmd), 72);
	out->command = ct_rm_keep(b->m, cmd);
	out->heading_host = hosts && p->host ? ct_rm_str(b, p->host) : NULL;
	out->heading_uid = owners && p->owner >= 0;
	if (p->parent && p->parent->pid == p->pid) {
		out->relation = CT_RM_REL_EXEC;
		out->parent_name = p->parent->exe ? ct_rm_str(b, ct_rm_base(p->parent->exe)) : "?";
	} else if (p->parent) {
		out->relation = p->fork_by_image ? CT_RM_REL_DESCENDS
				: p->forked	 ? CT_RM_REL_FORK
						 : CT_RM_REL_STARTED;
	}
	out->parent_pid = p->parent ? p->parent->pid : 0;
	if (p->untraced)
		out->untraced_words = untraced_words(p->untraced);
}

/* The misses of one name, while they are gathered. */
struct miss_group {
	const char *name;
	const char *refused, *words; /* the file the loader refused, or NULL */
	struct miss_way {
		const char *how, *by; /* by: a path */
		size_t times;
	} *ways;
	size_t nways;
	UT_hash_handle hh;
};

static const char *miss_how(const struct ct_search *s, enum ct_search_kind kind)
{
	return s->request		? s->request->api
	       : kind == CT_SEARCH_PRELOAD ? "LD_PRELOAD, ignored by the loader, asked"
	       : kind == CT_SEARCH_FILTER  ? "filter needed"
					   : "needed";
}

/*
 * Other auditors in LD_AUDIT (or cudatrace's shim twice: a run inside
 * another): their own loads, made before the program's, are left out.
 */
static void auditors_build(struct ct_rm_build *b, struct ct_rm_failures *fl,
			   const struct ct_proc *p)
{
	char other[1024];
	const char *sl;

	if (!*ct_proc_other_auditors(p, other, sizeof(other)))
		return;
	sl = strrchr(other, '/');
	if (!strchr(other, ':') && strcmp(sl ? sl + 1 : other, "libcudatrace.so") == 0) {
		fl->auditors = CT_RM_AUDITORS_SHIM_TWICE;
	} else {
		fl->auditors = CT_RM_AUDITORS_OTHER;
		fl->other_auditors = ct_rm_keep(b->m, other);
	}
}

/*
 * The loads that failed, once per name, with every way it was asked and
 * how many times: a program that retries a load 50 times gets one line,
 * not 50. Probes, optional libraries and searches without an answer are
 * counted apart: none is a failure.
 */
static void failures_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	const struct ct_diagnosis *d = b->d;
	struct ct_rm_failures *fl = &out->failures;
	struct miss_group *groups = NULL, *g, *tmp, **order = NULL;
	size_t i, k, ngroups = 0;

	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_kind kind = d ? ct_diagnosis_search_kind(d, p, s) : CT_SEARCH_NEEDED;
		const char *how, *by;

		if (s->found)
			continue;
		if (s->request && s->request->noload) {
			fl->probes++;
			continue;
		}
		/* Another auditor's own load; or its answer was lost or never came (trace-incomplete). */
		if (ct_search_known(p, s) == CT_SEARCH_AUDITOR)
			continue;
		/* Unanswered, but for a search that ended at a file the loader refused. */
		if (ct_search_known(p, s) != CT_SEARCH_KNOWN &&
		    !(d && ct_diagnosis_refused(d, s, NULL))) {
			fl->unanswered++;
			continue;
		}
		/* The loader skips a missing DT_AUXILIARY entry without a word. */
		if (kind == CT_SEARCH_AUXILIARY) {
			fl->optional++;
			continue;
		}
		HASH_FIND_STR(groups, s->name, g);
		if (!g) {
			g = ct_xcalloc(1, sizeof(*g));
			g->name = s->name;
			HASH_ADD_KEYPTR(hh, groups, g->name, strlen(g->name), g);
			order = ct_xrealloc(order, (ngroups + 1) * sizeof(*order));
			order[ngroups++] = g;
		}
		if (d && !g->refused)
			g->refused = ct_diagnosis_refused(d, s, &g->words);
		how = miss_how(s, kind);
		by = s->request ? s->request->caller : s->by;
		by = by ? by : "?";
		for (k = 0; k < g->nways; k++)
			if (strcmp(g->ways[k].how, how) == 0 && strcmp(g->ways[k].by, by) == 0)
				break;
		if (k == g->nways) {
			g->ways = ct_xrealloc(g->ways, (g->nways + 1) * sizeof(*g->ways));
			g->ways[g->nways].how = how;
			g->ways[g->nways].by = by;
			g->ways[g->nways++].times = 0;
		}
		g->ways[k].times++;
	}
	fl->misses = ct_rm_calloc(b->m, ngroups, sizeof(*fl->misses));
	fl->nmisses = ngroups;
	for (i = 0; i < ngroups; i++) {
		struct ct_rm_miss *ms = &fl->misses[i];

		g = order[i];
		ms->name = ct_rm_str(b, g->name);
		ms->refused = ct_rm_str(b, g->refused);
		ms->refused_words = ct_rm_str(b, g->words);
		ms->ways = ct_rm_calloc(b->m, g->nways, sizeof(*ms->ways));
		ms->nways = g->nways;
		for (k = 0; k < g->nways; k++) {
			ms->ways[k].how = ct_rm_str(b, g->ways[k].how);
			ms->ways[k].by = ct_rm_str(b, ct_rm_base(g->ways[k].by));
			ms->ways[k].times = g->ways[k].times;
		}
	}
	HASH_ITER(hh, groups, g, tmp) {
		HASH_DEL(groups, g);
		free(g->ways);
		free(g);
	}
	free(order);
	auditors_build(b, fl, p);
}

/* What was lost of p: execs not traced, records dropped, a damaged file. */
static void losses_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	size_t i;

	out->untraced_execs = ct_rm_calloc(b->m, p->nexecs, sizeof(*out->untraced_execs));
	for (i = 0; i < p->nexecs; i++) {
		struct ct_rm_exec *x;

		if (p->execs[i].traced)
			continue;
		x = &out->untraced_execs[out->nuntraced_execs++];
		x->api = ct_rm_str(b, p->execs[i].api);
		x->path = p->execs[i].path ? ct_rm_str(b, p->execs[i].path) : "?";
		x->why = untraced_words(p->execs[i].untraced);
	}
	out->dropped = p->dropped;
	out->bad_lines = p->bad_lines;
	out->cut = p->cut;
}

/* ---- every process -------------------------------------------------------------- */

/* What every process has in the model: who it is, how it ended. */
static void proc_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	struct ct_ending end;

	out->pid = p->pid;
	/* A process made from its run record: no start record, no parent known. */
	out->has_ppid = !p->untraced;
	out->ppid = p->ppid;
	out->host = ct_rm_str(b, p->host);
	out->run = ct_rm_str(b, p->run);
	out->job = ct_rm_str(b, ct_proc_job(p, NULL));
	/* Its rank under the launcher that named the job (on a cluster a pid is no name). */
	out->rank = ct_rm_str(b, ct_proc_rank(p));
	/* A restarted job's rank runs again: which of its attempts this is (restarts.c). */
	out->has_attempt = p->attempts_known;
	out->attempt = (int64_t)p->attempt;
	/* Whose its trace is: a job's runs are grouped by user too (job_notes). */
	out->uid = p->owner;
	out->exe = ct_rm_str(b, p->exe);
	/* A process killed by a signal leaves no exit record: its run record knows its end. */
	ct_proc_ending(p, &end);
	out->has_exit_status = end.kind == CT_END_EXIT;
	out->exit_status = end.status;
	out->has_signal = end.kind == CT_END_SIGNAL;
	out->signal = end.signal;
	/* No end yet: its pid runs here as the same process (or ps read it). */
	out->still_running = p->still_running || p->running;
	out->untraced = ct_rm_str(b, p->untraced);
	/* Read from /proc (ps): what was left out, as the list says it. */
	out->read_from_proc = p->running;
	out->proc_unverified = p->proc_unverified;
	out->proc_other_mnt = p->proc_other_mnt;
	out->proc_limit = ct_rm_str(b, p->proc_limit);
	out->proc_limited = p->proc_limited;
}

/*
 * What it loaded, failed to load and ran, as JSON says it (facts); or
 * (text) what the text prints of it: its driver and its module loads.
 */
static void facts_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p,
			bool facts, struct json_version **versions)
{
	driver_build(b, out, p);
	modules_build(b, out, p, facts);
	if (!facts)
		return;
	out->has_facts = true;
	out->has_env = true;
	env_build(b, out, p);
	libs_build(b, out, p, versions);
	not_found_build(b, out, p);
	ct_rm_code_build(b, out, p);
}

/*
 * Where the folded processes ran: their count alone leaves a cluster's
 * admin asking which ranks on which hosts.
 */
static void folded_build(struct ct_rm_build *b, bool hosts)
{
	const struct ct_trace *t = b->t;
	const struct ct_proc **procs = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*procs));
	size_t i, n = 0;

	for (i = 0; i < t->nprocs; i++)
		if (b->m->procs[i].show == CT_RM_FOLDED)
			procs[n++] = &t->procs[i];
	if (n)
		b->m->folded_where = ct_rm_ranks_words(b, procs, n, hosts);
	free(procs);
}

void ct_rm_procs_build(struct ct_rm_build *b)
{
	const struct ct_trace *t = b->t;
	struct ct_report_model *m = b->m;
	struct json_version *versions = NULL;
	struct kind *kinds = NULL, *e, *tmp;
	/* Name the host in headings only when the trace spans several. */
	bool hosts = many_hosts(t), owners = many_owners(t);
	size_t i;

	m->procs = ct_rm_calloc(m, t->nprocs, sizeof(*m->procs));
	m->nprocs = t->nprocs;
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct ct_rm_proc *out = &m->procs[i];
		enum ct_role role = (enum ct_role)b->roles->role[i];

		proc_build(b, out, p);
		/* On the way to the program, doing nothing with CUDA (roles.h): diff leaves it out. */
		out->wrapper = role == CT_ROLE_WRAPPER;
		out->show = role == CT_ROLE_WRAPPER ? CT_RM_WRAPPER
			    : role == CT_ROLE_SHOWN ? CT_RM_SHOWN
						    : CT_RM_QUIET;
		/* Ranks of one job look alike: said so instead of repeating them (-v: all). */
		if (out->show == CT_RM_SHOWN && !b->o->verbose && folds(&kinds, t, i))
			out->show = CT_RM_FOLDED;
		/* JSON and diff: every process's facts; the text: what it prints of one it shows. */
		if (b->o->json || out->show == CT_RM_SHOWN)
			facts_build(b, out, p, b->o->json, &versions);
		if (out->show != CT_RM_SHOWN)
			continue;
		heading_build(b, out, p, hosts, owners);
		ct_rm_end_build(b, out, p);
		losses_build(b, out, p);
		/* Made from its run record: nothing of it was seen but how it ended. */
		if (p->untraced)
			continue;
		ct_rm_tree_build(b, out, p);
		ct_rm_matrix_build(b, out, p);
		failures_build(b, out, p);
	}
	HASH_ITER(hh, kinds, e, tmp) {
		HASH_DEL(kinds, e);
		free(e->procs);
		free(e);
	}
	HASH_CLEAR(hh, versions);
	folded_build(b, hosts);
}

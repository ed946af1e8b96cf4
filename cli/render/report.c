/* The report of a trace: text and JSON; see report.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "elfscan.h"
#include "ending.h"
#include "facts.h"
#include "json.h"
#include "libfacts.h"
#include "markdown.h"
#include "schema.h"
#include "mask.h"
#include "findings_out.h"
#include "report.h"
#include "roles.h"
#include "summary.h"
#include "text.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

static enum ct_colour_mode colour_mode = CT_COLOUR_AUTO;

void ct_colour_set(enum ct_colour_mode mode)
{
	colour_mode = mode;
}

bool ct_want_colour(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (colour_mode != CT_COLOUR_AUTO)
		return colour_mode == CT_COLOUR_ALWAYS;
	return isatty(fileno(f)) && !(nc && *nc);
}

/* At most this many lines about ranks claimed twice; --json has them all. */
#define RANK_NOTES_MAX 8

/* "0a0a, 0b0b and 3 more": a note's runs, the first few. */
static void print_runs(FILE *out, const struct ct_job_note *n)
{
	size_t i, shown = n->nruns > 4 ? 3 : n->nruns;

	for (i = 0; i < shown; i++)
		ct_tprintf(out, "%s%s", i == 0 ? "" : i + 1 == n->nruns ? " and " : ", ", n->runs[i]);
	if (shown < n->nruns)
		ct_tprintf(out, " and %zu more", n->nruns - shown);
}

/*
 * What the jobs hold beyond their count (trace.h, job_notes): a job id
 * the runs of several users name (anyone who may write to the folder can
 * name a job: each user's runs are a job of their own, never merged
 * silently), and a rank two runs of one job claim on one host.
 */
static void job_notes(FILE *out, const struct ct_trace *t)
{
	size_t i, k, ranks = 0;

	for (i = 0; i < t->njob_notes; i++) {
		const struct ct_job_note *n = &t->job_notes[i];

		if (n->kind == CT_JOB_NOTE_USERS) {
			ct_tprintf(out, "job %s (%s) is named by the runs of %zu users, a job for "
				     "each: ", n->job, n->from, n->nowners);
			for (k = 0; k < n->nowners; k++)
				ct_tprintf(out, "%suid %lld (%zu run%s)", k ? ", " : "",
					   (long long)n->owners[k], n->owner_runs[k],
					   n->owner_runs[k] == 1 ? "" : "s");
			ct_tprintf(out, "\n");
			continue;
		}
		if (ranks++ >= RANK_NOTES_MAX)
			continue;
		ct_tprintf(out, "rank %s of job %s (%s)%s%s is claimed by %zu runs: ", n->rank,
			   n->job, n->from, n->host ? " on " : "", n->host ? n->host : "", n->nruns);
		print_runs(out, n);
		ct_tprintf(out, "\n");
	}
	if (ranks > RANK_NOTES_MAX)
		ct_tprintf(out, "%zu more ranks claimed by several runs of one job\n",
			   ranks - RANK_NOTES_MAX);
}

static void verdict(FILE *out, const struct ct_trace *t, const struct ct_diagnosis *d,
		    const struct ct_roles *roles, bool colour)
{
	size_t i, runs = ct_trace_runs(t), jobs = ct_trace_jobs(t), untraced = 0, notes = 0;
	size_t running = 0, n = t->nprocs - roles->nwrappers;
	char ended[512], names[256];
	bool bad = ct_endings_headline(t, ended, sizeof(ended));

	for (i = 0; i < t->nprocs; i++) {
		untraced += t->procs[i].untraced != NULL;
		running += t->procs[i].running;
	}
	/*
	 * One run is what a run gives; report says when it merged several, and
	 * counts the ranks of one srun, torchrun or mpirun (their runs) as one job.
	 */
	ct_tprintf(out, "cudatrace: ");
	if (jobs < runs)
		ct_tprintf(out, "%zu job%s (%zu runs), ", jobs, jobs == 1 ? "" : "s", runs);
	else if (runs > 1)
		ct_tprintf(out, "%zu runs, ", runs);
	/*
	 * ps reads running processes from /proc: nothing was traced. The
	 * wrappers (pyenv's shims) are not what the user ran: counted apart.
	 */
	if (running && running == t->nprocs)
		ct_tprintf(out, "%zu running process%s read", running, running == 1 ? "" : "es");
	else if (untraced && untraced == n)
		ct_tprintf(out, "%zu process%s not traced", untraced, untraced == 1 ? "" : "es");
	else if (untraced)
		ct_tprintf(out, "%zu process%s traced, %zu not traced", n - untraced,
			   n - untraced == 1 ? "" : "es", untraced);
	else
		ct_tprintf(out, "%zu process%s traced", n, n == 1 ? "" : "es");
	if (roles->nwrappers)
		ct_tprintf(out, " (and %zu wrapper process%s: %s)", roles->nwrappers,
			   roles->nwrappers == 1 ? "" : "es",
			   ct_roles_names(roles, names, sizeof(names)));
	ct_tprintf(out, ": ");
	/*
	 * A program that crashed (or failed) is not one without a problem: the
	 * first line says how it ended, then what was found about CUDA.
	 */
	if (bad)
		ct_tprintf(out, "%s; ", ended);
	if (bad && ct_findings_worst(&d->findings) < CT_SEV_WARNING) {
		for (i = 0; i < d->findings.n; i++)
			notes += d->findings.f[i].severity == CT_SEV_INFO;
		ct_tprintf(out, "no CUDA problem found");
		if (notes)
			ct_tprintf(out, " (and %zu note%s)", notes, notes == 1 ? "" : "s");
	} else {
		ct_findings_tally(out, &d->findings, colour);
	}
	ct_tprintf(out, "\n");
	job_notes(out, t);
	ct_endings_print(out, t);
	if (d->ntargets && ct_diagnosis_has_code(d)) {
		ct_tprintf(out, "device code judged for ");
		for (i = 0; i < d->ntargets; i++)
			ct_tprintf(out, "%s%s", i ? ", " : "", d->target_names[i]);
		ct_tprintf(out, "%s\n", d->targets_from_trace ? " (the GPUs the driver reported)" : "");
	} else if (ct_diagnosis_has_code(d)) {
		ct_tprintf(out, "device code not judged: no GPU recorded (pass --arch sm_XY to judge it "
			     "for a GPU)\n");
	}
}

/* ---- JSON -------------------------------------------------------------------- */

/* What the JSON says of a file's device code: the same for every process that loaded it. */
struct code_words {
	const struct elfscan_file *f;
	char sass[1024], ptx[1024], ltoir[1024];
	long pick[CT_MAX_TARGETS];
	UT_hash_handle hh;
};

/* The archs of a module's images read from its file, by where they are. */
struct module_words {
	char *key;   /* "offset size object" */
	char words[512];
	UT_hash_handle hh;
};

/* A CUDA library's version, from its real path: resolved once, not once per rank. */
struct lib_version {
	const char *path;
	char ver[64];
	UT_hash_handle hh;
};

/*
 * What the processes of a job ask alike, worked out once for the report:
 * their files' device code, the images of the modules their files
 * register (read from the files, hundreds a rank), their libraries'
 * versions.
 */
struct json_memo {
	struct code_words *files;
	struct module_words *modules;
	struct lib_version *versions;
};

static void memo_release(struct json_memo *memo)
{
	struct code_words *c, *ctmp;
	struct module_words *m, *mtmp;
	struct lib_version *v, *vtmp;

	HASH_ITER(hh, memo->files, c, ctmp) {
		HASH_DEL(memo->files, c);
		free(c);
	}
	HASH_ITER(hh, memo->modules, m, mtmp) {
		HASH_DEL(memo->modules, m);
		free(m->key);
		free(m);
	}
	HASH_ITER(hh, memo->versions, v, vtmp) {
		HASH_DEL(memo->versions, v);
		free(v);
	}
}

static const char *version_of(struct json_memo *memo, const char *path, const char *soname)
{
	struct lib_version *v;

	HASH_FIND_STR(memo->versions, path, v);
	if (v)
		return v->ver;
	v = ct_xcalloc(1, sizeof(*v));
	v->path = path;
	ct_library_version_read(path, soname, v->ver, sizeof(v->ver));
	HASH_ADD_KEYPTR(hh, memo->versions, v->path, strlen(v->path), v);
	return v->ver;
}

static const struct code_words *code_words_of(struct json_memo *memo, const struct elfscan_file *f,
					      const struct ct_diagnosis *d)
{
	struct code_words *c;
	struct ct_summary s;
	size_t t;

	HASH_FIND_PTR(memo->files, &f, c);
	if (c)
		return c;
	c = ct_xcalloc(1, sizeof(*c));
	c->f = f;
	ct_summary_build(&s, f, 0, f->nimages);
	ct_summary_archs(&s, ELFSCAN_KIND_SASS, c->sass, sizeof(c->sass));
	ct_summary_archs(&s, ELFSCAN_KIND_PTX, c->ptx, sizeof(c->ptx));
	ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, c->ltoir, sizeof(c->ltoir));
	ct_summary_release(&s);
	for (t = 0; t < d->ntargets; t++)
		c->pick[t] = elfscan_pick_image(f->images, f->nimages, &d->targets[t]);
	HASH_ADD_PTR(memo->files, f, c);
	return c;
}

/* m's images in words (ct_module_images_words), read from a file once for every rank. */
static const char *module_words_of(struct json_memo *memo, const struct ct_module *m,
				   const struct ct_diagnosis *d, char *buf, size_t size)
{
	struct module_words *e;
	char *key;

	if (m->nimages || !m->object || m->offset < 0)
		return ct_module_images_words(d, m, buf, size);
	if (asprintf(&key, "%lld %lld %s", (long long)m->offset, (long long)m->size, m->object) < 0)
		ct_out_of_memory();
	HASH_FIND_STR(memo->modules, key, e);
	if (e) {
		free(key);
	} else {
		e = ct_xcalloc(1, sizeof(*e));
		e->key = key;
		ct_module_images_words(d, m, e->words, sizeof(e->words));
		HASH_ADD_KEYPTR(hh, memo->modules, e->key, strlen(e->key), e);
	}
	snprintf(buf, size, "%s", e->words);
	return buf;
}

static void json_device_code(struct ct_json *j, const struct ct_proc *p, const struct ct_diagnosis *d,
			     struct json_memo *memo)
{
	size_t i, t;

	ct_json_key(j, "device_code");
	ct_json_array_begin(j);
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f;
		const struct code_words *c;

		if (p->objects[i].shim || !(f = ct_diagnosis_code(d, p->objects[i].path)))
			continue;
		c = code_words_of(memo, f, d);
		ct_json_object_begin(j);
		ct_json_kv_string(j, "object", p->objects[i].path);
		ct_json_kv_u64(j, "images", f->nimages);
		ct_json_words(j, "sass", c->sass);
		ct_json_words(j, "ptx", c->ptx);
		ct_json_words(j, "ltoir", c->ltoir);
		ct_json_key(j, "verdicts");
		ct_json_array_begin(j);
		for (t = 0; t < d->ntargets; t++) {
			long pick = c->pick[t];
			char name[ELFSCAN_ARCH_NAME_MAX];

			ct_json_object_begin(j);
			ct_json_kv_string(j, "target", elfscan_target_name(&d->targets[t], name,
									   sizeof(name)));
			ct_json_kv_string(j, "verdict",
					  pick < 0 ? "no-image"
					  : f->images[pick].kind == ELFSCAN_KIND_SASS ? "sass"
										      : "ptx-jit");
			if (pick >= 0)
				ct_json_kv_string(j, "image", elfscan_image_arch_name(&f->images[pick],
										       name, sizeof(name)));
			else
				ct_json_kv_string(j, "image", NULL);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_process(struct ct_json *j, const struct ct_proc *p, const struct ct_diagnosis *d,
			 bool wrapper, struct json_memo *memo)
{
	struct ct_ending end;
	size_t i, k;

	ct_json_object_begin(j);
	ct_json_key(j, "pid");
	ct_json_i64(j, p->pid);
	/* A process made from its run record: no start record, no parent known. */
	ct_json_key(j, "ppid");
	if (p->untraced)
		ct_json_null(j);
	else
		ct_json_i64(j, p->ppid);
	ct_json_kv_string(j, "host", p->host);
	ct_json_kv_string(j, "run", p->run);
	ct_json_kv_string(j, "job", ct_proc_job(p, NULL));
	/* Whose its trace is: a job's runs are grouped by user too (job_notes). */
	ct_json_key(j, "uid");
	if (p->owner >= 0)
		ct_json_i64(j, p->owner);
	else
		ct_json_null(j);
	ct_json_kv_string(j, "exe", p->exe);
	/* On the way to the program, doing nothing with CUDA (roles.h): diff leaves it out. */
	ct_json_kv_bool(j, "wrapper", wrapper);
	/*
	 * The variables the trace kept that shape loading (docs/trace-format.md,
	 * "Privacy"), masked as elsewhere; not cudatrace's own (CUDATRACE_*,
	 * and LD_AUDIT and LD_PRELOAD, which hold its shim). What diff compares.
	 */
	ct_json_key(j, "env");
	ct_json_object_begin(j);
	for (i = 0; i < p->nenv; i++) {
		const struct ct_var *v = &p->env[i];
		char *m;

		if (!v->name || strncmp(v->name, "CUDATRACE_", 10) == 0 ||
		    strcmp(v->name, "LD_AUDIT") == 0 || strcmp(v->name, "LD_PRELOAD") == 0)
			continue;
		m = v->value ? ct_mask_value(v->name, v->value) : NULL;
		ct_json_kv_string(j, v->name, m ? m : v->value);
		free(m);
	}
	ct_json_object_end(j);
	ct_json_key(j, "argv");
	ct_json_array_begin(j);
	for (i = 0; i < p->argc; i++) {
		/* Shared: the values of secret options and URL credentials masked. */
		char *m = ct_mask_arg(p->argv, i);

		ct_json_string(j, m ? m : p->argv[i]);
		free(m);
	}
	ct_json_array_end(j);
	/* A process killed by a signal leaves no exit record: its run record knows its end. */
	ct_proc_ending(p, &end);
	ct_json_key(j, "exit_status");
	if (end.kind == CT_END_EXIT)
		ct_json_i64(j, end.status);
	else
		ct_json_null(j);
	ct_json_key(j, "signal");
	if (end.kind == CT_END_SIGNAL)
		ct_json_i64(j, end.signal);
	else
		ct_json_null(j);
	/* No end yet: its pid runs here as the same process (or ps read it). */
	ct_json_kv_bool(j, "still_running", p->still_running || p->running);
	ct_json_kv_string(j, "untraced", p->untraced);
	/* Read from /proc (ps): what was left out, as the list says it. */
	if (p->running) {
		ct_json_key(j, "read_from_proc");
		ct_json_object_begin(j);
		ct_json_kv_u64(j, "unverified", p->proc_unverified);
		ct_json_kv_bool(j, "other_mount_namespace", p->proc_other_mnt);
		ct_json_kv_string(j, "maps_limit", p->proc_limit);
		ct_json_kv_u64(j, "maps_left_out", p->proc_limited);
		ct_json_object_end(j);
	}
	ct_json_key(j, "libraries");
	ct_json_array_begin(j);
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];

		if (o->shim || o->main)
			continue;
		ct_json_object_begin(j);
		ct_json_kv_string(j, "name", o->name);
		ct_json_kv_string(j, "path", o->path);
		ct_json_kv_string(j, "soname", o->soname);
		ct_json_kv_string(j, "found_via", o->via ? ct_rule_id(o->via) : NULL);
		ct_json_kv_string(j, "requested_by", o->request ? o->request->caller : o->by);
		ct_json_kv_string(j, "api", o->request ? o->request->api
					    : o->run_time ? "dlopen"
							  : "needed");
		/* ps: a library loaded at run time, whose rule /proc does not say. */
		if (o->run_time) {
			ct_json_key(j, "found_by_name");
			if (o->name_via) {
				ct_json_object_begin(j);
				ct_json_kv_string(j, "via", ct_rule_id(o->name_via));
				ct_json_kv_string(j, "path", o->name_path);
				ct_json_object_end(j);
			} else {
				ct_json_null(j);
			}
		}
		ct_json_kv_bool(j, "cuda", ct_cuda_library(o->path));
		ct_json_kv_string(j, "version",
				  ct_cuda_library(o->path)
					  ? version_of(memo, o->path,
						       d ? ct_diagnosis_soname(d, o) : o->soname)
					  : NULL);
		ct_json_kv_bool(j, "closed", o->closed);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "not_found");
	ct_json_array_begin(j);
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];

		/* A search whose answer was lost or never came is no miss (trace-incomplete). */
		if (s->found || s->already_loaded || (s->request && s->request->noload) ||
		    (ct_search_known(p, s) != CT_SEARCH_KNOWN && !ct_diagnosis_refused(d, s, NULL)))
			continue;
		ct_json_object_begin(j);
		ct_json_kv_string(j, "name", s->name);
		ct_json_kv_string(j, "requested_by", s->request ? s->request->caller : s->by);
		ct_json_kv_string(j, "api", s->request ? s->request->api : "needed");
		ct_json_kv_string(j, "error", s->request ? s->request->error : NULL);
		ct_json_key(j, "tried");
		ct_json_array_begin(j);
		for (k = 0; k < s->ntries; k++) {
			ct_json_object_begin(j);
			ct_json_kv_string(j, "path", s->tries[k].path);
			ct_json_kv_string(j, "via", s->tries[k].via ? ct_rule_id(s->tries[k].via) : "");
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "driver");
	if (p->driver.present) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", p->driver.path);
		ct_json_key(j, "version");
		ct_json_i64(j, p->driver.version);
		ct_json_key(j, "cuinit");
		if (p->ncuinit)
			ct_json_i64(j, p->cuinit);
		else
			ct_json_null(j);
		/* ps: asked by cudatrace itself, not recorded from the process. */
		if (p->running)
			ct_json_kv_string(j, "asked", p->driver_unasked ? "no"
						      : p->cuinit_probed ? "same-file"
									 : "machine");
		ct_json_key(j, "devices");
		ct_json_array_begin(j);
		for (k = 0; k < p->driver.ngpus; k++) {
			const struct ct_gpu_rec *g = &p->driver.gpus[k];

			ct_json_object_begin(j);
			ct_json_kv_string(j, "name", g->name);
			ct_json_kv_string(j, "cc", g->cc);
			ct_json_kv_string(j, "uuid", g->uuid);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
	ct_json_key(j, "modules");
	ct_json_array_begin(j);
	for (i = 0; i < p->nmodules; i++) {
		const struct ct_module *m = &p->modules[i];
		char words[512];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "api", m->registration ? "__cudaRegisterFatBinary" : m->api);
		ct_json_kv_string(j, "caller", m->caller);
		ct_json_kv_string(j, "file", m->file);
		ct_json_key(j, "result");
		if (m->registration)
			ct_json_null(j);
		else
			ct_json_i64(j, m->result);
		module_words_of(memo, m, d, words, sizeof(words));
		ct_json_words(j, "images", words[0] ? words : "none");
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	json_device_code(j, p, d, memo);
	ct_json_object_end(j);
}

static void json_job_notes(struct ct_json *j, const struct ct_trace *t)
{
	size_t i, k;

	ct_json_key(j, "job_notes");
	ct_json_array_begin(j);
	for (i = 0; i < t->njob_notes; i++) {
		const struct ct_job_note *n = &t->job_notes[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "kind", n->kind == CT_JOB_NOTE_USERS ? "users" : "rank");
		ct_json_kv_string(j, "job", n->job);
		ct_json_kv_string(j, "job_from", n->from);
		ct_json_kv_string(j, "host", n->host);
		ct_json_kv_string(j, "rank", n->rank);
		ct_json_key(j, "users");
		ct_json_array_begin(j);
		for (k = 0; k < n->nowners; k++) {
			ct_json_object_begin(j);
			ct_json_key(j, "uid");
			ct_json_i64(j, n->owners[k]);
			ct_json_kv_u64(j, "runs", n->owner_runs[k]);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_key(j, "runs");
		ct_json_array_begin(j);
		for (k = 0; k < n->nruns; k++)
			ct_json_string(j, n->runs[k]);
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

/* "wrappers": how many processes are wrappers (roles.h), and their names. */
static void json_wrappers(struct ct_json *j, const struct ct_roles *roles)
{
	size_t i;

	ct_json_key(j, "wrappers");
	ct_json_object_begin(j);
	ct_json_kv_u64(j, "processes", roles ? roles->nwrappers : 0);
	ct_json_key(j, "names");
	ct_json_array_begin(j);
	for (i = 0; roles && i < roles->nnames; i++)
		ct_json_string(j, roles->names[i]);
	ct_json_array_end(j);
	ct_json_object_end(j);
}

static void json_report(FILE *out, const struct ct_trace *t, const struct ct_diagnosis *d,
			const struct ct_roles *roles)
{
	struct json_memo memo = { NULL, NULL, NULL };
	struct ct_json j;
	size_t i;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_REPORT);
	ct_json_kv_u64(&j, "version", 1);
	ct_json_kv_u64(&j, "runs", ct_trace_runs(t));
	ct_json_kv_u64(&j, "jobs", ct_trace_jobs(t));
	json_job_notes(&j, t);
	ct_json_key(&j, "device");
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "from", d->ntargets ? (d->targets_from_trace ? "trace" : "arch")
						   : NULL);
	ct_json_key(&j, "targets");
	ct_json_array_begin(&j);
	for (i = 0; i < d->ntargets; i++)
		ct_json_string(&j, d->target_names[i]);
	ct_json_array_end(&j);
	ct_json_object_end(&j);
	ct_json_key(&j, "processes");
	ct_json_array_begin(&j);
	for (i = 0; i < t->nprocs; i++)
		json_process(&j, &t->procs[i], d, roles->role[i] == CT_ROLE_WRAPPER, &memo);
	memo_release(&memo);
	ct_json_array_end(&j);
	json_wrappers(&j, roles);
	ct_json_key(&j, "findings");
	ct_findings_json(&j, &d->findings);
	/* What the folder held that is no process of the report: counted, never silent. */
	ct_json_key(&j, "trace_files_left_out");
	ct_json_object_begin(&j);
	ct_json_kv_u64(&j, "no_record", t->bad_files);
	ct_json_kv_u64(&j, "no_start", t->unstarted_files);
	ct_json_kv_u64(&j, "other_owner", t->foreign_files);
	ct_json_kv_u64(&j, "other_run", t->other_run_files);
	ct_json_object_end(&j);
	ct_json_object_end(&j);
	ct_json_finish(&j);
}

void ct_report_json_error(FILE *out, const char *error)
{
	struct ct_json j;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_REPORT);
	ct_json_kv_u64(&j, "version", 1);
	ct_json_kv_u64(&j, "runs", 0);
	ct_json_kv_u64(&j, "jobs", 0);
	ct_json_key(&j, "job_notes");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	ct_json_key(&j, "device");
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "from", NULL);
	ct_json_key(&j, "targets");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	ct_json_object_end(&j);
	ct_json_key(&j, "processes");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	json_wrappers(&j, NULL);
	ct_json_key(&j, "findings");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	ct_json_kv_string(&j, "error", error);
	ct_json_object_end(&j);
	ct_json_finish(&j);
}

/* ---- Markdown --------------------------------------------------------------- */

static const char *const kept_env[] = {
#define CT_ENV(name) name,
#include "ct_env.def"
#undef CT_ENV
};

/*
 * The environment the trace kept, one line per variable and value: only
 * the variables a trace keeps (a trace written by something else may hold
 * others), masked as argv is.
 */
static void print_env(FILE *out, const struct ct_trace *t)
{
	size_t v, i, k, j;

	for (v = 0; v < sizeof(kept_env) / sizeof(kept_env[0]); v++) {
		/* Each value's place, found by hashing: a job's CUDATRACE_RUN differs in every rank. */
		struct env_value {
			const char *value;
			size_t at;
			UT_hash_handle hh;
		} *seen = NULL, *e, *tmp;
		const char **values = NULL;
		size_t *count = NULL, n = 0, procs = 0;

		for (i = 0; i < t->nprocs; i++) {
			const char *val = NULL;

			for (k = 0; k < t->procs[i].nenv; k++)
				if (t->procs[i].env[k].name && t->procs[i].env[k].value &&
				    strcmp(t->procs[i].env[k].name, kept_env[v]) == 0)
					val = t->procs[i].env[k].value;
			if (!val)
				continue;
			procs++;
			HASH_FIND_STR(seen, val, e);
			if (!e) {
				values = ct_xrealloc(values, (n + 1) * sizeof(*values));
				count = ct_xrealloc(count, (n + 1) * sizeof(*count));
				values[n] = val;
				count[n] = 0;
				e = ct_xcalloc(1, sizeof(*e));
				e->value = val;
				e->at = n++;
				HASH_ADD_KEYPTR(hh, seen, e->value, strlen(e->value), e);
			}
			count[e->at]++;
		}
		HASH_ITER(hh, seen, e, tmp) {
			HASH_DEL(seen, e);
			free(e);
		}
		for (j = 0; j < n; j++) {
			char *m = ct_mask_value(kept_env[v], values[j]);

			ct_tprintf(out, "%s=%s", kept_env[v], m ? m : values[j]);
			if (n > 1 || procs < t->nprocs)
				ct_tprintf(out, "  (%zu process%s)", count[j], count[j] == 1 ? "" : "es");
			ct_tprintf(out, "\n");
			free(m);
		}
		free(values);
		free(count);
	}
}

static void markdown_report(FILE *out, const struct ct_trace *t, const struct ct_diagnosis *d,
			    const struct ct_roles *roles, const struct ct_report_options *o)
{
	struct ct_md *md = ct_md_new(o->home, o->verbose);
	char title[128];

	verdict(ct_md_verdict(md), t, d, roles, false);
	if (!o->findings_only) {
		snprintf(title, sizeof(title), "Processes: CUDA libraries, device code, driver (%zu "
			 "process%s)", t->nprocs, t->nprocs == 1 ? "" : "es");
		ct_facts_print(ct_md_section(md, title), t, d, roles, o->verbose);
		print_env(ct_md_section(md, "Environment the trace kept"), t);
	}
	ct_md_write(md, out, "cudatrace report", &d->findings);
	ct_md_free(md);
}

int ct_report(const struct ct_trace *t, const struct ct_report_options *o, FILE *text,
	      FILE *json)
{
	struct ct_diagnosis d;
	struct ct_roles roles;
	int worst;

	ct_diagnose(&d, t, o->targets, o->ntargets, o->machine);
	ct_roles_find(&roles, t, &d);
	worst = ct_findings_worst(&d.findings);
	if (text && o->markdown) {
		markdown_report(text, t, &d, &roles, o);
	} else if (text && o->findings_only) {
		ct_findings_print(text, &d.findings, o->colour, o->verbose);
	} else if (text) {
		verdict(text, t, &d, &roles, o->colour);
		if (d.findings.n) {
			fputc('\n', text);
			ct_findings_print(text, &d.findings, o->colour, o->verbose);
		}
		fputc('\n', text);
		ct_facts_print(text, t, &d, &roles, o->verbose);
	}
	if (json)
		json_report(json, t, &d, &roles);
	ct_roles_release(&roles);
	ct_diagnosis_release(&d);
	return worst;
}

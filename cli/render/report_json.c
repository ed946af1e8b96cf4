/*
 * The report's JSON view (report.h): the report model written out, field
 * for field, in the order of docs/schema/report.schema.json. Nothing here
 * is worked out: what JSON says is what the model holds, and model_read.c
 * reads the same fields back.
 */
#include <stdio.h>

#include "findings_out.h"
#include "json.h"
#include "report.h"
#include "schema.h"

static void json_i64_or_null(struct ct_json *j, const char *key, bool has, int64_t v)
{
	ct_json_key(j, key);
	if (has)
		ct_json_i64(j, v);
	else
		ct_json_null(j);
}

static void json_device_code(struct ct_json *j, const struct ct_rm_proc *p)
{
	size_t i, t;

	ct_json_key(j, "device_code");
	ct_json_array_begin(j);
	for (i = 0; i < p->ncode; i++) {
		const struct ct_rm_code *c = p->code[i].code;

		ct_json_object_begin(j);
		ct_json_kv_string(j, "object", p->code[i].object);
		ct_json_kv_u64(j, "images", c->images);
		ct_json_words(j, "sass", c->sass);
		ct_json_words(j, "ptx", c->ptx);
		ct_json_words(j, "ltoir", c->ltoir);
		ct_json_key(j, "verdicts");
		ct_json_array_begin(j);
		for (t = 0; t < c->nverdicts; t++) {
			ct_json_object_begin(j);
			ct_json_kv_string(j, "target", c->verdicts[t].target);
			ct_json_kv_string(j, "verdict", c->verdicts[t].verdict);
			ct_json_kv_string(j, "image", c->verdicts[t].image);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_libraries(struct ct_json *j, const struct ct_rm_proc *p)
{
	size_t i;

	ct_json_key(j, "libraries");
	ct_json_array_begin(j);
	for (i = 0; i < p->nlibs; i++) {
		const struct ct_rm_lib *l = &p->libs[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "name", l->name);
		ct_json_kv_string(j, "path", l->path);
		ct_json_kv_string(j, "soname", l->soname);
		ct_json_kv_string(j, "found_via", l->found_via);
		ct_json_kv_string(j, "requested_by", l->requested_by);
		ct_json_kv_string(j, "api", l->api);
		/* ps: a library loaded at run time, whose rule /proc does not say. */
		if (l->run_time) {
			ct_json_key(j, "found_by_name");
			if (l->name_via) {
				ct_json_object_begin(j);
				ct_json_kv_string(j, "via", l->name_via);
				ct_json_kv_string(j, "path", l->name_path);
				ct_json_object_end(j);
			} else {
				ct_json_null(j);
			}
		}
		ct_json_kv_bool(j, "cuda", l->cuda);
		ct_json_kv_string(j, "version", l->version);
		ct_json_kv_bool(j, "closed", l->closed);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_not_found(struct ct_json *j, const struct ct_rm_proc *p)
{
	size_t i, k;

	ct_json_key(j, "not_found");
	ct_json_array_begin(j);
	for (i = 0; i < p->nnot_found; i++) {
		const struct ct_rm_not_found *nf = &p->not_found[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "name", nf->name);
		ct_json_kv_string(j, "requested_by", nf->requested_by);
		ct_json_kv_string(j, "api", nf->api);
		ct_json_kv_string(j, "error", nf->error);
		ct_json_key(j, "tried");
		ct_json_array_begin(j);
		for (k = 0; k < nf->ntried; k++) {
			ct_json_object_begin(j);
			ct_json_kv_string(j, "path", nf->tried[k].path);
			ct_json_kv_string(j, "via", nf->tried[k].via);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_driver(struct ct_json *j, const struct ct_rm_driver *dr)
{
	size_t k;

	ct_json_key(j, "driver");
	if (dr->present) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", dr->path);
		ct_json_key(j, "version");
		ct_json_i64(j, dr->version);
		json_i64_or_null(j, "cuinit", dr->ncuinit > 0, dr->cuinit);
		/* ps: asked by cudatrace itself, not recorded from the process. */
		if (dr->asked)
			ct_json_kv_string(j, "asked", dr->asked);
		ct_json_key(j, "devices");
		ct_json_array_begin(j);
		for (k = 0; k < dr->ngpus; k++) {
			ct_json_object_begin(j);
			ct_json_kv_string(j, "name", dr->gpus[k].name);
			ct_json_kv_string(j, "cc", dr->gpus[k].cc);
			ct_json_kv_string(j, "uuid", dr->gpus[k].uuid);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
}

static void json_modules(struct ct_json *j, const struct ct_rm_proc *p)
{
	size_t i;

	ct_json_key(j, "modules");
	ct_json_array_begin(j);
	for (i = 0; i < p->nmodules; i++) {
		const struct ct_rm_module *m = &p->modules[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "api", m->api);
		ct_json_kv_string(j, "caller", m->caller);
		ct_json_kv_string(j, "file", m->file);
		json_i64_or_null(j, "result", !m->registration, m->result);
		ct_json_words(j, "images", m->images[0] ? m->images : "none");
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_process(struct ct_json *j, const struct ct_rm_proc *p)
{
	size_t i;

	ct_json_object_begin(j);
	ct_json_key(j, "pid");
	ct_json_i64(j, p->pid);
	json_i64_or_null(j, "ppid", p->has_ppid, p->ppid);
	ct_json_kv_string(j, "host", p->host);
	ct_json_kv_string(j, "run", p->run);
	ct_json_kv_string(j, "job", p->job);
	ct_json_kv_string(j, "rank", p->rank);
	json_i64_or_null(j, "attempt", p->has_attempt, p->attempt);
	json_i64_or_null(j, "uid", p->uid >= 0, p->uid);
	ct_json_kv_string(j, "exe", p->exe);
	ct_json_kv_bool(j, "wrapper", p->wrapper);
	ct_json_key(j, "env");
	ct_json_object_begin(j);
	for (i = 0; i < p->nenv; i++)
		ct_json_kv_string(j, p->env[i].name, p->env[i].value);
	ct_json_object_end(j);
	ct_json_key(j, "argv");
	ct_json_array_begin(j);
	for (i = 0; i < p->argc; i++)
		ct_json_string(j, p->argv[i]);
	ct_json_array_end(j);
	json_i64_or_null(j, "exit_status", p->has_exit_status, p->exit_status);
	json_i64_or_null(j, "signal", p->has_signal, p->signal);
	ct_json_kv_bool(j, "still_running", p->still_running);
	ct_json_kv_string(j, "untraced", p->untraced);
	if (p->read_from_proc) {
		ct_json_key(j, "read_from_proc");
		ct_json_object_begin(j);
		ct_json_kv_u64(j, "unverified", p->proc_unverified);
		ct_json_kv_bool(j, "other_mount_namespace", p->proc_other_mnt);
		ct_json_kv_string(j, "maps_limit", p->proc_limit);
		ct_json_kv_u64(j, "maps_left_out", p->proc_limited);
		ct_json_object_end(j);
	}
	json_libraries(j, p);
	json_not_found(j, p);
	json_driver(j, &p->driver);
	json_modules(j, p);
	json_device_code(j, p);
	ct_json_object_end(j);
}

/* A job torchrun's agent restarted: its attempts, ranks, and how each attempt but the last ended. */
static void json_restart(struct ct_json *j, const struct ct_rm_job_note *n)
{
	size_t k;

	ct_json_kv_u64(j, "attempts", n->attempts);
	ct_json_kv_u64(j, "ranks", n->ranks);
	ct_json_key(j, "ends");
	ct_json_array_begin(j);
	for (k = 0; k < n->nends; k++) {
		const struct ct_rm_attempt_end *e = &n->ends[k];

		ct_json_object_begin(j);
		ct_json_kv_u64(j, "attempt", e->attempt);
		ct_json_kv_string(j, "rank", e->rank);
		ct_json_kv_string(j, "host", e->host);
		json_i64_or_null(j, "exit_status", e->has_exit_status, e->exit_status);
		json_i64_or_null(j, "signal", e->signal != 0, e->signal);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void json_job_notes(struct ct_json *j, const struct ct_report_model *m)
{
	size_t i, k;

	ct_json_key(j, "job_notes");
	ct_json_array_begin(j);
	for (i = 0; m && i < m->njob_notes; i++) {
		const struct ct_rm_job_note *n = &m->job_notes[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "kind", n->kind == CT_RM_NOTE_USERS	 ? "users"
					     : n->kind == CT_RM_NOTE_RESTART ? "restart"
									     : "rank");
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
		if (n->kind == CT_RM_NOTE_RESTART)
			json_restart(j, n);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

/* "device": where the targets came from, and their names. */
static void json_device(struct ct_json *j, const struct ct_report_model *m)
{
	size_t i;

	ct_json_key(j, "device");
	ct_json_object_begin(j);
	ct_json_kv_string(j, "from", m && m->ntargets ? (m->targets_from_trace ? "trace" : "arch")
						   : NULL);
	ct_json_key(j, "targets");
	ct_json_array_begin(j);
	for (i = 0; m && i < m->ntargets; i++)
		ct_json_string(j, m->targets[i]);
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "wrappers": how many processes are wrappers (roles.h), and their names. */
static void json_wrappers(struct ct_json *j, const struct ct_report_model *m)
{
	size_t i;

	ct_json_key(j, "wrappers");
	ct_json_object_begin(j);
	ct_json_kv_u64(j, "processes", m ? m->wrappers : 0);
	ct_json_key(j, "names");
	ct_json_array_begin(j);
	for (i = 0; m && i < m->nwrapper_names; i++)
		ct_json_string(j, m->wrapper_names[i]);
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* The document's head: its schema and counts, the job notes, the device. */
static void json_head(struct ct_json *j, const struct ct_report_model *m)
{
	ct_json_kv_string(j, "schema", CT_SCHEMA_REPORT);
	ct_json_kv_u64(j, "version", 1);
	ct_json_kv_u64(j, "runs", m ? m->runs : 0);
	ct_json_kv_u64(j, "jobs", m ? m->jobs : 0);
	json_job_notes(j, m);
	json_device(j, m);
}

void ct_report_json(FILE *out, const struct ct_report_model *m)
{
	struct ct_json j;
	size_t i;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	json_head(&j, m);
	ct_json_key(&j, "processes");
	ct_json_array_begin(&j);
	for (i = 0; i < m->nprocs; i++)
		json_process(&j, &m->procs[i]);
	ct_json_array_end(&j);
	json_wrappers(&j, m);
	ct_json_key(&j, "findings");
	ct_findings_json(&j, &m->findings);
	/* What the folder held that is no process of the report: counted, never silent. */
	ct_json_key(&j, "trace_files_left_out");
	ct_json_object_begin(&j);
	ct_json_kv_u64(&j, "no_record", m->files.no_record);
	ct_json_kv_u64(&j, "no_start", m->files.no_start);
	ct_json_kv_u64(&j, "other_owner", m->files.other_owner);
	ct_json_kv_u64(&j, "other_run", m->files.other_run);
	ct_json_object_end(&j);
	ct_json_object_end(&j);
	ct_json_finish(&j);
}

void ct_report_json_error(FILE *out, const char *error)
{
	struct ct_json j;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	json_head(&j, NULL);
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

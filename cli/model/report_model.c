/*
 * The report model, built once (report_model.h): the trace diagnosed, its
 * processes' roles found, and the verdict, the jobs, the device judged,
 * the findings, the files left out and the environment worked out here;
 * each process by model_procs.c, its tree, device code and ending by
 * model_tree.c, model_code.c and model_endings.c.
 */
#include <stdlib.h>
#include <string.h>

#include "mask.h"
#include "model_internal.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

static unsigned long builds;

unsigned long ct_report_model_builds(void)
{
	return builds;
}

void ct_report_model_release(struct ct_report_model *m)
{
	ct_findings_release(&m->findings);
	ct_rm_store_free(m);
	memset(m, 0, sizeof(*m));
}

/* What the jobs hold beyond their count, copied (trace.h, job_notes). */
static void job_notes_build(struct ct_rm_build *b)
{
	const struct ct_trace *t = b->t;
	struct ct_report_model *m = b->m;
	size_t i, k;

	m->job_notes = ct_rm_calloc(m, t->njob_notes, sizeof(*m->job_notes));
	m->njob_notes = t->njob_notes;
	for (i = 0; i < t->njob_notes; i++) {
		const struct ct_job_note *n = &t->job_notes[i];
		struct ct_rm_job_note *o = &m->job_notes[i];

		o->kind = n->kind == CT_JOB_NOTE_USERS	 ? CT_RM_NOTE_USERS
			  : n->kind == CT_JOB_NOTE_RANK ? CT_RM_NOTE_RANK
							: CT_RM_NOTE_RESTART;
		o->job = ct_rm_str(b, n->job);
		o->from = ct_rm_str(b, n->from);
		o->host = ct_rm_str(b, n->host);
		o->rank = ct_rm_str(b, n->rank);
		o->owners = ct_rm_dup(m, n->owners, n->nowners * sizeof(*n->owners));
		o->owner_runs = ct_rm_dup(m, n->owner_runs, n->nowners * sizeof(*n->owner_runs));
		o->nowners = n->nowners;
		o->runs = ct_rm_calloc(m, n->nruns, sizeof(*o->runs));
		for (k = 0; k < n->nruns; k++)
			o->runs[k] = ct_rm_str(b, n->runs[k]);
		o->nruns = n->nruns;
		if (n->kind == CT_JOB_NOTE_RESTART)
			ct_rm_restart_build(b, o, n);
	}
}

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
static void env_build(struct ct_rm_build *b)
{
	const struct ct_trace *t = b->t;
	struct ct_report_model *m = b->m;
	struct ct_rm_env_line *lines = NULL;
	size_t v, i, k, j, nlines = 0;

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
			char *mv = ct_mask_value(kept_env[v], values[j]);
			struct ct_rm_env_line *l;

			lines = ct_xrealloc(lines, (nlines + 1) * sizeof(*lines));
			l = &lines[nlines++];
			l->name = kept_env[v];
			l->value = ct_rm_keep(b->m, mv ? mv : values[j]);
			l->processes = count[j];
			l->counted = n > 1 || procs < t->nprocs;
			free(mv);
		}
		free(values);
		free(count);
	}
	m->env = ct_rm_dup(m, lines, nlines * sizeof(*lines));
	m->nenv = nlines;
	free(lines);
}

/* The verdict's counts: the processes by what they are, the wrappers by name. */
static void verdict_build(struct ct_rm_build *b)
{
	const struct ct_trace *t = b->t;
	const struct ct_roles *r = b->roles;
	struct ct_report_model *m = b->m;
	char names[256];
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		m->untraced += t->procs[i].untraced != NULL;
		m->read_from_proc += t->procs[i].running;
		m->shown += m->procs[i].show == CT_RM_SHOWN;
		m->folded += m->procs[i].show == CT_RM_FOLDED;
	}
	m->wrappers = r->nwrappers;
	m->quiet = r->nquiet;
	m->wrapper_words = ct_rm_keep(b->m, ct_roles_names(r, names, sizeof(names)));
	m->wrapper_names = ct_rm_calloc(m, r->nnames, sizeof(*m->wrapper_names));
	for (i = 0; i < r->nnames; i++)
		m->wrapper_names[m->nwrapper_names++] = ct_rm_str(b, r->names[i]);
}

/* What each finding says as JSON shows it (masked): what diff compares. */
static void finding_words_build(struct ct_rm_build *b)
{
	struct ct_report_model *m = b->m;
	size_t i;

	m->finding_words = ct_rm_calloc(m, m->findings.n, sizeof(*m->finding_words));
	m->nfinding_words = m->findings.n;
	for (i = 0; i < m->findings.n; i++) {
		const struct ct_finding *f = &m->findings.f[i];
		struct ct_rm_finding_words *w = &m->finding_words[i];
		char *masked = f->message ? ct_mask_text(f->message) : NULL;

		w->code = ct_finding_id(f->code);
		w->severity = ct_severity_name(f->severity);
		w->message = ct_rm_keep(m, masked ? masked : f->message ? f->message : "");
		w->object = ct_rm_keep(m, f->object);
		free(masked);
	}
}

void ct_report_model_build(struct ct_report_model *m, const struct ct_trace *t,
			   const struct ct_report_model_options *o)
{
	struct ct_diagnosis d;
	struct ct_roles roles;
	struct ct_rm_build b;
	size_t i;

	builds++;
	ct_rm_init(m);
	ct_diagnose(&d, t, o->targets, o->ntargets, o->machine);
	ct_roles_find(&roles, t, &d);
	memset(&b, 0, sizeof(b));
	ct_arena_init(&b.scratch);
	b.m = m;
	b.t = t;
	b.d = &d;
	b.roles = &roles;
	b.o = o;
	m->all_facts = o->json;
	m->runs = ct_trace_runs(t);
	m->jobs = ct_trace_jobs(t);
	m->hosts = ct_trace_hosts(t);
	for (i = 0; i < d.ntargets; i++)
		memcpy(m->targets[i], d.target_names[i], sizeof(m->targets[i]));
	m->ntargets = d.ntargets;
	m->targets_from_trace = d.targets_from_trace;
	m->has_code = ct_diagnosis_has_code(&d);
	ct_rm_procs_build(&b);
	verdict_build(&b);
	ct_rm_endings_build(&b);
	job_notes_build(&b);
	if (o->markdown)
		env_build(&b);
	m->files.no_record = t->bad_files;
	m->files.no_start = t->unstarted_files;
	m->files.other_owner = t->foreign_files;
	m->files.other_owner_said = t->foreign_said;
	m->files.other_run = t->other_run_files;
	m->files.duplicate = t->duplicate_files;
	/*
	 * The findings are the model's now: the diagnosis is gone before any
	 * view prints. What their rules kept to restate them when they were
	 * grouped is done with: freed here, so nothing of the rules stays.
	 */
	m->findings = d.findings;
	ct_findings_init(&d.findings);
	for (i = 0; i < m->findings.n; i++) {
		struct ct_finding *f = &m->findings.f[i];

		if (f->state_free)
			f->state_free(f->state);
		f->state = NULL;
		f->state_free = NULL;
		f->restate = NULL;
	}
	m->worst = ct_findings_worst(&m->findings);
	finding_words_build(&b);
	ct_rm_trees_forget(&b);
	ct_rm_code_forget(&b);
	ct_rm_versions_forget(&b);
	ct_rm_ptrs_free(b.ptrs);
	ct_arena_release(&b.scratch);
	ct_roles_release(&roles);
	ct_diagnosis_release(&d);
}

/*
 * A report --json document read back into the report model (report_model.h):
 * the fields the JSON view writes, into the same struct, so that diff
 * compares a folder and its own report --json alike. The document is
 * untrusted (another machine's, pasted into an issue): every member is
 * read by its type with a fallback, as absent when it is not what the
 * schema says, and every string is copied into the model's store.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonparse.h"
#include "model_internal.h"
#include "util.h"

static bool is_array(const struct ct_jv *v)
{
	return v && v->type == CT_J_ARR;
}

static bool is_object(const struct ct_jv *v)
{
	return v && v->type == CT_J_OBJ;
}

/* The items of an array member (0 when it is none). */
static size_t items(const struct ct_jv *v, const char *key, const struct ct_jv ***out)
{
	const struct ct_jv *a = key ? ct_jget(v, key) : v;

	*out = is_array(a) ? (const struct ct_jv **)a->u.c.items : NULL;
	return is_array(a) ? a->u.c.n : 0;
}

static const char *str(struct ct_report_model *m, const struct ct_jv *v, const char *key)
{
	return ct_rm_keep(m, ct_jstr(v, key, NULL));
}

/* A number, or null (or absent): false. */
static bool number(const struct ct_jv *v, const char *key, int64_t *out)
{
	const struct ct_jv *n = ct_jget(v, key);

	if (!n || (n->type != CT_J_INT && n->type != CT_J_UINT))
		return false;
	*out = n->type == CT_J_INT ? n->u.i : (int64_t)n->u.u;
	return true;
}

/* An array of words ("sm_80", "sm_90"), as the model keeps them: "sm_80 sm_90", or none. */
static const char *words(struct ct_report_model *m, const struct ct_jv *v, const char *key,
			 const char *none)
{
	const struct ct_jv **w;
	size_t i, n = items(v, key, &w), len = 0;
	const char *out;
	char *buf;

	for (i = 0; i < n; i++)
		if (w[i] && w[i]->type == CT_J_STR)
			len += strlen(w[i]->u.str.s) + 1;
	if (!len)
		return none;
	buf = ct_xmalloc(len);
	buf[0] = '\0';
	for (i = 0, len = 0; i < n; i++) {
		size_t k;

		if (!w[i] || w[i]->type != CT_J_STR || !w[i]->u.str.s[0])
			continue;
		k = strlen(w[i]->u.str.s);
		if (len)
			buf[len++] = ' ';
		memcpy(buf + len, w[i]->u.str.s, k + 1);
		len += k;
	}
	out = len ? ct_rm_keep(m, buf) : none;
	free(buf);
	return out;
}

static void read_libraries(struct ct_report_model *m, struct ct_rm_proc *p, const struct ct_jv *v)
{
	const struct ct_jv **a;
	size_t i, n = items(v, "libraries", &a);

	p->libs = ct_rm_calloc(m, n, sizeof(*p->libs));
	for (i = 0; i < n; i++) {
		const struct ct_jv *by_name = ct_jget(a[i], "found_by_name");
		struct ct_rm_lib *l;

		if (!is_object(a[i]))
			continue;
		l = &p->libs[p->nlibs++];
		l->name = str(m, a[i], "name");
		l->path = str(m, a[i], "path");
		l->soname = str(m, a[i], "soname");
		l->found_via = str(m, a[i], "found_via");
		l->requested_by = str(m, a[i], "requested_by");
		l->api = str(m, a[i], "api");
		l->run_time = by_name != NULL;
		if (is_object(by_name)) {
			l->name_via = str(m, by_name, "via");
			l->name_path = str(m, by_name, "path");
		}
		l->cuda = ct_jbool(a[i], "cuda", false);
		l->version = str(m, a[i], "version");
		l->closed = ct_jbool(a[i], "closed", false);
	}
}

static void read_not_found(struct ct_report_model *m, struct ct_rm_proc *p, const struct ct_jv *v)
{
	const struct ct_jv **a, **t;
	size_t i, k, n = items(v, "not_found", &a);

	p->not_found = ct_rm_calloc(m, n, sizeof(*p->not_found));
	for (i = 0; i < n; i++) {
		struct ct_rm_not_found *nf;
		size_t nt;

		if (!is_object(a[i]))
			continue;
		nf = &p->not_found[p->nnot_found++];
		nf->name = str(m, a[i], "name");
		nf->requested_by = str(m, a[i], "requested_by");
		nf->api = str(m, a[i], "api");
		nf->error = str(m, a[i], "error");
		nt = items(a[i], "tried", &t);
		nf->tried = ct_rm_calloc(m, nt, sizeof(*nf->tried));
		for (k = 0; k < nt; k++) {
			if (!is_object(t[k]))
				continue;
			nf->tried[nf->ntried].path = str(m, t[k], "path");
			nf->tried[nf->ntried++].via = ct_rm_keep(m, ct_jstr(t[k], "via", ""));
		}
	}
}

static void read_driver(struct ct_report_model *m, struct ct_rm_proc *p, const struct ct_jv *v)
{
	const struct ct_jv *d = ct_jget(v, "driver"), **g;
	struct ct_rm_driver *dr = &p->driver;
	size_t k, n;

	if (!is_object(d))
		return;
	dr->present = true;
	dr->path = str(m, d, "path");
	dr->version = ct_jint(d, "version", 0);
	dr->ncuinit = number(d, "cuinit", &dr->cuinit);
	dr->asked = str(m, d, "asked");
	n = items(d, "devices", &g);
	dr->gpus = ct_rm_calloc(m, n, sizeof(*dr->gpus));
	for (k = 0; k < n; k++) {
		if (!is_object(g[k]))
			continue;
		dr->gpus[dr->ngpus].index = (int64_t)dr->ngpus;
		dr->gpus[dr->ngpus].name = str(m, g[k], "name");
		dr->gpus[dr->ngpus].cc = str(m, g[k], "cc");
		dr->gpus[dr->ngpus++].uuid = str(m, g[k], "uuid");
	}
}

static void read_modules(struct ct_report_model *m, struct ct_rm_proc *p, const struct ct_jv *v)
{
	const struct ct_jv **a;
	size_t i, n = items(v, "modules", &a);

	p->modules = ct_rm_calloc(m, n, sizeof(*p->modules));
	for (i = 0; i < n; i++) {
		struct ct_rm_module *o;

		if (!is_object(a[i]))
			continue;
		o = &p->modules[p->nmodules++];
		o->api = str(m, a[i], "api");
		o->caller = str(m, a[i], "caller");
		o->file = str(m, a[i], "file");
		/* A registration has no result: a fatbin registered, not loaded. */
		o->registration = !number(a[i], "result", &o->result);
		p->nregistrations += o->registration;
		o->images = words(m, a[i], "images", "");
		o->images_text = o->images;
	}
}

static void read_device_code(struct ct_report_model *m, struct ct_rm_proc *p,
			     const struct ct_jv *v)
{
	const struct ct_jv **a, **t;
	size_t i, k, n = items(v, "device_code", &a);

	p->code = ct_rm_calloc(m, n, sizeof(*p->code));
	for (i = 0; i < n; i++) {
		struct ct_rm_code *c;
		size_t nt;

		if (!is_object(a[i]))
			continue;
		c = ct_rm_calloc(m, 1, sizeof(*c));
		c->images = ct_ju64(a[i], "images", 0);
		c->sass = words(m, a[i], "sass", "none");
		c->ptx = words(m, a[i], "ptx", "none");
		c->ltoir = words(m, a[i], "ltoir", "none");
		nt = items(a[i], "verdicts", &t);
		c->verdicts = ct_rm_calloc(m, nt, sizeof(*c->verdicts));
		for (k = 0; k < nt; k++) {
			if (!is_object(t[k]))
				continue;
			c->verdicts[c->nverdicts].target = str(m, t[k], "target");
			c->verdicts[c->nverdicts].verdict = str(m, t[k], "verdict");
			c->verdicts[c->nverdicts++].image = str(m, t[k], "image");
		}
		p->code[p->ncode].object = str(m, a[i], "object");
		p->code[p->ncode++].code = c;
	}
}

static void read_process(struct ct_report_model *m, struct ct_rm_proc *p, const struct ct_jv *v)
{
	const struct ct_jv *env = ct_jget(v, "env"), *proc = ct_jget(v, "read_from_proc"), **a;
	size_t i, n;

	p->pid = ct_jint(v, "pid", 0);
	p->has_ppid = number(v, "ppid", &p->ppid);
	p->host = str(m, v, "host");
	p->run = str(m, v, "run");
	p->job = str(m, v, "job");
	p->rank = str(m, v, "rank");
	p->has_attempt = number(v, "attempt", &p->attempt) && p->attempt >= 0;
	if (!number(v, "uid", &p->uid))
		p->uid = -1;
	p->exe = str(m, v, "exe");
	p->wrapper = ct_jbool(v, "wrapper", false);
	p->show = p->wrapper ? CT_RM_WRAPPER : CT_RM_QUIET;
	p->has_facts = true;
	/* A report of an older cudatrace has no env: then none is compared. */
	p->has_env = is_object(env);
	n = is_object(env) ? env->u.c.n : 0;
	p->env = ct_rm_calloc(m, n, sizeof(*p->env));
	for (i = 0; i < n; i++) {
		const struct ct_jv *val = env->u.c.items[i];

		p->env[p->nenv].name = ct_rm_keep(m, env->u.c.keys[i]);
		p->env[p->nenv++].value =
			ct_rm_keep(m, val && val->type == CT_J_STR ? val->u.str.s : NULL);
	}
	n = items(v, "argv", &a);
	p->argv = ct_rm_calloc(m, n, sizeof(*p->argv));
	for (i = 0; i < n; i++)
		if (a[i] && a[i]->type == CT_J_STR)
			p->argv[p->argc++] = ct_rm_keep(m, a[i]->u.str.s);
	p->has_exit_status = number(v, "exit_status", &p->exit_status);
	p->has_signal = number(v, "signal", &p->signal);
	p->still_running = ct_jbool(v, "still_running", false);
	p->untraced = str(m, v, "untraced");
	if (is_object(proc)) {
		p->read_from_proc = true;
		p->proc_unverified = ct_ju64(proc, "unverified", 0);
		p->proc_other_mnt = ct_jbool(proc, "other_mount_namespace", false);
		p->proc_limit = str(m, proc, "maps_limit");
		p->proc_limited = ct_ju64(proc, "maps_left_out", 0);
	}
	read_libraries(m, p, v);
	read_not_found(m, p, v);
	read_driver(m, p, v);
	read_modules(m, p, v);
	read_device_code(m, p, v);
}

static void read_job_notes(struct ct_report_model *m, const struct ct_jv *doc)
{
	const struct ct_jv **a, **u, **r;
	size_t i, k, n = items(doc, "job_notes", &a);

	m->job_notes = ct_rm_calloc(m, n, sizeof(*m->job_notes));
	for (i = 0; i < n; i++) {
		struct ct_rm_job_note *o;
		const char *kind;
		size_t nu, nr;

		if (!is_object(a[i]))
			continue;
		o = &m->job_notes[m->njob_notes++];
		kind = ct_jstr(a[i], "kind", "");
		o->kind = strcmp(kind, "users") == 0	 ? CT_RM_NOTE_USERS
			  : strcmp(kind, "restart") == 0 ? CT_RM_NOTE_RESTART
							 : CT_RM_NOTE_RANK;
		o->attempts = (size_t)ct_ju64(a[i], "attempts", 0);
		o->ranks = (size_t)ct_ju64(a[i], "ranks", 0);
		o->job = str(m, a[i], "job");
		o->from = str(m, a[i], "job_from");
		o->host = str(m, a[i], "host");
		o->rank = str(m, a[i], "rank");
		nu = items(a[i], "users", &u);
		o->owners = ct_rm_calloc(m, nu, sizeof(*o->owners));
		o->owner_runs = ct_rm_calloc(m, nu, sizeof(*o->owner_runs));
		for (k = 0; k < nu; k++) {
			if (!is_object(u[k]))
				continue;
			o->owners[o->nowners] = ct_jint(u[k], "uid", 0);
			o->owner_runs[o->nowners++] = (size_t)ct_ju64(u[k], "runs", 0);
		}
		nr = items(a[i], "runs", &r);
		o->runs = ct_rm_calloc(m, nr, sizeof(*o->runs));
		for (k = 0; k < nr; k++)
			if (r[k] && r[k]->type == CT_J_STR)
				o->runs[o->nruns++] = ct_rm_keep(m, r[k]->u.str.s);
	}
}

static enum ct_severity severity_of(const char *s)
{
	return strcmp(s, "error") == 0 ? CT_SEV_ERROR
	       : strcmp(s, "warning") == 0 ? CT_SEV_WARNING
					   : CT_SEV_INFO;
}

static enum ct_finding_code code_of(const char *id)
{
	int c;

	for (c = 0; c < CT_F_COUNT; c++)
		if (strcmp(ct_finding_id((enum ct_finding_code)c), id) == 0)
			return (enum ct_finding_code)c;
	return CT_F_COUNT;
}

/* A finding's words as diff compares them: the document's own. */
static void read_finding_words(struct ct_report_model *m, const struct ct_jv *f)
{
	struct ct_rm_finding_words *w = &m->finding_words[m->nfinding_words++];

	w->code = str(m, f, "code");
	w->severity = ct_rm_keep(m, ct_jstr(f, "severity", ""));
	w->message = ct_rm_keep(m, ct_jstr(f, "message", ""));
	w->object = str(m, f, "object");
}

/*
 * The findings, as they were shown (their strings masked already), and
 * their words as diff compares them. A code this cudatrace does not know
 * (a newer one's) is no finding of findings.def: its words alone are
 * kept.
 */
static void read_findings(struct ct_report_model *m, const struct ct_jv *doc)
{
	const struct ct_jv **a, **k;
	size_t i, j, n = items(doc, "findings", &a), nk;

	m->finding_words = ct_rm_calloc(m, n, sizeof(*m->finding_words));
	for (i = 0; i < n; i++) {
		const char *code = ct_jstr(a[i], "code", NULL), *fix = ct_jstr(a[i], "fix", NULL);
		struct ct_finding *f;

		if (!is_object(a[i]) || !code)
			continue;
		read_finding_words(m, a[i]);
		if (code_of(code) == CT_F_COUNT)
			continue;
		f = ct_finding_add(&m->findings, code_of(code), ct_jstr(a[i], "object", NULL), "%s",
				   ct_jstr(a[i], "message", ""));
		f->severity = severity_of(ct_jstr(a[i], "severity", ""));
		/* The fix's lines: a newline in the document's fix starts one. */
		while (fix) {
			const char *nl = strchr(fix, '\n');
			int len = (int)(nl ? (size_t)(nl - fix) : strlen(fix));

			if (f->nfix_lines)
				ct_finding_fix_line(f, "%.*s", len, fix);
			else
				ct_finding_fix(f, "%.*s", len, fix);
			fix = nl ? nl + 1 : NULL;
		}
		nk = items(a[i], "needed_by", &k);
		for (j = 0; j < nk; j++)
			if (is_object(k[j]) && ct_jstr(k[j], "object", NULL))
				ct_finding_needed_by(f, ct_jstr(k[j], "object", NULL),
						     ct_jstr(k[j], "how", NULL));
		nk = items(a[i], "missing", &k);
		for (j = 0; j < nk; j++)
			if (is_object(k[j]) && ct_jstr(k[j], "name", NULL))
				ct_finding_missing(f, ct_jstr(k[j], "name", NULL),
						   ct_jstr(k[j], "needed_by", ""));
		nk = items(a[i], "evidence", &k);
		for (j = 0; j < nk; j++)
			if (k[j] && k[j]->type == CT_J_STR)
				ct_finding_evidence(f, "%s", k[j]->u.str.s);
		nk = items(a[i], "where", &k);
		for (j = 0; j < nk; j++)
			if (is_object(k[j]))
				ct_finding_where(f, ct_jint(k[j], "pid", 0), ct_jstr(k[j], "host", NULL),
						 ct_jstr(k[j], "rank", NULL), ct_jstr(k[j], "job", NULL),
						 ct_jstr(k[j], "program", NULL));
	}
	m->worst = ct_findings_worst(&m->findings);
}

int ct_report_model_read(struct ct_report_model *m, const struct ct_jv *doc, char *why,
			 size_t size)
{
	const struct ct_jv *device = ct_jget(doc, "device"), *wrappers = ct_jget(doc, "wrappers");
	const struct ct_jv *left = ct_jget(doc, "trace_files_left_out"), **a;
	const char *schema = ct_jstr(doc, "schema", NULL), *error = ct_jstr(doc, "error", NULL);
	size_t i, n;

	ct_rm_init(m);
	if (!is_object(doc) || !schema || strcmp(schema, "cudatrace.report/1") != 0) {
		snprintf(why, size, "not a cudatrace report (cudatrace.report/1)");
		return -1;
	}
	if (error) {
		snprintf(why, size, "the report could not read its traces: %.400s", error);
		return -1;
	}
	m->from_json = true;
	m->all_facts = true;
	m->runs = (size_t)ct_ju64(doc, "runs", 0);
	m->jobs = (size_t)ct_ju64(doc, "jobs", 0);
	read_job_notes(m, doc);
	n = items(device, "targets", &a);
	for (i = 0; i < n && m->ntargets < CT_MAX_TARGETS; i++)
		if (a[i] && a[i]->type == CT_J_STR)
			snprintf(m->targets[m->ntargets++], CT_TARGET_NAME, "%s", a[i]->u.str.s);
	m->targets_from_trace = strcmp(ct_jstr(device, "from", ""), "trace") == 0;
	n = items(doc, "processes", &a);
	m->procs = ct_rm_calloc(m, n, sizeof(*m->procs));
	for (i = 0; i < n; i++)
		if (is_object(a[i]))
			read_process(m, &m->procs[m->nprocs++], a[i]);
	m->wrappers = (size_t)ct_ju64(wrappers, "processes", 0);
	n = items(wrappers, "names", &a);
	m->wrapper_names = ct_rm_calloc(m, n, sizeof(*m->wrapper_names));
	for (i = 0; i < n; i++)
		if (a[i] && a[i]->type == CT_J_STR)
			m->wrapper_names[m->nwrapper_names++] = ct_rm_keep(m, a[i]->u.str.s);
	read_findings(m, doc);
	m->files.no_record = (size_t)ct_ju64(left, "no_record", 0);
	m->files.no_start = (size_t)ct_ju64(left, "no_start", 0);
	m->files.other_owner = (size_t)ct_ju64(left, "other_owner", 0);
	m->files.other_run = (size_t)ct_ju64(left, "other_run", 0);
	return 0;
}

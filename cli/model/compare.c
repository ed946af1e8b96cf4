/*
 * cudatrace diff's comparing (compare.h): two sides read into the same
 * facts, and what differs between them. A report side comes from a report
 * model (report_model.h): one built from a trace folder, or one read back
 * from a report --json document (model_read.c), so a folder and its own
 * report --json are the same input. A doctor side is read from its JSON
 * document. Documents are untrusted (another machine's, pasted into an
 * issue): every member is read by type with a fallback, and a document
 * that is not what it says is an error, not a wrong answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "ct_utf8.h"
#include "jsonparse.h"
#include "libnames.h"
#include "report_model.h"
#include "util.h"

/* A report of a big job holds millions of values; this many is plenty. */
#define SIDE_VALUES_MAX ((size_t)64 << 20)

#define PUSH(arr, n, a)                                                               \
	(*(void **)&(arr) = grow((a), (arr), (n), sizeof(*(arr))), &(arr)[(n)++])

/* arr with room for one more: full at 4, 8, 16... (arrays live in the side's arena). */
static void *grow(struct ct_arena *a, void *arr, size_t n, size_t size)
{
	void *more;

	if (n == 0)
		return ct_arena_alloc(a, size * 4);
	if (n < 4 || (n & (n - 1)) != 0)
		return arr;
	more = ct_arena_alloc(a, size * n * 2);
	memcpy(more, arr, size * n);
	return more;
}

static const char *base_of(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

/*
 * What a library is, across majors and renames: its soname's stem
 * (libcudart.so.13 and libcudart.so.12 are both libcudart), an
 * auditwheel hash taken out (libcudart-9335f6a2.so.12).
 */
static const char *role_of(struct ct_arena *a, const char *soname, const char *path)
{
	const char *name = soname && *soname ? soname : base_of(path);
	const char *so = name ? strstr(name, ".so") : NULL;
	size_t n = so ? (size_t)(so - name) : (name ? strlen(name) : 0);
	size_t i;

	if (!name)
		return "?";
	/* "-" and 8 hex digits before ".so": auditwheel's. */
	if (n > 9 && name[n - 9] == '-') {
		for (i = n - 8; i < n && strchr("0123456789abcdef", name[i]); i++)
			;
		if (i == n)
			n -= 9;
	}
	return ct_arena_strndup(a, name, n);
}

static bool is_driver(const char *soname, const char *path)
{
	return ct_driver_library(soname && *soname ? soname : base_of(path)) != CT_DRIVER_LIB_NONE ||
	       ct_driver_library(base_of(path)) != CT_DRIVER_LIB_NONE;
}

static const char *str_or_null(const struct ct_jv *v, const char *key)
{
	return ct_jstr(v, key, NULL);
}

static bool is_array(const struct ct_jv *v)
{
	return v && v->type == CT_J_ARR;
}

static bool is_object(const struct ct_jv *v)
{
	return v && v->type == CT_J_OBJ;
}

/* The variables diff compares: those that decide what is loaded and seen. */
bool ct_diff_var_relevant(const char *name)
{
	static const char *const exact[] = {
		"LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "PYTHONPATH", "PYTHONHOME",
		"PYTHONNOUSERSITE", "PYTHONUSERBASE", "VIRTUAL_ENV", "CONDA_PREFIX",
		"CONDA_DEFAULT_ENV",
	};
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	return strncmp(name, "CUDA_", 5) == 0 || strncmp(name, "NVIDIA_", 7) == 0;
}

/* The names a report knows: every relevant one (an absent one is unset). */
static const char *const report_env[] = { "*" };
/* A doctor knows LD_LIBRARY_PATH (its folders) and CUDA_VISIBLE_DEVICES (the driver's view). */
static const char *const doctor_env[] = { "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES" };

static bool knows(const struct ct_side *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nenv_known; i++)
		if (strcmp(s->env_known[i], "*") == 0 || strcmp(s->env_known[i], name) == 0)
			return true;
	return false;
}

static const char *env_value(const struct ct_side *s, const char *name, bool *found)
{
	size_t i;

	for (i = 0; i < s->nenv; i++)
		if (strcmp(s->env[i].name, name) == 0) {
			*found = true;
			return s->env[i].value;
		}
	*found = false;
	return NULL;
}

static void add_var(struct ct_side *s, const char *name, const char *value)
{
	bool had;
	struct ct_side_var *v;

	if (!ct_diff_var_relevant(name))
		return;
	env_value(s, name, &had);
	if (had) /* the first process's, as the report lists them */
		return;
	v = PUSH(s->env, s->nenv, &s->arena);
	v->name = name;
	v->value = value;
}

static void add_finding(struct ct_side *s, const struct ct_jv *f)
{
	struct ct_side_finding *o;

	if (!is_object(f) || !str_or_null(f, "code"))
		return;
	o = PUSH(s->findings, s->nfindings, &s->arena);
	o->code = str_or_null(f, "code");
	o->severity = ct_jstr(f, "severity", "");
	o->message = ct_jstr(f, "message", "");
	o->object = str_or_null(f, "object");
}

static void add_lib(struct ct_side *s, const char *soname, const char *path, const char *version,
		    const char *rule)
{
	struct ct_side_lib *l;
	size_t i;

	if (!path)
		return;
	for (i = 0; i < s->nlibs; i++)
		if (strcmp(s->libs[i].path, path) == 0)
			return;
	l = PUSH(s->libs, s->nlibs, &s->arena);
	l->role = role_of(&s->arena, soname, path);
	l->soname = soname;
	l->path = path;
	l->version = version;
	l->rule = rule;
	l->cuda = version ? atoi(version) : 0;
	/* A driver-style or unknown version says no CUDA major; the soname may. */
	if (soname && (l->cuda <= 0 || l->cuda > 99)) {
		const char *so = strstr(soname, ".so.");

		l->cuda = so ? atoi(so + 4) : 0;
	}
}

static void add_gpu(struct ct_side *s, const char *name, const char *cc)
{
	struct ct_side_gpu *g = PUSH(s->gpus, s->ngpus, &s->arena);

	g->name = name;
	g->cc = cc;
}

/*
 * s as report --json writes it and JSON reads it back: a byte that is not
 * UTF-8 becomes the character of its value (the writer's \u00XX). So a
 * folder's model says what its own document says.
 */
static const char *as_json(struct ct_arena *a, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n, k = 0;
	char *out;

	if (!s)
		return NULL;
	n = strlen(s);
	for (i = 0; i < n; i += u[i] < 0x80 ? 1 : ct_utf8_len(u + i, n - i))
		if (u[i] >= 0x80 && !ct_utf8_len(u + i, n - i))
			break;
	if (i >= n)
		return s;
	out = ct_arena_alloc(a, 2 * n + 1);
	for (i = 0; i < n;) {
		size_t len = u[i] < 0x80 ? 1 : ct_utf8_len(u + i, n - i);

		if (len) {
			memcpy(out + k, s + i, len);
			k += len;
			i += len;
			continue;
		}
		out[k++] = (char)(0xC0 | u[i] >> 6);
		out[k++] = (char)(0x80 | (u[i] & 0x3F));
		i++;
	}
	out[k] = '\0';
	return out;
}

/*
 * The facts of a report's model: each process's CUDA libraries (the
 * driver's apart), its searches that found nothing, the first driver
 * recorded and its GPUs, its device code's verdicts, its variables; then
 * the findings. A model built here says its strings as its document
 * would (as_json); one read back says them so already.
 */
static void from_model(struct ct_side *s, const struct ct_report_model *m)
{
	struct ct_arena *a = &s->arena;
	size_t i, k, v, j;

#define J(x) (m->from_json ? (x) : as_json(a, (x)))
	s->kind = CT_SIDE_REPORT;
	s->has_code = true;
	for (i = 0; i < m->nprocs; i++) {
		const struct ct_rm_proc *p = &m->procs[i];

		/*
		 * A wrapper (pyenv's shims and their helpers, roles.h) is not what
		 * the user ran: what it searched for (pyenv-realpath.dylib) is no
		 * difference between two runs of one program.
		 */
		if (p->wrapper)
			continue;
		s->nprocs++;
		for (k = 0; k < p->nlibs; k++) {
			const struct ct_rm_lib *l = &p->libs[k];
			const char *path = J(l->path), *soname = J(l->soname);

			if (!l->cuda || !path)
				continue;
			if (is_driver(soname, path)) {
				/* "1" is the soname's major, not the driver's version. */
				const char *ver = J(l->version);

				if (!s->driver_version && soname && ver && strchr(ver, '.') &&
				    ct_driver_library(soname) == CT_DRIVER_LIB_CUDA)
					s->driver_version = ver;
				continue;
			}
			add_lib(s, soname, path, J(l->version), J(l->found_via));
		}
		for (k = 0; k < p->nnot_found; k++) {
			const char *name = J(p->not_found[k].name);

			for (j = 0; name && j < s->nnot_found; j++)
				if (strcmp(s->not_found[j], name) == 0)
					break;
			if (name && j == s->nnot_found)
				*PUSH(s->not_found, s->nnot_found, a) = name;
		}
		if (p->driver.present && !s->has_driver) {
			s->has_driver = true;
			s->driver_path = J(p->driver.path);
			s->driver_cuda = (int)p->driver.version;
			for (k = 0; k < p->driver.ngpus; k++)
				add_gpu(s, J(p->driver.gpus[k].name), J(p->driver.gpus[k].cc));
		}
		for (k = 0; k < p->ncode; k++) {
			const struct ct_rm_code *c = p->code[k].code;
			const char *object = base_of(J(p->code[k].object));

			for (v = 0; object && v < c->nverdicts; v++) {
				const char *target = J(c->verdicts[v].target);
				const char *verdict = J(c->verdicts[v].verdict);
				struct ct_side_code *o;

				if (!target || !verdict)
					continue;
				for (j = 0; j < s->ncode; j++)
					if (strcmp(s->code[j].object, object) == 0 &&
					    strcmp(s->code[j].target, target) == 0)
						break;
				if (j < s->ncode)
					continue;
				o = PUSH(s->code, s->ncode, a);
				o->object = object;
				o->target = target;
				o->verdict = verdict;
			}
		}
		/* A report of an older cudatrace has no env: then none is compared. */
		if (p->has_env) {
			s->env_known = report_env;
			s->nenv_known = 1;
		}
		for (k = 0; k < p->nenv; k++)
			add_var(s, J(p->env[k].name), J(p->env[k].value));
	}
	for (i = 0; i < m->nfinding_words; i++) {
		const struct ct_rm_finding_words *w = &m->finding_words[i];
		struct ct_side_finding *o;

		if (!w->code)
			continue;
		o = PUSH(s->findings, s->nfindings, a);
		o->code = J(w->code);
		o->severity = w->severity ? J(w->severity) : "";
		o->message = w->message ? J(w->message) : "";
		o->object = J(w->object);
	}
#undef J
}

static void load_doctor(struct ct_side *s, const struct ct_jv *doc)
{
	const struct ct_jv *drv = ct_jget(doc, "driver"), *gpus = ct_jget(doc, "gpus");
	const struct ct_jv *rts = ct_jget(doc, "runtimes"), *llp = ct_jget(doc, "ld_library_path");
	const struct ct_jv *fs = ct_jget(doc, "findings");
	size_t i, len = 0;
	char *path = NULL;

	s->kind = CT_SIDE_DOCTOR;
	s->env_known = doctor_env;
	s->nenv_known = sizeof(doctor_env) / sizeof(doctor_env[0]);
	if (is_object(drv)) {
		s->has_driver = true;
		s->driver_path = ct_jbool(drv, "loaded", false) ? str_or_null(drv, "loaded_path")
								 : NULL;
		s->driver_version = str_or_null(drv, "version");
		s->driver_cuda = (int)ct_jint(drv, "cuda_version_int", 0);
		if (str_or_null(drv, "cuda_visible_devices"))
			add_var(s, "CUDA_VISIBLE_DEVICES", str_or_null(drv, "cuda_visible_devices"));
	}
	for (i = 0; is_array(gpus) && i < gpus->u.c.n; i++)
		add_gpu(s, str_or_null(gpus->u.c.items[i], "name"),
			str_or_null(gpus->u.c.items[i], "compute_capability"));
	/* The runtime a program would take: the one doctor says is taken. */
	for (i = 0; is_array(rts) && i < rts->u.c.n; i++) {
		const struct ct_jv *r = rts->u.c.items[i];

		if (ct_jbool(r, "taken", false))
			add_lib(s, str_or_null(r, "soname"), str_or_null(r, "path"),
				str_or_null(r, "version"), str_or_null(r, "found_via"));
	}
	for (i = 0; is_array(llp) && i < llp->u.c.n; i++) {
		const char *dir = str_or_null(llp->u.c.items[i], "dir");
		size_t n = dir ? strlen(dir) : 0;
		char *more;

		if (!dir)
			continue;
		more = ct_arena_alloc(&s->arena, len + n + 2);
		if (len)
			memcpy(more, path, len);
		if (len)
			more[len++] = ':';
		memcpy(more + len, dir, n + 1);
		len += n;
		path = more;
	}
	if (path)
		add_var(s, "LD_LIBRARY_PATH", path);
	for (i = 0; is_array(fs) && i < fs->u.c.n; i++)
		add_finding(s, fs->u.c.items[i]);
}

/*
 * Found: a file and a version, or a driver the process recorded. Not
 * found: a doctor that loaded none, or a report whose processes searched
 * for the driver's library and did not find it. Else, a report's program
 * never asked for it.
 */
static enum ct_side_driver driver_state(const struct ct_side *s)
{
	size_t i;

	if (s->driver_version || s->driver_path || s->driver_cuda > 0)
		return CT_SIDE_DRIVER_FOUND;
	if (s->kind == CT_SIDE_DOCTOR)
		return CT_SIDE_DRIVER_NOT_FOUND;
	if (s->has_driver)
		return CT_SIDE_DRIVER_FOUND;
	for (i = 0; i < s->nnot_found; i++)
		if (ct_driver_library(base_of(s->not_found[i])) == CT_DRIVER_LIB_CUDA)
			return CT_SIDE_DRIVER_NOT_FOUND;
	return CT_SIDE_DRIVER_NOT_ASKED;
}

void ct_side_from_model(struct ct_side *s, struct ct_report_model *m)
{
	memset(s, 0, sizeof(*s));
	ct_arena_init(&s->arena);
	s->model = m;
	from_model(s, m);
	s->driver = driver_state(s);
}

int ct_side_load(struct ct_side *s, char *text, size_t len, char *why, size_t size)
{
	const struct ct_jv *doc;
	const char *err = NULL, *schema, *error;
	struct ct_report_model *m;
	struct ct_arena parsed;
	size_t n;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	ct_arena_init(&s->arena);
	ct_arena_init(&parsed);
	s->text = text;
	doc = ct_json_parse_inplace(&parsed, text, len, SIDE_VALUES_MAX, &err);
	if (!doc) {
		snprintf(why, size, "not a JSON document (%s)",
			 err == ct_json_too_many ? "too large" : err ? err : "empty");
		goto out;
	}
	schema = ct_jstr(doc, "schema", NULL);
	if (!is_object(doc) || !schema) {
		snprintf(why, size, "not a cudatrace report or doctor document (no \"schema\")");
		goto out;
	}
	n = strlen("cudatrace.report/");
	if (strncmp(schema, "cudatrace.report/", n) == 0 ||
	    strncmp(schema, "cudatrace.doctor/", n) == 0) {
		if (strcmp(schema + n, "1") != 0) {
			snprintf(why, size, "a %.*s document of version %.16s, newer than this cudatrace "
				 "reads (1)", (int)(n - 11), schema + 10, schema + n);
			goto out;
		}
	} else {
		snprintf(why, size, "a %.64s document: diff compares reports (report --json, a trace "
			 "folder) and doctors (doctor --json)", schema);
		goto out;
	}
	error = ct_jstr(doc, "error", NULL);
	if (error) {
		snprintf(why, size, "the report could not read its traces: %.400s", error);
		goto out;
	}
	if (schema[10] == 'r') {
		/* A report is read into its model, which keeps its own copy of every string. */
		m = ct_xmalloc(sizeof(*m));
		if (ct_report_model_read(m, doc, why, size) != 0) {
			ct_report_model_release(m);
			free(m);
			goto out;
		}
		ct_arena_release(&parsed);
		free(text);
		ct_side_from_model(s, m);
		return 0;
	}
	load_doctor(s, doc);
	s->driver = driver_state(s);
	rc = 0;
out:
	/* The doctor's facts point into the document, parsed in place: kept with the side. */
	ct_arena_adopt(&s->arena, &parsed);
	return rc;
}

const char *ct_side_driver_id(enum ct_side_driver d)
{
	return d == CT_SIDE_DRIVER_FOUND ? "found" : d == CT_SIDE_DRIVER_NOT_FOUND ? "not-found"
										     : "not-asked";
}

void ct_side_release(struct ct_side *s)
{
	free(s->text);
	if (s->model) {
		ct_report_model_release(s->model);
		free(s->model);
	}
	ct_arena_release(&s->arena);
	memset(s, 0, sizeof(*s));
}

/* ---- the differences ------------------------------------------------------------ */

const char *ct_diff_section(enum ct_diff_kind k)
{
	switch (k) {
	case CT_DIFF_LIBRARY:
	case CT_DIFF_LIB_ONLY:
	case CT_DIFF_NOT_FOUND:
		return "CUDA libraries";
	case CT_DIFF_DRIVER:
	case CT_DIFF_GPUS:
		return "driver and GPUs";
	case CT_DIFF_CODE:
		return "device code";
	case CT_DIFF_FINDING:
		return "findings";
	case CT_DIFF_ENV:
		return "environment";
	}
	return "?";
}

const char *ct_diff_kind_id(enum ct_diff_kind k)
{
	static const char *const ids[] = { "library", "loaded_in_one", "not_found_in_one", "driver",
					   "gpus", "device_code", "finding", "env" };

	return (size_t)k < sizeof(ids) / sizeof(ids[0]) ? ids[k] : "?";
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * The same version, or one says less of it: a report read where the
 * library is not knows only the soname's major ("13"), one read where
 * it is its release ("13.0.96"). Unknown is no difference either.
 */
static bool same_version(const char *a, const char *b)
{
	size_t n;

	if (!a || !b)
		return true;
	n = strlen(a) < strlen(b) ? strlen(a) : strlen(b);
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '.') &&
	       (b[n] == '\0' || b[n] == '.');
}

static struct ct_diff_entry *add(struct ct_diff *d, enum ct_diff_kind kind, const char *key)
{
	struct ct_diff_entry *e;

	d->e = ct_xrealloc(d->e, (d->n + 1) * sizeof(*d->e));
	e = &d->e[d->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->key = key ? key : "";
	return e;
}

static const struct ct_side_lib *lib_of(const struct ct_side *s, const char *role, size_t from)
{
	size_t i;

	for (i = from; i < s->nlibs; i++)
		if (strcmp(s->libs[i].role, role) == 0)
			return &s->libs[i];
	return NULL;
}

/* Every role's first library on each side; another path, version, major or rule differs. */
static void libraries(struct ct_diff *d, const struct ct_side *a, const struct ct_side *b)
{
	size_t i;

	for (i = 0; i < a->nlibs; i++) {
		const struct ct_side_lib *la = &a->libs[i], *lb = lib_of(b, la->role, 0);
		struct ct_diff_entry *e;

		if (lib_of(a, la->role, 0) != la) /* the role's first only */
			continue;
		if (!lb) {
			/* A doctor lists only the runtime a program would take. */
			if (b->kind == CT_SIDE_DOCTOR)
				continue;
			e = add(d, CT_DIFF_LIB_ONLY, la->role);
			e->la = la;
			e->in_a = true;
			continue;
		}
		if (same(la->path, lb->path) && same_version(la->version, lb->version) &&
		    same(la->rule, lb->rule) && la->cuda == lb->cuda)
			continue;
		e = add(d, CT_DIFF_LIBRARY, la->role);
		e->la = la;
		e->lb = lb;
	}
	for (i = 0; i < b->nlibs; i++) {
		const struct ct_side_lib *lb = &b->libs[i];
		struct ct_diff_entry *e;

		if (lib_of(b, lb->role, 0) != lb || lib_of(a, lb->role, 0) || a->kind == CT_SIDE_DOCTOR)
			continue;
		e = add(d, CT_DIFF_LIB_ONLY, lb->role);
		e->lb = lb;
	}
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static void not_found(struct ct_diff *d, const struct ct_side *x, const struct ct_side *y, bool x_is_a)
{
	size_t i;

	for (i = 0; i < x->nnot_found; i++)
		if (!listed(y->not_found, y->nnot_found, x->not_found[i]))
			add(d, CT_DIFF_NOT_FOUND, x->not_found[i])->in_a = x_is_a;
}

static bool same_gpus(const struct ct_side *a, const struct ct_side *b)
{
	size_t i;

	if (a->ngpus != b->ngpus)
		return false;
	for (i = 0; i < a->ngpus; i++)
		if (!same(a->gpus[i].name, b->gpus[i].name) || !same(a->gpus[i].cc, b->gpus[i].cc))
			return false;
	return true;
}

/* "sm_90: sass" for each target of object on s, in words; NULL when none. */
static const char *verdicts_of(struct ct_arena *arena, const struct ct_side *s, const char *object)
{
	char buf[512];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->ncode; i++) {
		int n;

		if (strcmp(s->code[i].object, object) != 0)
			continue;
		n = snprintf(buf + len, sizeof(buf) - len, "%s%s: %s", len ? ", " : "",
			     s->code[i].target, s->code[i].verdict);
		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			break;
		len += (size_t)n;
	}
	return len ? ct_arena_strdup(arena, buf) : NULL;
}

/* Whether every verdict of object on s runs (sass or ptx-jit). */
static bool runs(const struct ct_side *s, const char *object)
{
	size_t i;

	for (i = 0; i < s->ncode; i++)
		if (strcmp(s->code[i].object, object) == 0 && strcmp(s->code[i].verdict, "sass") != 0 &&
		    strcmp(s->code[i].verdict, "ptx-jit") != 0)
			return false;
	return true;
}

static void device_code(struct ct_diff *d, const struct ct_side *a, const struct ct_side *b)
{
	size_t i, k;

	for (i = 0; i < a->ncode; i++) {
		const char *object = a->code[i].object, *va, *vb;
		struct ct_diff_entry *e;

		for (k = 0; k < i; k++)
			if (strcmp(a->code[k].object, object) == 0)
				break;
		if (k < i)
			continue;
		vb = verdicts_of(&d->arena, b, object);
		/* Loaded on one side only: said among the libraries, or not CUDA's. */
		if (!vb || runs(a, object) == runs(b, object))
			continue;
		va = verdicts_of(&d->arena, a, object);
		e = add(d, CT_DIFF_CODE, object);
		e->va = va;
		e->vb = vb;
	}
}

/* A finding is the same on both sides by its code and object's name, or its message. */
static bool has_finding(const struct ct_side *s, const struct ct_side_finding *f)
{
	size_t i;

	for (i = 0; i < s->nfindings; i++) {
		const struct ct_side_finding *g = &s->findings[i];

		if (strcmp(g->code, f->code) != 0)
			continue;
		if (f->object || g->object) {
			if (f->object && g->object && strcmp(base_of(f->object), base_of(g->object)) == 0)
				return true;
		} else if (strcmp(f->message, g->message) == 0) {
			return true;
		}
	}
	return false;
}

static void findings(struct ct_diff *d, const struct ct_side *x, const struct ct_side *y, bool x_is_a)
{
	size_t i;

	for (i = 0; i < x->nfindings; i++)
		if (!has_finding(y, &x->findings[i])) {
			struct ct_diff_entry *e = add(d, CT_DIFF_FINDING, x->findings[i].code);

			e->finding = &x->findings[i];
			e->in_a = x_is_a;
		}
}

static void environment(struct ct_diff *d, const struct ct_side *a, const struct ct_side *b)
{
	const struct ct_side *sides[2] = { a, b };
	size_t s, i, k;

	for (s = 0; s < 2; s++)
		for (i = 0; i < sides[s]->nenv; i++) {
			const char *name = sides[s]->env[i].name, *va, *vb;
			bool fa, fb;

			if (!knows(a, name) || !knows(b, name))
				continue;
			/* Each name once: B's only when A has not got it. */
			if (s == 1) {
				env_value(a, name, &fa);
				if (fa)
					continue;
			}
			for (k = 0; k < d->n; k++)
				if (d->e[k].kind == CT_DIFF_ENV && strcmp(d->e[k].key, name) == 0)
					break;
			if (k < d->n)
				continue;
			va = env_value(a, name, &fa);
			vb = env_value(b, name, &fb);
			if (fa == fb && same(va, vb))
				continue;
			add(d, CT_DIFF_ENV, name);
			d->e[d->n - 1].va = fa ? (va ? va : "") : NULL;
			d->e[d->n - 1].vb = fb ? (vb ? vb : "") : NULL;
		}
}

void ct_diff_compute(struct ct_diff *d, const struct ct_side *a, const struct ct_side *b)
{
	memset(d, 0, sizeof(*d));
	ct_arena_init(&d->arena);
	libraries(d, a, b);
	not_found(d, a, b, true);
	not_found(d, b, a, false);
	if (a->kind != b->kind)
		d->not_compared[d->nnot_compared++] =
			"loaded libraries against a doctor's: only the CUDA runtime it would take";
	/*
	 * A side whose program never asked for the driver says nothing of its
	 * machine's: neither the driver nor the GPUs are compared then.
	 */
	if (a->driver == CT_SIDE_DRIVER_NOT_ASKED || b->driver == CT_SIDE_DRIVER_NOT_ASKED) {
		if (a->driver != b->driver)
			d->not_compared[d->nnot_compared++] =
				a->driver == CT_SIDE_DRIVER_NOT_ASKED
					? "the driver and GPUs: A's program never asked for the driver"
					: "the driver and GPUs: B's program never asked for the driver";
	} else if (a->driver == CT_SIDE_DRIVER_FOUND && b->driver == CT_SIDE_DRIVER_FOUND) {
		if (!same_version(a->driver_version, b->driver_version) ||
		    a->driver_cuda != b->driver_cuda || !same(a->driver_path, b->driver_path))
			add(d, CT_DIFF_DRIVER, "driver");
		if (!same_gpus(a, b))
			add(d, CT_DIFF_GPUS, "gpus");
	} else if (a->driver != b->driver) {
		add(d, CT_DIFF_DRIVER, "driver");
		if (a->ngpus || b->ngpus)
			add(d, CT_DIFF_GPUS, "gpus");
	}
	if (a->has_code && b->has_code)
		device_code(d, a, b);
	else
		d->not_compared[d->nnot_compared++] = "device code: a doctor's is not compared";
	findings(d, a, b, true);
	findings(d, b, a, false);
	environment(d, a, b);
}

void ct_diff_release(struct ct_diff *d)
{
	free(d->e);
	ct_arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

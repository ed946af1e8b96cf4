/*
 * The diagnosis engine; see diagnose.h. One function per finding code,
 * each reading one process's facts and adding findings with the place
 * they were seen; ct_findings_group merges what processes share. The
 * rules about libraries are in diag_libs.c; here the process, the driver,
 * the trace's own gaps and the device code.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "archs.h"
#include "compat.h"
#include "copies.h"
#include "cuda_errors.h"
#include "util.h"
#include "gpu.h"
#include "libnames.h"
#include "elfscan.h"
#include "diag_internal.h"
#include "diagnose.h"
#include "driver_rule.h"
#include "elfinfo.h"
#include "resolve.h"
#include "signals.h"
#include "summary.h"
#include "symvers.h"
#include "verdict.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/*
 * What the rules and printers ask of one file, read once per file: the
 * paths that name one file (by device and inode on this machine: a
 * symlinked /lib, a library reached two ways) share it.
 */
struct ct_devfile {
	struct { uint64_t dev, ino; } key; /* d->files; unkeyed when stat failed */
	bool keyed;
	struct elfscan_file f;
	bool ok;                  /* scanned, and holds images */
	struct ct_elfinfo info;   /* DT_NEEDED, versions needed (ct_dx_elfinfo) */
	bool info_ok;
	struct ct_file_build build; /* what it says of its CUDA (builds.c), once */
	bool judged;              /* the three below worked out (judge_code) */
	bool runnable;            /* holds SASS or PTX */
	/*
	 * check's verdict for each target (verdict.c, the one rule: fatbin
	 * by fatbin, fatbins without kernels left out), and the image it
	 * runs by: the PTX one for ptx-jit, else the most picked, or -1.
	 */
	enum ct_verdict_kind verdicts[CT_MAX_TARGETS];
	long picks[CT_MAX_TARGETS];
	size_t ptx_only[CT_MAX_TARGETS], modules[CT_MAX_TARGETS];
	char archs[512];          /* what it holds, in words */
	struct ct_devfile *next;  /* every file, to free */
	UT_hash_handle hh;
};

/* A path of the trace (or one a rule asked of), and its file; found by path. */
struct ct_devcode {
	char *path;
	bool sibling;             /* not in the trace: read for what it says of another */
	struct ct_devfile *file;  /* shared with the other paths of that file */
	UT_hash_handle hh;        /* d->code_by_path, keyed by path */
};

/* ---- each file, read once ----------------------------------------------------- */

/*
 * Scan path and read its dynamic section once: every path of the trace
 * is read before any rule runs, the rules and the printers only look up.
 */
static struct ct_devcode *code_of(const struct ct_diagnosis *d, const char *path)
{
	struct ct_devcode *c = NULL;

	if (path)
		HASH_FIND_STR(d->code_by_path, path, c);
	return c;
}

static struct ct_devfile *file_of(struct ct_diagnosis *d, const char *path)
{
	struct ct_devfile *f = NULL;
	struct elfscan_options o = { 0 };
	struct stat st;
	bool keyed = stat(path, &st) == 0;

	if (keyed) {
		struct ct_devfile key;

		memset(&key, 0, sizeof(key));
		key.key.dev = (uint64_t)st.st_dev;
		key.key.ino = (uint64_t)st.st_ino;
		HASH_FIND(hh, d->files, &key.key, sizeof(key.key), f);
		if (f)
			return f;
	}
	f = ct_xcalloc(1, sizeof(*f));
	elfscan_file_init(&f->f);
	o.threads = (unsigned)ct_threads(4) - 1;
	f->ok = elfscan_scan_path(&f->f, path, &o) == 0 && f->f.nimages > 0;
	ct_elfinfo_init(&f->info);
	f->info_ok = ct_elfinfo_read(&f->info, path) == 0;
	f->next = d->all_files;
	d->all_files = f;
	if (keyed) {
		f->keyed = true;
		f->key.dev = (uint64_t)st.st_dev;
		f->key.ino = (uint64_t)st.st_ino;
		HASH_ADD(hh, d->files, key, sizeof(f->key), f);
	}
	return f;
}

static void scan_code(struct ct_diagnosis *d, const char *path)
{
	struct ct_devcode *c;

	if (code_of(d, path))
		return;
	c = ct_xcalloc(1, sizeof(*c));
	c->path = ct_xstrdup(path);
	c->file = file_of(d, path);
	HASH_ADD_KEYPTR(hh, d->code_by_path, c->path, strlen(c->path), c);
}

static const struct ct_elfinfo *elfinfo_of(const struct ct_diagnosis *d, const char *path)
{
	const struct ct_devcode *c = code_of(d, path);

	return c && c->file->info_ok ? &c->file->info : NULL;
}

const struct ct_elfinfo *ct_dx_elfinfo(const struct ctx *c, const char *path)
{
	return elfinfo_of(c->d, path);
}

/* A file the trace does not name, read once on demand. */
static struct ct_devcode *scan_sibling(struct ct_diagnosis *d, const char *path)
{
	struct ct_devcode *c = code_of(d, path);

	if (!c) {
		scan_code(d, path);
		c = code_of(d, path);
		c->sibling = true;
	}
	return c;
}

const struct ct_elfinfo *ct_dx_elfinfo_scan(struct ctx *c, const char *path)
{
	const struct ct_devcode *k = scan_sibling(c->d, path);

	return k->file->info_ok ? &k->file->info : NULL;
}

const struct elfscan_file *ct_dx_code_scan(struct ctx *c, const char *path)
{
	const struct ct_devcode *k = scan_sibling(c->d, path);

	return k->file->ok ? &k->file->f : NULL;
}

struct ct_file_build *ct_dx_file_build(struct ctx *c, const char *path)
{
	return &scan_sibling(c->d, path)->file->build;
}

/* Is name one of list, as the loader asked for it (DSTs expanded)? */
static bool names_entry(char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* "$ORIGIN/../lib/libx.so" is searched as "/opt/x/bin/../lib/libx.so". */
		if (strcmp(list[i], name) == 0 ||
		    (strchr(list[i], '$') && strcmp(ct_dx_base(list[i]), ct_dx_base(name)) == 0))
			return true;
	}
	return false;
}

/* Is name an entry of p's LD_PRELOAD (separated by spaces or colons, as the loader splits it)? */
static bool preloaded(const struct ct_proc *p, const char *name)
{
	const char *v = ct_proc_env(p, "LD_PRELOAD"), *e;
	size_t n = strlen(name);

	while (v && *v) {
		v += strspn(v, " :");
		e = v + strcspn(v, " :");
		if ((size_t)(e - v) == n && n && strncmp(v, name, n) == 0)
			return true;
		v = e;
	}
	return false;
}

enum ct_search_kind ct_diagnosis_search_kind(const struct ct_diagnosis *d, const struct ct_proc *p,
					     const struct ct_search *s)
{
	const struct ct_elfinfo *e;
	bool by_program = true;
	size_t i;

	if (s->request)
		return CT_SEARCH_DLOPEN;
	e = elfinfo_of(d, s->by);
	if (e && names_entry(e->needed, e->nneeded, s->name))
		return CT_SEARCH_NEEDED;
	if (e && names_entry(e->filter, e->nfilter, s->name))
		return CT_SEARCH_FILTER;
	if (e && names_entry(e->auxiliary, e->nauxiliary, s->name))
		return CT_SEARCH_AUXILIARY;
	/* The loader asks for the preloads on the program's behalf. */
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].main)
			by_program = s->by && strcmp(p->objects[i].path, s->by) == 0;
	if (by_program && preloaded(p, s->name))
		return CT_SEARCH_PRELOAD;
	return e ? CT_SEARCH_OTHER : CT_SEARCH_NEEDED;
}

const struct elfscan_file *ct_diagnosis_code(const struct ct_diagnosis *d, const char *path)
{
	const struct ct_devcode *c = code_of(d, path);

	return c && c->file->ok && !c->sibling ? &c->file->f : NULL;
}

char *ct_module_images_words(const struct ct_diagnosis *d, const struct ct_module *m, char *buf,
			     size_t size)
{
	struct elfscan_image img[64];
	const struct elfscan_file *f;
	size_t avail, n = 0;
	long count, i;

	if (m->nimages || !m->object || m->offset < 0) {
		ct_images_words(m, buf, size);
		return buf;
	}
	buf[0] = '\0';
	f = d ? ct_diagnosis_code(d, m->object) : NULL;
	if (!f || !f->buf || (uint64_t)m->offset >= f->len)
		return buf;
	avail = f->len - (size_t)m->offset;
	if (m->size > 0 && (uint64_t)m->size < avail)
		avail = (size_t)m->size;
	count = elfscan_module_describe(f->buf + m->offset, avail, img, 64);
	for (i = 0; i < count && i < 64; i++) {
		char a[ELFSCAN_ARCH_NAME_MAX];

		elfscan_image_arch_name(&img[i], a, sizeof(a));
		if (ct_word_in(buf, a)) /* once each */
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " " : "", a);
		if (n >= size)
			break;
	}
	return buf;
}

const char *ct_diagnosis_soname(const struct ct_diagnosis *d, const struct ct_loaded *o)
{
	const struct ct_elfinfo *e = elfinfo_of(d, o->path);

	return e && e->soname ? e->soname : o->soname;
}

bool ct_diagnosis_has_code(const struct ct_diagnosis *d)
{
	const struct ct_devcode *c, *tmp;

	HASH_ITER(hh, d->code_by_path, c, tmp)
		if (c->file->ok && !c->sibling)
			return true;
	return false;
}

void ct_diagnosis_release(struct ct_diagnosis *d)
{
	struct ct_devcode *c, *tmp;

	HASH_ITER(hh, d->code_by_path, c, tmp) {
		HASH_DEL(d->code_by_path, c);
		free(c->path);
		free(c);
	}
	HASH_CLEAR(hh, d->files);
	while (d->all_files) {
		struct ct_devfile *f = d->all_files;

		d->all_files = f->next;
		elfscan_file_release(&f->f);
		ct_elfinfo_release(&f->info);
		free(f->build.why);
		free(f);
	}
	ct_symcache_free(d->syms);
	ct_dx_own_choices_free(d->own_choices);
	ct_dx_unresolved_free(d->unresolved);
	ct_dx_memo_free(d->memo);
	ct_dx_versions_free(d->versions);
	ct_dx_refusals_free(d->refusals);
	ct_findings_release(&d->findings);
	memset(d, 0, sizeof(*d));
}

/* ---- places ---------------------------------------------------------------- */

static void describe_proc(struct ctx *c)
{
	/*
	 * A rank says where in its job a finding was seen; of a job id that
	 * several users' runs name, "rank 1" would pin one user's finding on
	 * another's rank: the process is named instead (trace.h, job_notes).
	 */
	c->rank = c->p->job_shared ? NULL : ct_proc_rank(c->p);
	ct_proc_command(c->p, c->program, sizeof(c->program), 60);
}

/* ---- small helpers ---------------------------------------------------------- */

/* A library's version from its real file name, as major and minor; 0 when unknown. */
static int version_of(struct ctx *c, const char *path, char *words, size_t size)
{
	char v[64];
	int major = 0, minor = 0;

	ct_dx_version(c, path, v, sizeof(v));
	if (words)
		snprintf(words, size, "%s", v);
	if (sscanf(v, "%d.%d", &major, &minor) < 1)
		return 0;
	return major * 1000 + minor * 10;
}

/* Did the exec that started p already say it runs without the auditor? */
static bool said_by_parent(const struct ct_proc *p)
{
	size_t i;

	if (!p->parent || p->parent->pid != p->pid)
		return false;
	for (i = 0; i < p->parent->nexecs; i++)
		if (p->parent->execs[i].no_auditor)
			return true;
	return false;
}

/* ---- trace-incomplete ------------------------------------------------------- */

/*
 * A program that was not traced, and why, in an exec record's words (a
 * run record uses them too): one wording, whether a traced process started
 * it or cudatrace did. path may be NULL.
 */
static struct ct_finding *add_untraced(struct ctx *c, const char *path, const char *why)
{
	const char *file = path ? path : "PROGRAM";
	struct ct_finding *f;

	if (strcmp(why, "setuid") == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' runs set-user-ID: the loader ignores LD_AUDIT and "
				   "LD_PRELOAD, so it was not traced",
				   ct_dx_base(path));
		ct_finding_fix(f, "trace it without the set-user-ID bit (a copy of it), or "
				  "read its libraries with: cudatrace ldd %s",
			       file);
	} else if (strcmp(why, "static") == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' is statically linked: no loader runs, nothing to trace",
				   ct_dx_base(path));
		ct_finding_fix(f, "it loads no library at run time: see the CUDA it carries "
				  "with: cudatrace scan %s",
			       file);
		ct_finding_fix_line(f, "judge its device code for a GPU with: cudatrace check "
				       "--arch ARCH %s",
				    file);
	} else {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' was started with an environment that drops the "
				   "cudatrace shim, so it was not traced",
				   ct_dx_base(path));
		ct_finding_fix(f, "keep LD_AUDIT, LD_PRELOAD, CUDATRACE_DIR and CUDATRACE_RUN in the "
				  "environment it is started with (env -i, sudo and "
				  "some launchers clear them)");
	}
	return f;
}

/* Why tracing stopped, from the shim's errno, in words. */
static const char *stop_words(int64_t err)
{
	switch (err) {
	case ENOSPC:
		return "the disk of the trace folder is full (No space left on device)";
	case EDQUOT:
		return "the disk quota of the trace folder is used up";
	case EFBIG:
		return "the trace file reached the file size limit (ulimit -f)";
	case EACCES:
	case EPERM:
		return "the trace file could no longer be opened (permission denied)";
	case ENOENT:
		return "the trace folder could no longer be found (removed, or out of reach)";
	case EIO:
		return "the disk of the trace folder failed (input/output error)";
	default:
		return NULL;
	}
}

/* How p ended, as the evidence of a search cut short says it. */
static void ended_words(const struct ct_proc *p, char *buf, size_t size)
{
	struct ct_ending e;
	const char *sig;

	ct_proc_ending(p, &e);
	switch (e.kind) {
	case CT_END_SIGNAL:
		sig = ct_signal_abbrev(e.signal);
		snprintf(buf, size, "the process was killed by signal %lld%s%s%s", (long long)e.signal,
			 sig ? " (SIG" : "", sig ? sig : "", sig ? ")" : "");
		break;
	case CT_END_EXIT:
		snprintf(buf, size, "the process went on to exit with status %lld, but its trace "
				    "stops here: it could no longer write it",
			 (long long)e.status);
		break;
	default:
		snprintf(buf, size, "the trace stops here without an exit record (the process was "
				    "killed, crashed or could no longer write its trace)");
		break;
	}
}

/*
 * Searches whose answer the trace does not hold (ct_search_known): never
 * a miss (ct_dx_search_missed), and said here instead. Lost ones are
 * counted in the finding about the lost records (n_lost, names);
 * interrupted ones are a finding each.
 */
static size_t unknown_searches(struct ctx *c, char *names, size_t size)
{
	const struct ct_proc *p = c->p;
	size_t i, k, lost = 0, len = 0;
	char how[160];

	names[0] = '\0';
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_known known = ct_search_known(p, s);
		struct ct_finding *f;

		if (known == CT_SEARCH_LOST) {
			if (lost++ < 4 && len < size)
				len += (size_t)snprintf(names + len, size - len, "%s'%s'",
							len ? ", " : "", s->name);
			continue;
		}
		if (known != CT_SEARCH_INTERRUPTED || (s->request && s->request->noload) ||
		    ct_dx_search_ended_refused(c, s))
			continue;
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the trace ends during the loader's search for '%s': whether it "
				   "was found is not known",
				   s->name);
		ended_words(p, how, sizeof(how));
		ct_finding_evidence(f, "%s", how);
		ct_finding_evidence(f, "%s by %s; candidates tried before the end: %zu",
				    s->request ? s->request->api : "needed",
				    ct_dx_base(s->request && s->request->caller ? s->request->caller
										  : s->by),
				    s->ntries);
		for (k = 0; k < s->ntries && k < 4; k++)
			ct_finding_evidence(f, "  tried %s", s->tries[k].path);
		ct_finding_fix(f, "nothing says it is missing; where the loader finds it: cudatrace "
				  "why %s --from %s",
			       s->name, s->request && s->request->caller ? s->request->caller
			       : s->by && s->by[0]			 ? s->by
									 : "PROGRAM");
		ct_dx_where(c, f);
	}
	if (lost > 4 && len < size)
		snprintf(names + len, size - len, " and %zu more", lost - 4);
	return lost;
}

/* What a switch of user or root (p's last) made of the process, in words. */
static void switch_words(const struct ct_proc *p, char *buf, size_t size)
{
	if (strcmp(p->switch_api, "chroot") == 0)
		snprintf(buf, size, "changed its root directory to '%s' (chroot)",
			 p->switch_path ? p->switch_path : "?");
	else
		snprintf(buf, size, "switched to user %lld (%s)", (long long)p->switch_uid,
			 p->switch_api);
}

/* The exec that replaced p's image, when it was to be traced; NULL: none. */
static const struct ct_exec *traced_exec(const struct ct_proc *p)
{
	size_t k;

	for (k = p->nexecs; k > 0; k--) {
		const struct ct_exec *x = &p->execs[k - 1];

		if (strncmp(x->api, "posix_spawn", 11) == 0)
			continue;
		return !x->failed && x->traced ? x : NULL;
	}
	return NULL;
}

/*
 * A process that switched user or root and could no longer write its
 * trace (the shim says the switch before it happens), or whose exec'd
 * program left no trace: what came after is not in the report.
 */
static void rule_switched(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	const struct ct_exec *x = traced_exec(p);
	struct ct_finding *f;
	char how[320];

	if (p->switch_api && p->switch_last) {
		switch_words(p, how, sizeof(how));
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->exe,
				   "'%s' %s: nothing it did after that was traced",
				   ct_dx_base(p->exe), how);
		ct_finding_evidence(f, "%s", strcmp(p->switch_api, "chroot") == 0
			? "the trace folder is outside its new root"
			: "its trace file and folder are private to the user who ran cudatrace");
		ct_finding_evidence(f, "the libraries it loaded and the programs it started after "
				       "the switch are not in this report");
		ct_finding_fix(f, "trace what runs after the switch on its own: start cudatrace "
				  "after it, as that user, with a trace folder it can write (gosu "
				  "USER cudatrace -o DIR PROGRAM)");
		ct_dx_where(c, f);
		return;
	}
	if (!x || p->next_image)
		return;
	if (x->dir) {
		/* A cudatrace run inside this one: its program is in that run's report. */
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, x->path,
				   "'%s' was traced into another folder, '%s' (a cudatrace run "
				   "inside this one): it is in that run's report, not this one",
				   ct_dx_base(x->path), x->dir);
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "%s of %s by %s", x->api, x->path ? x->path : "?",
				    c->program);
		ct_finding_fix(f, "nothing to do; read it with: cudatrace report %s", x->dir);
		ct_dx_where(c, f);
		return;
	}
	f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, x->path,
			   "'%s' left no trace: what it did is not in this report",
			   ct_dx_base(x->path));
	ct_finding_evidence(f, "%s of %s by %s", x->api, x->path ? x->path : "?", c->program);
	if (p->switch_api) {
		switch_words(p, how, sizeof(how));
		ct_finding_evidence(f, "%s %s before it", ct_dx_base(p->exe), how);
	}
	ct_finding_evidence(f, "it could not write its trace file (another user, another root "
			       "directory, a full disk), or ran in secure mode (file "
			       "capabilities), where the loader ignores LD_AUDIT and LD_PRELOAD");
	ct_finding_fix(f, "trace it on its own, started the way it was, with a trace folder it "
			  "can write (as its user: gosu USER cudatrace -o DIR PROGRAM)");
	ct_dx_where(c, f);
}

static void rule_incomplete(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct ct_finding *f;
	char names[512];
	size_t i, lost;

	/* cudatrace started it, and its run record says why it has no trace. */
	if (p->untraced) {
		f = add_untraced(c, p->exe, p->untraced);
		ct_finding_evidence(f, "started by cudatrace run: %s", p->exe ? p->exe : "?");
		ct_dx_where(c, f);
	}

	for (i = 0; i < p->nexecs; i++) {
		const struct ct_exec *e = &p->execs[i];
		const char *why = e->untraced ? e->untraced : "";

		if (e->traced && e->no_auditor) {
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, e->path,
					   "'%s' was started without cudatrace's auditor in LD_AUDIT: "
					   "its library searches are not recorded",
					   ct_dx_base(e->path));
			ct_finding_fix(f, "keep LD_AUDIT as cudatrace sets it when starting it (the "
					  "shim in LD_PRELOAD alone sees only dlopen and the driver)");
			ct_finding_evidence(f, "%s of %s by %s", e->api, e->path ? e->path : "?",
					    c->program);
			ct_dx_where(c, f);
			continue;
		}
		if (e->traced)
			continue;
		f = add_untraced(c, e->path, why);
		ct_finding_evidence(f, "%s of %s by %s", e->api, e->path ? e->path : "?",
				    c->program);
		ct_dx_where(c, f);
	}
	rule_switched(c);
	/* Other auditors: their own loads are left out (the reader's audit). */
	if (*ct_proc_other_auditors(p, names, sizeof(names))) {
		const char *b = strrchr(names, '/');

		if (!strchr(names, ':') && strcmp(b ? b + 1 : names, "libcudatrace.so") == 0)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "LD_AUDIT names cudatrace's shim twice (a cudatrace run "
					   "inside another): the second copy's own loads are left out");
		else
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "LD_AUDIT also names '%s' (another auditor): the libraries "
					   "the loader loads for it are left out",
					   names);
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "LD_AUDIT=%s", ct_proc_env(p, "LD_AUDIT"));
		ct_finding_fix(f, "nothing to do: cudatrace's auditor still sees every load of the "
				  "program");
		ct_dx_where(c, f);
	}
	lost = unknown_searches(c, names, sizeof(names));
	if (p->dropped || p->stopped) {
		const char *why = p->stopped ? stop_words(p->stop_errno) : NULL;

		if (p->stopped && p->stop_unsaid && !why)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "tracing stopped after main: the process could not "
					   "write its trace");
		else if (p->stopped)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "tracing stopped before the process ended: %s",
					   why ? why : "the trace file could no longer be written");
		else
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "%lu trace record%s could not be written", p->dropped,
					   p->dropped == 1 ? "" : "s");
		if (p->stopped && p->dropped)
			ct_finding_evidence(f, "%lu trace record%s could not be written before it",
					    p->dropped, p->dropped == 1 ? "" : "s");
		if (p->stopped && !why && p->stop_errno)
			ct_finding_evidence(f, "the shim's error: %s", strerror((int)p->stop_errno));
		/* No record says it stopped: the run record and the trace disagree. */
		if (p->stop_unsaid && p->launched)
			ct_finding_evidence(f, "it exited with status %lld (cudatrace run waited "
					       "for it), but its trace has no exit record: what it "
					       "did after its last record is not in this report",
					    (long long)p->launched->exit_status);
		if (lost)
			ct_finding_evidence(f, "the answer to %zu library search%s may be among the "
					       "lost records: %s; no lib-not-found or driver-missing "
					       "is made of %s",
					    lost, lost == 1 ? "" : "es", names,
					    lost == 1 ? "it" : "them");
		if (p->stop_unsaid && !why)
			ct_finding_fix(f, "let the program write its trace file: free file "
					  "descriptors (ulimit -n), no seccomp filter or sandbox that "
					  "forbids opening files for writing, space in the trace "
					  "directory; then run again");
		else
			ct_finding_fix(f, "give the trace directory space and the program free "
					  "file descriptors (ulimit -n), then run again");
		ct_dx_where(c, f);
	}
	if (p->bad_lines) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' is damaged: %zu unreadable line%s%s",
				   ct_dx_base(p->file), p->bad_lines, p->bad_lines == 1 ? "" : "s",
				   p->cut ? ", the last one cut short" : "");
		ct_finding_fix(f, "a process killed while writing, or a write that failed (a full "
				  "disk, ulimit -f), cuts its last line; anything else means the "
				  "file was changed");
		ct_dx_where(c, f);
	} else if (p->cut) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' ends with a record cut short",
				   ct_dx_base(p->file));
		ct_finding_fix(f, "a process killed while writing, or a write that failed (a full "
				  "disk, ulimit -f), cuts its last line; give the trace directory "
				  "space and run again");
		ct_dx_where(c, f);
	}
	if (p->bad_values || p->limit) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' was not read in full: %s", ct_dx_base(p->file),
				   p->limit ? p->limit : "it holds impossible values");
		if (p->limited)
			ct_finding_evidence(f, "%zu line%s left out", p->limited, p->limited == 1 ? "" : "s");
		if (p->bad_values)
			ct_finding_evidence(f, "%zu negative or absurd count%s refused", p->bad_values,
					    p->bad_values == 1 ? "" : "s");
		ct_finding_fix(f, "cudatrace's shim never writes such records: the file was "
				  "changed or written by something else (limits: docs/trace-format.md)");
		ct_dx_where(c, f);
	}
	if (p->started && !p->auditor && !p->secure && !said_by_parent(p)) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the loader did not run cudatrace's auditor (LD_AUDIT): library "
				   "searches were not recorded");
		ct_finding_fix(f, "keep LD_AUDIT as cudatrace sets it (another auditor "
				  "first in it, or a loader without audit support, stops it)");
		ct_dx_where(c, f);
	}
}

/* ---- the driver ---------------------------------------------------------------- */

/*
 * A search for the driver that one of NVIDIA's CUDA libraries made, other
 * than a runtime: cuBLASLt 12 dlopens libcuda.so.1 twice while it loads,
 * so a CPU-only `import torch` asks for the driver without using CUDA.
 * Using CUDA goes through a runtime (libcudart, or a static one in the
 * program or its extension: those callers are not NVIDIA's libraries) or
 * the program's own dlopen, and those searches are not probes. cuBLAS's
 * own static runtime asks from cublasCreate, though, which the trace
 * cannot tell from a load: probes alone are a note only when the process
 * went on to a clean end (rule_driver_missing).
 */
static bool library_probe(const struct ct_search *s)
{
	const char *b;

	if (!s->request || !s->request->caller || !s->request->caller[0])
		return false;
	b = ct_dx_base(s->request->caller);
	return ct_cuda_library(b) && strncmp(b, "libcudart", 9) != 0 && !ct_dx_is_driver(b);
}

/*
 * Does a CUDA_VISIBLE_DEVICES value hide every GPU on purpose? Empty, "-1"
 * (the runtime stops at the first entry that is no device, so anything
 * starting with a minus), or Slurm's "NoDevFiles" for a job given none.
 */
static bool hides_every_gpu(const char *cvd)
{
	while (*cvd == ' ' || *cvd == '\t')
		cvd++;
	return *cvd == '\0' || *cvd == '-' || strcasecmp(cvd, "NoDevFiles") == 0;
}

/* The failed searches for one of the driver's libraries, sorted out. */
struct driver_misses {
	const struct ct_search *use;   /* the first by a runtime or the program */
	const struct ct_search *probe; /* the first by a CUDA library (library_probe) */
	size_t nprobes, nprobers;
	const char *probers[4];        /* their callers, one per file name */
};

static void driver_misses(struct ctx *c, bool (*is)(const char *), struct driver_misses *m)
{
	const struct ct_proc *p = c->p;
	size_t i, k;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_kind kind;

		if (!is(s->name) || !ct_dx_search_missed(c, s) || (s->request && s->request->noload))
			continue;
		/* An optional search, or a preload the loader skipped, fails nothing. */
		kind = ct_diagnosis_search_kind(c->d, p, s);
		if (kind == CT_SEARCH_AUXILIARY || kind == CT_SEARCH_PRELOAD)
			continue;
		if (!library_probe(s)) {
			if (!m->use)
				m->use = s;
			continue;
		}
		if (!m->probe)
			m->probe = s;
		m->nprobes++;
		for (k = 0; k < m->nprobers; k++)
			if (strcmp(ct_dx_base(m->probers[k]), ct_dx_base(s->request->caller)) == 0)
				break;
		if (k == m->nprobers && m->nprobers < sizeof(m->probers) / sizeof(m->probers[0]))
			m->probers[m->nprobers++] = s->request->caller;
	}
}

/* "libcublasLt.so.12, libcublas.so.12" into who, " (2 times)" into times. */
static void probers_words(const struct driver_misses *m, char *who, size_t wsize, char *times,
			  size_t tsize)
{
	size_t i, n = 0;

	who[0] = times[0] = '\0';
	for (i = 0; i < m->nprobers && n < wsize; i++)
		n += (size_t)snprintf(who + n, wsize - n, "%s%s", i ? ", " : "",
				      ct_dx_base(m->probers[i]));
	if (m->nprobes > 1)
		snprintf(times, tsize, " (%zu times)", m->nprobes);
}

static void rule_driver_missing(struct ctx *c)
{
	struct driver_misses drv, nvml, *m = &drv;
	const struct ct_search *use, *probe;
	struct ct_finding *f;
	char who[512], times[32];
	const char *cvd = ct_proc_env(c->p, "CUDA_VISIBLE_DEVICES"), *refused, *why = NULL;
	bool failed = false, hidden = false;

	if (ct_dx_driver_mapped(c))
		return;
	driver_misses(c, ct_dx_is_driver, &drv);
	/* NVML comes with the driver: its miss says the same, unless it is all there is. */
	driver_misses(c, ct_dx_is_nvml, &nvml);
	if (!drv.use && !drv.probe)
		m = &nvml;
	use = m->use;
	probe = m->probe;
	if (!use && !probe)
		return;
	/*
	 * Only CUDA libraries asked, and the process went on to a clean end:
	 * a note. A failed end keeps the error: cuBLAS's own runtime asks
	 * from cublasCreate, which then fails the program, and a library's
	 * call cannot be told from its load in the trace.
	 */
	if (!use && !ct_dx_clean_end(c))
		failed = true;
	probers_words(m, who, sizeof(who), times, sizeof(times));
	/* An empty or cut-short copy in the way: the driver may well be there. */
	refused = ct_dx_refused_at(c, use ? use : probe, &why);
	if (refused)
		ct_dx_refusal_note(c, use ? use : probe, refused, why);
	if (failed && refused) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "the NVIDIA driver's '%s' at %s cannot be loaded: %s", probe->name,
				   refused, ct_dx_refused_words(why));
		ct_finding_evidence(f, "%s by %s%s", probe->request->api, who, times);
		if (probe->request->error)
			ct_finding_evidence(f, "the program got: %s", probe->request->error);
	} else if (failed) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "no NVIDIA driver: '%s' could not be loaded", probe->name);
		ct_finding_evidence(f, "%s by %s%s", probe->request->api, who, times);
		if (probe->request->error)
			ct_finding_evidence(f, "the program got: %s", probe->request->error);
	} else if (use) {
		if (refused)
			f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
					   "the NVIDIA driver's '%s' at %s cannot be loaded: %s",
					   use->name, refused, ct_dx_refused_words(why));
		else
			f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
					   "no NVIDIA driver: '%s' could not be loaded", use->name);
		ct_finding_evidence(f, "%s by %s", use->request ? use->request->api : "needed",
				    ct_dx_base(use->request ? use->request->caller : use->by));
		if (use->request && use->request->error)
			ct_finding_evidence(f, "the program got: %s", use->request->error);
		if (probe)
			ct_finding_evidence(f, "%s by %s%s too", probe->request->api, who, times);
		if (cvd && hides_every_gpu(cvd) && ct_dx_clean_end(c)) {
			/* No GPU was wanted (as for no-device): worth knowing, not a failure. */
			f->severity = CT_SEV_INFO;
			ct_finding_evidence(f, "CUDA_VISIBLE_DEVICES=%s hides every GPU: it asks to run "
					       "without one, and the process went on to a clean end",
					    cvd);
			hidden = true;
		}
	} else if (refused) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "the NVIDIA driver's '%s' at %s cannot be loaded: %s, and nothing "
				   "started CUDA: only %s looked for it",
				   probe->name, refused, ct_dx_refused_words(why), who);
	} else {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "no NVIDIA driver, and nothing started CUDA: only %s looked for '%s'",
				   who, probe->name);
	}
	if (!use && !failed) {
		/* Worth knowing, not a failure. */
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "%s by %s%s: %s for the driver %s", probe->request->api,
				    who, times, m->nprobers > 1 ? "CUDA libraries look" :
				    "a CUDA library looks", m->nprobers > 1 ? "themselves" : "itself");
		ct_finding_evidence(f, "no CUDA runtime and no code of the program asked for it, "
				       "and the process went on to a clean end");
	}
	if (m == &drv && (nvml.use || nvml.probe)) {
		const struct ct_search *n = nvml.use ? nvml.use : nvml.probe;

		ct_finding_evidence(f, "'%s' (NVML, which comes with the driver) was not found "
				       "either: %s by %s",
				    n->name, n->request ? n->request->api : "needed",
				    ct_dx_base(n->request ? n->request->caller : n->by));
	}
	if (refused)
		ct_finding_evidence(f, "the loader's search stops at %s: it never reaches a driver "
				       "later in the order",
				    refused);
	ct_dx_tries(f, use ? use : probe);
	if (refused && why == ct_noexec_why) {
		ct_finding_fix(f, "the file system of %s is mounted noexec: the loader cannot map "
				  "its code; use the driver from a file system mounted exec",
			       refused);
		ct_dx_where(c, f);
		return;
	}
	if (refused) {
		ct_finding_fix(f, "%sremove %s, or replace it with the driver's own %s: an empty or "
				  "damaged copy on the path hides the real driver",
			       (!use && !failed) || hidden ? "nothing, if this process is meant to run "
							     "without a GPU; for one, "
							   : "",
			       refused, use ? use->name : probe->name);
		ct_finding_fix_line(f, "on WSL: the driver is in /usr/lib/wsl/lib; keep it on the "
				       "library path ahead of any other copy");
		ct_dx_where(c, f);
		return;
	}
	if ((!use && !failed) || hidden)
		ct_finding_fix(f, "nothing, if this process is meant to run without a GPU; for one, "
				  "install the NVIDIA driver (it provides %s)",
			       m == &nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	else
		ct_finding_fix(f, "install the NVIDIA driver (it provides %s)",
			       m == &nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	ct_finding_fix_line(f, "in a container: start it with GPU support (docker run --gpus all, "
			       "with the NVIDIA Container Toolkit)");
	ct_finding_fix_line(f, "on WSL: keep /usr/lib/wsl/lib on the library path");
	ct_dx_where(c, f);
}

/* The CUDA runtime the process runs on: version, and where it is from. */
static int runtime_of(struct ctx *c, char *what, size_t size)
{
	size_t i;

	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		char v[64], who[512];
		int ver;

		if (o->shim || !ct_runtime_major(o->soname ? o->soname : ct_dx_base(o->path)))
			continue;
		ver = version_of(c, o->path, v, sizeof(v));
		if (!ver)
			ver = ct_runtime_major(o->soname ? o->soname : ct_dx_base(o->path)) * 1000;
		ct_dx_asker(o, who, sizeof(who));
		/* A bare major only repeats the soname. */
		if (strchr(v, '.'))
			snprintf(what, size, "%s (%s), %s", o->path, v, who);
		else
			snprintf(what, size, "%s, %s", o->path, who);
		return ver;
	}
	/*
	 * None loaded: a CUDA runtime linked into the program (nvcc's
	 * default). It is as old as the compiler that built the program's
	 * device code, which says so in it.
	 */
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		int cv;

		if (!o->main || !ct_diagnosis_code(c->d, o->path))
			continue;
		if (ct_dx_file_release(c, o->path, &cv)) {
			snprintf(what, size,
				 "the CUDA runtime built into %s (its device code was "
				 "compiled by CUDA %d.%d)",
				 ct_dx_base(o->path), cv / 1000, cv % 1000 / 10);
			return cv;
		}
	}
	return 0;
}

/* The driver record's CUDA version as the int the tables use; 0 when unknown or absurd. */
static int cuda_of(int64_t version)
{
	return version > 0 && version <= INT_MAX ? (int)version : 0;
}

static void rule_driver(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	const struct ct_driver_rec *drv = &p->driver;
	const char *dpath, *cvd;
	char runtime[1024], dver[64], have[32];
	struct ct_finding *f;
	int64_t version;
	int rt;
	size_t i, ndev = 0;

	if (!drv->present)
		return;
	dpath = drv->path ? drv->path : "libcuda.so.1";
	version = drv->version;
	ct_dx_release(c, dpath, dver, sizeof(dver)); /* "" for libcuda.so.1 as a file */
	runtime[0] = '\0';
	rt = runtime_of(c, runtime, sizeof(runtime));
	/* driver-too-old: a runtime of a newer major, or a 35 the driver gave. */
	{
		const char *from[1] = { runtime };
		struct ct_driver_need need = {
			.seen = CT_DRIVER_SEEN_PROCESS,
			.runtime = rt,
			.runtime_minor_known = true,
			.runtime_from = from,
			.nruntime_from = 1,
			.driver = cuda_of(version),
			.driver_path = dpath,
			.driver_release = dver,
			.no_pip = !ct_dx_python(c),
		};

		f = ct_driver_rule(&c->d->findings, &need);
	}
	if (f) {
		ct_dx_where(c, f);
	} else if (p->ncuinit && p->cuinit == 35) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_TOO_OLD, dpath,
				   "cuInit: \"CUDA driver version is insufficient for CUDA runtime "
				   "version\" (35)");
		ct_finding_evidence(f, "driver: %s, supports CUDA %s", dpath,
				    ct_cuda_version_words((int)version, have, sizeof(have)));
		ct_driver_fix(f, 0, cuda_of(version), NULL, NULL, ct_dx_python(c));
		ct_dx_where(c, f);
	}
	/* no-device: the driver loads but finds no usable GPU. */
	ndev = drv->ngpus;
	cvd = ct_proc_env(p, "CUDA_VISIBLE_DEVICES");
	if (p->ncuinit && p->cuinit != 0 && p->cuinit != 35) {
		f = ct_finding_add(&c->d->findings, CT_F_NO_DEVICE, dpath,
				   "the driver found no usable GPU: cuInit returned %lld (%s: %s)",
				   (long long)p->cuinit, ct_cu_error_name((int)p->cuinit),
				   ct_cu_error_text((int)p->cuinit));
	} else if (p->ncuinit && p->cuinit == 0 && drv->has_devices && ndev == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_NO_DEVICE, dpath,
				   "the driver initialised but reports no GPU");
	} else {
		return;
	}
	ct_finding_evidence(f, "driver: %s%s%s%s, supports CUDA %s", dpath, dver[0] ? " (" : "",
			    dver, dver[0] ? ")" : "",
			    ct_cuda_version_words((int)version, have, sizeof(have)));
	/* ps: /proc does not show the process's cuInit; cudatrace asked the same file. */
	if (p->cuinit_probed)
		ct_finding_evidence(f, "cuInit asked by cudatrace of the driver file the process "
				       "maps, with every GPU visible (/proc does not show the "
				       "process's own)");
	if (cvd)
		ct_finding_evidence(f, "CUDA_VISIBLE_DEVICES=%s", cvd);
	/* Not its CUDA_VISIBLE_DEVICES when cudatrace's cuInit saw every GPU and failed. */
	if (p->cuinit_probed)
		cvd = NULL;
	if (cvd && p->cuinit == 100 && hides_every_gpu(cvd) && ct_dx_clean_end(c)) {
		/* Asked to run without a GPU, and it did: worth knowing, not a failure. */
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "that value hides every GPU: it asks to run without one, and "
				       "the process went on to a clean end");
		ct_finding_fix(f, "nothing, if this process is meant to run without a GPU; to use "
				  "one, unset CUDA_VISIBLE_DEVICES or list devices that exist "
				  "(nvidia-smi -L)");
	} else if (cvd)
		ct_finding_fix(f, "CUDA_VISIBLE_DEVICES=%s hides GPUs from the process: unset it "
				  "or list devices that exist (nvidia-smi -L)",
			       cvd);
	else if (p->cuinit == 804)
		ct_finding_fix(f, "a forward-compatibility libcuda (cuda-compat) runs only on "
				  "data-center GPUs: take its directory off LD_LIBRARY_PATH");
	else if (p->cuinit == 803)
		ct_finding_fix(f, "the driver library and the kernel module are of different "
				  "versions: reinstall the driver, or reboot after an upgrade");
	else
		ct_finding_fix(f, "check that the machine has an NVIDIA GPU and that this process "
				  "may use it: nvidia-smi; in a container, start it with --gpus "
				  "all");
	for (i = 0; i < ndev && i < 8; i++)
		ct_finding_evidence(f, "GPU %zu: %s", i,
				    drv->gpus[i].name ? drv->gpus[i].name : "?");
	ct_dx_where(c, f);
}

/* ---- device code --------------------------------------------------------------- */

static void add_target(struct ct_diagnosis *d, const struct elfscan_target *t, const char *what)
{
	char name[ELFSCAN_ARCH_NAME_MAX];
	size_t i;

	for (i = 0; i < d->ntargets; i++)
		if (d->targets[i].major == t->major && d->targets[i].minor == t->minor &&
		    d->targets[i].variant == t->variant)
			return;
	if (d->ntargets == CT_MAX_TARGETS)
		return;
	elfscan_target_name(t, name, sizeof(name));
	d->targets[d->ntargets] = *t;
	if (what && *what)
		snprintf(d->target_names[d->ntargets], sizeof(d->target_names[0]), "%s (%.32s)",
			 name, what);
	else
		snprintf(d->target_names[d->ntargets], sizeof(d->target_names[0]), "%s", name);
	d->ntargets++;
}

static void trace_targets(struct ct_diagnosis *d, const struct ct_trace *t)
{
	size_t i, k;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_driver_rec *drv = &t->procs[i].driver;

		for (k = 0; k < drv->ngpus; k++) {
			struct elfscan_target tg;

			if (elfscan_target_parse(drv->gpus[k].cc ? drv->gpus[k].cc : "", &tg) == 0)
				add_target(d, &tg, drv->gpus[k].name);
		}
	}
	d->targets_from_trace = d->ntargets > 0;
}

static void archs_words(const struct elfscan_file *f, char *buf, size_t size)
{
	struct ct_summary s;

	ct_summary_build(&s, f, 0, f->nimages);
	ct_summary_oneline(&s, buf, size);
	ct_summary_release(&s);
}

/*
 * What a file's device code gives each target, worked out once per file:
 * every rank of a job maps the same libraries, and libtorch_cuda holds
 * thousands of images.
 */
static const struct ct_devfile *judge_code(struct ct_diagnosis *d, const char *path)
{
	struct ct_devcode *c = code_of(d, path);
	struct ct_devfile *f;
	size_t k, t;

	if (!c || !c->file->ok || c->sibling)
		return NULL;
	f = c->file;
	if (f->judged)
		return f;
	archs_words(&f->f, f->archs, sizeof(f->archs));
	for (k = 0; k < f->f.nimages; k++)
		f->runnable |= f->f.images[k].kind == ELFSCAN_KIND_SASS ||
			       f->f.images[k].kind == ELFSCAN_KIND_PTX;
	for (t = 0; t < d->ntargets; t++) {
		struct ct_verdict v;

		ct_verdict_judge(&v, &f->f, &d->targets[t], ct_cuda_library_per_gpu(ct_dx_base(path)));
		f->verdicts[t] = v.verdict;
		f->picks[t] = v.image;
		for (k = 0; k < v.npicks && v.verdict == CT_VERDICT_PTX_JIT; k++)
			if (v.picks[k].kind == ELFSCAN_KIND_PTX) {
				f->picks[t] = v.picks[k].image;
				break;
			}
		f->ptx_only[t] = v.ptx_jit;
		f->modules[t] = v.modules;
		ct_verdict_release(&v);
	}
	f->judged = true;
	return f;
}

/* Does the object link PyTorch (libtorch, libc10)? 1, 0, or -1 when its file is unreadable. */
static int links_torch(const struct ctx *c, const char *path)
{
	const struct ct_elfinfo *e = ct_dx_elfinfo(c, path);
	size_t i;

	if (!e)
		return -1;
	for (i = 0; i < e->nneeded; i++)
		if (ct_library_torch(e->needed[i]))
			return 1;
	return 0;
}

static void rule_device_code(struct ctx *c)
{
	struct ct_diagnosis *d = c->d;
	const struct ct_proc *p = c->p;
	int64_t driver = p->driver.version;
	size_t i, t;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		const struct ct_devfile *code;
		const struct elfscan_file *f;
		const char *archs;
		char need[32], have[32], gencode[512];

		if (o->shim || !(code = judge_code(d, o->path)))
			continue;
		f = &code->f;
		archs = code->archs;
		for (t = 0; t < d->ntargets; t++) {
			const struct elfscan_target *tg = &d->targets[t];
			long pick = code->picks[t];
			struct ct_finding *fd;

			if (!code->runnable)
				break;
			if (code->verdicts[t] == CT_VERDICT_NO_IMAGE) {
				fd = ct_finding_add(&d->findings, CT_F_NO_KERNEL_IMAGE, o->path,
						    "'%s' has no kernel image for %s", ct_dx_base(o->path),
						    d->target_names[t]);
				ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
				ct_finding_evidence(fd, "SASS sm_XY runs on X.Z for Z >= Y, sm_XYf within "
							"major X, sm_XYa only on X.Y; plain PTX on any "
							"later GPU");
				ct_finding_evidence(fd, "kernel launches fail with \"no kernel image is "
							"available for execution on the device\"");
				ct_finding_fix(fd, "rebuild %s with %s, or install a build that has it",
					       ct_dx_base(o->path),
					       ct_arch_build_words(tg->major, tg->minor,
								   links_torch(c, o->path), gencode,
								   sizeof(gencode)));
				ct_dx_where(c, fd);
				continue;
			}
			if (code->verdicts[t] != CT_VERDICT_PTX_JIT || pick < 0 ||
			    f->images[pick].kind != ELFSCAN_KIND_PTX)
				continue;
			{
				const struct elfscan_image *img = &f->images[pick];
				int isa = ct_ptx_isa_cuda(img->version_major, img->version_minor);
				char name[ELFSCAN_ARCH_NAME_MAX];

				elfscan_image_arch_name(img, name, sizeof(name));
				if (driver > 0 && !ct_ptx_driver_reads(img->version_major,
								       img->version_minor,
								       (int)driver)) {
					fd = ct_finding_add(&d->findings, CT_F_PTX_TOO_NEW, o->path,
							    "'%s' can run on %s only through %s PTX of ISA "
							    "%u.%u, newer than the driver (CUDA %s) compiles",
							    ct_dx_base(o->path), d->target_names[t], name,
							    img->version_major, img->version_minor,
							    ct_cuda_version_words((int)driver, have,
										  sizeof(have)));
					ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
					if (isa > 0) {
						int newer;
						const char *linux_driver = ct_toolkit_driver(isa, &newer);

						ct_finding_evidence(fd, "PTX ISA %u.%u needs a driver for "
									"CUDA %s (Linux %s or newer)",
								    img->version_major, img->version_minor,
								    ct_cuda_version_words(isa, need,
											  sizeof(need)),
								    linux_driver ? linux_driver : "?");
					}
					ct_finding_evidence(fd, "loading it (with lazy loading: its first "
								"kernel launch) fails with \"the provided "
								"PTX was compiled with an unsupported "
								"toolchain\" (222)");
					ct_finding_fix(fd, "upgrade the driver (to CUDA %s or later), or "
							   "rebuild %s with SASS for %u.%u",
						       isa > 0 ? need : "the PTX's", ct_dx_base(o->path),
						       tg->major, tg->minor);
					ct_dx_where(c, fd);
					continue;
				}
				/*
				 * NVIDIA ships its own libraries with PTX for some
				 * kernels by design (cuFFT 13: 8131 of 11256 fatbins
				 * on 9.0; cuFile: no SASS for 9.0 at all), and no one
				 * but NVIDIA can add SASS: a warning with nothing to
				 * fix, in every PyTorch run. The device code table
				 * (-v) still shows it.
				 */
				if (ct_cuda_library(ct_dx_base(o->path)))
					continue;
				fd = ct_finding_add(&d->findings, CT_F_PTX_JIT_ONLY, o->path,
						    "'%s' runs on %s only by JIT-compiling %s PTX at "
						    "first launch",
						    ct_dx_base(o->path), d->target_names[t], name);
				ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
				if (code->modules[t] > 1)
					ct_finding_evidence(fd, "%zu of its %zu fatbins run only as PTX",
							    code->ptx_only[t], code->modules[t]);
				ct_finding_evidence(fd, "the first launch is slow (the JIT cache is "
							"~/.nv/ComputeCache)");
				ct_finding_fix(fd, "add SASS for %u.%u with %s", tg->major, tg->minor,
					       ct_arch_build_words(tg->major, tg->minor,
								   links_torch(c, o->path), gencode,
								   sizeof(gencode)));
				ct_dx_where(c, fd);
			}
		}
	}
}

/* What the driver said of the device code it was handed. */
/* The first GPU the process saw, as a target; false when none was recorded. */
static bool first_gpu(const struct ct_proc *p, struct elfscan_target *t, const char **name)
{
	const struct ct_gpu_rec *g = p->driver.ngpus ? &p->driver.gpus[0] : NULL;

	if (!g || elfscan_target_parse(g->cc ? g->cc : "", t) != 0)
		return false;
	*name = g->name ? g->name : "the GPU";
	return true;
}

static void rule_modules(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t i;

	for (i = 0; i < p->nmodules; i++) {
		const struct ct_module *m = &p->modules[i];
		enum ct_finding_code code;
		struct elfscan_target gpu;
		const char *gpu_name = NULL;
		struct ct_finding *f;
		char archs[256], text[256], gencode[512];
		size_t n;

		if (m->registration || m->result == 0)
			continue;
		if (m->result == 209 || m->result == 200 || m->result == 223)
			code = CT_F_NO_KERNEL_IMAGE;
		else if (m->result == 222)
			code = CT_F_PTX_TOO_NEW;
		else if (m->result == 35)
			code = CT_F_DRIVER_TOO_OLD;
		else
			continue;
		ct_module_images_words(c->d, m, archs, sizeof(archs));
		/* CUDA's texts end with a full stop; ours go on after them. */
		snprintf(text, sizeof(text), "%s", ct_cu_error_text((int)m->result));
		n = strlen(text);
		if (n && text[n - 1] == '.')
			text[n - 1] = '\0';
		f = ct_finding_add(&c->d->findings, code, m->caller, "%s by '%s' failed: %s (%lld)",
				   m->api, ct_dx_base(m->caller), text, (long long)m->result);
		if (m->file)
			ct_finding_evidence(f, "file: %s", m->file);
		/* The shim reads images only when it could: say so, not "unreadable". */
		ct_finding_evidence(f, "the image holds: %s", archs[0] ? archs : "(not read)");
		if (p->driver.present)
			ct_finding_evidence(f, "driver: %s, supports CUDA %lld.%lld",
					    p->driver.path ? p->driver.path : "?",
					    (long long)(p->driver.version / 1000),
					    (long long)(p->driver.version % 1000 / 10));
		if (m->result == 223)
			ct_finding_fix(f, "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT=1?): allow it, or "
					  "ship SASS for the GPU");
		else if (code == CT_F_NO_KERNEL_IMAGE && first_gpu(p, &gpu, &gpu_name))
			ct_finding_fix(f, "rebuild the code %s loads for sm_%u%u (%s) with %s",
				       ct_dx_base(m->caller), gpu.major, gpu.minor, gpu_name,
				       ct_arch_gencode_words(gpu.major, gpu.minor, gencode,
							     sizeof(gencode)));
		else if (code == CT_F_NO_KERNEL_IMAGE)
			ct_finding_fix(f, "rebuild the code %s loads with SASS (or PTX) for the GPU: "
					  "-gencode arch=compute_XY,code=sm_XY for its compute "
					  "capability",
				       ct_dx_base(m->caller));
		else if (code == CT_F_PTX_TOO_NEW)
			ct_finding_fix(f, "upgrade the driver, or ship SASS for the GPU so that no "
					  "PTX needs compiling");
		else
			ct_driver_fix(f, 0, cuda_of(p->driver.version), NULL, NULL, ct_dx_python(c));
		ct_dx_where(c, f);
	}
}

/* ---- the whole trace ------------------------------------------------------------- */

void ct_diagnose(struct ct_diagnosis *d, const struct ct_trace *t,
		 const struct elfscan_target *targets, size_t ntargets,
		 const struct ct_loader *machine)
{
	size_t i, k;

	memset(d, 0, sizeof(*d));
	ct_findings_init(&d->findings);
	d->syms = ct_symcache_new();
	for (i = 0; i < ntargets; i++)
		add_target(d, &targets[i], NULL);
	if (!ntargets)
		trace_targets(d, t);
	/* The device code of every object, once, for the rules and the printers. */
	for (i = 0; i < t->nprocs; i++)
		for (k = 0; k < t->procs[i].nobjects; k++)
			if (!t->procs[i].objects[k].shim)
				scan_code(d, t->procs[i].objects[k].path);
	for (i = 0; i < t->nprocs; i++) {
		struct ctx c;

		memset(&c, 0, sizeof(c));
		c.d = d;
		c.p = &t->procs[i];
		c.L = machine;
		describe_proc(&c);
		ct_dx_mapped_init(&c);
		rule_incomplete(&c);
		ct_dx_rule_proc_read(&c);
		rule_driver_missing(&c);
		rule_driver(&c);
		ct_dx_rule_not_found(&c);
		ct_dx_rule_shadowed(&c);
		ct_dx_rule_mixed(&c);
		ct_dx_rule_symbol_versions(&c);
		ct_dx_rule_symbol_missing(&c);
		ct_dx_rule_builds(&c);
		rule_modules(&c);
		rule_device_code(&c);
		ct_dx_mapped_release(&c);
	}
	ct_findings_group(&d->findings);
}

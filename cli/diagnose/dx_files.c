/*
 * What the rules share about a file (diag_internal.h): each file of the
 * trace read once, before any rule runs, and what is worked out of it
 * kept with it: its dynamic section and device code, its DT_SONAME, its
 * version, check's verdicts on its device code, its build (the slot
 * builds.c fills), the kind of search its dynamic section made. The paths
 * that name one file (by device and inode on this machine: a symlinked
 * /lib, a library reached two ways) share it, and a job's ranks ask the
 * same files. Also what the printers ask of the files (diagnose.h). The
 * engine and the rules call these; these call no rule and not the engine.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag_internal.h"
#include "diagnose.h"
#include "elfinfo.h"
#include "elfscan.h"
#include "libfacts.h"
#include "libnames.h"
#include "summary.h"
#include "util.h"
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
	bool judged;              /* verdicts worked out (ct_dx_file_verdicts) */
	struct ct_file_verdicts verdicts;
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

void ct_dx_file_read(struct ct_diagnosis *d, const char *path)
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
		ct_dx_file_read(d, path);
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

/* ---- what is worked out of a file, once -------------------------------------- */

/* A library's version (ct_library_version_read), by path. */
struct ct_dx_version {
	char *path;
	char *version;
	UT_hash_handle hh;
};

const char *ct_dx_version(struct ctx *c, const char *path, char *buf, size_t size)
{
	struct ct_dx_version *e;

	HASH_FIND_STR(c->d->versions, path, e);
	if (!e) {
		const struct ct_elfinfo *info = ct_dx_elfinfo_scan(c, path);
		char v[PATH_MAX];

		/* realpath: a readlink per part of the path, for every process that maps it. */
		e = ct_xcalloc(1, sizeof(*e));
		e->path = ct_xstrdup(path);
		ct_library_version_read(path, info ? info->soname : NULL, v, sizeof(v));
		e->version = ct_xstrdup(v);
		HASH_ADD_KEYPTR(hh, c->d->versions, e->path, strlen(e->path), e);
	}
	if (size)
		snprintf(buf, size, "%s", e->version);
	return buf;
}

const char *ct_dx_release(struct ctx *c, const char *path, char *buf, size_t size)
{
	ct_dx_version(c, path, buf, size);
	if (size && !strchr(buf, '.'))
		buf[0] = '\0';
	return buf;
}

static void versions_free(struct ct_dx_version *all)
{
	struct ct_dx_version *e, *tmp;

	HASH_ITER(hh, all, e, tmp) {
		HASH_DEL(all, e);
		free(e->path);
		free(e->version);
		free(e);
	}
}

const char *ct_dx_soname(const struct ctx *c, const struct ct_loaded *o)
{
	return ct_diagnosis_soname(c->d, o);
}

bool ct_dx_renamed(const struct ctx *c, const struct ct_loaded *o)
{
	return ct_library_renamed(o->path, ct_dx_soname(c, o));
}

static void archs_words(const struct elfscan_file *f, char *buf, size_t size)
{
	struct ct_summary s;

	ct_summary_build(&s, f, 0, f->nimages);
	ct_summary_oneline(&s, buf, size);
	ct_summary_release(&s);
}

/*
 * Worked out once per file: every rank of a job maps the same libraries,
 * and libtorch_cuda holds thousands of images.
 */
const struct ct_file_verdicts *ct_dx_file_verdicts(struct ctx *c, const char *path)
{
	struct ct_diagnosis *d = c->d;
	struct ct_devcode *k = code_of(d, path);
	struct ct_file_verdicts *j;
	struct ct_devfile *f;
	size_t i, t;

	if (!k || !k->file->ok || k->sibling)
		return NULL;
	f = k->file;
	j = &f->verdicts;
	if (f->judged)
		return j;
	j->code = &f->f;
	archs_words(&f->f, j->archs, sizeof(j->archs));
	for (i = 0; i < f->f.nimages; i++)
		j->runnable |= f->f.images[i].kind == ELFSCAN_KIND_SASS ||
			       f->f.images[i].kind == ELFSCAN_KIND_PTX;
	for (t = 0; t < d->ntargets; t++) {
		struct ct_verdict v;

		ct_verdict_judge(&v, &f->f, &d->targets[t], ct_cuda_library_per_gpu(ct_dx_base(path)));
		j->verdicts[t] = v.verdict;
		j->picks[t] = v.image;
		for (i = 0; i < v.npicks && v.verdict == CT_VERDICT_PTX_JIT; i++)
			if (v.picks[i].kind == ELFSCAN_KIND_PTX) {
				j->picks[t] = v.picks[i].image;
				break;
			}
		j->ptx_only[t] = v.ptx_jit;
		j->modules[t] = v.modules;
		ct_verdict_release(&v);
	}
	f->judged = true;
	return j;
}

/* ---- what the rules and the printers ask (diagnose.h) -------------------------- */

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

void ct_dx_files_release(struct ct_diagnosis *d)
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
	versions_free(d->versions);
	d->versions = NULL;
}

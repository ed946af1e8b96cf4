/*
 * Device code, for the report model: each process's arch matrix (the
 * text's), the device code of its objects as JSON says it, and the images
 * of its module loads in words. What a file holds is worked out once for
 * every process that loads it (a job's ranks load the same files), and so
 * is what a module read from a file holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "elfscan.h"
#include "model_internal.h"
#include "summary.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* Each image arch of a file with SASS or PTX, for a column of the matrix. */
struct arch_code {
	unsigned arch;
	bool sass, ptx;
};

/*
 * The matrix's archs: a process keeps the first MATRIX_ARCHS it meets, so
 * a file's first 2 * MATRIX_ARCHS are all it can add (at most
 * MATRIX_ARCHS - 1 of them are there already while there is room).
 */
#define MATRIX_ARCHS 64
#define FILE_ARCHS (2 * MATRIX_ARCHS)

/* A file's device code as the matrix and JSON show it, worked out once for every process. */
struct ct_rm_files {
	const struct elfscan_file *f;
	struct arch_code *code;   /* every arch with SASS or PTX, sorted */
	size_t ncode;
	unsigned order[FILE_ARCHS]; /* those archs as first seen in the file */
	size_t norder;
	long pick[CT_MAX_TARGETS]; /* the image the driver picks for each target */
	const struct ct_rm_code *json; /* JSON's words, in the model; NULL: not yet */
	UT_hash_handle hh;
};

/* The archs of a module's images read from its file, by where they are. */
struct ct_rm_modwords {
	char *key;   /* "offset size object" */
	char words[512];
	UT_hash_handle hh;
};

void ct_rm_code_forget(struct ct_rm_build *b)
{
	HASH_CLEAR(hh, b->files);
	HASH_CLEAR(hh, b->modwords);
}

static int code_cmp(const void *a, const void *b)
{
	const struct arch_code *x = a, *y = b;

	return x->arch < y->arch ? -1 : x->arch > y->arch;
}

static struct arch_code *code_find(const struct ct_rm_files *fc, unsigned arch)
{
	struct arch_code key = { arch, false, false };

	return fc->ncode ? bsearch(&key, fc->code, fc->ncode, sizeof(key), code_cmp) : NULL;
}

/* f's archs and picks, from the cache or worked out now. */
static struct ct_rm_files *cols_of(struct ct_rm_build *b, const struct elfscan_file *f)
{
	const struct ct_diagnosis *d = b->d;
	struct ct_rm_files *fc;
	size_t k, n = 0;
	bool *seen;

	HASH_FIND_PTR(b->files, &f, fc);
	if (fc)
		return fc;
	fc = ct_rm_scratch(b, sizeof(*fc));
	fc->f = f;
	fc->code = ct_rm_scratch(b, (f->nimages + 1) * sizeof(*fc->code));
	for (k = 0; k < f->nimages; k++)
		if (f->images[k].kind == ELFSCAN_KIND_SASS || f->images[k].kind == ELFSCAN_KIND_PTX)
			fc->code[n++].arch = f->images[k].arch;
	qsort(fc->code, n, sizeof(*fc->code), code_cmp);
	for (k = 0; k < n; k++)
		if (!fc->ncode || fc->code[fc->ncode - 1].arch != fc->code[k].arch)
			fc->code[fc->ncode++] = fc->code[k];
	seen = ct_xcalloc(fc->ncode + 1, sizeof(*seen));
	for (k = 0; k < f->nimages; k++) {
		const struct elfscan_image *img = &f->images[k];
		struct arch_code *a;

		if (img->kind != ELFSCAN_KIND_SASS && img->kind != ELFSCAN_KIND_PTX)
			continue;
		a = code_find(fc, img->arch);
		a->sass |= img->kind == ELFSCAN_KIND_SASS;
		a->ptx |= img->kind == ELFSCAN_KIND_PTX;
		if (!seen[a - fc->code] && fc->norder < FILE_ARCHS) {
			seen[a - fc->code] = true;
			fc->order[fc->norder++] = img->arch;
		}
	}
	free(seen);
	for (k = 0; d && k < d->ntargets; k++)
		fc->pick[k] = elfscan_pick_image(f->images, f->nimages, &d->targets[k]);
	HASH_ADD_PTR(b->files, f, fc);
	return fc;
}

/* A file already seen, for first_loads. */
struct seen_path {
	const char *path;
	UT_hash_handle hh;
};

/*
 * Which objects are the first load of their file: a file loaded again
 * (dlopen, dlclose, dlopen) is one row. Returns an array of nobjects
 * flags; the caller frees it.
 */
static bool *first_loads(const struct ct_proc *p)
{
	struct seen_path *set = NULL, *e, *tmp;
	bool *first = ct_xcalloc(p->nobjects + 1, sizeof(*first));
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		HASH_FIND_STR(set, p->objects[i].path, e);
		if (e)
			continue;
		first[i] = true;
		e = ct_xcalloc(1, sizeof(*e));
		e->path = p->objects[i].path;
		HASH_ADD_KEYPTR(hh, set, e->path, strlen(e->path), e);
	}
	HASH_ITER(hh, set, e, tmp) {
		HASH_DEL(set, e);
		free(e);
	}
	return first;
}

/* PTX whose ISA the process's driver cannot compile (ptx-too-new). */
static bool ptx_too_new(const struct ct_proc *p, const struct elfscan_image *img)
{
	int64_t driver = p->driver.version;

	return driver > 0 &&
	       !ct_ptx_driver_reads(img->version_major, img->version_minor, (int)driver);
}

/* Does a file run SASS on every target? */
static bool runs_sass(const struct ct_rm_files *fc, const struct ct_diagnosis *d)
{
	size_t t;

	for (t = 0; t < d->ntargets; t++)
		if (fc->pick[t] < 0 || fc->f->images[fc->pick[t]].kind != ELFSCAN_KIND_SASS)
			return false;
	return true;
}

/* p's i-th object's device code, when it is a row of the matrix. */
static const struct elfscan_file *row_file(const struct ct_rm_build *b, const struct ct_proc *p,
					   size_t i, const bool *first)
{
	if (p->objects[i].shim || !first[i])
		return NULL;
	return ct_diagnosis_code(b->d, p->objects[i].path);
}

/*
 * The arch coverage matrix: a row per loaded object with device code (a
 * file loaded again is one row), a column per arch present, then what the
 * driver would run on each target; and which rows the brief form shows
 * (those that do not run SASS on every target, the first few).
 */
void ct_rm_matrix_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	const struct ct_diagnosis *d = b->d;
	struct ct_rm_matrix *mx = &out->matrix;
	unsigned archs[MATRIX_ARCHS];
	size_t narchs = 0, i, k, t, rows = 0;
	bool *first;

	if (!d)
		return;
	out->has_matrix = true;
	first = first_loads(p);
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f = row_file(b, p, i, first);
		const struct ct_rm_files *fc;

		if (!f)
			continue;
		rows++;
		fc = cols_of(b, f);
		for (k = 0; k < fc->norder; k++) {
			size_t j;

			for (j = 0; j < narchs && archs[j] != fc->order[k]; j++)
				;
			if (j == narchs && narchs < MATRIX_ARCHS) {
				/* Keep them sorted. */
				while (j > 0 && archs[j - 1] > fc->order[k]) {
					archs[j] = archs[j - 1];
					j--;
				}
				archs[j] = fc->order[k];
				narchs++;
			}
		}
	}
	mx->archs = ct_rm_dup(b->m, archs, narchs * sizeof(*archs));
	mx->narchs = narchs;
	mx->rows = ct_rm_calloc(b->m, rows, sizeof(*mx->rows));
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f = row_file(b, p, i, first);
		const struct ct_rm_files *fc;
		struct ct_rm_row *r;

		if (!f)
			continue;
		fc = cols_of(b, f);
		r = &mx->rows[mx->nrows++];
		r->name = ct_rm_str(b, ct_rm_base(p->objects[i].path));
		r->marks = ct_rm_calloc(b->m, narchs, 1);
		for (k = 0; k < narchs; k++) {
			const struct arch_code *a = code_find(fc, archs[k]);
			bool sass = a && a->sass, ptx = a && a->ptx;

			r->marks[k] = sass && ptx ? CT_RM_MARK_BOTH
				      : sass	  ? CT_RM_MARK_SASS
				      : ptx	  ? CT_RM_MARK_PTX
						  : CT_RM_MARK_NONE;
		}
		for (t = 0; t < d->ntargets; t++) {
			long pick = fc->pick[t];

			r->runs[t] = pick < 0 ? CT_RM_RUNS_NONE
				     : f->images[pick].kind == ELFSCAN_KIND_SASS ? CT_RM_RUNS_SASS
				     : ptx_too_new(p, &f->images[pick]) ? CT_RM_RUNS_PTX_TOO_NEW
									 : CT_RM_RUNS_PTX;
		}
		r->sass_everywhere = d->ntargets && runs_sass(fc, d);
		if (r->sass_everywhere) {
			mx->good++;
		} else if (d->ntargets && mx->nbrief < CT_REPORT_MATRIX_ROWS) {
			r->brief = true;
			mx->nbrief++;
		}
	}
	free(first);
}

/* f's device code in JSON's words, once per file. */
static const struct ct_rm_code *json_code(struct ct_rm_build *b, const struct elfscan_file *f)
{
	const struct ct_diagnosis *d = b->d;
	struct ct_rm_files *fc = cols_of(b, f);
	struct ct_rm_code *c;
	struct ct_summary s;
	char words[1024];
	size_t t;

	if (fc->json)
		return fc->json;
	c = ct_rm_calloc(b->m, 1, sizeof(*c));
	c->images = f->nimages;
	ct_summary_build(&s, f, 0, f->nimages);
	c->sass = ct_rm_keep(b->m, ct_summary_archs(&s, ELFSCAN_KIND_SASS, words, sizeof(words)));
	c->ptx = ct_rm_keep(b->m, ct_summary_archs(&s, ELFSCAN_KIND_PTX, words, sizeof(words)));
	c->ltoir = ct_rm_keep(b->m, ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, words, sizeof(words)));
	ct_summary_release(&s);
	c->verdicts = ct_rm_calloc(b->m, d->ntargets, sizeof(*c->verdicts));
	c->nverdicts = d->ntargets;
	for (t = 0; t < d->ntargets; t++) {
		long pick = fc->pick[t];
		char name[ELFSCAN_ARCH_NAME_MAX];

		c->verdicts[t].target =
			ct_rm_keep(b->m, elfscan_target_name(&d->targets[t], name, sizeof(name)));
		c->verdicts[t].verdict = pick < 0 ? "no-image"
					 : f->images[pick].kind == ELFSCAN_KIND_SASS ? "sass"
										     : "ptx-jit";
		c->verdicts[t].image =
			pick >= 0 ? ct_rm_keep(b->m, elfscan_image_arch_name(&f->images[pick], name,
									 sizeof(name)))
				  : NULL;
	}
	fc->json = c;
	return c;
}

void ct_rm_code_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nobjects; i++)
		n += !p->objects[i].shim && ct_diagnosis_code(b->d, p->objects[i].path);
	out->code = ct_rm_calloc(b->m, n, sizeof(*out->code));
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f;

		if (p->objects[i].shim || !(f = ct_diagnosis_code(b->d, p->objects[i].path)))
			continue;
		out->code[out->ncode].object = ct_rm_str(b, p->objects[i].path);
		out->code[out->ncode++].code = json_code(b, f);
	}
}

const char *ct_rm_module_words(struct ct_rm_build *b, const struct ct_module *m)
{
	struct ct_rm_modwords *e;
	char buf[512], *key;
	int n;

	if (m->nimages || !m->object || m->offset < 0)
		return ct_rm_keep(b->m, ct_module_images_words(b->d, m, buf, sizeof(buf)));
	/* Asked for hundreds of modules a rank: the key is kept only when it is new. */
	if (asprintf(&key, "%lld %lld %s", (long long)m->offset, (long long)m->size, m->object) < 0)
		ct_out_of_memory();
	HASH_FIND_STR(b->modwords, key, e);
	if (!e) {
		n = (int)strlen(key);
		e = ct_rm_scratch(b, sizeof(*e));
		e->key = memcpy(ct_rm_scratch(b, (size_t)n + 1), key, (size_t)n + 1);
		ct_module_images_words(b->d, m, e->words, sizeof(e->words));
		HASH_ADD_KEYPTR(hh, b->modwords, e->key, strlen(e->key), e);
	}
	free(key);
	return ct_rm_keep(b->m, e->words);
}

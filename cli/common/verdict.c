/* check's verdict, fatbin by fatbin; see verdict.h. */
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "util.h"
#include "verdict.h"

const char *ct_verdict_name(enum ct_verdict_kind v)
{
	static const char *const names[] = { "sass",        "ptx-jit",        "no-image",
					     "no-device-code", "ptx-too-new", "no-gpu-support",
					     "driver-too-old" };

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

/* One image of one fatbin, to be counted. */
struct seen {
	unsigned kind, arch;
	enum elfscan_variant variant;
	size_t fatbin;
	long image;
};

static int kind_order(unsigned kind)
{
	return kind == ELFSCAN_KIND_SASS ? 0 : kind == ELFSCAN_KIND_PTX ? 1 : 2;
}

/* SASS before PTX, the higher arch first, 'a' before 'f' before none. */
static int cmp_key(unsigned k1, unsigned a1, enum elfscan_variant v1, unsigned k2, unsigned a2,
		   enum elfscan_variant v2)
{
	static const int vorder[] = { 2, 0, 1 };

	if (kind_order(k1) != kind_order(k2))
		return kind_order(k1) - kind_order(k2);
	if (k1 != k2)
		return k1 < k2 ? -1 : 1;
	if (a1 != a2)
		return a1 > a2 ? -1 : 1;
	return vorder[v1 <= ELFSCAN_VARIANT_F ? v1 : 0] - vorder[v2 <= ELFSCAN_VARIANT_F ? v2 : 0];
}

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = cmp_key(x->kind, x->arch, x->variant, y->kind, y->arch, y->variant);

	if (c)
		return c;
	return x->fatbin < y->fatbin ? -1 : x->fatbin > y->fatbin;
}

static int cmp_count(const void *a, const void *b)
{
	const struct ct_image_count *x = a, *y = b;

	if (x->fatbins != y->fatbins)
		return x->fatbins > y->fatbins ? -1 : 1;
	return cmp_key(x->kind, x->arch, x->variant, y->kind, y->arch, y->variant);
}

/*
 * The fatbins each image is in, counted once per fatbin: sorted, so the
 * cost is n log n whatever the file holds.
 */
static struct ct_image_count *count(struct seen *s, size_t n, size_t *nout)
{
	struct ct_image_count *out = ct_xcalloc(n ? n : 1, sizeof(*out));
	size_t i, k = 0;

	qsort(s, n, sizeof(*s), cmp_seen);
	for (i = 0; i < n; i++) {
		bool same_key = i > 0 && !cmp_key(s[i].kind, s[i].arch, s[i].variant,
						  s[i - 1].kind, s[i - 1].arch, s[i - 1].variant);

		if (!same_key) {
			out[k].kind = s[i].kind;
			out[k].arch = s[i].arch;
			out[k].variant = s[i].variant;
			out[k].image = s[i].image;
			k++;
		}
		if (!same_key || s[i].fatbin != s[i - 1].fatbin)
			out[k - 1].fatbins++;
	}
	qsort(out, k, sizeof(*out), cmp_count);
	*nout = k;
	return out;
}

static void add(struct seen *s, size_t *n, const struct elfscan_image *images, long i,
		size_t fatbin)
{
	s[*n].kind = images[i].kind;
	s[*n].arch = images[i].arch;
	s[*n].variant = images[i].variant;
	s[*n].fatbin = fatbin;
	s[*n].image = i;
	(*n)++;
}

/* A container of __nv_relfatbin: one translation unit's -rdc code. */
static bool relocatable(const struct elfscan_file *f, const struct elfscan_container *ct)
{
	return ct->section < f->nsections && f->sections[ct->section].name &&
	       strcmp(f->sections[ct->section].name, "__nv_relfatbin") == 0;
}

/* The container -rdc's device link made (__cudaRegisterLinkedBinary). */
static bool linked(const struct elfscan_container *ct)
{
	return ct->registered && ct->wrapper_version == 2;
}

/*
 * A linked container without an image for t: cudart hands the driver its
 * prelinked fatbins (the wrapper's second pointer: every translation
 * unit's __nv_relfatbin container) to JIT-link instead, which works when
 * each has an image for t. Returns the image picked in the first, one of
 * PTX where there is one, or -1.
 */
static long jit_link_pick(const struct elfscan_file *f, const struct elfscan_target *t)
{
	long first = -1;
	size_t c, inputs = 0;

	for (c = 0; c < f->ncontainers; c++) {
		const struct elfscan_container *ct = &f->containers[c];
		long pick;

		if (!relocatable(f, ct) || ct->first_image > f->nimages ||
		    ct->nimages > f->nimages - ct->first_image)
			continue;
		inputs++;
		pick = elfscan_pick_image(f->images + ct->first_image, ct->nimages, t);
		if (pick < 0)
			return -1;
		pick += (long)ct->first_image;
		if (first < 0 || (f->images[first].kind != ELFSCAN_KIND_PTX &&
				  f->images[pick].kind == ELFSCAN_KIND_PTX))
			first = pick;
	}
	return inputs ? first : -1;
}

void ct_verdict_judge(struct ct_verdict *v, const struct elfscan_file *f,
		      const struct elfscan_target *t, bool per_gpu_library)
{
	struct ct_verdict_opts o = { .per_gpu_library = per_gpu_library };

	ct_verdict_judge_opts(v, f, t, &o);
}

void ct_verdict_judge_driver(struct ct_verdict *v, const struct elfscan_file *f,
			     const struct elfscan_target *t, bool per_gpu_library, int driver)
{
	struct ct_verdict_opts o = { .per_gpu_library = per_gpu_library, .driver = driver };

	ct_verdict_judge_opts(v, f, t, &o);
}

/*
 * A fatbin whose picked PTX the driver cannot read is judged on that PTX
 * alone; no fallback to other PTX in the fatbin is assumed. NVIDIA
 * documents the pick (the best image for the GPU) and, for PTX of a newer
 * ISA, the failure of the load (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222),
 * not a second choice; and nvcc writes every PTX of one fatbin with its
 * own ISA, so in what nvcc builds there is no older PTX to fall back to.
 * Run mode judges the same pick (ptx-too-new, cli/diagnose/diag_devcode.c).
 */
static void count_pick(struct ct_verdict *v, const struct elfscan_image *img, int driver)
{
	if (img->kind == ELFSCAN_KIND_SASS) {
		v->sass++;
		return;
	}
	if (driver > 0 && !ct_ptx_driver_reads(img->version_major, img->version_minor, driver))
		v->ptx_too_new++;
	else
		v->ptx_jit++;
	if (img->version_major > v->ptx_isa_major ||
	    (img->version_major == v->ptx_isa_major && img->version_minor > v->ptx_isa_minor)) {
		v->ptx_isa_major = img->version_major;
		v->ptx_isa_minor = img->version_minor;
	}
}

void ct_verdict_judge_opts(struct ct_verdict *v, const struct elfscan_file *f,
			   const struct elfscan_target *t, const struct ct_verdict_opts *o)
{
	bool per_gpu_library = o->per_gpu_library;
	size_t n = f->nimages ? f->nimages : 1, npicks = 0, nmissing = 0, nother = 0;
	struct seen *picks = ct_xmalloc(n * sizeof(*picks));
	struct seen *missing = ct_xmalloc(n * sizeof(*missing));
	struct seen *other = ct_xmalloc(n * sizeof(*other));
	bool device_code = false, has_linked = false;
	size_t c, k;

	memset(v, 0, sizeof(*v));
	v->image = -1;
	for (k = 0; k < f->nimages; k++)
		device_code |= f->images[k].kind == ELFSCAN_KIND_SASS ||
			       f->images[k].kind == ELFSCAN_KIND_PTX ||
			       f->images[k].kind == ELFSCAN_KIND_LTOIR;
	for (c = 0; c < f->ncontainers; c++)
		has_linked |= linked(&f->containers[c]);
	for (c = 0; c < f->ncontainers; c++) {
		const struct elfscan_container *ct = &f->containers[c];
		size_t first = ct->first_image, end = first + ct->nimages, loadable = 0;
		bool specific = true;
		long pick;

		if (first > f->nimages || ct->nimages > f->nimages - first)
			continue;
		for (k = first; k < end; k++) {
			if (f->images[k].kind == ELFSCAN_KIND_LTOIR)
				continue;
			loadable++;
			specific &= f->images[k].variant == ELFSCAN_VARIANT_A ||
				    f->images[k].variant == ELFSCAN_VARIANT_F;
		}
		/* LTO-IR-only containers are nvJitLink inputs, never modules. */
		if (!loadable)
			continue;
		/* Beside a linked container, -rdc's inputs are only linked. */
		if (has_linked && relocatable(f, ct)) {
			v->link_inputs++;
			continue;
		}
		pick = elfscan_pick_image(f->images + first, ct->nimages, t);
		if (pick >= 0)
			pick += (long)first;
		else if (linked(ct))
			pick = jit_link_pick(f, t);
		/*
		 * A fatbin that defines no kernel cannot fail a launch: it is
		 * left out. Asked only of the fatbins that would fail
		 * (reading kernels decompresses): without an image, and not
		 * for other GPUs by design unless those fail too.
		 */
		if (pick < 0 && (o->kernels_of_other_gpus || !(specific || per_gpu_library)) &&
		    elfscan_container_has_kernel(f, c) == 0) {
			v->without_kernels++;
			continue;
		}
		v->modules++;
		if (pick >= 0) {
			/* A JIT link compiles, even of relocatable SASS. */
			if (f->images[pick].kind == ELFSCAN_KIND_SASS &&
			    f->images[pick].container != c)
				v->ptx_jit++;
			else
				count_pick(v, &f->images[pick], o->driver);
			add(picks, &npicks, f->images, pick, c);
			continue;
		}
		if (specific || per_gpu_library) {
			v->other_gpus++;
			v->other_specific += specific;
		} else {
			v->no_image++;
		}
		for (k = first; k < end; k++)
			if (f->images[k].kind != ELFSCAN_KIND_LTOIR) {
				if (specific || per_gpu_library)
					add(other, &nother, f->images, (long)k, c);
				else
					add(missing, &nmissing, f->images, (long)k, c);
			}
	}
	/*
	 * Nothing runs, and every fatbin that does not is for other GPUs by
	 * design: whether those define kernels decides between no-image and
	 * no device code at all (cuFFTW's one sm_75 cubin defines none, and
	 * NVIDIA ships it for every GPU). Judged again with their kernels
	 * read: only such a file pays the decompression.
	 */
	if (!o->kernels_of_other_gpus && v->other_gpus && !v->no_image && !v->sass &&
	    !v->ptx_jit && !v->ptx_too_new) {
		struct ct_verdict_opts again = *o;

		again.kernels_of_other_gpus = true;
		free(picks);
		free(missing);
		free(other);
		ct_verdict_judge_opts(v, f, t, &again);
		return;
	}
	v->picks = count(picks, npicks, &v->npicks);
	v->missing = count(missing, nmissing, &v->nmissing);
	v->other = count(other, nother, &v->nother);
	if (v->npicks)
		v->image = v->picks[0].image;
	if (!device_code || (!v->modules && v->without_kernels))
		v->verdict = CT_VERDICT_NO_DEVICE_CODE;
	else if (!v->sass && !v->ptx_jit && !v->ptx_too_new)
		v->verdict = CT_VERDICT_NO_IMAGE;
	else if (v->no_image)
		v->verdict = CT_VERDICT_NO_IMAGE;
	else if (v->ptx_too_new)
		v->verdict = CT_VERDICT_PTX_TOO_NEW;
	else if (v->ptx_jit)
		v->verdict = CT_VERDICT_PTX_JIT;
	else
		v->verdict = CT_VERDICT_SASS;
	free(picks);
	free(missing);
	free(other);
}

void ct_verdict_release(struct ct_verdict *v)
{
	free(v->picks);
	free(v->missing);
	free(v->other);
	memset(v, 0, sizeof(*v));
	v->image = -1;
}

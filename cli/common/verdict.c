/* check's verdict, fatbin by fatbin; see verdict.h. */
#include <errno.h>
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
 * A container the program loads itself: found by the magic scan outside
 * the fatbin sections (.rodata, .lrodata, .ldata), and no .nvFatBinSegment
 * wrapper points at it, so the CUDA runtime never registers it. Code
 * handed to cuModuleLoadData or cuLibraryLoadData by the program's own
 * calls, which choose it per GPU: PyTorch 2.15's libtorch_cuda.so keeps
 * its CuTe DSL top-k kernels so, 29 containers of sm_90 only and 29 of
 * sm_100 only in .lrodata, and on any GPU one set has no image.
 */
static bool program_loaded(const struct elfscan_file *f, const struct elfscan_container *ct)
{
	return f->type == ELFSCAN_FILE_ELF && ct->found == ELFSCAN_FOUND_MAGIC && !ct->registered;
}

/*
 * Is the image picked PTX of an arch the container holds SASS for: the
 * build for another GPU (-gencode arch=compute_90,code=[sm_90,compute_90]),
 * its PTX kept for GPUs to come?
 */
static bool ptx_beside_its_sass(const struct elfscan_file *f, size_t first, size_t end, long pick)
{
	size_t k;

	if (f->images[pick].kind != ELFSCAN_KIND_PTX)
		return false;
	for (k = first; k < end; k++)
		if (f->images[k].kind == ELFSCAN_KIND_SASS && f->images[k].arch == f->images[pick].arch)
			return true;
	return false;
}

/*
 * Kernels by what they instantiate: a mangled name up to its template
 * arguments ("_Z12geqr4_kernelI6float2Li1024ELi10E..." is "geqr4_kernel",
 * "_ZN3cub6detail6kernelI..." "cub::detail::kernel"), any other name
 * whole. A per-GPU library tunes one template per GPU: cuSOLVER 12.2's
 * sm_90 fatbin instantiates geqr4_kernel<float2, 1024, 10, 2, ...>, its
 * sm_100 one <float2, 1024, 12, 4, ...>.
 */
struct bases {
	char **v;
	size_t n, cap;
};

static bool bases_has(const struct bases *b, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (strlen(b->v[i]) == len && memcmp(b->v[i], name, len) == 0)
			return true;
	return false;
}

/* Bases kept per fatbin read, at most: past it the fatbin is not matched. */
#define BASES_MAX 4096

/* Keep copy (owned) in b unless b has it; -E2BIG when b is full. */
static int bases_keep(struct bases *b, char *copy)
{
	if (bases_has(b, copy, strlen(copy))) {
		free(copy);
		return 0;
	}
	if (b->n == BASES_MAX) {
		free(copy);
		return -E2BIG;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->v = ct_xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	b->v[b->n++] = copy;
	return 0;
}

static int add_base(const char *name, size_t len, void *arg)
{
	size_t i = 2, parts = 0, k, n;
	char *copy, *o;

	if (len > 2 && name[0] == '_' && name[1] == 'Z') {
		bool nested = name[2] == 'N';

		/* Each part of n bytes was read from n + 1 at least: 2 len bounds it. */
		copy = ct_xmalloc(2 * len + 1);
		o = copy;
		i += nested;
		while (i < len && name[i] >= '1' && name[i] <= '9') {
			for (n = 0; i < len && name[i] >= '0' && name[i] <= '9' && n < len; i++)
				n = n * 10 + (size_t)(name[i] - '0');
			if (n > len - i)
				break;
			if (parts++) {
				*o++ = ':';
				*o++ = ':';
			}
			for (k = 0; k < n; k++)
				*o++ = name[i + k];
			i += n;
		}
		*o = 0;
		/*
		 * A nested name read to its template arguments or its end; else
		 * (a substitution, a constructor) the name whole.
		 */
		if (parts && (!nested || (i < len && (name[i] == 'I' || name[i] == 'E'))))
			return bases_keep(arg, copy);
		free(copy);
	}
	copy = ct_xmalloc(len + 1);
	memcpy(copy, name, len);
	copy[len] = 0;
	return bases_keep(arg, copy);
}

static void bases_free(struct bases *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

/* The kernel bases of container c's first SASS image; false when unread. */
static bool kernel_bases(const struct elfscan_file *f, size_t c, struct bases *out)
{
	const struct elfscan_container *ct = &f->containers[c];
	size_t k;

	for (k = ct->first_image; k < ct->first_image + ct->nimages; k++)
		if (f->images[k].kind == ELFSCAN_KIND_SASS)
			return elfscan_image_kernels(f, k, add_base, out) == 0 && out->n > 0;
	return false;
}

/*
 * Is container c a build for one GPU: SASS and PTX of one arch, nothing
 * else loadable (sm_100 + compute_100; not cuSOLVER's fatbins of SASS for
 * every arch and the newest one's PTX)?
 */
static bool one_gpu_build(const struct elfscan_file *f, size_t c)
{
	const struct elfscan_container *ct = &f->containers[c];
	size_t k, end = ct->first_image + ct->nimages, sass = 0, ptx = 0;
	unsigned arch = 0;

	for (k = ct->first_image; k < end; k++) {
		const struct elfscan_image *img = &f->images[k];

		if (img->kind != ELFSCAN_KIND_SASS && img->kind != ELFSCAN_KIND_PTX)
			continue;
		if (arch && img->arch != arch)
			return false;
		arch = img->arch;
		sass += img->kind == ELFSCAN_KIND_SASS;
		ptx += img->kind == ELFSCAN_KIND_PTX;
	}
	return sass && ptx;
}

/* Fatbins read for their kernels, at most, per set of siblings. */
#define SIBLINGS_MAX 256

/*
 * The fatbins of f that run on t, each's kernel bases read once, when
 * first asked (names from their cubins, whatever the arch); with one_gpu,
 * only builds for one GPU that run SASS on t: the siblings of another
 * GPU's build in a per-GPU library.
 */
struct siblings {
	struct bases *each;
	size_t n;
	bool read;
};

static void siblings_read(const struct elfscan_file *f, const struct elfscan_target *t,
			  bool one_gpu, struct siblings *sib)
{
	size_t c;

	sib->read = true;
	for (c = 0; c < f->ncontainers && sib->n < SIBLINGS_MAX; c++) {
		const struct elfscan_container *ct = &f->containers[c];
		struct bases b = { 0 };
		long pick;

		if (ct->first_image > f->nimages || ct->nimages > f->nimages - ct->first_image)
			continue;
		pick = elfscan_pick_image(f->images + ct->first_image, ct->nimages, t);
		if (pick < 0 || (one_gpu && (f->images[ct->first_image + (size_t)pick].kind !=
						     ELFSCAN_KIND_SASS ||
					     !one_gpu_build(f, c))))
			continue;
		if (!kernel_bases(f, c, &b)) {
			bases_free(&b);
			continue;
		}
		if (!(sib->n & (sib->n - 1)))
			sib->each = ct_xrealloc(sib->each, (sib->n ? 2 * sib->n : 1) * sizeof(*sib->each));
		sib->each[sib->n++] = b;
	}
}

static void siblings_free(struct siblings *sib)
{
	size_t i;

	for (i = 0; i < sib->n; i++)
		bases_free(&sib->each[i]);
	free(sib->each);
	memset(sib, 0, sizeof(*sib));
}

/*
 * Does container c instantiate the same kernel templates as one of the
 * siblings, no more and no fewer: the same source built for other GPUs
 * in a translation unit of its own (vLLM's Marlin for sm_75, cuSOLVER's
 * geqr4_kernel for 9.0)? One fatbin's set, not the union of all: an
 * extension's .cu file built for too few GPUs whose kernels are all cub,
 * thrust or at::native templates that other files instantiate too still
 * fails.
 */
static bool same_templates(const struct elfscan_file *f, size_t c, const struct elfscan_target *t,
			   bool one_gpu, struct siblings *sib)
{
	struct bases mine = { 0 };
	bool same = false;
	size_t i, k;

	if (!sib->read)
		siblings_read(f, t, one_gpu, sib);
	if (sib->n && kernel_bases(f, c, &mine))
		for (i = 0; i < sib->n && !same; i++) {
			same = sib->each[i].n == mine.n;
			for (k = 0; k < mine.n && same; k++)
				same = bases_has(&sib->each[i], mine.v[k], strlen(mine.v[k]));
		}
	bases_free(&mine);
	return same;
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
	struct siblings builds = { 0 }, running = { 0 }; /* same_templates' */
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
		bool specific = true, by_design;
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
		by_design = specific || per_gpu_library || program_loaded(f, ct);
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
		if (pick < 0 && (o->kernels_of_other_gpus || !by_design) &&
		    elfscan_container_has_kernel(f, c) == 0) {
			v->without_kernels++;
			continue;
		}
		v->modules++;
		/*
		 * One of a per-GPU library's fatbins for another GPU, its SASS
		 * and that GPU's PTX (cuSOLVER 12.2's sm_90 + compute_90 beside
		 * its sm_100 + compute_100 one), whose kernels instantiate the
		 * same templates as the library's build for t (geqr4_kernel,
		 * tuned per GPU): on t the library runs that
		 * build, and this PTX is no JIT it needs (on a driver older
		 * than the PTX, no failure). Kernels only this fatbin holds
		 * (cuTENSOR's cutlass_sm75_simt_* in sm_75 + compute_75) run on
		 * t by JIT, and PTX of another arch than the fatbin's SASS
		 * (cuTENSOR's sm_75 + compute_100, on 10.0) is how the library
		 * runs there: both judged as any. With --every-module it counts
		 * as what the driver would do.
		 */
		if (pick >= 0 && per_gpu_library && !o->kernels_of_other_gpus &&
		    f->images[pick].container == c && ptx_beside_its_sass(f, first, end, pick) &&
		    same_templates(f, c, t, true, &builds)) {
			pick = -1;
			v->other_ptx++;
		}
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
		/*
		 * A build for other GPUs of the kernel templates a fatbin running
		 * on t builds too (vLLM's Marlin MoE kernels: five translation
		 * units for sm_75 only, marlin_moe_wna16::Marlin<...> with two
		 * stages, beside the sm_80 ones): the program picks the
		 * instantiation per GPU. Kernels no fatbin for t builds (an
		 * extension's .cu file built for too few GPUs) fail.
		 */
		if (!by_design && !o->kernels_of_other_gpus &&
		    same_templates(f, c, t, false, &running)) {
			by_design = true;
			v->other_tuned++;
		}
		if (by_design) {
			v->other_gpus++;
			v->other_specific += specific;
			v->other_loaded += !specific && program_loaded(f, ct);
		} else {
			v->no_image++;
		}
		for (k = first; k < end; k++)
			if (f->images[k].kind != ELFSCAN_KIND_LTOIR) {
				if (by_design)
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
		siblings_free(&builds);
		siblings_free(&running);
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
	siblings_free(&builds);
	siblings_free(&running);
}

void ct_verdict_release(struct ct_verdict *v)
{
	free(v->picks);
	free(v->missing);
	free(v->other);
	memset(v, 0, sizeof(*v));
	v->image = -1;
}

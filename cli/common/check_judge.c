/*
 * check's judgement of one object on one target (check_judge.h): the
 * verdict of its device code (verdict.c) in words, its reason, details
 * and fix; under --driver, the driver's own checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "archs.h"
#include "check_judge.h"
#include "compat.h"
#include "libnames.h"
#include "summary.h"

void ct_check_object_init(struct ct_check_object *o, const char *path,
			  const struct ct_check_reads *read, void *arg)
{
	const char *slash = strrchr(path, '/'), *bang = strrchr(path, '!');

	o->path = path;
	o->name = slash > bang ? slash + 1 : bang ? bang + 1 : path;
	o->per_gpu = -1;
	o->torch = -2;
	o->read = read;
	o->arg = arg;
}

/* Appends to r->reason. */
static void say(struct ct_check_result *r, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
static void say(struct ct_check_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->reason);
	va_list ap;

	if (n + 1 >= sizeof(r->reason))
		return;
	va_start(ap, fmt);
	vsnprintf(r->reason + n, sizeof(r->reason) - n, fmt, ap);
	va_end(ap);
}

/* Sets the next free detail line. */
static void detail(struct ct_check_result *r, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
static void detail(struct ct_check_result *r, const char *fmt, ...)
{
	va_list ap;
	size_t k;

	for (k = 0; k < sizeof(r->details) / sizeof(r->details[0]); k++)
		if (!r->details[k][0])
			break;
	if (k == sizeof(r->details) / sizeof(r->details[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->details[k], sizeof(r->details[k]), fmt, ap);
	va_end(ap);
}

/*
 * Is the object one of NVIDIA's libraries that pick kernels per GPU? By
 * its file name (a wheel member's own), else by its DT_SONAME (a copy
 * under another name). Asked only when a fatbin lacks an image or a fix
 * is given.
 */
static bool per_gpu_library(struct ct_check_object *o)
{
	if (o->per_gpu >= 0)
		return o->per_gpu;
	o->per_gpu = ct_cuda_library_per_gpu(o->name);
	if (!o->per_gpu)
		o->per_gpu = o->read->soname_per_gpu(o->path);
	return o->per_gpu;
}

/*
 * Does the object link PyTorch (DT_NEEDED libtorch*, libc10*)? Its fix
 * names TORCH_CUDA_ARCH_LIST only then. A wheel's member is read in
 * memory only: unknown (-1), both settings named. Asked once.
 */
static int links_torch(struct ct_check_object *o)
{
	if (o->torch > -2)
		return o->torch;
	o->torch = o->read->links_torch(o->path);
	return o->torch;
}

static bool any_variant(const struct ct_summary *s, unsigned kind,
			enum elfscan_variant v)
{
	size_t i;

	for (i = 0; i < s->narchs; i++)
		if (s->archs[i].kind == kind && s->archs[i].variant == v)
			return true;
	return false;
}

/*
 * "sm_90 in 339, sm_90a in 2": the first few of the images of one kind
 * (0: any), then how many more.
 */
static const char *counts_words(const struct ct_image_count *c, size_t n, unsigned kind,
				char *buf, size_t size)
{
	enum { SHOWN = 6 };
	size_t i, shown = 0, more = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		struct elfscan_image img = { .kind = c[i].kind, .arch = c[i].arch,
					     .variant = c[i].variant };
		char name[ELFSCAN_ARCH_NAME_MAX];

		if (kind && c[i].kind != kind)
			continue;
		if (shown == SHOWN || len >= size) {
			more++;
			continue;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s in %zu", shown ? ", " : "",
					elfscan_image_arch_name(&img, name, sizeof(name)),
					c[i].fatbins);
		shown++;
	}
	if (more && len < size)
		snprintf(buf + len, size - len, " and %zu more", more);
	return buf;
}

/*
 * The fixes. NVIDIA builds its libraries: for those, the fix is another
 * release (no-image), or none (ptx-jit: nothing to add by hand).
 */
static void fix_rebuild(struct ct_check_result *r, const struct elfscan_target *t)
{
	char gencode[512];

	if (r->per_gpu) {
		char toolkit[256];

		ct_arch_toolkit_words(t->major, t->minor, toolkit, sizeof(toolkit));
		snprintf(r->fix, sizeof(r->fix), "install a release of %s built for %u.%u%s%s",
			 r->name, t->major, t->minor, toolkit[0] ? ", from " : "", toolkit);
		return;
	}
	snprintf(r->fix, sizeof(r->fix), "rebuild with %s",
		 ct_arch_build_words(t->major, t->minor, r->torch, gencode, sizeof(gencode)));
}

static void fix_add_sass(struct ct_check_result *r, const struct elfscan_target *t)
{
	char gencode[512];

	if (r->per_gpu)
		return;
	snprintf(r->fix, sizeof(r->fix), "add SASS for %u.%u with %s", t->major, t->minor,
		 ct_arch_build_words(t->major, t->minor, r->torch, gencode, sizeof(gencode)));
}

/* One fatbin: the image the driver picks, and the rule it runs by. */
static void explain_pick(struct ct_check_result *r, const struct elfscan_image *img,
			 const struct elfscan_target *t)
{
	char name[ELFSCAN_ARCH_NAME_MAX];
	unsigned major = img->arch / 10, minor = img->arch % 10;

	elfscan_image_arch_name(img, name, sizeof(name));
	if (img->kind == ELFSCAN_KIND_SASS) {
		if (img->variant == ELFSCAN_VARIANT_A)
			say(r, "%s SASS, built for exactly %u.%u", name, major, minor);
		else if (img->variant == ELFSCAN_VARIANT_F)
			say(r, "%s SASS runs on the %u.x family from %u.%u", name,
			    major, major, minor);
		else if (minor == t->minor)
			say(r, "%s SASS, built for %u.%u", name, major, minor);
		else
			say(r, "%s SASS runs on %u.x GPUs from %u.%u up", name,
			    major, major, minor);
		return;
	}
	say(r, "the driver JIT-compiles %s PTX (ISA %u.%u) for %u.%u at first load",
	    name, img->version_major, img->version_minor, t->major, t->minor);
	detail(r, "the first launch is slow (JIT cache: ~/.nv/ComputeCache)");
	fix_add_sass(r, t);
}

/* Nothing runs anywhere in the file: what it holds, and why none of it runs. */
static void explain_nothing(struct ct_check_result *r, const struct ct_summary *s,
			    const struct elfscan_target *t)
{
	char sass[512], ptx[512];

	say(r, "no SASS that runs on %u.%u (SASS: %s) and no PTX the driver "
	       "can compile for it (PTX: %s)",
	    t->major, t->minor, ct_summary_archs(s, ELFSCAN_KIND_SASS, sass, sizeof(sass)),
	    ct_summary_archs(s, ELFSCAN_KIND_PTX, ptx, sizeof(ptx)));
	if (any_variant(s, ELFSCAN_KIND_SASS, ELFSCAN_VARIANT_A) ||
	    any_variant(s, ELFSCAN_KIND_PTX, ELFSCAN_VARIANT_A))
		say(r, "; 'a' code such as sm_90a runs only on exactly that arch");
	if (any_variant(s, ELFSCAN_KIND_SASS, ELFSCAN_VARIANT_F) ||
	    any_variant(s, ELFSCAN_KIND_PTX, ELFSCAN_VARIANT_F))
		say(r, "; 'f' code such as sm_100f runs only within its major family");
	if (s->nkind[2] && !s->nkind[0] && !s->nkind[1])
		say(r, "; LTO-IR is linked by nvJitLink and never runs by itself");
}

/* "has" for one fatbin, "have" for several: the verbs of explain_fatbins. */
static const char *verb(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Several fatbins: each count, and what each group holds. */
static void explain_fatbins(struct ct_check_result *r, const struct ct_summary *s,
			    const struct elfscan_target *t)
{
	const struct ct_verdict *v = &r->v;
	char sass_line[512] = "", ptx_line[512] = "", list[400], sass[400];

	if (v->sass)
		snprintf(sass_line, sizeof(sass_line), "%zu of %zu fatbins %s SASS for %u.%u (%s)",
			 v->sass, v->modules, verb(v->sass, "has", "have"), t->major, t->minor,
			 counts_words(v->picks, v->npicks, ELFSCAN_KIND_SASS, list, sizeof(list)));
	if (v->ptx_jit)
		snprintf(ptx_line, sizeof(ptx_line),
			 "%zu of %zu fatbins %s only as PTX (%s), JIT-compiled at first load",
			 v->ptx_jit, v->modules, verb(v->ptx_jit, "runs", "run"),
			 counts_words(v->picks, v->npicks, ELFSCAN_KIND_PTX, list, sizeof(list)));
	if (v->no_image) {
		say(r, "%zu of %zu fatbins %s no image for %u.%u (%s %s)", v->no_image,
		    v->modules, verb(v->no_image, "has", "have"), t->major, t->minor,
		    verb(v->no_image, "it holds", "they hold"),
		    counts_words(v->missing, v->nmissing, 0, list, sizeof(list)));
		detail(r, "kernel launches in %s fail with \"no kernel image is available "
			  "for execution on the device\"", verb(v->no_image, "it", "them"));
		if (sass_line[0])
			detail(r, "%s", sass_line);
		if (ptx_line[0])
			detail(r, "%s", ptx_line);
		fix_rebuild(r, t);
	} else if (v->sass) {
		say(r, "%s", sass_line);
		if (ptx_line[0]) {
			detail(r, "%s", ptx_line);
			detail(r, "%s first launch is slow (JIT cache: ~/.nv/ComputeCache)",
			       verb(v->ptx_jit, "its", "their"));
			fix_add_sass(r, t);
		}
	} else {
		say(r, "no SASS for %u.%u (SASS: %s); %s", t->major, t->minor,
		    ct_summary_archs(s, ELFSCAN_KIND_SASS, sass, sizeof(sass)), ptx_line);
		detail(r, "the first launch is slow (JIT cache: ~/.nv/ComputeCache)");
		fix_add_sass(r, t);
	}
	if (!v->other_gpus)
		return;
	counts_words(v->other, v->nother, 0, list, sizeof(list));
	if (r->per_gpu) {
		detail(r, "%zu of %zu fatbins %s code for other GPUs only (%s), which the "
			  "library selects per GPU (--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "it", "them"));
		if (v->other_ptx)
			detail(r, "%zu of them %s that GPU's PTX too, which the library need not "
				  "JIT-compile for %u.%u: its build for %u.%u has SASS of the same "
				  "kernel templates (--every-module judges %s as the driver would "
				  "load %s)",
			       v->other_ptx, verb(v->other_ptx, "holds", "hold"), t->major,
			       t->minor, t->major, t->minor,
			       verb(v->other_ptx, "it", "them"), verb(v->other_ptx, "it", "them"));
	} else if (v->other_specific == v->other_gpus)
		detail(r, "%zu of %zu fatbins %s only 'a'/'f' code for other GPUs (%s), which "
			  "the program must select per GPU (--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "it", "them"));
	else if (v->other_loaded == v->other_gpus)
		detail(r, "%zu of %zu fatbins %s code for other GPUs only (%s), found outside "
			  ".nv_fatbin and registered by no wrapper, which the program loads itself "
			  "per GPU (--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "it", "them"));
	else if (v->other_tuned == v->other_gpus)
		detail(r, "%zu of %zu fatbins %s code for other GPUs only (%s), %s of the same "
			  "kernel templates as %s for %u.%u, which the program must select per GPU "
			  "(--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "a build", "builds"),
		       verb(v->other_gpus, "a fatbin", "fatbins"), t->major, t->minor,
		       verb(v->other_gpus, "it", "them"));
	else {
		char parts[256] = "";
		size_t len = 0;

		if (v->other_specific)
			len += (size_t)snprintf(parts + len, sizeof(parts) - len,
						"%zu only 'a'/'f' code", v->other_specific);
		if (v->other_loaded && len < sizeof(parts))
			len += (size_t)snprintf(parts + len, sizeof(parts) - len,
						"%s%zu outside .nv_fatbin that the program loads "
						"itself", len ? ", " : "", v->other_loaded);
		if (v->other_tuned && len < sizeof(parts))
			snprintf(parts + len, sizeof(parts) - len,
				 "%s%zu of the same kernel templates as fatbins for %u.%u",
				 len ? ", " : "", v->other_tuned, t->major, t->minor);
		detail(r, "%zu of %zu fatbins hold code for other GPUs only (%s): %s; the program "
			  "must select them per GPU (--every-module fails on them)",
		       v->other_gpus, v->modules, list, parts);
	}
}

/*
 * The CUDA version the newest PTX the driver must JIT needs (10000: older
 * than CUDA 11, any driver; -1: newer than the table; 0: no PTX is
 * JIT-compiled), and the first Linux driver for it (NULL when unknown).
 */
int ct_check_min_driver(const struct ct_verdict *v, const char **linux_driver)
{
	int need, newer;

	*linux_driver = NULL;
	if (!v->ptx_jit && !v->ptx_too_new)
		return 0;
	need = ct_ptx_isa_cuda(v->ptx_isa_major, v->ptx_isa_minor);
	if (need > 10000)
		*linux_driver = ct_toolkit_driver(need, &newer);
	return need;
}

/*
 * The driver the PTX needs, on every result that JIT-compiles PTX (the
 * lowest driver the object runs on); under --driver, ptx-too-new's reason
 * and fix in place of ptx-jit's.
 */
static void explain_driver(struct ct_check_result *r, const struct elfscan_target *t,
			   const struct ct_check_driver *d)
{
	const struct ct_verdict *v = &r->v;
	const char *linux_driver;
	char cuda[16], needs[256], list[400], gencode[512];
	int need = ct_check_min_driver(v, &linux_driver);

	if (!need)
		return;
	if (need < 0)
		snprintf(needs, sizeof(needs), "PTX ISA %u.%u is newer than every CUDA release "
			 "cudatrace knows: it needs a driver newer than those",
			 v->ptx_isa_major, v->ptx_isa_minor);
	else if (need == 10000)
		snprintf(needs, sizeof(needs), "PTX ISA %u.%u is older than CUDA 11: every "
			 "driver from CUDA 11.0 on compiles it", v->ptx_isa_major, v->ptx_isa_minor);
	else
		snprintf(needs, sizeof(needs), "PTX ISA %u.%u needs a driver for CUDA %s or newer "
			 "(Linux %s or newer)", v->ptx_isa_major, v->ptx_isa_minor,
			 ct_cuda_version_words(need, cuda, sizeof(cuda)),
			 linux_driver ? linux_driver : "?");
	if (v->verdict != CT_VERDICT_PTX_TOO_NEW) {
		detail(r, "%s", needs);
		return;
	}
	memset(r->reason, 0, sizeof(r->reason));
	memset(r->details, 0, sizeof(r->details));
	counts_words(v->picks, v->npicks, ELFSCAN_KIND_PTX, list, sizeof(list));
	if (v->modules == 1 && v->npicks == 1) {
		struct elfscan_image img = { .kind = v->picks[0].kind, .arch = v->picks[0].arch,
					     .variant = v->picks[0].variant };
		char name[ELFSCAN_ARCH_NAME_MAX];

		say(r, "the only code for %u.%u is %s PTX of ISA %u.%u, which %s cannot compile",
		    t->major, t->minor, elfscan_image_arch_name(&img, name, sizeof(name)),
		    v->ptx_isa_major, v->ptx_isa_minor, d->words);
	} else {
		say(r, "%zu of %zu fatbins run on %u.%u only as PTX (%s) of ISA up to %u.%u, "
		       "which %s cannot compile",
		    v->ptx_too_new, v->modules, t->major, t->minor, list, v->ptx_isa_major,
		    v->ptx_isa_minor, d->words);
	}
	detail(r, "loading %s fails with \"the provided PTX was compiled with an "
		  "unsupported toolchain.\" (222)",
	       verb(v->ptx_too_new, "it", "them"));
	detail(r, "%s", needs);
	if (v->sass)
		detail(r, "%zu of %zu fatbins %s SASS for %u.%u", v->sass, v->modules,
		       verb(v->sass, "has", "have"), t->major, t->minor);
	if (v->ptx_jit)
		detail(r, "%zu of %zu fatbins %s as PTX this driver compiles", v->ptx_jit,
		       v->modules, verb(v->ptx_jit, "runs", "run"));
	if (need > 10000 && linux_driver)
		snprintf(r->fix, sizeof(r->fix), "upgrade the driver to CUDA %s or newer (Linux "
			 "%s or newer)", cuda, linux_driver);
	else
		snprintf(r->fix, sizeof(r->fix), "upgrade the driver to one that compiles PTX "
			 "ISA %u.%u", v->ptx_isa_major, v->ptx_isa_minor);
	if (!r->per_gpu) {
		size_t n = strlen(r->fix);

		snprintf(r->fix + n, sizeof(r->fix) - n, ", or add SASS for %u.%u with %s",
			 t->major, t->minor,
			 ct_arch_gencode_words(t->major, t->minor, gencode, sizeof(gencode)));
	}
}

/* The driver to upgrade to: the newest of what each check that failed asks. */
struct upgrade {
	unsigned branch;    /* 0: none asked */
	int cuda;           /* its CUDA version */
	const char *linux_driver;
};

static void upgrade_to(struct upgrade *u, unsigned branch, int cuda, const char *linux_driver)
{
	if (branch > u->branch && linux_driver) {
		u->branch = branch;
		u->cuda = cuda;
		u->linux_driver = linux_driver;
	}
}

/* The CUDA version of a branch in the table (570: 12080); 0 when not in it. */
static int branch_cuda(unsigned branch)
{
	char b[16];
	int cuda = 0;

	snprintf(b, sizeof(b), "%u", branch);
	return ct_branch_driver(branch) && ct_driver_parse(b, &cuda) == 0 ? cuda : 0;
}

/*
 * --driver judges the whole object, each check in its own words: does
 * that driver branch drive the target GPU at all (cuda_releases.def's
 * GPU archs), and does it run the CUDA runtime the object needs (its
 * libcudart soname's major, or a linked-in cudart's)? The PTX ISA was
 * judged with the device code (ptx-too-new). The first check that fails
 * gives the verdict (no-gpu-support, then driver-too-old: what fails
 * first, cuInit, then the runtime's first call, then a module's load);
 * the others and the device code's own verdict follow as details, and
 * the fix asks for the newest driver any of them needs.
 */
static void judge_driver(const struct ct_check_opts *opts, struct ct_check_object *o,
			 const struct elfscan_file *f, const struct elfscan_target *t,
			 struct ct_check_result *r)
{
	const struct ct_check_driver *d = &opts->driver;
	struct ct_check_runtime rt_facts = { 0 }, *rt = &rt_facts;
	char gpu[384] = "", runtime[512] = "", code[sizeof(r->reason) + 64], fix[sizeof(r->fix)];
	char cuda[16], need_cuda[16];
	unsigned first = 0, last = 0;
	struct upgrade up = { 0 };
	int gpu_ok;

	if (!d->cuda || r->v.verdict == CT_VERDICT_NO_DEVICE_CODE)
		return;
	gpu_ok = ct_branch_gpu(d->branch, t->major, t->minor, &first, &last);
	if (gpu_ok == 0 && first && d->branch < first) {
		int c = branch_cuda(first);

		snprintf(gpu, sizeof(gpu), "%s does not drive %u.%u GPUs: they need R%u or newer "
			 "(CUDA %s)", d->words, t->major, t->minor, first,
			 ct_cuda_version_words(c, cuda, sizeof(cuda)));
		upgrade_to(&up, first, c, ct_branch_driver(first));
	} else if (gpu_ok == 0 && !last) {
		/* Their first branch is not known: one too old is, and one that drives them. */
		unsigned known, later = ct_branch_gpu_later(t->major, t->minor, &known);

		snprintf(gpu, sizeof(gpu), "%s does not drive %u.%u GPUs: they need a driver branch "
			 "newer than R%u (R%u and newer drive them)", d->words, t->major, t->minor,
			 later, known);
		upgrade_to(&up, known, branch_cuda(known), ct_branch_driver(known));
	} else if (gpu_ok == 0) {
		snprintf(gpu, sizeof(gpu), "%s does not drive %u.%u GPUs: R%u was the last driver "
			 "branch for them", d->words, t->major, t->minor, last);
	}
	o->read->runtime(o->arg, f, rt);
	/*
	 * A runtime of a major past the table, on a branch past it, may well
	 * run: nothing here says it does not.
	 */
	if (rt->major > 0 && d->cuda < rt->major * 1000 &&
	    (d->cuda_known || ct_family_driver(rt->major))) {
		const char *family = ct_family_driver(rt->major);
		char family_words[96] = "";

		snprintf(need_cuda, sizeof(need_cuda), "%d.0", rt->major);
		if (family)
			snprintf(family_words, sizeof(family_words), " (Linux %s or newer)", family);
		if (rt->shared)
			snprintf(runtime, sizeof(runtime), "it needs %s, the CUDA %d runtime, which %s "
				 "cannot run: CUDA %d needs a driver for CUDA %s or newer%s",
				 rt->soname, rt->major, d->words, rt->major, need_cuda, family_words);
		else if (rt->named)
			snprintf(runtime, sizeof(runtime), "it is one of CUDA %d's own libraries "
				 "(%s%s), which %s cannot run: CUDA %d needs a driver for CUDA %s or "
				 "newer%s",
				 rt->major, rt->named, rt->by_folder ? ", in CUDA's wheel folder for "
				 "that major" : ": no other CUDA ships that soname", d->words,
				 rt->major, need_cuda, family_words);
		else if (rt->release)
			snprintf(runtime, sizeof(runtime), "its CUDA runtime is linked in: CUDA %s (the "
				 "compiler release in its fatbins), which %s cannot run: CUDA %d needs "
				 "a driver for CUDA %s or newer%s",
				 ct_cuda_version_words(rt->release, cuda, sizeof(cuda)), d->words,
				 rt->major, need_cuda, family_words);
		else
			snprintf(runtime, sizeof(runtime), "its CUDA runtime is linked in: CUDA %d or "
				 "newer (by its PTX ISA), which %s cannot run: CUDA %d needs a driver "
				 "for CUDA %s or newer%s",
				 rt->major, d->words, rt->major, need_cuda, family_words);
		upgrade_to(&up, ct_cuda_branch(rt->major * 1000), rt->major * 1000, family);
	}
	if (!gpu[0] && !runtime[0])
		return;
	if (r->v.verdict == CT_VERDICT_PTX_TOO_NEW) {
		int need = ct_ptx_isa_cuda(r->v.ptx_isa_major, r->v.ptx_isa_minor), newer;

		if (need > 10000)
			upgrade_to(&up, ct_cuda_branch(need), need, ct_toolkit_driver(need, &newer));
	}
	/* What the device code alone would say, kept whole as one detail. */
	snprintf(code, sizeof(code), "its device code for %u.%u: %s: %s", t->major, t->minor,
		 ct_verdict_name(r->v.verdict), r->reason);
	snprintf(fix, sizeof(fix), "%s", r->fix);
	memset(r->reason, 0, sizeof(r->reason));
	memset(r->details, 0, sizeof(r->details));
	memset(r->fix, 0, sizeof(r->fix));
	r->verdict = gpu[0] ? CT_VERDICT_NO_GPU_SUPPORT : CT_VERDICT_DRIVER_TOO_OLD;
	say(r, "%s", gpu[0] ? gpu : runtime);
	if (gpu[0] && runtime[0])
		detail(r, "%s", runtime);
	if (runtime[0])
		detail(r, "its first CUDA call fails with \"CUDA driver version is insufficient "
			  "for CUDA runtime version\" (35)");
	detail(r, "%s", code);
	if (gpu[0] && !first && last) {
		/* A GPU the driver dropped: only an older driver drives it. */
		int c = branch_cuda(last);

		snprintf(r->fix, sizeof(r->fix), "%u.%u GPUs run only on drivers of R%u or older "
			 "(CUDA %s): take sm_%u%u off the targets, or check against such a driver",
			 t->major, t->minor, last, ct_cuda_version_words(c, cuda, sizeof(cuda)),
			 t->major, t->minor);
		if (runtime[0])
			detail(r, "no driver of R%u or older runs the CUDA %d runtime", last,
			       rt->major);
	} else if (up.branch) {
		snprintf(r->fix, sizeof(r->fix), "upgrade the driver to CUDA %s or newer (Linux %s "
			 "or newer)", ct_cuda_version_words(up.cuda, cuda, sizeof(cuda)),
			 up.linux_driver);
	} else if (runtime[0]) {
		/* A runtime of a major past the table: its first driver is not known here. */
		snprintf(r->fix, sizeof(r->fix), "upgrade the driver to one for CUDA %d.0 or newer",
			 rt->major);
	}
	/* The device code's own fix when it fails too (a rebuild; ptx-too-new's upgrade is in up). */
	if (r->v.verdict == CT_VERDICT_NO_IMAGE && fix[0]) {
		size_t n = strlen(r->fix);

		snprintf(r->fix + n, sizeof(r->fix) - n, "%s%s", n ? "; and " : "", fix);
	}
}

void ct_check_judge(struct ct_check_result *r, struct ct_check_object *o,
		    const struct elfscan_file *f, const struct elfscan_target *t,
		    const struct ct_check_opts *opts)
{
	struct ct_verdict_opts vo = { .kernels_of_other_gpus = opts->every_module,
				      .driver = opts->driver.cuda };
	struct ct_summary s;

	memset(r, 0, sizeof(*r));
	/*
	 * Only a fatbin without an image needs to know whose the file is; a
	 * per-GPU library known by its name is judged as one at once, so its
	 * fatbins for other GPUs have no kernels read.
	 */
	vo.per_gpu_library = ct_cuda_library_per_gpu(o->name) && per_gpu_library(o);
	ct_verdict_judge_opts(&r->v, f, t, &vo);
	if (r->v.no_image && !vo.per_gpu_library && per_gpu_library(o)) {
		ct_verdict_release(&r->v);
		vo.per_gpu_library = true;
		ct_verdict_judge_opts(&r->v, f, t, &vo);
	}
	r->verdict = r->v.verdict;
	if (r->v.verdict == CT_VERDICT_PTX_JIT || r->v.verdict == CT_VERDICT_NO_IMAGE ||
	    r->v.verdict == CT_VERDICT_PTX_TOO_NEW)
		per_gpu_library(o);
	r->per_gpu = o->per_gpu > 0;
	r->torch = r->v.verdict != CT_VERDICT_NO_DEVICE_CODE ? links_torch(o) : -1;
	r->name = o->name;
	if (r->v.without_kernels)
		snprintf(r->left_out, sizeof(r->left_out),
			 "%zu fatbin%s left out: %s no kernel, so %s cannot fail a launch",
			 r->v.without_kernels, r->v.without_kernels == 1 ? "" : "s",
			 verb(r->v.without_kernels, "it defines", "they define"),
			 verb(r->v.without_kernels, "it", "they"));
	if (r->v.link_inputs) {
		size_t n = strlen(r->left_out);

		snprintf(r->left_out + n, sizeof(r->left_out) - n,
			 "%s%zu -rdc fatbin%s in __nv_relfatbin: JIT-link input%s of the linked one",
			 n ? "; " : "", r->v.link_inputs, r->v.link_inputs == 1 ? "" : "s",
			 r->v.link_inputs == 1 ? "" : "s");
	}
	if (r->v.verdict == CT_VERDICT_NO_DEVICE_CODE) {
		if (r->v.without_kernels)
			say(r, "no kernels: the device code it holds (%zu fatbin%s) defines none",
			    r->v.without_kernels, r->v.without_kernels == 1 ? "" : "s");
		else
			say(r, "no device code");
		return;
	}
	ct_summary_build(&s, f, 0, f->nimages);
	if (!r->v.sass && !r->v.ptx_jit) {
		explain_nothing(r, &s, t);
		detail(r, "kernel launches fail with \"no kernel image is available for "
			  "execution on the device\"");
		fix_rebuild(r, t);
	} else if (r->v.modules == 1) {
		char sass[512];

		if (r->v.ptx_jit)
			say(r, "no SASS for %u.%u (SASS: %s); ", t->major, t->minor,
			    ct_summary_archs(&s, ELFSCAN_KIND_SASS, sass, sizeof(sass)));
		explain_pick(r, &f->images[r->v.image], t);
	} else {
		explain_fatbins(r, &s, t);
	}
	ct_summary_release(&s);
	explain_driver(r, t, &opts->driver);
	judge_driver(opts, o, f, t, r);
}

bool ct_check_fails(const struct ct_check_result *r, const struct ct_check_opts *opts)
{
	return r->verdict == CT_VERDICT_NO_IMAGE || r->verdict == CT_VERDICT_PTX_TOO_NEW ||
	       r->verdict == CT_VERDICT_NO_GPU_SUPPORT || r->verdict == CT_VERDICT_DRIVER_TOO_OLD ||
	       (opts->require_sass && r->verdict == CT_VERDICT_PTX_JIT) ||
	       (opts->every_module && r->v.other_gpus);
}

/* The verdicts that mean the object cannot run on the target at all. */
bool ct_check_cannot_run(const struct ct_check_result *r)
{
	return r->verdict == CT_VERDICT_NO_IMAGE || r->verdict == CT_VERDICT_PTX_TOO_NEW ||
	       r->verdict == CT_VERDICT_NO_GPU_SUPPORT || r->verdict == CT_VERDICT_DRIVER_TOO_OLD;
}

bool ct_check_damaged(const struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++)
		if (elfscan_problem_is_error(f->problems[i].code))
			return true;
	return false;
}


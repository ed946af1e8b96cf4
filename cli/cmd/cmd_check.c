/*
 * cudatrace check --arch ARCH: for each object and target, what the
 * driver would run in each of its fatbins (cli/common/verdict.c), summed
 * into a verdict with its reason and fix. A CI gate for extension authors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "archs.h"
#include "compat.h"
#include "cudart_need.h"
#include "gpu.h"
#include "util.h"
#include "inputs.h"
#include "commands.h"
#include "elfinfo.h"
#include "elfscan.h"
#include "diagnose.h"
#include "github.h"
#include "json.h"
#include "schema.h"
#include "libnames.h"
#include "report.h"
#include "summary.h"
#include "text.h"
#include "verdict.h"

#define MAX_TARGETS 32

/* --driver: the CUDA version of the driver judged on (0: any), in words. */
struct driver_opt {
	int cuda;
	const char *given;  /* as the user wrote it ("550.54", "12.4", "native") */
	char words[128];    /* "a driver for CUDA 12.4 (550.54)" */
	bool cuda_known;    /* false for a Linux branch newer than the table */
	/*
	 * Its Linux branch (550): as given, or that of its CUDA version
	 * (ct_cuda_branch); what decides the GPUs it drives.
	 */
	unsigned branch;
};

struct check_ctx {
	struct elfscan_target targets[MAX_TARGETS];
	char target_names[MAX_TARGETS][CT_TARGET_NAME];
	size_t ntargets;
	bool json, github, every_module, require_sass, verbose, quiet, colour;
	struct driver_opt driver;
	/*
	 * The total (say_total), per target: objects with device code judged,
	 * those that cannot run there, those that fail the check (--require-
	 * sass, --every-module add to those), those that run only by JIT.
	 */
	size_t judged[MAX_TARGETS], cannot[MAX_TARGETS], failed[MAX_TARGETS], jit[MAX_TARGETS];
	struct ct_json j;
	int exit_code;
	size_t unlisted; /* objects without device code, not listed */
	/*
	 * What the walk reached, so that a gate that checked nothing never
	 * passes in silence: regular files of any kind (ct_walk_options),
	 * objects handed over (read or not), those read, those of them with
	 * device code.
	 */
	size_t files, reached, objects, with_code;
};

/* What is known of the object being judged, asked once for all targets. */
struct object_facts {
	const char *path;
	const char *name; /* the file name: after the last '/' or '!' */
	int per_gpu;      /* one of NVIDIA's per-GPU libraries: 1, 0, or -1 not asked yet */
	int torch;        /* links libtorch or libc10: 1, 0, -1 unknown, -2 not asked yet */
	struct ct_cudart_need runtime; /* the CUDA runtime it needs, once runtime_read */
	bool runtime_read;
};

static void object_facts_init(struct object_facts *o, const char *path)
{
	const char *slash = strrchr(path, '/'), *bang = strrchr(path, '!');

	o->path = path;
	o->name = slash > bang ? slash + 1 : bang ? bang + 1 : path;
	o->per_gpu = -1;
	o->torch = -2;
	o->runtime_read = false;
}

/* The CUDA runtime the object needs (cudart_need.h), read once from its scan. */
static const struct ct_cudart_need *runtime_of(struct object_facts *o,
					       const struct elfscan_file *f)
{
	if (!o->runtime_read) {
		ct_cudart_need_read(&o->runtime, f);
		o->runtime_read = true;
	}
	return &o->runtime;
}

struct result {
	/*
	 * The verdict: the device code's (v.verdict), unless --driver finds
	 * the driver cannot drive the GPU or run the object's CUDA runtime.
	 */
	enum ct_verdict_kind verdict;
	struct ct_verdict v;
	bool per_gpu;            /* the object is one of NVIDIA's per-GPU libraries */
	int torch;               /* it links PyTorch (archs.h: ct_arch_build_words) */
	const char *name;        /* its file name */
	char reason[1024];       /* why, in one sentence */
	char details[5][512];    /* consequences and the other fatbins, one line each */
	char fix[768];
	char left_out[256];      /* the fatbins left out, and why; "" when none */
};

static void raise_exit(struct check_ctx *ctx, int code)
{
	if (code == CT_EXIT_BAD_INPUT || ctx->exit_code == CT_EXIT_OK)
		ctx->exit_code = code;
}

/* Appends to r->reason. */
static void say(struct result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct result *r, const char *fmt, ...)
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
static void detail(struct result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void detail(struct result *r, const char *fmt, ...)
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
static bool per_gpu_library(struct object_facts *o)
{
	struct ct_elfinfo e;

	if (o->per_gpu >= 0)
		return o->per_gpu;
	o->per_gpu = ct_cuda_library_per_gpu(o->name);
	if (!o->per_gpu) {
		ct_elfinfo_init(&e);
		if (ct_elfinfo_read(&e, o->path) == 0 && e.soname)
			o->per_gpu = ct_cuda_library_per_gpu(e.soname);
		ct_elfinfo_release(&e);
	}
	return o->per_gpu;
}

/*
 * Does the object link PyTorch (DT_NEEDED libtorch*, libc10*)? Its fix
 * names TORCH_CUDA_ARCH_LIST only then. A wheel's member is read in
 * memory only: unknown (-1), both settings named. Asked once.
 */
static int links_torch(struct object_facts *o)
{
	struct ct_elfinfo e;
	size_t i;

	if (o->torch > -2)
		return o->torch;
	o->torch = -1;
	ct_elfinfo_init(&e);
	if (!strchr(o->path, '!') && ct_elfinfo_read(&e, o->path) == 0)
		for (o->torch = 0, i = 0; i < e.nneeded && !o->torch; i++)
			o->torch = ct_library_torch(e.needed[i]);
	ct_elfinfo_release(&e);
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
static void fix_rebuild(struct result *r, const struct elfscan_target *t)
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

static void fix_add_sass(struct result *r, const struct elfscan_target *t)
{
	char gencode[512];

	if (r->per_gpu)
		return;
	snprintf(r->fix, sizeof(r->fix), "add SASS for %u.%u with %s", t->major, t->minor,
		 ct_arch_build_words(t->major, t->minor, r->torch, gencode, sizeof(gencode)));
}

/* One fatbin: the image the driver picks, and the rule it runs by. */
static void explain_pick(struct result *r, const struct elfscan_image *img,
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
static void explain_nothing(struct result *r, const struct ct_summary *s,
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
static void explain_fatbins(struct result *r, const struct ct_summary *s,
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
	if (r->per_gpu)
		detail(r, "%zu of %zu fatbins %s code for other GPUs only (%s), which the "
			  "library selects per GPU (--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "it", "them"));
	else
		detail(r, "%zu of %zu fatbins %s only 'a'/'f' code for other GPUs (%s), which "
			  "the program must select per GPU (--every-module fails on %s)",
		       v->other_gpus, v->modules, verb(v->other_gpus, "holds", "hold"), list,
		       verb(v->other_gpus, "it", "them"));
}

/*
 * The CUDA version the newest PTX the driver must JIT needs (10000: older
 * than CUDA 11, any driver; -1: newer than the table; 0: no PTX is
 * JIT-compiled), and the first Linux driver for it (NULL when unknown).
 */
static int min_driver(const struct ct_verdict *v, const char **linux_driver)
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
static void explain_driver(struct result *r, const struct elfscan_target *t,
			   const struct driver_opt *d)
{
	const struct ct_verdict *v = &r->v;
	const char *linux_driver;
	char cuda[16], needs[256], list[400], gencode[512];
	int need = min_driver(v, &linux_driver);

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
static void judge_driver(const struct check_ctx *ctx, struct object_facts *o,
			 const struct elfscan_file *f, const struct elfscan_target *t,
			 struct result *r)
{
	const struct driver_opt *d = &ctx->driver;
	const struct ct_cudart_need *rt;
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
	rt = runtime_of(o, f);
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
		if (rt->link == CT_CUDART_SHARED)
			snprintf(runtime, sizeof(runtime), "it needs %s, the CUDA %d runtime, which %s "
				 "cannot run: CUDA %d needs a driver for CUDA %s or newer%s",
				 rt->soname, rt->major, d->words, rt->major, need_cuda, family_words);
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

static void judge(const struct check_ctx *ctx, struct object_facts *o,
		  const struct elfscan_file *f, const struct elfscan_target *t,
		  struct result *r)
{
	struct ct_verdict_opts vo = { .kernels_of_other_gpus = ctx->every_module,
				      .driver = ctx->driver.cuda };
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
	explain_driver(r, t, &ctx->driver);
	judge_driver(ctx, o, f, t, r);
}

static bool fails(const struct check_ctx *ctx, const struct result *r)
{
	return r->verdict == CT_VERDICT_NO_IMAGE || r->verdict == CT_VERDICT_PTX_TOO_NEW ||
	       r->verdict == CT_VERDICT_NO_GPU_SUPPORT || r->verdict == CT_VERDICT_DRIVER_TOO_OLD ||
	       (ctx->require_sass && r->verdict == CT_VERDICT_PTX_JIT) ||
	       (ctx->every_module && r->v.other_gpus);
}

/* The verdicts that mean the object cannot run on the target at all. */
static bool cannot_run(const struct result *r)
{
	return r->verdict == CT_VERDICT_NO_IMAGE || r->verdict == CT_VERDICT_PTX_TOO_NEW ||
	       r->verdict == CT_VERDICT_NO_GPU_SUPPORT || r->verdict == CT_VERDICT_DRIVER_TOO_OLD;
}

/* One object's verdict on target t, counted for the total; raises the exit status. */
static void tally(struct check_ctx *ctx, size_t t, const struct result *r)
{
	if (fails(ctx, r))
		raise_exit(ctx, CT_EXIT_FINDING);
	if (r->verdict == CT_VERDICT_NO_DEVICE_CODE)
		return;
	ctx->judged[t]++;
	ctx->failed[t] += fails(ctx, r);
	ctx->cannot[t] += cannot_run(r);
	ctx->jit[t] += r->verdict == CT_VERDICT_PTX_JIT;
}

/* The colour of a verdict: fails red, JIT yellow, as errors and warnings elsewhere. */
static const char *verdict_colour(const struct check_ctx *ctx, const struct result *r)
{
	return fails(ctx, r) ? "1;31" : r->verdict == CT_VERDICT_PTX_JIT ? "33" : NULL;
}

static bool damaged(const struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++)
		if (elfscan_problem_is_error(f->problems[i].code))
			return true;
	return false;
}

#define NDETAILS (sizeof(((struct result *)0)->details) / sizeof(((struct result *)0)->details[0]))

static void text_object(struct check_ctx *ctx, const struct ct_object *obj)
{
	struct object_facts o;
	size_t t, k, len = 0;
	char *buf = NULL;
	bool tell = !ctx->quiet;
	FILE *out = stdout;

	/* -q: an object is shown only when it fails or runs only by JIT. */
	if (ctx->quiet && !(out = open_memstream(&buf, &len)))
		ct_out_of_memory();
	object_facts_init(&o, obj->path);
	ct_tprintf(out, "%s\n", obj->path);
	for (t = 0; t < ctx->ntargets; t++) {
		const char *colour;
		struct result r;

		judge(ctx, &o, obj->scan, &ctx->targets[t], &r);
		colour = verdict_colour(ctx, &r);
		tell |= colour != NULL;
		ct_tprintf(out, "  %-8s ", ctx->target_names[t]);
		ct_text_colour(out, ctx->colour && colour, colour);
		ct_tprintf(out, "%-14s", ct_verdict_name(r.verdict));
		ct_text_colour(out, ctx->colour && colour, "0");
		ct_tprintf(out, " %s\n", r.reason);
		for (k = 0; k < NDETAILS; k++)
			if (r.details[k][0])
				ct_tprintf(out, "  %-8s %-14s %s\n", "", "", r.details[k]);
		if (r.fix[0])
			ct_tprintf(out, "  %-8s %-14s fix: %s\n", "", "", r.fix);
		if (ctx->verbose && r.left_out[0])
			ct_tprintf(out, "  %-8s %-14s %s\n", "", "", r.left_out);
		tally(ctx, t, &r);
		ct_verdict_release(&r.v);
	}
	if (damaged(obj->scan)) {
		size_t i;

		for (i = 0; i < obj->scan->nproblems; i++) {
			char text[256];

			if (!elfscan_problem_is_error(obj->scan->problems[i].code))
				continue;
			ct_tprintf(out, "  error: %s\n",
			       elfscan_problem_describe(obj->scan,
							&obj->scan->problems[i],
							text, sizeof(text)));
		}
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
		tell = true;
	}
	if (out != stdout) {
		if (fclose(out) != 0)
			ct_out_of_memory();
		if (tell)
			ct_text_put(stdout, buf, len); /* escaped when written into buf */
		free(buf);
	}
}

/*
 * --format github: an annotation per object and target that fails (an
 * error) or runs only by JIT (a warning), on the file as the repository
 * knows it: an archive's member is annotated on the archive.
 */
static void github_say(const char *level, const char *path, const char *title,
		       const char *const *lines, size_t nlines)
{
	const char *bang = strchr(path, '!');
	char *file = ct_xstrdup(path);

	if (bang)
		file[bang - path] = '\0';
	ct_github_annotation(stdout, level, file, title, lines, nlines);
	free(file);
}

static void github_object(struct check_ctx *ctx, const struct ct_object *obj)
{
	struct object_facts o;
	size_t t, k, i;

	object_facts_init(&o, obj->path);
	for (t = 0; t < ctx->ntargets; t++) {
		char title[128], head[sizeof(((struct result *)0)->reason) + 4096 + 64];
		char fix[sizeof(((struct result *)0)->fix) + 8];
		const char *lines[2 + NDETAILS];
		const char *level = NULL;
		struct result r;
		size_t n = 0;

		judge(ctx, &o, obj->scan, &ctx->targets[t], &r);
		tally(ctx, t, &r);
		if (fails(ctx, &r)) {
			level = "error";
		} else if (r.verdict == CT_VERDICT_PTX_JIT) {
			level = "warning";
		}
		if (level) {
			snprintf(title, sizeof(title), "cudatrace check: %s on %s",
				 ct_verdict_name(r.verdict), ctx->target_names[t]);
			snprintf(head, sizeof(head), "%s, %s: %s", obj->path, ctx->target_names[t],
				 r.reason);
			lines[n++] = head;
			for (k = 0; k < NDETAILS; k++)
				lines[n++] = r.details[k];
			snprintf(fix, sizeof(fix), "%s%s", r.fix[0] ? "fix: " : "", r.fix);
			lines[n++] = fix;
			github_say(level, obj->path, title, lines, n);
		}
		ct_verdict_release(&r.v);
	}
	if (!damaged(obj->scan))
		return;
	for (i = 0; i < obj->scan->nproblems; i++) {
		char text[256], msg[4096 + 512];
		const char *line = msg;

		if (!elfscan_problem_is_error(obj->scan->problems[i].code))
			continue;
		snprintf(msg, sizeof(msg), "%s: %s", obj->path,
			 elfscan_problem_describe(obj->scan, &obj->scan->problems[i], text,
						  sizeof(text)));
		github_say("error", obj->path, "cudatrace check: damaged", &line, 1);
	}
	raise_exit(ctx, CT_EXIT_BAD_INPUT);
}

/* "min_driver": what the newest PTX the driver must JIT needs, or null. */
static void json_min_driver(struct ct_json *j, const struct ct_verdict *v)
{
	const char *linux_driver;
	char isa[32], cuda[16];
	int need = min_driver(v, &linux_driver);

	ct_json_key(j, "min_driver");
	if (!need) {
		ct_json_null(j);
		return;
	}
	snprintf(isa, sizeof(isa), "%u.%u", v->ptx_isa_major, v->ptx_isa_minor);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "ptx_isa", isa);
	ct_json_kv_string(j, "cuda",
			  need > 10000 ? ct_cuda_version_words(need, cuda, sizeof(cuda)) : NULL);
	ct_json_kv_string(j, "linux", linux_driver);
	ct_json_object_end(j);
}

static void json_result(struct ct_json *j, const char *target, const struct elfscan_file *f,
			const struct result *r)
{
	char name[ELFSCAN_ARCH_NAME_MAX];
	size_t k;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "target", target);
	ct_json_kv_string(j, "verdict", ct_verdict_name(r->verdict));
	ct_json_kv_string(j, "code_verdict", ct_verdict_name(r->v.verdict));
	ct_json_kv_string(j, "image",
			  r->v.image >= 0 ? elfscan_image_arch_name(&f->images[r->v.image], name,
								    sizeof(name))
					  : NULL);
	ct_json_kv_string(j, "reason", r->reason);
	ct_json_key(j, "details");
	ct_json_array_begin(j);
	for (k = 0; k < NDETAILS; k++)
		if (r->details[k][0])
			ct_json_string(j, r->details[k]);
	ct_json_array_end(j);
	ct_json_kv_string(j, "fix", r->fix[0] ? r->fix : NULL);
	ct_json_kv_u64(j, "modules", r->v.modules);
	ct_json_kv_u64(j, "modules_without_image", r->v.no_image + r->v.other_gpus);
	ct_json_key(j, "fatbins");
	ct_json_object_begin(j);
	ct_json_kv_u64(j, "sass", r->v.sass);
	ct_json_kv_u64(j, "ptx_jit", r->v.ptx_jit);
	ct_json_kv_u64(j, "ptx_too_new", r->v.ptx_too_new);
	ct_json_kv_u64(j, "no_image", r->v.no_image);
	ct_json_kv_u64(j, "other_gpus", r->v.other_gpus);
	ct_json_kv_u64(j, "without_kernels", r->v.without_kernels);
	ct_json_kv_u64(j, "link_inputs", r->v.link_inputs);
	ct_json_object_end(j);
	json_min_driver(j, &r->v);
	ct_json_kv_string(j, "left_out", r->left_out[0] ? r->left_out : NULL);
	ct_json_key(j, "images");
	ct_json_array_begin(j);
	for (k = 0; k < r->v.npicks; k++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "arch", elfscan_image_arch_name(&f->images[r->v.picks[k].image],
								     name, sizeof(name)));
		ct_json_kv_string(j, "kind", elfscan_kind_name(r->v.picks[k].kind));
		ct_json_kv_u64(j, "fatbins", r->v.picks[k].fatbins);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "runtime": the CUDA runtime the object needs (cudart_need.h), or null. */
static void json_runtime(struct ct_json *j, const struct ct_cudart_need *rt)
{
	char release[16], cuda[16];
	const char *family = rt->major > 0 ? ct_family_driver(rt->major) : NULL;

	ct_json_key(j, "runtime");
	if (rt->link == CT_CUDART_UNKNOWN) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "link", rt->link == CT_CUDART_SHARED ? "shared" : "static");
	ct_json_kv_string(j, "soname", rt->soname[0] ? rt->soname : NULL);
	ct_json_key(j, "cuda_major");
	if (rt->major > 0)
		ct_json_u64(j, (uint64_t)rt->major);
	else
		ct_json_null(j);
	ct_json_kv_string(j, "release",
			  rt->release ? ct_cuda_version_words(rt->release, release, sizeof(release))
				      : NULL);
	ct_json_kv_string(j, "read_from", rt->why);
	ct_json_key(j, "min_driver");
	if (rt->major > 0 && family) {
		snprintf(cuda, sizeof(cuda), "%d.0", rt->major);
		ct_json_object_begin(j);
		ct_json_kv_string(j, "cuda", cuda);
		ct_json_kv_string(j, "linux", family);
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
	ct_json_object_end(j);
}

static void json_object(struct check_ctx *ctx, const struct ct_object *obj)
{
	struct object_facts o;
	struct ct_json *j = &ctx->j;
	size_t t;

	object_facts_init(&o, obj->path);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", obj->path);
	ct_json_kv_string(j, "error", obj->error);
	if (obj->scan && damaged(obj->scan)) {
		ct_json_kv_bool(j, "damaged", true);
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
	}
	if (obj->scan) {
		json_runtime(j, runtime_of(&o, obj->scan));
	} else {
		ct_json_key(j, "runtime");
		ct_json_null(j);
	}
	ct_json_key(j, "results");
	ct_json_array_begin(j);
	for (t = 0; obj->scan && t < ctx->ntargets; t++) {
		struct result r;

		judge(ctx, &o, obj->scan, &ctx->targets[t], &r);
		tally(ctx, t, &r);
		json_result(j, ctx->target_names[t], obj->scan, &r);
		ct_verdict_release(&r.v);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "driver": what --driver judged on, or null. */
static void json_driver(struct ct_json *j, const struct driver_opt *d)
{
	char cuda[16];

	ct_json_key(j, "driver");
	if (!d->cuda) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "given", d->given);
	ct_json_kv_string(j, "cuda",
			  d->cuda_known ? ct_cuda_version_words(d->cuda, cuda, sizeof(cuda)) : NULL);
	ct_json_key(j, "branch");
	if (d->branch && d->branch <= 999)
		ct_json_u64(j, d->branch);
	else
		ct_json_null(j);
	ct_json_object_end(j);
}


/*
 * --driver VERSION: a Linux driver (550.54.15, 550.54, 550), a CUDA
 * version (12.4), or native (this machine's, asked of libcuda.so.1).
 * Returns 0, or -1 after saying why.
 */
static int parse_driver(struct driver_opt *d, const char *arg)
{
	char cuda[16];
	bool linux_driver;
	int rc, newer;

	d->given = arg;
	if (strcmp(arg, "native") == 0) {
		struct ct_driver_probe *p = ct_xcalloc(1, sizeof(*p));

		ct_driver_probe(p);
		d->cuda = p->version;
		if (d->cuda <= 0)
			ct_error("check: --driver native: no driver to ask%s%s",
				 p->error[0] ? ": " : "", p->error);
		free(p);
		if (d->cuda <= 0)
			return -1;
		d->cuda_known = true;
		d->branch = ct_cuda_branch(d->cuda);
		snprintf(d->words, sizeof(d->words), "this machine's driver (CUDA %s)",
			 ct_cuda_version_words(d->cuda, cuda, sizeof(cuda)));
		return 0;
	}
	rc = ct_driver_parse(arg, &d->cuda);
	if (rc == -ERANGE) {
		ct_error("check: --driver '%s': older than the drivers of CUDA 11.0 (450); "
			 "give its CUDA version instead (such as 10.2)", arg);
		return -1;
	}
	if (rc < 0) {
		ct_error("check: --driver '%s': not a driver version (a Linux driver such as "
			 "550.54.15, 550.54 or 550, a CUDA version such as 12.4, or native)", arg);
		return -1;
	}
	/* A Linux branch past the table: its CUDA is not known, only newer. */
	linux_driver = strtoul(arg, NULL, 10) >= 100;
	ct_toolkit_driver(d->cuda, &newer);
	d->cuda_known = !linux_driver || !newer;
	d->branch = linux_driver ? (unsigned)strtoul(arg, NULL, 10) : ct_cuda_branch(d->cuda);
	if (!linux_driver)
		snprintf(d->words, sizeof(d->words), "a driver for CUDA %s",
			 ct_cuda_version_words(d->cuda, cuda, sizeof(cuda)));
	else if (d->cuda_known)
		snprintf(d->words, sizeof(d->words), "a driver for CUDA %s (%.40s)",
			 ct_cuda_version_words(d->cuda, cuda, sizeof(cuda)), arg);
	else
		snprintf(d->words, sizeof(d->words), "driver %.40s", arg);
	return 0;
}

static int on_object(void *p, const struct ct_object *obj)
{
	struct check_ctx *ctx = p;

	ctx->reached++;
	if (obj->error)
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
	else
		ctx->objects++, ctx->with_code += obj->scan->nimages != 0;
	if (ctx->json) {
		json_object(ctx, obj);
	} else if (obj->error && ctx->github) {
		char msg[4096 + 512];
		const char *line = msg;

		snprintf(msg, sizeof(msg), "cannot read '%s': %s", obj->path, obj->error);
		github_say("error", obj->path, "cudatrace check: unreadable", &line, 1);
	} else if (obj->error) {
		ct_error("cannot read '%s': %s", obj->path, obj->error);
	} else if (ctx->github) {
		github_object(ctx, obj);
	} else if (!obj->scan->nimages && !ctx->verbose && !obj->named && !damaged(obj->scan)) {
		/* It passes: counted in one line, as scan does. */
		ctx->unlisted++;
	} else {
		text_object(ctx, obj);
	}
	return 0;
}

/*
 * Nothing was read at all (an empty folder, a pattern that matched only
 * folders): no verdict, exit 2. Returns whether it was so.
 */
static bool nothing_to_check(struct check_ctx *ctx, char *const *paths, size_t n)
{
	char words[4096 + 128];
	const char *line = words;

	if (ctx->files || ctx->reached)
		return false;
	if (n == 1)
		snprintf(words, sizeof(words), "nothing to check: '%.4096s' holds no file", paths[0]);
	else
		snprintf(words, sizeof(words), "nothing to check: the %zu paths given hold no file",
			 n);
	if (ctx->github)
		ct_github_annotation(stdout, "error", NULL, "cudatrace check: nothing to check",
				     &line, 1);
	else
		ct_error("check: %s", words);
	ctx->exit_code = CT_EXIT_BAD_INPUT;
	return true;
}

/*
 * Files, but no device code in any: the gate passes, and says how little
 * it judged ("0 of 3 objects carry device code"), in text a line of its
 * own, in GitHub's format a notice. Otherwise text counts the objects it
 * did not list.
 */
static void say_counts(const struct check_ctx *ctx)
{
	char words[256];
	const char *line = words;

	if (ctx->with_code || ctx->reached > ctx->objects) {
		if (!ctx->github && ctx->unlisted && !ctx->quiet)
			ct_cmd_unlisted(ctx->unlisted);
		return;
	}
	if (ctx->objects)
		snprintf(words, sizeof(words), "0 of %zu object%s carr%s device code%s", ctx->objects,
			 ctx->objects == 1 ? "" : "s", ctx->objects == 1 ? "ies" : "y",
			 ctx->unlisted && !ctx->github ? " (-v lists them)" : "");
	else
		snprintf(words, sizeof(words), "no object in %zu file%s: none is an ELF file, "
			 "cubin, fatbin or PTX, nor a wheel holding one", ctx->files,
			 ctx->files == 1 ? "" : "s");
	if (ctx->github)
		ct_github_annotation(stdout, "notice", NULL, "cudatrace check: no device code", &line,
				     1);
	else
		ct_tprintf(stdout, "%s\n", words);
}

/*
 * The total, a line per target: "1 of 2 objects cannot run on sm_90",
 * "2 of 2 objects can run on sm_90 (1 only by JIT from PTX)"; over the
 * objects with device code (those without cannot fail a launch), and
 * those that could not be read. Nothing when none has device code
 * (say_counts said so).
 */
static void say_total(const struct check_ctx *ctx)
{
	size_t t, unread = ctx->reached - ctx->objects;

	for (t = 0; t < ctx->ntargets; t++) {
		size_t n = ctx->judged[t], other = ctx->failed[t] - ctx->cannot[t];
		bool open = false;

		if (!n)
			continue;
		if (ctx->cannot[t]) {
			ct_text_colour(stdout, ctx->colour, "1;31");
			ct_tprintf(stdout, "%zu of %zu object%s cannot run on %s", ctx->cannot[t], n,
				   n == 1 ? "" : "s", ctx->target_names[t]);
			ct_text_colour(stdout, ctx->colour, "0");
		} else {
			ct_tprintf(stdout, "%zu of %zu object%s can run on %s", n, n, n == 1 ? "" : "s",
				   ctx->target_names[t]);
		}
		if (ctx->jit[t]) {
			ct_tprintf(stdout, " (");
			open = true;
			ct_text_colour(stdout, ctx->colour, ctx->require_sass ? "1;31" : "33");
			ct_tprintf(stdout, "%zu only by JIT from PTX%s", ctx->jit[t],
				   ctx->require_sass ? ", which --require-sass fails" : "");
			ct_text_colour(stdout, ctx->colour, "0");
		}
		/* Fails that are no "cannot run": --every-module's fatbins for other GPUs. */
		if (other > (ctx->require_sass ? ctx->jit[t] : 0)) {
			ct_tprintf(stdout, "%s", open ? "; " : " (");
			open = true;
			ct_tprintf(stdout, "%zu with fatbins for other GPUs only, which "
				   "--every-module fails", other - (ctx->require_sass ? ctx->jit[t] : 0));
		}
		ct_tprintf(stdout, "%s%s\n", open ? ")" : "",
			   unread ? "; some objects could not be read (above)" : "");
	}
}

/* "totals": say_total's counts, a member per target; "unreadable": what was not read. */
static void json_totals(struct check_ctx *ctx)
{
	struct ct_json *j = &ctx->j;
	size_t t;

	ct_json_key(j, "totals");
	ct_json_array_begin(j);
	for (t = 0; t < ctx->ntargets; t++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "target", ctx->target_names[t]);
		ct_json_kv_u64(j, "objects", ctx->judged[t]);
		ct_json_kv_u64(j, "cannot_run", ctx->cannot[t]);
		ct_json_kv_u64(j, "ptx_jit", ctx->jit[t]);
		ct_json_kv_u64(j, "fail", ctx->failed[t]);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_kv_u64(j, "without_device_code", ctx->objects - ctx->with_code);
	ct_json_kv_u64(j, "unreadable", ctx->reached - ctx->objects);
}

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace check --arch ARCH[,ARCH...] [--driver VERSION]\n"
		"                       [--json | --format FORMAT] [-q] [-v] PATH...\n"
		"\n"
		"For each object with device code and each target GPU arch: what the\n"
		"driver would pick in each fatbin, counted, and the verdict sass,\n"
		"ptx-jit, ptx-too-new, no-image or no-device-code (with --driver also\n"
		"no-gpu-support or driver-too-old), with the reason; for PTX, the\n"
		"lowest driver that compiles it. Then the total per target: \"1 of 2\n"
		"objects cannot run on sm_90\".\n"
		"\n"
		"  --arch ARCH       sm_90, sm_90a, sm_100f, 9.0, 90, or native (the GPUs\n"
		"                    the driver reports); repeat or separate with commas\n"
		"  --json            one JSON document on stdout (--format json)\n"
		"  --format FORMAT   text (the default), json, or github: GitHub Actions\n"
		"                    annotations, an ::error per object that cannot run\n"
		"                    on a target, a ::warning per one that runs only by\n"
		"                    JIT from PTX\n"
		"  --require-sass    fail on ptx-jit too (JIT at first launch)\n"
		"  --driver VERSION  judge against this driver: a Linux driver\n"
		"                    (550.54.15, 550.54, 550), a CUDA version (12.4), or\n"
		"                    native (this machine's); a target GPU its branch does\n"
		"                    not drive is no-gpu-support, a CUDA runtime newer\n"
		"                    than it runs driver-too-old, PTX it cannot compile\n"
		"                    ptx-too-new: each fails\n"
		"  -q, --quiet       only the objects that fail or run only by JIT, and\n"
		"                    the total\n"
		"  -v, --verbose     the fatbins left out of a verdict and why (no kernel,\n"
		"                    -rdc link inputs), and the objects without device\n"
		"                    code that a directory or wheel holds (else counted\n"
		"                    in one line)\n"
		"  --color[=WHEN]    colour the verdicts: auto (a terminal, NO_COLOR\n"
		"                    unset; the default), always, never\n"
		"  --every-module    fail on fatbins that hold code for other GPUs only\n"
		"                    too ('a'/'f' code, or one of NVIDIA's libraries that\n"
		"                    pick kernels per GPU); other fatbins without an\n"
		"                    image fail anyway\n"
		"\n"
		"Exit status: 0 every object can run on every target (when none carries\n"
		"device code, the count says so), 1 one cannot, 2 usage error, an\n"
		"unreadable or damaged input, or no file at all to check.\n");
}

int ct_cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "require-sass", no_argument, NULL, 's' },
		{ "every-module", no_argument, NULL, 'm' },
		{ "driver", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct check_ctx *ctx = ct_xcalloc(1, sizeof(*ctx));
	struct ct_walk_options wo = { 0 };
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (ct_cmd_targets(optarg, ctx->targets, ctx->target_names,
					     &ctx->ntargets, MAX_TARGETS) != 0) {
				free(ctx);
				return CT_EXIT_BAD_INPUT;
			}
			break;
		case 'j':
			ctx->json = true;
			ctx->github = false;
			break;
		case 'f':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0 &&
			    strcmp(optarg, "github") != 0) {
				ct_error("check: unknown format '%s' (text, json or github)",
					 optarg);
				free(ctx);
				return CT_EXIT_BAD_INPUT;
			}
			ctx->json = strcmp(optarg, "json") == 0;
			ctx->github = strcmp(optarg, "github") == 0;
			break;
		case 's':
			ctx->require_sass = true;
			break;
		case 'm':
			ctx->every_module = true;
			break;
		case 'd':
			if (parse_driver(&ctx->driver, optarg) != 0) {
				free(ctx);
				return CT_EXIT_BAD_INPUT;
			}
			break;
		case 'v':
			ctx->verbose = true;
			break;
		case 'q':
			ctx->quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0) {
				free(ctx);
				return CT_EXIT_BAD_INPUT;
			}
			break;
		case 'h':
			usage(stdout);
			free(ctx);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			free(ctx);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (ctx->ntargets == 0 || optind >= argc) {
		ct_error(ctx->ntargets == 0 ? "check: --arch is required"
					    : "check: no PATH given");
		usage(stderr);
		free(ctx);
		return CT_EXIT_BAD_INPUT;
	}
	if (ct_cmd_no_stdin("check", argv + optind, (size_t)(argc - optind)) != 0) {
		free(ctx);
		return CT_EXIT_BAD_INPUT;
	}
	ctx->colour = !ctx->json && !ctx->github && ct_want_colour(stdout);
	if (ctx->json) {
		ct_json_init(&ctx->j, stdout);
		ct_json_object_begin(&ctx->j);
		ct_json_kv_string(&ctx->j, "schema", CT_SCHEMA_CHECK);
		json_driver(&ctx->j, &ctx->driver);
		ct_json_key(&ctx->j, "files");
		ct_json_array_begin(&ctx->j);
	}
	wo.threads = (unsigned)ct_threads(4) - 1;
	wo.files = &ctx->files;
	ct_walk(argv + optind, (size_t)(argc - optind), &wo, on_object, ctx);
	if (ctx->json) {
		ct_json_array_end(&ctx->j);
		json_totals(ctx);
		ct_json_object_end(&ctx->j);
		ct_json_finish(&ctx->j);
	}
	if (!nothing_to_check(ctx, argv + optind, (size_t)(argc - optind)) && !ctx->json) {
		say_counts(ctx);
		if (!ctx->github)
			say_total(ctx);
	}
	rc = ctx->exit_code;
	free(ctx);
	return rc;
}

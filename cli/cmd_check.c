/*
 * cudatrace check --arch ARCH: for each object and target, the image the
 * driver would pick and whether anything runs at all. A CI gate for
 * extension authors.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "util.h"
#include "inputs.h"
#include "commands.h"
#include "elfscan.h"
#include "diagnose.h"
#include "json.h"
#include "summary.h"
#include "text.h"

#define MAX_TARGETS 32

enum verdict { V_SASS, V_PTX_JIT, V_NO_IMAGE, V_NO_DEVICE_CODE };

static const char *const verdict_names[] = { "sass", "ptx-jit", "no-image",
					     "no-device-code" };

struct check_ctx {
	struct elfscan_target targets[MAX_TARGETS];
	char target_names[MAX_TARGETS][CT_TARGET_NAME];
	size_t ntargets;
	bool json, every_module, require_sass;
	struct ct_json j;
	int exit_code;
};

struct result {
	enum verdict verdict;
	long image;              /* index in the file's images, or -1 */
	size_t modules;          /* containers with images */
	size_t modules_without;  /* ... of which none runs on the target */
	char reason[1024];       /* why, in one sentence */
	char details[2][512];    /* consequences, one line each */
	char fix[256];
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

static bool any_variant(const struct ct_summary *s, unsigned kind,
			enum elfscan_variant v)
{
	size_t i;

	for (i = 0; i < s->narchs; i++)
		if (s->archs[i].kind == kind && s->archs[i].variant == v)
			return true;
	return false;
}

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
	snprintf(r->details[0], sizeof(r->details[0]),
		 "the first launch is slow (JIT cache: ~/.nv/ComputeCache)");
	snprintf(r->fix, sizeof(r->fix),
		 "add SASS for %u.%u: -gencode arch=compute_%u%u,code=sm_%u%u "
		 "(TORCH_CUDA_ARCH_LIST=\"%u.%u\")",
		 t->major, t->minor, t->major, t->minor, t->major, t->minor,
		 t->major, t->minor);
}

static void judge(const struct check_ctx *ctx, const struct elfscan_file *f,
		  const struct elfscan_target *t, struct result *r)
{
	struct ct_summary s;
	char sass[512], ptx[512];
	size_t c;
	bool runnable_kind = false;

	memset(r, 0, sizeof(*r));
	r->image = -1;
	for (c = 0; c < f->nimages; c++)
		runnable_kind |= f->images[c].kind == ELFSCAN_KIND_SASS ||
				 f->images[c].kind == ELFSCAN_KIND_PTX ||
				 f->images[c].kind == ELFSCAN_KIND_LTOIR;
	if (!runnable_kind) {
		r->verdict = V_NO_DEVICE_CODE;
		say(r, "no device code");
		return;
	}
	for (c = 0; c < f->ncontainers; c++) {
		const struct elfscan_container *ct = &f->containers[c];
		size_t k, loadable = 0;

		/* LTO-IR-only modules are nvJitLink inputs, never loaded. */
		for (k = ct->first_image; k < ct->first_image + ct->nimages; k++)
			loadable += f->images[k].kind != ELFSCAN_KIND_LTOIR;
		if (!loadable)
			continue;
		r->modules++;
		if (elfscan_pick_image(f->images + ct->first_image, ct->nimages,
				       t) < 0)
			r->modules_without++;
	}
	ct_summary_build(&s, f, 0, f->nimages);
	r->image = elfscan_pick_image(f->images, f->nimages, t);
	if (r->image >= 0) {
		const struct elfscan_image *img = &f->images[r->image];

		r->verdict = img->kind == ELFSCAN_KIND_SASS ? V_SASS : V_PTX_JIT;
		if (r->verdict == V_PTX_JIT)
			say(r, "no SASS for %u.%u (SASS: %s); ", t->major, t->minor,
			    ct_summary_archs(&s, ELFSCAN_KIND_SASS, sass,
					     sizeof(sass)));
		explain_pick(r, img, t);
		if (r->modules_without)
			snprintf(r->details[1], sizeof(r->details[1]),
				 "%zu of %zu fatbin modules have no image for %u.%u "
				 "(libraries that pick kernels per GPU do this on "
				 "purpose; --every-module fails on it)",
				 r->modules_without, r->modules, t->major, t->minor);
		ct_summary_release(&s);
		(void)ctx;
		return;
	}
	r->verdict = V_NO_IMAGE;
	say(r, "no SASS that runs on %u.%u (SASS: %s) and no PTX the driver "
	       "can compile for it (PTX: %s)",
	    t->major, t->minor,
	    ct_summary_archs(&s, ELFSCAN_KIND_SASS, sass, sizeof(sass)),
	    ct_summary_archs(&s, ELFSCAN_KIND_PTX, ptx, sizeof(ptx)));
	if (any_variant(&s, ELFSCAN_KIND_SASS, ELFSCAN_VARIANT_A) ||
	    any_variant(&s, ELFSCAN_KIND_PTX, ELFSCAN_VARIANT_A))
		say(r, "; 'a' code such as sm_90a runs only on exactly that arch");
	if (any_variant(&s, ELFSCAN_KIND_SASS, ELFSCAN_VARIANT_F) ||
	    any_variant(&s, ELFSCAN_KIND_PTX, ELFSCAN_VARIANT_F))
		say(r, "; 'f' code such as sm_100f runs only within its major family");
	if (s.nkind[2] && !s.nkind[0] && !s.nkind[1])
		say(r, "; LTO-IR is linked by nvJitLink and never runs by itself");
	snprintf(r->details[0], sizeof(r->details[0]),
		 "kernel launches fail with \"no kernel image is available for "
		 "execution on the device\"");
	snprintf(r->fix, sizeof(r->fix),
		 "rebuild with -gencode arch=compute_%u%u,code=sm_%u%u "
		 "(TORCH_CUDA_ARCH_LIST=\"%u.%u\")",
		 t->major, t->minor, t->major, t->minor, t->major, t->minor);
	ct_summary_release(&s);
}

static bool fails(const struct check_ctx *ctx, const struct result *r)
{
	return r->verdict == V_NO_IMAGE ||
	       (ctx->require_sass && r->verdict == V_PTX_JIT) ||
	       (ctx->every_module && r->modules_without);
}

static bool damaged(const struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++)
		if (elfscan_problem_is_error(f->problems[i].code))
			return true;
	return false;
}

static void text_object(struct check_ctx *ctx, const struct ct_object *obj)
{
	size_t t;
	int k;

	ct_tprintf(stdout, "%s\n", obj->path);
	for (t = 0; t < ctx->ntargets; t++) {
		struct result r;

		judge(ctx, obj->scan, &ctx->targets[t], &r);
		ct_tprintf(stdout, "  %-8s %-14s %s\n", ctx->target_names[t],
		       verdict_names[r.verdict], r.reason);
		for (k = 0; k < 2; k++)
			if (r.details[k][0])
				ct_tprintf(stdout, "  %-8s %-14s %s\n", "", "", r.details[k]);
		if (r.fix[0])
			ct_tprintf(stdout, "  %-8s %-14s fix: %s\n", "", "", r.fix);
		if (fails(ctx, &r))
			raise_exit(ctx, CT_EXIT_FINDING);
	}
	if (damaged(obj->scan)) {
		size_t i;

		for (i = 0; i < obj->scan->nproblems; i++) {
			char text[256];

			if (!elfscan_problem_is_error(obj->scan->problems[i].code))
				continue;
			ct_tprintf(stdout, "  error: %s\n",
			       elfscan_problem_describe(obj->scan,
							&obj->scan->problems[i],
							text, sizeof(text)));
		}
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
	}
}

static void json_object(struct check_ctx *ctx, const struct ct_object *obj)
{
	struct ct_json *j = &ctx->j;
	size_t t;
	int k;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", obj->path);
	ct_json_kv_string(j, "error", obj->error);
	if (obj->scan && damaged(obj->scan)) {
		ct_json_kv_bool(j, "damaged", true);
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
	}
	ct_json_key(j, "results");
	ct_json_array_begin(j);
	for (t = 0; obj->scan && t < ctx->ntargets; t++) {
		struct result r;
		char name[ELFSCAN_ARCH_NAME_MAX];

		judge(ctx, obj->scan, &ctx->targets[t], &r);
		if (fails(ctx, &r))
			raise_exit(ctx, CT_EXIT_FINDING);
		ct_json_object_begin(j);
		ct_json_kv_string(j, "target", ctx->target_names[t]);
		ct_json_kv_string(j, "verdict", verdict_names[r.verdict]);
		ct_json_kv_string(j, "image",
				  r.image >= 0
					  ? elfscan_image_arch_name(
						    &obj->scan->images[r.image],
						    name, sizeof(name))
					  : NULL);
		ct_json_kv_string(j, "reason", r.reason);
		ct_json_key(j, "details");
		ct_json_array_begin(j);
		for (k = 0; k < 2; k++)
			if (r.details[k][0])
				ct_json_string(j, r.details[k]);
		ct_json_array_end(j);
		ct_json_kv_string(j, "fix", r.fix[0] ? r.fix : NULL);
		ct_json_kv_u64(j, "modules", r.modules);
		ct_json_kv_u64(j, "modules_without_image", r.modules_without);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

static int on_object(void *p, const struct ct_object *obj)
{
	struct check_ctx *ctx = p;

	if (obj->error)
		raise_exit(ctx, CT_EXIT_BAD_INPUT);
	if (ctx->json)
		json_object(ctx, obj);
	else if (obj->error)
		ct_error("cannot read '%s': %s", obj->path, obj->error);
	else
		text_object(ctx, obj);
	return 0;
}

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace check --arch ARCH[,ARCH...] [--json] PATH...\n"
		"\n"
		"For each object with device code and each target GPU arch: the image\n"
		"the driver would pick and the verdict sass, ptx-jit, no-image or\n"
		"no-device-code, with the reason.\n"
		"\n"
		"  --arch ARCH       sm_90, sm_90a, sm_100f, 9.0, 90, or native (the GPUs\n"
		"                    the driver reports); repeat or separate with commas\n"
		"  --json            one JSON document on stdout\n"
		"  --require-sass    fail on ptx-jit too (JIT at first launch)\n"
		"  --every-module    fail when any fatbin module lacks an image for a\n"
		"                    target, even if others in the file have one\n"
		"\n"
		"Exit status: 0 every object can run on every target, 1 one cannot,\n"
		"2 usage error or an unreadable or damaged input.\n");
}

int ct_cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "require-sass", no_argument, NULL, 's' },
		{ "every-module", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_ctx *ctx = ct_xcalloc(1, sizeof(*ctx));
	struct ct_walk_options wo = { 0 };
	int c, i, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:h", opts, NULL)) != -1) {
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
			break;
		case 's':
			ctx->require_sass = true;
			break;
		case 'm':
			ctx->every_module = true;
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
	if (ctx->json) {
		ct_json_init(&ctx->j, stdout);
		ct_json_object_begin(&ctx->j);
		ct_json_key(&ctx->j, "files");
		ct_json_array_begin(&ctx->j);
	}
	for (i = optind; i < argc; i++)
		ct_walk(argv[i], &wo, on_object, ctx);
	if (ctx->json) {
		ct_json_array_end(&ctx->j);
		ct_json_object_end(&ctx->j);
		ct_json_finish(&ctx->j);
	}
	rc = ctx->exit_code;
	free(ctx);
	return rc;
}

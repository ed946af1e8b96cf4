/*
 * cudatrace check --arch ARCH: for each object and target, what the
 * driver would run in each of its fatbins (cli/common/verdict.c), summed
 * into a verdict with its reason and fix (cli/common/check_judge.c). A CI
 * gate for extension authors. This file parses the options, walks the
 * inputs, reads what the judge asks of each file (the loader's facts)
 * and counts the verdicts; check_out.c prints them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "check_judge.h"
#include "check_out.h"
#include "commands.h"
#include "compat.h"
#include "cudart_need.h"
#include "elfinfo.h"
#include "github.h"
#include "gpu.h"
#include "inputs.h"
#include "libnames.h"
#include "report.h"
#include "text.h"
#include "util.h"

/* What the loader reads of the object being judged, for the judge (check_judge.h). */
struct object_facts {
	struct ct_check_object o;
	struct ct_cudart_need runtime; /* the CUDA runtime it needs, once runtime_read */
	bool runtime_read;
};

/* The CUDA runtime the object needs (cudart_need.h), read once from its scan. */
static const struct ct_cudart_need *runtime_of(struct object_facts *o,
					       const struct elfscan_file *f)
{
	if (!o->runtime_read) {
		ct_cudart_need_read(&o->runtime, f);
		ct_cudart_need_named(&o->runtime, f, o->o.path);
		o->runtime_read = true;
	}
	return &o->runtime;
}

/* The runtime as --driver judges it (struct ct_check_reads). */
static void runtime_read(void *arg, const struct elfscan_file *f, struct ct_check_runtime *rt)
{
	const struct ct_cudart_need *need = runtime_of(arg, f);

	rt->shared = need->link == CT_CUDART_SHARED;
	rt->soname = need->soname;
	rt->major = need->major;
	rt->release = need->release;
	rt->named = strcmp(need->why ? need->why : "", "soname") == 0 ? need->own_soname : NULL;
	rt->by_folder = need->by_folder;
}

/* Its DT_SONAME, for a copy of a per-GPU library under another name. */
static bool soname_per_gpu(const char *path)
{
	struct ct_elfinfo e;
	bool per_gpu = false;

	ct_elfinfo_init(&e);
	if (ct_elfinfo_read(&e, path) == 0 && e.soname)
		per_gpu = ct_cuda_library_per_gpu(e.soname);
	ct_elfinfo_release(&e);
	return per_gpu;
}

/* Its DT_NEEDED; a wheel's member is read in memory only: unknown (-1). */
static int links_torch(const char *path)
{
	struct ct_elfinfo e;
	int torch = -1;
	size_t i;

	ct_elfinfo_init(&e);
	if (!strchr(path, '!') && ct_elfinfo_read(&e, path) == 0)
		for (torch = 0, i = 0; i < e.nneeded && !torch; i++)
			torch = ct_library_torch(e.needed[i]);
	ct_elfinfo_release(&e);
	return torch;
}

static const struct ct_check_reads reads = { soname_per_gpu, links_torch, runtime_read };

static void object_facts_init(struct object_facts *o, const char *path)
{
	ct_check_object_init(&o->o, path, &reads, o);
	o->runtime_read = false;
}

static void raise_exit(struct ct_check_cmd *c, int code)
{
	if (code == CT_EXIT_BAD_INPUT || c->exit_code == CT_EXIT_OK)
		c->exit_code = code;
}

/* One object's verdict on target t, counted for the total; raises the exit status. */
static void tally(struct ct_check_cmd *c, size_t t, const struct ct_check_result *r)
{
	if (ct_check_fails(r, &c->opts))
		raise_exit(c, CT_EXIT_FINDING);
	if (r->verdict == CT_VERDICT_NO_DEVICE_CODE)
		return;
	c->judged[t]++;
	c->failed[t] += ct_check_fails(r, &c->opts);
	c->cannot[t] += ct_check_cannot_run(r);
	c->jit[t] += r->verdict == CT_VERDICT_PTX_JIT;
}

/* The object judged on every target into c->results, counted; a damaged one raises 2. */
static void judge_object(struct ct_check_cmd *c, struct object_facts *o,
			 const struct elfscan_file *f)
{
	size_t t;

	for (t = 0; t < c->ntargets; t++) {
		ct_check_judge(&c->results[t], &o->o, f, &c->targets[t], &c->opts);
		tally(c, t, &c->results[t]);
	}
	if (ct_check_damaged(f))
		raise_exit(c, CT_EXIT_BAD_INPUT);
}

static void release_results(struct ct_check_cmd *c, size_t n)
{
	size_t t;

	for (t = 0; t < n; t++)
		ct_verdict_release(&c->results[t].v);
}

/*
 * --driver VERSION: a Linux driver (550.54.15, 550.54, 550), a CUDA
 * version (12.4), or native (this machine's, asked of libcuda.so.1).
 * Returns 0, or -1 after saying why.
 */
static int parse_driver(struct ct_check_driver *d, const char *arg)
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
	struct ct_check_cmd *c = p;
	struct object_facts o;

	c->reached++;
	if (obj->error)
		raise_exit(c, CT_EXIT_BAD_INPUT);
	else
		c->objects++, c->with_code += obj->scan->nimages != 0;
	if (c->json) {
		size_t n = obj->scan ? c->ntargets : 0;

		if (obj->scan) {
			object_facts_init(&o, obj->path);
			judge_object(c, &o, obj->scan);
		}
		ct_check_json_object(c, obj, obj->scan ? runtime_of(&o, obj->scan) : NULL,
				     c->results, n);
		release_results(c, n);
	} else if (obj->error && c->github) {
		ct_check_github_unreadable(obj);
	} else if (obj->error) {
		ct_error("cannot read '%s': %s", obj->path, obj->error);
	} else if (!c->github && !obj->scan->nimages && !c->verbose && !obj->named &&
		   !ct_check_damaged(obj->scan)) {
		/* It passes: counted in one line, as scan does. */
		c->unlisted++;
	} else {
		object_facts_init(&o, obj->path);
		judge_object(c, &o, obj->scan);
		if (c->github)
			ct_check_github_object(c, obj, c->results);
		else
			ct_check_text_object(c, obj, c->results);
		release_results(c, c->ntargets);
	}
	return 0;
}

/*
 * Nothing was read at all (an empty folder, a pattern that matched only
 * folders): no verdict, exit 2. Returns whether it was so.
 */
static bool nothing_to_check(struct ct_check_cmd *c, char *const *paths, size_t n)
{
	char words[4096 + 128];
	const char *line = words;

	if (c->files || c->reached)
		return false;
	if (n == 1)
		snprintf(words, sizeof(words), "nothing to check: '%.4096s' holds no file", paths[0]);
	else
		snprintf(words, sizeof(words), "nothing to check: the %zu paths given hold no file",
			 n);
	if (c->github)
		ct_github_annotation(stdout, "error", NULL, "cudatrace check: nothing to check",
				     &line, 1);
	else
		ct_error("check: %s", words);
	c->exit_code = CT_EXIT_BAD_INPUT;
	return true;
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
	struct ct_check_cmd *ctx = ct_xcalloc(1, sizeof(*ctx));
	struct ct_walk_options wo = { 0 };
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (ct_cmd_targets(optarg, ctx->targets, ctx->target_names,
					     &ctx->ntargets, CT_CHECK_TARGETS_MAX) != 0) {
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
			ctx->opts.require_sass = true;
			break;
		case 'm':
			ctx->opts.every_module = true;
			break;
		case 'd':
			if (parse_driver(&ctx->opts.driver, optarg) != 0) {
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
	if (ctx->json)
		ct_check_json_begin(ctx);
	wo.threads = (unsigned)ct_threads(4) - 1;
	wo.files = &ctx->files;
	ct_walk(argv + optind, (size_t)(argc - optind), &wo, on_object, ctx);
	if (ctx->json)
		ct_check_json_end(ctx);
	if (!nothing_to_check(ctx, argv + optind, (size_t)(argc - optind)) && !ctx->json) {
		ct_check_say_counts(ctx);
		if (!ctx->github)
			ct_check_say_total(ctx);
	}
	rc = ctx->exit_code;
	free(ctx);
	return rc;
}

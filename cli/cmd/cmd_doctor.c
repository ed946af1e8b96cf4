/*
 * cudatrace doctor: the driver, GPUs and CUDA runtimes of this machine,
 * LD_LIBRARY_PATH's effect on them, and the findings that follow, with no
 * program to run. The facts come from doctor.c, the findings from
 * doctor_rules.c; here they are shown, as text, JSON or Markdown.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "cuda_errors.h"
#include "util.h"
#include "gpu.h"
#include "commands.h"
#include "doctor.h"
#include "describe.h"
#include "explain.h"
#include "facts.h"
#include "findings.h"
#include "findings_out.h"
#include "json.h"
#include "markdown.h"
#include "packages.h"
#include "packages_out.h"
#include "schema.h"
#include "report.h"
#include "text.h"

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace doctor [--json | --markdown] [-q] [-v] [--arch ARCH] [--python PATH]\n"
		"\n"
		"The CUDA driver of this machine (the libcuda.so.1 the loader takes, its\n"
		"version, the CUDA version it supports, cuInit, the kernel module,\n"
		"forward-compatibility copies), its GPUs, every CUDA runtime on it\n"
		"(libcudart.so.N in the loader's folders, CUDA toolkits, pip wheels of the\n"
		"python3 on PATH, conda) and whether the driver runs it, the CUDA libraries\n"
		"LD_LIBRARY_PATH puts before other copies, and the findings that follow.\n"
		"Then the Python packages with CUDA code of the python3 on PATH, of\n"
		"$VIRTUAL_ENV and $CONDA_PREFIX (or of --python): will their native modules\n"
		"load, were their extensions built against the torch installed, does their\n"
		"device code run on these GPUs (or --arch), is their CUDA build at most the\n"
		"driver's. Nothing is run but the driver's own queries; nothing is imported.\n"
		"\n"
		"  --json          one JSON document on stdout\n"
		"  --markdown      GitHub-flavoured Markdown, to paste into an issue: the\n"
		"                  verdict and findings, the facts in collapsed sections\n"
		"  -q, --quiet     the verdict and the findings only (no facts)\n"
		"  -v, --verbose   every line of evidence, the driver search's candidates,\n"
		"                  and each package's objects with their device code\n"
		"  --color[=WHEN]  colour the severities: auto (a terminal, NO_COLOR\n"
		"                  unset; the default), always, never\n"
		"  --arch ARCH     judge device code for these GPUs (sm_90, sm_100,...)\n"
		"                  instead of the ones the driver reports\n"
		"  --python PATH   judge this interpreter's packages only\n"
		"\n"
		"exit status: 0 no error found, 1 an error found (the machine's or a\n"
		"package's), 2 usage\n");
}

/* "CUDA 12.4", or "an unknown CUDA version". */
/* ---- text ------------------------------------------------------------------- */

static void print_verdict(FILE *out, const struct ct_findings *fs,
			  const struct ct_pyenv *envs, size_t n, bool colour)
{
	ct_tprintf(out, "cudatrace doctor: ");
	ct_findings_tally(out, fs, colour);
	ct_pyenvs_tally(out, envs, n);
	ct_tprintf(out, "\n");
}

static void print_driver(FILE *out, const struct ct_doctor *d, bool verbose)
{
	const struct ct_doctor_driver *drv = &d->drv;
	const struct ct_driver_probe *p = &drv->probe;
	char rule[256], v[32];
	size_t i;

	ct_rule_text(drv->search->found_via, drv->search->via_owner, rule, sizeof(rule));
	if (drv->path)
		ct_tprintf(out, "  libcuda.so.1    %s [%s]%s\n", drv->path, rule,
		       drv->compat ? ", forward compatibility" : "");
	else
		ct_tprintf(out, "  libcuda.so.1    not found\n");
	if (verbose || !drv->path) {
		struct ct_answer_cands cands;
		struct ct_arena a;

		ct_arena_init(&a);
		ct_answer_cands_from(&cands, &a, drv->search, 0, drv->search->ncands);
		ct_print_lookup_candidates(out, &cands, "    ");
		ct_arena_release(&a);
	}
	/* dlopen is the truth; the model says why. Say so when they part. */
	if (p->path[0] && (!drv->path || strcmp(p->path, drv->path) != 0))
		ct_tprintf(out, "  loaded          %s\n", p->path);
	if (!p->opened)
		ct_tprintf(out, "  load error      %s\n", p->error);
	if (drv->version[0] || p->version > 0)
		ct_tprintf(out, "  version         %s%s%s%s\n", drv->version[0] ? drv->version : "",
		       drv->version[0] && p->version > 0 ? ", " : "",
		       p->version > 0 ? "CUDA " : "",
		       p->version > 0 ? ct_cuda_version_words(p->version, v, sizeof(v)) : "");
	if (p->init_result >= 0)
		ct_tprintf(out, "  cuInit          %d (%s: %s)\n", p->init_result,
		       ct_cu_error_name(p->init_result), ct_cu_error_text(p->init_result));
	if (drv->module_version[0] && drv->module_gpus >= 0)
		ct_tprintf(out, "  kernel module   %s (%s/version), %d GPU%s\n", drv->module_version,
		       drv->proc, drv->module_gpus, drv->module_gpus == 1 ? "" : "s");
	else if (drv->module_version[0])
		ct_tprintf(out, "  kernel module   %s (%s/version)\n", drv->module_version, drv->proc);
	else
		ct_tprintf(out, "  kernel module   none (%s/version does not exist)\n", drv->proc);
	for (i = 0; i < drv->ncompat; i++) {
		const struct ct_doctor_compat *c = &drv->compat_libs[i];

		ct_tprintf(out, "  forward compat  %s %s, %s\n", c->path, c->version[0] ? c->version : "",
		       c->taken ? "taken" : c->on_ld_library_path ? "on LD_LIBRARY_PATH, not taken"
								  : "not on LD_LIBRARY_PATH");
	}
}

/* What collect_env and issue templates ask first: the OS, the kernel, glibc. */
static void print_system(FILE *out, const struct ct_doctor *d)
{
	const struct ct_system *s = &d->sys;

	ct_tprintf(out, "  OS      %s\n", s->os[0] ? s->os : "not known (no os-release file)");
	ct_tprintf(out, "  kernel  %s%s%s%s\n", s->kernel[0] ? s->kernel : "not known",
		   s->machine[0] ? " (" : "", s->machine, s->machine[0] ? ")" : "");
	ct_tprintf(out, "  glibc   %s\n", s->glibc[0] ? s->glibc : "not known");
}

static void json_system(struct ct_json *j, const struct ct_doctor *d)
{
	const struct ct_system *s = &d->sys;

	ct_json_key(j, "system");
	ct_json_object_begin(j);
	ct_json_kv_string(j, "os", s->os[0] ? s->os : NULL);
	ct_json_kv_string(j, "os_id", s->os_id[0] ? s->os_id : NULL);
	ct_json_kv_string(j, "os_version", s->os_version[0] ? s->os_version : NULL);
	ct_json_kv_string(j, "kernel", s->kernel[0] ? s->kernel : NULL);
	ct_json_kv_string(j, "machine", s->machine[0] ? s->machine : NULL);
	ct_json_kv_string(j, "glibc", s->glibc[0] ? s->glibc : NULL);
	ct_json_object_end(j);
}

static void print_gpus(FILE *out, const struct ct_doctor *d)
{
	const struct ct_driver_probe *p = &d->drv.probe;
	int i;

	for (i = 0; i < p->ngpus; i++) {
		const struct ct_gpu_info *g = &p->gpus[i];

		ct_tprintf(out, "  %d  %s", g->index, g->name[0] ? g->name : "(no name)");
		if (g->major >= 0)
			ct_tprintf(out, "  sm_%d%d", g->major, g->minor);
		ct_tprintf(out, "%s%s\n", g->uuid[0] ? "  " : "", g->uuid);
	}
	if (!p->ngpus)
		ct_tprintf(out, "  none%s\n", !p->opened		? " (no driver)"
				     : p->init_result != 0 ? " (cuInit failed)"
							   : "");
	if (d->drv.visible_devices)
		ct_tprintf(out, "  CUDA_VISIBLE_DEVICES='%s'\n", d->drv.visible_devices);
}

static const char *verdict_words(const struct ct_doctor_runtime *r)
{
	switch (r->verdict) {
	case CT_RT_OK:
		return "the driver runs it";
	case CT_RT_MINOR_COMPAT:
		return "runs through minor-version compatibility";
	case CT_RT_TOO_NEW:
		return "needs a newer driver";
	default:
		return "no driver to judge by";
	}
}

static void print_runtimes(FILE *out, const struct ct_doctor *d)
{
	size_t i;

	for (i = 0; i < d->nrt; i++) {
		const struct ct_doctor_runtime *r = &d->rt[i];

		ct_tprintf(out, "  %-17s %-9s %s\n", r->soname, r->version, r->path);
		ct_tprintf(out, "  %-27s %s%s%s%s; %s\n", "", r->where, r->taken ? ", taken [" : "",
		       r->taken ? ct_rule_words(r->found_via) : "", r->taken ? "]" : "",
		       verdict_words(r));
	}
	if (!d->nrt)
		ct_tprintf(out, "  none (no libcudart.so.N in the loader's folders, CUDA toolkits, pip "
		       "wheels or conda)\n");
}

static void print_ld_path(FILE *out, const struct ct_doctor *d)
{
	size_t i, k, col;

	if (!d->L.ld_library_path)
		ct_tprintf(out, "  unset\n");
	for (i = 0; i < d->nld; i++) {
		const struct ct_doctor_ldentry *en = &d->ld[i];

		ct_tprintf(out, "  %zu. %s", i + 1, en->dir[0] ? en->dir : "(empty: the current directory)");
		if (!en->exists)
			ct_tprintf(out, "  (does not exist)\n");
		else if (!en->nlibs)
			ct_tprintf(out, "  (no CUDA library)\n");
		else
			ct_tprintf(out, "\n");
		for (k = 0, col = 0; k < en->nlibs; k++) {
			/* Wrapped: a toolkit's folder holds dozens. */
			if (col && col + strlen(en->libs[k]) > 90) {
				ct_tprintf(out, "\n");
				col = 0;
			}
			col += (size_t)ct_tprintf(out, "%s%s", col ? " " : "       ", en->libs[k]);
		}
		if (en->nlibs)
			ct_tprintf(out, "\n");
		for (k = 0; k < en->nshadows; k++)
			ct_tprintf(out, "       hides %s (%s, %s)\n", en->shadows[k].other,
			       en->shadows[k].other_version[0] ? en->shadows[k].other_version
							       : "version unknown",
			       en->shadows[k].other_where);
	}
}

static void print_targets(FILE *out, char names[][CT_TARGET_NAME], size_t n, bool given)
{
	size_t i;

	ct_tprintf(out, "device code judged for\n  ");
	for (i = 0; i < n; i++)
		ct_tprintf(out, "%s%s", i ? " " : "", names[i]);
	if (!n)
		ct_tprintf(out, "nothing: no GPU and no --arch");
	else
		ct_tprintf(out, " (%s)", given ? "--arch" : "the GPUs");
	ct_tprintf(out, "\n");
}

/* ---- JSON ------------------------------------------------------------------- */

/* A string member, null when empty. */
static void json_text(struct ct_json *j, const char *key, const char *s)
{
	ct_json_kv_string(j, key, s && *s ? s : NULL);
}

static void json_int_or_null(struct ct_json *j, const char *key, int v)
{
	ct_json_key(j, key);
	if (v >= 0)
		ct_json_i64(j, v);
	else
		ct_json_null(j);
}

static void json_driver(struct ct_json *j, const struct ct_doctor *d)
{
	const struct ct_doctor_driver *drv = &d->drv;
	const struct ct_driver_probe *p = &drv->probe;
	char v[32];
	size_t i;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", drv->path);
	ct_json_kv_string(j, "found_via", ct_rule_id(drv->search->found_via));
	ct_json_key(j, "candidates");
	{
		struct ct_answer_cands cands;
		struct ct_arena a;

		ct_arena_init(&a);
		ct_answer_cands_from(&cands, &a, drv->search, 0, drv->search->ncands);
		ct_json_candidates(j, &cands);
		ct_arena_release(&a);
	}
	ct_json_kv_bool(j, "loaded", p->opened);
	json_text(j, "loaded_path", p->path);
	json_text(j, "load_error", p->error);
	json_text(j, "version", drv->version);
	ct_json_kv_string(j, "cuda_version",
			  p->version > 0 ? ct_cuda_version_words(p->version, v, sizeof(v)) : NULL);
	json_int_or_null(j, "cuda_version_int", p->version);
	ct_json_kv_bool(j, "forward_compat", drv->compat);
	ct_json_key(j, "cu_init");
	if (p->init_result >= 0) {
		ct_json_object_begin(j);
		ct_json_key(j, "result");
		ct_json_i64(j, p->init_result);
		ct_json_kv_string(j, "name", ct_cu_error_name(p->init_result));
		ct_json_kv_string(j, "text", ct_cu_error_text(p->init_result));
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
	json_int_or_null(j, "device_count", p->count);
	ct_json_kv_string(j, "cuda_visible_devices", drv->visible_devices);
	ct_json_key(j, "kernel_module");
	if (drv->module_line) {
		ct_json_object_begin(j);
		json_text(j, "version", drv->module_version);
		ct_json_kv_string(j, "line", drv->module_line);
		json_int_or_null(j, "gpus", drv->module_gpus);
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
	ct_json_key(j, "forward_compat_libraries");
	ct_json_array_begin(j);
	for (i = 0; i < drv->ncompat; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", drv->compat_libs[i].path);
		json_text(j, "version", drv->compat_libs[i].version);
		ct_json_kv_bool(j, "on_ld_library_path", drv->compat_libs[i].on_ld_library_path);
		ct_json_kv_bool(j, "taken", drv->compat_libs[i].taken);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "copies");
	ct_json_array_begin(j);
	for (i = 0; i < drv->copies.n; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", drv->copies.c[i].path);
		ct_json_kv_string(j, "where", drv->copies.c[i].where);
		ct_json_kv_bool(j, "same_name", drv->copies.c[i].same_name);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

static void json_rest(struct ct_json *j, const struct ct_doctor *d)
{
	const struct ct_driver_probe *p = &d->drv.probe;
	char v[32];
	size_t i, k;
	int g;

	ct_json_key(j, "gpus");
	ct_json_array_begin(j);
	for (g = 0; g < p->ngpus; g++) {
		ct_json_object_begin(j);
		ct_json_key(j, "index");
		ct_json_i64(j, p->gpus[g].index);
		json_text(j, "name", p->gpus[g].name);
		snprintf(v, sizeof(v), "%d.%d", p->gpus[g].major, p->gpus[g].minor);
		ct_json_kv_string(j, "compute_capability", p->gpus[g].major >= 0 ? v : NULL);
		json_text(j, "uuid", p->gpus[g].uuid);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "runtimes");
	ct_json_array_begin(j);
	for (i = 0; i < d->nrt; i++) {
		const struct ct_doctor_runtime *r = &d->rt[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", r->path);
		ct_json_kv_string(j, "soname", r->soname);
		json_int_or_null(j, "major", r->major > 0 ? r->major : -1);
		ct_json_kv_string(j, "version", r->version_from ? r->version : NULL);
		ct_json_kv_string(j, "version_from", r->version_from);
		ct_json_kv_string(j, "cuda_version",
				  r->cuda > 0 ? ct_cuda_version_words(r->cuda, v, sizeof(v))
					      : NULL);
		ct_json_kv_string(j, "where", r->where);
		ct_json_kv_bool(j, "taken", r->taken);
		ct_json_kv_string(j, "found_via", r->taken ? ct_rule_id(r->found_via) : NULL);
		ct_json_kv_string(j, "verdict", ct_runtime_verdict_id(r->verdict));
		ct_json_kv_string(j, "min_driver", ct_family_driver(r->major));
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "ld_library_path");
	ct_json_array_begin(j);
	for (i = 0; i < d->nld; i++) {
		const struct ct_doctor_ldentry *en = &d->ld[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "dir", en->dir);
		ct_json_kv_bool(j, "exists", en->exists);
		ct_json_key(j, "cuda_libraries");
		ct_json_array_begin(j);
		for (k = 0; k < en->nlibs; k++)
			ct_json_string(j, en->libs[k]);
		ct_json_array_end(j);
		ct_json_key(j, "shadows");
		ct_json_array_begin(j);
		for (k = 0; k < en->nshadows; k++) {
			const struct ct_doctor_shadow *s = &en->shadows[k];

			ct_json_object_begin(j);
			ct_json_kv_string(j, "soname", s->soname);
			ct_json_kv_string(j, "path", s->path);
			json_text(j, "version", s->version);
			ct_json_kv_string(j, "hides", s->other);
			ct_json_kv_string(j, "hides_where", s->other_where);
			json_text(j, "hides_version", s->other_version);
			ct_json_kv_bool(j, "versions_differ", s->differ);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

/* ---- Markdown --------------------------------------------------------------- */

/*
 * The verdict and findings, then a collapsed section per part of the
 * machine: each is its text printer's output (a part added to doctor adds
 * its section here, with its printer).
 */
/*
 * The machine's findings, then each package's, its name and version
 * before its message: in Markdown the findings come first, before the
 * collapsed sections, so a package's are among them. A finding that
 * several packages share (an extension that needs torch, stopped by what
 * stops import torch) is said once, with every package's name. Shallow
 * copies but for the messages (release_all_findings).
 */
static const struct ct_findings *all_findings(struct ct_findings *all,
					      const struct ct_findings *fs,
					      const struct ct_pyenv *envs, size_t nenvs)
{
	size_t i, k, j, m, n = fs->n;
	char **names;

	for (i = 0; i < nenvs; i++)
		for (k = 0; k < envs[i].npkgs; k++)
			n += envs[i].pkgs[k].findings.n;
	all->n = 0;
	all->f = ct_xcalloc(n ? n : 1, sizeof(*all->f));
	names = ct_xcalloc(n ? n : 1, sizeof(*names));
	for (j = 0; j < fs->n; j++)
		all->f[all->n++] = fs->f[j];
	for (i = 0; i < nenvs; i++)
		for (k = 0; k < envs[i].npkgs; k++) {
			const struct ct_pkg *p = &envs[i].pkgs[k];
			char name[512];

			snprintf(name, sizeof(name), "%s%s%s", p->name, *p->version ? " " : "",
				 p->version);
			for (j = 0; j < p->findings.n; j++) {
				const struct ct_finding *g = &p->findings.f[j];

				for (m = fs->n; m < all->n; m++)
					if (all->f[m].code == g->code && all->f[m].severity == g->severity &&
					    strcmp(all->f[m].message, g->message) == 0)
						break;
				if (m < all->n) {
					size_t len = strlen(names[m]) + strlen(name) + 3;
					char *both = ct_xmalloc(len);

					snprintf(both, len, "%s, %s", names[m], name);
					free(names[m]);
					names[m] = both;
					continue;
				}
				all->f[all->n] = *g;
				names[all->n++] = ct_xstrdup(name);
			}
		}
	for (m = fs->n; m < all->n; m++) {
		const char *msg = all->f[m].message;
		size_t len = strlen(names[m]) + strlen(msg) + 3;

		all->f[m].message = ct_xmalloc(len);
		snprintf(all->f[m].message, len, "%s: %s", names[m], msg);
		free(names[m]);
	}
	free(names);
	return all;
}

static void release_all_findings(struct ct_findings *all, size_t machine)
{
	size_t j;

	for (j = machine; j < all->n; j++)
		free(all->f[j].message);
	free(all->f);
}

static void markdown_doctor(const struct ct_doctor *d, const struct ct_findings *fs,
			    const struct ct_pyenv *envs, size_t nenvs, char names[][CT_TARGET_NAME],
			    size_t ntargets, bool given, bool verbose, bool quiet)
{
	struct ct_md *md = ct_md_new(getenv("HOME"), verbose);
	struct ct_findings all;
	size_t i;

	print_verdict(ct_md_verdict(md), fs, envs, nenvs, false);
	/* -q: the verdict and the findings (the packages' too), as report -q --markdown. */
	if (!quiet) {
		print_system(ct_md_section(md, "System"), d);
		print_driver(ct_md_section(md, "Driver"), d, verbose);
		print_gpus(ct_md_section(md, "GPUs"), d);
		print_runtimes(ct_md_section(md, "CUDA runtimes"), d);
		print_ld_path(ct_md_section(md, "LD_LIBRARY_PATH"), d);
		if (nenvs)
			print_targets(ct_md_section(md, "Device code judged for"), names, ntargets,
				      given);
	}
	/* A section per interpreter: its packages, each with its verdict first. */
	for (i = 0; !quiet && i < nenvs; i++) {
		char title[600];

		snprintf(title, sizeof(title), "Python packages of %s", envs[i].py.exe);
		ct_pyenvs_print(ct_md_section(md, title), &envs[i], 1, verbose);
	}
	ct_md_write(md, stdout, "cudatrace doctor", all_findings(&all, fs, envs, nenvs));
	release_all_findings(&all, fs->n);
	ct_md_free(md);
}

int ct_cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "arch", required_argument, NULL, 'a' },
		{ "python", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, markdown = false, verbose = false, quiet = false, colour;
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	size_t ntargets = 0, nenvs = 0;
	struct ct_pkg_machine machine;
	struct ct_pyenv *envs = NULL;
	const char *python = NULL, *arch = NULL;
	struct ct_findings fs;
	struct ct_doctor d;
	const char *why;
	int c, rc, worst;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'm':
			markdown = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'q':
			quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'a':
			arch = optarg;
			break;
		case 'p':
			python = optarg;
			break;
		case 'h':
			usage(stdout);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (json && markdown) {
		ct_error("--json and --markdown exclude each other");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (optind < argc) {
		ct_error("doctor takes no argument: '%s'", argv[optind]);
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (arch && ct_cmd_targets(arch, targets, names, &ntargets, CT_MAX_TARGETS) < 0)
		return CT_EXIT_BAD_INPUT;
	if (python && ct_cmd_no_stdin("doctor --python", (char *const *)&python, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	if (python) {
		struct ct_python py;

		if ((rc = ct_python_open(&py, python, "--python")) < 0) {
			ct_error("--python: cannot use '%s': %s", python, strerror(-rc));
			return CT_EXIT_BAD_INPUT;
		}
		ct_python_release(&py);
	}
	if ((rc = ct_doctor_examine(&d, &why)) < 0) {
		if (json)
			ct_tprintf(stdout, "{\"schema\":\"%s\",\"error\":\"cannot model the "
					   "dynamic loader\"}\n", CT_SCHEMA_DOCTOR);
		ct_error("cannot model the dynamic loader: %s", why ? why : "unknown error");
		return CT_EXIT_BAD_INPUT;
	}
	ct_findings_init(&fs);
	ct_doctor_findings(&d, &fs);
	/* Device code is judged for --arch, else for the GPUs the driver reports. */
	for (c = 0; !arch && c < d.drv.probe.ngpus && ntargets < CT_MAX_TARGETS; c++) {
		const struct ct_gpu_info *g = &d.drv.probe.gpus[c];
		size_t k;

		if (g->major < 0)
			continue;
		for (k = 0; k < ntargets; k++)
			if (targets[k].major == (unsigned)g->major && targets[k].minor == (unsigned)g->minor)
				break;
		if (k < ntargets)
			continue;
		targets[ntargets] = (struct elfscan_target){ .major = (unsigned)g->major,
							     .minor = (unsigned)g->minor };
		snprintf(names[ntargets], CT_TARGET_NAME, "sm_%d%d", g->major, g->minor);
		ntargets++;
	}
	machine = (struct ct_pkg_machine){ .L = &d.L, .driver_cuda = d.drv.probe.version,
					   .driver_path = d.drv.path ? d.drv.path : d.drv.probe.path,
					   .driver_release = d.drv.version,
					   .targets = targets,
					   .target_names = (const char (*)[CT_TARGET_NAME])names,
					   .ntargets = ntargets };
	if ((rc = ct_pyenvs_judge(python, &machine, &envs, &nenvs)) < 0) {
		ct_error("--python: cannot use '%s': %s", python, strerror(-rc));
		ct_findings_release(&fs);
		ct_doctor_release(&d);
		return CT_EXIT_BAD_INPUT;
	}
	if (json) {
		struct ct_json j;

		ct_json_init(&j, stdout);
		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "schema", CT_SCHEMA_DOCTOR);
		json_system(&j, &d);
		ct_json_key(&j, "driver");
		json_driver(&j, &d);
		json_rest(&j, &d);
		ct_json_key(&j, "targets");
		ct_json_array_begin(&j);
		for (c = 0; c < (int)ntargets; c++)
			ct_json_string(&j, names[c]);
		ct_json_array_end(&j);
		ct_json_kv_string(&j, "targets_from", !ntargets ? NULL : arch ? "--arch" : "gpus");
		ct_json_key(&j, "pythons");
		ct_pyenvs_json(&j, envs, nenvs);
		ct_json_key(&j, "findings");
		ct_findings_json(&j, &fs);
		ct_json_object_end(&j);
		ct_json_finish(&j);
	} else if (markdown) {
		markdown_doctor(&d, &fs, envs, nenvs, names, ntargets, arch != NULL, verbose, quiet);
	} else if (quiet) {
		/* -q: the verdict and every finding, the packages' too; no facts. */
		struct ct_findings all;

		colour = ct_want_colour(stdout);
		print_verdict(stdout, &fs, envs, nenvs, colour);
		all_findings(&all, &fs, envs, nenvs);
		if (all.n) {
			ct_tprintf(stdout, "\n");
			ct_findings_print(stdout, &all, colour, verbose);
		}
		release_all_findings(&all, fs.n);
	} else {
		colour = ct_want_colour(stdout);
		print_verdict(stdout, &fs, envs, nenvs, colour);
		if (fs.n) {
			ct_tprintf(stdout, "\n");
			ct_findings_print(stdout, &fs, colour, verbose);
		}
		ct_tprintf(stdout, "\n");
		ct_tprintf(stdout, "system\n");
		print_system(stdout, &d);
		ct_tprintf(stdout, "driver\n");
		print_driver(stdout, &d, verbose);
		ct_tprintf(stdout, "GPUs\n");
		print_gpus(stdout, &d);
		ct_tprintf(stdout, "CUDA runtimes\n");
		print_runtimes(stdout, &d);
		ct_tprintf(stdout, "LD_LIBRARY_PATH\n");
		print_ld_path(stdout, &d);
		print_targets(stdout, names, ntargets, arch != NULL);
		ct_pyenvs_print(stdout, envs, nenvs, verbose);
	}
	worst = ct_findings_worst(&fs);
	if (ct_pyenvs_worst(envs, nenvs) > worst)
		worst = ct_pyenvs_worst(envs, nenvs);
	rc = worst == CT_SEV_ERROR ? CT_EXIT_FINDING : CT_EXIT_OK;
	ct_pyenvs_free(envs, nenvs);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
	return rc;
}

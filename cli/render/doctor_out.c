/*
 * cudatrace doctor's views of its model (doctor_out.h): text, JSON and
 * Markdown. Everything shown was gathered and judged in the model; this
 * lays it out. Every string from the machine (paths, the driver's words,
 * variables) is escaped where printed: ct_tprintf for text and Markdown,
 * the JSON writer for JSON.
 */
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "cuda_errors.h"
#include "doctor_out.h"
#include "explain.h"
#include "findings_out.h"
#include "json.h"
#include "markdown.h"
#include "packages_out.h"
#include "schema.h"
#include "text.h"

/* ---- text ------------------------------------------------------------------- */

static void print_verdict(FILE *out, const struct ct_doctor_model *m, bool colour)
{
	ct_tprintf(out, "cudatrace doctor: ");
	ct_findings_tally(out, &m->findings, colour);
	ct_pyenvs_tally(out, &m->py);
	ct_tprintf(out, "\n");
}

static void print_driver(FILE *out, const struct ct_doctor_model *m, bool verbose)
{
	const struct ct_dm_driver *drv = &m->drv;
	const struct ct_driver_probe *p = drv->probe;
	char v[32];
	size_t i;

	if (drv->path)
		ct_tprintf(out, "  libcuda.so.1    %s [%s]%s\n", drv->path, drv->rule,
		       drv->compat ? ", forward compatibility" : "");
	else
		ct_tprintf(out, "  libcuda.so.1    not found\n");
	if (verbose || !drv->path)
		ct_print_lookup_candidates(out, &drv->cands, "    ");
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
	if (drv->module.version[0] && drv->module.gpus >= 0)
		ct_tprintf(out, "  kernel module   %s (%s/version), %d GPU%s\n", drv->module.version,
		       drv->module.proc, drv->module.gpus, drv->module.gpus == 1 ? "" : "s");
	else if (drv->module.version[0])
		ct_tprintf(out, "  kernel module   %s (%s/version)\n", drv->module.version,
			   drv->module.proc);
	else
		ct_tprintf(out, "  kernel module   none (%s/version does not exist)\n", drv->module.proc);
	for (i = 0; i < drv->ncompat; i++) {
		const struct ct_dm_compat *c = &drv->compat_libs[i];

		ct_tprintf(out, "  forward compat  %s %s, %s\n", c->path, c->version[0] ? c->version : "",
		       c->taken ? "taken" : c->on_ld_library_path ? "on LD_LIBRARY_PATH, not taken"
								  : "not on LD_LIBRARY_PATH");
	}
}

/* What collect_env and issue templates ask first: the OS, the kernel, glibc. */
static void print_system(FILE *out, const struct ct_doctor_model *m)
{
	const struct ct_system *s = m->sys;

	ct_tprintf(out, "  OS      %s\n", s->os[0] ? s->os : "not known (no os-release file)");
	ct_tprintf(out, "  kernel  %s%s%s%s\n", s->kernel[0] ? s->kernel : "not known",
		   s->machine[0] ? " (" : "", s->machine, s->machine[0] ? ")" : "");
	ct_tprintf(out, "  glibc   %s\n", s->glibc[0] ? s->glibc : "not known");
}

static void json_system(struct ct_json *j, const struct ct_doctor_model *m)
{
	const struct ct_system *s = m->sys;

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

static void print_gpus(FILE *out, const struct ct_doctor_model *m)
{
	const struct ct_driver_probe *p = m->drv.probe;
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
	if (m->drv.visible_devices)
		ct_tprintf(out, "  CUDA_VISIBLE_DEVICES='%s'\n", m->drv.visible_devices);
}

static void print_runtimes(FILE *out, const struct ct_doctor_model *m)
{
	size_t i;

	for (i = 0; i < m->nrt; i++) {
		const struct ct_dm_runtime *r = &m->rt[i];

		ct_tprintf(out, "  %-17s %-9s %s\n", r->soname, r->version, r->path);
		ct_tprintf(out, "  %-27s %s%s%s%s; %s\n", "", r->where, r->taken ? ", taken [" : "",
		       r->taken ? ct_rule_words(r->found_via) : "", r->taken ? "]" : "",
		       r->verdict_words);
	}
	if (!m->nrt)
		ct_tprintf(out, "  none (no libcudart.so.N in the loader's folders, CUDA toolkits, pip "
		       "wheels or conda)\n");
}

static void print_ld_path(FILE *out, const struct ct_doctor_model *m)
{
	size_t i, k, col;

	if (!m->ld_library_path_set)
		ct_tprintf(out, "  unset\n");
	for (i = 0; i < m->nld; i++) {
		const struct ct_dm_ldentry *en = &m->ld[i];

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

static void print_targets(FILE *out, const struct ct_doctor_model *m)
{
	size_t i;

	ct_tprintf(out, "device code judged for\n  ");
	for (i = 0; i < m->ntargets; i++)
		ct_tprintf(out, "%s%s", i ? " " : "", m->targets[i]);
	if (!m->ntargets)
		ct_tprintf(out, "nothing: no GPU and no --arch");
	else
		ct_tprintf(out, " (%s)", strcmp(m->targets_from, "--arch") == 0 ? "--arch" : "the GPUs");
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

static void json_driver(struct ct_json *j, const struct ct_doctor_model *m)
{
	const struct ct_dm_driver *drv = &m->drv;
	const struct ct_driver_probe *p = drv->probe;
	char v[32];
	size_t i;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", drv->path);
	ct_json_kv_string(j, "found_via", drv->found_via);
	ct_json_key(j, "candidates");
	ct_json_candidates(j, &drv->cands);
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
	if (drv->module.line) {
		ct_json_object_begin(j);
		json_text(j, "version", drv->module.version);
		ct_json_kv_string(j, "line", drv->module.line);
		json_int_or_null(j, "gpus", drv->module.gpus);
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

static void json_rest(struct ct_json *j, const struct ct_doctor_model *m)
{
	const struct ct_driver_probe *p = m->drv.probe;
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
	for (i = 0; i < m->nrt; i++) {
		const struct ct_dm_runtime *r = &m->rt[i];

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
		ct_json_kv_string(j, "verdict", r->verdict);
		ct_json_kv_string(j, "min_driver", ct_family_driver(r->major));
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "ld_library_path");
	ct_json_array_begin(j);
	for (i = 0; i < m->nld; i++) {
		const struct ct_dm_ldentry *en = &m->ld[i];

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
			const struct ct_dm_shadow *s = &en->shadows[k];

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
 * The verdict and findings (the packages' too, ct_doctor_model.all), then
 * a collapsed section per part of the machine: each is its text printer's
 * output (a part added to doctor adds its section here, with its printer).
 */
void ct_doctor_markdown(FILE *out, const struct ct_doctor_model *m, const char *home,
			bool verbose, bool quiet)
{
	struct ct_md *md = ct_md_new(home, verbose);
	size_t i;

	print_verdict(ct_md_verdict(md), m, false);
	/* -q: the verdict and the findings (the packages' too), as report -q --markdown. */
	if (!quiet) {
		print_system(ct_md_section(md, "System"), m);
		print_driver(ct_md_section(md, "Driver"), m, verbose);
		print_gpus(ct_md_section(md, "GPUs"), m);
		print_runtimes(ct_md_section(md, "CUDA runtimes"), m);
		print_ld_path(ct_md_section(md, "LD_LIBRARY_PATH"), m);
		if (m->py.n)
			print_targets(ct_md_section(md, "Device code judged for"), m);
	}
	/* A section per interpreter: its packages, each with its verdict first. */
	for (i = 0; !quiet && i < m->py.n; i++) {
		char title[600];

		snprintf(title, sizeof(title), "Python packages of %s", m->py.e[i].exe);
		ct_pyenvs_print(ct_md_section(md, title), &m->py.e[i], 1, verbose);
	}
	ct_md_write(md, out, "cudatrace doctor", &m->all);
	ct_md_free(md);
}

/* ---- text and JSON ---------------------------------------------------------- */

void ct_doctor_print(FILE *out, const struct ct_doctor_model *m, bool verbose, bool quiet,
		     bool colour)
{
	print_verdict(out, m, colour);
	/* -q: the verdict and every finding, the packages' too; no facts. */
	if (quiet) {
		if (m->all.n) {
			ct_tprintf(out, "\n");
			ct_findings_print(out, &m->all, colour, verbose);
		}
		return;
	}
	if (m->findings.n) {
		ct_tprintf(out, "\n");
		ct_findings_print(out, &m->findings, colour, verbose);
	}
	ct_tprintf(out, "\n");
	ct_tprintf(out, "system\n");
	print_system(out, m);
	ct_tprintf(out, "driver\n");
	print_driver(out, m, verbose);
	ct_tprintf(out, "GPUs\n");
	print_gpus(out, m);
	ct_tprintf(out, "CUDA runtimes\n");
	print_runtimes(out, m);
	ct_tprintf(out, "LD_LIBRARY_PATH\n");
	print_ld_path(out, m);
	print_targets(out, m);
	ct_pyenvs_print(out, m->py.e, m->py.n, verbose);
}

int ct_doctor_json(FILE *out, const struct ct_doctor_model *m)
{
	struct ct_json j;
	size_t i;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_DOCTOR);
	json_system(&j, m);
	ct_json_key(&j, "driver");
	json_driver(&j, m);
	json_rest(&j, m);
	ct_json_key(&j, "targets");
	ct_json_array_begin(&j);
	for (i = 0; i < m->ntargets; i++)
		ct_json_string(&j, m->targets[i]);
	ct_json_array_end(&j);
	ct_json_kv_string(&j, "targets_from", m->targets_from);
	ct_json_key(&j, "pythons");
	ct_pyenvs_json(&j, &m->py);
	ct_json_key(&j, "findings");
	ct_findings_json(&j, &m->findings);
	ct_json_object_end(&j);
	return ct_json_finish(&j);
}

void ct_doctor_json_error(FILE *out)
{
	ct_tprintf(out, "{\"schema\":\"%s\",\"error\":\"cannot model the dynamic loader\"}\n",
		   CT_SCHEMA_DOCTOR);
}

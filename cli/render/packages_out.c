/* doctor's Python packages as text and JSON; see packages_out.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_out.h"
#include "mask.h"
#include "packages_out.h"
#include "text.h"

void ct_pyenvs_tally(FILE *out, const struct ct_py_envs *py)
{
	const struct ct_py_env *envs = py->e;
	size_t i, k, shown = 0;

	if (!py->total)
		return;
	ct_tprintf(out, "; Python packages with CUDA code: %zu ok", py->total - py->stopped);
	if (!py->stopped)
		return;
	ct_tprintf(out, ", %zu stopped (", py->stopped);
	for (i = 0; i < py->n; i++)
		for (k = 0; k < envs[i].npkgs; k++) {
			const struct ct_py_pkg *p = &envs[i].pkgs[k];

			if (p->ok)
				continue;
			if (shown == 4) {
				ct_tprintf(out, ", ...");
				shown++;
			}
			if (shown++ >= 4)
				continue;
			ct_tprintf(out, "%s%s: %s", shown > 1 ? ", " : "", p->name, p->verdict);
		}
	ct_tprintf(out, ")");
}

static void print_finding(FILE *out, const struct ct_finding *f, bool verbose)
{
	size_t k;

	ct_tprintf(out, "    %s %s: %s\n", ct_severity_name(f->severity), ct_finding_id(f->code),
		   f->message);
	for (k = 0; verbose && k < f->nevidence; k++)
		ct_tprintf(out, "        %s\n", f->evidence[k]);
	for (k = 0; k < f->nfix_lines; k++)
		ct_tprintf(out, "      %s %s\n", k ? "    " : "fix:", f->fix_lines[k]);
}

static void print_module(FILE *out, const struct ct_py_module *m)
{
	size_t t;

	ct_tprintf(out, "      %s\n", m->path);
	if (m->load_error)
		ct_tprintf(out, "          does not load: %s\n", m->load_error);
	if (m->note)
		ct_tprintf(out, "          %s\n", m->note);
	if (m->device_code)
		ct_tprintf(out, "          device code%s%s\n", m->archs[0] ? ": " : "",
			   m->archs[0] ? m->archs : " (not judged: no GPU and no --arch)");
	for (t = 0; t < m->nverdicts; t++) {
		const struct ct_py_verdict *v = &m->verdicts[t];

		ct_tprintf(out, "          %s: %s", v->target, v->verdict);
		if (v->no_image)
			ct_tprintf(out, " (%zu of %zu fatbins without an image for it)\n",
				   v->no_image_fatbins, v->fatbins);
		else if (!v->no_device_code)
			ct_tprintf(out, " (%zu fatbins: %zu sass, %zu ptx-jit%s%s)\n", v->fatbins,
				   v->sass, v->ptx_jit, v->image[0] ? "; mostly " : "", v->image);
		else
			ct_tprintf(out, "\n");
	}
}

/*
 * What collect_env says of an interpreter, read from its files: "version:
 * 3.11.7 (GCC 12.2.0, cpython-311-x86_64-linux-gnu)", then the versions of
 * torch, numpy and triton, whether they carry CUDA code or not.
 */
static void print_build(FILE *out, const struct ct_py_env *e)
{
	const char *v = e->release[0] ? e->release : e->version;
	size_t k, parts = 0;

	ct_tprintf(out, "  version: %s", v[0] ? v : "not known");
	if (e->compiler[0] || e->soabi[0] || e->flags[0]) {
		ct_tprintf(out, " (");
		if (e->compiler[0])
			ct_tprintf(out, "%s%s", parts++ ? ", " : "", e->compiler);
		if (e->soabi[0])
			ct_tprintf(out, "%s%s", parts++ ? ", " : "", e->soabi);
		if (e->flags[0])
			ct_tprintf(out, "%s%s", parts++ ? ", " : "", e->flags);
		ct_tprintf(out, ")");
	}
	ct_tprintf(out, "\n  ");
	for (k = 0; k < e->nkeys; k++) {
		const struct ct_py_key *key = &e->keys[k];

		ct_tprintf(out, "%s%s %s", k ? ", " : "", key->name,
			   !key->version ? "not installed" : key->version[0] ? key->version : "?");
	}
	ct_tprintf(out, "\n");
}

void ct_pyenvs_print(FILE *out, const struct ct_py_env *envs, size_t n, bool verbose)
{
	size_t i, k, s, m;

	for (i = 0; i < n; i++) {
		const struct ct_py_env *e = &envs[i];

		ct_tprintf(out, "Python %s%s%s%s (%s%s)\n", e->exe,
			   strcmp(e->exe, e->real) ? " -> " : "", strcmp(e->exe, e->real) ? e->real : "",
			   e->version[0] ? "" : ", version unknown", e->from_words,
			   e->venv ? ", a venv" : "");
		print_build(out, e);
		for (s = 0; s < e->nsites; s++)
			ct_tprintf(out, "  %s %s\n", s ? "     " : "site:", e->sites[s]);
		if (!e->nsites)
			ct_tprintf(out, "  site: none found\n");
		for (k = 0; k < e->npkgs; k++) {
			const struct ct_py_pkg *p = &e->pkgs[k];

			ct_tprintf(out, "  %s%s%s%s%s%s: %s\n", p->name, p->version[0] ? " " : "",
				   p->version, p->cuda[0] ? " (CUDA " : "", p->cuda,
				   p->cuda[0] ? ")" : "", p->verdict);
			for (m = 0; m < p->findings->n; m++)
				print_finding(out, &p->findings->f[m], verbose);
			for (m = 0; m < p->nfacts; m++)
				ct_tprintf(out, "    %s\n", p->facts[m]);
			if (!verbose)
				continue;
			ct_tprintf(out, "    %s, in %s\n", p->meta ? p->meta : "no metadata", p->site);
			ct_tprintf(out, "    objects judged:\n");
			for (m = 0; m < p->nmods; m++)
				print_module(out, &p->mods[m]);
		}
		if (!e->npkgs)
			ct_tprintf(out, "  no package with CUDA code (%zu shared objects looked at)\n",
				   e->nscanned);
	}
}

static void json_findings(struct ct_json *j, const struct ct_findings *fs)
{
	ct_json_key(j, "findings");
	ct_findings_json(j, fs);
}

static void json_module(struct ct_json *j, const struct ct_py_module *m)
{
	size_t t;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", m->path);
	ct_json_kv_bool(j, "loaded", m->loaded);
	ct_json_kv_string(j, "load_error", m->load_error);
	ct_json_kv_string(j, "note", m->note);
	ct_json_kv_bool(j, "device_code", m->device_code);
	ct_json_words(j, "archs", m->archs);
	ct_json_key(j, "verdicts");
	ct_json_array_begin(j);
	for (t = 0; t < m->nverdicts; t++) {
		const struct ct_py_verdict *v = &m->verdicts[t];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "target", v->target);
		ct_json_kv_string(j, "verdict", v->verdict);
		ct_json_kv_string(j, "image", v->image[0] ? v->image : NULL);
		ct_json_kv_u64(j, "fatbins", v->fatbins);
		ct_json_kv_u64(j, "sass", v->sass);
		ct_json_kv_u64(j, "ptx_jit", v->ptx_jit);
		ct_json_kv_u64(j, "no_image", v->no_image_fatbins);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "release", "build" and "versions" (torch, numpy, triton: null when not installed). */
static void json_build(struct ct_json *j, const struct ct_py_env *e)
{
	size_t k;

	ct_json_kv_string(j, "release", e->release[0] ? e->release : NULL);
	ct_json_kv_string(j, "release_from", e->release_from);
	ct_json_key(j, "build");
	ct_json_object_begin(j);
	ct_json_kv_string(j, "compiler", e->compiler[0] ? e->compiler : NULL);
	ct_json_kv_string(j, "soabi", e->soabi[0] ? e->soabi : NULL);
	ct_json_kv_bool(j, "free_threaded", e->free_threaded);
	ct_json_kv_bool(j, "debug", e->debug);
	ct_json_object_end(j);
	ct_json_key(j, "versions");
	ct_json_object_begin(j);
	for (k = 0; k < e->nkeys; k++) {
		const struct ct_py_key *key = &e->keys[k];

		ct_json_key(j, key->name);
		if (!key->version) {
			ct_json_null(j);
			continue;
		}
		ct_json_object_begin(j);
		ct_json_kv_string(j, "version", key->version[0] ? key->version : NULL);
		ct_json_kv_string(j, "distribution", key->dist);
		ct_json_kv_string(j, "site", key->site);
		ct_json_object_end(j);
	}
	ct_json_object_end(j);
}

void ct_pyenvs_json(struct ct_json *j, const struct ct_py_envs *py)
{
	size_t i, k, s, m;

	ct_json_array_begin(j);
	for (i = 0; i < py->n; i++) {
		const struct ct_py_env *e = &py->e[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "exe", e->exe);
		ct_json_kv_string(j, "real", e->real);
		ct_json_kv_string(j, "from", e->from);
		ct_json_kv_string(j, "version", e->version[0] ? e->version : NULL);
		json_build(j, e);
		ct_json_kv_string(j, "prefix", e->prefix);
		ct_json_kv_bool(j, "venv", e->venv);
		ct_json_key(j, "sites");
		ct_json_array_begin(j);
		for (s = 0; s < e->nsites; s++)
			ct_json_string(j, e->sites[s]);
		ct_json_array_end(j);
		ct_json_kv_u64(j, "shared_objects_looked_at", e->nscanned);
		ct_json_key(j, "packages");
		ct_json_array_begin(j);
		for (k = 0; k < e->npkgs; k++) {
			const struct ct_py_pkg *p = &e->pkgs[k];

			ct_json_object_begin(j);
			ct_json_kv_string(j, "name", p->name);
			ct_json_kv_string(j, "version", p->version[0] ? p->version : NULL);
			ct_json_kv_string(j, "site", p->site);
			ct_json_kv_string(j, "metadata", p->meta);
			ct_json_kv_string(j, "verdict", p->verdict);
			ct_json_kv_string(j, "cuda", p->cuda[0] ? p->cuda : NULL);
			ct_json_kv_string(j, "cuda_from", p->cuda_from[0] ? p->cuda_from : NULL);
			ct_json_kv_bool(j, "needs_torch", p->needs_torch);
			ct_json_key(j, "modules");
			ct_json_array_begin(j);
			for (m = 0; m < p->nmods; m++)
				json_module(j, &p->mods[m]);
			ct_json_array_end(j);
			json_findings(j, p->findings);
			ct_json_key(j, "facts");
			ct_json_array_begin(j);
			for (m = 0; m < p->nfacts; m++)
				ct_json_string(j, p->facts[m]);
			ct_json_array_end(j);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

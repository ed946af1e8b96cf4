/* Showing the loader model's answers; see explain.h. */
#include <string.h>

#include "explain.h"
#include "text.h"

void ct_print_lookup_candidates(FILE *out, const struct ct_answer_cands *k, const char *indent)
{
	size_t i, width = 0, rwidth = 0;

	for (i = 0; i < k->n; i++) {
		size_t n = strlen(k->c[i].path[0] ? k->c[i].path : "ld.so.cache");
		size_t r = strlen(k->c[i].rule);

		width = n > width ? n : width;
		rwidth = r > rwidth ? r : rwidth;
	}
	width = width > 64 ? 64 : width;
	for (i = 0; i < k->n; i++) {
		const struct ct_answer_cand *c = &k->c[i];

		ct_tprintf(out, "%s%2zu. %-*s  %-*s  %s\n", indent, i + 1, (int)width,
			   c->path[0] ? c->path : "ld.so.cache", (int)rwidth, c->rule, c->words);
	}
}

void ct_print_cwd_entries(FILE *out, const struct ct_answer_cwds *c)
{
	size_t k;

	for (k = 0; k < c->n; k++) {
		const struct ct_answer_cwd *e = &c->e[k];

		ct_tprintf(out, "warning: %s%s has %s: the loader looks for libraries in the "
				"working directory, so the folder a program is started from can give "
				"it libraries",
			   e->ld_library_path ? "" : "the ", e->rule, e->entry);
		if (e->found)
			ct_tprintf(out, " (%s was found there)", e->found);
		ct_tprintf(out, "\n");
	}
}

void ct_print_cuda_facts(FILE *out, const struct ct_answer_facts *c, const char *prefix)
{
	if (!c || !c->shown)
		return;
	if (c->renamed)
		ct_tprintf(out, "%s%s: a renamed major never works\n", prefix, c->renamed);
	ct_tprintf(out, "%s", prefix);
	if (c->driver_stub) {
		ct_tprintf(out, "the CUDA toolkit's stub of the NVIDIA driver, for linking "
				"only: no driver\n");
		return;
	}
	if (c->driver) {
		/* Its soname's major ("1") is no version: the driver's is. */
		ct_tprintf(out, "%s%s%s",
			   c->driver == CT_DRIVER_LIB_NVML ? "NVML of the NVIDIA driver"
							   : "the NVIDIA driver",
			   c->driver_version[0] ? " " : ", version unknown (neither its file "
							"name nor the file says)",
			   c->driver_version);
		if (c->scanned && c->nimages)
			ct_tprintf(out, "; device code: %s", c->line);
		ct_tprintf(out, "\n");
		return;
	}
	if (c->library)
		ct_tprintf(out, "CUDA library%s%s; ", c->version[0] ? ", version " : "", c->version);
	if (c->scanned && !c->nimages)
		ct_tprintf(out, "no device code\n");
	else
		ct_tprintf(out, "device code: %s\n", c->scanned ? c->line : "unreadable");
}

void ct_print_driver_missing(FILE *out, const struct ct_answer_driver_missing *m,
			     const char *prefix)
{
	if (!m->lib)
		return;
	/* driver-missing's words (diagnose.c, doctor_rules.c). */
	if (m->stop_path)
		ct_tprintf(out, "%sthe NVIDIA driver's '%s' at %s cannot be loaded: %s\n", prefix,
			   m->name, m->stop_path, m->stop_words);
	else
		ct_tprintf(out, "%sno NVIDIA driver: '%s'%s is not found: install the NVIDIA "
				"driver, or start the container with GPU support (docker run "
				"--gpus all)\n",
			   prefix, m->name, m->lib == CT_DRIVER_LIB_NVML ? ", its NVML," : "");
}

void ct_json_candidates(struct ct_json *j, const struct ct_answer_cands *k)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < k->n; i++) {
		const struct ct_answer_cand *c = &k->c[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", c->path[0] ? c->path : NULL);
		ct_json_kv_string(j, "via", c->via);
		ct_json_kv_string(j, "via_object", c->via_object);
		ct_json_kv_string(j, "outcome", c->outcome);
		ct_json_kv_bool(j, "hwcaps_subdirectory", c->subdir);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_json_copies(struct ct_json *j, const struct ct_answer_copies *cs)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < cs->n; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", cs->c[i].path);
		ct_json_kv_string(j, "where", cs->c[i].where);
		ct_json_kv_string(j, "version", cs->c[i].version[0] ? cs->c[i].version : NULL);
		ct_json_kv_bool(j, "same_name", cs->c[i].same_name);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_json_cuda_facts(struct ct_json *j, const struct ct_answer_facts *c)
{
	ct_json_object_begin(j);
	ct_json_kv_bool(j, "library", c->library);
	ct_json_kv_string(j, "version", c->version[0] ? c->version : NULL);
	ct_json_kv_string(j, "soname", c->soname[0] ? c->soname : NULL);
	ct_json_kv_bool(j, "renamed", c->renamed != NULL);
	if (c->driver) {
		ct_json_kv_string(j, "driver_version",
				  c->driver_version[0] ? c->driver_version : NULL);
		ct_json_kv_bool(j, "driver_stub", c->driver_stub);
	}
	if (c->scanned) {
		ct_json_kv_u64(j, "images", c->nimages);
		ct_json_words(j, "sass", c->sass);
		ct_json_words(j, "ptx", c->ptx);
		ct_json_words(j, "ltoir", c->ltoir);
	}
	ct_json_object_end(j);
}

void ct_json_gaps(struct ct_json *j, const struct ct_answer_gaps *gs)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < gs->n; i++) {
		const struct ct_answer_gap *g = &gs->g[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "code", "symbol-version-missing");
		ct_json_kv_string(j, "requested_by", g->requester);
		ct_json_kv_string(j, "library", g->library);
		ct_json_kv_string(j, "version", g->version);
		ct_json_kv_string(j, "symbol", g->missing_symbol ? g->missing_symbol : g->symbol);
		ct_json_kv_bool(j, "symbol_missing", g->missing_symbol != NULL);
		ct_json_kv_string(j, "lacking", g->lacking);
		ct_json_kv_string(j, "having", g->having);
		ct_json_kv_string(j, "having_where", g->having_where);
		ct_json_kv_string(j, "fix", g->fix);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_print_gap(FILE *out, const struct ct_answer_gap *g)
{
	if (g->missing_symbol)
		ct_tprintf(out,
			"symbol-version-missing: %s needs %s from %s (version '%s'%s),\n"
			"  but the copy the loader takes, %s [%s], does not define it:\n"
			"  the program fails with \"undefined symbol: %s, version %s\"\n",
			g->requester_brief, g->missing_symbol, g->library, g->version,
			g->nmissing > 1 ? ", and more" : "", g->lacking, g->lacking_rule,
			g->missing_symbol, g->version);
	else
		ct_tprintf(out,
			"symbol-version-missing: %s needs %s with version '%s'%s%s%s,\n"
			"  but the copy the loader takes, %s [%s], lacks it: the program fails with\n"
			"  \"version `%s' not found (required by %s)\"\n",
			g->requester_brief, g->library, g->version,
			g->symbol ? " (symbol " : "", g->symbol ? g->symbol : "", g->symbol ? ")" : "",
			g->lacking, g->lacking_rule, g->version, g->requester_name);
	ct_tprintf(out, "  fix: %s\n", g->fix);
}

void ct_print_foreign_interp(FILE *out, const struct ct_answer_interp *i)
{
	if (!i->path)
		return;
	if (i->facts_from)
		ct_tprintf(out, "note: its interpreter %s (PT_INTERP) was not run: judged with the "
			   "facts of the system's loader, %s\n",
			   i->path, i->facts_from);
	else
		ct_tprintf(out, "note: its interpreter %s (PT_INTERP) was not run: judged with "
			   "standard defaults (no system loader could be asked)\n",
			   i->path);
}

void ct_json_foreign_interp(struct ct_json *j, const struct ct_answer_interp *i)
{
	ct_json_key(j, "foreign_interp");
	if (!i->path) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", i->path);
	ct_json_kv_bool(j, "run", false);
	ct_json_kv_string(j, "facts_from", i->facts_from);
	ct_json_object_end(j);
}

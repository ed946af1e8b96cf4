/* Showing the loader model's answers; see explain.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copies.h"
#include "util.h"
#include "elfscan.h"
#include "describe.h"
#include "libnames.h"
#include "explain.h"
#include "facts.h"
#include "summary.h"
#include "trace.h"
#include "text.h"

void ct_print_lookup_candidates(FILE *out, const struct ct_lookup *k, const char *indent)
{
	size_t i, width = 0, rwidth = 0;
	char rule[256];

	for (i = 0; i < k->ncands; i++) {
		size_t n = strlen(k->cands[i].path[0] ? k->cands[i].path : "ld.so.cache");
		size_t r = strlen(ct_rule_text_at(k->cands[i].via, k->cands[i].owner,
						  k->cands[i].path, rule, sizeof(rule)));

		width = n > width ? n : width;
		rwidth = r > rwidth ? r : rwidth;
	}
	width = width > 64 ? 64 : width;
	for (i = 0; i < k->ncands; i++) {
		const struct ct_cand *c = &k->cands[i];

		ct_rule_text_at(c->via, c->owner, c->path, rule, sizeof(rule));
		ct_tprintf(out, "%s%2zu. %-*s  %-*s  %s\n", indent, i + 1, (int)width,
			c->path[0] ? c->path : "ld.so.cache", (int)rwidth, rule,
			ct_cand_words(c));
	}
}

/* One search path with a relative entry: whose, and what was found through it. */
struct cwd_entry {
	enum ct_rule via;
	const struct ct_lobj *owner;
	const char *dir;             /* a candidate's path: its folder is the entry */
	const char *found;           /* a file found there, or NULL */
};

/* Are a and b (relative candidates) in one folder of the working directory? */
static bool same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;

	return la == lb && strncmp(a, b, la) == 0;
}

void ct_print_cwd_entries(FILE *out, const struct ct_loader *L)
{
	struct cwd_entry seen[8];
	const char *found;
	size_t i, c, k, n = 0;
	char rule[256], entry[4200];

	for (i = 0; i < L->nlookups; i++) {
		const struct ct_lookup *l = L->lookups[i];

		for (c = 0; c < l->ncands; c++) {
			const struct ct_cand *cd = &l->cands[c];
			bool here;

			if (!ct_path_relative(cd->path) ||
			    (!ct_rule_is_own_path(cd->via) && cd->via != CT_RULE_LD_LIBRARY_PATH))
				continue;
			found = l->object ? l->object->path : l->path;
			here = cd->outcome == CT_FOUND && found && strcmp(found, cd->path) == 0;
			for (k = 0; k < n && (seen[k].via != cd->via || seen[k].owner != cd->owner ||
					      !same_dir(seen[k].dir, cd->path));
			     k++)
				;
			if (k == n && n < sizeof(seen) / sizeof(seen[0])) {
				seen[n].via = cd->via;
				seen[n].owner = cd->owner;
				seen[n].dir = cd->path;
				seen[n++].found = NULL;
			}
			if (k < n && here && !seen[k].found)
				seen[k].found = cd->path;
		}
	}
	for (k = 0; k < n; k++) {
		const char *slash = strrchr(seen[k].dir, '/');

		if (slash)
			snprintf(entry, sizeof(entry), "a relative entry, %.*s",
				 (int)(slash - seen[k].dir), seen[k].dir);
		else
			snprintf(entry, sizeof(entry), "an empty entry");
		ct_tprintf(out, "warning: %s%s has %s: the loader looks for libraries in the "
				"working directory, so the folder a program is started from can give "
				"it libraries",
			   seen[k].via == CT_RULE_LD_LIBRARY_PATH ? "" : "the ",
			   ct_rule_text(seen[k].via, seen[k].owner, rule, sizeof(rule)), entry);
		if (seen[k].found)
			ct_tprintf(out, " (%s was found there)", seen[k].found);
		ct_tprintf(out, "\n");
	}
}

void ct_print_cuda_facts(FILE *out, const struct ct_cuda_facts *c, const char *prefix)
{
	char words[512];

	if (!c->cuda_library && !c->nimages)
		return;
	if (c->renamed)
		ct_tprintf(out, "%s%s: a renamed major never works\n", prefix,
			   ct_renamed_words(c->name, c->soname, c->cuda, c->cuda_minor, words,
					    sizeof(words)));
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
	if (c->cuda_library)
		ct_tprintf(out, "CUDA library%s%s; ", c->version[0] ? ", version " : "", c->version);
	if (c->scanned && !c->nimages)
		ct_tprintf(out, "no device code\n");
	else
		ct_tprintf(out, "device code: %s\n", c->scanned ? c->line : "unreadable");
}

void ct_print_driver_missing(FILE *out, const char *name, const struct ct_lookup *k,
			     const char *prefix)
{
	enum ct_driver_lib lib = ct_driver_library(name);
	const struct ct_cand *stop = k->fatal && k->ncands ? &k->cands[k->ncands - 1] : NULL;

	if (!lib || k->object)
		return;
	/* driver-missing's words (diagnose.c, doctor_rules.c). */
	if (stop)
		ct_tprintf(out, "%sthe NVIDIA driver's '%s' at %s cannot be loaded: %s\n", prefix,
			   name, stop->path, ct_cand_words(stop));
	else
		ct_tprintf(out, "%sno NVIDIA driver: '%s'%s is not found: install the NVIDIA "
				"driver, or start the container with GPU support (docker run "
				"--gpus all)\n",
			   prefix, name, lib == CT_DRIVER_LIB_NVML ? ", its NVML," : "");
}

void ct_json_candidates(struct ct_json *j, const struct ct_lookup *k)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < k->ncands; i++) {
		const struct ct_cand *c = &k->cands[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", c->path[0] ? c->path : NULL);
		ct_json_kv_string(j, "via", ct_rule_id(c->via));
		ct_json_kv_string(j, "via_object", c->owner ? c->owner->path : NULL);
		ct_json_kv_string(j, "outcome", ct_outcome_id(c->outcome));
		ct_json_kv_bool(j, "hwcaps_subdirectory", c->subdir);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_json_cuda_facts(struct ct_json *j, const struct ct_cuda_facts *c)
{
	ct_json_object_begin(j);
	ct_json_kv_bool(j, "library", c->cuda_library);
	ct_json_kv_string(j, "version", c->version[0] ? c->version : NULL);
	ct_json_kv_string(j, "soname", c->soname[0] ? c->soname : NULL);
	ct_json_kv_bool(j, "renamed", c->renamed);
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

void ct_json_gaps(struct ct_json *j, const struct ct_version_gap *g, size_t n)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < n; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "code", "symbol-version-missing");
		ct_json_kv_string(j, "requested_by", g[i].requester->path);
		ct_json_kv_string(j, "library", g[i].need->file);
		ct_json_kv_string(j, "version", g[i].need->version);
		ct_json_kv_string(j, "symbol", g[i].missing_symbol ? g[i].missing_symbol
								: g[i].need->symbol);
		ct_json_kv_bool(j, "symbol_missing", g[i].missing_symbol != NULL);
		ct_json_kv_string(j, "lacking", g[i].lacking->path);
		ct_json_kv_string(j, "having", g[i].having);
		ct_json_kv_string(j, "having_where", g[i].having ? g[i].having_where : NULL);
		ct_json_kv_string(j, "fix", g[i].fix);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_print_gap(FILE *out, const struct ct_version_gap *g)
{
	const struct ct_verneed *v = g->need;
	const struct ct_lobj *lack = g->lacking;
	char rule[256];

	if (g->missing_symbol)
		ct_tprintf(out,
			"symbol-version-missing: %s needs %s from %s (version '%s'%s),\n"
			"  but the copy the loader takes, %s [%s], does not define it:\n"
			"  the program fails with \"undefined symbol: %s, version %s\"\n",
			ct_lobj_name(g->requester, true), g->missing_symbol, v->file, v->version,
			g->nmissing > 1 ? ", and more" : "", lack->path,
			lack->preload ? "LD_PRELOAD"
				      : ct_rule_text(lack->found_via, lack->via_owner, rule,
						     sizeof(rule)),
			g->missing_symbol, v->version);
	else
		ct_tprintf(out,
			"symbol-version-missing: %s needs %s with version '%s'%s%s%s,\n"
			"  but the copy the loader takes, %s [%s], lacks it: the program fails with\n"
			"  \"version `%s' not found (required by %s)\"\n",
			ct_lobj_name(g->requester, true), v->file, v->version,
			v->symbol ? " (symbol " : "", v->symbol ? v->symbol : "", v->symbol ? ")" : "",
			lack->path,
			lack->preload ? "LD_PRELOAD"
				      : ct_rule_text(lack->found_via, lack->via_owner, rule,
						     sizeof(rule)),
			v->version, ct_lobj_name(g->requester, false));
	ct_tprintf(out, "  fix: %s\n", g->fix);
}

void ct_print_foreign_interp(FILE *out, const struct ct_loader *L)
{
	if (!L->foreign_interp)
		return;
	if (L->plat.rtld)
		ct_tprintf(out, "note: its interpreter %s (PT_INTERP) was not run: judged with the "
			   "facts of the system's loader, %s\n",
			   L->foreign_interp, L->plat.rtld);
	else
		ct_tprintf(out, "note: its interpreter %s (PT_INTERP) was not run: judged with "
			   "standard defaults (no system loader could be asked)\n",
			   L->foreign_interp);
}

void ct_json_foreign_interp(struct ct_json *j, const struct ct_loader *L)
{
	ct_json_key(j, "foreign_interp");
	if (!L->foreign_interp) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", L->foreign_interp);
	ct_json_kv_bool(j, "run", false);
	ct_json_kv_string(j, "facts_from", L->plat.rtld);
	ct_json_object_end(j);
}

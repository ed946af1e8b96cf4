/*
 * cudatrace why's text and JSON (why_out.h), from its model: everything
 * shown was worked out there (which later candidate a file shadows, the
 * winner's device code, the copies), this only lays it out. Every string
 * from a file is escaped where printed: ct_tprintf for text, the JSON
 * writer for JSON.
 */
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "json.h"
#include "schema.h"
#include "text.h"
#include "why_out.h"

/* ---- text ---------------------------------------------------------------- */

/* -q: the answer alone, "=> PATH [rule]" or "=> not found: NAME: why". */
static void print_answer(FILE *out, const struct ct_why *m)
{
	if (!m->winner) {
		ct_tprintf(out, "=> not found: %s: %s\n", m->name, m->load_error);
		return;
	}
	ct_tprintf(out, "=> %s", m->winner);
	if (m->answer_new)
		ct_tprintf(out, " [%s]", m->rule_plain);
	else
		ct_tprintf(out, " [already loaded]");
	ct_tprintf(out, "\n");
}

static void print_later(FILE *out, const struct ct_why *m, const struct ct_why_view *v)
{
	size_t i, later = 0;

	/* -v: every candidate after the winner, each with its outcome, numbered on. */
	for (i = 0; v->verbose && m->winner && i < m->later.n; i++) {
		const struct ct_answer_cand *c = &m->later.c[i];

		if (!later++)
			ct_tprintf(out, "\nlater in the order, never reached:\n");
		ct_tprintf(out, "  %2zu. %s  %s  %s%s\n", m->reached.n + i + 1,
			   c->path[0] ? c->path : "ld.so.cache", c->rule_plain, c->words,
			   c->shadowed ? " (shadowed)" : "");
	}
	for (i = 0; !v->verbose && i < m->later.n; i++) {
		const struct ct_answer_cand *c = &m->later.c[i];

		if (!c->shadowed)
			continue;
		if (!later++)
			ct_tprintf(out, "\nlater in the order, never reached (shadowed):\n");
		ct_tprintf(out, "  %s [%s]%s\n", c->path, c->rule_plain,
			   c->found ? "" : " (another ELF class or machine: skipped)");
	}
}

static void print_copies(FILE *out, const struct ct_why *m)
{
	size_t i;

	if (m->copies.n) {
		ct_tprintf(out, "\nelsewhere on this machine, not on the path:\n");
		for (i = 0; i < m->copies.n; i++) {
			const struct ct_answer_copy *c = &m->copies.c[i];
			/* The version says more than the name asked only past its major. */
			bool ver = c->version[0] && (!c->same_name || strchr(c->version, '.'));

			ct_tprintf(out, "  %s (%s%s%s%s)\n", c->path,
				   c->same_name ? "" : "another major, ", ver ? c->version : "",
				   ver ? ", " : "", c->where);
		}
	} else {
		ct_tprintf(out, "\nno copy of %s elsewhere (the cache's directories, pip wheels, "
				"conda,\nCUDA toolkits), nor another major of it\n",
			   m->name);
	}
	if (m->winner)
		return;
	if (m->use_copy)
		ct_tprintf(out, "\nto use %s: put %s on LD_LIBRARY_PATH,\n"
				"or into the RUNPATH of %s\n",
			   m->use_copy, m->use_dir, m->from ? m->from : "the program");
	else if (m->copies.n)
		ct_tprintf(out, "\nonly other majors of it are here: what asks for %s was built "
				"against\nthat major; install it, or rebuild against the one present\n",
			   m->name);
}

void ct_why_print(FILE *out, const struct ct_why *m, const struct ct_why_view *v)
{
	size_t i;

	if (m->error)
		return;
	if (v->quiet) {
		print_answer(out, m);
		for (i = 0; i < m->gaps.n; i++) {
			ct_tprintf(out, "\n");
			ct_print_gap(out, &m->gaps.g[i]);
		}
		return;
	}
	if (m->from)
		ct_tprintf(out, "%s, as %s asks for it", m->name, m->from);
	else
		ct_tprintf(out, "%s, as dlopen finds it for a program with no RPATH or RUNPATH",
			   m->name);
	if (m->ld_library_path)
		ct_tprintf(out, " (LD_LIBRARY_PATH=%s)", m->ld_library_path);
	ct_tprintf(out, ":\n");
	ct_print_foreign_interp(out, &m->interp);
	ct_print_cwd_entries(out, &m->cwd);
	if (m->already_loaded) {
		ct_tprintf(out, "  already loaded: %s", m->loaded_path);
		if (m->loaded_is_rtld)
			ct_tprintf(out, " (the dynamic loader)\n");
		else if (m->loaded_for)
			ct_tprintf(out, " (loaded for %s, %s)\n", m->loaded_for, m->loaded_rule);
		else
			ct_tprintf(out, "\n");
		ct_tprintf(out, "  the loader takes it without searching; a search of its own "
				"would try:\n");
	}
	if (m->search_error)
		ct_tprintf(out, "  no candidate: %s\n", m->search_error);
	ct_print_lookup_candidates(out, &m->reached, "  ");
	if (m->winner) {
		ct_tprintf(out, "=> %s", m->winner);
		if (m->answer_new)
			ct_tprintf(out, " [%s]", m->rule);
		ct_tprintf(out, "\n");
		ct_print_cuda_facts(out, m->cuda, "   ");
		if (m->execstack)
			ct_tprintf(out, "   it asks for an executable stack: glibc %s refuses it to "
					"a dlopen (the start of a program still grants one); "
					"patchelf --clear-execstack it\n",
				   m->glibc);
	} else {
		ct_tprintf(out, "=> not found: %s: %s\n", m->name, m->load_error);
		if (m->noexec_path)
			ct_tprintf(out, "   %s is on a file system mounted noexec: the loader "
					"cannot map its code\n",
				   m->noexec_path);
		ct_print_driver_missing(out, &m->driver_missing, "   ");
	}
	print_later(out, m, v);
	print_copies(out, m);
	for (i = 0; i < m->gaps.n; i++) {
		ct_tprintf(out, "\n");
		ct_print_gap(out, &m->gaps.g[i]);
	}
}

/* ---- JSON ---------------------------------------------------------------- */

int ct_why_json(FILE *out, const struct ct_why *m)
{
	struct ct_json j;
	size_t i;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_WHY);
	ct_json_kv_string(&j, "name", m->name);
	ct_json_kv_string(&j, "error", m->error);
	if (m->error) {
		ct_json_kv_string(&j, "path", NULL);
		ct_json_kv_string(&j, "requested_by", m->from);
		ct_json_kv_string(&j, "found_via", NULL);
		ct_json_object_end(&j);
		return ct_json_finish(&j);
	}
	ct_json_kv_string(&j, "path", m->winner);
	ct_json_kv_string(&j, "requested_by", m->from);
	ct_json_kv_string(&j, "found_via", m->found_via);
	ct_json_kv_string(&j, "via_object", m->via_object);
	ct_json_kv_string(&j, "loaded_for", m->loaded_for_path);
	ct_json_kv_string(&j, "search_found_via", m->search_found_via);
	ct_json_kv_string(&j, "search_path", m->search_path);
	ct_json_kv_string(&j, "load_error", m->load_error);
	ct_json_key(&j, "candidates");
	ct_json_candidates(&j, &m->reached);
	/* Later candidates that exist: what the winner shadows. */
	ct_json_key(&j, "shadowed");
	ct_json_array_begin(&j);
	for (i = 0; i < m->later.n; i++) {
		const struct ct_answer_cand *c = &m->later.c[i];

		if (!c->shadowed)
			continue;
		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "path", c->path);
		ct_json_kv_string(&j, "via", c->via);
		ct_json_kv_string(&j, "via_object", c->via_object);
		ct_json_kv_string(&j, "outcome", c->outcome);
		ct_json_object_end(&j);
	}
	ct_json_array_end(&j);
	ct_json_key(&j, "copies");
	ct_json_copies(&j, &m->copies);
	ct_json_key(&j, "cuda");
	if (m->cuda && m->cuda->shown)
		ct_json_cuda_facts(&j, m->cuda);
	else
		ct_json_null(&j);
	ct_json_key(&j, "symbol_versions");
	ct_json_gaps(&j, &m->gaps);
	ct_json_foreign_interp(&j, &m->interp);
	ct_json_object_end(&j);
	return ct_json_finish(&j);
}

/*
 * cudatrace ldd's text and JSON (ldd_out.h), from its model: everything
 * shown was worked out there, this only lays it out. Every string from a
 * file (paths, sonames, the loader's words) is escaped where printed:
 * ct_tprintf for text, the JSON writer for JSON.
 */
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "json.h"
#include "ldd_out.h"
#include "schema.h"
#include "text.h"

/* ---- text ---------------------------------------------------------------- */

static bool shown(const struct ct_ldd_view *v, const struct ct_ldd_lib *l)
{
	return l->shown || v->verbose;
}

static void print_info(FILE *out, const char *prefix, const char *text)
{
	ct_tprintf(out, "%s%s\n", prefix, text);
}

static void print_node(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v,
		       const size_t *kids, size_t nkids, const char *prefix);

static void print_lookup(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v,
			 const struct ct_ldd_lib *k, const char *prefix, bool last)
{
	char line[4600], info[4096];
	bool children = false;
	size_t i;

	/* Info lines hang under the node, left of its children's branch. */
	for (i = 0; i < k->nkids && !children; i++)
		children = shown(v, &m->libs[k->kids[i]]);
	snprintf(info, sizeof(info), "%s%s%s", prefix, last ? "    " : "|   ",
		 children ? "|   " : "    ");

	ct_tprintf(out, "%s%s %s => ", prefix, last ? "`--" : "|--", k->name);
	if (!k->path) {
		ct_tprintf(out, "not found%s%s\n", k->error ? ": " : "", k->error ? k->error : "");
		if (k->fatal)
			print_info(out, info, "the loader stops the whole load here");
		if (k->noexec_path) {
			snprintf(line, 256, "%s is on a file system mounted noexec: the loader cannot "
				 "map its code", k->noexec_path);
			print_info(out, info, line);
		}
		ct_print_driver_missing(out, &k->driver_missing, info);
		if (!k->cands.n)
			print_info(out, info, "no candidate was tried");
		else
			print_info(out, info, "tried, in order:");
		ct_print_lookup_candidates(out, &k->cands, info);
		if (k->has_copies) {
			const struct ct_answer_copies *cs = &k->copies;

			for (i = 0; i < cs->n && i < 3; i++) {
				bool ver = cs->c[i].version[0] &&
					   (!cs->c[i].same_name || strchr(cs->c[i].version, '.'));

				snprintf(line, 256, "%s %s (%s%s%s%s)",
					 i ? "          " : "elsewhere:", cs->c[i].path,
					 cs->c[i].same_name ? "" : "another major, ",
					 ver ? cs->c[i].version : "", ver ? ", " : "", cs->c[i].where);
				print_info(out, info, line);
			}
			if (cs->n > 3)
				ct_tprintf(out, "%s           and %zu more\n", info, cs->n - 3);
			snprintf(line, 256, "(cudatrace why %s --from %s: the whole story)", k->name,
				 k->requester_name);
			print_info(out, info, line);
		}
		return;
	}
	if (!k->new_object) {
		ct_tprintf(out, "%s [%s]\n", k->path,
			   k->rtld ? "the program's interpreter (PT_INTERP)" : "already loaded");
		return;
	}
	ct_tprintf(out, "%s [%s]\n", k->path, k->rule);
	ct_print_cuda_facts(out, k->cuda, info);
	if (v->verbose && k->cands.n) {
		print_info(out, info, "tried, in order:");
		ct_print_lookup_candidates(out, &k->cands, info);
	}
	snprintf(info, sizeof(info), "%s%s", prefix, last ? "    " : "|   ");
	print_node(out, m, v, k->kids, k->nkids, info);
}

static void print_node(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v,
		       const size_t *kids, size_t nkids, const char *prefix)
{
	const struct ct_ldd_lib *last = NULL;
	size_t i;

	for (i = 0; i < nkids; i++)
		if (shown(v, &m->libs[kids[i]]))
			last = &m->libs[kids[i]];
	for (i = 0; i < nkids; i++) {
		const struct ct_ldd_lib *k = &m->libs[kids[i]];

		if (shown(v, k))
			print_lookup(out, m, v, k, prefix, k == last);
	}
}

/*
 * -q: no tree, a line per library not found and who needs it, as
 * ldd | grep 'not found' would give; what follows (the program would not
 * start, symbol versions missing, the count) as without -q.
 */
static void print_missing(FILE *out, const struct ct_ldd *m)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++) {
		const struct ct_ldd_lib *k = &m->libs[i];

		if (k->path)
			continue;
		ct_tprintf(out, "%s => not found%s%s (needed by %s)\n", k->name,
			   k->error ? ": " : "", k->error ? k->error : "", k->requester_name);
	}
}

void ct_ldd_print(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v)
{
	size_t i;

	if (m->error)
		return;
	if (m->is_static) {
		ct_tprintf(out, "%s: statically linked, it loads no shared library at start\n",
			   m->file);
		return;
	}
	if (v->quiet) {
		print_missing(out, m);
	} else {
		ct_tprintf(out, "%s\n", m->file);
		ct_print_cuda_facts(out, m->cuda, "    ");
		ct_print_foreign_interp(out, &m->interp);
		ct_print_cwd_entries(out, &m->cwd);
		print_node(out, m, v, m->top, m->ntop, "");
	}
	if (m->noexec)
		ct_tprintf(out, "\nthe program would not start: %s\n", m->noexec);
	if (m->execstack)
		ct_tprintf(out, "\nloaded with dlopen (as Python loads an extension), it would "
			   "not load: %s\n", m->execstack);
	if (m->fatal)
		ct_tprintf(out, "\nthe program would not start: %s%s\n",
			   m->fatal_truncated ? "" : "error while loading shared libraries: ",
			   m->fatal);
	for (i = 0; i < m->gaps.n; i++) {
		ct_tprintf(out, "\n");
		ct_print_gap(out, &m->gaps.g[i]);
	}
	if (!v->quiet || m->not_found || m->gaps.n)
		ct_tprintf(out, "\n");
	ct_tprintf(out, "%zu librar%s found, %zu not found\n", m->found,
		   m->found == 1 ? "y" : "ies", m->not_found);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_strings(struct ct_json *j, const char *key, const char *const *v, size_t n)
{
	size_t i;

	ct_json_key(j, key);
	ct_json_array_begin(j);
	for (i = 0; i < n; i++)
		ct_json_string(j, v[i]);
	ct_json_array_end(j);
}

static void json_loader(struct ct_json *j, const struct ct_ldd *m)
{
	const struct ct_ldd_loader *p = &m->loader;

	ct_json_key(j, "loader");
	ct_json_object_begin(j);
	ct_json_kv_string(j, "rtld", p->rtld);
	ct_json_kv_string(j, "glibc", p->glibc);
	ct_json_kv_string(j, "lib", p->lib);
	ct_json_kv_string(j, "platform", p->platform);
	json_strings(j, "hwcaps", p->hwcaps, p->nhwcaps);
	json_strings(j, "system_dirs", p->system_dirs, p->nsystem_dirs);
	json_strings(j, "subdirectories", p->subdirs, p->nsubdirs);
	ct_json_kv_string(j, "cache", p->cache);
	ct_json_kv_string(j, "ld_library_path", p->ld_library_path);
	ct_json_kv_string(j, "ld_preload", p->ld_preload);
	ct_json_kv_bool(j, "secure", p->secure);
	ct_json_kv_bool(j, "facts_from_loader", p->facts_from_loader);
	ct_json_foreign_interp(j, &m->interp);
	ct_json_object_end(j);
}

/* The facts, or null for a file with nothing to say of CUDA. */
static void json_facts(struct ct_json *j, const struct ct_answer_facts *c)
{
	ct_json_key(j, "cuda");
	if (c && c->shown)
		ct_json_cuda_facts(j, c);
	else
		ct_json_null(j);
}

int ct_ldd_json(FILE *out, const struct ct_ldd *m, const struct ct_ldd_view *v)
{
	struct ct_json j;
	size_t i;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_LDD);
	ct_json_kv_string(&j, "file", m->file);
	ct_json_kv_string(&j, "error", m->error);
	if (m->error || m->is_static) {
		if (m->is_static)
			ct_json_kv_bool(&j, "static", true);
		ct_json_key(&j, "libraries");
		ct_json_array_begin(&j);
		ct_json_array_end(&j);
		ct_json_object_end(&j);
		return ct_json_finish(&j);
	}
	/* The file's own device code, as the text shows it. */
	json_facts(&j, m->cuda);
	json_loader(&j, m);
	ct_json_key(&j, "libraries");
	ct_json_array_begin(&j);
	for (i = 0; i < m->nlibs; i++) {
		const struct ct_ldd_lib *k = &m->libs[i];

		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "name", k->name);
		if (k->expanded)
			ct_json_kv_string(&j, "expanded", k->expanded);
		ct_json_kv_string(&j, "path", k->path);
		ct_json_kv_string(&j, "requested_by", k->requested_by);
		ct_json_kv_string(&j, "found_via", k->found_via);
		ct_json_kv_string(&j, "via_object", k->via_object);
		ct_json_kv_u64(&j, "depth", k->depth);
		ct_json_kv_bool(&j, "preload", k->preload);
		ct_json_kv_string(&j, "soname", k->soname);
		ct_json_kv_string(&j, "error", k->error);
		if (k->new_object)
			json_facts(&j, k->cuda);
		if (!k->path || v->verbose) {
			ct_json_key(&j, "candidates");
			ct_json_candidates(&j, &k->cands);
		}
		if (k->has_copies) {
			ct_json_key(&j, "copies");
			ct_json_copies(&j, &k->copies);
		}
		ct_json_object_end(&j);
	}
	ct_json_array_end(&j);
	ct_json_key(&j, "symbol_versions");
	ct_json_gaps(&j, &m->gaps);
	ct_json_kv_string(&j, "loader_error", m->noexec ? m->noexec : m->fatal);
	ct_json_kv_string(&j, "dlopen_error", m->execstack);
	ct_json_object_end(&j);
	return ct_json_finish(&j);
}

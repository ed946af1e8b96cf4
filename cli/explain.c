/* Showing the loader model's answers; see explain.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copies.h"
#include "cudatrace.h"
#include "explain.h"
#include "facts.h"
#include "summary.h"
#include "trace.h"

const char *ct_lobj_name(const struct ct_lobj *o, bool brief)
{
	const char *slash;

	if (!o)
		return "?";
	if (o->is_main && !o->path[0])
		return "the program";
	slash = strrchr(o->path, '/');
	return brief && slash ? slash + 1 : o->path;
}

char *ct_rule_text(const char *via, const struct ct_lobj *owner, char *buf, size_t size)
{
	if (owner && via && (strcmp(via, "rpath") == 0 || strcmp(via, "runpath") == 0))
		snprintf(buf, size, "%s of %s", ct_rule_words(via), ct_lobj_name(owner, true));
	else
		snprintf(buf, size, "%s", ct_rule_words(via));
	return buf;
}

void ct_print_lookup_candidates(FILE *out, const struct ct_lookup *k, const char *indent)
{
	size_t i, width = 0, rwidth = 0;
	char rule[256];

	for (i = 0; i < k->ncands; i++) {
		size_t n = strlen(k->cands[i].path[0] ? k->cands[i].path : "ld.so.cache");
		size_t r = strlen(ct_rule_text(k->cands[i].via, k->cands[i].owner, rule,
					       sizeof(rule)));

		width = n > width ? n : width;
		rwidth = r > rwidth ? r : rwidth;
	}
	width = width > 64 ? 64 : width;
	for (i = 0; i < k->ncands; i++) {
		const struct ct_cand *c = &k->cands[i];

		ct_rule_text(c->via, c->owner, rule, sizeof(rule));
		fprintf(out, "%s%2zu. %-*s  %-*s  %s\n", indent, i + 1, (int)width,
			c->path[0] ? c->path : "ld.so.cache", (int)rwidth, rule,
			ct_outcome_name(c->outcome));
	}
}

void ct_print_cuda_facts(FILE *out, const struct ct_cuda_facts *c, const char *prefix)
{
	if (!c->cuda_library && !c->nimages)
		return;
	fprintf(out, "%s", prefix);
	if (c->cuda_library)
		fprintf(out, "CUDA library%s%s; ", c->version[0] ? ", version " : "", c->version);
	if (c->scanned && !c->nimages)
		fprintf(out, "no device code\n");
	else
		fprintf(out, "device code: %s\n", c->scanned ? c->line : "unreadable");
}

void ct_json_candidates(struct ct_json *j, const struct ct_lookup *k)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < k->ncands; i++) {
		const struct ct_cand *c = &k->cands[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", c->path[0] ? c->path : NULL);
		ct_json_kv_string(j, "via", c->via);
		ct_json_kv_string(j, "via_object", c->owner ? c->owner->path : NULL);
		ct_json_kv_string(j, "outcome", ct_outcome_id(c->outcome));
		ct_json_kv_bool(j, "hwcaps_subdirectory", c->subdir);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path)
{
	struct elfscan_options opt = { .no_magic_scan = true };
	struct elfscan_file f;

	memset(c, 0, sizeof(*c));
	c->cuda_library = ct_cuda_library(path);
	if (c->cuda_library)
		ct_library_version(path, c->version, sizeof(c->version));
	elfscan_file_init(&f);
	/*
	 * Only the fatbin sections, headers only: what the CUDA runtime
	 * registers, at a cost that grows with the images, not the file.
	 */
	if (elfscan_scan_path(&f, path, &opt) == 0) {
		struct ct_summary s;

		ct_summary_build(&s, &f, 0, f.nimages);
		c->scanned = true;
		c->nimages = f.nimages;
		ct_summary_oneline(&s, c->line, sizeof(c->line));
		ct_summary_archs(&s, ELFSCAN_KIND_SASS, c->sass, sizeof(c->sass));
		ct_summary_archs(&s, ELFSCAN_KIND_PTX, c->ptx, sizeof(c->ptx));
		ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, c->ltoir, sizeof(c->ltoir));
		ct_summary_release(&s);
	}
	elfscan_file_release(&f);
}

void ct_json_cuda_facts(struct ct_json *j, const struct ct_cuda_facts *c)
{
	ct_json_object_begin(j);
	ct_json_kv_bool(j, "library", c->cuda_library);
	ct_json_kv_string(j, "version", c->version[0] ? c->version : NULL);
	if (c->scanned) {
		ct_json_kv_u64(j, "images", c->nimages);
		ct_json_words(j, "sass", c->sass);
		ct_json_words(j, "ptx", c->ptx);
		ct_json_words(j, "ltoir", c->ltoir);
	}
	ct_json_object_end(j);
}

/* The lookup by which requester r reached the object answering to file. */
static const struct ct_lookup *lookup_for(const struct ct_loader *L,
					  const struct ct_lobj *r, const char *file)
{
	size_t i, n;

	for (i = 0; i < L->nlookups; i++) {
		const struct ct_lookup *k = L->lookups[i];

		if (k->requester != r || !k->object)
			continue;
		if (strcmp(k->name, file) == 0)
			return k;
		for (n = 0; n < k->object->nnames; n++)
			if (strcmp(k->object->names[n], file) == 0)
				return k;
	}
	return NULL;
}

/*
 * A copy of the library that has what is missing, into g: first what the
 * requester's own search would find later in its order (the copy its
 * RUNPATH names, shadowed by LD_LIBRARY_PATH), then copies elsewhere.
 */
static void find_having(struct ct_loader *L, const struct ct_lookup *k,
			struct ct_version_gap *g)
{
	struct ct_lookup *s = ct_loader_search(L, (struct ct_lobj *)k->requester, k->name, true);
	struct ct_copies cs;
	size_t i;

	for (i = 0; i < s->ncands && !g->having; i++)
		if (s->cands[i].outcome == CT_FOUND && ct_file_satisfies(s->cands[i].path, g->need->version, g->missing_symbol)) {
			char rule[128];

			g->having = ct_xstrdup(s->cands[i].path);
			snprintf(g->having_where, sizeof(g->having_where), "%s, later in the order",
				 ct_rule_text(s->cands[i].via, s->cands[i].owner, rule, sizeof(rule)));
		}
	ct_find_copies(L, s, &cs);
	for (i = 0; i < cs.n && !g->having; i++)
		if (ct_file_satisfies(cs.c[i].path, g->need->version, g->missing_symbol)) {
			g->having = ct_xstrdup(cs.c[i].path);
			snprintf(g->having_where, sizeof(g->having_where), "%s", cs.c[i].where);
		}
	ct_copies_release(&cs);
	ct_lookup_free(s);
}

/* The symbol tables of the objects, read once each (by load index). */
struct symtabs {
	struct ct_symtab *t;
	bool *read;
	size_t n;
};

static const struct ct_symtab *symtab_of(struct symtabs *st, const struct ct_lobj *o)
{
	if (o->index >= st->n)
		return NULL;
	if (!st->read[o->index]) {
		st->read[o->index] = true;
		ct_symtab_read(&st->t[o->index], o->path);
	}
	return &st->t[o->index];
}

/* The first of need's symbols missing from o and the rest of the load. */
static const char *first_missing(struct symtabs *st, const struct ct_loader *L,
				 const struct ct_lobj *o, const struct ct_verneed *need,
				 size_t *count)
{
	const struct ct_symtab **others = ct_xcalloc(L->nobjs + 1, sizeof(*others));
	const char *first;
	size_t k, n = 0;

	*count = 0;
	if (!need->nsymbols || !symtab_of(st, o)) {
		free(others);
		return NULL;
	}
	/* The rest of the scope only matters when o lacks one: read it then. */
	first = ct_symbols_missing(need, symtab_of(st, o), NULL, 0, count);
	if (first) {
		for (k = 0; k < L->nobjs; k++)
			if (L->objs[k] != o && !L->objs[k]->is_main)
				others[n++] = symtab_of(st, L->objs[k]);
		first = ct_symbols_missing(need, symtab_of(st, o), others, n, count);
	}
	free(others);
	return first;
}

struct ct_version_gap *ct_version_gaps(struct ct_loader *L, size_t *n)
{
	struct ct_version_gap *out = NULL;
	struct symtabs st;
	size_t i, v;

	*n = 0;
	st.n = L->nobjs;
	st.t = ct_xcalloc(st.n + 1, sizeof(*st.t));
	st.read = ct_xcalloc(st.n + 1, sizeof(*st.read));
	for (i = 0; i < L->nobjs; i++) {
		const struct ct_lobj *r = L->objs[i];

		for (v = 0; v < r->info.nverneed; v++) {
			const struct ct_verneed *need = &r->info.verneed[v];
			const struct ct_lookup *k;
			struct ct_version_gap *g;
			const char *missing = NULL;
			size_t nmissing = 0;

			if (need->weak || !need->file || !need->version ||
			    !(k = lookup_for(L, r, need->file)))
				continue;
			/* A file without version definitions only draws a warning. */
			if (!k->object->info.nverdef)
				continue;
			if (ct_elfinfo_defines(&k->object->info, need->version) &&
			    !(missing = first_missing(&st, L, k->object, need, &nmissing)))
				continue;
			out = ct_xrealloc(out, (*n + 1) * sizeof(*out));
			g = &out[(*n)++];
			memset(g, 0, sizeof(*g));
			g->requester = r;
			g->lacking = k->object;
			g->need = need;
			g->missing_symbol = missing;
			g->nmissing = nmissing;
			find_having(L, k, g);
		}
	}
	for (i = 0; i < st.n; i++)
		ct_symtab_release(&st.t[i]);
	free(st.t);
	free(st.read);
	return out;
}

void ct_version_gaps_free(struct ct_version_gap *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(g[i].having);
	free(g);
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
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

int ct_loader_open(struct ct_loader *L, const char *file, const struct ct_loader_env *env,
		   const char **why)
{
	struct ct_elfinfo e;
	const char *rtld = NULL;
	int rc = 0, err = 0;

	*why = NULL;
	ct_elfinfo_init(&e);
	if (file) {
		rc = ct_elfinfo_read(&e, file);
		if (rc < 0) {
			*why = rc == -ENOEXEC ? "not an ELF file" : strerror(-rc);
			ct_elfinfo_release(&e);
			return rc;
		}
		if (!e.dynamic) {
			ct_elfinfo_release(&e);
			return 1;
		}
		/* The loader that will run it: its PT_INTERP when present here. */
		if (e.interp && access(e.interp, X_OK) == 0)
			rtld = e.interp;
	}
	ct_loader_init(L, rtld, env);
	if (file && (e.elf_class != L->plat.elf_class || e.machine != L->plat.machine)) {
		*why = "built for another machine or ELF class than this system's loader";
		rc = -ENOEXEC;
	} else if (!ct_loader_start(L, file, &err)) {
		*why = err == -ENOEXEC ? "not an ELF file" : strerror(-err);
		rc = err ? err : -EINVAL;
	}
	ct_elfinfo_release(&e);
	if (rc < 0)
		ct_loader_release(L);
	return rc;
}

void ct_print_gap(FILE *out, const struct ct_version_gap *g)
{
	const struct ct_verneed *v = g->need;
	const struct ct_lobj *lack = g->lacking;
	char rule[256], *dir = ct_xstrdup(lack->path), *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	if (g->missing_symbol)
		fprintf(out,
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
		fprintf(out,
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
	if (!g->having)
		fprintf(out, "  no copy on this machine has it: install a %s that does\n", v->file);
	else if (lack->preload)
		fprintf(out, "  %s (%s) has it: take %s off LD_PRELOAD\n", g->having,
			g->having_where, lack->path);
	else if (lack->found_via && strcmp(lack->found_via, "ld_library_path") == 0)
		fprintf(out, "  %s (%s) has it: take %s off LD_LIBRARY_PATH\n", g->having,
			g->having_where, slash ? dir : lack->path);
	else
		fprintf(out, "  %s (%s) has it: load that copy instead (its directory first\n"
			"  on LD_LIBRARY_PATH, or in the RUNPATH of %s)\n",
			g->having, g->having_where, ct_lobj_name(g->requester, true));
	free(dir);
}

/*
 * Symbol versions the loaded objects need and their dependencies lack;
 * see symvers.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "describe.h"
#include "symvers.h"
#include "util.h"

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

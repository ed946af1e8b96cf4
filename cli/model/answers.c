/* The loader model's answers in words (answers.h): worked out once, for every view. */
#include <stdio.h>
#include <string.h>

#include "answers.h"
#include "copies.h"
#include "describe.h"
#include "libfacts.h"
#include "resolve.h"
#include "rules.h"
#include "symvers.h"

const char *ct_answer_str(struct ct_arena *a, const char *s)
{
	return s ? ct_arena_strdup(a, s) : NULL;
}

void ct_answer_cands_from(struct ct_answer_cands *out, struct ct_arena *a,
			  const struct ct_lookup *k, size_t first, size_t n)
{
	char rule[256];
	size_t i;

	out->n = 0;
	out->c = NULL;
	if (first >= k->ncands || !n)
		return;
	if (n > k->ncands - first)
		n = k->ncands - first;
	out->c = ct_arena_alloc(a, n * sizeof(*out->c));
	for (i = 0; i < n; i++) {
		const struct ct_cand *c = &k->cands[first + i];
		struct ct_answer_cand *m = &out->c[i];

		memset(m, 0, sizeof(*m));
		m->path = ct_arena_strdup(a, c->path);
		m->rule = ct_arena_strdup(a, ct_rule_text_at(c->via, c->owner, c->path, rule,
							     sizeof(rule)));
		m->rule_plain = ct_arena_strdup(a, ct_rule_text(c->via, c->owner, rule, sizeof(rule)));
		m->via = ct_rule_id(c->via);
		m->via_object = c->owner ? ct_arena_strdup(a, c->owner->path) : NULL;
		m->outcome = ct_outcome_id(c->outcome);
		m->words = ct_arena_strdup(a, ct_cand_words(c));
		m->subdir = c->subdir;
		m->found = c->outcome == CT_FOUND;
	}
	out->n = n;
}

struct ct_answer_facts *ct_answer_facts_from(struct ct_arena *a, const struct ct_cuda_facts *c)
{
	struct ct_answer_facts *f = ct_arena_alloc(a, sizeof(*f));
	char words[512];

	memset(f, 0, sizeof(*f));
	f->version = f->soname = f->driver_version = f->line = "";
	f->sass = f->ptx = f->ltoir = "none";
	if (!c)
		return f;
	f->shown = c->cuda_library || c->nimages;
	f->library = c->cuda_library;
	if (c->renamed)
		f->renamed = ct_arena_strdup(a, ct_renamed_words(c->name, c->soname, c->cuda,
								 c->cuda_minor, words, sizeof(words)));
	f->version = ct_arena_strdup(a, c->version);
	f->soname = ct_arena_strdup(a, c->soname);
	f->driver = c->driver;
	f->driver_version = ct_arena_strdup(a, c->driver_version);
	f->driver_stub = c->driver_stub;
	f->scanned = c->scanned;
	f->nimages = c->nimages;
	f->line = ct_arena_strdup(a, c->line);
	f->sass = ct_arena_strdup(a, c->sass);
	f->ptx = ct_arena_strdup(a, c->ptx);
	f->ltoir = ct_arena_strdup(a, c->ltoir);
	return f;
}

void ct_answer_copies_from(struct ct_answer_copies *out, struct ct_arena *a,
			   const struct ct_copies *cs)
{
	size_t i;

	out->n = cs->n;
	out->c = cs->n ? ct_arena_alloc(a, cs->n * sizeof(*out->c)) : NULL;
	for (i = 0; i < cs->n; i++) {
		out->c[i].path = ct_arena_strdup(a, cs->c[i].path);
		out->c[i].where = ct_arena_strdup(a, cs->c[i].where);
		out->c[i].version = ct_arena_strdup(a, cs->c[i].version);
		out->c[i].same_name = cs->c[i].same_name;
	}
}

void ct_answer_gaps_from(struct ct_answer_gaps *out, struct ct_arena *a,
			 const struct ct_version_gap *g, size_t n)
{
	char rule[256];
	size_t i;

	out->n = n;
	out->g = n ? ct_arena_alloc(a, n * sizeof(*out->g)) : NULL;
	for (i = 0; i < n; i++) {
		const struct ct_lobj *lack = g[i].lacking;
		struct ct_answer_gap *m = &out->g[i];

		m->requester = ct_arena_strdup(a, g[i].requester->path);
		m->requester_brief = ct_arena_strdup(a, ct_lobj_name(g[i].requester, true));
		m->requester_name = ct_arena_strdup(a, ct_lobj_name(g[i].requester, false));
		m->library = ct_arena_strdup(a, g[i].need->file);
		m->version = ct_arena_strdup(a, g[i].need->version);
		m->symbol = ct_answer_str(a, g[i].need->symbol);
		m->missing_symbol = ct_answer_str(a, g[i].missing_symbol);
		m->nmissing = g[i].nmissing;
		m->lacking = ct_arena_strdup(a, lack->path);
		m->lacking_rule = ct_arena_strdup(
			a, lack->preload ? "LD_PRELOAD"
					 : ct_rule_text(lack->found_via, lack->via_owner, rule,
							sizeof(rule)));
		m->having = ct_answer_str(a, g[i].having);
		m->having_where = g[i].having ? ct_arena_strdup(a, g[i].having_where) : NULL;
		m->fix = ct_arena_strdup(a, g[i].fix);
	}
}

void ct_answer_interp_from(struct ct_answer_interp *out, struct ct_arena *a,
			   const struct ct_loader *L)
{
	out->path = ct_answer_str(a, L->foreign_interp);
	out->facts_from = ct_answer_str(a, L->plat.rtld);
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

void ct_answer_cwds_from(struct ct_answer_cwds *out, struct ct_arena *a, const struct ct_loader *L)
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
	out->n = n;
	out->e = n ? ct_arena_alloc(a, n * sizeof(*out->e)) : NULL;
	for (k = 0; k < n; k++) {
		const char *slash = strrchr(seen[k].dir, '/');

		if (slash)
			snprintf(entry, sizeof(entry), "a relative entry, %.*s",
				 (int)(slash - seen[k].dir), seen[k].dir);
		else
			snprintf(entry, sizeof(entry), "an empty entry");
		out->e[k].ld_library_path = seen[k].via == CT_RULE_LD_LIBRARY_PATH;
		out->e[k].rule = ct_arena_strdup(a, ct_rule_text(seen[k].via, seen[k].owner, rule,
								 sizeof(rule)));
		out->e[k].entry = ct_arena_strdup(a, entry);
		out->e[k].found = ct_answer_str(a, seen[k].found);
	}
}

void ct_answer_driver_missing_from(struct ct_answer_driver_missing *out, struct ct_arena *a,
				   const char *name, const struct ct_lookup *k)
{
	enum ct_driver_lib lib = ct_driver_library(name);
	const struct ct_cand *stop = k->fatal && k->ncands ? &k->cands[k->ncands - 1] : NULL;

	memset(out, 0, sizeof(*out));
	if (!lib || k->object)
		return;
	out->lib = lib;
	out->name = ct_arena_strdup(a, name);
	if (stop) {
		out->stop_path = ct_arena_strdup(a, stop->path);
		out->stop_words = ct_arena_strdup(a, ct_cand_words(stop));
	}
}

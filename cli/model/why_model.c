/*
 * cudatrace why's model (why_model.h): the loader model set up for the
 * requester, asked for one name and searched exhaustively, once, into
 * words.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "copies.h"
#include "describe.h"
#include "libfacts.h"
#include "resolve.h"
#include "symvers.h"
#include "util.h"
#include "why_model.h"

/* A later candidate that exists and is not the winner under another path. */
static bool shadows(const char *winner, const struct ct_cand *c)
{
	struct stat a, b;

	if (c->outcome != CT_FOUND && c->outcome != CT_WRONG_CLASS &&
	    c->outcome != CT_WRONG_MACHINE)
		return false;
	return !winner || stat(winner, &a) != 0 || stat(c->path, &b) != 0 ||
	       a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

/* Only the gaps between the requester and what it gets for this name. */
static void own_gaps(struct ct_why *m, struct ct_loader *L, const struct ct_lobj *req,
		     const struct ct_lookup *answer)
{
	struct ct_version_gap *all, *own = NULL;
	size_t n, i, nown = 0;

	all = ct_version_gaps(L, &n);
	for (i = 0; i < n; i++)
		if (all[i].requester == req && answer->object && all[i].lacking == answer->object) {
			own = ct_xrealloc(own, (nown + 1) * sizeof(*own));
			own[nown++] = all[i];
		}
	ct_answer_gaps_from(&m->gaps, &m->arena, own, nown);
	free(own);
	ct_version_gaps_free(all, n);
}

static void already_loaded(struct ct_why *m, const struct ct_lookup *a)
{
	const struct ct_lobj *o = a->object;
	char rule[256];

	m->already_loaded = a->found_via == CT_RULE_ALREADY_LOADED;
	if (a->object && !a->new_object && a->object->loader)
		m->loaded_for_path = ct_arena_strdup(&m->arena, a->object->loader->path);
	if (!m->already_loaded)
		return;
	m->loaded_path = ct_arena_strdup(&m->arena, o->path);
	m->loaded_is_rtld = o->is_rtld;
	if (!o->loader)
		return;
	m->loaded_for = ct_arena_strdup(&m->arena, ct_lobj_name(o->loader, true));
	m->loaded_rule = ct_arena_strdup(
		&m->arena, o->preload ? "LD_PRELOAD"
				      : ct_rule_text(o->found_via, o->via_owner, rule, sizeof(rule)));
}

/* The fix when nothing is found: the folder of a copy of the same name. */
static void use_copy(struct ct_why *m)
{
	size_t i;

	for (i = 0; i < m->copies.n; i++)
		if (m->copies.c[i].same_name) {
			char *dir = ct_xstrdup(m->copies.c[i].path);

			*strrchr(dir, '/') = '\0';
			m->use_copy = m->copies.c[i].path;
			m->use_dir = ct_arena_strdup(&m->arena, dir);
			free(dir);
			return;
		}
}

int ct_why_build(struct ct_why *m, const char *name, const char *from,
		 const struct ct_loader_env *env, bool brief)
{
	struct ct_lookup *answer = NULL, *search;
	struct ct_arena *ar = &m->arena;
	struct ct_copies copies;
	struct ct_loader L;
	struct ct_lobj *req;
	const char *why;
	size_t i, reached;
	char rule[256];
	int rc;

	memset(m, 0, sizeof(*m));
	ct_arena_init(ar);
	m->name = ct_arena_strdup(ar, name);
	m->from = ct_answer_str(ar, from);
	rc = ct_loader_open(&L, from, env, &why);
	if (rc != 0) {
		m->error = ct_arena_strdup(ar, rc < 0 ? why
						      : "statically linked: it loads no shared library");
		return -1;
	}
	req = L.main;
	/* What the requester brings first: preloads and its own dependencies. */
	ct_loader_load_all(&L);
	/* A name the requester itself needs was answered while loading it. */
	for (i = 0; i < L.nlookups && !answer; i++)
		if (L.lookups[i]->requester == req && strcmp(L.lookups[i]->name, name) == 0)
			answer = L.lookups[i];
	if (!answer)
		answer = ct_loader_lookup(&L, req, name);
	search = ct_loader_search(&L, req, name, true);
	/* The winner of the search, or all of it when nothing was found. */
	reached = search->ncands;
	for (i = 0; i < search->ncands; i++)
		if (search->cands[i].outcome == CT_FOUND || search->cands[i].outcome == CT_NOT_ELF) {
			reached = i + 1;
			break;
		}
	ct_find_copies(&L, search, &copies);
	own_gaps(m, &L, req, answer);

	m->ld_library_path = ct_answer_str(ar, L.ld_library_path);
	ct_answer_interp_from(&m->interp, ar, &L);
	ct_answer_cwds_from(&m->cwd, ar, &L);
	m->winner = ct_answer_str(ar, answer->object ? answer->object->path : search->path);
	m->answer_new = !answer->object || answer->new_object;
	if (m->winner && m->answer_new) {
		m->rule = ct_arena_strdup(ar, ct_rule_text_at(answer->found_via, answer->via_owner,
							      m->winner, rule, sizeof(rule)));
		m->rule_plain = ct_arena_strdup(
			ar, ct_rule_text(answer->found_via, answer->via_owner, rule, sizeof(rule)));
	}
	m->found_via = ct_rule_id(answer->found_via);
	m->via_object = answer->via_owner ? ct_arena_strdup(ar, answer->via_owner->path) : NULL;
	if (!m->winner) {
		m->load_error = ct_arena_strdup(ar, answer->error ? answer->error
								  : "cannot open shared object file");
		if (answer->error == ct_noexec_why && answer->ncands)
			m->noexec_path = ct_arena_strdup(ar, answer->cands[answer->ncands - 1].path);
	}
	ct_answer_driver_missing_from(&m->driver_missing, ar, name, answer);
	if (m->winner && !brief) {
		struct ct_cuda_facts c;

		ct_cuda_facts_read(&c, m->winner);
		m->cuda = ct_answer_facts_from(ar, &c);
	}
	m->execstack = answer->object && answer->object->info.execstack &&
		       ct_loader_refuses_execstack(&L);
	m->glibc = ct_answer_str(ar, L.plat.version);
	already_loaded(m, answer);

	if (!search->ncands)
		m->search_error = ct_arena_strdup(ar, search->error ? search->error : "nothing to try");
	m->search_path = ct_answer_str(ar, search->path);
	m->search_found_via = search->path ? ct_rule_id(search->found_via) : NULL;
	ct_answer_cands_from(&m->reached, ar, search, 0, reached);
	ct_answer_cands_from(&m->later, ar, search, reached, search->ncands - reached);
	for (i = 0; i < m->later.n; i++)
		m->later.c[i].shadowed = shadows(m->winner, &search->cands[reached + i]);
	ct_answer_copies_from(&m->copies, ar, &copies);
	if (!m->winner)
		use_copy(m);
	/* Found is not enough when the file lacks a version the requester needs. */
	m->fails = !m->winner || m->gaps.n;
	ct_copies_release(&copies);
	ct_lookup_free(search);
	ct_loader_release(&L);
	return 0;
}

void ct_why_release(struct ct_why *m)
{
	ct_arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

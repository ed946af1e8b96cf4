/*
 * lib-shadowed (diagnose.h): a CUDA library that LD_LIBRARY_PATH or a
 * preload gave, or that an earlier object loaded under its soname, while
 * the RPATH or RUNPATH of the object that asked for it names another copy
 * (what that object's own paths would give: the loader model, asked once
 * per requester and name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "diag_internal.h"
#include "libnames.h"
#include "resolve.h"
#include "rules.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/*
 * What requester's own RPATH/RUNPATH would give for name, with no
 * LD_LIBRARY_PATH and no preload: the loader model. Into path; false when
 * its own paths do not hold the name.
 */
static bool own_choice_model(struct ctx *c, const char *requester, const char *name, char *path,
			     size_t size, char *rule, size_t rsize)
{
	struct ct_loader_env env = { "", "" };
	struct ct_loader L2;
	struct ct_lookup *k;
	int err = 0;
	bool found = false;

	ct_loader_init_like(&L2, c->L, &env);
	if (!ct_loader_start(&L2, requester, &err)) {
		ct_loader_release(&L2);
		return false;
	}
	k = ct_loader_search(&L2, L2.main, name, false);
	if (k->path && ct_rule_is_own_path(k->found_via)) {
		snprintf(path, size, "%s", k->path);
		ct_rule_text(k->found_via, k->via_owner, rule, rsize);
		found = true;
	}
	ct_lookup_free(k);
	ct_loader_release(&L2);
	return found;
}

/* The model's answer for one requester and name, kept: every rank asks it again. */
struct ct_own_choice {
	char *key;                   /* requester, NUL, name: keylen bytes */
	size_t keylen;
	bool found;
	char *path, *rule;
	UT_hash_handle hh;
};

void ct_dx_own_choices_free(struct ct_own_choice *all)
{
	struct ct_own_choice *e, *tmp;

	HASH_ITER(hh, all, e, tmp) {
		HASH_DEL(all, e);
		free(e->key);
		free(e->path);
		free(e->rule);
		free(e);
	}
}

static bool own_choice(struct ctx *c, const char *requester, const char *name, char *path,
		       size_t size, char *rule, size_t rsize)
{
	size_t rlen = strlen(requester), keylen = rlen + 1 + strlen(name);
	struct ct_own_choice *e;
	char *key = ct_xmalloc(keylen + 1);

	memcpy(key, requester, rlen + 1);
	memcpy(key + rlen + 1, name, keylen - rlen);
	HASH_FIND(hh, c->d->own_choices, key, keylen, e);
	if (e) {
		free(key);
	} else {
		char p[4096], r[256];

		e = ct_xcalloc(1, sizeof(*e));
		e->key = key;
		e->keylen = keylen;
		e->found = own_choice_model(c, requester, name, p, sizeof(p), r, sizeof(r));
		e->path = ct_xstrdup(e->found ? p : "");
		e->rule = ct_xstrdup(e->found ? r : "");
		HASH_ADD_KEYPTR(hh, c->d->own_choices, e->key, e->keylen, e);
	}
	if (e->found) {
		snprintf(path, size, "%s", e->path);
		snprintf(rule, rsize, "%s", e->rule);
	}
	return e->found;
}

/* A copy loaded early serves several objects whose RUNPATH names another. */
static void early_restate(struct ct_finding *f)
{
	char who[512];

	ct_finding_askers_words(f, who, sizeof(who));
	free(f->message);
	if (asprintf(&f->message, "'%s' was already loaded when %zu objects needed it, while "
				  "their RPATH or RUNPATH names another copy",
		     (const char *)f->state, ct_finding_askers(f)) < 0)
		ct_out_of_memory();
	ct_finding_fix(f, "the first object loaded under a soname serves every later one: load "
			  "%s (or what brings them) first, or make them all use one copy",
		       who);
}

/*
 * The first object mapped under a soname serves everyone after it: a
 * library whose own RPATH/RUNPATH names another copy gets the earlier one
 * (import order decides which cuDNN torch gets). Its DT_NEEDED and its
 * dlopen calls, CUDA libraries only.
 */
static void shadowed_by_earlier(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t i, k;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *r = &p->objects[i];
		const struct ct_elfinfo *e;

		if (r->shim || !(e = ct_dx_elfinfo(c, r->path)))
			continue;
		for (k = 0; k < e->nneeded; k++) {
			const char *name = e->needed[k];
			const struct ct_loaded *o = ct_dx_loaded_named(c, name);
			const char *came_for;
			char own[4096], rule[256], v1[64], v2[64], who[512];
			struct ct_finding *f;

			if (!o || strchr(name, '/') || !ct_cuda_library(name))
				continue;
			came_for = o->request ? o->request->caller : o->by;
			/* Its own search: the rules above judged it, or it was right. */
			if (came_for && strcmp(came_for, r->path) == 0)
				continue;
			if (!own_choice(c, r->path, name, own, sizeof(own), rule, sizeof(rule)) ||
			    ct_dx_same_file(own, o->path))
				continue;
			ct_dx_release(c, o->path, v1, sizeof(v1));
			ct_dx_release(c, own, v2, sizeof(v2));
			ct_dx_asker_in(c, o, who, sizeof(who));
			f = ct_finding_add(&c->d->findings, CT_F_LIB_SHADOWED, o->path,
					   "'%s' was already loaded when %s needed it, while the RPATH "
					   "or RUNPATH of %s names another copy",
					   name, ct_dx_base(r->path), ct_dx_base(r->path));
			ct_finding_evidence(f, "taken:    %s (%s%s%s)", o->path, v1, v1[0] ? ", " : "",
					    who);
			ct_finding_evidence(f, "its own:  %s (%s%s%s)", own, v2, v2[0] ? ", " : "",
					    rule);
			ct_finding_fix(f, "the first object loaded under a soname serves every later "
					  "one: load %s (or what brings it) first, or make both use "
					  "one copy",
				       ct_dx_base(r->path));
			/* One copy taken early, several objects that name another: one finding. */
			ct_finding_cause(f, "taken-early\x1f%s\x1f%s", o->path, name);
			ct_finding_needed_by(f, r->path, "DT_NEEDED");
			f->state = ct_xstrdup(name);
			f->state_free = free;
			f->restate = early_restate;
			ct_dx_where(c, f);
		}
	}
}

void ct_dx_rule_shadowed(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		char own[4096], rule[256], v1[64], v2[64];
		const char *requester, *name;
		struct ct_finding *f;

		if (o->shim || o->main || !ct_cuda_library(o->path) || (o->via != CT_RULE_LD_LIBRARY_PATH && o->via != CT_RULE_PRELOAD))
			continue;
		requester = o->request ? o->request->caller : o->by;
		name = o->name ? o->name : o->soname ? o->soname : ct_dx_base(o->path);
		if (!requester || !requester[0] || strchr(name, '/') ||
		    !own_choice(c, requester, name, own, sizeof(own), rule, sizeof(rule)) ||
		    ct_dx_same_file(own, o->path))
			continue;
		ct_dx_release(c, o->path, v1, sizeof(v1));
		ct_dx_release(c, own, v2, sizeof(v2));
		f = ct_finding_add(&c->d->findings, CT_F_LIB_SHADOWED, o->path,
				   "'%s' came from %s, while the RPATH or RUNPATH of %s names "
				   "another copy",
				   name, ct_rule_words(o->via), ct_dx_base(requester));
		ct_finding_evidence(f, "taken:    %s (%s%s%s)", o->path, v1, v1[0] ? ", " : "",
				    ct_rule_words(o->via));
		ct_finding_evidence(f, "its own:  %s (%s%s%s)", own, v2, v2[0] ? ", " : "", rule);
		if (o->via == CT_RULE_PRELOAD)
			ct_finding_fix(f, "drop %s from LD_PRELOAD so that %s gets the copy it "
					  "ships with",
				       o->path, ct_dx_base(requester));
		else {
			char *dir = ct_xstrdup(o->path);

			*strrchr(dir, '/') = '\0';
			ct_finding_fix(f, "take %s off LD_LIBRARY_PATH (or unset it) so that %s gets "
					  "the copy it ships with",
				       dir, ct_dx_base(requester));
			free(dir);
		}
		ct_dx_where(c, f);
	}
	shadowed_by_earlier(c);
}

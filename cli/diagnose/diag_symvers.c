/*
 * symbol-version-missing (diagnose.h): a version an object needs (and its
 * symbol) that the library it binds to lacks, looked up in the process's
 * scope as the loader does (symvers.c, the one analysis); a renamed major
 * (libcudart.so.12 that is CUDA 13's) is one finding with every object it
 * fails; the fix names a copy that has what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_internal.h"
#include "libfacts.h"
#include "libnames.h"
#include "resolve.h"
#include "symvers.h"
#include "util.h"

/* What the program itself got, when a failed dlopen said so. */
static void evidence_errors(struct ct_finding *f, const struct ct_proc *p, const char *what)
{
	size_t i;

	for (i = 0; i < p->nrequests; i++)
		if (p->requests[i].error && strstr(p->requests[i].error, what)) {
			ct_finding_evidence(f, "the program got: %s", p->requests[i].error);
			return;
		}
}

/* What a symbol-version finding is said again with, once several objects asked. */
struct gap_state {
	char *lacking, *really, *file, *version, *symbol, *having;
	char where[160];
	enum ct_rule via;
	struct ct_symver_ctx sys; /* a version of glibc's or libstdc++'s: what the fix names */
};

static void gap_state_free(void *p)
{
	struct gap_state *g = p;

	if (!g)
		return;
	free(g->lacking);
	free(g->really);
	free(g->file);
	free(g->version);
	free(g->symbol);
	free(g->having);
	free(g);
}

/* The fix for who (one file name, or several when many). */
static void gap_state_fix(struct ct_finding *f, const struct gap_state *g, const char *who,
			  bool many)
{
	struct ct_verneed need;
	char fix[1536];

	memset(&need, 0, sizeof(need));
	need.file = g->file;
	need.version = g->version;
	ct_symver_fix(fix, sizeof(fix), who, many, g->lacking, g->really, g->via, &need,
		      g->symbol, g->having, g->where, &g->sys);
	ct_finding_fix(f, "%s", fix);
}

/* One file lacks what several objects need: one finding (findings.h). */
static void gap_restate(struct ct_finding *f)
{
	const struct gap_state *g = f->state;
	char who[512];

	ct_finding_askers_words(f, who, sizeof(who));
	free(f->message);
	if (asprintf(&f->message, "%s lacks symbol versions that %zu libraries need", g->lacking,
		     ct_finding_askers(f)) < 0)
		ct_out_of_memory();
	gap_state_fix(f, g, who, true);
}

/*
 * A copy that has what is missing, as the requester's own search order
 * would reach it (its RPATH/RUNPATH, the cache, the default directories,
 * without LD_LIBRARY_PATH or preloads), or elsewhere on the machine; and
 * the fix. really: o's DT_SONAME when o is another major renamed, else
 * NULL. The finding keeps what it takes to say the fix again for every
 * object that asks (one cause, one finding) unless o is renamed: that
 * finding names its requesters itself.
 */
static void gap_fix(struct ctx *c, struct ct_finding *f, const struct ct_loaded *r,
		    const struct ct_loaded *o, const char *really, const struct ct_verneed *need,
		    const char *symbol)
{
	struct ct_loader_env env = { "", "" };
	struct ct_loader L2;
	struct ct_lookup *k = NULL, none;
	struct gap_state *g = ct_xcalloc(1, sizeof(*g));
	const struct ct_loaded *libc;
	int err = 0;

	ct_loader_init_like(&L2, c->L, &env);
	if (ct_loader_start(&L2, r->path, &err))
		k = ct_loader_search(&L2, L2.main, need->file, true);
	memset(&none, 0, sizeof(none));
	none.name = (char *)need->file;
	ct_symver_having(c->L, c->d->syms, k ? k : &none, need->version, symbol, &g->having,
			 g->where, sizeof(g->where));
	g->lacking = ct_xstrdup(o->path);
	g->really = really ? ct_xstrdup(really) : NULL;
	g->file = ct_xstrdup(need->file);
	g->version = ct_xstrdup(need->version);
	g->symbol = symbol ? ct_xstrdup(symbol) : NULL;
	g->via = o->via;
	libc = ct_dx_loaded_named(c, "libc.so.6");
	ct_symver_ctx_read(c->d->syms, o->path, libc ? libc->path : NULL, need,
			   ct_dx_python(c) || ct_python_shipped(r->path), &g->sys);
	gap_state_fix(f, g, ct_dx_base(r->path), false);
	if (really) {
		gap_state_free(g);
	} else {
		char how[512];

		snprintf(how, sizeof(how), "%s, version %s", symbol ? symbol : need->file,
			 need->version);
		ct_finding_cause(f, "symbol-version\x1f%s", o->path);
		ct_finding_needed_by(f, r->path, how);
		f->state = g;
		f->state_free = gap_state_free;
		f->restate = gap_restate;
	}
	if (k)
		ct_lookup_free(k);
	ct_loader_release(&L2);
}

/* One requester a renamed library fails (see renamed_finding). */
struct renamed_gap {
	const struct ct_loaded *r, *o;
	const struct ct_verneed *need;
	const char *missing;
};

/*
 * A renamed major (libcudart.so.12 that is libcudart.so.13) fails every
 * object built for the major it pretends to be: one cause, one finding
 * (symbol-version-missing, the error the loader gave), named as what the
 * file is, with every requester in it. gaps[0..n) are those of o.
 */
static void renamed_finding(struct ctx *c, const struct renamed_gap *gaps, size_t n,
			    const char *really)
{
	const struct ct_loaded *o = gaps[0].o;
	struct ct_finding *f;
	char words[512], v[64], who[512];
	int minor, cuda;
	size_t i;

	ct_library_version_read(o->path, really, v, sizeof(v));
	cuda = ct_library_cuda(really, v, &minor);
	f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_VERSION_MISSING, o->path,
			   "%s: %zu librar%s built for %s cannot use it", 
			   ct_renamed_words(o->path, really, cuda, minor, words, sizeof(words)), n,
			   n == 1 ? "y" : "ies", gaps[0].need->file);
	ct_finding_evidence(f, "its DT_SONAME is %s%s%s; it was loaded as %s", really,
			    v[0] ? ", version " : "", v, ct_dx_base(o->path));
	for (i = 0; i < n; i++)
		ct_finding_evidence(f, "%s needs %s with version '%s'%s%s%s", ct_dx_base(gaps[i].r->path),
				    gaps[i].need->file, gaps[i].need->version,
				    gaps[i].missing || gaps[i].need->symbol ? " (symbol " : "",
				    gaps[i].missing ? gaps[i].missing
						    : gaps[i].need->symbol ? gaps[i].need->symbol : "",
				    gaps[i].missing || gaps[i].need->symbol ? ")" : "");
	ct_finding_evidence(f, "the loader says: version `%s' not found (required by %s)",
			    gaps[0].need->version, gaps[0].r->path);
	evidence_errors(f, c->p, gaps[0].need->version);
	ct_dx_asker_in(c, o, who, sizeof(who));
	ct_finding_evidence(f, "%s: %s", o->path, who);
	gap_fix(c, f, gaps[0].r, o, really, gaps[0].need, gaps[0].missing);
	ct_dx_where(c, f);
}

void ct_dx_rule_symbol_versions(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct ct_symscope scope;
	const char **paths;
	struct renamed_gap *ren = NULL;
	size_t i, v, n = 0, nren = 0, nfindings = c->d->findings.n, klen;
	const char *key = ct_dx_mapped_key(c, &klen);

	/*
	 * What it judges is which files are mapped, in which order, under
	 * which names: the ranks of a job that map alike have no gap when the
	 * first of them had none (a gap is looked at again for each, to say
	 * where).
	 */
	if (ct_dx_memo_has(c, 'v', key, klen))
		return;
	paths = ct_xcalloc(c->nmapped + 1, sizeof(*paths));

	/*
	 * The scope a symbol is looked up in: every object mapped but the
	 * program and the shim, also what a fork inherited (libc above all).
	 */
	for (i = 0; i < c->nmapped; i++)
		if (!c->mapped[i]->shim && !c->mapped[i]->main)
			paths[n++] = c->mapped[i]->path;
	ct_symscope_init(&scope, paths, n, c->d->syms);
	/* Every object the loader opened, also for a load that then failed. */
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *r = &p->objects[i];
		const struct ct_elfinfo *e;

		if (r->shim || !(e = ct_dx_elfinfo(c, r->path)))
			continue;
		for (v = 0; v < e->nverneed; v++) {
			const struct ct_verneed *need = &e->verneed[v];
			const struct ct_loaded *o;
			const char *missing = NULL;
			enum ct_symver_verdict verdict;
			struct ct_finding *f;
			size_t nmissing = 0;
			char who[512];

			if (need->weak || !need->file || !(o = ct_dx_loaded_named(c, need->file)))
				continue;
			verdict = ct_symver_check(&scope, o->path, need, &missing, &nmissing);
			if (verdict != CT_SYMVER_OK && ct_dx_renamed(c, o)) {
				ren = ct_xrealloc(ren, (nren + 1) * sizeof(*ren));
				ren[nren].r = r;
				ren[nren].o = o;
				ren[nren].need = need;
				ren[nren++].missing = missing;
				continue;
			}
			switch (verdict) {
			case CT_SYMVER_OK:
				continue;
			case CT_SYMVER_NO_SYMBOL:
				f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_VERSION_MISSING, o->path,
						   "'%s' needs %s (version %s), which %s does not "
						   "define%s",
						   ct_dx_base(r->path), missing, need->version, o->path,
						   nmissing > 1 ? " (nor others)" : "");
				ct_finding_evidence(f, "the loader says: undefined symbol: %s, version %s",
						    missing, need->version);
				evidence_errors(f, p, missing);
				break;
			case CT_SYMVER_NO_VERSION:
			default:
				f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_VERSION_MISSING, o->path,
						   "'%s' needs %s with version '%s'%s%s%s, which %s lacks",
						   ct_dx_base(r->path), need->file, need->version,
						   need->symbol ? " (symbol " : "",
						   need->symbol ? need->symbol : "",
						   need->symbol ? ")" : "", o->path);
				ct_finding_evidence(f, "the loader says: version `%s' not found "
						       "(required by %s)",
						    need->version, r->path);
				evidence_errors(f, p, need->version);
				break;
			}
			ct_dx_asker_in(c, o, who, sizeof(who));
			ct_finding_evidence(f, "%s: %s", o->path, who);
			gap_fix(c, f, r, o, NULL, need, missing);
			ct_dx_where(c, f);
		}
	}
	/* Each renamed file once, with everything it failed. */
	for (i = 0; i < nren; i++) {
		struct renamed_gap *mine;
		size_t k, m = 0;

		if (!ren[i].o)
			continue;
		mine = ct_xcalloc(nren, sizeof(*mine));
		for (k = i; k < nren; k++)
			if (ren[k].o == ren[i].o) {
				mine[m++] = ren[k];
				if (k != i)
					ren[k].o = NULL;
			}
		renamed_finding(c, mine, m, ct_dx_soname(c, mine[0].o));
		free(mine);
	}
	free(ren);
	ct_symscope_release(&scope);
	free(paths);
	if (c->d->findings.n == nfindings)
		ct_dx_memo_add(c, 'v', key, klen);
}

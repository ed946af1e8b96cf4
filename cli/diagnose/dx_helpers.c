/*
 * The helpers every rule of the diagnosis engine uses (diag_internal.h):
 * names, places, who asked, the candidates of a search, copies elsewhere.
 * The rules call these; these call no rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "copies.h"
#include "diag_internal.h"
#include "libnames.h"
#include "util.h"

const char *ct_dx_base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

void ct_dx_where(const struct ctx *c, struct ct_finding *f)
{
	ct_finding_where(f, c->p->pid, c->p->host, c->rank, c->program);
}

const struct ct_loaded *ct_dx_loaded_named(const struct ct_proc *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];

		if (o->shim)
			continue;
		if ((o->soname && strcmp(o->soname, name) == 0) || strcmp(ct_dx_base(o->path), name) == 0)
			return o;
	}
	return NULL;
}

/* "libcudart" of "libcudart.so.12" (the family stem); into buf. */
const char *ct_dx_stem(const char *name, char *buf, size_t size)
{
	const char *b = ct_dx_base(name), *so = strstr(b, ".so");

	snprintf(buf, size, "%.*s", so ? (int)(so - b) : (int)strlen(b), b);
	return buf;
}

/* Who asked for an object, in words. */
void ct_dx_asker(const struct ct_loaded *o, char *buf, size_t size)
{
	char rule[64];

	snprintf(rule, sizeof(rule), "%s", ct_rule_words(o->via));
	if (o->request)
		snprintf(buf, size, "%s by %s, found via %s", o->request->api,
			 ct_dx_base(o->request->caller), rule);
	else if (o->by && o->by[0])
		snprintf(buf, size, "needed by %s, found via %s", ct_dx_base(o->by), rule);
	else
		snprintf(buf, size, "found via %s", rule);
}

/* The candidates of a search, a line per directory and rule (as run shows them). */
void ct_dx_tries(struct ct_finding *f, const struct ct_search *s)
{
	struct ct_try_run *runs;
	size_t i, n;

	if (!s->ntries) {
		ct_finding_evidence(f, "no candidate path was tried");
		return;
	}
	runs = ct_try_runs(s->tries, s->ntries, &n);
	ct_finding_evidence(f, "tried, in order:");
	for (i = 0; i < n; i++) {
		char more[48] = "";

		if (runs[i].nsubdirs)
			snprintf(more, sizeof(more), "  (and %zu subdirector%s)", runs[i].nsubdirs,
				 runs[i].nsubdirs == 1 ? "y" : "ies");
		ct_finding_evidence(f, "  %-18s %.*s%s", ct_rule_words(runs[i].via),
				    (int)runs[i].dir_len, runs[i].dir, more);
	}
	free(runs);
}

/* Copies of name elsewhere (the lookup rebuilt from a traced search). */
void ct_dx_copies(struct ctx *c, const char *name, const struct ct_search *s,
			struct ct_copies *out)
{
	struct ct_lookup k;
	size_t i;

	memset(&k, 0, sizeof(k));
	k.name = (char *)name;
	if (s && s->ntries) {
		k.cands = ct_xcalloc(s->ntries, sizeof(*k.cands));
		for (i = 0; i < s->ntries; i++) {
			k.cands[i].path = (char *)s->tries[i].path;
			k.cands[i].via = s->tries[i].via;
			k.cands[i].outcome = CT_FILE_MISSING;
		}
		k.ncands = s->ntries;
	}
	ct_find_copies(c->L, &k, out);
	free(k.cands);
}

bool ct_dx_same_file(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

bool ct_dx_same_object(const struct ct_loaded *a, const struct ct_loaded *b)
{
	/*
	 * The trace's own word first: a report may run on a machine that
	 * lacks the files (a trace from another host), where stat says nothing.
	 */
	if (strcmp(a->path, b->path) == 0)
		return true;
	if (a->ino && b->ino)
		return a->dev == b->dev && a->ino == b->ino;
	return ct_dx_same_file(a->path, b->path);
}

bool ct_dx_is_driver(const char *name)
{
	return strcmp(ct_dx_base(name), "libcuda.so.1") == 0 || strcmp(ct_dx_base(name), "libcuda.so") == 0;
}

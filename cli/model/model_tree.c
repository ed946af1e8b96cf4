/*
 * A process's library tree, for the report model (struct ct_rm_tree): each
 * object under the object that asked for it, what is shown (CUDA
 * libraries, objects with device code, objects a finding is about, and
 * their askers) and each line's words. The tree is indexed once per
 * process (each object's asker, its children in load order, which objects
 * are shown, which lead to a finding): asked object by object, as a walk
 * of every object for every node, it cost the square of the objects for
 * each node, and a job's -v report asks it of every rank.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libnames.h"
#include "model_internal.h"
#include "rules.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

#define NONE SIZE_MAX
/* How deep the tree is followed: an asker can be its asker's asker in a made-up trace. */
#define MAX_DEPTH 32

struct name {
	const char *s;
	UT_hash_handle hh;
};

/* What a line of the tree says of a library: worked out once per path, not per rank. */
struct words {
	const char *path;
	bool cuda;            /* ct_cuda_library */
	bool said;            /* ver and what are set, for soname */
	const char *soname;
	char ver[64], what[512];
	UT_hash_handle hh;
};

struct ct_rm_trees {
	struct name *objects; /* what a finding is about, or who asked for it */
	struct words *words;  /* by path */
};

static void name_add(struct ct_rm_build *b, struct name **set, const char *s)
{
	struct name *e;

	if (!s)
		return;
	HASH_FIND_STR(*set, s, e);
	if (e)
		return;
	e = ct_rm_scratch(b, sizeof(*e));
	e->s = s;
	HASH_ADD_KEYPTR(hh, *set, e->s, strlen(e->s), e);
}

/* What every tree of the trace asks, made at the first. */
static struct ct_rm_trees *trees_of(struct ct_rm_build *b)
{
	const struct ct_diagnosis *d = b->d;
	size_t i, k;

	if (b->trees)
		return b->trees;
	b->trees = ct_rm_scratch(b, sizeof(*b->trees));
	for (i = 0; d && i < d->findings.n; i++) {
		const struct ct_finding *f = &d->findings.f[i];

		name_add(b, &b->trees->objects, f->object);
		for (k = 0; k < f->nneeded_by; k++)
			name_add(b, &b->trees->objects, f->needed_by[k].object);
	}
	return b->trees;
}

void ct_rm_trees_forget(struct ct_rm_build *b)
{
	if (!b->trees)
		return;
	HASH_CLEAR(hh, b->trees->objects);
	HASH_CLEAR(hh, b->trees->words);
}

/* Is o the object a finding is about, or one that asked for it? */
static bool in_finding(const struct ct_rm_build *b, const struct ct_loaded *o)
{
	struct name *e;

	if (!b->d)
		return false;
	HASH_FIND_STR(b->trees->objects, o->path, e);
	return e != NULL;
}

static struct words *words_of(struct ct_rm_build *b, const char *path)
{
	struct ct_rm_trees *tr = b->trees;
	struct words *w;

	HASH_FIND_STR(tr->words, path, w);
	if (w)
		return w;
	w = ct_rm_scratch(b, sizeof(*w));
	w->path = path;
	w->cuda = ct_cuda_library(path);
	HASH_ADD_KEYPTR(hh, tr->words, w->path, strlen(w->path), w);
	return w;
}

/*
 * c's version and, for a library loaded under another major of its name,
 * what it really is (", really ..."): both read the file's real path, so
 * they are asked once per path and soname.
 */
static const struct words *said_of(struct ct_rm_build *b, const struct ct_loaded *c)
{
	const char *soname = b->d ? ct_diagnosis_soname(b->d, c) : c->soname;
	struct words *w = words_of(b, c->path);

	if (w->said && (w->soname == soname || (w->soname && soname && strcmp(w->soname, soname) == 0)))
		return w;
	w->said = true;
	w->soname = soname;
	w->what[0] = '\0';
	ct_rm_version(b, c->path, soname, w->ver, sizeof(w->ver));
	if (ct_library_renamed(c->path, soname)) {
		int minor, cuda = ct_library_cuda(soname, w->ver, &minor);

		/* Named as what it is: the name it was loaded by lies. */
		memcpy(w->what, ", ", 2);
		ct_renamed_words(ct_rm_base(c->path), soname, cuda, minor, w->what + 2,
				 sizeof(w->what) - 2);
	} else if (!strchr(w->ver, '.')) {
		w->ver[0] = '\0'; /* a bare major only repeats the name */
	}
	return w;
}

/* One process's tree, indexed by the objects' positions in p->objects. */
struct index {
	const struct ct_proc *p;
	size_t *parent;  /* the asker's index, or NONE */
	size_t *kids;    /* the children of i, in load order: kids[start[i]] .. kids[start[i + 1] - 1] */
	size_t *start;
	bool *shown;     /* wanted in the tree */
	bool *leads;     /* is, or brought, what a finding is about */
};

/* A path's first two objects: an object's asker is the first object of its path but itself. */
struct first_two {
	const char *path;
	size_t first, second;
	UT_hash_handle hh;
};

/*
 * The asker of each object: the first other object whose path is its
 * dlopen caller or its needer.
 */
static void find_parents(struct index *x)
{
	const struct ct_proc *p = x->p;
	struct first_two *set = NULL, *e, *tmp;
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		HASH_FIND_STR(set, p->objects[i].path, e);
		if (e) {
			if (e->second == NONE)
				e->second = i;
			continue;
		}
		e = ct_xcalloc(1, sizeof(*e));
		e->path = p->objects[i].path;
		e->first = i;
		e->second = NONE;
		HASH_ADD_KEYPTR(hh, set, e->path, strlen(e->path), e);
	}
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		const char *by = o->request ? o->request->caller : o->by;

		x->parent[i] = NONE;
		if (!by || !by[0])
			continue;
		HASH_FIND_STR(set, by, e);
		if (e)
			x->parent[i] = e->first != i ? e->first : e->second;
	}
	HASH_ITER(hh, set, e, tmp) {
		HASH_DEL(set, e);
		free(e);
	}
}

/*
 * out[i]: within MAX_DEPTH steps down the tree from i there is an object
 * of source, through no blocked object (blocked may be NULL). The
 * distances come from the sources up through the askers, nearest first,
 * each object reached once.
 */
static void reach(const struct index *x, const bool *source, const bool *blocked, bool *out)
{
	size_t n = x->p->nobjects, i, head = 0, tail = 0;
	size_t *dist = ct_xcalloc(n + 1, sizeof(*dist)), *queue = ct_xcalloc(n + 1, sizeof(*queue));

	for (i = 0; i < n; i++) {
		dist[i] = NONE;
		if (source[i] && !(blocked && blocked[i])) {
			dist[i] = 0;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		size_t c = queue[head++], up = x->parent[c];

		if (up != NONE && dist[up] == NONE && !(blocked && blocked[up])) {
			dist[up] = dist[c] + 1;
			queue[tail++] = up;
		}
	}
	for (i = 0; i < n; i++)
		out[i] = dist[i] <= MAX_DEPTH;
	free(queue);
	free(dist);
}

static void index_build(struct index *x, const struct ct_proc *p, struct ct_rm_build *b)
{
	const struct ct_diagnosis *d = b->d;
	size_t n = p->nobjects, i, *at;
	bool *self, *shim, *found;

	x->p = p;
	x->parent = ct_xcalloc(n + 1, sizeof(*x->parent));
	x->kids = ct_xcalloc(n + 1, sizeof(*x->kids));
	x->start = ct_xcalloc(n + 2, sizeof(*x->start));
	x->shown = ct_xcalloc(n + 1, sizeof(*x->shown));
	x->leads = ct_xcalloc(n + 1, sizeof(*x->leads));
	find_parents(x);
	for (i = 0; i < n; i++)
		if (x->parent[i] != NONE)
			x->start[x->parent[i] + 1]++;
	for (i = 0; i < n; i++)
		x->start[i + 1] += x->start[i];
	at = ct_xcalloc(n + 1, sizeof(*at));
	memcpy(at, x->start, n * sizeof(*at));
	for (i = 0; i < n; i++)
		if (x->parent[i] != NONE)
			x->kids[at[x->parent[i]]++] = i;
	free(at);

	/*
	 * Shown: CUDA libraries, objects with device code, objects a finding
	 * is about, and their askers; never the shim.
	 */
	self = ct_xcalloc(n + 1, sizeof(*self));
	shim = ct_xcalloc(n + 1, sizeof(*shim));
	found = ct_xcalloc(n + 1, sizeof(*found));
	for (i = 0; i < n; i++) {
		const struct ct_loaded *o = &p->objects[i];

		found[i] = in_finding(b, o);
		shim[i] = o->shim;
		self[i] = words_of(b, o->path)->cuda ||
			  (d && !o->main && (ct_diagnosis_code(d, o->path) || found[i]));
	}
	reach(x, self, shim, x->shown);
	reach(x, found, NULL, x->leads);
	free(found);
	free(shim);
	free(self);
}

static void index_release(struct index *x)
{
	free(x->parent);
	free(x->kids);
	free(x->start);
	free(x->shown);
	free(x->leads);
}

/* A child of a node: a path and how often it was loaded there. */
struct child {
	const char *path;
	const struct ct_loaded *first;
	size_t times;
	UT_hash_handle hh;
};

/*
 * o's children in the tree, once per file in the order first loaded, with
 * how many times each was loaded: a program that loads and unloads the
 * same libraries 50 times gets each line once, "loaded 50 times".
 */
static struct child **children_of(const struct index *x, size_t o, size_t *n)
{
	const struct ct_proc *p = x->p;
	struct child *set = NULL, *c, *tmp, **list = NULL;
	size_t i;

	*n = 0;
	for (i = x->start[o]; i < x->start[o + 1]; i++) {
		const struct ct_loaded *k = &p->objects[x->kids[i]];

		if (k->main)
			continue;
		HASH_FIND_STR(set, k->path, c);
		if (c) {
			c->times++;
			continue;
		}
		if (!x->shown[x->kids[i]])
			continue;
		c = ct_xcalloc(1, sizeof(*c));
		c->path = k->path;
		c->first = k;
		c->times = 1;
		HASH_ADD_KEYPTR(hh, set, c->path, strlen(c->path), c);
		list = ct_xrealloc(list, (*n + 1) * sizeof(*list));
		list[(*n)++] = c;
	}
	HASH_ITER(hh, set, c, tmp)
		HASH_DEL(set, c);
	return list;
}

/*
 * How o was found, in words: its rule, or for a library ps saw mapped
 * after start-up (run_time), "dlopen": /proc does not say by which rule.
 */
static const char *rule_of(const struct ct_loaded *o, char *buf, size_t size)
{
	const char *slash = strrchr(o->path, '/');
	char dir[4200];

	if (o->run_time)
		return "dlopen";
	/* Found from the working directory (an empty or relative entry): said. */
	if (ct_path_relative(o->path) &&
	    (ct_rule_is_own_path(o->via) || o->via == CT_RULE_LD_LIBRARY_PATH)) {
		snprintf(buf, size, "%s, %s", ct_rule_words(o->via),
			 ct_search_dir_words(o->path, slash ? (size_t)(slash - o->path) : 0, dir,
					     sizeof(dir)));
		return buf;
	}
	return ct_rule_words(o->via);
}

/*
 * Where else the loader finds a run_time library: "; its name NAME finds
 * it too, through RULE" and the path it finds it at when that is another
 * name for the file; "" when its name does not find it.
 */
static void name_words(const struct ct_loaded *o, char *buf, size_t size)
{
	bool other = o->name_path && strcmp(o->name_path, o->path) != 0;

	buf[0] = '\0';
	if (o->run_time && o->name_via)
		snprintf(buf, size, "; its name %s finds it too, through %s%s%s",
			 o->soname ? o->soname : o->name, ct_rule_words(o->name_via),
			 other ? ", as " : "", other ? o->name_path : "");
}

/*
 * A line's words kept in the model: "" and the rules' own words (static:
 * vocabulary, not the trace's) as they are, anything made in a buffer
 * (buf, or any when buf is NULL) copied. A job's -v report makes a line
 * for every library of every rank.
 */
static const char *words_kept(struct ct_rm_build *b, const char *s, const char *buf)
{
	if (!s[0])
		return "";
	return !buf || s == buf ? ct_rm_keep(b->m, s) : s;
}

/* The nodes of a tree as they are made: grown, then kept in the model. */
struct nodes {
	struct ct_rm_node *v;
	size_t n, cap;
};

/* o's subtree, depth first, into acc: what print_node printed, line for line. */
static void walk(struct ct_rm_build *b, const struct index *x, size_t o, int depth,
		 struct nodes *acc)
{
	struct child **kids;
	size_t i, n;

	if (depth >= MAX_DEPTH)
		return;
	kids = children_of(x, o, &n);
	for (i = 0; i < n; i++) {
		const struct ct_loaded *c = kids[i]->first;
		size_t ci = (size_t)(c - x->p->objects), at;
		const struct words *w = said_of(b, c);
		char how[128], also[512], rule[4400];
		struct ct_rm_node *e;

		snprintf(how, sizeof(how), "%s%s", c->request ? c->request->api : "",
			 c->request ? ", " : "");
		name_words(c, also, sizeof(also));
		if (acc->n == acc->cap) {
			acc->cap = acc->cap ? acc->cap * 2 : 16;
			acc->v = ct_xrealloc(acc->v, acc->cap * sizeof(*acc->v));
		}
		at = acc->n++;
		e = &acc->v[at];
		memset(e, 0, sizeof(*e));
		e->path = ct_rm_str(b, c->path);
		e->how = c->request ? ct_rm_keep(b->m, how) : "";
		e->rule = words_kept(b, rule_of(c, rule, sizeof(rule)), rule);
		e->what = words_kept(b, w->what, NULL);
		e->version = w->cuda && !w->what[0] ? words_kept(b, w->ver, NULL) : "";
		e->other_namespace = c->lmid != 0;
		e->times = kids[i]->times;
		e->failed_dlopen = c->closed && c->request && c->request->error;
		e->also = words_kept(b, also, NULL);
		e->leads = x->leads[ci];
		walk(b, x, ci, depth + 1, acc);
		acc->v[at].end = acc->n;
		free(kids[i]);
	}
	free(kids);
}

void ct_rm_tree_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p)
{
	struct ct_rm_tree *tree = &out->tree;
	struct nodes acc = { NULL, 0, 0 };
	size_t i, nalso = 0, main_obj = NONE;
	struct index x;

	trees_of(b);
	index_build(&x, p, b);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].main)
			main_obj = i;
	if ((main_obj == NONE || !x.shown[main_obj]) && p->running &&
	    (p->proc_unverified || p->proc_limit)) {
		/* ps left files out: none among those read is not none at all. */
		tree->state = CT_RM_TREE_PARTIAL;
		tree->partial = p->proc_limit ? "its maps was not read in full" : "some were left out";
		goto out;
	}
	if (main_obj == NONE || !x.shown[main_obj]) {
		tree->state = CT_RM_TREE_NONE;
		goto out;
	}
	tree->state = CT_RM_TREE_SHOWN;
	tree->main = ct_rm_str(b, p->objects[main_obj].path);
	walk(b, &x, main_obj, 0, &acc);
	tree->nodes = ct_rm_dup(b->m, acc.v, acc.n * sizeof(*acc.v));
	tree->nnodes = acc.n;
	free(acc.v);
	/* Objects whose asker is not in the trace (another namespace, a preload). */
	for (i = 0; i < p->nobjects; i++)
		nalso += !p->objects[i].main && x.parent[i] == NONE && x.shown[i];
	tree->also = ct_rm_calloc(b->m, nalso, sizeof(*tree->also));
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		char also[512], rule[4400];

		if (o->main || x.parent[i] != NONE || !x.shown[i])
			continue;
		name_words(o, also, sizeof(also));
		tree->also[tree->nalso].path = ct_rm_str(b, o->path);
		tree->also[tree->nalso].rule = words_kept(b, rule_of(o, rule, sizeof(rule)), rule);
		tree->also[tree->nalso++].also = words_kept(b, also, NULL);
	}
out:
	index_release(&x);
}

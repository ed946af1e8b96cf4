/*
 * The helpers every rule of the diagnosis engine uses (diag_internal.h):
 * names, places, who asked, the candidates of a search, copies elsewhere,
 * what the process mapped. The engine and the rules call these; these
 * call no rule, not the engine, and not what the rules share about a file
 * (dx_files.c).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "copies.h"
#include "diag_internal.h"
#include "elfinfo.h"
#include "libnames.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* A name an object of the process answers to: its soname, its file name. */
struct ct_dx_name {
	const char *name;
	size_t index;                /* the first mapped object with it */
	UT_hash_handle hh;
};

const char *ct_dx_base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

void ct_dx_where(const struct ctx *c, struct ct_finding *f)
{
	/* A rank is a rank of its job: a folder holds many jobs, each with its rank 0. */
	ct_finding_where(f, c->p->pid, c->p->host, c->rank, ct_proc_job(c->p, NULL), c->program);
}

/* A crafted trace may link parents in a circle: inherit from this many at most. */
#define MAX_FORK_DEPTH 64

/* What q had mapped at time t (q's inherited objects first), appended to c->mapped. */
static void add_inherited(struct ctx *c, const struct ct_proc *q, int64_t t, size_t *cap,
			  int depth)
{
	size_t i;

	if (depth > MAX_FORK_DEPTH)
		return;
	if (q->forked && q->parent)
		add_inherited(c, q->parent, q->t < t ? q->t : t, cap, depth + 1);
	for (i = 0; i < q->nobjects; i++) {
		const struct ct_loaded *o = &q->objects[i];

		/*
		 * A closed object may have been closed after the fork, and so
		 * still be mapped in the child; the trace does not say when.
		 * Leaving it out can only hide a finding, never make one up.
		 */
		if (o->t > t || o->closed)
			continue;
		if (c->nmapped == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			c->mapped = ct_xrealloc(c->mapped, *cap * sizeof(*c->mapped));
		}
		c->mapped[c->nmapped++] = o;
	}
}

/* name as one of mapped[i]'s, unless an earlier object has it. */
static void add_name(struct ctx *c, struct ct_dx_name *e, const char *name, size_t i)
{
	struct ct_dx_name *had;

	HASH_FIND_STR(c->names, name, had);
	if (had)
		return;
	e->name = name;
	e->index = i;
	HASH_ADD_KEYPTR(hh, c->names, e->name, strlen(e->name), e);
}

void ct_dx_mapped_init(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t i, cap = 0;

	c->mapped = NULL;
	c->nmapped = 0;
	if (p->forked && p->parent)
		add_inherited(c, p->parent, p->t, &cap, 1);
	c->ninherited = c->nmapped;
	c->mapped = ct_xrealloc(c->mapped, (c->nmapped + p->nobjects + 1) * sizeof(*c->mapped));
	for (i = 0; i < p->nobjects; i++)
		c->mapped[c->nmapped++] = &p->objects[i];
	/* ct_dx_loaded_named is asked for every version every object needs. */
	c->names = NULL;
	c->name_store = ct_xcalloc(2 * c->nmapped + 1, sizeof(*c->name_store));
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (o->shim)
			continue;
		if (o->soname)
			add_name(c, &c->name_store[2 * i], o->soname, i);
		add_name(c, &c->name_store[2 * i + 1], ct_dx_base(o->path), i);
	}
}

const char *ct_dx_mapped_key(struct ctx *c, size_t *len)
{
	size_t i, n = 32;
	char *k;

	if (c->mapped_key) {
		*len = c->mapped_key_len;
		return c->mapped_key;
	}
	for (i = 0; i < c->nmapped; i++)
		n += strlen(c->mapped[i]->path) + 3 +
		     (c->mapped[i]->soname ? strlen(c->mapped[i]->soname) : 0);
	k = c->mapped_key = ct_xmalloc(n);
	k += sprintf(k, "%zu", c->ninherited) + 1;
	/* Each: flags, path, NUL, soname (or nothing), NUL; the flags say which. */
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		size_t m = strlen(o->path) + 1;

		*k++ = (char)('a' + (o->shim ? 1 : 0) + (o->main ? 2 : 0) + (o->soname ? 4 : 0));
		memcpy(k, o->path, m);
		k += m;
		if (o->soname) {
			m = strlen(o->soname) + 1;
			memcpy(k, o->soname, m);
			k += m;
		}
	}
	c->mapped_key_len = (size_t)(k - c->mapped_key);
	*len = c->mapped_key_len;
	return c->mapped_key;
}

struct ct_memo {
	char *key;                   /* the tag, then the key */
	size_t len;
	UT_hash_handle hh;
};

bool ct_dx_memo_has(const struct ctx *c, char tag, const char *key, size_t len)
{
	struct ct_memo *e;
	char *k = ct_xmalloc(len + 1);
	bool has;

	k[0] = tag;
	memcpy(k + 1, key, len);
	HASH_FIND(hh, c->d->memo, k, len + 1, e);
	has = e != NULL;
	free(k);
	return has;
}

void ct_dx_memo_add(struct ctx *c, char tag, const char *key, size_t len)
{
	struct ct_memo *e;

	if (ct_dx_memo_has(c, tag, key, len))
		return;
	e = ct_xcalloc(1, sizeof(*e));
	e->key = ct_xmalloc(len + 1);
	e->key[0] = tag;
	memcpy(e->key + 1, key, len);
	e->len = len + 1;
	HASH_ADD_KEYPTR(hh, c->d->memo, e->key, e->len, e);
}

void ct_dx_memo_free(struct ct_memo *all)
{
	struct ct_memo *e, *tmp;

	HASH_ITER(hh, all, e, tmp) {
		HASH_DEL(all, e);
		free(e->key);
		free(e);
	}
}

void ct_dx_mapped_release(struct ctx *c)
{
	free(c->mapped_key);
	c->mapped_key = NULL;
	c->mapped_key_len = 0;
	HASH_CLEAR(hh, c->names);
	free(c->name_store);
	c->name_store = NULL;
	free(c->mapped);
	c->mapped = NULL;
	c->nmapped = c->ninherited = 0;
}

const struct ct_loaded *ct_dx_loaded_named(const struct ctx *c, const char *name)
{
	struct ct_dx_name *e;

	HASH_FIND_STR(c->names, name, e);
	return e ? c->mapped[e->index] : NULL;
}

/* Is path a file mapped in c's process before time t? */
static bool mapped_before(const struct ctx *c, const char *path, int64_t t)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	size_t i;

	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (i >= c->ninherited && o->t > t)
			continue;
		/* The trace's dev/ino first; a trace without them, stat here. */
		if (strcmp(o->path, path) == 0 ||
		    (exists && o->ino && o->dev == (uint64_t)st.st_dev &&
		     o->ino == (uint64_t)st.st_ino) ||
		    (exists && !o->ino && ct_dx_same_file(o->path, path)))
			return true;
	}
	return false;
}

bool ct_dx_search_ended_refused(const struct ctx *c, const struct ct_search *s)
{
	const char *why, *last;
	struct ct_ending e;
	struct stat st;

	if (!s->ntries || !c->L || ct_search_known(c->p, s) != CT_SEARCH_INTERRUPTED)
		return false;
	/*
	 * The one refusal that ends the process mid-search: segments past the
	 * end of a file, which the loader maps and dies of (SIGBUS). Not a
	 * process killed while the loader waited on something that is no
	 * file (a FIFO), nor one killed by another signal.
	 */
	ct_proc_ending(c->p, &e);
	if (!(e.kind == CT_END_SIGNAL && e.signal == SIGBUS) && e.kind != CT_END_NO_RECORD)
		return false;
	last = s->tries[s->ntries - 1].path;
	if (stat(last, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	return ct_loader_check_file(c->L, last, &why) == CT_NOT_ELF;
}

bool ct_dx_search_missed(const struct ctx *c, const struct ct_search *s)
{
	size_t k;

	if (s->found || s->already_loaded)
		return false;
	/*
	 * A search whose answer was lost or never came is no miss
	 * (trace-incomplete says it), but for one that ended at a file the
	 * loader refuses: that file is why (a library cut short in its
	 * segments: the process dies of SIGBUS mapping it, mid-search).
	 */
	if (ct_search_known(c->p, s) != CT_SEARCH_KNOWN && !ct_dx_search_ended_refused(c, s))
		return false;
	/*
	 * The loader maps a file once: a candidate that is a file already
	 * mapped ends the search with no open record. The reader knows the
	 * process's own objects and the candidates of a search by name; a
	 * file the parent mapped before a fork, and a path given to dlopen
	 * (which has no candidates), are known here.
	 */
	if (strchr(s->name, '/') && mapped_before(c, s->name, s->t))
		return false;
	for (k = 0; k < s->ntries && c->ninherited; k++)
		if (mapped_before(c, s->tries[k].path, s->t))
			return false;
	return true;
}

const struct ct_request *ct_dx_within_dlopen(const struct ctx *c, const struct ct_search *s)
{
	const struct ct_proc *p = c->p;
	size_t i = p->nrequests;

	/*
	 * At start-up the loader maps every DT_NEEDED before any code runs,
	 * so no dlopen precedes those searches; a later one on the same
	 * thread is the loader at work for the latest dlopen there.
	 */
	while (i--)
		if (p->requests[i].tid == s->tid && p->requests[i].t <= s->t)
			return &p->requests[i];
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
	const struct ct_try_run *relative = NULL;
	size_t i, n;

	if (!s->ntries) {
		ct_finding_evidence(f, "no candidate path was tried");
		return;
	}
	runs = ct_try_runs(s->tries, s->ntries, &n);
	ct_finding_evidence(f, "tried, in order:");
	for (i = 0; i < n; i++) {
		char more[48] = "", dir[4200];

		if (runs[i].nsubdirs)
			snprintf(more, sizeof(more), "  (and %zu subdirector%s)", runs[i].nsubdirs,
				 runs[i].nsubdirs == 1 ? "y" : "ies");
		ct_finding_evidence(f, "  %-18s %s%s", ct_rule_words(runs[i].via),
				    ct_search_dir_words(runs[i].dir, runs[i].dir_len, dir, sizeof(dir)),
				    more);
		if (ct_path_relative(runs[i].dir))
			relative = relative ? relative : &runs[i];
	}
	/* Whoever can write the folder the program starts from chooses what it loads. */
	if (relative && relative->dir_len == 0)
		ct_finding_evidence(f, "%s has an empty entry: the loader looks for libraries in "
				       "whatever folder the program is started from",
				    ct_rule_words(relative->via));
	else if (relative)
		ct_finding_evidence(f, "%s has a relative entry, %.*s: the loader looks for "
				       "libraries under whatever folder the program is started from",
				    ct_rule_words(relative->via), (int)relative->dir_len,
				    relative->dir);
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
	return ct_driver_library(name) == CT_DRIVER_LIB_CUDA;
}

bool ct_dx_is_nvml(const char *name)
{
	return ct_driver_library(name) == CT_DRIVER_LIB_NVML;
}

bool ct_dx_clean_end(const struct ctx *c)
{
	struct ct_ending end;

	ct_proc_ending(c->p, &end);
	return (end.kind == CT_END_EXIT && end.status == 0) || end.kind == CT_END_EXEC;
}

bool ct_dx_driver_mapped(const struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->nmapped; i++)
		if (ct_dx_is_driver(c->mapped[i]->path) ||
		    (c->mapped[i]->soname && ct_dx_is_driver(c->mapped[i]->soname)))
			return true;
	return false;
}

int ct_dx_cuda_of(int64_t version)
{
	return version > 0 && version <= INT_MAX ? (int)version : 0;
}

bool ct_dx_python(const struct ctx *c)
{
	const char *b = c->p->exe ? ct_dx_base(c->p->exe) : "";
	size_t i;

	/* python3, python3.11; a Python package's object mapped (an embedded interpreter). */
	if (strncmp(b, "python", 6) == 0)
		return true;
	for (i = 0; i < c->nmapped; i++)
		if (!c->mapped[i]->shim && ct_python_shipped(c->mapped[i]->path))
			return true;
	return false;
}

/* What follows "prefix: " at the start of text, or NULL. */
static const char *after(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(text, prefix, n) == 0 && text[n] == ':' && text[n + 1] == ' ' ? text + n + 2
										   : NULL;
}

const char *ct_dx_refused_at(const struct ctx *c, const struct ct_search *s, const char **why)
{
	const struct ct_request *q = s->request ? s->request : ct_dx_within_dlopen(c, s);
	const char *path, *said = NULL;

	/* A name with a slash is the one candidate, and no search records it. */
	path = s->ntries ? s->tries[s->ntries - 1].path : strchr(s->name, '/') ? s->name : NULL;
	if (!path)
		return NULL;
	/*
	 * The loader's own words, when the program got them from dlerror():
	 * every refusal, its newest checks too (glibc 2.41's executable
	 * stack). A mapping that fails is said of the name asked for.
	 */
	if (q && q->error && !(said = after(q->error, path)))
		said = after(q->error, s->name);
	if (said && !strstr(said, "cannot open shared object file")) {
		*why = strcmp(said, ct_noexec_why) == 0 ? ct_noexec_why : said;
		return path;
	}
	if (!c->L)
		return NULL;
	return ct_loader_check_file(c->L, path, why) == CT_NOT_ELF ? path : NULL;
}

bool ct_dx_execstack(const char *why)
{
	return why && strstr(why, "cannot enable executable stack") != NULL;
}

const char *ct_dx_refused_words(const char *why)
{
	if (why == ct_noexec_why)
		return "its file system is mounted noexec";
	if (ct_dx_execstack(why))
		return "it needs an executable stack, which the C library refuses to a dlopen";
	return why == ct_truncated_why ? "file truncated" : why;
}

const char *ct_dx_unreadable(const struct ct_search *s)
{
	size_t i;

	for (i = 0; i < s->ntries; i++)
		if (access(s->tries[i].path, R_OK) != 0 && errno == EACCES)
			return s->tries[i].path;
	return NULL;
}

/* A search that stopped at a refused file, by the search's address. */
struct ct_dx_refusal {
	const struct ct_search *s;
	const char *path, *why;
	UT_hash_handle hh;
};

void ct_dx_refusal_note(struct ctx *c, const struct ct_search *s, const char *path,
			const char *why)
{
	struct ct_dx_refusal *r;

	HASH_FIND_PTR(c->d->refusals, &s, r);
	if (r)
		return;
	r = ct_xcalloc(1, sizeof(*r));
	r->s = s;
	r->path = path;
	r->why = why;
	HASH_ADD_PTR(c->d->refusals, s, r);
}

void ct_dx_refusals_free(struct ct_dx_refusal *all)
{
	struct ct_dx_refusal *r, *tmp;

	HASH_ITER(hh, all, r, tmp) {
		HASH_DEL(all, r);
		free(r);
	}
}

const char *ct_diagnosis_refused(const struct ct_diagnosis *d, const struct ct_search *s,
				 const char **words)
{
	struct ct_dx_refusal *r;

	HASH_FIND_PTR(d->refusals, &s, r);
	if (!r)
		return NULL;
	if (words)
		*words = ct_dx_refused_words(r->why);
	return r->path;
}

/*
 * The fix for a library asker asked for by a name without a major
 * (cuBLASLt 11's dlopen of "libnvrtc.so"), for it to find CUDA major's:
 * that name made to find the major's library, from a folder first on
 * LD_LIBRARY_PATH (it comes before RUNPATH and ld.so.cache). A copy of
 * the major's library on this machine is named (the asker's own folder
 * first: bookworm's libnvrtc.so.11.2 beside its libcublasLt.so.11); a
 * folder that already holds the unversioned link to it is the whole fix.
 */
char *ct_dx_unversioned_fix(struct ctx *c, const char *name, const char *asker, int major)
{
	const char *want = ct_soname_in_cuda(name, major), *who = ct_dx_base(asker ? asker : "?");
	struct ct_copies cs = { 0 };
	const char *copy = NULL, *ready = NULL;
	char link[4096], *own = NULL, *fix = NULL;
	struct stat st;
	size_t i;
	int n;

	if (want)
		ct_dx_copies(c, want, NULL, &cs);
	/* The asker's folder is on its own path: no copy "elsewhere", but the one to take. */
	if (want && asker && strrchr(asker, '/')) {
		snprintf(link, sizeof(link), "%.*s/%s", (int)(strrchr(asker, '/') - asker), asker,
			 want);
		if (stat(link, &st) == 0 && S_ISREG(st.st_mode))
			copy = own = ct_xstrdup(link);
	}
	for (i = 0; i < cs.n && !ready; i++) {
		const char *slash = strrchr(cs.c[i].path, '/');

		if (!cs.c[i].same_name || !slash)
			continue;
		copy = copy ? copy : cs.c[i].path;
		snprintf(link, sizeof(link), "%.*s/%s", (int)(slash - cs.c[i].path), cs.c[i].path,
			 name);
		if (ct_dx_same_file(link, cs.c[i].path))
			ready = cs.c[i].path;
	}
	if (ready)
		n = asprintf(&fix, "%s asks for '%s', a name without a major: put %.*s first on "
				   "LD_LIBRARY_PATH, where that name is CUDA %d's %s",
			     who, name, (int)(strrchr(ready, '/') - ready), ready, major, want);
	else if (copy)
		n = asprintf(&fix, "%s asks for '%s', a name without a major: make it find CUDA "
				   "%d's: a folder first on LD_LIBRARY_PATH with a link %s to %s",
			     who, name, major, name, copy);
	else
		n = asprintf(&fix, "%s asks for '%s', a name without a major: make it find CUDA "
				   "%d's: install %s%s and its link %s (the CUDA %d toolkit's "
				   "development files), in a folder first on LD_LIBRARY_PATH",
			     who, name, major, want ? want : "that library",
			     want ? "" : " of CUDA's", name, major);
	if (n < 0)
		ct_out_of_memory();
	ct_copies_release(&cs);
	free(own);
	return fix;
}

/* The symbol-version analysis; see symvers.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "copies.h"
#include "describe.h"
#include "libnames.h"
#include "symvers.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/*
 * A file's tables, read once when first asked: shared by the paths that
 * name one file (by device and inode on this machine), each read through
 * whichever path asked first.
 */
struct symfile {
	struct { uint64_t dev, ino; } key;
	bool info_read, info_ok, table_read, table_ok, undefs_read, undefs_ok;
	struct ct_elfinfo info;
	struct ct_symtab table;
	struct ct_undefs undefs;
	struct symfile *next;        /* every file, to free */
	UT_hash_handle hh;           /* by key; not when stat could not name it */
};

/* A path asked of, and its file. */
struct entry {
	char *path;
	struct symfile *f;
	UT_hash_handle hh;
};

/*
 * What a provider's own table says of one VERNEED entry, kept: a job's
 * ranks ask it of the same files thousands of times, and the answer reads
 * every symbol the requester needs. Keyed by the entry (its address: it
 * outlives the cache, symvers.h) and the provider's file.
 */
enum own_answer { OWN_OK, OWN_NO_VERSION, OWN_SYMBOLS_MISSING };

struct own_key {
	const struct ct_verneed *need;
	const struct symfile *provider;
};

struct own_memo {
	struct own_key key;
	enum own_answer answer;
	UT_hash_handle hh;
};

/*
 * A scope, interned: the processes of a job map the same objects, so what
 * the rest of a scope gives (the symbols a provider lacks, looked up in
 * every other object) is kept per entry, provider's file and scope.
 */
struct scope_id {
	char *key;                   /* the paths, each ended by its NUL */
	size_t keylen;
	UT_hash_handle hh;
};

struct scope_key {
	const struct ct_verneed *need;
	const struct symfile *provider;
	const struct scope_id *scope;
};

struct scope_memo {
	struct scope_key key;
	const char *missing;         /* a view into need */
	size_t nmissing;
	UT_hash_handle hh;
};

struct ct_symcache {
	struct entry *by_path;
	struct symfile *files, *all_files;
	struct own_memo *own;
	struct scope_id *scopes;
	struct scope_memo *in_scope;
};

struct ct_symcache *ct_symcache_new(void)
{
	return ct_xcalloc(1, sizeof(struct ct_symcache));
}

void ct_symcache_free(struct ct_symcache *c)
{
	struct entry *e, *tmp;

	struct own_memo *m, *mtmp;
	struct scope_id *sc, *sctmp;
	struct scope_memo *sm, *smtmp;

	if (!c)
		return;
	HASH_ITER(hh, c->own, m, mtmp) {
		HASH_DEL(c->own, m);
		free(m);
	}
	HASH_ITER(hh, c->in_scope, sm, smtmp) {
		HASH_DEL(c->in_scope, sm);
		free(sm);
	}
	HASH_ITER(hh, c->scopes, sc, sctmp) {
		HASH_DEL(c->scopes, sc);
		free(sc->key);
		free(sc);
	}
	HASH_ITER(hh, c->by_path, e, tmp) {
		HASH_DEL(c->by_path, e);
		free(e->path);
		free(e);
	}
	HASH_CLEAR(hh, c->files);
	while (c->all_files) {
		struct symfile *f = c->all_files;

		c->all_files = f->next;
		if (f->info_read)
			ct_elfinfo_release(&f->info);
		if (f->table_read)
			ct_symtab_release(&f->table);
		if (f->undefs_read)
			ct_undefs_release(&f->undefs);
		free(f);
	}
	free(c);
}

/* The file at path: one for every path that names it. */
static struct symfile *file_of(struct ct_symcache *c, const char *path)
{
	struct symfile *f = NULL;
	struct stat st;
	bool keyed = stat(path, &st) == 0;

	if (keyed) {
		struct symfile key;

		memset(&key, 0, sizeof(key));
		key.key.dev = (uint64_t)st.st_dev;
		key.key.ino = (uint64_t)st.st_ino;
		HASH_FIND(hh, c->files, &key.key, sizeof(key.key), f);
		if (f)
			return f;
	}
	f = ct_xcalloc(1, sizeof(*f));
	f->next = c->all_files;
	c->all_files = f;
	if (keyed) {
		f->key.dev = (uint64_t)st.st_dev;
		f->key.ino = (uint64_t)st.st_ino;
		HASH_ADD(hh, c->files, key, sizeof(f->key), f);
	}
	return f;
}

static struct entry *entry_of(struct ct_symcache *c, const char *path)
{
	struct entry *e;

	HASH_FIND_STR(c->by_path, path, e);
	if (!e) {
		e = ct_xcalloc(1, sizeof(*e));
		e->path = ct_xstrdup(path);
		e->f = file_of(c, path);
		HASH_ADD_KEYPTR(hh, c->by_path, e->path, strlen(e->path), e);
	}
	return e;
}

const struct ct_symtab *ct_symcache_table(struct ct_symcache *c, const char *path)
{
	struct symfile *f = entry_of(c, path)->f;

	if (!f->table_read) {
		f->table_read = true;
		f->table_ok = ct_symtab_read(&f->table, path) == 0;
	}
	return f->table_ok ? &f->table : NULL;
}

const struct ct_undefs *ct_symcache_undefs(struct ct_symcache *c, const char *path)
{
	struct symfile *f = entry_of(c, path)->f;

	if (!f->undefs_read) {
		f->undefs_read = true;
		f->undefs_ok = ct_undefs_read(&f->undefs, path) == 0;
	}
	return f->undefs_ok ? &f->undefs : NULL;
}

bool ct_symcache_satisfies(struct ct_symcache *c, const char *path, const char *version,
			   const char *symbol)
{
	struct symfile *f = entry_of(c, path)->f;
	const struct ct_symtab *t;

	if (!f->info_read) {
		f->info_read = true;
		ct_elfinfo_init(&f->info);
		f->info_ok = ct_elfinfo_read(&f->info, path) == 0;
	}
	if (!f->info_ok || !ct_elfinfo_defines(&f->info, version))
		return false;
	return !symbol || ((t = ct_symcache_table(c, path)) && ct_symtab_has(t, symbol, version));
}

void ct_symscope_init(struct ct_symscope *s, const char *const *paths, size_t n,
		      struct ct_symcache *cache)
{
	struct scope_id *id;
	size_t i, len = 0;
	char *key, *k;

	s->paths = paths;
	s->n = n;
	s->cache = cache;
	for (i = 0; i < n; i++)
		len += strlen(paths[i]) + 1;
	k = key = ct_xmalloc(len + 1);
	for (i = 0; i < n; i++) {
		size_t m = strlen(paths[i]) + 1;

		memcpy(k, paths[i], m);
		k += m;
	}
	HASH_FIND(hh, cache->scopes, key, len, id);
	if (id) {
		free(key);
	} else {
		id = ct_xcalloc(1, sizeof(*id));
		id->key = key;
		id->keylen = len;
		HASH_ADD_KEYPTR(hh, cache->scopes, id->key, id->keylen, id);
	}
	s->id = id;
}

void ct_symscope_release(struct ct_symscope *s)
{
	memset(s, 0, sizeof(*s));
}

/* What provider's own table gives need, asked of the files once per pair. */
static enum own_answer own_answer(struct ct_symcache *c, const char *provider,
				  const struct ct_verneed *need)
{
	struct own_key key;
	struct own_memo *m;
	size_t nmissing;

	memset(&key, 0, sizeof(key));
	key.need = need;
	key.provider = entry_of(c, provider)->f;
	HASH_FIND(hh, c->own, &key, sizeof(key), m);
	if (m)
		return m->answer;
	m = ct_xcalloc(1, sizeof(*m));
	m->key = key;
	if (!ct_symcache_satisfies(c, provider, need->version, NULL))
		m->answer = OWN_NO_VERSION;
	else if (need->nsymbols &&
		 ct_symbols_missing(need, ct_symcache_table(c, provider), NULL, 0, &nmissing))
		m->answer = OWN_SYMBOLS_MISSING;
	else
		m->answer = OWN_OK;
	HASH_ADD(hh, c->own, key, sizeof(m->key), m);
	return m->answer;
}

/* The symbols under need that neither provider nor the rest of s defines, once per scope. */
static const char *scope_missing(struct ct_symscope *s, const char *provider,
				 const struct ct_verneed *need, const struct ct_symtab *own,
				 size_t *nmissing)
{
	const struct ct_symtab **others, *t;
	struct scope_key key;
	struct scope_memo *m;
	size_t i, n = 0;

	memset(&key, 0, sizeof(key));
	key.need = need;
	key.provider = entry_of(s->cache, provider)->f;
	key.scope = s->id;
	HASH_FIND(hh, s->cache->in_scope, &key, sizeof(key), m);
	if (!m) {
		others = ct_xcalloc(s->n + 1, sizeof(*others));
		for (i = 0; i < s->n; i++)
			if (strcmp(s->paths[i], provider) != 0 &&
			    (t = ct_symcache_table(s->cache, s->paths[i])))
				others[n++] = t;
		m = ct_xcalloc(1, sizeof(*m));
		m->key = key;
		m->missing = ct_symbols_missing(need, own, others, n, &m->nmissing);
		free(others);
		HASH_ADD(hh, s->cache->in_scope, key, sizeof(m->key), m);
	}
	*nmissing = m->nmissing;
	return m->missing;
}

enum ct_symver_verdict ct_symver_check(struct ct_symscope *s, const char *provider,
				       const struct ct_verneed *need, const char **missing,
				       size_t *nmissing)
{
	const struct ct_symtab *own;

	*missing = NULL;
	*nmissing = 0;
	own = ct_symcache_table(s->cache, provider);
	/* A provider without version definitions: the loader only warns. */
	if (!own || !own->versioned || !need->version)
		return CT_SYMVER_OK;
	switch (own_answer(s->cache, provider, need)) {
	case OWN_NO_VERSION:
		return CT_SYMVER_NO_VERSION;
	case OWN_OK:
		return CT_SYMVER_OK;
	case OWN_SYMBOLS_MISSING:
		break;
	}
	/* The version is there but symbols under it are not: the rest of the scope too. */
	*missing = scope_missing(s, provider, need, own, nmissing);
	if (!*missing)
		*nmissing = 0;
	return *missing ? CT_SYMVER_NO_SYMBOL : CT_SYMVER_OK;
}

bool ct_symver_having(const struct ct_loader *L, struct ct_symcache *cache,
		      const struct ct_lookup *search, const char *version, const char *symbol,
		      char **having, char *where, size_t size)
{
	struct ct_copies cs;
	size_t i;

	*having = NULL;
	if (ct_symver_kind(version) == CT_SYMVER_GLIBC)
		return false;
	for (i = 0; i < search->ncands && !*having; i++)
		if (search->cands[i].outcome == CT_FOUND &&
		    ct_symcache_satisfies(cache, search->cands[i].path, version, symbol)) {
			char rule[128];

			*having = ct_xstrdup(search->cands[i].path);
			snprintf(where, size, "%s, later in the order",
				 ct_rule_text(search->cands[i].via, search->cands[i].owner, rule,
					      sizeof(rule)));
		}
	if (*having)
		return true;
	ct_find_copies(L, search, &cs);
	for (i = 0; i < cs.n && !*having; i++)
		if (ct_symcache_satisfies(cache, cs.c[i].path, version, symbol)) {
			*having = ct_xstrdup(cs.c[i].path);
			snprintf(where, size, "%s", cs.c[i].where);
		}
	ct_copies_release(&cs);
	return *having != NULL;
}

/*
 * A renamed major: no release of it has what a build for the other major
 * needs (NVIDIA puts every symbol under a version named after the soname).
 */
static void renamed_fix(char *buf, size_t size, const char *lacking, const char *really,
			enum ct_rule via, const struct ct_verneed *need, const char *having,
			const char *where, bool python)
{
	const char *slash = strrchr(lacking, '/');
	int dlen = slash ? (int)(slash - lacking) : (int)strlen(lacking);
	char pkg[256], how[512], then[1024];

	if (via == CT_RULE_PRELOAD)
		snprintf(how, sizeof(how), "drop it from LD_PRELOAD");
	else if (via == CT_RULE_LD_LIBRARY_PATH)
		snprintf(how, sizeof(how), "delete that copy or link, or take %.*s off "
					   "LD_LIBRARY_PATH",
			 dlen, lacking);
	else
		snprintf(how, sizeof(how), "delete that copy or link");
	if (having)
		snprintf(then, sizeof(then), "then what needs %s gets %s (%s)", need->file, having,
			 where);
	else if (python && ct_pip_words(need->file, 0, pkg, sizeof(pkg))[0])
		snprintf(then, sizeof(then), "then install the real %s: pip install %s, or the "
					     "distribution's package",
			 need->file, pkg);
	else if (ct_cuda_mask_major(ct_soname_cuda(need->file, NULL)))
		/* A wheel helps no Node or C program: the toolkit of its major, or the distribution. */
		snprintf(then, sizeof(then), "then install the real %s: the CUDA %d toolkit, or "
					     "the distribution's package",
			 need->file, ct_cuda_mask_major(ct_soname_cuda(need->file, NULL)));
	else
		snprintf(then, sizeof(then), "then install the real %s (the package that ships it)",
			 need->file);
	snprintf(buf, size, "'%s' is a renamed %s, and a renamed major never works (a build for "
			    "%s needs that major's symbols): %s; %s",
		 lacking, really, need->file, how, then);
}

enum ct_symver_kind ct_symver_kind(const char *version)
{
	if (!version)
		return CT_SYMVER_LIBRARY;
	if (strncmp(version, "GLIBC_", 6) == 0 && version[6] >= '0' && version[6] <= '9')
		return CT_SYMVER_GLIBC;
	if (strncmp(version, "GLIBCXX_", 8) == 0 || strncmp(version, "CXXABI_", 7) == 0 ||
	    strncmp(version, "GCC_", 4) == 0)
		return CT_SYMVER_CXX;
	return CT_SYMVER_LIBRARY;
}

/* The length of "GLIBC_", "GLIBCXX_", "CXXABI_" in version: what its kind's versions share. */
static size_t kind_len(const char *version)
{
	const char *u = strchr(version, '_');

	return u ? (size_t)(u - version) + 1 : 0;
}

/* Dotted numbers compared as numbers: 2.9 < 2.38. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*a != '.' || *b != '.')
			return (*a == '.') - (*b == '.');
		a++;
		b++;
	}
	return 0;
}

/* path's newest version of prefix's kind (digits after the prefix), into buf; "" when none. */
static void newest_of(struct ct_symcache *c, const char *path, const char *prefix, size_t plen,
		      char *buf, size_t size)
{
	struct symfile *f = entry_of(c, path)->f;
	const char *best = NULL;
	size_t i;

	buf[0] = '\0';
	if (!f->info_read) {
		f->info_read = true;
		ct_elfinfo_init(&f->info);
		f->info_ok = ct_elfinfo_read(&f->info, path) == 0;
	}
	for (i = 0; f->info_ok && i < f->info.nverdef; i++) {
		const char *v = f->info.verdef[i];

		if (strncmp(v, prefix, plen) != 0 || v[plen] < '0' || v[plen] > '9')
			continue;
		if (!best || version_cmp(v + plen, best + plen) > 0)
			best = v;
	}
	if (best)
		snprintf(buf, size, "%s", best);
}

void ct_symver_ctx_read(struct ct_symcache *c, const char *lacking, const char *libc,
			const struct ct_verneed *need, bool python, struct ct_symver_ctx *out)
{
	char v[64];

	memset(out, 0, sizeof(*out));
	out->python = python;
	if (ct_symver_kind(need->version) == CT_SYMVER_LIBRARY)
		return;
	newest_of(c, lacking, need->version, kind_len(need->version), out->newest,
		  sizeof(out->newest));
	newest_of(c, libc ? libc : lacking, "GLIBC_", 6, v, sizeof(v));
	if (v[0])
		snprintf(out->glibc, sizeof(out->glibc), "%.15s", v + 6);
}

/*
 * A gap in the system's own libraries: the requester was built on a newer
 * system. glibc cannot be replaced for one program (a newer release of the
 * distribution is the only newer one), so the fix is a build of the
 * requester for this system: the distribution's own package of it, or a
 * manylinux wheel, whose tag names the oldest glibc it runs on. A newer
 * libstdc++ can be put first for one program (a conda environment's).
 */
static void system_fix(char *buf, size_t size, const char *requester, bool many,
		       const char *lacking, const struct ct_verneed *need,
		       const struct ct_symver_ctx *sys)
{
	const char *b = strrchr(lacking, '/');
	char tag[64] = "", has[160] = "", glibc[40] = "this system's glibc";
	unsigned major = 0, minor = 0;

	b = b ? b + 1 : lacking;
	if (sys && sys->glibc[0] && sscanf(sys->glibc, "%u.%u", &major, &minor) == 2) {
		snprintf(tag, sizeof(tag), " tagged manylinux_%u_%u or lower", major, minor);
		snprintf(glibc, sizeof(glibc), "glibc %s", sys->glibc);
	}
	if (sys && sys->newest[0])
		snprintf(has, sizeof(has), " (this system's %s defines up to %s)", b, sys->newest);
	if (ct_symver_kind(need->version) == CT_SYMVER_GLIBC)
		snprintf(buf, size, "%s need%s %s of the C library, which comes with the "
				    "distribution and is not replaced for one program%s: use %s of %s "
				    "made for %s or older: your distribution's own package%s, or a "
				    "manylinux wheel%s",
			 requester, many ? "" : "s", need->version, has,
			 many ? "builds" : "a build", many ? "them" : requester, glibc,
			 many ? "s of them" : " of it", tag);
	else
		snprintf(buf, size, "%s need%s %s of %s, which comes with the distribution's "
				    "compiler%s: use %s of %s made for this system: your distribution's "
				    "own package%s, or a manylinux wheel%s; or put a newer %s (a conda "
				    "environment's) first on LD_LIBRARY_PATH",
			 requester, many ? "" : "s", need->version, need->file, has,
			 many ? "builds" : "a build", many ? "them" : requester,
			 many ? "s of them" : " of it", tag, need->file);
}

void ct_symver_fix(char *buf, size_t size, const char *requester, bool many, const char *lacking,
		   const char *really, enum ct_rule via, const struct ct_verneed *need,
		   const char *symbol, const char *having, const char *where,
		   const struct ct_symver_ctx *sys)
{
	const char *slash = strrchr(lacking, '/');
	int dlen = slash ? (int)(slash - lacking) : (int)strlen(lacking);

	if (really)
		renamed_fix(buf, size, lacking, really, via, need, having, where, sys && sys->python);
	else if (!having && ct_symver_kind(need->version) != CT_SYMVER_LIBRARY)
		system_fix(buf, size, requester, many, lacking, need, sys);
	else if (!having)
		snprintf(buf, size, "install a %s that defines %s%s%s (a newer release of its package)",
			 need->file, symbol ? symbol : need->version, symbol ? " under " : "",
			 symbol ? need->version : "");
	else if (via == CT_RULE_LD_LIBRARY_PATH)
		snprintf(buf, size, "take %.*s off LD_LIBRARY_PATH, so that %s get%s %s (%s)", dlen,
			 lacking, requester, many ? "" : "s", having, where);
	else if (via == CT_RULE_PRELOAD)
		snprintf(buf, size, "drop %s from LD_PRELOAD, so that %s get%s %s (%s)", lacking,
			 requester, many ? "" : "s", having, where);
	else
		snprintf(buf, size, "make %s get %s (%s): put its directory first on "
				    "LD_LIBRARY_PATH, or in the RUNPATH%s of %s",
			 requester, having, where, many ? "s" : "", requester);
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

/* The C library among L's objects (its DT_SONAME libc.so.6), or NULL. */
static const char *libc_of(const struct ct_loader *L)
{
	size_t i;

	for (i = 0; i < L->nobjs; i++)
		if (L->objs[i]->info.soname && strcmp(L->objs[i]->info.soname, "libc.so.6") == 0)
			return L->objs[i]->path;
	return NULL;
}

struct ct_version_gap *ct_version_gaps(struct ct_loader *L, size_t *n)
{
	return ct_version_gaps_since(L, 0, n);
}

struct ct_version_gap *ct_version_gaps_since(struct ct_loader *L, size_t first, size_t *n)
{
	struct ct_version_gap *out = NULL;
	struct ct_symscope scope;
	struct ct_symcache *cache;
	const char **paths = ct_xcalloc(L->nobjs + 1, sizeof(*paths));
	size_t i, v, np = 0;

	*n = 0;
	for (i = 0; i < L->nobjs; i++)
		if (!L->objs[i]->is_main)
			paths[np++] = L->objs[i]->path;
	cache = ct_symcache_new();
	ct_symscope_init(&scope, paths, np, cache);
	for (i = first; i < L->nobjs; i++) {
		const struct ct_lobj *r = L->objs[i];

		for (v = 0; v < r->info.nverneed; v++) {
			const struct ct_verneed *need = &r->info.verneed[v];
			const struct ct_lookup *k;
			struct ct_version_gap *g;
			struct ct_symver_ctx sys;
			struct ct_lookup *s;
			const char *missing;
			size_t nmissing;
			enum ct_rule via;

			if (need->weak || !need->file || !need->version ||
			    !(k = lookup_for(L, r, need->file)) ||
			    ct_symver_check(&scope, k->object->path, need, &missing, &nmissing) ==
				    CT_SYMVER_OK)
				continue;
			out = ct_xrealloc(out, (*n + 1) * sizeof(*out));
			g = &out[(*n)++];
			memset(g, 0, sizeof(*g));
			g->requester = r;
			g->lacking = k->object;
			g->need = need;
			g->missing_symbol = missing;
			g->nmissing = nmissing;
			s = ct_loader_search(L, (struct ct_lobj *)r, k->name, true);
			ct_symver_having(L, cache, s, need->version, missing, &g->having,
					 g->having_where, sizeof(g->having_where));
			ct_lookup_free(s);
			via = k->object->preload ? CT_RULE_PRELOAD : k->object->found_via;
			ct_symver_ctx_read(cache, k->object->path, libc_of(L), need,
					   ct_python_shipped(r->path), &sys);
			ct_symver_fix(g->fix, sizeof(g->fix), ct_lobj_name(r, true), false, k->object->path,
				      ct_library_renamed(k->object->path, k->object->info.soname)
					      ? k->object->info.soname
					      : NULL,
				      via, need, missing, g->having, g->having_where, &sys);
		}
	}
	ct_symscope_release(&scope);
	ct_symcache_free(cache);
	free(paths);
	return out;
}

void ct_version_gaps_free(struct ct_version_gap *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(g[i].having);
	free(g);
}

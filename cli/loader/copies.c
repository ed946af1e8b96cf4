/* Copies of a library elsewhere on the machine; see copies.h. */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "util.h"
#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

#include "copies.h"
#include "resolve.h"

#define MAX_COPIES 64

bool ct_soname_split(const char *name, char *stem, size_t stem_size, const char **major)
{
	const char *so = strstr(name, ".so.");
	size_t n;

	*major = NULL;
	if (!so) {
		/* "libcuda.so": every libcuda.so.N is another major of it. */
		n = strlen(name);
		if (n < 3 || strcmp(name + n - 3, ".so") != 0 || n + 1 > stem_size)
			return false;
		memcpy(stem, name, n + 1);
		return true;
	}
	n = (size_t)(so - name) + 3;
	if (n + 1 > stem_size)
		return false;
	memcpy(stem, name, n);
	stem[n] = '\0';
	*major = so + 4;
	return true;
}

/* Length of the major number at s ("12" of "12.4.127"), 0 when none. */
static size_t major_len(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n && (s[n] == '\0' || s[n] == '.') ? n : 0;
}

struct dir {
	char *path;
	const char *where;
};

/* A set of strings (directories one lookup scans). */
struct name_set {
	const char *name;
	UT_hash_handle hh;
};

/* A directory's entries, read once, sorted (so a name or a prefix is a binary search). */
struct listing {
	char *path;
	char **names;
	size_t n;
	UT_hash_handle hh;
};

/* A path as the file system has it, asked once. */
struct fileinfo {
	char *path;
	bool regular;             /* stat() found a regular file */
	dev_t dev;
	ino_t ino;
	int loadable;             /* -1: not asked yet */
	char *real_base;          /* realpath's base name ("" when none); NULL: not asked */
	UT_hash_handle hh;
};

/*
 * What every lookup of one loader shares: the directories where copies
 * live, found once, and what the file system said, asked once per path.
 */
struct ct_copies_cache {
	bool have_dirs;
	struct dir *dirs;
	size_t ndirs;
	struct name_set *dir_set; /* the same, for finding */
	struct listing *listings;
	struct fileinfo *files;
	size_t *by_key;           /* cache entries that fit, ordered by key */
	size_t nby_key;
};

struct ct_copies_cache *ct_copies_cache_new(void)
{
	return ct_xcalloc(1, sizeof(struct ct_copies_cache));
}

void ct_copies_cache_free(struct ct_copies_cache *c)
{
	struct listing *l, *ltmp;
	struct fileinfo *f, *ftmp;
	struct name_set *n, *ntmp;
	size_t i;

	if (!c)
		return;
	HASH_ITER(hh, c->dir_set, n, ntmp) {
		HASH_DEL(c->dir_set, n);
		free(n);
	}
	for (i = 0; i < c->ndirs; i++)
		free(c->dirs[i].path);
	free(c->dirs);
	HASH_ITER(hh, c->listings, l, ltmp) {
		HASH_DEL(c->listings, l);
		for (i = 0; i < l->n; i++)
			free(l->names[i]);
		free(l->names);
		free(l->path);
		free(l);
	}
	HASH_ITER(hh, c->files, f, ftmp) {
		HASH_DEL(c->files, f);
		free(f->path);
		free(f->real_base);
		free(f);
	}
	free(c->by_key);
	free(c);
}

struct finder {
	const struct ct_loader *L;
	const struct ct_lookup *k;
	struct ct_copies_cache *cache;
	char stem[256];
	const char *major;        /* the asked major, or NULL */
	struct dir *dirs;         /* the searched directories, then the cache's */
	size_t ndirs;
	struct name_set *dir_set;
	struct seen_file *seen;
	struct ct_copies *out;
};

static bool set_add(struct name_set **set, const char *name)
{
	struct name_set *e;

	HASH_FIND_STR(*set, name, e);
	if (e)
		return false;
	e = ct_xmalloc(sizeof(*e));
	e->name = name;
	HASH_ADD_KEYPTR(hh, *set, e->name, strlen(e->name), e);
	return true;
}

static void set_clear(struct name_set **set)
{
	struct name_set *e, *tmp;

	HASH_ITER(hh, *set, e, tmp) {
		HASH_DEL(*set, e);
		free(e);
	}
}

/* A directory for every lookup (cache->dirs), once. */
static void add_dir(struct ct_copies_cache *c, const char *path, const char *where)
{
	struct name_set *e;

	HASH_FIND_STR(c->dir_set, path, e);
	if (e)
		return;
	if (!(c->ndirs & (c->ndirs - 1)))
		c->dirs = ct_xrealloc(c->dirs, (c->ndirs ? c->ndirs * 2 : 1) * sizeof(*c->dirs));
	c->dirs[c->ndirs].path = ct_xstrdup(path);
	c->dirs[c->ndirs].where = where;
	set_add(&c->dir_set, c->dirs[c->ndirs++].path);
}

/* A directory one lookup searched (f->dirs), once. */
static void add_searched_dir(struct finder *f, char *path)
{
	if (!set_add(&f->dir_set, path)) {
		free(path);
		return;
	}
	if (!(f->ndirs & (f->ndirs - 1)))
		f->dirs = ct_xrealloc(f->dirs, (f->ndirs ? f->ndirs * 2 : 1) * sizeof(*f->dirs));
	f->dirs[f->ndirs].path = path;
	f->dirs[f->ndirs++].where = "searched directory";
}

static void add_glob(struct ct_copies_cache *c, const char *pattern, const char *where)
{
	glob_t g;
	size_t i;

	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++)
		add_dir(c, g.gl_pathv[i], where);
	globfree(&g);
}

static struct fileinfo *file_info(struct ct_copies_cache *c, const char *path)
{
	struct fileinfo *fi;
	struct stat st;

	HASH_FIND_STR(c->files, path, fi);
	if (fi)
		return fi;
	fi = ct_xcalloc(1, sizeof(*fi));
	fi->path = ct_xstrdup(path);
	fi->loadable = -1;
	if (stat(path, &st) == 0) {
		fi->regular = S_ISREG(st.st_mode);
		fi->dev = st.st_dev;
		fi->ino = st.st_ino;
	} else {
		fi->ino = 0;
	}
	HASH_ADD_KEYPTR(hh, c->files, fi->path, strlen(fi->path), fi);
	return fi;
}

/* Files one lookup has seen, by device and inode. */
struct seen_file {
	struct { dev_t dev; ino_t ino; } key;
	UT_hash_handle hh;
};

/* Has this file been seen? Marks it seen. */
static bool seen(struct finder *f, const struct fileinfo *fi)
{
	struct seen_file *e, key;

	memset(&key, 0, sizeof(key));
	key.key.dev = fi->dev;
	key.key.ino = fi->ino;
	HASH_FIND(hh, f->seen, &key.key, sizeof(key.key), e);
	if (e)
		return true;
	e = ct_xmalloc(sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->key = key.key;
	HASH_ADD(hh, f->seen, key, sizeof(e->key), e);
	return false;
}

static void mark_seen(struct finder *f, const char *path)
{
	const struct fileinfo *fi = file_info(f->cache, path);

	if (fi->ino)
		(void)seen(f, fi);
}

/* An ELF shared object the loader could use (its class and machine)? */
static bool loadable(const struct ct_loader *L, const char *path)
{
	unsigned char h[20];
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, h, sizeof(h));
	close(fd);
	return n == (ssize_t)sizeof(h) && memcmp(h, "\177ELF", 4) == 0 &&
	       (h[4] == 2 ? 64 : 32) == L->plat.elf_class &&
	       (unsigned)(h[18] | h[19] << 8) == L->plat.machine;
}

static void add_copy(struct finder *f, const char *path, const char *where, bool same)
{
	struct fileinfo *fi;
	struct ct_copy *c;
	size_t sl = strlen(f->stem);
	const char *base;

	if (f->out->n >= MAX_COPIES)
		return;
	fi = file_info(f->cache, path);
	if (!fi->regular || seen(f, fi))
		return;
	if (fi->loadable < 0)
		fi->loadable = loadable(f->L, path);
	if (!fi->loadable)
		return;
	if (!fi->real_base) {
		char real[PATH_MAX];

		fi->real_base = ct_xstrdup(realpath(path, real) ? strrchr(real, '/') + 1 : "");
	}
	f->out->c = ct_xrealloc(f->out->c, (f->out->n + 1) * sizeof(*c));
	c = &f->out->c[f->out->n++];
	c->path = ct_xstrdup(path);
	c->where = where;
	c->same_name = same;
	base = fi->real_base;
	c->version = ct_xstrdup(strncmp(base, f->stem, sl) == 0 && base[sl] == '.'
					? base + sl + 1
					: "");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct listing *listing_of(struct ct_copies_cache *c, const char *path)
{
	struct listing *l;
	struct dirent *e;
	DIR *dir;

	HASH_FIND_STR(c->listings, path, l);
	if (l)
		return l;
	l = ct_xcalloc(1, sizeof(*l));
	l->path = ct_xstrdup(path);
	if ((dir = opendir(path))) {
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.')
				continue;
			if (!(l->n & (l->n - 1)))
				l->names = ct_xrealloc(l->names,
						       (l->n ? l->n * 2 : 1) * sizeof(*l->names));
			l->names[l->n++] = ct_xstrdup(e->d_name);
		}
		closedir(dir);
	}
	if (l->n)
		qsort(l->names, l->n, sizeof(*l->names), cmp_str);
	HASH_ADD_KEYPTR(hh, c->listings, l->path, strlen(l->path), l);
	return l;
}

/* The first of names[0..n) not below s, in strcmp's order. */
static size_t lower_bound(char *const *names, size_t n, const char *s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(names[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The name asked, and one file per other major, in directory d. */
static void scan_dir(struct finder *f, const struct dir *d)
{
	const struct listing *l = listing_of(f->cache, d->path);
	size_t sl = strlen(f->stem), amaj = f->major ? major_len(f->major) : 0;
	const char *best[64] = { 0 };  /* per major number % 64, the shortest name */
	char path[PATH_MAX], prefix[258];
	size_t i;

	if (!l->n)
		return;
	if ((i = lower_bound(l->names, l->n, f->k->name)) < l->n &&
	    strcmp(l->names[i], f->k->name) == 0) {
		snprintf(path, sizeof(path), "%s/%s", d->path, f->k->name);
		add_copy(f, path, d->where, true);
	}
	if (!f->stem[0])
		return;
	/* Every name "STEM." and more, next to each other in the order. */
	snprintf(prefix, sizeof(prefix), "%s.", f->stem);
	for (i = lower_bound(l->names, l->n, prefix);
	     i < l->n && strncmp(l->names[i], prefix, sl + 1) == 0; i++) {
		const char *name = l->names[i];
		size_t ml = major_len(name + sl + 1);
		unsigned slot;

		if (!ml || strcmp(name, f->k->name) == 0)
			continue;
		/* The same major under a longer name is the same library. */
		if (amaj && ml == amaj && strncmp(name + sl + 1, f->major, ml) == 0)
			continue;
		slot = (unsigned)strtoul(name + sl + 1, NULL, 10) % 64;
		if (!best[slot] || strlen(name) < strlen(best[slot]))
			best[slot] = name;
	}
	for (i = 64; i-- > 0;) {
		if (!best[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->path, best[i]);
		add_copy(f, path, d->where, false);
	}
}

/* site-packages directories of one Python prefix: wheels' lib folders. */
static void add_python_prefix(struct ct_copies_cache *f, const char *prefix, const char *where)
{
	static const char *const sites[] = {
		"lib/python3*/site-packages", "lib/python3*/dist-packages",
		"lib/python3/dist-packages", "local/lib/python3*/dist-packages",
	};
	/* NVVM sits apart in its wheel: nvidia/cuda_nvcc/nvvm/lib64 (CUDA 12's nvcc). */
	static const char *const libs[] = { "nvidia/*/lib", "nvidia/*/lib64", "nvidia/*/nvvm/lib64",
					    "torch/lib" };
	char pattern[PATH_MAX];
	size_t i, j;

	for (i = 0; i < sizeof(sites) / sizeof(sites[0]); i++)
		for (j = 0; j < sizeof(libs) / sizeof(libs[0]); j++) {
			snprintf(pattern, sizeof(pattern), "%s/%s/%s", prefix, sites[i], libs[j]);
			add_glob(f, pattern, where);
		}
}

/* dirname(dirname(path)) into out. */
static bool grandparent(const char *path, char *out, size_t size)
{
	char *s;

	if (strlen(path) >= size)
		return false;
	strcpy(out, path);
	for (int i = 0; i < 2; i++) {
		if (!(s = strrchr(out, '/')))
			return false;
		*s = '\0';
	}
	if (!out[0])
		strcpy(out, "/");
	return true;
}

static void add_python(struct ct_copies_cache *f)
{
	const char *path = getenv("PATH"), *home = getenv("HOME");
	char exe[PATH_MAX], real[PATH_MAX], prefix[PATH_MAX], pattern[PATH_MAX];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(exe, sizeof(exe), "%.*s/python3", (int)n, path);
		if (n && access(exe, X_OK) == 0) {
			/* A virtual environment's prefix, then the interpreter's own. */
			if (grandparent(exe, prefix, sizeof(prefix)))
				add_python_prefix(f, prefix, "pip wheel");
			if (realpath(exe, real) && grandparent(real, prefix, sizeof(prefix)))
				add_python_prefix(f, prefix, "pip wheel");
			break;
		}
		path += n + (path[n] == ':');
	}
	if (home && *home) {
		snprintf(pattern, sizeof(pattern), "%s/.local", home);
		add_python_prefix(f, pattern, "pip wheel (user)");
	}
}

static void add_conda_prefix(struct ct_copies_cache *f, const char *prefix)
{
	char pattern[PATH_MAX];

	snprintf(pattern, sizeof(pattern), "%s/lib", prefix);
	add_glob(f, pattern, "conda");
	snprintf(pattern, sizeof(pattern), "%s/envs/*/lib", prefix);
	add_glob(f, pattern, "conda");
	add_python_prefix(f, prefix, "pip wheel (conda)");
}

static void add_conda(struct ct_copies_cache *f)
{
	static const char *const homes[] = { "miniconda3", "anaconda3", "miniforge3",
					     "mambaforge" };
	const char *v, *home = getenv("HOME");
	char prefix[PATH_MAX];
	size_t i;

	if ((v = getenv("CONDA_PREFIX")) && *v)
		add_conda_prefix(f, v);
	if ((v = getenv("CONDA_EXE")) && *v && grandparent(v, prefix, sizeof(prefix)))
		add_conda_prefix(f, prefix);
	for (i = 0; home && *home && i < sizeof(homes) / sizeof(homes[0]); i++) {
		snprintf(prefix, sizeof(prefix), "%s/%s", home, homes[i]);
		add_conda_prefix(f, prefix);
	}
	add_conda_prefix(f, "/opt/conda");
}

static int cmp_key(const void *a, const void *b, void *arg)
{
	const struct ct_ldcache *cache = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(cache->entries[x].key, cache->entries[y].key);

	return r ? r : (x > y) - (x < y);
}

/*
 * The folders /etc/ld.so.conf names (and the files it includes): ldconfig
 * puts their libraries in ld.so.cache, so a library there that the cache
 * does not list was put there after ldconfig last ran. A library is the
 * first in such a folder (a make install into /usr/local/lib) is found by
 * this only: the cache names no file there yet.
 */
static void add_ldso_conf(struct ct_copies_cache *c, const char *conf, int depth,
			  struct name_set **read)
{
	char *text, *line, *save = NULL;

	/* Each file once (the set owns a copy of the name): files that include each other end here. */
	{
		char *name = ct_xstrdup(conf);

		if (!set_add(read, name)) {
			free(name);
			return;
		}
	}
	if (!(text = ct_read_small_file(conf, 1 << 20)))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *end;

		if (hash)
			*hash = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (strncmp(line, "include", 7) == 0 && (line[7] == ' ' || line[7] == '\t')) {
			const char *slash = strrchr(conf, '/');
			char pattern[PATH_MAX];
			glob_t g;
			size_t i;

			for (line += 8; *line == ' ' || *line == '\t'; line++)
				;
			/* A relative pattern is relative to the including file's folder. */
			if (snprintf(pattern, sizeof(pattern), "%.*s%s",
				     *line == '/' || !slash ? 0 : (int)(slash - conf + 1), conf,
				     line) >= (int)sizeof(pattern) ||
			    depth >= 4 || glob(pattern, 0, NULL, &g) != 0)
				continue;
			for (i = 0; i < g.gl_pathc; i++)
				add_ldso_conf(c, g.gl_pathv[i], depth + 1, read);
			globfree(&g);
		} else if (*line == '/') {
			add_dir(c, line, "ld.so.conf directory");
		}
	}
	free(text);
}

/* Where copies live, for every lookup of L: found once. */
static void common_dirs(struct ct_copies_cache *c, const struct ct_loader *L)
{
	size_t i;

	if (c->have_dirs)
		return;
	c->have_dirs = true;
	/* ld.so.conf's folders first: their copies' fix is ldconfig. */
	{
		struct name_set *read = NULL, *e, *tmp;

		add_ldso_conf(c, "/etc/ld.so.conf", 0, &read);
		HASH_ITER(hh, read, e, tmp) {
			HASH_DEL(read, e);
			free((char *)e->name);
			free(e);
		}
	}
	/* Every directory the cache knows, then where CUDA usually lives. */
	for (i = 0; i < L->cache.n; i++) {
		char *dir = ct_xstrdup(L->cache.entries[i].path), *slash = strrchr(dir, '/');

		if (slash && ct_ldcache_fits(&L->cache.entries[i], &L->plat)) {
			*slash = '\0';
			add_dir(c, *dir ? dir : "/", "ld.so.cache directory");
		}
		free(dir);
	}
	for (i = 0; i < L->plat.nsystem_dirs; i++)
		add_dir(c, L->plat.system_dirs[i], "default directory");
	add_python(c);
	add_conda(c);
	add_glob(c, "/usr/local/cuda*/lib64", "CUDA toolkit");
	add_glob(c, "/usr/local/cuda*/targets/*/lib", "CUDA toolkit");
	add_glob(c, "/opt/cuda*/lib64", "CUDA toolkit");
	/* The cache's entries that fit, by key: a name or a stem is a binary search. */
	c->by_key = ct_xcalloc(L->cache.n + 1, sizeof(*c->by_key));
	for (i = 0; i < L->cache.n; i++)
		if (ct_ldcache_fits(&L->cache.entries[i], &L->plat))
			c->by_key[c->nby_key++] = i;
	if (c->nby_key)
		qsort_r(c->by_key, c->nby_key, sizeof(*c->by_key), cmp_key, (void *)&L->cache);
}

/* The first of the cache's entries by key not below s. */
static size_t key_bound(const struct ct_copies_cache *c, const struct ct_ldcache *cache,
			const char *s)
{
	size_t lo = 0, hi = c->nby_key;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(cache->entries[c->by_key[mid]].key, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The cache's entries for the name and its other majors, in the cache's order. */
static void cache_copies(struct finder *f)
{
	const struct ct_ldcache *cache = &f->L->cache;
	struct ct_copies_cache *c = f->cache;
	size_t sl = strlen(f->stem), *hits = NULL, nhits = 0, i;
	char prefix[258];

	for (i = key_bound(c, cache, f->k->name);
	     i < c->nby_key && strcmp(cache->entries[c->by_key[i]].key, f->k->name) == 0; i++) {
		hits = ct_xrealloc(hits, (nhits + 1) * sizeof(*hits));
		hits[nhits++] = c->by_key[i];
	}
	if (sl) {
		/* "%s." of the stem: gcc 10 (bullseye, make wheel) misjudges snprintf's room here. */
		memcpy(prefix, f->stem, sl);
		prefix[sl] = '.';
		prefix[sl + 1] = '\0';
		for (i = key_bound(c, cache, prefix); i < c->nby_key; i++) {
			const char *key = cache->entries[c->by_key[i]].key;

			if (strncmp(key, prefix, sl + 1) != 0)
				break;
			if (strcmp(key, f->k->name) != 0 && major_len(key + sl + 1)) {
				hits = ct_xrealloc(hits, (nhits + 1) * sizeof(*hits));
				hits[nhits++] = c->by_key[i];
			}
		}
	}
	if (nhits)
		qsort(hits, nhits, sizeof(*hits), cmp_size);
	for (i = 0; i < nhits; i++) {
		const struct ct_ldcache_entry *e = &cache->entries[hits[i]];

		add_copy(f, e->path, "ld.so.cache", strcmp(e->key, f->k->name) == 0);
	}
	free(hits);
}

void ct_find_copies(const struct ct_loader *L, const struct ct_lookup *k,
		    struct ct_copies *out)
{
	struct finder f;
	struct seen_file *e, *tmp;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (strchr(k->name, '/'))
		return;
	memset(&f, 0, sizeof(f));
	f.L = L;
	f.k = k;
	f.out = out;
	/* A loader set up by hand has no memo: a cache for this lookup. */
	if (L->memo && !L->memo->copies) {
		L->memo->copies = ct_copies_cache_new();
		L->memo->free_copies = ct_copies_cache_free;
	}
	f.cache = L->memo ? L->memo->copies : ct_copies_cache_new();
	common_dirs(f.cache, L);
	if (!ct_soname_split(k->name, f.stem, sizeof(f.stem), &f.major))
		f.stem[0] = '\0';
	/* What was on the path is not a copy elsewhere. */
	if (k->object)
		mark_seen(&f, k->object->path);
	if (k->path)
		mark_seen(&f, k->path);
	for (i = 0; i < k->ncands; i++)
		mark_seen(&f, k->cands[i].path);

	/* The cache's entries for the name and its majors first. */
	cache_copies(&f);
	/* The directories searched, for other majors of the name. */
	for (i = 0; i < k->ncands; i++) {
		char *dir = ct_xstrdup(k->cands[i].path), *slash = strrchr(dir, '/');

		if (!slash) {
			free(dir);
			continue;
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		add_searched_dir(&f, dir);
	}
	for (i = 0; i < f.ndirs; i++)
		scan_dir(&f, &f.dirs[i]);
	for (i = 0; i < f.cache->ndirs; i++)
		if (!set_add(&f.dir_set, f.cache->dirs[i].path))
			continue;
		else
			scan_dir(&f, &f.cache->dirs[i]);

	/* The name asked first, then the other majors, newest first. */
	for (i = 1; i < out->n; i++) {
		struct ct_copy c = out->c[i];
		size_t j = i;

		while (j > 0 && ((c.same_name && !out->c[j - 1].same_name) ||
				 (c.same_name == out->c[j - 1].same_name && !c.same_name &&
				  strtoul(c.version, NULL, 10) >
					  strtoul(out->c[j - 1].version, NULL, 10)))) {
			out->c[j] = out->c[j - 1];
			j--;
		}
		out->c[j] = c;
	}
	set_clear(&f.dir_set);
	for (i = 0; i < f.ndirs; i++)
		free(f.dirs[i].path);
	free(f.dirs);
	HASH_ITER(hh, f.seen, e, tmp) {
		HASH_DEL(f.seen, e);
		free(e);
	}
	if (!L->memo)
		ct_copies_cache_free(f.cache);
}

void ct_copies_release(struct ct_copies *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->c[i].path);
		free(c->c[i].version);
	}
	free(c->c);
	memset(c, 0, sizeof(*c));
}

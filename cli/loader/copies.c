/* Copies of a library elsewhere on the machine; see copies.h. */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copies.h"
#include "util.h"
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

struct finder {
	const struct ct_loader *L;
	const struct ct_lookup *k;
	char stem[256];
	const char *major;        /* the asked major, or NULL */
	struct dir *dirs;
	size_t ndirs;
	struct { dev_t dev; ino_t ino; } *seen;
	size_t nseen;
	struct ct_copies *out;
};

static void add_dir(struct finder *f, const char *path, const char *where)
{
	size_t i;

	for (i = 0; i < f->ndirs; i++)
		if (strcmp(f->dirs[i].path, path) == 0)
			return;
	f->dirs = ct_xrealloc(f->dirs, (f->ndirs + 1) * sizeof(*f->dirs));
	f->dirs[f->ndirs].path = ct_xstrdup(path);
	f->dirs[f->ndirs++].where = where;
}

static void add_glob(struct finder *f, const char *pattern, const char *where)
{
	glob_t g;
	size_t i;

	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++)
		add_dir(f, g.gl_pathv[i], where);
	globfree(&g);
}

/* Has this file (by device and inode) been seen? Marks it seen. */
static bool seen(struct finder *f, const struct stat *st)
{
	size_t i;

	for (i = 0; i < f->nseen; i++)
		if (f->seen[i].dev == st->st_dev && f->seen[i].ino == st->st_ino)
			return true;
	f->seen = ct_xrealloc(f->seen, (f->nseen + 1) * sizeof(*f->seen));
	f->seen[f->nseen].dev = st->st_dev;
	f->seen[f->nseen++].ino = st->st_ino;
	return false;
}

static void mark_seen(struct finder *f, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		(void)seen(f, &st);
}

/* An ELF shared object the loader could use (its class and machine)? */
static bool loadable(const struct ct_loader *L, const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
	char real[PATH_MAX];
	const char *base;
	struct ct_copy *c;
	struct stat st;
	size_t sl = strlen(f->stem);

	if (f->out->n >= MAX_COPIES || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    seen(f, &st) || !loadable(f->L, path))
		return;
	f->out->c = ct_xrealloc(f->out->c, (f->out->n + 1) * sizeof(*c));
	c = &f->out->c[f->out->n++];
	c->path = ct_xstrdup(path);
	c->where = where;
	c->same_name = same;
	base = realpath(path, real) ? strrchr(real, '/') + 1 : "";
	c->version = ct_xstrdup(strncmp(base, f->stem, sl) == 0 && base[sl] == '.'
					? base + sl + 1
					: "");
}

/* The name asked, and one file per other major, in directory d. */
static void scan_dir(struct finder *f, const struct dir *d)
{
	DIR *dir = opendir(d->path);
	struct dirent *e;
	size_t sl = strlen(f->stem), amaj = f->major ? major_len(f->major) : 0;
	char *best[64] = { 0 };  /* per major number % 64, the shortest name */
	char path[PATH_MAX];
	bool have_name = false;
	size_t i;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		size_t ml;
		unsigned slot;

		if (strcmp(e->d_name, f->k->name) == 0) {
			have_name = true;
			continue;
		}
		if (!f->stem[0] || strncmp(e->d_name, f->stem, sl) != 0 || e->d_name[sl] != '.' ||
		    !(ml = major_len(e->d_name + sl + 1)))
			continue;
		/* The same major under a longer name is the same library. */
		if (amaj && ml == amaj && strncmp(e->d_name + sl + 1, f->major, ml) == 0)
			continue;
		slot = (unsigned)strtoul(e->d_name + sl + 1, NULL, 10) % 64;
		if (!best[slot] || strlen(e->d_name) < strlen(best[slot])) {
			free(best[slot]);
			best[slot] = ct_xstrdup(e->d_name);
		}
	}
	closedir(dir);
	if (have_name) {
		snprintf(path, sizeof(path), "%s/%s", d->path, f->k->name);
		add_copy(f, path, d->where, true);
	}
	for (i = 64; i-- > 0;) {
		if (!best[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->path, best[i]);
		add_copy(f, path, d->where, false);
		free(best[i]);
	}
}

/* site-packages directories of one Python prefix: wheels' lib folders. */
static void add_python_prefix(struct finder *f, const char *prefix, const char *where)
{
	static const char *const sites[] = {
		"lib/python3*/site-packages", "lib/python3*/dist-packages",
		"lib/python3/dist-packages", "local/lib/python3*/dist-packages",
	};
	static const char *const libs[] = { "nvidia/*/lib", "nvidia/*/lib64", "torch/lib" };
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

static void add_python(struct finder *f)
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

static void add_conda_prefix(struct finder *f, const char *prefix)
{
	char pattern[PATH_MAX];

	snprintf(pattern, sizeof(pattern), "%s/lib", prefix);
	add_glob(f, pattern, "conda");
	snprintf(pattern, sizeof(pattern), "%s/envs/*/lib", prefix);
	add_glob(f, pattern, "conda");
	add_python_prefix(f, prefix, "pip wheel (conda)");
}

static void add_conda(struct finder *f)
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

void ct_find_copies(const struct ct_loader *L, const struct ct_lookup *k,
		    struct ct_copies *out)
{
	struct finder f;
	size_t i, sl;

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	f.L = L;
	f.k = k;
	f.out = out;
	if (strchr(k->name, '/'))
		return;
	if (!ct_soname_split(k->name, f.stem, sizeof(f.stem), &f.major))
		f.stem[0] = '\0';
	sl = strlen(f.stem);
	/* What was on the path is not a copy elsewhere. */
	if (k->object)
		mark_seen(&f, k->object->path);
	if (k->path)
		mark_seen(&f, k->path);
	for (i = 0; i < k->ncands; i++)
		mark_seen(&f, k->cands[i].path);

	/* The cache's entries for the name and its majors first. */
	for (i = 0; i < L->cache.n; i++) {
		const struct ct_ldcache_entry *e = &L->cache.entries[i];

		if (!ct_ldcache_fits(e, &L->plat))
			continue;
		if (strcmp(e->key, k->name) == 0)
			add_copy(&f, e->path, "ld.so.cache", true);
		else if (sl && strncmp(e->key, f.stem, sl) == 0 && e->key[sl] == '.' &&
			 major_len(e->key + sl + 1))
			add_copy(&f, e->path, "ld.so.cache", false);
	}
	/* The directories searched, for other majors of the name. */
	for (i = 0; i < k->ncands; i++) {
		char *dir = ct_xstrdup(k->cands[i].path), *slash = strrchr(dir, '/');

		if (slash) {
			*slash = '\0';
			add_dir(&f, *dir ? dir : "/", "searched directory");
		}
		free(dir);
	}
	/* Every directory the cache knows, then where CUDA usually lives. */
	for (i = 0; i < L->cache.n; i++) {
		char *dir = ct_xstrdup(L->cache.entries[i].path), *slash = strrchr(dir, '/');

		if (slash && ct_ldcache_fits(&L->cache.entries[i], &L->plat)) {
			*slash = '\0';
			add_dir(&f, *dir ? dir : "/", "ld.so.cache directory");
		}
		free(dir);
	}
	for (i = 0; i < L->plat.nsystem_dirs; i++)
		add_dir(&f, L->plat.system_dirs[i], "default directory");
	add_python(&f);
	add_conda(&f);
	add_glob(&f, "/usr/local/cuda*/lib64", "CUDA toolkit");
	add_glob(&f, "/usr/local/cuda*/targets/*/lib", "CUDA toolkit");
	add_glob(&f, "/opt/cuda*/lib64", "CUDA toolkit");

	for (i = 0; i < f.ndirs; i++)
		scan_dir(&f, &f.dirs[i]);

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
	for (i = 0; i < f.ndirs; i++)
		free(f.dirs[i].path);
	free(f.dirs);
	free(f.seen);
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

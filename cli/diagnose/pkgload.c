/* What import loads of a Python package, in the loader model; see pkgload.h. */
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfinfo.h"
#include "libnames.h"
#include "pkgload.h"
#include "util.h"

bool ct_pkg_start(struct ct_loader *L, const struct ct_loader *like, const char *exe)
{
	int err;

	ct_loader_init_like(L, like, NULL);
	if (!ct_loader_start(L, exe, &err) || L->main->info.interp == NULL) {
		ct_loader_release(L);
		ct_loader_init_like(L, like, NULL);
		ct_loader_start(L, NULL, &err);
		return false;
	}
	ct_loader_load_all(L);
	L->fatal = NULL;
	return true;
}

struct ct_lookup *ct_pkg_dlopen(struct ct_loader *L, const char *name)
{
	size_t start = L->nobjs, i, j;
	struct ct_lookup *k;

	L->fatal = NULL;
	k = ct_loader_lookup(L, L->main, name);
	if (!k->object || !k->new_object)
		return k;
	for (i = start; i < L->nobjs && !L->fatal; i++)
		for (j = 0; j < L->objs[i]->info.nneeded && !L->fatal; j++)
			ct_loader_lookup(L, L->objs[i], L->objs[i]->info.needed[j]);
	return k;
}

const struct ct_lookup *ct_pkg_failed(const struct ct_loader *L, size_t k0, bool driver,
				      const bool *quiet, size_t nquiet)
{
	size_t i;

	for (i = k0; i < L->nlookups; i++)
		if (L->lookups[i]->found_via == CT_RULE_NOT_FOUND && !L->lookups[i]->preload &&
		    !(quiet && i < nquiet && quiet[i]) &&
		    (driver || strcmp(L->lookups[i]->name, "libcuda.so.1") != 0))
			return L->lookups[i];
	return NULL;
}

/* ---- import torch --------------------------------------------------------------- */

/* The torch package folder of the interpreter: the first on sys.path. */
static bool torch_dir(const struct ct_python *py, char *buf, size_t size)
{
	struct stat st;
	size_t s;

	for (s = 0; s < py->nsites; s++) {
		snprintf(buf, size, "%s/torch/__init__.py", py->sites[s]);
		if (stat(buf, &st) == 0) {
			snprintf(buf, size, "%s/torch", py->sites[s]);
			return true;
		}
	}
	buf[0] = '\0';
	return false;
}

/* Has a libcudart been mapped? (torch reads /proc/self/maps for "libcudart.so".) */
static bool cudart_mapped(const struct ct_loader *L)
{
	size_t i;

	for (i = 0; i < L->nobjs; i++)
		if (strstr(ct_path_base(L->objs[i]->path), "libcudart.so"))
			return true;
	return false;
}

/* The first match of pattern, sorted, into out; false when none. */
static bool glob_first(const char *pattern, char *out, size_t size)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	snprintf(out, size, "%s", g.gl_pathv[0]);
	globfree(&g);
	return true;
}

/*
 * _preload_cuda_deps: for each library of the list, the first site folder
 * of sys.path with a copy (_get_cuda_dep_paths: nvidia/<folder>/lib, then
 * nvidia/cu<major>/lib, then <folder>/lib), its first copy dlopened by
 * path. A load that fails raises, and nothing after it is preloaded.
 */
static void torch_preload(struct ct_loader *L, const struct ct_python *py,
			  const struct ct_pkg_torch *t)
{
	char pattern[PATH_MAX + 256], path[PATH_MAX + 256];
	size_t i, s;

	for (i = 0; i < t->init.n; i++) {
		const struct ct_torch_preload *p = &t->init.list[i];
		bool found = false;

		for (s = 0; s < py->nsites && !found; s++) {
			snprintf(pattern, sizeof(pattern), "%s/nvidia/%s/lib/%s", py->sites[s], p->folder,
				 p->pattern);
			found = glob_first(pattern, path, sizeof(path));
			if (!found && t->init.cuda_folder && t->cuda_major > 0) {
				snprintf(pattern, sizeof(pattern), "%s/nvidia/cu%d/lib/%s", py->sites[s],
					 t->cuda_major, p->pattern);
				found = glob_first(pattern, path, sizeof(path));
			}
			if (!found && t->init.plain_folder) {
				snprintf(pattern, sizeof(pattern), "%s/%s/lib/%s", py->sites[s], p->folder,
					 p->pattern);
				found = glob_first(pattern, path, sizeof(path));
			}
		}
		if (found) {
			size_t k0 = L->nlookups;

			ct_pkg_dlopen(L, path);
			if (ct_pkg_failed(L, k0, true, NULL, 0))
				return;
		}
	}
}

void ct_pkg_import_torch(struct ct_loader *L, const struct ct_loader *like,
			 const struct ct_python *py, const struct ct_pkg_torch *t, char *c_module,
			 size_t size)
{
	char gd[PATH_MAX + 64], pattern[PATH_MAX + 64];
	const struct ct_lookup *miss;
	struct stat st;
	size_t k0 = L->nlookups;

	c_module[0] = '\0';
	if (!t->dir[0])
		return;
	snprintf(gd, sizeof(gd), "%s/lib/libtorch_global_deps.so", t->dir);
	if (stat(gd, &st) == 0) {
		ct_pkg_dlopen(L, gd);
		miss = ct_pkg_failed(L, k0, true, NULL, 0);
		if (miss && ct_torch_init_preloads(&t->init, miss->name)) {
			/* The wheels' copies first, then libtorch_global_deps.so again. */
			ct_loader_release(L);
			ct_pkg_start(L, like, py->real);
			torch_preload(L, py, t);
			ct_pkg_dlopen(L, gd);
		} else if (!miss && t->init.always && cudart_mapped(L)) {
			torch_preload(L, py, t);
		}
	}
	snprintf(pattern, sizeof(pattern), "%s/_C*.so", t->dir);
	if (glob_first(pattern, c_module, size))
		ct_pkg_dlopen(L, c_module);
}

void ct_pkg_torch_read(struct ct_pkg_torch *t, const struct ct_python *py)
{
	char lib[PATH_MAX + 32];

	memset(t, 0, sizeof(*t));
	if (!torch_dir(py, t->dir, sizeof(t->dir)))
		return;
	ct_torch_init_read(t->dir, &t->init);
	/* Any library name of torch/lib finds version.py one folder up. */
	snprintf(lib, sizeof(lib), "%s/lib/libc10.so", t->dir);
	if (!ct_framework_of(lib, &t->fw))
		memset(&t->fw, 0, sizeof(t->fw));
	if (isdigit((unsigned char)t->fw.cuda[0])) {
		const char *dot = strchr(t->fw.cuda, '.');

		t->cuda_major = atoi(t->fw.cuda);
		t->cuda_minor = dot ? atoi(dot + 1) : 0;
	}
}

void ct_pkg_torch_release(struct ct_pkg_torch *t)
{
	ct_torch_init_release(&t->init);
	memset(t, 0, sizeof(*t));
}

/* ---- the order, the loads on demand, what one load maps together ---------------- */

void ct_pkg_dependency_order(char *const *paths, size_t n, size_t *order)
{
	char **sonames = ct_xcalloc(n + 1, sizeof(*sonames));
	char ***needs = ct_xcalloc(n + 1, sizeof(*needs));
	size_t *nneeds = ct_xcalloc(n + 1, sizeof(*nneeds));
	bool *done = ct_xcalloc(n + 1, sizeof(*done));
	size_t i, j, k, placed = 0;

	for (i = 0; i < n; i++) {
		struct ct_elfinfo e;

		ct_elfinfo_init(&e);
		sonames[i] = ct_xstrdup(ct_path_base(paths[i]));
		if (ct_elfinfo_read(&e, paths[i]) == 0) {
			if (e.soname) {
				free(sonames[i]);
				sonames[i] = ct_xstrdup(e.soname);
			}
			needs[i] = ct_xcalloc(e.nneeded + 1, sizeof(*needs[i]));
			for (k = 0; k < e.nneeded; k++)
				needs[i][nneeds[i]++] = ct_xstrdup(e.needed[k]);
		}
		ct_elfinfo_release(&e);
	}
	while (placed < n) {
		size_t before = placed;

		for (i = 0; i < n; i++) {
			bool ready = !done[i];

			/* Ready when every sibling it needs is placed. */
			for (k = 0; ready && k < nneeds[i]; k++)
				for (j = 0; ready && j < n; j++)
					ready = j == i || done[j] || strcmp(sonames[j], needs[i][k]) != 0;
			if (ready) {
				done[i] = true;
				order[placed++] = i;
			}
		}
		/* A circle: the rest in their order. */
		for (i = 0; placed == before && i < n; i++)
			if (!done[i]) {
				done[i] = true;
				order[placed++] = i;
			}
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < nneeds[i]; k++)
			free(needs[i][k]);
		free(needs[i]);
		free(sonames[i]);
	}
	free(sonames);
	free(needs);
	free(nneeds);
	free(done);
}

/* Does an object of the load need name (DT_NEEDED)? */
static bool needed_by_any(const struct ct_loader *L, const char *name)
{
	size_t i, k;

	for (i = 0; i < L->nobjs; i++)
		for (k = 0; k < L->objs[i]->info.nneeded; k++)
			if (strcmp(L->objs[i]->info.needed[k], name) == 0)
				return true;
	return false;
}

/* A library nothing needs, lacking only libraries CUDA does not ship; see pkgload.h. */
bool ct_pkg_on_demand(const struct ct_loader *L, const char *path, size_t k0, size_t k1,
		      char *words, size_t size)
{
	const char *base = ct_path_base(path), *so;
	size_t i, len = 0;

	if (strncmp(base, "lib", 3) != 0 || strstr(base, ".cpython-") || strstr(base, ".abi3."))
		return false;
	for (i = 0; i < L->nobjs; i++)
		if (strcmp(L->objs[i]->path, path) == 0)
			break;
	so = i < L->nobjs && L->objs[i]->info.soname ? L->objs[i]->info.soname : base;
	if (needed_by_any(L, so))
		return false;
	if (size)
		words[0] = '\0';
	for (i = k0; i < k1; i++) {
		const struct ct_lookup *k = L->lookups[i];

		if (k->found_via != CT_RULE_NOT_FOUND || k->preload)
			continue;
		if (ct_cuda_library(k->name) || strncmp(k->name, "libcuda.so", 10) == 0)
			return false;
		if (len < size && !strstr(words, k->name))
			len += (size_t)snprintf(words + len, size - len, "%s%s",
						len ? ", " : "", k->name);
	}
	if (!len)
		return false;
	return true;
}

/* The objects o's dependency tree holds (o too), marked in in[] by their index in L. */
static void mark_tree(const struct ct_loader *L, size_t o, bool *in)
{
	size_t *queue = ct_xcalloc(L->nobjs + 1, sizeof(*queue)), head = 0, tail = 0, i, k;

	in[o] = true;
	queue[tail++] = o;
	while (head < tail) {
		const struct ct_lobj *x = L->objs[queue[head++]], *d;

		for (i = 0; i < x->info.nneeded; i++) {
			if (!(d = ct_pkg_object_named(L, x->info.needed[i])))
				continue;
			for (k = 0; k < L->nobjs && L->objs[k] != d; k++)
				;
			if (k < L->nobjs && !in[k]) {
				in[k] = true;
				queue[tail++] = k;
			}
		}
	}
	free(queue);
}

void ct_pkg_together_init(struct ct_pkg_together *t, const struct ct_loader *L, size_t nbase,
			  const size_t *roots, size_t nroots)
{
	size_t r;

	t->nbase = nbase;
	t->nroots = nroots;
	t->nobjs = L->nobjs;
	t->trees = ct_xcalloc(nroots * L->nobjs + 1, sizeof(*t->trees));
	for (r = 0; r < nroots; r++)
		if (roots[r] < L->nobjs)
			mark_tree(L, roots[r], t->trees + r * L->nobjs);
}

bool ct_pkg_together(const struct ct_pkg_together *t, size_t a, size_t b)
{
	size_t r;

	if (a < t->nbase && b < t->nbase)
		return true;
	for (r = 0; r < t->nroots; r++) {
		const bool *in = t->trees + r * t->nobjs;

		if ((a < t->nbase || in[a]) && (b < t->nbase || in[b]))
			return true;
	}
	return false;
}

void ct_pkg_together_release(struct ct_pkg_together *t)
{
	free(t->trees);
	memset(t, 0, sizeof(*t));
}

const struct ct_lobj *ct_pkg_object_named(const struct ct_loader *L, const char *name)
{
	size_t k, n;

	for (k = 0; k < L->nobjs; k++)
		for (n = 0; n < L->objs[k]->nnames; n++)
			if (strcmp(L->objs[k]->names[n], name) == 0)
				return L->objs[k];
	return NULL;
}

/* ---- one build per CUDA release ------------------------------------------------- */

/*
 * "libbitsandbytes_cuda124.so": the stem ("libbitsandbytes_cuda", into
 * stem) and the release (124, CUDA 12.4); 0 when the name is not one.
 */
static int build_release(const char *path, char *stem, size_t size)
{
	const char *b = ct_path_base(path), *c = strstr(b, "_cuda"), *d;
	size_t n;

	if (!c || strncmp(b, "lib", 3) != 0)
		return 0;
	d = c + 5;
	n = strspn(d, "0123456789");
	if ((n != 3 && n != 4) || strcmp(d + n, ".so") != 0 || (size_t)(d - b) >= size)
		return 0;
	snprintf(stem, size, "%.*s", (int)(d - b), b);
	return atoi(d);
}

/* 124 -> 12.4, 1210 -> 12.10, as a number to compare: major * 100 + minor. */
static int release_key(int r)
{
	return r >= 1000 ? (r / 100) * 100 + r % 100 : (r / 10) * 100 + r % 10;
}

size_t ct_pkg_builds_pick(const char *pkg, char *const *paths, size_t n,
			  const struct ct_pkg_torch *t, bool *is_build, struct ct_pkg_builds *b)
{
	char stem[128] = "", s[128], norm[128];
	const char *var;
	int want, key, lower_key = -1, higher_key = -1;
	long exact = -1, lower = -1, higher = -1;
	size_t i, len = 0;

	memset(b, 0, sizeof(*b));
	b->pick = -1;
	for (i = 0; i < n; i++) {
		is_build[i] = false;
		if (!build_release(paths[i], s, sizeof(s)) || (stem[0] && strcmp(s, stem) != 0))
			continue;
		snprintf(stem, sizeof(stem), "%s", s);
		is_build[i] = true;
		b->n++;
	}
	if (!b->n)
		return 0;
	for (i = 0; i < n; i++)
		if (is_build[i] && len < sizeof(b->shipped))
			len += (size_t)snprintf(b->shipped + len, sizeof(b->shipped) - len, "%s%d",
						len ? ", " : "", build_release(paths[i], s, sizeof(s)));
	ct_python_normal_name(pkg, norm, sizeof(norm));
	/* bitsandbytes' own variable names a build outright, with no fallback. */
	if (strcmp(norm, "bitsandbytes") == 0 && (var = getenv("BNB_CUDA_VERSION"))) {
		snprintf(b->variable, sizeof(b->variable), "BNB_CUDA_VERSION");
		snprintf(b->wanted, sizeof(b->wanted), "%s%s.so", stem, var);
		snprintf(b->why, sizeof(b->why), "BNB_CUDA_VERSION=%s", var);
		b->forced = true;
		for (i = 0; i < n; i++)
			if (is_build[i] && strcmp(ct_path_base(paths[i]), b->wanted) == 0)
				b->pick = (long)i;
		return b->n;
	}
	if (t->cuda_major <= 0) {
		snprintf(b->why, sizeof(b->why), "torch has no CUDA build: its CPU library instead");
		return b->n;
	}
	want = t->cuda_major * 100 + t->cuda_minor;
	snprintf(b->why, sizeof(b->why), "for torch's CUDA %d.%d", t->cuda_major, t->cuda_minor);
	snprintf(b->wanted, sizeof(b->wanted), "%s%d%d.so", stem, t->cuda_major, t->cuda_minor);
	/* Exact; else the newest older of the major; else the oldest newer of it. */
	for (i = 0; i < n; i++) {
		if (!is_build[i])
			continue;
		key = release_key(build_release(paths[i], s, sizeof(s)));
		if (key == want)
			exact = (long)i;
		else if (key / 100 == t->cuda_major && key < want && key > lower_key)
			lower_key = key, lower = (long)i;
		else if (key / 100 == t->cuda_major && key > want && (higher_key < 0 || key < higher_key))
			higher_key = key, higher = (long)i;
	}
	b->pick = exact >= 0 ? exact : lower >= 0 ? lower : higher;
	if (b->pick >= 0)
		snprintf(b->wanted, sizeof(b->wanted), "%s", ct_path_base(paths[b->pick]));
	return b->n;
}

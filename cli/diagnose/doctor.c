/* The facts doctor reports about this machine; see doctor.h. */
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "util.h"
#include "compat.h"
#include "doctor.h"
#include "driver_rule.h"
#include "elfinfo.h"
#include "describe.h"
#include "libfacts.h"
#include "libnames.h"
#include "trace.h"

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static bool on_ld_path(const struct ct_doctor *d, const char *dir)
{
	size_t i;

	for (i = 0; i < d->nld; i++)
		if (strcmp(d->ld[i].dir, dir) == 0 ||
		    (d->ld[i].dir[0] && same_file(d->ld[i].dir, dir)))
			return true;
	return false;
}

/* ---- the driver ------------------------------------------------------------ */

static void read_module(struct ct_doctor_driver *drv)
{
	char path[PATH_MAX], line[512], *tok, *save = NULL;
	struct dirent *e;
	FILE *f;
	DIR *dir;

	drv->proc = getenv("CUDATRACE_NVIDIA_PROC");
	if (!drv->proc || !*drv->proc)
		drv->proc = "/proc/driver/nvidia";
	drv->module_gpus = -1;
	snprintf(path, sizeof(path), "%s/version", drv->proc);
	/* procfs files have no size: read a line, not the file. */
	if (!(f = ct_fopen_file(path)))
		return;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		drv->module_line = ct_xstrdup(line);
		/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue ..." */
		for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			if (strspn(tok, "0123456789.") == strlen(tok) && strchr(tok, '.') &&
			    tok[0] != '.') {
				snprintf(drv->module_version, sizeof(drv->module_version), "%s",
					 tok);
				break;
			}
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/gpus", drv->proc);
	if (!(dir = opendir(path)))
		return;
	drv->module_gpus = 0;
	while ((e = readdir(dir)))
		drv->module_gpus += e->d_name[0] != '.';
	closedir(dir);
}

/* Forward-compatibility copies: the cuda-compat package's folders. */
static void find_compat(struct ct_doctor *d)
{
	static const char *const patterns[] = {
		"/usr/local/cuda*/compat/libcuda.so.1", "/usr/local/cuda*/compat/lib*/libcuda.so.1",
		"/opt/cuda*/compat/libcuda.so.1",
	};
	struct ct_doctor_driver *drv = &d->drv;
	char dir[PATH_MAX];
	size_t i, k, m;
	glob_t g;

	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		if (glob(patterns[i], 0, NULL, &g) != 0)
			continue;
		for (k = 0; k < g.gl_pathc; k++) {
			struct ct_doctor_compat *c;

			for (m = 0; m < drv->ncompat; m++)
				if (same_file(drv->compat_libs[m].path, g.gl_pathv[k]))
					break;
			if (m < drv->ncompat)
				continue;
			drv->compat_libs = ct_xrealloc(drv->compat_libs,
						       (drv->ncompat + 1) * sizeof(*c));
			c = &drv->compat_libs[drv->ncompat++];
			memset(c, 0, sizeof(*c));
			c->path = ct_xstrdup(g.gl_pathv[k]);
			ct_driver_version(c->path, "libcuda.so.1", c->version, sizeof(c->version));
			c->on_ld_library_path = on_ld_path(d, ct_path_dir(c->path, dir, sizeof(dir)));
			c->taken = same_file(c->path, drv->path);
		}
		globfree(&g);
	}
}

static void examine_driver(struct ct_doctor *d)
{
	struct ct_doctor_driver *drv = &d->drv;
	char real[PATH_MAX];

	drv->search = ct_loader_search(&d->L, d->L.main, "libcuda.so.1", false);
	drv->path = drv->search->path;
	if (drv->path) {
		ct_driver_version(drv->path, "libcuda.so.1", drv->version, sizeof(drv->version));
		/* NVIDIA's cuda-compat packages install into .../compat. */
		drv->compat = strstr(drv->path, "/compat/") ||
			      (realpath(drv->path, real) && strstr(real, "/compat/"));
	} else {
		ct_find_copies(&d->L, drv->search, &drv->copies);
	}
	ct_driver_probe(&drv->probe);
	read_module(drv);
	drv->visible_devices = getenv("CUDA_VISIBLE_DEVICES");
	find_compat(d);
}

/* ---- LD_LIBRARY_PATH -------------------------------------------------------- */

static void add_string(char ***v, size_t *n, const char *s)
{
	*v = ct_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = ct_xstrdup(s);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The CUDA libraries a folder answers for: files named by their own soname. */
static void entry_libs(struct ct_doctor_ldentry *en)
{
	DIR *dir = opendir(en->dir[0] ? en->dir : ".");
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;

	en->exists = dir != NULL;
	while (dir && (e = readdir(dir))) {
		struct ct_elfinfo info;

		if (!ct_cuda_library(e->d_name) || !strstr(e->d_name, ".so."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", en->dir[0] ? en->dir : ".", e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		ct_elfinfo_init(&info);
		if (ct_elfinfo_read(&info, path) == 0 && info.soname &&
		    strcmp(info.soname, e->d_name) == 0)
			add_string(&en->libs, &en->nlibs, e->d_name);
		ct_elfinfo_release(&info);
	}
	if (dir)
		closedir(dir);
	if (en->nlibs > 1) /* an empty folder leaves libs NULL: not for qsort */
		qsort(en->libs, en->nlibs, sizeof(*en->libs), by_name);
}

static void add_shadow(struct ct_doctor_ldentry *en, const char *soname, const char *path,
		       const char *other, const char *where)
{
	struct ct_doctor_shadow *s;
	size_t i;

	for (i = 0; i < en->nshadows; i++)
		if (same_file(en->shadows[i].other, other))
			return;
	en->shadows = ct_xrealloc(en->shadows, (en->nshadows + 1) * sizeof(*s));
	s = &en->shadows[en->nshadows++];
	memset(s, 0, sizeof(*s));
	s->soname = ct_xstrdup(soname);
	s->path = ct_xstrdup(path);
	s->other = ct_xstrdup(other);
	s->other_where = where;
	ct_library_file_version(path, soname, s->version, sizeof(s->version));
	ct_library_file_version(other, soname, s->other_version, sizeof(s->other_version));
	/* The same release under two paths hides nothing that matters. */
	s->differ = !s->version[0] || strcmp(s->version, s->other_version) != 0;
}

/*
 * What the entry's copy of soname hides: the later candidates of the
 * loader's own order (later entries, ld.so.cache, default folders) and the
 * copies wheels, conda and toolkits reach through their RUNPATH, which
 * LD_LIBRARY_PATH also precedes.
 */
static void entry_shadows(struct ct_doctor *d, struct ct_doctor_ldentry *en, const char *soname)
{
	struct ct_lookup *k = ct_loader_search(&d->L, d->L.main, soname, true);
	char dir[PATH_MAX], rule[64];
	struct ct_copies copies;
	size_t i;

	if (!k->path || k->found_via != CT_RULE_LD_LIBRARY_PATH ||
	    strcmp(ct_path_dir(k->path, dir, sizeof(dir)), en->dir[0] ? en->dir : "") != 0 ||
	    strstr(k->path, "/compat/")) /* forward compatibility: the driver's part */
		goto out;
	for (i = 0; i < k->ncands; i++) {
		const struct ct_cand *c = &k->cands[i];

		if (c->outcome == CT_FOUND && !same_file(c->path, k->path))
			add_shadow(en, soname, k->path, c->path,
				   ct_rule_text(c->via, c->owner, rule, sizeof(rule)));
	}
	ct_find_copies(&d->L, k, &copies);
	for (i = 0; i < copies.n; i++)
		if (copies.c[i].same_name)
			add_shadow(en, soname, k->path, copies.c[i].path, copies.c[i].where);
	ct_copies_release(&copies);
out:
	ct_lookup_free(k);
}

static void examine_ld_path(struct ct_doctor *d)
{
	const char *p = d->L.ld_library_path;
	size_t i, k;

	/* The loader ignores LD_LIBRARY_PATH for set-user-ID programs only. */
	while (p && !d->L.secure) {
		size_t n = strcspn(p, ":;");
		char *dir = ct_xmalloc(n + 1);

		memcpy(dir, p, n);
		dir[n] = '\0';
		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = '\0';
		for (i = 0; i < d->nld && strcmp(d->ld[i].dir, dir) != 0; i++)
			;
		if (i == d->nld) {
			d->ld = ct_xrealloc(d->ld, (d->nld + 1) * sizeof(*d->ld));
			memset(&d->ld[d->nld], 0, sizeof(*d->ld));
			d->ld[d->nld++].dir = dir;
		} else {
			free(dir);
		}
		p = p[n] ? p + n + 1 : NULL;
	}
	for (i = 0; i < d->nld; i++) {
		entry_libs(&d->ld[i]);
		for (k = 0; k < d->ld[i].nlibs; k++)
			entry_shadows(d, &d->ld[i], d->ld[i].libs[k]);
	}
}

/* ---- the runtimes ----------------------------------------------------------- */

static struct ct_doctor_runtime *add_runtime(struct ct_doctor *d, const char *path,
					     const char *where)
{
	struct ct_doctor_runtime *r;
	struct ct_elfinfo info;
	const char *v;
	char dir[PATH_MAX];

	d->rt = ct_xrealloc(d->rt, (d->nrt + 1) * sizeof(*r));
	r = &d->rt[d->nrt++];
	memset(r, 0, sizeof(*r));
	r->path = ct_xstrdup(path);
	r->where = on_ld_path(d, ct_path_dir(path, dir, sizeof(dir))) ? "LD_LIBRARY_PATH"
		   : strncmp(path, "/usr/local/cuda", 15) == 0 || strncmp(path, "/opt/cuda", 9) == 0
			   ? "CUDA toolkit"
			   : where;
	/* What programs ask for is the soname the file declares. */
	ct_elfinfo_init(&info);
	snprintf(r->soname, sizeof(r->soname), "%s",
		 ct_elfinfo_read(&info, path) == 0 && info.soname ? info.soname : ct_path_base(path));
	ct_elfinfo_release(&info);
	r->major = ct_runtime_major(r->soname);
	r->version_from = ct_library_file_version(path, r->soname, r->version, sizeof(r->version));
	r->cuda = -1;
	if (r->version_from && atoi(r->version) == r->major && (v = strchr(r->version, '.')))
		r->cuda = r->major * 1000 + atoi(v + 1) * 10;
	else if (!r->version_from)
		snprintf(r->version, sizeof(r->version), "%d", r->major);
	return r;
}

static void judge_runtime(const struct ct_doctor *d, struct ct_doctor_runtime *r)
{
	int drv = d->drv.probe.version;

	if (drv <= 0 || r->major <= 0)
		r->verdict = CT_RT_UNKNOWN;
	else if (ct_driver_too_old(r->major > INT_MAX / 1000 ? INT_MAX : r->major * 1000, drv))
		r->verdict = CT_RT_TOO_NEW;
	else if (r->major == drv / 1000 && r->cuda > drv)
		r->verdict = CT_RT_MINOR_COMPAT;
	else
		r->verdict = CT_RT_OK;
}

static void examine_runtimes(struct ct_doctor *d)
{
	/*
	 * Every libcudart.so.N is "another major" of a name no runtime has
	 * (CUDA never shipped a libcudart.so.0), so one search finds them all,
	 * wherever copies look: LD_LIBRARY_PATH, the cache and its folders, the
	 * default folders, pip wheels, conda and toolkits.
	 */
	struct ct_lookup *k = ct_loader_search(&d->L, d->L.main, "libcudart.so.0", true);
	struct ct_copies copies;
	size_t i, j, n;

	ct_find_copies(&d->L, k, &copies);
	ct_lookup_free(k);
	for (i = 0; i < copies.n; i++)
		add_runtime(d, copies.c[i].path, copies.c[i].where);
	ct_copies_release(&copies);
	/* Which copy the loader takes for each soname (a program without RUNPATH). */
	n = d->nrt;
	for (i = 0; i < n; i++) {
		bool known = false;

		for (j = 0; j < i; j++)
			known |= strcmp(d->rt[j].soname, d->rt[i].soname) == 0;
		if (known)
			continue;
		k = ct_loader_search(&d->L, d->L.main, d->rt[i].soname, false);
		for (j = 0; k->path && j < d->nrt; j++)
			if (same_file(d->rt[j].path, k->path))
				break;
		if (k->path && j == d->nrt)
			add_runtime(d, k->path, ct_rule_words(k->found_via));
		if (k->path) {
			d->rt[j].taken = true;
			d->rt[j].found_via = k->found_via; /* a static string */
		}
		ct_lookup_free(k);
	}
	for (i = 0; i < d->nrt; i++)
		judge_runtime(d, &d->rt[i]);
}

const char *ct_runtime_verdict_id(enum ct_runtime_verdict v)
{
	static const char *const ids[] = { "unknown", "ok", "minor-version-compatibility",
					   "driver-too-old" };

	return ids[v];
}

int ct_doctor_examine(struct ct_doctor *d, const char **why)
{
	int rc;

	memset(d, 0, sizeof(*d));
	ct_system_read(&d->sys);
	if ((rc = ct_loader_open(&d->L, NULL, NULL, why)) < 0)
		return rc;
	d->loader_ok = true;
	examine_ld_path(d);
	examine_driver(d);
	examine_runtimes(d);
	return 0;
}

void ct_doctor_release(struct ct_doctor *d)
{
	size_t i, k;

	for (i = 0; i < d->drv.ncompat; i++)
		free(d->drv.compat_libs[i].path);
	free(d->drv.compat_libs);
	free(d->drv.module_line);
	ct_copies_release(&d->drv.copies);
	if (d->drv.search)
		ct_lookup_free(d->drv.search);
	for (i = 0; i < d->nrt; i++)
		free(d->rt[i].path);
	free(d->rt);
	for (i = 0; i < d->nld; i++) {
		struct ct_doctor_ldentry *en = &d->ld[i];

		for (k = 0; k < en->nlibs; k++)
			free(en->libs[k]);
		free(en->libs);
		for (k = 0; k < en->nshadows; k++) {
			free(en->shadows[k].soname);
			free(en->shadows[k].path);
			free(en->shadows[k].other);
		}
		free(en->shadows);
		free(en->dir);
	}
	free(d->ld);
	if (d->loader_ok)
		ct_loader_release(&d->L);
	memset(d, 0, sizeof(*d));
}

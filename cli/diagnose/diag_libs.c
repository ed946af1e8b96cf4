/*
 * The findings about libraries (diagnose.h): not found, shadowed by
 * LD_LIBRARY_PATH or a preload, two versions of one family in a process,
 * and symbol versions a dependency lacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "copies.h"
#include "util.h"
#include "diag_internal.h"
#include "elfinfo.h"
#include "describe.h"
#include "libfacts.h"
#include "libnames.h"
#include "symvers.h"
#include "resolve.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* ---- libraries not found --------------------------------------------------------- */

/* Did the process load the family of name (another copy or major)? */
static const struct ct_loaded *loaded_instead(const struct ctx *c, const char *name)
{
	char a[128], b[128];
	size_t i;

	ct_dx_stem(name, a, sizeof(a));
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (!o->shim && strcmp(ct_dx_stem(o->soname ? o->soname : o->path, b, sizeof(b)), a) == 0)
			return o;
	}
	return NULL;
}

/* Is o name's library in name's major (libx.so.9 for libx.so.9.19.0)? */
static bool same_major(const char *name, const struct ct_loaded *o)
{
	const char *other = o->soname ? o->soname : ct_dx_base(o->path);
	const char *a = strstr(ct_dx_base(name), ".so."), *b = strstr(other, ".so.");

	return a && b && atoi(a + 4) == atoi(b + 4);
}

/*
 * The CUDA major of a requester's build, for a library that several
 * majors ship (libcurand.so.10): the runtime it needs, else the one major
 * of its other CUDA libraries, else the runtime the process loaded; 0
 * when none says.
 */
static int context_cuda(const struct ctx *c, const char *requester)
{
	const struct ct_elfinfo *e = requester ? ct_dx_elfinfo(c, requester) : NULL;
	size_t i;
	int m;

	for (i = 0; e && i < e->nneeded; i++)
		if ((m = ct_runtime_major(e->needed[i])) > 0)
			return m;
	for (i = 0; e && i < e->nneeded; i++)
		if ((m = ct_cuda_mask_major(ct_soname_cuda(e->needed[i], NULL))) > 0)
			return m;
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (!o->shim && (m = ct_runtime_major(o->soname ? o->soname : o->path)) > 0)
			return m;
	}
	return 0;
}

/*
 * Where name comes from, in words (sonames.def): "pip install
 * nvidia-cublas-cu12, or the CUDA 12 toolkit or your distribution's
 * package of libcublas.so.12" for an object a Python package ships
 * (python), the toolkit or distribution alone for others (a pip wheel
 * helps no Node or C program); "" when the table does not know it.
 */
static const char *install_words(const char *name, int cuda, bool python, char *buf, size_t size)
{
	const char *release;
	unsigned mask = ct_soname_cuda(name, &release);
	char pkg[256], cw[48];

	buf[0] = '\0';
	if (!mask)
		return buf;
	if (cuda >= 11 && cuda <= 13 && (mask & (CT_CU11 << (cuda - 11))))
		mask = CT_CU11 << (cuda - 11);
	ct_cuda_mask_words(mask, cw, sizeof(cw));
	ct_pip_words(name, cuda, pkg, sizeof(pkg));
	if (python && pkg[0] && release)
		snprintf(buf, size, "pip install %s, or %s for %s from NVIDIA or your "
				    "distribution",
			 pkg, release, cw);
	else if (python && pkg[0])
		snprintf(buf, size, "pip install %s, or the %s toolkit or your distribution's "
				    "package of %s",
			 pkg, cw, name);
	else if (release)
		snprintf(buf, size, "%s for %s, from NVIDIA or your distribution", release, cw);
	else
		snprintf(buf, size, "the %s toolkit, or your distribution's package of %s", cw,
			 name);
	return buf;
}

/*
 * The fix of a miss, for who asked: one object (its file name) or several
 * ("a, b and c", many set). python: an asker a Python package ships (pip
 * helps); cuda: the CUDA major the askers were built for, or 0.
 */
static void fix_not_found(struct ct_finding *f, const char *name, const char *who, bool many,
			  enum ct_search_kind kind, const struct ct_copies *cs, bool python,
			  int cuda)
{
	const struct ct_copy *same = NULL, *other = NULL;
	char how[512];
	size_t i;

	for (i = 0; i < cs->n; i++) {
		if (cs->c[i].same_name && !same)
			same = &cs->c[i];
		if (!cs->c[i].same_name && !other)
			other = &cs->c[i];
	}
	if (kind == CT_SEARCH_PRELOAD) {
		if (same)
			ct_finding_fix(f, "preload it by its path (LD_PRELOAD=%s), or drop it from "
					  "LD_PRELOAD if the program runs as it should without it",
				       same->path);
		else
			ct_finding_fix(f, "drop %s from LD_PRELOAD if the program runs as it should "
					  "without it; else install it and preload it by its path",
				       name);
		return;
	}
	if (same) {
		char *dir = ct_xstrdup(same->path);

		*strrchr(dir, '/') = '\0';
		/* ldconfig puts what ld.so.conf's folders hold in the cache: it has not run since. */
		if (strcmp(same->where, "ld.so.conf directory") == 0)
			ct_finding_fix(f, "the file is in %s, a folder of /etc/ld.so.conf, but "
					  "ld.so.cache does not list it (ldconfig has not run since it "
					  "was put there): run ldconfig as root",
				       dir);
		else
			ct_finding_fix(f, "the file is in %s: add that directory to LD_LIBRARY_PATH, "
					  "or to the RUNPATH of %s",
				       dir, who);
		free(dir);
		return;
	}
	install_words(name, cuda, python, how, sizeof(how));
	if (other && many)
		ct_finding_fix(f, "%s were built for %s and only %s is here: install %s%s%s%s, or "
				  "use builds of them made for the one present",
			       who, name, ct_dx_base(other->path), name, how[0] ? " (" : "", how,
			       how[0] ? ")" : "");
	else if (other)
		ct_finding_fix(f, "%s was built for %s and only %s is here: install %s%s%s%s, or "
				  "use a build of %s made for the one present",
			       who, name, ct_dx_base(other->path), name, how[0] ? " (" : "", how,
			       how[0] ? ")" : "", who);
	else if (how[0])
		ct_finding_fix(f, "install %s: %s", name, how);
	else
		ct_finding_fix(f, "install the package that ships %s, or put its directory on "
				  "LD_LIBRARY_PATH",
			       name);
}

static void evidence_copies(struct ct_finding *f, const struct ct_copies *cs)
{
	size_t i;

	for (i = 0; i < cs->n && i < 4; i++)
		ct_finding_evidence(f, "elsewhere: %s (%s%s)", cs->c[i].path,
				    cs->c[i].same_name ? "" : "another major, ", cs->c[i].where);
}

/* What the loader does with a file it refuses, and what to do about it. */
static void evidence_refused(struct ctx *c, struct ct_finding *f, const struct ct_search *s,
			     const char *path, const char *why)
{
	const struct ct_request *q = ct_dx_within_dlopen(c, s);
	struct stat st;
	char size[32] = "";

	if (why != ct_noexec_why && !ct_dx_execstack(why) && stat(path, &st) == 0)
		snprintf(size, sizeof(size), " (%lld bytes)", (long long)st.st_size);
	if (why == ct_truncated_why)
		ct_finding_evidence(f, "%s%s is cut short: its segments end past the end of the "
				       "file; the loader maps them and the process dies of a bus "
				       "error (SIGBUS) at the first touch",
				    path, size);
	else if (why == ct_noexec_why && !q)
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: %s\": the file system of %s is mounted noexec, "
				       "and the loader cannot map its code",
				    s->name, why, path);
	else if (why == ct_noexec_why)
		ct_finding_evidence(f, "the file system of %s is mounted noexec: the loader cannot "
				       "map its code (%s)",
				    path, why);
	else if (!q)
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: %s\"",
				    path, why);
	else if (!q->error || size[0])
		ct_finding_evidence(f, "%s%s: %s", path, size, why);
	if (q)
		ct_finding_evidence(f, "the %s of %s by %s fails with it", q->api,
				    q->name ? q->name : "?", ct_dx_base(q->caller));
	if (q && q->error)
		ct_finding_evidence(f, "the program got: %s", q->error);
	/* A path asked for is no search: nothing after it to reach. */
	if (s->ntries)
		ct_finding_evidence(f, "the loader's search stops at that file: it never looks "
				       "further");
}

static void fix_refused(struct ct_finding *f, const char *name, const char *path,
			const char *why)
{
	if (ct_dx_execstack(why))
		ct_finding_fix(f, "%s asks for an executable stack (its PT_GNU_STACK is RWE, or it has "
				  "none), which glibc 2.41 and later refuse to a dlopen: clear the "
				  "flag (patchelf --clear-execstack %s), or use a build linked with -z "
				  "noexecstack; GLIBC_TUNABLES=glibc.rtld.execstack=2 allows it again "
				  "where the C library knows that value (Debian's 2.41 does)",
			       path, path);
	else if (why == ct_noexec_why)
		ct_finding_fix(f, "install %s on a file system mounted without noexec (a /tmp or "
				  "/dev/shm mounted noexec is the usual place: point TMPDIR or the "
				  "install or cache folder elsewhere), or remount that one exec",
			       name);
	else
		ct_finding_fix(f, "%s is not a %s the loader can load (cut short, empty or "
				  "damaged): replace it with a whole copy (reinstall what ships it), "
				  "or remove it so that the search goes on past it",
			       path, name);
}

/*
 * The finding of a search that stopped at a file the loader refused: that
 * file named, the loader's words; NULL when it is no finding (a cuDNN-style
 * probe of a name whose major the process then loaded). *alt: what the
 * process loaded instead, for a dlopen.
 */
static struct ct_finding *refused_finding(struct ctx *c, const struct ct_search *s,
					  enum ct_search_kind kind, const char *requester,
					  const char *refused, const char *why,
					  const struct ct_loaded **alt)
{
	const char *how = s->request		  ? s->request->api
			  : kind == CT_SEARCH_FILTER ? "filter library"
						     : "needed";
	struct ct_finding *f;

	if (kind == CT_SEARCH_DLOPEN || kind == CT_SEARCH_OTHER) {
		*alt = loaded_instead(c, s->name);
		if (*alt && same_major(s->name, *alt))
			return NULL;
	}
	/* A path asked for is the file: named once. */
	if (strcmp(s->name, refused) == 0)
		f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
				   "'%s' cannot be loaded: %s (%s by %s)", s->name,
				   ct_dx_refused_words(why), how, ct_dx_base(requester));
	else
		f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
				   "'%s' at %s cannot be loaded: %s (%s by %s)", s->name, refused,
				   ct_dx_refused_words(why), how, ct_dx_base(requester));
	if (*alt) {
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "it then loaded %s", (*alt)->path);
	}
	evidence_refused(c, f, s, refused, why);
	return f;
}

/* ---- every library a failing load misses ------------------------------------------ */

/*
 * What the loader model misses in the tree of one object, loaded by one
 * program with one LD_LIBRARY_PATH: each name with the path of the object
 * that needs it, in the loader's order. Kept: every rank of a job fails
 * alike.
 */
struct ct_dx_unresolved {
	char *key;                   /* root, NUL, program, NUL, LD_LIBRARY_PATH: keylen bytes */
	size_t keylen;
	char **names, **by;
	size_t n;
	UT_hash_handle hh;
};

void ct_dx_unresolved_free(struct ct_dx_unresolved *all)
{
	struct ct_dx_unresolved *e, *tmp;
	size_t i;

	HASH_ITER(hh, all, e, tmp) {
		HASH_DEL(all, e);
		for (i = 0; i < e->n; i++) {
			free(e->names[i]);
			free(e->by[i]);
		}
		free(e->names);
		free(e->by);
		free(e->key);
		free(e);
	}
}

/*
 * The tree of root as the loader would map it, preloads left out (the
 * process has them already), going on past each miss where the loader
 * stops at the first. A library is mapped by the program exe (its file
 * named, as a dlopen of a path does), so that its DT_RPATH chain ends
 * with the program's as the loader's does; the library alone when exe
 * cannot be read. NULL when root cannot be read.
 */
static struct ct_lobj *root_tree(struct ct_loader *L2, const struct ct_loader *like,
				 const struct ct_loader_env *env, const char *root, const char *exe)
{
	struct ct_lobj *top = NULL;
	size_t i, j, first;
	int err = 0;

	ct_loader_init_like(L2, like, env);
	if (exe && strcmp(exe, root) != 0 && ct_loader_start(L2, exe, &err)) {
		struct ct_lookup *k = ct_loader_lookup(L2, L2->main, root);

		top = k->object;
		if (!top) {
			ct_loader_release(L2);
			ct_loader_init_like(L2, like, env);
		}
	}
	if (!top && !(top = ct_loader_start(L2, root, &err)))
		return NULL;
	for (first = 0; first < L2->nobjs && L2->objs[first] != top; first++)
		;
	/* Breadth-first from root, as _dl_map_object_deps maps a dlopen's tree. */
	for (i = first; i < L2->nobjs && !L2->fatal; i++) {
		struct ct_lobj *o = L2->objs[i];

		for (j = 0; j < o->info.nneeded && !L2->fatal; j++)
			ct_loader_lookup(L2, o, o->info.needed[j]);
	}
	return top;
}

/* What root's tree misses, worked out once for each program, root and LD_LIBRARY_PATH. */
static const struct ct_dx_unresolved *unresolved(struct ctx *c, const char *root,
						 const char *exe, const char *llp)
{
	size_t rlen = strlen(root), elen = exe ? strlen(exe) : 0, llen = strlen(llp), i;
	size_t keylen = rlen + 1 + elen + 1 + llen;
	struct ct_loader_env env = { llp, "" };
	struct ct_dx_unresolved *e;
	struct ct_loader L2;
	char *key = ct_xmalloc(keylen + 1);

	memcpy(key, root, rlen + 1);
	memcpy(key + rlen + 1, exe ? exe : "", elen + 1);
	memcpy(key + rlen + 1 + elen + 1, llp, llen + 1);
	HASH_FIND(hh, c->d->unresolved, key, keylen, e);
	if (e) {
		free(key);
		return e;
	}
	e = ct_xcalloc(1, sizeof(*e));
	e->key = key;
	e->keylen = keylen;
	HASH_ADD_KEYPTR(hh, c->d->unresolved, e->key, e->keylen, e);
	if (root_tree(&L2, c->L, &env, root, exe)) {
		for (i = 0; i < L2.nlookups; i++) {
			const struct ct_lookup *k = L2.lookups[i];

			if (k->found_via != CT_RULE_NOT_FOUND || k->fatal || !k->requester)
				continue;
			e->names = ct_xrealloc(e->names, (e->n + 1) * sizeof(*e->names));
			e->by = ct_xrealloc(e->by, (e->n + 1) * sizeof(*e->by));
			e->names[e->n] = ct_xstrdup(k->name);
			e->by[e->n++] = ct_xstrdup(k->requester->path);
		}
	}
	ct_loader_release(&L2);
	return e;
}

/* Did any search of c's process look for name (found or not)? */
static bool searched(const struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->p->nsearches; i++)
		if (strcmp(c->p->searches[i].name, name) == 0)
			return true;
	return false;
}

static bool driver_library(const char *name)
{
	return ct_dx_is_driver(name) || ct_dx_is_nvml(name);
}

/*
 * The libraries requester's load would also miss: the loader stops at the
 * first it cannot find (s's name), and names that one alone. Into
 * f->missing, s's name first; none when it is the only one. Left out:
 * what the process searched for itself (its own finding, or found: the
 * loader knows better than the model), what it has mapped (the loader
 * takes it), and what objects it has mapped need (they loaded).
 */
static size_t also_missing(struct ctx *c, struct ct_finding *f, const struct ct_search *s,
			   const char *requester)
{
	const char *llp = ct_proc_env(c->p, "LD_LIBRARY_PATH");
	const struct ct_dx_unresolved *u = unresolved(c, requester, c->p->exe, llp ? llp : "");
	size_t i, n = 0;

	for (i = 0; i < u->n; i++) {
		if (strcmp(u->names[i], s->name) == 0 || searched(c, u->names[i]) ||
		    ct_dx_loaded_named(c, u->names[i]))
			continue;
		if (strcmp(u->by[i], requester) != 0 && ct_dx_loaded_named(c, ct_dx_base(u->by[i])))
			continue;
		if (!n++)
			ct_finding_missing(f, s->name, requester);
		ct_finding_missing(f, u->names[i], u->by[i]);
	}
	return n;
}

/* Is f->missing[i] the first of its name, and not the headline's (several askers)? */
static bool also_first(const struct ct_finding *f, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (strcmp(f->missing[k].name, f->missing[i].name) == 0)
			return false;
	return i > 0;
}

/* "'b' is missing too", "'b' and the NVIDIA driver's 'libcuda.so.1' are missing too". */
static void also_words(const struct ct_finding *f, char *buf, size_t size)
{
	size_t i, len = 0, n = 0, k = 0;

	buf[0] = '\0';
	for (i = 1; i < f->nmissing; i++)
		n += also_first(f, i);
	for (i = 1; i < f->nmissing && len < size; i++) {
		if (!also_first(f, i))
			continue;
		k++;
		len += (size_t)snprintf(buf + len, size - len, "%s%s'%s'",
					k == 1 ? "" : k == n ? " and " : ", ",
					driver_library(f->missing[i].name) ? "the NVIDIA driver's "
									   : "",
					f->missing[i].name);
	}
	if (len < size)
		snprintf(buf + len, size - len, " %s missing too", n == 1 ? "is" : "are");
}

/* names[0..n) as "a", "a and b", "a, b and c"; into buf. */
static void names_words(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
}

/*
 * How to install names[0..n) in one go: one pip line when the askers are
 * a Python package's and pip ships each (cuda: their CUDA major, or 0),
 * else one toolkit when one ships them all, else each library's own
 * words (install_words). Into buf.
 */
static void install_all_words(const char *const *names, size_t n, bool python, int cuda,
			      char *buf, size_t size)
{
	char pkgs[512] = "", list[1024], cw[48], one[512], pkg[96];
	unsigned common = 0;
	bool pip = python, toolkit = true;
	size_t i, len = 0, plen = 0;

	for (i = 0; i < n; i++) {
		const char *release;
		unsigned mask = ct_soname_cuda(names[i], &release);
		int major;

		if (cuda >= 11 && cuda <= 13 && (mask & (CT_CU11 << (cuda - 11))))
			mask = CT_CU11 << (cuda - 11);
		major = ct_cuda_mask_major(mask);
		if (!mask || release || (i && mask != common))
			toolkit = false;
		common = mask;
		if (pip && (!major || !ct_pip_package(names[i], major, pkg, sizeof(pkg))))
			pip = false;
		/* cuBLAS and cuBLASLt are one package: named once. */
		if (pip && !strstr(pkgs, pkg) && plen < sizeof(pkgs))
			plen += (size_t)snprintf(pkgs + plen, sizeof(pkgs) - plen, " %s", pkg);
	}
	names_words(names, n, list, sizeof(list));
	if (toolkit)
		ct_cuda_mask_words(common, cw, sizeof(cw));
	if (pip && toolkit)
		snprintf(buf, size, "pip install%s, or the %s toolkit or your distribution's "
				    "package%s of %s",
			 pkgs, cw, n == 1 ? "" : "s", list);
	else if (pip)
		snprintf(buf, size, "pip install%s", pkgs);
	else if (toolkit)
		snprintf(buf, size, "the %s toolkit, or your distribution's package%s of %s", cw,
			 n == 1 ? "" : "s", list);
	else
		for (i = 0, buf[0] = '\0'; i < n && len < size; i++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s: %s", i ? "; " : "",
						names[i],
						install_words(names[i], cuda, python, one,
							      sizeof(one))[0]
							? one
							: "the package that ships it");
}

/*
 * One fix for every library in f->missing: the headline's own fix stands
 * when it found a copy of it (kept: a folder to add), and the rest is
 * installed in one go; the driver's libraries are the driver's.
 */
static void fix_all_missing(struct ct_finding *f, const struct ct_copies *cs, const char *who,
			    bool python, int cuda)
{
	const char **names = ct_xcalloc(f->nmissing + 1, sizeof(*names));
	const char **drv = ct_xcalloc(f->nmissing + 1, sizeof(*drv));
	const struct ct_copy *other = NULL;
	bool headline_copy = false;
	size_t i, j, n = 0, ndrv = 0;
	char how[2048], list[512];

	for (i = 0; i < cs->n; i++) {
		headline_copy |= cs->c[i].same_name;
		if (!cs->c[i].same_name && !other)
			other = &cs->c[i];
	}

	for (i = 0; i < f->nmissing; i++) {
		const char **to = driver_library(f->missing[i].name) ? drv : names;
		size_t *nto = to == drv ? &ndrv : &n;

		/* A copy of the first is here: its fix stands. */
		if (headline_copy && strcmp(f->missing[i].name, f->missing[0].name) == 0)
			continue;

		/* Two objects that need one library: it is installed once. */
		for (j = 0; j < *nto && strcmp(to[j], f->missing[i].name) != 0; j++)
			;
		if (j == *nto)
			to[(*nto)++] = f->missing[i].name;
	}
	if (n) {
		install_all_words(names, n, python, cuda, how, sizeof(how));
		names_words(names, n, list, sizeof(list));
		if (headline_copy)
			ct_finding_fix_line(f, "then install %s too: %s", list, how);
		else
			ct_finding_fix(f, "install %s: %s", n == 1 ? names[0] : "them", how);
		/* Another major of the first is here: a build for it is the other way out. */
		if (!headline_copy && other)
			ct_finding_fix_line(f, "or use a build of %s made for the libraries present "
					       "(%s is here)",
					    who, ct_dx_base(other->path));
	}
	if (ndrv) {
		names_words(drv, ndrv, list, sizeof(list));
		if (n || headline_copy)
			ct_finding_fix_line(f, "%s %s the NVIDIA driver's, which no pip package or "
					       "toolkit installs: install the driver (in a container: start "
					       "it with GPU support, docker run --gpus all with the NVIDIA "
					       "Container Toolkit)",
					    list, ndrv == 1 ? "is" : "are");
		else
			ct_finding_fix(f, "%s %s the NVIDIA driver's: install the driver (in a "
					  "container: start it with GPU support, docker run --gpus all "
					  "with the NVIDIA Container Toolkit)",
				       list, ndrv == 1 ? "is" : "are");
	}
	free(names);
	free(drv);
}

/* The headline says them all: "...; 'b' and 'c' are missing too". */
static void say_also(struct ct_finding *f)
{
	char also[1024], *m;

	also_words(f, also, sizeof(also));
	if (asprintf(&m, "%s; %s", f->message, also) < 0)
		ct_out_of_memory();
	free(f->message);
	f->message = m;
}

/* The missing libraries past the first, as evidence: who needs each. */
static void evidence_also(struct ct_finding *f)
{
	size_t i;

	for (i = 1; i < f->nmissing; i++)
		ct_finding_evidence(f, "'%s' (needed by %s) is missing too: the loader stops at the "
				       "first library it cannot find and never looked for it",
				    f->missing[i].name, ct_dx_base(f->missing[i].needed_by));
}

/* What a miss's finding is said again with, once several objects asked. */
struct miss_state {
	char *name;
	enum ct_search_kind kind;
	struct ct_copies cs;
	char *refused;          /* the file the loader stopped at, or NULL */
	const char *refused_why;
	bool unreadable;        /* a candidate the process may not read: its fix stands */
	bool python;            /* an asker a Python package ships: pip helps */
	int cuda;               /* the askers' CUDA major, or 0 */
};

static void miss_state_free(void *p)
{
	struct miss_state *m = p;

	if (!m)
		return;
	free(m->name);
	free(m->refused);
	ct_copies_release(&m->cs);
	free(m);
}

/* One library, several objects that need it: one finding (findings.h). */
static void miss_restate(struct ct_finding *f)
{
	const struct miss_state *m = f->state;
	bool python = m->python;
	char who[512];
	size_t i;

	ct_finding_askers_words(f, who, sizeof(who));
	free(f->message);
	if ((m->refused ? asprintf(&f->message, "'%s' at %s cannot be loaded: %s (needed by %zu "
						"objects)",
				   m->name, m->refused, ct_dx_refused_words(m->refused_why),
				   ct_finding_askers(f))
			: asprintf(&f->message, "'%s' was not found (needed by %zu objects)", m->name,
				   ct_finding_askers(f))) < 0)
		ct_out_of_memory();
	/* pip helps when any of the askers is a Python package's. */
	for (i = 0; i < f->nneeded_by && !python; i++)
		python = ct_python_shipped(f->needed_by[i].object);
	if (f->nmissing)
		say_also(f);
	if (!m->refused && !m->unreadable)
		fix_not_found(f, m->name, who, true, m->kind, &m->cs, python, m->cuda);
	if (!m->refused && !m->unreadable && f->nmissing)
		fix_all_missing(f, &m->cs, who, python, m->cuda);
}

/*
 * Is a miss of s a finding? Only what the program loses: every DT_NEEDED
 * and DT_FILTER entry (the load fails), a dlopen of a CUDA library (not a
 * RTLD_NOLOAD probe; a program's other failed dlopen calls are its own
 * business), and CUDA libraries the loader skipped (preloads) or that no
 * dynamic section names. A DT_AUXILIARY entry is optional: never. The
 * driver's own libraries are driver-missing's (libcuda always, NVML when
 * libcuda is not there either).
 */
static bool counts(const struct ctx *c, const struct ct_search *s, enum ct_search_kind *kind)
{
	if (!ct_dx_search_missed(c, s) || ct_dx_is_driver(s->name))
		return false;
	/* Without the driver, NVML missing is driver-missing's, not a finding apart. */
	if (ct_dx_is_nvml(s->name) && !ct_dx_driver_mapped(c))
		return false;
	*kind = ct_diagnosis_search_kind(c->d, c->p, s);
	switch (*kind) {
	case CT_SEARCH_NEEDED:
	case CT_SEARCH_FILTER:
		return true;
	case CT_SEARCH_DLOPEN:
		return !s->request->noload && ct_cuda_library(s->name);
	case CT_SEARCH_PRELOAD:
	case CT_SEARCH_OTHER:
		return ct_cuda_library(s->name);
	case CT_SEARCH_AUXILIARY:
	default:
		return false;
	}
}

/* What the loss of a required library does: the program stops, or a dlopen fails. */
static void evidence_required(struct ctx *c, struct ct_finding *f, const struct ct_search *s)
{
	const struct ct_request *q = ct_dx_within_dlopen(c, s);

	if (!q) {
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: cannot open shared object file\"",
				    s->name);
		return;
	}
	ct_finding_evidence(f, "the %s of %s by %s fails with it", q->api,
			    q->name ? q->name : "?", ct_dx_base(q->caller));
	if (q->error)
		ct_finding_evidence(f, "the program got: %s", q->error);
}

/*
 * NVML missed where the driver loaded (counts() leaves the other case to
 * driver-missing): the driver is only partly there, as in a container
 * whose NVIDIA_DRIVER_CAPABILITIES leave out utility. torch counts GPUs
 * through NVML first and falls back to the runtime, so a process that went
 * on to a clean end lost nothing: a note.
 */
static void nvml_without(struct ctx *c, struct ct_finding *f)
{
	ct_finding_evidence(f, "the driver's libcuda.so.1 loaded without its NVML (nvidia-smi "
			       "needs it too)");
	if (ct_dx_clean_end(c)) {
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "the process went on to a clean end (torch, for one, counts "
				       "GPUs through NVML and falls back to the CUDA runtime)");
	}
}

static void nvml_fix(struct ct_finding *f)
{
	ct_finding_fix(f, "in a container: add utility to NVIDIA_DRIVER_CAPABILITIES "
			  "(compute alone leaves NVML and nvidia-smi out); elsewhere install the "
			  "driver's NVML (Debian: libnvidia-ml1), the same version as libcuda.so.1");
}

/* The misses already reported in a process, by name and kind. */
struct said {
	char *key;
	UT_hash_handle hh;
};

/* Was name missed before the same way by the same object? Records it when not. */
static bool seen_before(struct said **set, const char *name, enum ct_search_kind kind,
			const char *by)
{
	struct said *e;
	char *key = NULL;

	if (asprintf(&key, "%d\x1f%s\x1f%s", (int)kind, name, by ? by : "\x1e") < 0)
		ct_out_of_memory();
	HASH_FIND_STR(*set, key, e);
	if (e) {
		free(key);
		return true;
	}
	e = ct_xcalloc(1, sizeof(*e));
	e->key = key;
	HASH_ADD_KEYPTR(hh, *set, e->key, strlen(e->key), e);
	return false;
}

/* How s's requester asked: "dlopen", "DT_NEEDED", "DT_FILTER". */
static const char *how_asked(const struct ct_search *s, enum ct_search_kind kind)
{
	if (s->request && s->request->api)
		return s->request->api;
	return kind == CT_SEARCH_FILTER ? "DT_FILTER" : kind == CT_SEARCH_NEEDED ? "DT_NEEDED" : NULL;
}

void ct_dx_rule_not_found(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct said *said = NULL, *e, *tmp;
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		const struct ct_loaded *alt = NULL;
		enum ct_search_kind kind;
		const char *requester, *refused, *unreadable, *why = NULL;
		struct ct_finding *f;
		struct ct_copies cs;

		if (!counts(c, s, &kind))
			continue;
		refused = kind == CT_SEARCH_PRELOAD ? NULL : ct_dx_refused_at(c, s, &why);
		if (refused)
			ct_dx_refusal_note(c, s, refused, why);
		requester = s->request ? s->request->caller : s->by;
		/*
		 * The same name missed again by the same object the same way:
		 * said once. Only misses that counted: a failed RTLD_NOLOAD
		 * probe before the real dlopen must not hide it. Other objects
		 * that miss it join this finding (ct_findings_group).
		 */
		if (seen_before(&said, s->name, kind, requester))
			continue;
		if (refused) {
			if (!(f = refused_finding(c, s, kind, requester, refused, why, &alt)))
				continue;
		} else {
			switch (kind) {
			case CT_SEARCH_NEEDED:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (needed by %s)", s->name,
						   ct_dx_base(requester));
				evidence_required(c, f, s);
				break;
			case CT_SEARCH_FILTER:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (filter library of %s)", s->name,
						   ct_dx_base(requester));
				ct_finding_evidence(f, "%s is a filter (DT_FILTER) for %s: the loader "
						       "cannot load it without it",
						    ct_dx_base(requester), s->name);
				evidence_required(c, f, s);
				break;
			case CT_SEARCH_PRELOAD:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' from LD_PRELOAD was not found: the loader ignored it",
						   s->name);
				/* The program went on without it: worth knowing. */
				f->severity = CT_SEV_INFO;
				ct_finding_evidence(f, "the loader said: \"ERROR: ld.so: object '%s' from "
						       "LD_PRELOAD cannot be preloaded (cannot open shared "
						       "object file): ignored.\"",
						    s->name);
				break;
			case CT_SEARCH_DLOPEN:
			case CT_SEARCH_OTHER:
			default:
				alt = loaded_instead(c, s->name);
				/*
				 * cuDNN asks for libcudnn_graph.so.9.19.0, then .9.19, then
				 * .9: a miss followed by another name of the same major
				 * is part of that load, not a finding.
				 */
				if (alt && same_major(s->name, alt))
					continue;
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (%s by %s)", s->name,
						   s->request ? s->request->api : "requested",
						   ct_dx_base(requester));
				if (alt) {
					/* The program tried another: worth knowing, not the failure. */
					f->severity = CT_SEV_INFO;
					ct_finding_evidence(f, "it then loaded %s", alt->path);
				}
				if (s->request && s->request->error)
					ct_finding_evidence(f, "the program got: %s", s->request->error);
				if (ct_dx_is_nvml(s->name) && !alt)
					nvml_without(c, f);
				break;
			}
		}
		unreadable = refused ? NULL : ct_dx_unreadable(s);
		if (unreadable)
			ct_finding_evidence(f, "%s is there, but the process may not read it "
					       "(Permission denied): the loader skips it as if it were "
					       "missing",
					    unreadable);
		/* A path asked for and refused: no search to show. */
		if (!refused || s->ntries)
			ct_dx_tries(f, s);
		ct_dx_copies(c, s->name, s, &cs);
		evidence_copies(f, &cs);
		if (refused)
			fix_refused(f, s->name, refused, why);
		else if (unreadable)
			ct_finding_fix(f, "make %s readable by the job's user (chmod a+r, and a+x on "
					  "the folders above it)",
				       unreadable);
		else
			fix_not_found(f, s->name, ct_dx_base(requester), false, kind, &cs,
				      ct_python_shipped(requester), context_cuda(c, requester));
		/* The loader names the first library it misses: the others too, one fix for all. */
		if (!refused && !unreadable &&
		    (kind == CT_SEARCH_NEEDED || kind == CT_SEARCH_FILTER) &&
		    also_missing(c, f, s, requester)) {
			say_also(f);
			evidence_also(f);
			fix_all_missing(f, &cs, ct_dx_base(requester), ct_python_shipped(requester),
					context_cuda(c, requester));
		}
		if (ct_dx_is_nvml(s->name) && !alt && !refused) {
			nvml_fix(f);
			ct_copies_release(&cs);
		} else if (alt) {
			ct_finding_fix(f, "nothing to do if %s works with %s, which it loaded instead",
				       ct_dx_base(requester), ct_dx_base(alt->path));
			ct_copies_release(&cs);
		} else if (kind == CT_SEARCH_PRELOAD) {
			ct_copies_release(&cs);
		} else {
			struct miss_state *m = ct_xcalloc(1, sizeof(*m));

			/* One library missing: one finding, whoever else needs it. */
			ct_finding_cause(f, "not-found\x1f%s", s->name);
			ct_finding_needed_by(f, requester, how_asked(s, kind));
			m->name = ct_xstrdup(s->name);
			m->kind = kind;
			m->cs = cs;
			m->refused = refused ? ct_xstrdup(refused) : NULL;
			m->refused_why = why;
			m->unreadable = unreadable != NULL;
			m->python = ct_python_shipped(requester);
			m->cuda = context_cuda(c, requester);
			f->state = m;
			f->state_free = miss_state_free;
			f->restate = miss_restate;
		}
		ct_dx_where(c, f);
	}
	HASH_ITER(hh, said, e, tmp) {
		HASH_DEL(said, e);
		free(e->key);
		free(e);
	}
}

/* ---- libraries shadowed -------------------------------------------------------- */

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
			ct_dx_asker(o, who, sizeof(who));
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

/* ---- two versions of one family ----------------------------------------------- */

/* cuDNN's sub-libraries are one family with the core. */
static const char *family_of(const char *stem)
{
	return strncmp(stem, "libcudnn", 8) == 0 ? "libcudnn" : stem;
}

/* Are a and b in one folder (the same folder by another path too)? */
static bool same_folder(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	char da[4096], db[4096];

	if (!sa || !sb)
		return !sa && !sb;
	snprintf(da, sizeof(da), "%.*s", (int)(sa - a), a);
	snprintf(db, sizeof(db), "%.*s", (int)(sb - b), b);
	return strcmp(da, db) == 0 || ct_dx_same_file(da, db);
}

/*
 * Over every object mapped (a fork's inherited ones too); a pair of two
 * inherited objects is its parent's finding, not the child's.
 */
struct stem {
	bool cuda;                   /* a CUDA library, not the shim */
	char stem[128];              /* "libcudart" */
	const char *family;          /* its family: the stem, or "libcudnn" */
};

/*
 * Two majors of one library, each loaded under its own soname
 * (libcudart.so.11.0 and libcudart.so.12): each is what its asker was built
 * for, and the search path cannot give one of them to both. Not a copy
 * loaded under another major's name (the renamed rule's), nor two files
 * of one soname (the search path's).
 */
static bool own_majors(struct ctx *c, const struct ct_loaded *a, const struct ct_loaded *b)
{
	const char *sa = ct_dx_soname(c, a), *sb = ct_dx_soname(c, b);

	return sa && sb && strcmp(sa, sb) != 0 && !ct_dx_renamed(c, a) && !ct_dx_renamed(c, b);
}

/* The CUDA major whose toolkit ships o's soname alone, or 0 (cuDNN's serve two). */
static int copy_cuda(struct ctx *c, const struct ct_loaded *o)
{
	const char *so = ct_dx_soname(c, o);

	return so ? ct_cuda_mask_major(ct_soname_cuda(so, NULL)) : 0;
}

/* The families whose copies are two majors, each under its own soname: one finding for all. */
struct majors {
	const struct ct_loaded **copies;  /* every family's copies, family after family */
	size_t *family_end;               /* copies[..family_end[f]) ends family f */
	size_t ncopies, nfamilies;
	char words[1024];                 /* "libcudart 11.8.89 and 12.4.127, libcublas ..." */
};

static void majors_add(struct ctx *c, struct majors *m, const struct ct_loaded **copies,
		       size_t n, const char *family)
{
	size_t i, len = strlen(m->words);
	char v[64];

	m->copies = ct_xrealloc(m->copies, (m->ncopies + n) * sizeof(*m->copies));
	m->family_end = ct_xrealloc(m->family_end, (m->nfamilies + 1) * sizeof(*m->family_end));
	len += (size_t)snprintf(m->words + len, len < sizeof(m->words) ? sizeof(m->words) - len : 0,
				"%s%s", m->nfamilies ? ", " : "", family);
	for (i = 0; i < n; i++) {
		m->copies[m->ncopies++] = copies[i];
		ct_dx_version(c, copies[i]->path, v, sizeof(v));
		if (!v[0])
			snprintf(v, sizeof(v), "%s", ct_dx_base(copies[i]->path));
		if (len < sizeof(m->words))
			len += (size_t)snprintf(m->words + len, sizeof(m->words) - len, "%s%s",
						i == 0 ? " " : i + 1 == n ? " and " : ", ", v);
	}
	m->family_end[m->nfamilies++] = m->ncopies;
}

/* What asked for o (its file), or NULL. */
static const char *asker_of(const struct ct_loaded *o)
{
	const char *a = o->request ? o->request->caller : o->by;

	return a && a[0] ? a : NULL;
}

/* One build the copies serve: an asker that is no copy itself, and what it asked for. */
struct root {
	const char *path;            /* the asker */
	char want[64];               /* "CUDA 11", or the soname when its CUDA is unknown */
	bool both;                   /* it asks for more than one */
};

/*
 * The one finding of every family whose copies are majors under their own
 * sonames (own_majors): the builds that asked for them, grouped by the
 * CUDA each was built for, and the fix: a build of one of them for the
 * other's CUDA. Taking a folder off the search path would make one of
 * them fail to load (one CUDA 11 MAGMA and one CUDA 12 llama.cpp in one
 * process need both runtimes).
 */
static void majors_finding(struct ctx *c, const struct majors *m)
{
	struct root *roots = ct_xcalloc(m->ncopies + 1, sizeof(*roots));
	char wants[4][64], cudas[64] = "", who[512], fix[2048], alts[1024] = "";
	size_t i, k, nroots = 0, nwants = 0, len = 0, alen = 0;
	const char *both = NULL;
	struct ct_finding *f;
	bool known = true, python = false, first;

	/* CUDA majors name the sides when the table knows each copy's and they are two or more. */
	for (i = 0; i < m->ncopies && known; i++) {
		int cu = copy_cuda(c, m->copies[i]);

		known = cu > 0;
		for (k = 0; known && k < i && copy_cuda(c, m->copies[k]) != cu; k++)
			;
		nwants += known && k == i;
	}
	known &= nwants > 1;
	nwants = 0;
	for (i = 0; i < m->ncopies; i++) {
		const struct ct_loaded *o = m->copies[i];
		const char *a = asker_of(o);
		char want[64];

		if (known)
			snprintf(want, sizeof(want), "CUDA %d", copy_cuda(c, o));
		else
			snprintf(want, sizeof(want), "%s", ct_dx_soname(c, o));
		for (k = 0; k < nwants && strcmp(wants[k], want) != 0; k++)
			;
		if (k == nwants && nwants < 4)
			snprintf(wants[nwants++], sizeof(wants[0]), "%s", want);
		/* A copy that asks for another (libcublas.so.11 for libcublasLt.so.11) is no build. */
		for (k = 0; a && k < m->ncopies && strcmp(m->copies[k]->path, a) != 0; k++)
			;
		if (!a || k < m->ncopies)
			continue;
		for (k = 0; k < nroots && (strcmp(roots[k].path, a) != 0 ||
					   strcmp(roots[k].want, want) != 0);
		     k++)
			;
		if (k < nroots)
			continue;
		roots[nroots].path = a;
		snprintf(roots[nroots++].want, sizeof(roots[0].want), "%s", want);
		python |= ct_python_shipped(a);
	}
	for (k = 0; known && k < nwants; k++)
		len += (size_t)snprintf(cudas + len, len < sizeof(cudas) ? sizeof(cudas) - len : 0,
					"%s%s", k == 0 ? "" : k + 1 == nwants ? " and " : ", ",
					wants[k]);
	if (known && nwants > 1)
		f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS, m->copies[0]->path,
				   "libraries of %s in one process, each needed by a build for "
				   "its CUDA: %s",
				   cudas, m->words);
	else
		f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS, m->copies[0]->path,
				   "two majors in one process, each needed by a build for it: %s",
				   m->words);
	for (i = 0; i < m->ncopies; i++) {
		ct_dx_asker(m->copies[i], who, sizeof(who));
		ct_finding_evidence(f, "%s, %s", m->copies[i]->path, who);
	}
	/* An asker of two majors (a program that loads both itself): no build of it for the other's. */
	for (i = 0; i < nroots; i++)
		for (k = 0; k < nroots; k++)
			if (k != i && strcmp(roots[i].path, roots[k].path) == 0) {
				both = both ? both : roots[i].path;
				roots[i].both = true;
			}
	/* "a build of X for CUDA 12, or of Y for CUDA 11": each build for the other's CUDA. */
	for (k = 0, first = true; !both && k < nwants && alen < sizeof(alts); k++) {
		char names[512] = "";
		size_t j, n = 0, nl = 0;

		for (j = 0; j < nroots; j++)
			if (!roots[j].both && strcmp(roots[j].want, wants[k]) != 0 &&
			    nl < sizeof(names)) {
				n++;
				nl += (size_t)snprintf(names + nl, sizeof(names) - nl, "%s%s",
						       nl ? " and " : "", ct_dx_base(roots[j].path));
			}
		if (!n)
			continue;
		alen += (size_t)snprintf(alts + alen, sizeof(alts) - alen, "%s%s of %s for %s",
					 first ? "" : ", or", first ? (n > 1 ? "builds" : "a build") : "",
					 names, wants[k]);
		first = false;
	}
	len = (size_t)snprintf(fix, sizeof(fix), "each copy is the one its asker was built for, "
						 "and taking one off the library path makes that "
						 "asker fail to load; ");
	if (both)
		snprintf(fix + len, sizeof(fix) - len,
			 "%s loads %s itself: for one %s in the process, make it load one",
			 ct_dx_base(both), known ? "both CUDAs" : "both majors",
			 known ? "CUDA" : "major");
	else if (alts[0])
		snprintf(fix + len, sizeof(fix) - len, "for one %s in the process, use %s%s",
			 known ? "CUDA" : "major", alts,
			 python ? " (a Python package's: its wheel for that CUDA, from the same "
				  "index as your framework)"
				: "");
	else
		snprintf(fix + len, sizeof(fix) - len, "for one %s in the process, use builds of "
						       "what asks for them made for one",
			 known ? "CUDA" : "major");
	ct_finding_fix(f, "%s", fix);
	ct_dx_where(c, f);
	free(roots);
}

/* A copy that differs from its family's first, and how. */
struct differing {
	const struct ct_loaded *o;
	bool releases;               /* another cuDNN piece of another release */
	bool folders;                /* another cuDNN piece of its release, from another folder */
};

void ct_dx_rule_mixed(struct ctx *c)
{
	struct stem *st = ct_xcalloc(c->nmapped + 1, sizeof(*st));
	struct differing *dif = ct_xcalloc(c->nmapped + 1, sizeof(*dif));
	const struct ct_loaded **copies = ct_xcalloc(c->nmapped + 1, sizeof(*copies));
	struct majors m;
	size_t i, k;

	memset(&m, 0, sizeof(m));
	/* Each object's name once: the pairs below would ask it n times. */
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *a = c->mapped[i];

		st[i].cuda = !a->shim && ct_cuda_library(a->path);
		if (st[i].cuda)
			st[i].family = family_of(ct_dx_stem(a->soname ? a->soname : a->path,
							    st[i].stem, sizeof(st[i].stem)));
	}
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *a = c->mapped[i];
		const char *sa = st[i].stem;
		char fa[128], va[64], who[512];
		struct ct_finding *f = NULL;
		bool first_of_family = true, env = false, pip = false, cudnn, other = false;
		size_t n = 0;

		if (a->main || !st[i].cuda)
			continue;
		snprintf(fa, sizeof(fa), "%s", st[i].family);
		for (k = 0; k < i && first_of_family; k++)
			first_of_family = !st[k].cuda || strcmp(st[k].family, fa) != 0;
		if (!first_of_family)
			continue;
		cudnn = strcmp(fa, "libcudnn") == 0;
		ct_dx_version(c, a->path, va, sizeof(va));
		for (k = i + 1; k < c->nmapped; k++) {
			const struct ct_loaded *b = c->mapped[k];
			const char *sb = st[k].stem;
			char vb[64];
			bool differ, same_stem, releases, folders = false;

			if (k < c->ninherited || !st[k].cuda || strcmp(st[k].family, fa) != 0)
				continue;
			ct_dx_version(c, b->path, vb, sizeof(vb));
			same_stem = strcmp(sa, sb) == 0;
			/*
			 * Two majors of one library; two copies of one library;
			 * cuDNN pieces of different releases (an error: cuDNN
			 * refuses them); or of one release from two folders (a
			 * warning: cuDNN checks the release only, but the pieces
			 * are two installations that one update will part).
			 */
			releases = !same_stem && strchr(va, '.') && strchr(vb, '.') &&
				   strcmp(va, vb) != 0;
			if (cudnn && !same_stem && !releases)
				folders = !same_folder(a->path, b->path);
			differ = (same_stem && (atoi(va) != atoi(vb) || !ct_dx_same_object(a, b))) ||
				 releases || folders;
			if (!differ)
				continue;
			dif[n].o = b;
			dif[n].releases = releases;
			dif[n++].folders = folders;
			other |= !same_stem || !own_majors(c, a, b);
		}
		if (!n)
			continue;
		/* Every copy a major under its own soname: the one finding of them all. */
		if (!other) {
			copies[0] = a;
			for (k = 0; k < n; k++)
				copies[k + 1] = dif[k].o;
			majors_add(c, &m, copies, n + 1, cudnn ? "cuDNN" : fa);
			continue;
		}
		for (k = 0; k < n; k++) {
			const struct ct_loaded *b = dif[k].o;
			char vb[64];

			ct_dx_version(c, b->path, vb, sizeof(vb));
			if (!f) {
				if (dif[k].folders)
					f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS,
							   a->path,
							   "cuDNN from two folders in one process: %s "
							   "and %s%s%s",
							   ct_dx_base(a->path), ct_dx_base(b->path),
							   va[0] && strcmp(va, vb) == 0 ? ", both " : "",
							   va[0] && strcmp(va, vb) == 0 ? va : "");
				else
					f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS,
							   a->path,
							   "two versions of %s in one process: %s and %s",
							   cudnn ? "cuDNN" : fa,
							   va[0] ? va : ct_dx_base(a->path),
							   vb[0] ? vb : ct_dx_base(b->path));
				ct_dx_asker(a, who, sizeof(who));
				ct_finding_evidence(f, "%s, %s", a->path, who);
				env |= a->via == CT_RULE_LD_LIBRARY_PATH;
				pip |= ct_pip_installed(a->path);
			}
			if (cudnn && dif[k].releases)
				f->severity = CT_SEV_ERROR;
			ct_dx_asker(b, who, sizeof(who));
			ct_finding_evidence(f, "%s, %s", b->path, who);
			env |= b->via == CT_RULE_LD_LIBRARY_PATH;
			pip |= ct_pip_installed(b->path);
		}
		/*
		 * A copy that came from LD_LIBRARY_PATH: the quickest way out.
		 * pip's list shows only what pip installed.
		 */
		ct_finding_fix(f, "let one installation provide %s: %salign the packages that "
				  "bring the copies%s",
			       cudnn ? "every cuDNN library" : fa,
			       env ? "take the other off LD_LIBRARY_PATH, or " : "",
			       pip ? " (pip list | grep nvidia)" : "");
		ct_dx_where(c, f);
	}
	if (m.nfamilies)
		majors_finding(c, &m);
	free(m.copies);
	free(m.family_end);
	free(copies);
	free(dif);
	free(st);
}

/* ---- symbol versions ------------------------------------------------------------ */

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
	ct_dx_asker(o, who, sizeof(who));
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
			ct_dx_asker(o, who, sizeof(who));
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

/*
 * lib-not-found's other misses (diag_internal.h): the loader names only
 * the first library it cannot find, and stops; the loader model goes on
 * through the tree of the object that failed to load and finds every
 * library it misses, so that the finding names them all and one fix
 * installs them all. How to install a library, in words, is here too:
 * for one missing library (diag_not_found.c) and for several.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "diag_internal.h"
#include "distinfo.h"
#include "libnames.h"
#include "resolve.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/*
 * "nvidia-cudnn-cu13==9.26.0.51 (the version torch 2.15.0 requires)" into
 * pkg, when the distribution that ships requester pins the one pip
 * package of name for that major: pip put that version there with it.
 */
static bool pinned_words(const char *name, int major, const char *requester, char *pkg,
			 size_t size)
{
	struct ct_dist_info d;
	char one[96], pin[64];

	if (!requester || !major || !ct_pip_package(name, major, one, sizeof(one)) ||
	    ct_dist_info_of(requester, &d) != 0 || !ct_dist_info_pin(&d, one, pin, sizeof(pin)))
		return false;
	snprintf(pkg, size, "%s==%s (the version %s %s requires)", one, pin, d.name, d.version);
	return true;
}

/*
 * "pip install nvidia-cublas-cu12, or the CUDA 12 toolkit or your
 * distribution's package of libcublas.so.12" for an object a Python
 * package ships (python), the toolkit or distribution alone for others (a
 * pip wheel helps no Node or C program).
 */
const char *ct_dx_install_words(const char *name, int cuda, bool python, const char *requester,
				char *buf, size_t size)
{
	const char *release;
	unsigned mask = ct_soname_cuda(name, &release);
	char pkg[512], cw[48];

	buf[0] = '\0';
	if (!mask)
		return buf;
	if (cuda >= 11 && cuda <= 13 && (mask & (CT_CU11 << (cuda - 11))))
		mask = CT_CU11 << (cuda - 11);
	ct_cuda_mask_words(mask, cw, sizeof(cw));
	if (!python || !pinned_words(name, ct_cuda_mask_major(mask), requester, pkg, sizeof(pkg)))
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
size_t ct_dx_also_missing(struct ctx *c, struct ct_finding *f, const struct ct_search *s,
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
 * words (ct_dx_install_words). Into buf.
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
						ct_dx_install_words(names[i], cuda, python, NULL, one,
								    sizeof(one))[0]
							? one
							: "the package that ships it");
}

/*
 * Would pip's package of name (for the askers' CUDA cuda) overwrite a
 * file another distribution of requester's site folder owns? Its fix line
 * ("not nvidia-cudnn-cu12 for libcudnn.so.9: ...", to free) when so, else
 * NULL.
 */
static char *would_replace(const char *name, const char *requester, int cuda)
{
	unsigned mask = ct_soname_cuda(name, NULL);
	struct ct_dist_info owner;
	char pkg[96], path[PATH_MAX];
	const char *rel;
	char *line;

	if (cuda >= 11 && cuda <= 13 && (mask & (CT_CU11 << (cuda - 11))))
		mask = CT_CU11 << (cuda - 11);
	if (!ct_cuda_mask_major(mask) ||
	    !ct_pip_package(name, ct_cuda_mask_major(mask), pkg, sizeof(pkg)) ||
	    !ct_pip_would_replace(requester, pkg, name, &owner, path))
		return NULL;
	rel = strstr(path, "/nvidia/");
	if (asprintf(&line, "not %s for %s: it installs %s over %s %s's copy, which is there "
			    "(both install into that folder; the one installed last wins, for "
			    "every package that loads it)",
		     pkg, name, rel ? rel + 1 : path, owner.name, owner.version) < 0)
		ct_out_of_memory();
	return line;
}

/*
 * How an object that no RPATH or RUNPATH of its own leads anywhere gets
 * the wheels' libraries: pip puts them in site-packages/nvidia/COMP/lib,
 * on no path of its. ONNX Runtime loads them by path for its provider
 * (onnxruntime.preload_dlls, since 1.21); anything else needs them
 * loaded first, or their folders on LD_LIBRARY_PATH.
 */
static void reach_words(struct ct_finding *f, const char *requester)
{
	struct ct_dist_info d;
	char name[128];
	size_t i;

	if (ct_dist_info_of(requester, &d) != 0)
		return;
	for (i = 0; d.name[i] && i + 1 < sizeof(name); i++)
		name[i] = (char)(d.name[i] == '_' ? '-' : tolower((unsigned char)d.name[i]));
	name[i] = '\0';
	if (strncmp(name, "onnxruntime", 11) == 0)
		ct_finding_fix_line(f, "then call onnxruntime.preload_dlls() before the session "
				       "(%s %s): %s has no RPATH or RUNPATH, so the wheels' folders "
				       "(nvidia/*/lib) are on no path of its, and installing them "
				       "alone changes nothing",
				    d.name, d.version, ct_dx_base(requester));
	else
		ct_finding_fix_line(f, "then load them by path before %s, or put the wheels' "
				       "folders (nvidia/*/lib) on LD_LIBRARY_PATH: it has no RPATH "
				       "or RUNPATH, so they are on no path of its",
				    ct_dx_base(requester));
}

/*
 * One fix for every library in f->missing: the headline's own fix stands
 * when it found a copy of it (kept: a folder to add), and the rest is
 * installed in one go; the driver's libraries are the driver's.
 */
void ct_dx_fix_all_missing(struct ct_finding *f, const struct ct_copies *cs, const char *who,
			   const char *requester, bool no_paths, bool python, int cuda)
{
	const char **names = ct_xcalloc(f->nmissing + 1, sizeof(*names));
	const char **drv = ct_xcalloc(f->nmissing + 1, sizeof(*drv));
	const struct ct_copy *other = NULL;
	bool headline_copy = false;
	size_t i, j, n = 0, ndrv = 0, nall, nreplaced = 0;
	char how[2048], list[512], **replaced;

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
	/* pip would overwrite another package's file: left out, and said after. */
	replaced = ct_xcalloc(n + 1, sizeof(*replaced));
	nall = n;
	for (i = 0, n = 0; i < nall; i++)
		if (!python || !requester ||
		    !(replaced[nreplaced] = would_replace(names[i], requester, cuda)))
			names[n++] = names[i];
		else
			nreplaced++;
	if (n) {
		install_all_words(names, n, python, cuda, how, sizeof(how));
		names_words(names, n, list, sizeof(list));
		if (headline_copy)
			ct_finding_fix_line(f, "then install %s too: %s", list, how);
		else
			ct_finding_fix(f, "install %s: %s", n == 1 ? names[0] : "them", how);
		if (python && requester && no_paths && strncmp(how, "pip install", 11) == 0)
			reach_words(f, requester);
	}
	for (i = 0; i < nreplaced; i++) {
		if (n || headline_copy || i)
			ct_finding_fix_line(f, "%s", replaced[i]);
		else
			ct_finding_fix(f, "%s", replaced[i]);
		free(replaced[i]);
	}
	free(replaced);
	/* Another major of the first is here: a build for it is the other way out. */
	if (n && !headline_copy && other)
		ct_finding_fix_line(f, "or use a build of %s made for the libraries present (%s is "
				       "here)",
				    who, ct_dx_base(other->path));
	if (ndrv) {
		names_words(drv, ndrv, list, sizeof(list));
		if (n || headline_copy || nreplaced)
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
void ct_dx_say_also(struct ct_finding *f)
{
	char also[1024], *m;

	also_words(f, also, sizeof(also));
	if (asprintf(&m, "%s; %s", f->message, also) < 0)
		ct_out_of_memory();
	free(f->message);
	f->message = m;
}

/* The missing libraries past the first, as evidence: who needs each. */
void ct_dx_evidence_also(struct ct_finding *f)
{
	size_t i;

	for (i = 1; i < f->nmissing; i++)
		ct_finding_evidence(f, "'%s' (needed by %s) is missing too: the loader stops at the "
				       "first library it cannot find and never looked for it",
				    f->missing[i].name, ct_dx_base(f->missing[i].needed_by));
}

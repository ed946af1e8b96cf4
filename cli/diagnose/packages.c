/* doctor's judgement of Python packages with CUDA code; see packages.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archs.h"
#include "builds.h"
#include "compat.h"
#include "copies.h"
#include "demangle.h"
#include "describe.h"
#include "driver_rule.h"
#include "elfinfo.h"
#include "elfscan.h"
#include "framework.h"
#include "libfacts.h"
#include "libnames.h"
#include "packages.h"
#include "pkgcode.h"
#include "pkgload.h"
#include "resolve.h"
#include "symvers.h"
#include "toolchain.h"
#include "util.h"

/* What one shared object is, read once. */
struct sofacts {
	bool readable;
	bool cuda;          /* needs a CUDA library, is one, or carries device code */
	bool torch;         /* needs PyTorch's libraries */
	bool device_code;
};

/* Everything a run shares: each file's symbols, read once. */
struct judge {
	const struct ct_pkg_machine *m;
	struct ct_symcache *syms;
};

/* What one package's judgement reads of its distribution and of torch's. */
struct pkgctx {
	const struct ct_dist *dist;
	const struct ct_dist *torch;   /* torch's, the first on sys.path, or NULL */
	const struct ct_pkg_torch *T;  /* import torch, read once per interpreter */
};

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* ---- which shared objects count -------------------------------------------- */

static void read_facts(const char *path, struct sofacts *s)
{
	struct ct_elfinfo e;
	size_t i;

	memset(s, 0, sizeof(*s));
	ct_elfinfo_init(&e);
	if (ct_elfinfo_read(&e, path) == 0 && e.dynamic) {
		s->readable = true;
		for (i = 0; i < e.nneeded; i++) {
			s->cuda |= ct_cuda_library(e.needed[i]) ||
				   strncmp(e.needed[i], "libcuda.so", 10) == 0;
			s->torch |= ct_framework_library(e.needed[i]);
		}
		s->cuda |= s->torch || ct_cuda_library(ct_path_base(path)) || ct_framework_library(path) ||
			   (e.soname && ct_cuda_library(e.soname));
		s->device_code = ct_pkg_has_device_code(path);
		s->cuda |= s->device_code;
	}
	ct_elfinfo_release(&e);
}

/* ---- findings --------------------------------------------------------------- */

/* The CUDA major a missing soname is wanted for: the package's, else the one CUDA that ships it. */
static int cuda_of(const struct ct_pkg *p, const char *soname)
{
	return p->cuda[0] ? atoi(p->cuda) : ct_cuda_mask_major(ct_soname_cuda(soname, NULL));
}

static bool asked_before(const struct ct_loader *L, size_t k0, size_t i)
{
	size_t j;

	for (j = k0; j < i; j++)
		if (strcmp(L->lookups[j]->name, L->lookups[i]->name) == 0 &&
		    L->lookups[j]->found_via == CT_RULE_NOT_FOUND)
			return true;
	return false;
}

static void not_found(struct ct_pkg *p, const struct pkgctx *x, const struct ct_loader *L,
		      size_t k0, const bool *quiet, size_t nquiet)
{
	char rule[256], dir[PATH_MAX], pkg[96];
	size_t i, j, c;

	for (i = k0; i < L->nlookups; i++) {
		const struct ct_requirement *ctk;
		const struct ct_lookup *k = L->lookups[i];
		const char *who = k->requester && !k->requester->is_main ? k->requester->path : NULL;
		struct ct_finding *f;
		struct ct_copies copies;
		const char *major;
		char stem[128];

		/* The driver is the machine's (driver-missing), not a package's. */
		if (k->found_via != CT_RULE_NOT_FOUND || k->preload || asked_before(L, k0, i) ||
		    strcmp(k->name, "libcuda.so.1") == 0 || (i < nquiet && quiet[i]))
			continue;
		f = ct_finding_add(&p->findings, CT_F_LIB_NOT_FOUND, who,
				   "'%s' was not found (needed by %s)", k->name, who ? ct_path_base(who) : "the program");
		for (j = i; j < L->nlookups; j++)
			if (L->lookups[j]->found_via == CT_RULE_NOT_FOUND &&
			    strcmp(L->lookups[j]->name, k->name) == 0 && L->lookups[j]->requester &&
			    !L->lookups[j]->requester->is_main && j != i)
				ct_finding_evidence(f, "also needed by %s", L->lookups[j]->requester->path);
		if (k->error && k->fatal && k->ncands)
			ct_finding_evidence(f, "the loader: %s: %s", k->cands[k->ncands - 1].path, k->error);
		for (c = 0; c < k->ncands; c++) {
			const struct ct_cand *cd = &k->cands[c];

			if (cd->subdir)
				continue;
			if (!cd->path[0])
				ct_finding_evidence(f, "searched ld.so.cache: %s", ct_cand_words(cd));
			else
				ct_finding_evidence(f, "searched %s (%s): %s", cd->path,
						    ct_rule_text(cd->via, cd->owner, rule, sizeof(rule)),
						    ct_cand_words(cd));
		}
		ct_find_copies(L, k, &copies);
		for (c = 0; c < copies.n; c++)
			ct_finding_evidence(f, "%s: %s (%s)",
					    copies.c[c].same_name ? "a copy not on the path"
								  : "another major, not the one asked",
					    copies.c[c].path, copies.c[c].where);
		for (c = 0; c < copies.n && !copies.c[c].same_name; c++)
			;
		if (c < copies.n) {
			const char *slash = strrchr(copies.c[c].path, '/');

			snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - copies.c[c].path) : 0,
				 copies.c[c].path);
			ct_finding_fix(f, "put '%s' on LD_LIBRARY_PATH (or into /etc/ld.so.conf.d and run "
					  "ldconfig) if that copy is the one %s was built for",
				       dir, p->name);
		} else if ((ctk = ct_dist_toolkit_extra(x->dist, k->name, cuda_of(p, k->name)))) {
			/* The package's own extra for CUDA's wheels ("cupy-cuda12x[ctk]"). */
			ct_finding_fix(f, "pip install \"%s[%s]\" (its extra for CUDA's libraries: "
					  "%s[%s]%s)",
				       p->name, ctk->extra, ctk->name, ctk->extras, ctk->spec);
		} else if (ct_soname_split(k->name, stem, sizeof(stem), &major) &&
			   ct_pip_package(k->name, cuda_of(p, k->name), pkg, sizeof(pkg))) {
			const struct ct_requirement *own = ct_dist_requirement(x->dist, pkg),
						    *r = own ? own : ct_dist_requirement(x->torch, pkg);

			/* The version the package (or torch, which loads it) pins. */
			if (r && r->spec[0] == '=')
				ct_finding_fix(f, "install %s: pip install %s%s (%s %s requires it)", k->name,
					       pkg, r->spec, own ? p->name : "torch",
					       own ? p->version : x->torch->version);
			else
				ct_finding_fix(f, "install %s: pip install %s, or your distribution's "
						  "package of it",
					       k->name, pkg);
		} else {
			ct_finding_fix(f, "install the package that provides '%s' (the one %s was built "
					  "against)",
				       k->name, p->name);
		}
		ct_copies_release(&copies);
	}
}

/* LD_LIBRARY_PATH took a library before the copy its requester's RUNPATH/RPATH names. */
static void shadowed(struct ct_pkg *p, struct ct_loader *L, size_t k0)
{
	size_t i, c;

	for (i = k0; i < L->nlookups; i++) {
		const struct ct_lookup *k = L->lookups[i];
		struct ct_lobj *req = (struct ct_lobj *)k->requester;
		struct ct_lookup *s;

		if (k->found_via != CT_RULE_LD_LIBRARY_PATH || !k->object || !req ||
		    (!req->info.runpath && !req->info.rpath))
			continue;
		s = ct_loader_search(L, req, k->name, true);
		for (c = 0; c < s->ncands; c++) {
			const struct ct_cand *cd = &s->cands[c];
			struct ct_finding *f;
			char lv[64], ov[64];

			if (cd->outcome != CT_FOUND || cd->owner != req ||
			    (cd->via != CT_RULE_RUNPATH && cd->via != CT_RULE_RPATH) ||
			    same_file(cd->path, k->object->path))
				continue;
			ct_library_version_read(k->object->path, k->object->info.soname, lv, sizeof(lv));
			ct_library_version_read(cd->path, k->object->info.soname, ov, sizeof(ov));
			f = ct_finding_add(&p->findings, CT_F_LIB_SHADOWED, req->path,
					   "LD_LIBRARY_PATH gives %s '%s' instead of '%s', which its "
					   "%s names",
					   ct_path_base(req->path), k->object->path, cd->path,
					   cd->via == CT_RULE_RUNPATH ? "RUNPATH" : "RPATH");
			ct_finding_cause(f, "%s", k->object->path);
			ct_finding_evidence(f, "%s: %s%s%s taken [LD_LIBRARY_PATH]", k->name,
					    k->object->path, lv[0] ? ", version " : "", lv);
			ct_finding_evidence(f, "%s: %s%s%s hidden", k->name, cd->path,
					    ov[0] ? ", version " : "", ov);
			ct_finding_fix(f, "take the folder of '%s' off LD_LIBRARY_PATH so %s gets the "
					  "copy it was built with",
				       k->object->path, p->name);
			break;
		}
		ct_lookup_free(s);
	}
}

/*
 * The CUDA major a library is built for, and why: its own version
 * (libcudart, libnvrtc, libnvJitLink), else the CUDA sonames it needs,
 * else (cuDNN, whose core says nothing) its release's siblings (builds.h).
 * Other libraries' device code is not scanned for it: doctor stays fast.
 */
static int object_cuda(const struct ct_lobj *o, char *why, size_t size)
{
	char v[64];
	const char *soname = o->info.soname ? o->info.soname : ct_path_base(o->path);
	size_t i;
	int c;

	why[0] = '\0';
	if (!ct_cuda_library(soname) || strncmp(soname, "libcuda.so", 10) == 0)
		return 0;
	ct_library_version_read(o->path, soname, v, sizeof(v));
	if ((c = ct_library_cuda(soname, v, NULL)) > 0) {
		snprintf(why, size, "%s %s", soname, v);
		return c;
	}
	for (i = 0; i < o->info.nneeded; i++) {
		const char *n = o->info.needed[i], *dot = strstr(n, ".so.");

		if (dot && (ct_runtime_major(n) > 0 || strncmp(n, "libcublas", 9) == 0 ||
			    strncmp(n, "libnvrtc.so", 11) == 0 || strncmp(n, "libnvJitLink.so", 15) == 0)) {
			snprintf(why, size, "needs %s", n);
			return atoi(dot + 4);
		}
	}
	if (strncmp(soname, "libcudnn", 8) == 0)
		return ct_build_of_file(o->path, why, size) / 1000;
	return 0;
}

/* Two majors of one CUDA library family in one load, or a library for another CUDA than p. */
static void mixed(struct ct_pkg *p, const struct ct_loader *L, size_t o0,
		  const struct ct_pkg_together *tg)
{
	int want = p->cuda[0] ? atoi(p->cuda) : 0;
	size_t i, j;

	for (i = o0; i < L->nobjs; i++) {
		const struct ct_lobj *a = L->objs[i];
		const char *sa = a->info.soname ? a->info.soname : ct_path_base(a->path), *ma;
		char stem[128], stem2[128], why[PATH_MAX + 64];
		int ca;

		if (a->is_main || !ct_cuda_library(sa) || !ct_soname_split(sa, stem, sizeof(stem), &ma))
			continue;
		for (j = i + 1; j < L->nobjs; j++) {
			const struct ct_lobj *b = L->objs[j];
			const char *sb = b->info.soname ? b->info.soname : ct_path_base(b->path), *mb;
			struct ct_finding *f;

			if (b->is_main || !ct_soname_split(sb, stem2, sizeof(stem2), &mb) ||
			    strcmp(stem, stem2) != 0 || !ma || !mb || strcmp(ma, mb) == 0 ||
			    !ct_pkg_together(tg, i, j))
				continue;
			f = ct_finding_add(&p->findings, CT_F_LIB_MIXED_VERSIONS, a->path,
					   "two majors of %s would be loaded: '%s' and '%s'", stem,
					   a->path, b->path);
			ct_finding_evidence(f, "%s: %s", sa, a->path);
			ct_finding_evidence(f, "%s: %s", sb, b->path);
			ct_finding_fix(f, "keep one CUDA major for %s and everything it loads", p->name);
		}
		if (want > 0 && (ca = object_cuda(a, why, sizeof(why))) > 0 && ca != want) {
			struct ct_finding *f;

			f = ct_finding_add(&p->findings, CT_F_LIB_MIXED_VERSIONS, a->path,
					   "'%s' is built for CUDA %d, %s for CUDA %s", a->path, ca,
					   p->name, p->cuda);
			ct_finding_evidence(f, "%s: %s [%s]; built for CUDA %d: %s", sa, a->path,
					    ct_rule_words(a->found_via), ca, why);
			ct_finding_evidence(f, "%s is built for CUDA %s (%s)", p->name, p->cuda,
					    p->cuda_from);
			if (a->found_via == CT_RULE_LD_LIBRARY_PATH) {
				const char *slash = strrchr(a->path, '/');

				ct_finding_fix(f, "take '%.*s' off LD_LIBRARY_PATH, or install the build "
						  "of %s for CUDA %d",
					       slash ? (int)(slash - a->path) : 0, a->path, sa, want);
			} else {
				ct_finding_fix(f, "install the build of %s for CUDA %d", sa, want);
			}
		}
	}
}

static void version_gaps(struct ct_pkg *p, struct ct_loader *L, size_t o0)
{
	struct ct_version_gap *g;
	size_t n, i;

	g = ct_version_gaps_since(L, o0, &n);
	for (i = 0; i < n; i++) {
		struct ct_finding *f;

		f = ct_finding_add(&p->findings, CT_F_SYMBOL_VERSION_MISSING, g[i].requester->path,
				   "'%s' needs version %s of '%s', which '%s' does not define",
				   ct_path_base(g[i].requester->path), g[i].need->version, g[i].need->file,
				   g[i].lacking->path);
		if (g[i].missing_symbol)
			ct_finding_evidence(f, "symbol: %s, version %s", g[i].missing_symbol,
					    g[i].need->version);
		ct_finding_evidence(f, "%s: %s [%s]", g[i].need->file, g[i].lacking->path,
				    ct_rule_words(g[i].lacking->found_via));
		if (g[i].having)
			ct_finding_evidence(f, "defined by: %s (%s)", g[i].having, g[i].having_where);
		ct_finding_fix(f, "%s", g[i].fix);
	}
	ct_version_gaps_free(g, n);
}


/*
 * The first library o's dependency tree lacks (*who needs it), or NULL:
 * then o would not load, whichever load mapped it first.
 */
static const char *tree_missing(const struct ct_loader *L, const struct ct_lobj *o,
				const struct ct_lobj **who)
{
	const struct ct_lobj **queue = ct_xcalloc(L->nobjs + 1, sizeof(*queue));
	const char *missing = NULL;
	size_t head = 0, tail = 0, i, k;

	queue[tail++] = o;
	while (head < tail && !missing) {
		const struct ct_lobj *x = queue[head++];

		for (i = 0; i < x->info.nneeded && !missing; i++) {
			const struct ct_lobj *d = ct_pkg_object_named(L, x->info.needed[i]);

			if (!d) {
				missing = x->info.needed[i];
				*who = x;
				break;
			}
			for (k = 0; k < tail && queue[k] != d; k++)
				;
			if (k == tail && tail < L->nobjs)
				queue[tail++] = d;
		}
	}
	free(queue);
	return missing;
}

static bool tree_complete(const struct ct_loader *L, const struct ct_lobj *o)
{
	const struct ct_lobj *who;

	return tree_missing(L, o, &who) == NULL;
}

/* An extension of PyTorch: it needs one of its libraries (libtorch*, libc10*). */
static bool needs_framework(const struct ct_lobj *o)
{
	size_t i;

	for (i = 0; i < o->info.nneeded; i++)
		if (ct_framework_library(o->info.needed[i]))
			return true;
	return false;
}

static bool is_package_file(const struct ct_pkg *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nmods; i++)
		if (strcmp(p->mods[i].path, path) == 0)
			return true;
	return false;
}

/*
 * The library o needs that should define sym: of its PyTorch libraries,
 * the one that defines the most other symbols of sym's innermost
 * namespace (c10::cuda -> libc10_cuda), else the first; NULL when none.
 */
static const struct ct_lobj *expected(struct judge *J, const struct ct_loader *L,
				      const struct ct_lobj *o, const char *sym)
{
	size_t ends[16], nparts = ct_mangled_parts(sym, ends, 16), level, i, best = 0, n;
	const struct ct_lobj *pick = NULL, *first = NULL, *x;
	const struct ct_symtab *t;

	for (level = nparts ? nparts - 1 : 0; level > 0 && !pick; level--)
		for (i = 0; i < o->info.nneeded; i++) {
			if (!ct_framework_library(o->info.needed[i]) ||
			    !(x = ct_pkg_object_named(L, o->info.needed[i])))
				continue;
			first = first ? first : x;
			if ((t = ct_symcache_table(J->syms, x->path)) &&
			    (n = ct_symtab_count_prefix(t, sym, ends[level - 1], NULL)) > best) {
				best = n;
				pick = x;
			}
		}
	for (i = 0; !pick && !first && i < o->info.nneeded; i++)
		if (ct_framework_library(o->info.needed[i]))
			first = ct_pkg_object_named(L, o->info.needed[i]);
	return pick ? pick : first;
}

/*
 * The package's objects' undefined symbols that nothing loaded defines:
 * Python's dlopen binds them all at import (RTLD_NOW), and fails.
 */
static void symbols(struct judge *J, struct ct_pkg *p, const struct pkgctx *x,
		    const struct ct_loader *L)
{
	const struct ct_symtab **scope = ct_xcalloc(L->nobjs + 1, sizeof(*scope));
	size_t i, k, s, n = 0;

	for (i = 0; i < L->nobjs; i++) {
		const char *path = L->objs[i]->path;

		if (!path[0] || !(scope[n++] = ct_symcache_table(J->syms, path)))
			goto out; /* an object unread could define anything */
	}
	for (i = 0; i < L->nobjs; i++) {
		const struct ct_lobj *o = L->objs[i];
		const struct ct_undefs *u;
		const char *first = NULL;
		size_t missing = 0;

		if (o->is_main || !is_package_file(p, o->path) || !tree_complete(L, o) ||
		    !needs_framework(o) || !(u = ct_symcache_undefs(J->syms, o->path)))
			continue;
		for (s = 0; s < u->n; s++) {
			for (k = 0; k < n && !ct_symtab_has(scope[k], u->names[s], NULL); k++)
				;
			if (k == n && !missing++)
				first = u->names[s];
		}
		if (first) {
			struct ct_framework fw;
			struct ct_finding *f;
			const struct ct_lobj *expect;
			char *d = ct_demangle(first);

			expect = expected(J, L, o, first);
			f = ct_finding_add(&p->findings, CT_F_SYMBOL_MISSING, o->path,
					   "'%s' needs %s%s%s%s, which no library it loads defines%s",
					   ct_path_base(o->path), first, d ? " (" : "", d ? d : "", d ? ")" : "",
					   missing > 1 ? " (nor others)" : "");
			ct_finding_evidence(f, "import fails: \"%s: undefined symbol: %s\"", o->path,
					    first);
			if (missing > 1)
				ct_finding_evidence(f, "%zu more undefined symbols of %s defined nowhere",
						    missing - 1, ct_path_base(o->path));
			if (expect) {
				ct_finding_evidence(f, "expected from: %s (%s): it defines other symbols "
						       "of that namespace",
						    expect->path, expect->info.soname ? expect->info.soname
										      : ct_path_base(expect->path));
				if (ct_framework_of(expect->path, &fw)) {
					const struct ct_requirement *r = ct_dist_requirement(x->dist, "torch");

					ct_finding_evidence(f, "%s installed: %s%s%s (%s); %s was built "
							       "against another release",
							    fw.name, fw.version, fw.cuda[0] ? ", CUDA " : "",
							    fw.cuda, fw.source, ct_path_base(o->path));
					/*
					 * Its METADATA pins the torch it was built with; one
					 * built on this machine (pip install . or from git:
					 * direct_url.json) is rebuilt, not installed.
					 */
					if (x->dist->built_here)
						ct_finding_fix(f, "rebuild %s against the %s in use (%s): "
								  "pip install --no-build-isolation, "
								  "from its source",
							       p->name, fw.name, fw.version);
					if (r && strncmp(r->spec, "==", 2) == 0 && x->torch &&
					    !x->dist->built_here) {
						ct_finding_evidence(f, "%s %s requires torch%s (its "
								       "Requires-Dist); torch %s is "
								       "installed",
								    p->name, p->version, r->spec,
								    x->torch->version);
						ct_finding_fix(f, "install the release of %s built for "
								  "torch %s (%s %s requires torch%s), "
								  "or pip install torch%s",
							       p->name, x->torch->version, p->name,
							       p->version, r->spec, r->spec);
					}
					if (!f->nfix_lines) {
						ct_finding_fix(f, "rebuild %s against the %s in use (%s): "
								  "pip install --no-build-isolation",
							       p->name, fw.name, fw.version);
						ct_finding_fix_line(f, "or install the build of %s made "
								       "for %s %s",
								    p->name, fw.name, fw.version);
					} else {
						ct_finding_fix_line(f, "or rebuild %s against the %s in "
								       "use (%s): pip install "
								       "--no-build-isolation",
								    p->name, fw.name, fw.version);
					}
				}
			}
			if (!f->nfix_lines)
				ct_finding_fix(f, "rebuild %s against the libraries installed here, or "
						  "install its build for them",
					       p->name);
			free(d);
		}
	}
out:
	free(scope);
}

static struct ct_pkg_module *add_module(struct ct_pkg *p, const char *path)
{
	struct ct_pkg_module *m;

	p->mods = ct_xrealloc(p->mods, (p->nmods + 1) * sizeof(*p->mods));
	m = &p->mods[p->nmods++];
	memset(m, 0, sizeof(*m));
	m->path = ct_xstrdup(path);
	return m;
}

/* ---- one package ------------------------------------------------------------ */

/*
 * An extension that needs a CUDA runtime of another major than torch's is
 * built for that runtime's CUDA (xformers for torch 2.6 needs
 * libcudart.so.12 beside torch 2.15's CUDA 13): p->cuda says so.
 */
static void own_runtime(struct ct_pkg *p, const struct ct_loader *L)
{
	size_t i;

	for (i = 0; i < L->nobjs; i++) {
		const struct ct_lobj *o = L->objs[i];
		size_t k, m;

		for (m = 0; m < p->nmods && strcmp(p->mods[m].path, o->path) != 0; m++)
			;
		for (k = 0; m < p->nmods && !ct_framework_library(o->path) && k < o->info.nneeded; k++)
			if (ct_runtime_major(o->info.needed[k]) > 0 &&
			    ct_runtime_major(o->info.needed[k]) != atoi(p->cuda)) {
				/* Its major only: the copy loaded says nothing of the minor it was built with. */
				snprintf(p->cuda, sizeof(p->cuda), "%d", ct_runtime_major(o->info.needed[k]));
				snprintf(p->cuda_from, sizeof(p->cuda_from), "%s needs %s",
					 o->path, o->info.needed[k]);
				return;
			}
	}
}

/* The CUDA the package is built for: torch's version.py, else a runtime it loads. */
static void package_cuda(struct ct_pkg *p, const struct ct_loader *L, const char *c_module)
{
	struct ct_framework fw;
	size_t i;
	int best = 0, minor = -1;

	for (i = 0; c_module && c_module[0] && i < L->nobjs; i++)
		if (ct_framework_library(L->objs[i]->path) && ct_framework_of(L->objs[i]->path, &fw)) {
			snprintf(p->cuda, sizeof(p->cuda), "%s", fw.cuda);
			snprintf(p->cuda_from, sizeof(p->cuda_from), "%s", fw.source);
			own_runtime(p, L);
			return;
		}
	for (i = 0; i < L->nobjs; i++) {
		const struct ct_lobj *o = L->objs[i];
		const char *so = o->info.soname ? o->info.soname : ct_path_base(o->path);
		char v[64];
		int c, mn;

		if (ct_runtime_major(so) <= 0)
			continue;
		ct_library_version_read(o->path, so, v, sizeof(v));
		if ((c = ct_library_cuda(so, v, &mn)) <= 0)
			c = ct_runtime_major(so), mn = -1;
		if (c > best) {
			best = c;
			minor = mn;
			snprintf(p->cuda_from, sizeof(p->cuda_from), "%s", o->path);
		}
	}
	if (best > 0 && minor >= 0)
		snprintf(p->cuda, sizeof(p->cuda), "%d.%d", best, minor);
	else if (best > 0)
		snprintf(p->cuda, sizeof(p->cuda), "%d", best);
}

/* The CUDA libraries of the load built for a newer CUDA major than the driver's. */
static void driver_check_libs(const struct judge *J, struct ct_pkg *p, const struct ct_loader *L,
			      size_t o0, int said)
{
	char why[PATH_MAX + 64], from[2 * PATH_MAX + 128];
	const char *fromp = from, *name;
	struct ct_driver_need need = {
		.seen = CT_DRIVER_SEEN_PROCESS,
		.driver = J->m->driver_cuda,
		.driver_path = J->m->driver_path,
		.driver_release = J->m->driver_release,
	};
	size_t i;
	int c;

	for (i = o0; J->m->driver_cuda > 0 && i < L->nobjs; i++) {
		const struct ct_lobj *o = L->objs[i];
		struct ct_finding *f;

		/* A major the package's own finding already names says nothing new. */
		if (o->is_main || (c = object_cuda(o, why, sizeof(why))) <= 0 || c == said ||
		    !ct_driver_too_old(c * 1000, J->m->driver_cuda))
			continue;
		name = o->info.soname ? o->info.soname : ct_path_base(o->path);
		snprintf(from, sizeof(from), "%s [%s]: %s", o->path, ct_rule_words(o->found_via),
			 why);
		need.runtime = c * 1000;
		need.runtime_path = o->path;
		need.library = name;
		need.libraries = &name;
		need.nlibraries = 1;
		need.runtime_from = &fromp;
		need.nruntime_from = 1;
		if ((f = ct_driver_rule(&p->findings, &need)))
			ct_finding_evidence(f, "%s loads it", p->name);
	}
}

/* driver-too-old for the package's own CUDA; the major it names, or 0. */
static int driver_check(const struct judge *J, struct ct_pkg *p)
{
	int cuda = 0, minor = 0;
	const char *dot;
	struct ct_finding *f;
	char dv[32];

	if (!p->cuda[0] || J->m->driver_cuda <= 0)
		return 0;
	cuda = atoi(p->cuda);
	if ((dot = strchr(p->cuda, '.')))
		minor = atoi(dot + 1);
	if (cuda <= 0 || !ct_driver_too_old(cuda * 1000 + minor * 10, J->m->driver_cuda))
		return 0;
	f = ct_finding_add(&p->findings, CT_F_DRIVER_TOO_OLD, p->cuda_from,
			   "%s is built for CUDA %s, newer than the driver's CUDA %s", p->name,
			   p->cuda, ct_cuda_version_words(J->m->driver_cuda, dv, sizeof(dv)));
	ct_finding_evidence(f, "built for CUDA %s: %s", p->cuda, p->cuda_from);
	ct_finding_evidence(f, "its CUDA calls fail with \"CUDA driver version is insufficient "
			       "for CUDA runtime version\" (35)");
	ct_driver_fix(f, cuda * 1000 + minor * 10, J->m->driver_cuda, NULL, NULL, true);
	return cuda;
}

static const char *verdict_of(const struct ct_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->f[i].severity == CT_SEV_ERROR)
			return ct_finding_id(fs->f[i].code);
	return "ok";
}

/* A string of its own, printf-made. */
static char *xwords(const char *fmt, ...) __attribute__((format(__printf__, 1, 2)));
static char *xwords(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ct_xstrdup(buf);
}

/* Does d require torch (outside its extras)? */
static bool requires_torch(const struct ct_dist *d)
{
	return ct_dist_requirement(d, "torch") != NULL;
}

/* The package's files another distribution of the site wrote over (both RECORDs list them). */
static void replaced(struct ct_pkg *p, const struct ct_dist *d)
{
	struct ct_finding *f = NULL;
	size_t i, n = 0;

	for (i = 0; d->replaced_by && i < d->nfiles; i++)
		if (d->replaced_by[i] && ct_python_shared_object(ct_path_base(d->files[i])))
			n++;
	for (i = 0; n && d->replaced_by && i < d->nfiles; i++) {
		if (!d->replaced_by[i] || !ct_python_shared_object(ct_path_base(d->files[i])))
			continue;
		if (!f) {
			f = ct_finding_add(&p->findings, CT_F_LIB_MIXED_VERSIONS, d->files[i],
					   "%zu librar%s of %s %s %s %s's now: installed later, it wrote "
					   "its own over them",
					   n, n == 1 ? "y" : "ies", p->name, p->version,
					   n == 1 ? "is" : "are", d->replaced_by[i]);
			ct_finding_evidence(f, "both distributions' RECORD list these files; their "
					       "size is the one %s's RECORD gives",
					    d->replaced_by[i]);
			ct_finding_fix(f, "keep the two in separate venvs; or pip install "
					  "--force-reinstall --no-deps %s==%s to get these files back "
					  "(then %s's users get %s's)",
				       p->name, p->version, d->replaced_by[i], p->name);
		}
		ct_finding_evidence(f, "%s: %s's", d->files[i], d->replaced_by[i]);
	}
}

/* The package's objects in their dependency order (pkgload.h). */
static void order_modules(struct ct_pkg *p)
{
	char **names = ct_xcalloc(p->nmods + 1, sizeof(*names));
	size_t *order = ct_xcalloc(p->nmods + 1, sizeof(*order)), i;
	struct ct_pkg_module *sorted = ct_xcalloc(p->nmods + 1, sizeof(*sorted));

	for (i = 0; i < p->nmods; i++)
		names[i] = p->mods[i].path;
	ct_pkg_dependency_order(names, p->nmods, order);
	for (i = 0; i < p->nmods; i++)
		sorted[i] = p->mods[order[i]];
	if (p->nmods) /* a package without objects has no array at all */
		memcpy(p->mods, sorted, p->nmods * sizeof(*sorted));
	free(sorted);
	free(order);
	free(names);
}

/* What loading a package's own objects left, per object (nown of them). */
struct loads {
	size_t nown;
	struct ct_pkg_builds builds;
	bool *is_build, *skipped;  /* one build per CUDA release; not loaded */
	size_t *k0s, *k1s;         /* each dlopen's lookups [k0, k1) */
	size_t *roots, nroots;     /* the objects dlopened, by index in the load */
	bool *quiet;               /* lookups that draw no finding (on-demand libraries) */
};

static void loads_release(struct loads *ls)
{
	free(ls->is_build);
	free(ls->skipped);
	free(ls->k0s);
	free(ls->k1s);
	free(ls->roots);
	free(ls->quiet);
}

/*
 * dlopen each object of p in L, as its import would: of one build per
 * CUDA release only the one it picks (T: torch's CUDA); then the
 * libraries opened on demand only, whose lookups draw no finding.
 */
static void load_modules(struct ct_pkg *p, struct ct_loader *L, const struct ct_pkg_torch *T,
			 struct loads *ls)
{
	char **paths = ct_xcalloc(p->nmods + 1, sizeof(*paths));
	const struct ct_pkg_builds *b = &ls->builds;
	size_t i, k;

	ls->nown = p->nmods;
	ls->is_build = ct_xcalloc(p->nmods + 1, sizeof(*ls->is_build));
	ls->skipped = ct_xcalloc(p->nmods + 1, sizeof(*ls->skipped));
	ls->k0s = ct_xcalloc(p->nmods + 1, sizeof(*ls->k0s));
	ls->k1s = ct_xcalloc(p->nmods + 1, sizeof(*ls->k1s));
	ls->roots = ct_xcalloc(p->nmods + 1, sizeof(*ls->roots));
	for (i = 0; i < p->nmods; i++)
		paths[i] = p->mods[i].path;
	ct_pkg_builds_pick(p->name, paths, p->nmods, T, ls->is_build, &ls->builds);
	free(paths);
	for (i = 0; i < p->nmods; i++) {
		struct ct_pkg_module *m = &p->mods[i];
		const struct ct_lookup *lk, *miss;
		const struct ct_lobj *who = NULL;
		const char *lacks;
		char words[1024];

		if (ls->is_build[i] && (long)i != b->pick) {
			m->note = b->pick >= 0
					  ? xwords("not loaded: %s loads %s instead (%s)", p->name,
						   ct_path_base(p->mods[b->pick].path), b->why)
					  : xwords("not loaded: %s asks for %s (%s)", p->name,
						   b->wanted[0] ? b->wanted : "its CPU library", b->why);
			ls->skipped[i] = true;
			continue;
		}
		if (ls->is_build[i])
			m->note = xwords("the build %s loads (%s)", p->name, b->why);
		ls->k0s[i] = L->nlookups;
		lk = ct_pkg_dlopen(L, m->path);
		ls->k1s[i] = L->nlookups;
		for (k = 0; lk->object && k < L->nobjs; k++)
			if (L->objs[k] == lk->object)
				ls->roots[ls->nroots++] = k;
		if ((miss = ct_pkg_failed(L, ls->k0s[i], true, NULL, 0))) {
			snprintf(words, sizeof(words), "%s: %s", miss->name,
				 miss->error ? miss->error : "not found");
			m->load_error = ct_xstrdup(words);
		} else if (lk->object && (lacks = tree_missing(L, lk->object, &who))) {
			/* Mapped by an earlier load (import torch) that failed. */
			snprintf(words, sizeof(words), "%s: not found (needed by %s)", lacks,
				 ct_path_base(who->path));
			m->load_error = ct_xstrdup(words);
		} else {
			m->loaded = lk->object != NULL;
		}
	}
	ls->quiet = ct_xcalloc(L->nlookups + 1, sizeof(*ls->quiet));
	for (i = 0; i < p->nmods; i++) {
		struct ct_pkg_module *m = &p->mods[i];
		char lacks[512];

		if (!m->load_error || m->note ||
		    !ct_pkg_on_demand(L, m->path, ls->k0s[i], ls->k1s[i], lacks, sizeof(lacks)))
			continue;
		m->note = xwords("no library needs it: its package's other libraries open it on "
				 "demand, where %s (not CUDA's) are installed; not judged",
				 lacks);
		for (k = ls->k0s[i]; k < ls->k1s[i]; k++)
			ls->quiet[k] = true;
	}
}

/* The build import asks for is not shipped: its first native call fails. */
static void build_missing(struct ct_pkg *p, const struct ct_pkg_builds *b,
			  const struct ct_pkg_torch *T)
{
	struct ct_finding *f;

	if (!b->n || b->pick >= 0 || !b->wanted[0])
		return;
	f = ct_finding_add(&p->findings, CT_F_LIB_NOT_FOUND, p->meta, "'%s' is not in %s %s (%s)",
			   b->wanted, p->name, p->version, b->why);
	ct_finding_evidence(f, "%s %s ships the builds for CUDA %s", p->name, p->version,
			    b->shipped);
	if (b->forced) {
		ct_finding_evidence(f, "%s names the build outright, with no fallback: its first "
				       "native call fails",
				    b->variable);
		ct_finding_fix(f, "unset %s (%s then picks the build for torch's CUDA), or set it to "
				  "one of %s",
			       b->variable, p->name, b->shipped);
	} else {
		ct_finding_evidence(f, "no build of that CUDA major: %s does not take another "
				       "major's",
				    p->name);
		ct_finding_fix(f, "install a release of %s with a build for torch's CUDA %d (pip "
				  "install -U %s)",
			       p->name, T->cuda_major, p->name);
	}
}

/* PyTorch's own libraries of the load, added to torch's objects (their device code). */
static void torch_libraries(struct ct_pkg *p, const struct ct_loader *L)
{
	size_t i, k;

	for (i = 0; i < L->nobjs; i++) {
		const char *path = L->objs[i]->path;

		if (!ct_framework_library(path))
			continue;
		for (k = 0; k < p->nmods && !same_file(p->mods[k].path, path); k++)
			;
		if (k == p->nmods) {
			struct ct_pkg_module *m = add_module(p, path);

			m->device_code = ct_pkg_has_device_code(path);
			m->loaded = true;
		}
	}
}

/*
 * Judge dist as a package when one of its shared objects counts; false
 * (nothing kept) otherwise.
 */
static bool judge_package(struct judge *J, struct ct_pyenv *env, const struct pkgctx *x,
			  const char *site)
{
	const struct ct_dist *dist = x->dist;
	const struct ct_pkg_machine *M = J->m;
	char c_module[PATH_MAX] = "";
	struct ct_pkg p = { 0 };
	struct loads ls = { 0 };
	struct ct_loader L;
	struct ct_pkg_together tg;
	size_t i, k0 = 0, o0 = 0, nbase;
	bool real_program, torch = strcmp(dist->name, "torch") == 0;

	for (i = 0; i < dist->nfiles; i++) {
		struct sofacts s;

		env->nscanned++;
		read_facts(dist->files[i], &s);
		if (!s.readable || !s.cuda)
			continue;
		add_module(&p, dist->files[i])->device_code = s.device_code;
		p.needs_torch |= s.torch;
	}
	if (!p.nmods && !torch)
		return false;
	p.name = ct_xstrdup(dist->name);
	p.version = ct_xstrdup(dist->version ? dist->version : "");
	p.site = ct_xstrdup(site);
	p.meta = dist->meta ? ct_xstrdup(dist->meta) : NULL;
	ct_findings_init(&p.findings);
	order_modules(&p);

	real_program = ct_pkg_start(&L, M->L, env->py.real);
	/* Its import imports torch first when it needs torch's libraries or requires torch. */
	if (torch || p.needs_torch || requires_torch(dist))
		ct_pkg_import_torch(&L, M->L, &env->py, x->T, c_module, sizeof(c_module));
	/*
	 * What import torch brings is torch's to judge; a package that needs
	 * it is judged from there on, unless import torch itself fails: then
	 * that is what stops it.
	 */
	if (!torch && c_module[0] && !ct_pkg_failed(&L, 0, false, NULL, 0)) {
		k0 = L.nlookups;
		o0 = L.nobjs;
	}
	nbase = L.nobjs;
	load_modules(&p, &L, x->T, &ls);
	build_missing(&p, &ls.builds, x->T);
	/* The torch import's lookups count for torch and for whatever needs it. */
	package_cuda(&p, &L, torch || c_module[0] ? c_module : NULL);
	ct_pkg_together_init(&tg, &L, nbase, ls.roots, ls.nroots);
	not_found(&p, x, &L, k0, ls.quiet, L.nlookups);
	shadowed(&p, &L, k0);
	mixed(&p, &L, o0, &tg);
	version_gaps(&p, &L, o0);
	replaced(&p, dist);
	ct_pkg_together_release(&tg);
	/*
	 * With a library missing, what it would define is unknown. torch's
	 * own objects are built with its libraries: reading their symbol
	 * tables (libtorch_cpu's is 10 MB) would tell nothing.
	 */
	if (real_program && !torch && !ct_pkg_failed(&L, 0, false, ls.quiet, L.nlookups))
		symbols(J, &p, x, &L);
	/* Device code: the package's objects loaded, and PyTorch's libraries for torch. */
	if (torch)
		torch_libraries(&p, &L);
	for (i = 0; M->ntargets && i < p.nmods; i++)
		if (p.mods[i].device_code && !(i < ls.nown && ls.skipped[i]))
			ct_pkg_judge_code(M, &p, &p.mods[i]);
	driver_check_libs(J, &p, &L, o0, driver_check(J, &p));
	{
		struct ct_toolchain_ask ask = { p.name, p.version, site, M->L, M->targets,
						M->target_names, M->ntargets };

		ct_toolchain_judge(&ask, &p.findings, &p.facts, &p.nfacts);
	}
	loads_release(&ls);
	ct_loader_release(&L);
	ct_findings_group(&p.findings);
	p.verdict = verdict_of(&p.findings);
	env->pkgs = ct_xrealloc(env->pkgs, (env->npkgs + 1) * sizeof(*env->pkgs));
	env->pkgs[env->npkgs++] = p;
	return true;
}

static bool judged_before(const struct ct_pyenv *env, const char *name)
{
	char a[256], b[256];
	size_t i;

	ct_python_normal_name(name, a, sizeof(a));
	for (i = 0; i < env->npkgs; i++)
		if (strcmp(ct_python_normal_name(env->pkgs[i].name, b, sizeof(b)), a) == 0)
			return true;
	return false;
}

static const char *const key_names[CT_PYENV_KEYS] = { "torch", "numpy", "triton" };

/* d, when it is one of the keys (torch, numpy, triton) not seen earlier on sys.path. */
static void note_key(struct ct_pyenv *env, const char *site, const struct ct_dist *d)
{
	char norm[256];
	size_t k;

	if (!d->meta)
		return;
	ct_python_normal_name(d->name, norm, sizeof(norm));
	for (k = 0; k < CT_PYENV_KEYS; k++) {
		struct ct_pyenv_key *key = &env->keys[k];

		if (key->version || (strcmp(norm, key->name) != 0 &&
				     !(k == CT_PYENV_TRITON && strncmp(norm, "pytorch-triton", 14) == 0)))
			continue;
		key->version = ct_xstrdup(d->version ? d->version : "");
		key->dist = ct_xstrdup(d->name);
		key->site = ct_xstrdup(site);
	}
}

/* The first distribution named name on sys.path (sites in order), or NULL. */
static const struct ct_dist *first_dist(const struct ct_site *sites, size_t n, const char *name)
{
	size_t s, k;

	for (s = 0; s < n; s++)
		for (k = 0; k < sites[s].ndists; k++)
			if (sites[s].dists[k].meta && strcmp(sites[s].dists[k].name, name) == 0)
				return &sites[s].dists[k];
	return NULL;
}

int ct_pyenvs_judge(const char *given, const struct ct_pkg_machine *m, struct ct_pyenv **out,
		    size_t *n)
{
	struct ct_python *pys;
	struct judge J = { .m = m, .syms = ct_symcache_new() };
	size_t i, s, k;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ct_pythons_find(given, &pys, n)) < 0) {
		ct_symcache_free(J.syms);
		return rc;
	}
	*out = ct_xcalloc(*n + 1, sizeof(**out));
	for (i = 0; i < *n; i++) {
		struct ct_pyenv *env = &(*out)[i];
		struct ct_site *sites;
		struct ct_pkg_torch torch;
		struct pkgctx x = { .T = &torch };

		env->py = pys[i];
		ct_python_build_read(&env->py, &env->build);
		for (k = 0; k < CT_PYENV_KEYS; k++)
			env->keys[k].name = key_names[k];
		ct_pkg_torch_read(&torch, &env->py);
		sites = ct_xcalloc(env->py.nsites + 1, sizeof(*sites));
		for (s = 0; s < env->py.nsites; s++)
			if (ct_site_read(&sites[s], env->py.sites[s]) < 0)
				memset(&sites[s], 0, sizeof(sites[s]));
		x.torch = first_dist(sites, env->py.nsites, "torch");
		for (s = 0; s < env->py.nsites; s++) {
			/* The first of a name on sys.path is the one imported. */
			for (k = 0; k < sites[s].ndists; k++) {
				note_key(env, sites[s].dir, &sites[s].dists[k]);
				x.dist = &sites[s].dists[k];
				if (!judged_before(env, sites[s].dists[k].name))
					judge_package(&J, env, &x, sites[s].dir);
			}
		}
		for (s = 0; s < env->py.nsites; s++)
			if (sites[s].dir)
				ct_site_release(&sites[s]);
		free(sites);
		ct_pkg_torch_release(&torch);
	}
	free(pys);
	ct_symcache_free(J.syms);
	return 0;
}

void ct_pyenvs_free(struct ct_pyenv *envs, size_t n)
{
	size_t i, k, m;

	for (i = 0; i < n; i++) {
		for (k = 0; k < envs[i].npkgs; k++) {
			struct ct_pkg *p = &envs[i].pkgs[k];

			for (m = 0; m < p->nmods; m++) {
				free(p->mods[m].path);
				free(p->mods[m].load_error);
				free(p->mods[m].note);
				free(p->mods[m].verdicts);
			}
			free(p->mods);
			free(p->name);
			free(p->version);
			free(p->site);
			free(p->meta);
			for (m = 0; m < p->nfacts; m++)
				free(p->facts[m]);
			free(p->facts);
			ct_findings_release(&p->findings);
		}
		free(envs[i].pkgs);
		for (k = 0; k < CT_PYENV_KEYS; k++) {
			free(envs[i].keys[k].version);
			free(envs[i].keys[k].dist);
			free(envs[i].keys[k].site);
		}
		ct_python_release(&envs[i].py);
	}
	free(envs);
}

int ct_pyenvs_worst(const struct ct_pyenv *envs, size_t n)
{
	int worst = -1, w;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < envs[i].npkgs; k++)
			if ((w = ct_findings_worst(&envs[i].pkgs[k].findings)) > worst)
				worst = w;
	return worst;
}

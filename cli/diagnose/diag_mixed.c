/*
 * lib-mixed-versions (diagnose.h) by the libraries a process maps: two
 * versions or copies of one library family (cuDNN's pieces are one), two
 * cuDNN releases or folders, and majors each loaded under its own soname
 * for the build that asked for it. diag_builds.c judges what each object
 * was built for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "diag_internal.h"
#include "libnames.h"
#include "util.h"

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
	char preloader[200];         /* a package's import that preloaded it by ctypes
					("torch 2.15.0"): path is that package's first file */
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
	const char *both = NULL, *preloader = NULL;
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
		const char *a = asker_of(o), *pfile;
		struct ct_dist_info d;
		char want[64], pre[200] = "";

		if (known)
			snprintf(want, sizeof(want), "CUDA %d", copy_cuda(c, o));
		else
			snprintf(want, sizeof(want), "%s", ct_dx_soname(c, o));
		for (k = 0; k < nwants && strcmp(wants[k], want) != 0; k++)
			;
		if (k == nwants && nwants < 4)
			snprintf(wants[nwants++], sizeof(wants[0]), "%s", want);
		/* A package's import that loaded it by ctypes is the asker, not _ctypes. */
		if (ct_dx_ctypes_loader(c, o, &d, &pfile)) {
			a = pfile;
			snprintf(pre, sizeof(pre), "%s %s", d.name, d.version);
		}
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
		snprintf(roots[nroots].preloader, sizeof(roots[0].preloader), "%s", pre);
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
		ct_dx_asker_in(c, m->copies[i], who, sizeof(who));
		ct_finding_evidence(f, "%s, %s", m->copies[i]->path, who);
	}
	/* An asker of two majors (a program that loads both itself): no build of it for the other's. */
	for (i = 0; i < nroots; i++)
		for (k = 0; k < nroots; k++)
			if (k != i && strcmp(roots[i].path, roots[k].path) == 0) {
				both = both ? both : roots[i].path;
				roots[i].both = true;
				if (roots[i].preloader[0] && !preloader)
					preloader = roots[i].preloader;
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
	if (both && preloader)
		/*
		 * torch 2.15 preloads each library from the first
		 * nvidia/<name>/lib on sys.path, before nvidia/cu13/lib: the
		 * -cu12 wheels another framework installed there win.
		 */
		snprintf(fix + len, sizeof(fix) - len,
			 "%s's import loads both CUDAs itself: it preloads the CUDA libraries "
			 "from the wheels' folders by path, and takes another package's wheels "
			 "for another CUDA (nvidia/<name>/lib) where they lie; for one CUDA in "
			 "the process, give each framework its own environment, or install "
			 "builds of both for one CUDA",
			 preloader);
	else if (both)
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

/*
 * A wheel's file that another wheel's overwrote: two packages for two
 * CUDA majors that install one file (nvidia-cudnn-cu12 and -cu13 both
 * install nvidia/cudnn/lib/libcudnn.so.9; TensorFlow's [and-cuda] brings
 * one, torch the other). Both RECORDs list it, its size is the one
 * installed last's, and every package that loads it gets that build: one
 * finding per pair, with the files of the process that are theirs.
 */
static void replaced_wheels(struct ctx *c)
{
	struct ct_dist_info claims[4], req;
	const struct ct_loaded **done = ct_xcalloc(c->nmapped + 1, sizeof(*done));
	size_t i, k, j, n, owner, ndone = 0;

	for (i = c->ninherited; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		struct ct_finding *f = NULL;
		char who[512], v[64];
		int cu_owner, cu_other;

		if (o->main || o->shim || !ct_cuda_library(o->path))
			continue;
		for (k = 0; k < ndone && done[k] != o; k++)
			;
		if (k < ndone || (n = ct_dist_claims(o->path, claims, 4, &owner)) < 2 || owner >= n)
			continue;
		cu_owner = ct_dist_cuda(claims[owner].name);
		for (k = 0; k < n && !f; k++) {
			const char *rel;

			cu_other = ct_dist_cuda(claims[k].name);
			if (k == owner || !cu_owner || !cu_other || cu_other == cu_owner)
				continue;
			ct_dx_version(c, o->path, v, sizeof(v));
			if (ct_dist_requirer(o->path, claims[k].name, &req))
				f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS, o->path,
						   "'%s' is %s %s, a build for CUDA %d: it replaced the "
						   "file of %s %s, a build for CUDA %d, which %s %s "
						   "requires",
						   ct_dx_base(o->path), claims[owner].name,
						   claims[owner].version, cu_owner, claims[k].name,
						   claims[k].version, cu_other, req.name, req.version);
			else
				f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS, o->path,
						   "'%s' is %s %s, a build for CUDA %d: it replaced the "
						   "file of %s %s, a build for CUDA %d",
						   ct_dx_base(o->path), claims[owner].name,
						   claims[owner].version, cu_owner, claims[k].name,
						   claims[k].version, cu_other);
			/* Every file of the process that is theirs too (cuDNN's pieces). */
			for (j = i; j < c->nmapped; j++) {
				const struct ct_loaded *x = c->mapped[j];
				struct ct_dist_info xc[4];
				size_t xn, xo, y;

				if (x != o && (x->main || x->shim || !ct_cuda_library(x->path)))
					continue;
				xn = x == o ? n : ct_dist_claims(x->path, xc, 4, &xo);
				for (y = 0; x != o && y < xn; y++)
					if (strcmp(xc[y].name, claims[k].name) == 0)
						break;
				if (x != o && (y == xn || xo >= xn ||
					       strcmp(xc[xo].name, claims[owner].name) != 0))
					continue;
				ct_dx_version(c, x->path, v, sizeof(v));
				ct_dx_asker_in(c, x, who, sizeof(who));
				ct_finding_evidence(f, "%s (%s), %s", x->path, v[0] ? v : "?", who);
				done[ndone++] = x;
			}
			rel = strstr(o->path, "/site-packages/");
			ct_finding_evidence(f, "the RECORDs of both list %s: pip installed the two "
					       "packages' files in one place, and the one installed "
					       "last overwrote the other's; the file's size is %s's",
					    rel ? rel + 15 : o->path, claims[owner].name);
			if (ct_dist_requirer(o->path, claims[owner].name, &req))
				ct_finding_evidence(f, "%s %s requires %s", req.name, req.version,
						    claims[owner].name);
			ct_finding_fix(f, "give each framework its own environment (a venv each); "
					  "in one, use builds of all of them for one CUDA, so that one "
					  "%s serves them all",
				       ct_dx_base(o->path));
			ct_finding_fix_line(f, "pip install --force-reinstall %s==%s puts the CUDA "
					       "%d build back, and gives the other packages that one",
					    claims[k].name, claims[k].version, cu_other);
			ct_dx_where(c, f);
		}
	}
	free(done);
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
				ct_dx_asker_in(c, a, who, sizeof(who));
				ct_finding_evidence(f, "%s, %s", a->path, who);
				env |= a->via == CT_RULE_LD_LIBRARY_PATH;
				pip |= ct_pip_installed(a->path);
			}
			if (cudnn && dif[k].releases)
				f->severity = CT_SEV_ERROR;
			ct_dx_asker_in(c, b, who, sizeof(who));
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
	replaced_wheels(c);
	free(m.copies);
	free(m.family_end);
	free(copies);
	free(dif);
	free(st);
}

/*
 * What each object of a process was built for, judged (diag_internal.h):
 * lib-mixed-versions when one process mixes builds for two CUDA majors,
 * driver-too-old when a library is built for a CUDA newer than the driver
 * supports. builds.c says which CUDA each object was built for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "copies.h"
#include "diag_internal.h"
#include "driver_rule.h"
#include "libnames.h"
#include "rules.h"
#include "util.h"

struct built {
	const struct ct_loaded *o;
	int cuda;
	char why[256];
};

/* Read from what the file needs or is, not a lower bound from its device code? */
static bool exact_build(const struct built *b)
{
	return strncmp(b->why, "needs ", 6) == 0 || strncmp(b->why, "its soname ", 11) == 0;
}

static bool asked_without_major(struct ctx *c, const struct ct_loaded *o);

/*
 * Without a runtime mapped (cuBLASLt links its cudart in), the process's
 * CUDA is the one its CUDA libraries' own sonames say (libcublasLt.so.11:
 * CUDA 11), those it asked for by a name that says a major; 0 when they
 * say two, or none does. *rt: the first of them.
 */
static int libraries_major(struct ctx *c, const struct ct_loaded **rt)
{
	int major = 0, m;
	size_t i;
	char why[256];

	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (o->shim || !ct_cuda_library(o->path) || asked_without_major(c, o) ||
		    !(m = ct_dx_build(c, o, why, sizeof(why))) ||
		    strncmp(why, "its soname ", 11) != 0)
			continue;
		if (major && m / 1000 != major)
			return 0;
		if (!major)
			*rt = o;
		major = m / 1000;
	}
	return major;
}

/* The process's own CUDA: its runtime's major; 0 with none or two. */
static int process_major(struct ctx *c, const struct ct_loaded **rt)
{
	int major = 0;
	size_t i;

	*rt = NULL;
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		const char *so = ct_dx_soname(c, o);
		int m;

		if (o->shim || !(m = ct_runtime_major(so ? so : ct_dx_base(o->path))))
			continue;
		/* Two runtimes, or a renamed one: the family and renamed rules speak. */
		if ((major && m != major) || ct_dx_renamed(c, o))
			return 0;
		major = m;
		*rt = o;
	}
	return major ? major : libraries_major(c, rt);
}

/*
 * Does a build for another major than the process's count? Every CUDA
 * library (each is built per major and needs that major's siblings), and
 * anything that needs a CUDA soname of another major. An extension whose
 * CUDA runtime is linked in runs beside the process's: its device code
 * is judged against the driver and GPU by the device-code rules
 * (ptx-too-new, no-kernel-image), not here. Device code gives a lower
 * bound only (CUDA 12.4's libcufft.so.11 keeps PTX of ISA 7.0): an older
 * one says nothing.
 */
static bool counts(const struct built *b, int major)
{
	bool exact = exact_build(b);

	if (b->cuda / 1000 == major || (!exact && b->cuda / 1000 < major))
		return false;
	return exact || ct_cuda_library(b->o->path);
}

/*
 * A library whose own soname alone says its CUDA (libnvrtc.so.13) is
 * another finding's part when another copy of its family is mapped (the
 * family's two versions: ct_dx_rule_mixed), or when what asked for it is
 * built for its CUDA too (that asker's finding names it: "needs
 * libnvrtc.so.13"). What is left is a library of another CUDA that an
 * object of the process's own CUDA took: cuBLASLt 11's dlopen of
 * "libnvrtc.so", which ld.so.cache gives to CUDA 13's.
 */
static bool said_elsewhere(struct ctx *c, const struct built *bs, size_t n, size_t i)
{
	const struct ct_loaded *o = bs[i].o;
	const char *asker = o->request ? o->request->caller : o->by;
	char a[128], b[128];
	size_t k;

	if (strncmp(bs[i].why, "its soname ", 11) != 0)
		return false;
	ct_dx_stem(o->soname ? o->soname : o->path, a, sizeof(a));
	for (k = 0; k < c->nmapped; k++) {
		const struct ct_loaded *m = c->mapped[k];

		if (m != o && !m->shim && !ct_dx_same_object(m, o) &&
		    strcmp(ct_dx_stem(m->soname ? m->soname : m->path, b, sizeof(b)), a) == 0)
			return true;
	}
	for (k = 0; asker && k < n; k++)
		if (bs[k].o && k != i && strcmp(bs[k].o->path, asker) == 0 &&
		    bs[k].cuda / 1000 == bs[i].cuda / 1000)
			return true;
	return false;
}

/* Was o asked for by a name without a major ("libnvrtc.so"), its soname having one? */
static bool asked_without_major(struct ctx *c, const struct ct_loaded *o)
{
	const char *name = o->request && o->request->name ? o->request->name : o->name;
	const char *so = ct_dx_soname(c, o);

	return name && !strchr(name, '/') && !strstr(name, ".so.") && so && strstr(so, ".so.");
}

static void dirname_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	snprintf(buf, size, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
}

void ct_dx_rule_builds(struct ctx *c)
{
	const struct ct_loaded *rt;
	struct built *bs = ct_xcalloc(c->nmapped + 1, sizeof(*bs));
	const char **names = ct_xcalloc(c->nmapped + 1, sizeof(*names));
	bool *gone = ct_xcalloc(c->nmapped + 1, sizeof(*gone)), python;
	int major = process_major(c, &rt), driver = (int)c->p->driver.version;
	size_t i, k, n = 0;
	char rtwhy[512];

	if (!major)
		goto out;
	for (i = 0; i < c->nmapped; i++) {
		bs[n].o = c->mapped[i];
		if ((bs[n].cuda = ct_dx_build(c, c->mapped[i], bs[n].why, sizeof(bs[n].why))))
			n++;
	}
	/* Said by another finding: left out before any is made (said_elsewhere reads them all). */
	for (i = 0; i < n; i++)
		gone[i] = said_elsewhere(c, bs, n, i);
	for (i = 0; i < n; i++)
		if (gone[i])
			bs[i].o = NULL;
	ct_dx_asker_in(c, rt, rtwhy, sizeof(rtwhy));
	python = ct_dx_python(c);
	/* One finding per folder that brought them: one cause. */
	for (i = 0; i < n; i++) {
		char dir[4096], dk[4096], list[1024] = "";
		const struct ct_loaded *unversioned = NULL;
		struct ct_finding *f;
		int top = 0;
		size_t nnames = 0;
		bool env = false;

		if (!bs[i].o || !counts(&bs[i], major) || i < c->ninherited)
			continue;
		dirname_of(bs[i].o->path, dir, sizeof(dir));
		for (k = i; k < n; k++) {
			const char *so;
			bool other;

			if (!bs[k].o || !counts(&bs[k], major) || bs[k].cuda / 1000 != bs[i].cuda / 1000)
				continue;
			dirname_of(bs[k].o->path, dk, sizeof(dk));
			if (strcmp(dk, dir) != 0)
				continue;
			so = ct_dx_soname(c, bs[k].o);
			/* A link without a major names what it is: "libnvrtc.so (libnvrtc.so.13)". */
			other = so && strcmp(so, ct_dx_base(bs[k].o->path)) != 0 &&
				asked_without_major(c, bs[k].o);
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s%s%s%s",
				 list[0] ? ", " : "", ct_dx_base(bs[k].o->path), other ? " (" : "",
				 other ? so : "", other ? ")" : "");
		}
		f = ct_finding_add(&c->d->findings, CT_F_LIB_MIXED_VERSIONS, bs[i].o->path,
				   "builds for CUDA %d in a process built for CUDA %d: %s from %s",
				   bs[i].cuda / 1000, major, list, dir);
		for (k = i; k < n; k++) {
			char who[512];

			if (!bs[k].o || !counts(&bs[k], major) || bs[k].cuda / 1000 != bs[i].cuda / 1000)
				continue;
			dirname_of(bs[k].o->path, dk, sizeof(dk));
			if (strcmp(dk, dir) != 0)
				continue;
			ct_dx_asker_in(c, bs[k].o, who, sizeof(who));
			ct_finding_evidence(f, "%s: built for CUDA %d (%s); %s", bs[k].o->path,
					    bs[k].cuda / 1000, bs[k].why, who);
			if (asked_without_major(c, bs[k].o)) {
				const struct ct_loaded *u = bs[k].o;

				ct_finding_evidence(f, "'%s' says no major: %s gives whichever "
						       "library that name links to, here CUDA %d's",
						    u->request && u->request->name ? u->request->name
										  : u->name,
						    ct_rule_words(u->via), bs[k].cuda / 1000);
				unversioned = unversioned ? unversioned : u;
			}
			env |= bs[k].o->via == CT_RULE_LD_LIBRARY_PATH;
			top = bs[k].cuda > top ? bs[k].cuda : top;
			names[nnames++] = ct_dx_base(bs[k].o->path);
			if (k != i)
				bs[k].o = NULL;
		}
		ct_finding_evidence(f, "the process's CUDA %d: %s, %s", major, rt->path, rtwhy);
		for (k = 0; k < n; k++)
			if (bs[k].o && bs[k].o != rt && bs[k].cuda / 1000 == major &&
			    strncmp(bs[k].why, "needs ", 6) == 0 && !ct_cuda_library(bs[k].o->path)) {
				ct_finding_evidence(f, "%s: built for CUDA %d (%s)", bs[k].o->path,
						    major, bs[k].why);
				break;
			}
		if (unversioned) {
			const struct ct_loaded *u = unversioned;
			char *fix = ct_dx_unversioned_fix(c, u->request && u->request->name
								 ? u->request->name
								 : u->name,
							  u->request ? u->request->caller : u->by,
							  major);

			ct_finding_fix(f, "%s", fix);
			free(fix);
		}
		else if (python)
			ct_finding_fix(f, "use builds of these libraries for CUDA %d (pip: the -cu%d "
					  "packages, the same index as your framework)%s",
				       major, major,
				       env ? "; or take their folder off LD_LIBRARY_PATH" : "");
		else
			ct_finding_fix(f, "use builds of these libraries for CUDA %d%s", major,
				       env ? "; or take their folder off LD_LIBRARY_PATH" : "");
		ct_finding_fix_line(f, "or move the whole process to CUDA %d: %s",
				    bs[i].cuda / 1000,
				    python ? "a framework built for it"
					   : "builds of all its libraries for it");
		ct_dx_where(c, f);
		/* Built for a CUDA newer than the driver: its kernels cannot run. */
		if (driver > 0 && bs[i].cuda / 1000 > major) {
			const char *from[1];
			char lib[1200];
			struct ct_driver_need need = {
				.seen = CT_DRIVER_SEEN_PROCESS,
				.runtime = top / 1000 * 1000,
				.runtime_minor_known = false,
				.library = lib,
				.libraries = names,
				.nlibraries = nnames,
				.runtime_from = from,
				.nruntime_from = 1,
				.driver = driver,
				.driver_path = c->p->driver.path ? c->p->driver.path : "libcuda.so.1",
				.driver_release = "",
				.no_pip = !python,
			};
			char dver[64];

			snprintf(lib, sizeof(lib), "%.700s from %.480s", list, dir);
			from[0] = bs[i].why;
			ct_dx_release(c, need.driver_path, dver, sizeof(dver));
			need.driver_release = dver;
			if ((f = ct_driver_rule(&c->d->findings, &need)))
				ct_dx_where(c, f);
		}
		bs[i].o = NULL;
	}
out:
	free(gone);
	free(names);
	free(bs);
}

/*
 * Which CUDA each object of a process was built for, and the rules that
 * judge it (diag_internal.h): lib-mixed-versions when one process mixes
 * builds for two CUDA majors, driver-too-old when a library is built for
 * a CUDA newer than the driver supports.
 *
 * A build's CUDA, from what the file itself says (decided by experiment on
 * Debian's PyTorch 2.6 for CUDA 12.4 and the CUDA 13.0 toolkit; docs/
 * findings.md, "lib-mixed-versions"):
 *  - the CUDA sonames it needs whose major is CUDA's own (libcudart,
 *    libnvrtc, libnvJitLink, libcublas, libcublasLt): exact;
 *  - "Cuda compilation tools, release X.Y" in its .nv_fatbin (nvcc 13
 *    leaves it there uncompressed; CUDA 12.4's builds do not);
 *  - its newest PTX: ISA 9.x is only written by CUDA 13, 8.x by 12.
 * The last two are lower bounds (CUDA 12.4's libcufft.so.11 keeps PTX of
 * ISA 7.0): the newest wins, and one older than the process's CUDA says
 * nothing. A library that says
 * none of these (libcuda, libnvToolsExt, cuDNN's core) has no CUDA of its
 * own, except cuDNN: its core and graph library hold no device code, and
 * its siblings in the same folder (libcudnn_cnn, _ops, _adv, _engines_*)
 * say which CUDA the release was built for.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "cudart_need.h"
#include "diag_internal.h"
#include "driver_rule.h"
#include "elfscan.h"
#include "builds.h"
#include "libnames.h"
#include "util.h"

bool ct_dx_file_release(struct ctx *c, const char *path, int *cuda)
{
	struct ct_file_build *b = ct_dx_file_build(c, path);

	if (!b->release_known) {
		if (!ct_fatbin_compiler_release(ct_dx_code_scan(c, path), &b->release))
			b->release = 0;
		b->release_known = true;
	}
	*cuda = b->release;
	return b->release != 0;
}

/* The sonames whose major is CUDA's own. */
static int needed_major(const char *name)
{
	static const char *const own[] = { "libcudart.so.", "libnvrtc.so.", "libnvJitLink.so.",
					   "libcublas.so.", "libcublasLt.so." };
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strncmp(name, own[i], strlen(own[i])) == 0)
			return atoi(name + strlen(own[i]));
	return 0;
}

/*
 * Where a file's facts come from: a diagnosis' (read once per file, kept
 * with it) or a path's own (read for the question, doctor's).
 */
struct build_source {
	const struct ct_elfinfo *(*info)(void *arg, const char *path);
	const struct elfscan_file *(*code)(void *arg, const char *path);
	void *arg;
};

/* What one file says of its CUDA: *cuda (0 unknown) and why, into why. */
static void read_build(const struct build_source *src, const char *path, int *cuda, char *why,
		       size_t size)
{
	const struct ct_elfinfo *e = src->info(src->arg, path);
	const struct elfscan_file *f;
	char w[32];
	size_t i;
	int v;

	*cuda = 0;
	why[0] = '\0';
	for (i = 0; e && i < e->nneeded; i++)
		if ((v = needed_major(e->needed[i])) > 0) {
			*cuda = v * 1000;
			snprintf(why, size, "needs %s", e->needed[i]);
			return;
		}
	/* The device code only when the dynamic section does not say. */
	f = src->code(src->arg, path);
	if (ct_fatbin_compiler_release(f, &v) && v > *cuda) {
		*cuda = v;
		snprintf(why, size, "device code compiled by CUDA %s",
			 ct_cuda_version_words(v, w, sizeof(w)));
	}
	for (i = 0; f && i < f->nimages; i++) {
		const struct elfscan_image *img = &f->images[i];

		if (img->kind != ELFSCAN_KIND_PTX)
			continue;
		v = ct_ptx_isa_cuda(img->version_major, img->version_minor);
		if (v < 0 && img->version_major >= 7)
			v = (int)(img->version_major + 4) * 1000; /* 9.x: 13, newer than the table */
		if (v / 1000 > *cuda / 1000) {
			*cuda = v / 1000 * 1000;
			snprintf(why, size, "PTX ISA %u.%u (CUDA %d)", img->version_major,
				 img->version_minor, v / 1000);
		}
	}
}

static const struct ct_elfinfo *ctx_info(void *arg, const char *path)
{
	return ct_dx_elfinfo_scan(arg, path);
}

static const struct elfscan_file *ctx_code(void *arg, const char *path)
{
	return ct_dx_code_scan(arg, path);
}

/* read_build, once per file: every rank of a job asks it of the same libraries. */
static void file_build(struct ctx *c, const char *path, int *cuda, char *why, size_t size)
{
	struct ct_file_build *b = ct_dx_file_build(c, path);

	if (!b->known) {
		/* The longest evidence: "needs " and a DT_NEEDED name (at most a path). */
		char *w = ct_xmalloc(PATH_MAX + 64);
		struct build_source src = { ctx_info, ctx_code, c };

		read_build(&src, path, &b->cuda, w, PATH_MAX + 64);
		b->why = ct_xstrdup(w);
		b->known = true;
		free(w);
	}
	*cuda = b->cuda;
	snprintf(why, size, "%s", b->why);
}

/* cuDNN's siblings that hold device code, the smallest first. */
static const char *const cudnn_siblings[] = { "libcudnn_cnn.so.9", "libcudnn_ops.so.9",
					      "libcudnn_adv.so.9",
					      "libcudnn_engines_precompiled.so.9" };

static void cudnn_build(struct ctx *c, const char *path, int *cuda, char *why, size_t size)
{
	const char *slash = strrchr(path, '/');
	char sib[4096], w[256];
	size_t i;

	for (i = 0; slash && i < sizeof(cudnn_siblings) / sizeof(cudnn_siblings[0]); i++) {
		snprintf(sib, sizeof(sib), "%.*s/%s", (int)(slash - path), path, cudnn_siblings[i]);
		file_build(c, sib, cuda, w, sizeof(w));
		if (*cuda) {
			snprintf(why, size, "its release's %s: %s", cudnn_siblings[i], w);
			return;
		}
	}
}

/* One path's facts, read for one question and kept until the next path. */
struct path_facts {
	char *path;
	struct ct_elfinfo info;
	bool info_ok;
	struct elfscan_file code;
	bool code_read, code_ok;
};

static void path_facts_set(struct path_facts *p, const char *path)
{
	if (p->path && strcmp(p->path, path) == 0)
		return;
	if (p->path) {
		ct_elfinfo_release(&p->info);
		if (p->code_read)
			elfscan_file_release(&p->code);
		free(p->path);
	}
	memset(p, 0, sizeof(*p));
	p->path = ct_xstrdup(path);
	ct_elfinfo_init(&p->info);
	p->info_ok = ct_elfinfo_read(&p->info, path) == 0;
}

static const struct ct_elfinfo *path_info(void *arg, const char *path)
{
	struct path_facts *p = arg;

	path_facts_set(p, path);
	return p->info_ok ? &p->info : NULL;
}

static const struct elfscan_file *path_code(void *arg, const char *path)
{
	struct path_facts *p = arg;

	path_facts_set(p, path);
	if (!p->code_read) {
		struct elfscan_options o = { .threads = (unsigned)ct_threads(4) - 1 };

		elfscan_file_init(&p->code);
		p->code_ok = elfscan_scan_path(&p->code, path, &o) == 0;
		p->code_read = true;
	}
	return p->code_ok ? &p->code : NULL;
}

int ct_build_of_file(const char *path, char *why, size_t size)
{
	struct path_facts facts = { 0 };
	struct build_source src = { path_info, path_code, &facts };
	const char *b = strrchr(path, '/'), *slash = b;
	char sib[4096], w[256];
	size_t i;
	int cuda;

	b = b ? b + 1 : path;
	if (ct_dx_is_driver(path) || strncmp(b, "libnvidia-", 10) == 0)
		return 0;
	read_build(&src, path, &cuda, why, size);
	for (i = 0; !cuda && slash && strncmp(b, "libcudnn", 8) == 0 &&
		    i < sizeof(cudnn_siblings) / sizeof(cudnn_siblings[0]);
	     i++) {
		snprintf(sib, sizeof(sib), "%.*s/%s", (int)(slash - path), path, cudnn_siblings[i]);
		read_build(&src, sib, &cuda, w, sizeof(w));
		if (cuda)
			snprintf(why, size, "its release's %s: %s", cudnn_siblings[i], w);
	}
	path_facts_set(&facts, "");
	ct_elfinfo_release(&facts.info);
	free(facts.path);
	return cuda;
}

int ct_dx_build(struct ctx *c, const struct ct_loaded *o, char *why, size_t size)
{
	const char *b = ct_dx_base(o->path);
	int cuda;

	if (o->shim || ct_dx_is_driver(o->path) || strncmp(b, "libnvidia-", 10) == 0)
		return 0;
	file_build(c, o->path, &cuda, why, size);
	if (!cuda && strncmp(b, "libcudnn", 8) == 0)
		cudnn_build(c, o->path, &cuda, why, size);
	return cuda;
}

/* ---- lib-mixed-versions: builds for two CUDA majors ------------------------------------- */

struct built {
	const struct ct_loaded *o;
	int cuda;
	char why[256];
};

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
	return major;
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
	bool exact = strncmp(b->why, "needs ", 6) == 0;

	if (b->cuda / 1000 == major || (!exact && b->cuda / 1000 < major))
		return false;
	return exact || ct_cuda_library(b->o->path);
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
	ct_dx_asker(rt, rtwhy, sizeof(rtwhy));
	/* One finding per folder that brought them: one cause. */
	for (i = 0; i < n; i++) {
		char dir[4096], dk[4096], list[1024] = "";
		struct ct_finding *f;
		int top = 0;
		size_t nnames = 0;
		bool env = false;

		if (!bs[i].o || !counts(&bs[i], major) || i < c->ninherited)
			continue;
		dirname_of(bs[i].o->path, dir, sizeof(dir));
		for (k = i; k < n; k++) {
			if (!bs[k].o || !counts(&bs[k], major) || bs[k].cuda / 1000 != bs[i].cuda / 1000)
				continue;
			dirname_of(bs[k].o->path, dk, sizeof(dk));
			if (strcmp(dk, dir) != 0)
				continue;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", ct_dx_base(bs[k].o->path));
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
			ct_dx_asker(bs[k].o, who, sizeof(who));
			ct_finding_evidence(f, "%s: built for CUDA %d (%s); %s", bs[k].o->path,
					    bs[k].cuda / 1000, bs[k].why, who);
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
		ct_finding_fix(f, "use builds of these libraries for CUDA %d (pip: the -cu%d "
				  "packages, the same index as your framework)%s",
			       major, major,
			       env ? "; or take their folder off LD_LIBRARY_PATH" : "");
		ct_finding_fix_line(f, "or move the whole process to CUDA %d: a framework built for it",
				    bs[i].cuda / 1000);
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
	free(names);
	free(bs);
}

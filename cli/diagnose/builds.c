/*
 * Which CUDA a file was built for: for each object of a process, once per
 * file (diag_internal.h: ct_dx_build; diag_builds.c judges them), and for
 * one file by its path (builds.h: doctor's packages), by the same rules.
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
#include "elfscan.h"
#include "builds.h"
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
	/*
	 * Its own soname, when its major is CUDA's (libnvrtc.so.13): a library
	 * its asker took by a name without a major (cuBLASLt 11 dlopens
	 * "libnvrtc.so") needs nothing that says it.
	 */
	if (e && e->soname && (v = needed_major(e->soname)) > 0) {
		*cuda = v * 1000;
		snprintf(why, size, "its soname is %s", e->soname);
		return;
	}
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

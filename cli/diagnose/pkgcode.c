/* A package's device code, judged as check does; see pkgcode.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archs.h"
#include "compat.h"
#include "elfinfo.h"
#include "elfscan.h"
#include "framework.h"
#include "libnames.h"
#include "pkgcode.h"
#include "util.h"

bool ct_pkg_has_device_code(const char *path)
{
	struct elfscan_options opt = { .no_magic_scan = true, .no_registration = true };
	struct elfscan_file f;
	bool yes;

	/* The known sections alone: a cheap first look, headers only. */
	elfscan_file_init(&f);
	yes = elfscan_scan_path(&f, path, &opt) == 0 && f.nimages > 0;
	elfscan_file_release(&f);
	return yes;
}

/* Does the file link PyTorch (libtorch, libc10)? 1, 0, or -1 when it cannot be read. */
static int links_torch(const char *path)
{
	struct ct_elfinfo e;
	int torch = -1;
	size_t i;

	ct_elfinfo_init(&e);
	if (ct_elfinfo_read(&e, path) == 0)
		for (torch = 0, i = 0; i < e.nneeded && !torch; i++)
			torch = ct_library_torch(e.needed[i]);
	ct_elfinfo_release(&e);
	return torch;
}

void ct_pkg_judge_code(const struct ct_pkg_machine *M, struct ct_pkg *p, struct ct_pkg_module *m)
{
	struct elfscan_options o = { 0 };
	struct elfscan_file f;
	size_t t, i, len = 0;
	bool per_gpu = ct_cuda_library_per_gpu(ct_path_base(m->path));
	/* Code nobody rebuilds by hand: NVIDIA's libraries and PyTorch's own. */
	bool prebuilt = per_gpu || ct_framework_library(m->path);
	char toolkit[256];

	elfscan_file_init(&f);
	o.threads = (unsigned)ct_threads(4) - 1;
	if (elfscan_scan_path(&f, m->path, &o) != 0 || !f.nimages)
		goto out;
	m->device_code = true;
	/* The archs once each, in the order first met. */
	for (i = 0; i < f.nimages; i++) {
		char name[ELFSCAN_ARCH_NAME_MAX], word[ELFSCAN_ARCH_NAME_MAX + 2], have[sizeof(m->archs) + 2];

		elfscan_image_arch_name(&f.images[i], name, sizeof(name));
		snprintf(word, sizeof(word), " %s ", name);
		snprintf(have, sizeof(have), " %s ", m->archs);
		if (strstr(have, word) || len + strlen(name) + 2 >= sizeof(m->archs))
			continue;
		len += (size_t)snprintf(m->archs + len, sizeof(m->archs) - len, "%s%s",
					len ? " " : "", name);
	}
	m->verdicts = ct_xcalloc(M->ntargets + 1, sizeof(*m->verdicts));
	for (t = 0; t < M->ntargets; t++) {
		struct ct_pkg_verdict *pv = &m->verdicts[m->nverdicts++];
		struct ct_verdict v;
		struct ct_finding *fd;
		char gencode[512];

		ct_verdict_judge(&v, &f, &M->targets[t], per_gpu);
		snprintf(pv->target, sizeof(pv->target), "%s", M->target_names[t]);
		pv->verdict = v.verdict;
		pv->fatbins = v.modules;
		pv->sass = v.sass;
		pv->ptx_jit = v.ptx_jit;
		pv->no_image = v.no_image;
		if (v.image >= 0)
			elfscan_image_arch_name(&f.images[v.image], pv->image, sizeof(pv->image));
		if (v.verdict == CT_VERDICT_NO_IMAGE) {
			fd = ct_finding_add(&p->findings, CT_F_NO_KERNEL_IMAGE, m->path,
					    "'%s' has no kernel image for %s", ct_path_base(m->path),
					    M->target_names[t]);
			ct_finding_evidence(fd, "%zu of %zu fatbins have no image that runs on %s "
						"(its device code: %s)",
					    v.no_image, v.modules, M->target_names[t],
					    m->archs);
			ct_finding_evidence(fd, "a kernel of those fails with \"no kernel image is "
						"available for execution on the device\"");
			ct_arch_toolkit_words(M->targets[t].major, M->targets[t].minor, toolkit,
					      sizeof(toolkit));
			if (prebuilt)
				ct_finding_fix(fd, "install a release of %s built for %u.%u%s%s",
					       per_gpu ? ct_path_base(m->path) : p->name, M->targets[t].major,
					       M->targets[t].minor, toolkit[0] ? ", from " : "", toolkit);
			else
				ct_finding_fix(fd, "install a build of %s for %u.%u, or rebuild it with %s",
					       p->name, M->targets[t].major, M->targets[t].minor,
					       ct_arch_build_words(M->targets[t].major,
								   M->targets[t].minor,
								   links_torch(m->path), gencode,
								   sizeof(gencode)));
		} else if (v.verdict == CT_VERDICT_PTX_JIT && !ct_cuda_library(ct_path_base(m->path))) {
			/* NVIDIA's own libraries JIT by design: run mode's rule (diag_devcode.c). */
			fd = ct_finding_add(&p->findings, CT_F_PTX_JIT_ONLY, m->path,
					    "'%s' runs on %s only as PTX, compiled at first launch",
					    ct_path_base(m->path), M->target_names[t]);
			ct_finding_evidence(fd, "%zu of %zu fatbins have PTX but no SASS for %s (its "
						"device code: %s)",
					    v.ptx_jit, v.modules, M->target_names[t], m->archs);
			ct_arch_toolkit_words(M->targets[t].major, M->targets[t].minor, toolkit,
					      sizeof(toolkit));
			if (prebuilt)
				ct_finding_fix(fd, "nothing to rebuild; for SASS, a release of %s built "
						   "for %u.%u%s%s",
					       p->name, M->targets[t].major, M->targets[t].minor,
					       toolkit[0] ? ", from " : "", toolkit);
			else
				ct_finding_fix(fd, "add SASS for %u.%u with %s", M->targets[t].major,
					       M->targets[t].minor,
					       ct_arch_build_words(M->targets[t].major,
								   M->targets[t].minor,
								   links_torch(m->path), gencode,
								   sizeof(gencode)));
		}
		ct_verdict_release(&v);
	}
out:
	elfscan_file_release(&f);
}


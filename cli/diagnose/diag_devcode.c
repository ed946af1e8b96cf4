/*
 * The device code of a process (diagnose.h): no-kernel-image, ptx-too-new
 * and ptx-jit-only, from check's verdicts on each object's device code for
 * the GPUs judged (dx_files.c works them out once per file); the same
 * findings, and driver-too-old, from what the driver said of the modules
 * the process loaded.
 */
#include <stdio.h>
#include <string.h>

#include "archs.h"
#include "compat.h"
#include "cuda_errors.h"
#include "diag_internal.h"
#include "driver_rule.h"
#include "elfscan.h"
#include "libnames.h"

/* ---- each object's device code, as check judges it ----------------------------- */

/* Does the object link PyTorch (libtorch, libc10)? 1, 0, or -1 when its file is unreadable. */
static int links_torch(const struct ctx *c, const char *path)
{
	const struct ct_elfinfo *e = ct_dx_elfinfo(c, path);
	size_t i;

	if (!e)
		return -1;
	for (i = 0; i < e->nneeded; i++)
		if (ct_library_torch(e->needed[i]))
			return 1;
	return 0;
}

void ct_dx_rule_device_code(struct ctx *c)
{
	struct ct_diagnosis *d = c->d;
	const struct ct_proc *p = c->p;
	int64_t driver = p->driver.version;
	size_t i, t;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		const struct ct_file_verdicts *code;
		const struct elfscan_file *f;
		const char *archs;
		char need[32], have[32], gencode[512];

		if (o->shim || !(code = ct_dx_file_verdicts(c, o->path)))
			continue;
		f = code->code;
		archs = code->archs;
		for (t = 0; t < d->ntargets; t++) {
			const struct elfscan_target *tg = &d->targets[t];
			long pick = code->picks[t];
			struct ct_finding *fd;

			if (!code->runnable)
				break;
			if (code->verdicts[t] == CT_VERDICT_NO_IMAGE) {
				fd = ct_finding_add(&d->findings, CT_F_NO_KERNEL_IMAGE, o->path,
						    "'%s' has no kernel image for %s", ct_dx_base(o->path),
						    d->target_names[t]);
				ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
				ct_finding_evidence(fd, "SASS sm_XY runs on X.Z for Z >= Y, sm_XYf within "
							"major X, sm_XYa only on X.Y; plain PTX on any "
							"later GPU");
				ct_finding_evidence(fd, "kernel launches fail with \"no kernel image is "
							"available for execution on the device\"");
				ct_finding_fix(fd, "rebuild %s with %s, or install a build that has it",
					       ct_dx_base(o->path),
					       ct_arch_build_words(tg->major, tg->minor,
								   links_torch(c, o->path), gencode,
								   sizeof(gencode)));
				ct_dx_where(c, fd);
				continue;
			}
			if (code->verdicts[t] != CT_VERDICT_PTX_JIT || pick < 0 ||
			    f->images[pick].kind != ELFSCAN_KIND_PTX)
				continue;
			{
				const struct elfscan_image *img = &f->images[pick];
				int isa = ct_ptx_isa_cuda(img->version_major, img->version_minor);
				char name[ELFSCAN_ARCH_NAME_MAX];

				elfscan_image_arch_name(img, name, sizeof(name));
				if (driver > 0 && !ct_ptx_driver_reads(img->version_major,
								       img->version_minor,
								       (int)driver)) {
					fd = ct_finding_add(&d->findings, CT_F_PTX_TOO_NEW, o->path,
							    "'%s' can run on %s only through %s PTX of ISA "
							    "%u.%u, newer than the driver (CUDA %s) compiles",
							    ct_dx_base(o->path), d->target_names[t], name,
							    img->version_major, img->version_minor,
							    ct_cuda_version_words((int)driver, have,
										  sizeof(have)));
					ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
					if (isa > 0) {
						int newer;
						const char *linux_driver = ct_toolkit_driver(isa, &newer);

						ct_finding_evidence(fd, "PTX ISA %u.%u needs a driver for "
									"CUDA %s (Linux %s or newer)",
								    img->version_major, img->version_minor,
								    ct_cuda_version_words(isa, need,
											  sizeof(need)),
								    linux_driver ? linux_driver : "?");
					}
					ct_finding_evidence(fd, "loading it (with lazy loading: its first "
								"kernel launch) fails with \"the provided "
								"PTX was compiled with an unsupported "
								"toolchain\" (222)");
					ct_finding_fix(fd, "upgrade the driver (to CUDA %s or later), or "
							   "rebuild %s with SASS for %u.%u",
						       isa > 0 ? need : "the PTX's", ct_dx_base(o->path),
						       tg->major, tg->minor);
					ct_dx_where(c, fd);
					continue;
				}
				/*
				 * NVIDIA ships its own libraries with PTX for some
				 * kernels by design (cuFFT 13: 8131 of 11256 fatbins
				 * on 9.0; cuFile: no SASS for 9.0 at all), and no one
				 * but NVIDIA can add SASS: a warning with nothing to
				 * fix, in every PyTorch run. The device code table
				 * (-v) still shows it.
				 */
				if (ct_cuda_library(ct_dx_base(o->path)))
					continue;
				fd = ct_finding_add(&d->findings, CT_F_PTX_JIT_ONLY, o->path,
						    "'%s' runs on %s only by JIT-compiling %s PTX at "
						    "first launch",
						    ct_dx_base(o->path), d->target_names[t], name);
				ct_finding_evidence(fd, "%s holds: %s", o->path, archs);
				if (code->modules[t] > 1)
					ct_finding_evidence(fd, "%zu of its %zu fatbins run only as PTX",
							    code->ptx_only[t], code->modules[t]);
				ct_finding_evidence(fd, "the first launch is slow (the JIT cache is "
							"~/.nv/ComputeCache)");
				ct_finding_fix(fd, "add SASS for %u.%u with %s", tg->major, tg->minor,
					       ct_arch_build_words(tg->major, tg->minor,
								   links_torch(c, o->path), gencode,
								   sizeof(gencode)));
				ct_dx_where(c, fd);
			}
		}
	}
}

/* ---- what the driver said of the device code it was handed ------------------- */

/* The first GPU the process saw, as a target; false when none was recorded. */
static bool first_gpu(const struct ct_proc *p, struct elfscan_target *t, const char **name)
{
	const struct ct_gpu_rec *g = p->driver.ngpus ? &p->driver.gpus[0] : NULL;

	if (!g || elfscan_target_parse(g->cc ? g->cc : "", t) != 0)
		return false;
	*name = g->name ? g->name : "the GPU";
	return true;
}

void ct_dx_rule_modules(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t i;

	for (i = 0; i < p->nmodules; i++) {
		const struct ct_module *m = &p->modules[i];
		enum ct_finding_code code;
		struct elfscan_target gpu;
		const char *gpu_name = NULL;
		struct ct_finding *f;
		char archs[256], text[256], gencode[512];
		size_t n;

		if (m->registration || m->result == 0)
			continue;
		if (m->result == 209 || m->result == 200 || m->result == 223)
			code = CT_F_NO_KERNEL_IMAGE;
		else if (m->result == 222)
			code = CT_F_PTX_TOO_NEW;
		else if (m->result == 35)
			code = CT_F_DRIVER_TOO_OLD;
		else
			continue;
		ct_module_images_words(c->d, m, archs, sizeof(archs));
		/* CUDA's texts end with a full stop; ours go on after them. */
		snprintf(text, sizeof(text), "%s", ct_cu_error_text((int)m->result));
		n = strlen(text);
		if (n && text[n - 1] == '.')
			text[n - 1] = '\0';
		f = ct_finding_add(&c->d->findings, code, m->caller, "%s by '%s' failed: %s (%lld)",
				   m->api, ct_dx_base(m->caller), text, (long long)m->result);
		if (m->file)
			ct_finding_evidence(f, "file: %s", m->file);
		/* The shim reads images only when it could: say so, not "unreadable". */
		ct_finding_evidence(f, "the image holds: %s", archs[0] ? archs : "(not read)");
		if (p->driver.present)
			ct_finding_evidence(f, "driver: %s, supports CUDA %lld.%lld",
					    p->driver.path ? p->driver.path : "?",
					    (long long)(p->driver.version / 1000),
					    (long long)(p->driver.version % 1000 / 10));
		if (m->result == 223)
			ct_finding_fix(f, "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT=1?): allow it, or "
					  "ship SASS for the GPU");
		else if (code == CT_F_NO_KERNEL_IMAGE && first_gpu(p, &gpu, &gpu_name))
			ct_finding_fix(f, "rebuild the code %s loads for sm_%u%u (%s) with %s",
				       ct_dx_base(m->caller), gpu.major, gpu.minor, gpu_name,
				       ct_arch_gencode_words(gpu.major, gpu.minor, gencode,
							     sizeof(gencode)));
		else if (code == CT_F_NO_KERNEL_IMAGE)
			ct_finding_fix(f, "rebuild the code %s loads with SASS (or PTX) for the GPU: "
					  "-gencode arch=compute_XY,code=sm_XY for its compute "
					  "capability",
				       ct_dx_base(m->caller));
		else if (code == CT_F_PTX_TOO_NEW)
			ct_finding_fix(f, "upgrade the driver, or ship SASS for the GPU so that no "
					  "PTX needs compiling");
		else
			ct_driver_fix(f, 0, ct_dx_cuda_of(p->driver.version), NULL, NULL, ct_dx_python(c));
		ct_dx_where(c, f);
	}
}

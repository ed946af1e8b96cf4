/*
 * The judgement of one Python package and what it is judged against, as
 * packages.h (the interpreters and their packages) and pkgcode.h (device
 * code) share it. Ownership: as packages.h says (struct ct_pyenv owns its
 * packages).
 */
#ifndef CT_PKGTYPES_H
#define CT_PKGTYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "arch.h"
#include "findings.h"
#include "targets.h"
#include "verdict.h"

struct ct_loader;

/* check's verdict of one object for one target. */
struct ct_pkg_verdict {
	char target[CT_TARGET_NAME];     /* "sm_90" */
	enum ct_verdict_kind verdict;
	size_t fatbins, sass, ptx_jit, no_image;
	char image[ELFSCAN_ARCH_NAME_MAX]; /* the image picked in most fatbins, or "" */
};

/* A shared object of a package judged. */
struct ct_pkg_module {
	char *path;
	bool loaded;               /* the model loaded it (and everything it needs) */
	char *load_error;          /* the loader's words when not, or NULL */
	/*
	 * Why import does not load it, or loads it only on demand, in words
	 * ("bitsandbytes loads libbitsandbytes_cuda132.so instead, for
	 * torch's CUDA 13.2"), or NULL: then nothing it lacks is a finding.
	 */
	char *note;
	bool device_code;          /* it carries SASS, PTX or LTO-IR */
	char archs[256];           /* "sm_80 sm_90 compute_90", or "" */
	struct ct_pkg_verdict *verdicts; /* one per target, when it has device code */
	size_t nverdicts;
};

struct ct_pkg {
	char *name;                /* as its metadata says, or its folder's name */
	char *version;             /* or "" */
	char *site;                /* the site folder it is installed in */
	char *meta;                /* its .dist-info / .egg-info folder, or NULL */
	bool needs_torch;          /* its objects need PyTorch's libraries */
	char cuda[32];             /* the CUDA it is built for, "12.4", or "" */
	char cuda_from[512];       /* where that was read: torch/version.py, a runtime */
	struct ct_pkg_module *mods;
	size_t nmods;
	struct ct_findings findings; /* grouped, errors first */
	const char *verdict;       /* "ok" or the first error's code (static) */
	char **facts;              /* what was judged right, in words (torch.compile's
				      toolchain for Triton); nfacts of them */
	size_t nfacts;
};

/* What packages are judged against. */
struct ct_pkg_machine {
	const struct ct_loader *L;  /* the machine's loader model (doctor's); borrowed */
	int driver_cuda;            /* cuDriverGetVersion's answer, or <= 0 */
	const char *driver_path;    /* the libcuda.so.1 that answered, or NULL */
	const char *driver_release; /* its release ("550.163.01"), or "" */
	const struct elfscan_target *targets; /* the GPUs, else --arch; may be 0 */
	const char (*target_names)[CT_TARGET_NAME];
	size_t ntargets;
};

#endif

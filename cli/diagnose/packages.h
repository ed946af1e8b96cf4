/*
 * doctor's judgement of the Python packages with native CUDA code: for
 * each interpreter a user would run (python.h), every installed package
 * whose shared objects need a CUDA library, PyTorch's libraries or carry
 * device code, judged as `import` would load it, with nothing run:
 *
 * - the load: the interpreter's program and its libraries, then (for
 *   PyTorch, every package that needs its libraries and every package
 *   whose METADATA requires torch) what torch/__init__.py does, as its
 *   text says (torchinit.h, pkgload.h): libtorch_global_deps.so with
 *   RTLD_GLOBAL, the nvidia-* wheels' copies preloaded (always, or on a
 *   missing CUDA library), then torch._C; then each shared object of the
 *   package in its dependency order, as dlopen would, in the loader model
 *   (resolve.h). Of a package with one build per CUDA release
 *   (bitsandbytes) only the one its import picks is loaded; the others,
 *   and libraries opened on demand only for hardware the machine may lack
 *   (cuFile's RDMA library), carry a note and no finding. What goes wrong
 *   is a finding under the package: lib-not-found (its fix read from the
 *   METADATA: the pinned version torch requires, the package's own extra
 *   for CUDA's wheels; a build the package asks for but does not ship),
 *   symbol-version-missing, lib-shadowed (LD_LIBRARY_PATH before a
 *   RUNPATH that names another copy), lib-mixed-versions (CUDA libraries
 *   of two majors that one load maps together, a library built for
 *   another CUDA than the package, or the package's files that another
 *   distribution wrote over);
 * - symbol-missing: the package's own objects' undefined symbols that no
 *   object of the load defines (an extension built against another
 *   libtorch: the torch release its METADATA pins is said), when the
 *   interpreter's program could be read (it defines Python's own symbols);
 * - device code: check's per-fatbin verdict (verdict.h) of each object of
 *   the package with device code (PyTorch's: its libraries), for the GPUs
 *   the driver reports, else the --arch targets: no-kernel-image,
 *   ptx-jit-only;
 * - driver-too-old: the CUDA the package is built for (torch/version.py,
 *   unless its own objects need a runtime of another major; else the CUDA
 *   runtime it loads) has a newer major than the driver's.
 *
 * A package's verdict is its first error's code, or "ok".
 *
 * Ownership: struct ct_pyenv owns its packages and everything in them;
 * ct_pyenv_release frees them. Not thread-safe.
 */
#ifndef CT_PACKAGES_H
#define CT_PACKAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "arch.h"
#include "findings.h"
#include "python.h"
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

/*
 * A package collect_env and issue templates ask the version of, CUDA code
 * or not: the first distribution of its name on sys.path, as import
 * would take it (triton's is also "pytorch-triton").
 */
enum { CT_PYENV_TORCH, CT_PYENV_NUMPY, CT_PYENV_TRITON, CT_PYENV_KEYS };
struct ct_pyenv_key {
	const char *name;          /* "torch", "numpy", "triton" (static) */
	char *version;             /* as its metadata says ("" when it says none);
				      NULL: not installed */
	char *dist;                /* its distribution's name, when installed */
	char *site;                /* the site folder it is in, when installed */
};

/* One interpreter and its packages with CUDA code. */
struct ct_pyenv {
	struct ct_python py;
	struct ct_python_build build; /* its version and build, from its files */
	struct ct_pyenv_key keys[CT_PYENV_KEYS];
	struct ct_pkg *pkgs;       /* in site order, then by name */
	size_t npkgs;
	size_t nscanned;           /* shared objects looked at */
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

/*
 * The interpreters to judge (ct_pythons_find: given, or the ones a user
 * would run) and their packages, judged on m. *out and *n as
 * ct_pythons_find; returns 0, or -errno when given cannot be opened.
 */
int ct_pyenvs_judge(const char *given, const struct ct_pkg_machine *m, struct ct_pyenv **out,
		    size_t *n);
void ct_pyenvs_free(struct ct_pyenv *envs, size_t n);

/* The worst severity of every package's findings, or -1. */
int ct_pyenvs_worst(const struct ct_pyenv *envs, size_t n);

#endif

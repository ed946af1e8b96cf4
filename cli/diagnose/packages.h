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

#include "pkgtypes.h"
#include "python.h"

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

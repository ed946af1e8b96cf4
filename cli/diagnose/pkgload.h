/*
 * What `import` loads of a Python package, in the loader model, for
 * doctor's judgement of packages (packages.c, its only caller): the
 * interpreter's program started, `import torch` as torch/__init__.py does
 * it (torchinit.h), each object of a package dlopened in the order its
 * own dependencies ask, and of a package that ships one build per CUDA
 * release (bitsandbytes) the one its import picks. Nothing is run.
 *
 * Ownership: struct ct_pkg_torch owns what it holds; ct_pkg_torch_release
 * frees it. Not thread-safe.
 */
#ifndef CT_PKGLOAD_H
#define CT_PKGLOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "framework.h"
#include "python.h"
#include "resolve.h"
#include "torchinit.h"

/* PyTorch as an interpreter's `import torch` finds it, read once per interpreter. */
struct ct_pkg_torch {
	char dir[PATH_MAX];        /* <site>/torch, the first on sys.path; "" when none */
	struct ct_torch_init init; /* how its __init__.py preloads */
	struct ct_framework fw;    /* its version.py; fw.version "" when unread */
	int cuda_major, cuda_minor; /* torch.version.cuda, or 0 (a CPU build, unknown) */
};

/* Read torch of py: its folder, its __init__.py's preloading, its version.py. */
void ct_pkg_torch_read(struct ct_pkg_torch *t, const struct ct_python *py);
void ct_pkg_torch_release(struct ct_pkg_torch *t);

/*
 * L started afresh (like's loader facts) with exe as the program and its
 * libraries loaded; false when exe cannot be read as one (a script in its
 * place: then a stand-in program).
 */
bool ct_pkg_start(struct ct_loader *L, const struct ct_loader *like, const char *exe);

/* dlopen(name) from the program: the object and what it needs, breadth-first. */
struct ct_lookup *ct_pkg_dlopen(struct ct_loader *L, const char *name);

/*
 * The first lookup from index k0 that failed, or NULL (not a preload's;
 * libcuda.so.1's only when driver). quiet, when not NULL, marks lookups
 * (by index, below nquiet) that do not count.
 */
const struct ct_lookup *ct_pkg_failed(const struct ct_loader *L, size_t k0, bool driver,
				      const bool *quiet, size_t nquiet);

/*
 * import torch in L, as torch/__init__.py loads it (t->init): L is started
 * afresh when the preloading must come first. *c_module gets torch._C's
 * path ("" when there is none).
 */
void ct_pkg_import_torch(struct ct_loader *L, const struct ct_loader *like,
			 const struct ct_python *py, const struct ct_pkg_torch *t, char *c_module,
			 size_t size);

/*
 * order[0..n) gets the indices of paths (a package's objects) in the
 * order their own dependencies ask: one another of them needs comes
 * first (cuDNN opens libcudnn_graph before libcudnn_ops, and that before
 * libcudnn_adv), so that each finds its siblings loaded, as in the real
 * load; a circle keeps the given order.
 */
void ct_pkg_dependency_order(char *const *paths, size_t n, size_t *order);

/*
 * Is the package's library at path, dlopened in L with lookups [k0, k1),
 * one that is loaded on demand only: no Python module, nothing in L needs
 * it, and what it lacks are libraries CUDA does not ship (cuFile's
 * libcufile_rdma.so.1: libibverbs, librdmacm, libmlx5, for GPUDirect
 * Storage over RDMA)? Then words gets what it lacks ("libmlx5.so.1,
 * librdmacm.so.1"); false otherwise.
 */
bool ct_pkg_on_demand(const struct ct_loader *L, const char *path, size_t k0, size_t k1,
		      char *words, size_t size);

/*
 * Which objects of L one process maps together: those loaded before the
 * package's own (the program, import torch: [0, nbase)) with the tree of
 * any one object the package's import dlopens (roots, indices in L). Two
 * builds a package ships as alternatives (Triton's cupti/ and
 * cupti-blackwell/) are never in one. Owns its rows; release frees them.
 */
struct ct_pkg_together {
	size_t nbase;
	bool *trees;       /* nroots rows of nobjs: each root's tree */
	size_t nroots, nobjs;
};
void ct_pkg_together_init(struct ct_pkg_together *t, const struct ct_loader *L, size_t nbase,
			  const size_t *roots, size_t nroots);
/* Are L's objects a and b (indices) mapped together? */
bool ct_pkg_together(const struct ct_pkg_together *t, size_t a, size_t b);
void ct_pkg_together_release(struct ct_pkg_together *t);

/* The loaded object answering to name (a soname or a name it was loaded by), or NULL. */
const struct ct_lobj *ct_pkg_object_named(const struct ct_loader *L, const char *name);

/*
 * A package's libraries built one per CUDA release
 * ("libbitsandbytes_cuda118.so" ... "libbitsandbytes_cuda132.so", and
 * the same stem with other digits), of which its import loads one.
 */
struct ct_pkg_builds {
	size_t n;                  /* how many of the package's objects are such builds */
	long pick;                 /* the index (in paths) of the one import loads, or -1 */
	char wanted[128];          /* the file name import asks for, or "" (none: a CPU build) */
	char why[160];             /* "for torch's CUDA 13.2", "BNB_CUDA_VERSION=125" */
	bool forced;               /* the name comes from the package's variable */
	char variable[32];         /* that variable ("BNB_CUDA_VERSION"), or "" */
	char shipped[256];         /* the releases shipped, "118, 121, 124" */
};

/*
 * Which of paths (a package's objects, sorted) is its build for the CUDA
 * import asks for, by bitsandbytes' rule (bitsandbytes/cextension.py,
 * get_cuda_bnb_library_path): BNB_CUDA_VERSION=NNN names one outright;
 * else torch's CUDA exactly, else the newest older one of its major, else
 * the oldest newer one of its major, else none. Returns b->n: 0 when the
 * package has no such builds. is_build[i] (n entries) says which objects
 * are builds.
 */
size_t ct_pkg_builds_pick(const char *pkg, char *const *paths, size_t n,
			  const struct ct_pkg_torch *t, bool *is_build, struct ct_pkg_builds *b);

#endif

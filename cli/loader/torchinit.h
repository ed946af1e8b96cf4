/*
 * How `import torch` loads PyTorch's CUDA libraries, read from the text of
 * torch/__init__.py (never run): _load_global_deps dlopens
 * torch/lib/libtorch_global_deps.so (RTLD_GLOBAL), and _preload_cuda_deps
 * dlopens, by path, the first copy of each library of its list
 * ("cublas", "libcublasLt.so.*[0-9]"), ... found on sys.path in
 * nvidia/<folder>/lib, then (since CUDA 13's wheels) nvidia/cu<major>/lib,
 * then <folder>/lib (_get_cuda_dep_paths). Older releases preload only
 * when libtorch_global_deps.so fails on one of those libraries; newer ones
 * (2.15 does) also preload after it loaded, whenever it brought libcudart
 * ("_preload_cuda_deps(required=False)"), so that the wheels' copies win
 * over whatever LD_LIBRARY_PATH holds.
 *
 * What the file says is what is used: the list in its order, which
 * folders, and when. A file that says none of it (a stand-in, a build
 * that changed its words) gets the list PyTorch 2.6 had, preloaded on
 * failure only, from nvidia/<folder>/lib.
 *
 * Ownership: struct ct_torch_init owns its list; ct_torch_init_release
 * frees it. Not thread-safe.
 */
#ifndef CT_TORCHINIT_H
#define CT_TORCHINIT_H

#include <stdbool.h>
#include <stddef.h>

struct ct_torch_preload {
	char folder[64];    /* "cublas": nvidia/cublas/lib */
	char pattern[96];   /* "libcublasLt.so.*[0-9]", a glob */
};

struct ct_torch_init {
	bool from_file;     /* the list was read from torch/__init__.py */
	bool always;        /* also preloads after libtorch_global_deps.so loaded
			       with libcudart, not only when it failed */
	bool cuda_folder;   /* nvidia/cu<major>/lib is searched (<major>: torch's CUDA) */
	bool plain_folder;  /* <site>/<folder>/lib is searched last */
	struct ct_torch_preload *list; /* in the order the file preloads them */
	size_t n;
};

/* Read torch_dir/__init__.py into *t (the fallback above when it says nothing). */
void ct_torch_init_read(const char *torch_dir, struct ct_torch_init *t);
void ct_torch_init_release(struct ct_torch_init *t);

/*
 * Is name ("libcudnn.so.9") one of the list's libraries? What
 * _preload_cuda_deps(err) asks of the loader's message before it
 * preloads: the pattern's stem ("libcudnn") starts the name.
 */
bool ct_torch_init_preloads(const struct ct_torch_init *t, const char *name);

#endif

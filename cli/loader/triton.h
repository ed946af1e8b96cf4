/*
 * What torch.compile's compiler, Triton, finds when it first compiles,
 * read from files with nothing run (its wheel's Python text, the
 * machine's ld.so.cache, its ptxas files' own text):
 *
 * - the driver: backends/nvidia/driver.py's libcuda_dirs(): the folder
 *   TRITON_LIBCUDA_PATH names, taken as it is; else the folders of the
 *   ld.so.cache entries whose line `ldconfig -p` prints holds the name
 *   (libcuda.so.1 for Triton 3.x, libcuda.so before); else the folders of
 *   LD_LIBRARY_PATH that hold it. None holding it: "AssertionError:
 *   libcuda.so cannot found!". Its launcher is then linked against those
 *   folders (and the linker's own) with `libraries` (-l:libcuda.so.1, or
 *   -lcuda: the unversioned libcuda.so that only driver development
 *   packages install);
 * - ptxas: knobs.nvidia.ptxas below sm_90 (TRITON_PTXAS_PATH), and from
 *   sm_90 on ptxas-blackwell (TRITON_PTXAS_BLACKWELL_PATH) where the
 *   wheel has it; a variable's file that cannot run falls back to the
 *   wheel's. Its release is read from the text it prints for --version
 *   ("Cuda compilation tools, release 12.9"), which the file holds.
 *
 * Ownership: struct ct_triton owns its folders; ct_triton_release frees
 * them. Not thread-safe (reads the environment).
 */
#ifndef CT_TRITON_H
#define CT_TRITON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

struct ct_triton {
	char dir[PATH_MAX];        /* <site>/triton */
	char link_name[32];        /* what its launcher links: "libcuda.so.1" or "libcuda.so" */
	bool link_versioned;       /* -l:libcuda.so.1 (else -lcuda) */
	char **dirs;               /* libcuda_dirs(), in its order */
	size_t ndirs;
	const char *dirs_from;     /* "TRITON_LIBCUDA_PATH", "ld.so.cache",
				      "LD_LIBRARY_PATH", or NULL: none (static) */
	char found[PATH_MAX];      /* the first dirs/link_name that is a file, or "" */
	char link_file[PATH_MAX];  /* the link_name the linker takes (dirs, then
				      its own folders), or "": the link fails */
	bool blackwell;            /* a ptxas of its own from sm_90 on */
};

/* The ptxas Triton runs for one arch. */
struct ct_triton_ptxas {
	char path[PATH_MAX];
	char release[16];          /* "12.9", or "" when the file says none */
	const char *variable;      /* the variable that chose it, or NULL (static) */
	char refused[PATH_MAX];    /* the variable's file when it cannot run (then
				      the wheel's is taken), or "" */
};

/* Triton under site (site/triton/backends/nvidia), judged in L's view; -ENOENT when none. */
int ct_triton_read(struct ct_triton *t, const char *site, const struct ct_loader *L);
void ct_triton_release(struct ct_triton *t);

/*
 * The ptxas t runs for compute capability major.minor; with env false,
 * the one it runs when the variable is unset (its wheel's).
 */
void ct_triton_ptxas(const struct ct_triton *t, unsigned major, unsigned minor, bool env,
		     struct ct_triton_ptxas *out);

/*
 * The release a CUDA tool's file says it is ("12.9": the text of
 * "Cuda compilation tools, release 12.9, V12.9.86"), read through
 * ct_open_file, never run; false when it says none. *runs: a regular
 * file with an execute bit.
 */
bool ct_cuda_tool_release(const char *path, char *release, size_t size, bool *runs);

#endif

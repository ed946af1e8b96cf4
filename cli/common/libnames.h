/*
 * What a library's file name says: whether it is one of NVIDIA's CUDA
 * libraries, and its version (from the real file a symlink names).
 */
#ifndef CT_LIBNAMES_H
#define CT_LIBNAMES_H

#include <stdbool.h>
#include <stddef.h>

/* The NVIDIA driver's own libraries, which the driver ships, not CUDA. */
enum ct_driver_lib {
	CT_DRIVER_LIB_NONE = 0,
	CT_DRIVER_LIB_CUDA, /* libcuda.so.1 (or its link libcuda.so) */
	CT_DRIVER_LIB_NVML, /* libnvidia-ml.so.1 (or libnvidia-ml.so) */
};

/* Which of them the file name (a path, or a DT_SONAME) names. */
enum ct_driver_lib ct_driver_library(const char *name);
/* Its soname: "libcuda.so.1", "libnvidia-ml.so.1", or NULL. */
const char *ct_driver_soname(enum ct_driver_lib lib);
/*
 * Is the file name (a path) the driver's libcuda by any of its names:
 * libcuda.so, libcuda.so.1, or the real file they lead to, which a
 * process's maps name (libcuda.so.580.159.04)?
 */
bool ct_driver_file(const char *path);

/* Is this a library whose loading cudatrace reports (CUDA's own)? */
bool ct_cuda_library(const char *path);

/*
 * Is the file name (a path, or a DT_SONAME) one of NVIDIA's libraries
 * that pick their kernels per GPU (cuBLAS, cuBLASLt, cuFFT, cuDNN, NCCL,
 * ...), so that a fatbin module without code for one GPU is by design?
 */
bool ct_cuda_library_per_gpu(const char *name);

/* "13.0.96" from ".../libcudart.so.13.0.96" (the real file); into buf. */
const char *ct_library_version(const char *path, char *buf, size_t size);

/*
 * Is a library whose DT_SONAME is soname, loaded under the file name
 * name, another major of itself renamed (libcudart.so.12 that is
 * libcudart.so.13)? Same name, both with a major, the majors differ. A
 * name without a major (libcudart.so, a development link) is no rename.
 */
bool ct_library_renamed(const char *name, const char *soname);

/*
 * The CUDA major a library's own version states, for the libraries
 * versioned as CUDA itself (libcudart, libnvrtc, libnvJitLink):
 * 13 for libcudart.so.13 at "13.0.96"; 0 for any other library (cuBLAS,
 * cuDNN, NCCL count on their own). minor gets the minor when the version
 * has one, else -1; may be NULL.
 */
int ct_library_cuda(const char *soname, const char *version, int *minor);

/*
 * A renamed library in words, the one wording of the tree, ldd, why and
 * the findings: "'NAME' is SONAME, CUDA 13.0, renamed" (", CUDA M[.m]"
 * only when cuda > 0; minor < 0 unknown). Into buf; returns buf.
 */
const char *ct_renamed_words(const char *name, const char *soname, int cuda, int minor,
			     char *buf, size_t size);

/*
 * The same, or "" when the name carries only a major (libcuda.so.1): for
 * evidence, where a bare major only repeats the soname.
 */
const char *ct_library_release(const char *path, char *buf, size_t size);

/*
 * Is the object at path one that a Python package ships or loads: a
 * wheel's member ("x.whl!x/_C.so"), a file under a site-packages or
 * dist-packages folder, or a Python extension by its name
 * ("_C.cpython-311-x86_64-linux-gnu.so", "x.abi3.so")? A fix by pip helps
 * only those.
 */
bool ct_python_shipped(const char *path);
/*
 * Was the file at path put there by pip (a wheel's member, a file under a
 * site-packages folder or a dist-packages folder other than the
 * distribution's own /usr/lib/python3*: Debian's apt installs there, its
 * pip into /usr/local)? "pip list" shows what brought only those.
 */
bool ct_pip_installed(const char *path);

/* Is the library (a path or soname) PyTorch's own: libtorch*, libc10*? */
bool ct_library_torch(const char *name);

#endif

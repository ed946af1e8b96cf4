/*
 * Which CUDA toolkits build for which GPU arch (NVIDIA's release notes):
 * nvcc drops old archs at major releases, and a fix that asks for a
 * -gencode the current nvcc refuses helps nobody. One table, in archs.c.
 */
#ifndef CT_ARCHS_H
#define CT_ARCHS_H

#include <stddef.h>

/*
 * The last CUDA toolkit whose nvcc builds SASS for compute capability
 * major.minor, as CUDA's integer (12090 for 7.0: CUDA 13.0 dropped
 * Maxwell, Pascal and Volta); 0 when current toolkits still build it or
 * the table does not know the arch. *dropped (may be NULL) gets the first
 * release without it (13000), or 0. Pure; thread-safe.
 */
int ct_arch_last_toolkit(unsigned major, unsigned minor, int *dropped);

/*
 * The arch a later toolkit builds under another name: 110 for 10.1 (CUDA
 * 13.0 calls Thor sm_110); 0 for every other arch.
 */
unsigned ct_arch_renamed(unsigned major, unsigned minor);

/*
 * The toolkit to build for an arch current toolkits no longer build:
 * "CUDA 12.9 or older (CUDA 13.0 and later cannot build for 7.0)", or
 * "CUDA 12.9 or older (CUDA 13.0 renamed sm_101 to sm_110)"; for an arch
 * no driver of the newest CUDA major drives any more, also that it is out
 * of support: "CUDA 11.8 or older (CUDA 12.0 and later cannot build for
 * 3.5; 3.5 GPUs are out of support: R470 was the last driver branch for
 * them)" (cuda_releases.def). "" for an arch they build. Into buf;
 * returns buf.
 */
char *ct_arch_toolkit_words(unsigned major, unsigned minor, char *buf, size_t size);

/*
 * How to build SASS for major.minor, the one wording of every fix:
 * "-gencode arch=compute_90,code=sm_90", and for an arch current toolkits
 * no longer build, the toolkit that still does first
 * (ct_arch_toolkit_words):
 * "CUDA 12.9 or older (CUDA 13.0 and later cannot build for 7.0):
 * -gencode arch=compute_70,code=sm_70". Into buf; returns buf.
 */
char *ct_arch_gencode_words(unsigned major, unsigned minor, char *buf, size_t size);

/*
 * The whole rebuild advice for an object: ct_arch_gencode_words, then
 * its build system's setting. torch 1: the object links libtorch or
 * libc10 (its DT_NEEDED), whose builds read TORCH_CUDA_ARCH_LIST="9.0";
 * 0: it does not, and CMake's CMAKE_CUDA_ARCHITECTURES=90 is named (no
 * object says whether CMake built it); -1: unknown, both named. Into
 * buf; returns buf.
 */
char *ct_arch_build_words(unsigned major, unsigned minor, int torch, char *buf, size_t size);

#endif

/*
 * What a library's file name says: whether it is one of NVIDIA's CUDA
 * libraries, and its version (from the real file a symlink names).
 */
#ifndef CT_LIBNAMES_H
#define CT_LIBNAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Is this a library whose loading cudatrace reports (CUDA's own)? */
bool ct_cuda_library(const char *path);

/* "13.0.96" from ".../libcudart.so.13.0.96" (the real file); into buf. */
const char *ct_library_version(const char *path, char *buf, size_t size);

/*
 * The same, or "" when the name carries only a major (libcuda.so.1): for
 * evidence, where a bare major only repeats the soname.
 */
const char *ct_library_release(const char *path, char *buf, size_t size);

#endif

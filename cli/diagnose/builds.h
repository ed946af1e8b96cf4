/*
 * The CUDA a file was built for, from what the file itself says (builds.c
 * has the rules: the CUDA sonames it needs, the compiler release in its
 * fatbins, its newest PTX; cuDNN by its release's siblings). The same
 * analysis the diagnosis of a trace makes, for a file on its own: doctor's
 * packages.
 */
#ifndef CT_BUILDS_H
#define CT_BUILDS_H

#include <stddef.h>

/*
 * CUDA's integer (13000) for the file at path, with why in words into
 * why; 0 when it says nothing (or is the driver). Reads the dynamic
 * section, and the device code only when that does not say. Thread-safe.
 */
int ct_build_of_file(const char *path, char *why, size_t size);

#endif

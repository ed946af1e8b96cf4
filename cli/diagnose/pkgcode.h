/*
 * doctor's judgement of a Python package's device code (packages.c calls
 * it): check's per-fatbin verdict (verdict.h) of an object for each
 * target of the machine, as no-kernel-image and ptx-jit-only findings
 * under the package, with the fix that fits who builds it (NVIDIA's
 * libraries and PyTorch's: a release built for the arch; anyone else's: a
 * rebuild with the -gencode or TORCH_CUDA_ARCH_LIST it needs). Not
 * thread-safe (the package is written).
 */
#ifndef CT_PKGCODE_H
#define CT_PKGCODE_H

#include <stdbool.h>

#include "pkgtypes.h"

/* Does the file carry device code in its known sections (headers only: a cheap first look)? */
bool ct_pkg_has_device_code(const char *path);

/* m (an object of p) judged for M's targets: m's archs and verdicts, p's findings. */
void ct_pkg_judge_code(const struct ct_pkg_machine *M, struct ct_pkg *p, struct ct_pkg_module *m);

#endif

/*
 * doctor's judgement of torch.compile's toolchain, for the Triton package
 * of an interpreter (packages.c calls it): whether Triton will find the
 * driver's libcuda.so.1 and link its launcher against it, and whether the
 * ptxas it runs for each GPU arch judged (the GPUs, else --arch) knows
 * that arch; all read from files (loader/triton.h), nothing run.
 *
 * What goes wrong is a warning under the package (torch.compile fails at
 * its first compile; eager PyTorch does not): lib-not-found (no folder of
 * libcuda_dirs() holds it; TRITON_LIBCUDA_PATH naming a folder without
 * it, a toolkit's stubs), no-kernel-image (the ptxas for an arch is of a
 * CUDA release that does not know it). What is right is said as the
 * package's facts.
 */
#ifndef CT_TOOLCHAIN_H
#define CT_TOOLCHAIN_H

#include <stddef.h>

#include "findings.h"
#include "resolve.h"
#include "targets.h"

/* What the judgement is of: a package and the machine. */
struct ct_toolchain_ask {
	const char *name, *version; /* the distribution: "triton", "3.9.0" */
	const char *site;           /* the site folder it is installed in */
	const struct ct_loader *L;  /* the machine's loader model */
	const struct elfscan_target *targets; /* the GPUs, else --arch; may be 0 */
	const char (*target_names)[CT_TARGET_NAME];
	size_t ntargets;
};

/*
 * Judge the Triton the ask names: findings into fs, what is right in
 * words appended to (*facts)[0..*nfacts) (strings to free). Nothing when
 * the package is not Triton (triton, pytorch-triton).
 */
void ct_toolchain_judge(const struct ct_toolchain_ask *a, struct ct_findings *fs, char ***facts,
			size_t *nfacts);

#endif

/*
 * Which device code runs on which GPU (reference/fatbin.md 4.1): the rules
 * the driver applies when it picks an image from a fatbin. Pure functions,
 * no allocation, no I/O.
 */
#ifndef ELFSCAN_ARCH_H
#define ELFSCAN_ARCH_H

#include <stddef.h>

#include "elfscan.h"

/* A GPU (or a build target standing for one): compute capability M.m. */
struct elfscan_target {
	unsigned major, minor;
	enum elfscan_variant variant; /* as spelled: sm_90a names a 9.0 GPU */
};

enum elfscan_run {
	ELFSCAN_RUN_NO = 0,
	ELFSCAN_RUN_JIT,  /* PTX the driver compiles for the GPU */
	ELFSCAN_RUN_SASS, /* a cubin the GPU runs as it is */
};

/*
 * Parse "sm_90", "sm_90a", "sm_100f", "compute_90", "9.0", "90" or "10.0".
 * Returns 0, or -EINVAL for anything else ("native" is the caller's job).
 */
int elfscan_target_parse(const char *s, struct elfscan_target *t);

/* "sm_90", "sm_90a", "sm_100f" into buf; returns buf. */
char *elfscan_target_name(const struct elfscan_target *t, char *buf,
			  size_t size);

/*
 * Can this image run on the target? SASS sm_XY: same major, minor >= Y;
 * sm_XYa: exactly X.Y; sm_XYf: same major, minor >= Y. PTX compute_XY:
 * any GPU >= X.Y (JIT); compute_XYa / compute_XYf: as their SASS. LTO-IR
 * and unknown kinds never run by themselves.
 */
enum elfscan_run elfscan_image_runs_on(const struct elfscan_image *img,
				       const struct elfscan_target *t);

/*
 * The image the driver would pick among images[0..n) for the target: a
 * runnable SASS image before any PTX; among equals the highest arch, then
 * the 'a' variant before 'f' before none. Returns its index, or -1.
 */
long elfscan_pick_image(const struct elfscan_image *images, size_t n,
			const struct elfscan_target *t);

#endif

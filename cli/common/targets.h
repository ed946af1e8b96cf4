/* The --arch option of run, report and check: GPU targets by name. */
#ifndef CT_TARGETS_H
#define CT_TARGETS_H

#include <stddef.h>

#include "arch.h"

#define CT_MAX_TARGETS 16
#define CT_TARGET_NAME 64

/*
 * Parse an --arch list ("sm_80,sm_90", "9.0", "native") into targets,
 * appended at *n (at most max), with their names as users spell them
 * ("sm_90"). Returns 0, or -1 with the reason in why (size bytes),
 * worded for "cudatrace: --arch...". "native" asks the driver (gpu.h).
 */
int ct_parse_targets(const char *list, struct elfscan_target *targets,
		     char names[][CT_TARGET_NAME], size_t *n, size_t max, char *why,
		     size_t size);

#endif

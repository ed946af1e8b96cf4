/* What the CUDA driver (dlopen'd, never linked) says about itself and its GPUs. */
#ifndef CT_GPU_H
#define CT_GPU_H

#include <stdbool.h>
#include <stddef.h>

/* gpu.c: compute capabilities of the GPUs the driver reports. */
struct elfscan_target;
/*
 * Fills up to max targets from the CUDA driver (dlopen'd, never linked).
 * Returns the count, or -1 with a reason in why (size bytes).
 */
int ct_gpu_targets(struct elfscan_target *out, int max, char *why,
		   size_t size);

/* gpu.c: what the CUDA driver says about itself and its GPUs (doctor). */
#define CT_MAX_GPUS 64

struct ct_gpu_info {
	int index;             /* the driver's ordinal */
	char name[256];        /* "NVIDIA H100 80GB HBM3", or "" */
	int major, minor;      /* compute capability; -1 when unknown */
	char uuid[48];         /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", or "" */
};

struct ct_driver_probe {
	bool opened;           /* dlopen("libcuda.so.1") worked */
	char error[512];       /* why it did not (dlerror), or a missing entry point */
	char path[4096];       /* the file dlopen mapped, or "" */
	int version;           /* cuDriverGetVersion: 12040 for CUDA 12.4; -1 unknown */
	int init_result;       /* cuInit(0)'s CUresult; -1 when not called */
	int count;             /* cuDeviceGetCount after a good cuInit; -1 unknown */
	struct ct_gpu_info gpus[CT_MAX_GPUS];
	int ngpus;             /* the first CT_MAX_GPUS of count */
};

/*
 * Ask the driver (dlopen'd with this process's loader rules, closed
 * again) for its version, cuInit's result and every GPU. Never fails:
 * what cannot be asked stays unknown. Not thread-safe (dlerror).
 */
void ct_driver_probe(struct ct_driver_probe *p);

#endif

#ifndef CT_LIBFACTS_H
#define CT_LIBFACTS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A file's CUDA facts: version (for CUDA libraries, from the real file's
 * name) and device code (the fatbin sections, headers only). Filled by
 * ct_cuda_facts_read; ct_cuda_facts_release frees.
 */
struct ct_cuda_facts {
	bool cuda_library;      /* one of NVIDIA's CUDA libraries, by name */
	char version[64];       /* "13.0.48", or "" */
	bool scanned;           /* the scan worked */
	size_t nimages;
	char line[512];         /* "sass sm_75 sm_80, ptx compute_90" */
	char sass[512], ptx[256], ltoir[256]; /* space-separated, or "none" */
};

void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path);

#endif

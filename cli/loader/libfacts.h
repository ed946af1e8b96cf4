#ifndef CT_LIBFACTS_H
#define CT_LIBFACTS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A file's CUDA facts: what it is (for CUDA libraries: its DT_SONAME, and
 * whether the name it is found by is another major of it, renamed), its
 * version (from the real file's name or the soname, ct_library_version_of)
 * and device code (the fatbin sections, headers only). Filled by
 * ct_cuda_facts_read; ct_cuda_facts_release frees.
 */
struct ct_cuda_facts {
	bool cuda_library;      /* one of NVIDIA's CUDA libraries, by name */
	char name[128];         /* the file name it is found by */
	char soname[128];       /* its DT_SONAME, or "" */
	bool renamed;           /* found as another major of itself (ct_library_renamed) */
	int cuda, cuda_minor;   /* the CUDA its version states (ct_library_cuda), or 0 / -1 */
	char version[64];       /* "13.0.48", or "" */
	bool scanned;           /* the scan worked */
	size_t nimages;
	char line[512];         /* "sass sm_75 sm_80, ptx compute_90" */
	char sass[512], ptx[256], ltoir[256]; /* space-separated, or "none" */
};

/* path: as found (a copy's or a link's own name: what it is asked by). */
void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path);

#endif

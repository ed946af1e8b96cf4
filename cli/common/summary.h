/*
 * Counting a file's images by kind and arch, for the text outputs of scan,
 * check and (later) ldd and the report.
 */
#ifndef CT_SUMMARY_H
#define CT_SUMMARY_H

#include <stdio.h>

#include "elfscan.h"

struct ct_arch_count {
	unsigned kind, arch;
	enum elfscan_variant variant;
	size_t count;
};

struct ct_summary {
	struct ct_arch_count *archs; /* sorted: kind (sass, ptx, ltoir), arch, variant */
	size_t narchs;
	size_t nkind[3];             /* sass, ptx, ltoir */
	size_t nother;               /* unknown kinds */
	uint64_t stored, unpacked;   /* payload bytes */
	unsigned ptx_isa[16][2];     /* distinct PTX ISA versions, sorted */
	size_t nptx_isa;
};

/* Fills s from the images [first, first+n) of f. ct_summary_release frees. */
void ct_summary_build(struct ct_summary *s, const struct elfscan_file *f,
		      size_t first, size_t n);
void ct_summary_release(struct ct_summary *s);

/* "sm_75 sm_80 sm_90a" (or "none") for one kind; returns buf. */
char *ct_summary_archs(const struct ct_summary *s, unsigned kind, char *buf,
		       size_t size);

/* One line: "sass sm_75..sm_120 (6 archs), ptx compute_120" or "no device code". */
char *ct_summary_oneline(const struct ct_summary *s, char *buf, size_t size);

#endif

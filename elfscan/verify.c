/*
 * --verify: decompress each payload and hold it against its header
 * (fatbin.md 2.5, 3.1, 3.2). Listing never comes here: it reads headers
 * only.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static int note(struct elfscan_file *f, size_t i,
		enum elfscan_problem_code code, uint64_t value)
{
	struct elfscan_image *img = &f->images[i];

	return es_add_problem(f, code, img->offset, value, (long)i,
			      (long)img->container,
			      f->containers[img->container].section);
}

/*
 * Image i's payload (es_payload). Returns its length, or -1 after
 * recording why (*rc: 0, or -ENOMEM).
 */
static long long payload(struct elfscan_file *f, size_t i,
			 unsigned char **out, const unsigned char **view,
			 int *rc)
{
	struct elfscan_image *img = &f->images[i];
	size_t got;
	int r = es_payload(f, img, out, view, &got);

	*rc = 0;
	if (r == 0)
		return (long long)got;
	if (r == -ENOMEM) {
		*rc = r;
	} else if (r == -EMSGSIZE) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		*rc = note(f, i, ELFSCAN_P_PAYLOAD_SIZE, got);
	} else {
		img->check = ELFSCAN_CHECK_FAILED;
		*rc = note(f, i, ELFSCAN_P_PAYLOAD_DECOMPRESS, 0);
	}
	return -1;
}

static int check_sass(struct elfscan_file *f, size_t i,
		      const unsigned char *p, size_t n)
{
	struct elfscan_image *img = &f->images[i];
	struct es_cubin c;
	bool header_a;
	int rc = 0;

	if (es_cubin_parse(p, n, &c) != 0) {
		img->check = ELFSCAN_CHECK_FAILED;
		return note(f, i, ELFSCAN_P_PAYLOAD_NOT_CUBIN, 0);
	}
	img->check = ELFSCAN_CHECK_OK;
	if (c.sm != img->arch) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_CUBIN_ARCH_MISMATCH, c.sm);
	}
	/* The header's version minor is the cubin's EI_ABIVERSION. */
	if (rc == 0 && img->version_major == 1 && c.abi_version != img->version_minor) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_CUBIN_ABI_MISMATCH, c.abi_version);
	}
	/* What the header says, before the cubin's e_flags had their word. */
	header_a = img->variant == ELFSCAN_VARIANT_A && !img->variant_from_cubin;
	if (rc == 0 && c.eflags_arch_specific && !header_a) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_CUBIN_EFLAGS_VARIANT, 1);
	}
	if (rc == 0 && c.arch_specific >= 0 && c.arch_specific != header_a) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_CUBIN_VARIANT_MISMATCH,
			  (uint64_t)c.arch_specific);
	}
	return rc;
}

static int check_ptx(struct elfscan_file *f, size_t i, const unsigned char *p,
		     size_t n)
{
	struct elfscan_image *img = &f->images[i];
	struct es_ptx x;
	int rc = 0;

	if (es_ptx_parse((const char *)p, strnlen((const char *)p, n), &x) != 0) {
		img->check = ELFSCAN_CHECK_FAILED;
		return note(f, i, ELFSCAN_P_PTX_UNREADABLE, 0);
	}
	img->check = ELFSCAN_CHECK_OK;
	if (x.major != img->version_major || x.minor != img->version_minor) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_PTX_VERSION_MISMATCH,
			  x.major * 10 + x.minor);
	}
	if (rc == 0 && (x.arch != img->arch || x.variant != img->variant)) {
		img->check = ELFSCAN_CHECK_MISMATCH;
		rc = note(f, i, ELFSCAN_P_PTX_TARGET_MISMATCH, x.arch);
	}
	return rc;
}

int elfscan_verify(struct elfscan_file *f)
{
	size_t i;

	/* Standalone cubin and PTX files were parsed from their payload. */
	if (f->type == ELFSCAN_FILE_CUBIN || f->type == ELFSCAN_FILE_PTX) {
		if (f->nimages)
			f->images[0].check = ELFSCAN_CHECK_OK;
		return 0;
	}
	for (i = 0; i < f->nimages; i++) {
		struct elfscan_image *img = &f->images[i];
		unsigned char *owned;
		const unsigned char *view;
		long long n;
		int rc;

		if ((img->flags & ELFSCAN_FLAG_OPAQUE) ||
		    (img->kind != ELFSCAN_KIND_SASS &&
		     img->kind != ELFSCAN_KIND_PTX &&
		     img->kind != ELFSCAN_KIND_LTOIR)) {
			img->check = ELFSCAN_CHECK_OPAQUE;
			continue;
		}
		n = payload(f, i, &owned, &view, &rc);
		if (n < 0) {
			if (rc)
				return rc;
			continue;
		}
		if (img->kind == ELFSCAN_KIND_SASS)
			rc = check_sass(f, i, view, (size_t)n);
		else if (img->kind == ELFSCAN_KIND_PTX)
			rc = check_ptx(f, i, view, (size_t)n);
		else
			img->check = ELFSCAN_CHECK_OK; /* LTO-IR: size only */
		free(owned);
		if (rc)
			return rc;
	}
	return 0;
}

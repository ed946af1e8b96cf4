/*
 * Whether device code defines kernels. A fatbin whose images define none
 * cannot fail a launch: CUDA 13's nvcc -shared puts such a container
 * (wrapper v2, SASS without kernels) in every library it links, beside
 * the one with the kernels. Reading kernels needs the payload, so callers
 * ask only about the fatbins whose answer matters.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int elfscan_cubin_has_kernel(const void *buf, size_t len)
{
	return es_cubin_has_kernel(buf, len);
}

int elfscan_ptx_has_kernel(const char *text, size_t len)
{
	return es_ptx_has_kernel(text, strnlen(text, len));
}

/*
 * Image img's payload, decompressed where it is (*owned, to free) or the
 * whole file for a standalone cubin or PTX file: 0, -ENODATA or -ENOMEM.
 */
static int image_view(const struct elfscan_file *f, const struct elfscan_image *img,
		      unsigned char **owned, const unsigned char **view, size_t *len)
{
	int rc;

	*owned = NULL;
	if (f->type == ELFSCAN_FILE_CUBIN || f->type == ELFSCAN_FILE_PTX) {
		*view = f->buf;
		*len = f->len;
		return 0;
	}
	rc = es_payload(f, img, owned, view, len);
	return rc == -ENOMEM ? rc : rc ? -ENODATA : 0;
}

int elfscan_image_has_kernel(const struct elfscan_file *f, size_t i)
{
	const struct elfscan_image *img;
	unsigned char *owned;
	const unsigned char *view;
	size_t len;
	int rc;

	if (i >= f->nimages)
		return -EINVAL;
	img = &f->images[i];
	if ((img->kind != ELFSCAN_KIND_SASS && img->kind != ELFSCAN_KIND_PTX) ||
	    (img->flags & ELFSCAN_FLAG_OPAQUE))
		return -ENODATA;
	if ((rc = image_view(f, img, &owned, &view, &len)))
		return rc;
	if (img->kind == ELFSCAN_KIND_SASS) {
		rc = es_cubin_has_kernel(view, len);
		if (rc < 0)
			rc = -ENODATA;
	} else {
		rc = es_ptx_has_kernel((const char *)view,
				       strnlen((const char *)view, len));
	}
	free(owned);
	return rc;
}

int elfscan_container_has_kernel(const struct elfscan_file *f, size_t c)
{
	const struct elfscan_container *ct;
	size_t k;
	bool unknown = false, any = false;

	if (c >= f->ncontainers)
		return -EINVAL;
	ct = &f->containers[c];
	if (ct->first_image > f->nimages || ct->nimages > f->nimages - ct->first_image)
		return -ENODATA;
	/* Uncompressed images first: they cost no decompression. */
	for (int pass = 0; pass < 2; pass++) {
		for (k = ct->first_image; k < ct->first_image + ct->nimages; k++) {
			const struct elfscan_image *img = &f->images[k];
			int rc;

			if (img->kind == ELFSCAN_KIND_LTOIR)
				continue;
			if ((img->codec == ELFSCAN_CODEC_NONE) != (pass == 0))
				continue;
			any = true;
			rc = elfscan_image_has_kernel(f, k);
			if (rc == 1 || rc == -ENOMEM)
				return rc;
			if (rc < 0)
				unknown = true;
		}
	}
	return unknown || !any ? -ENODATA : 0;
}

int elfscan_image_kernels(const struct elfscan_file *f, size_t i,
			  int (*each)(const char *name, size_t len, void *arg), void *arg)
{
	const struct elfscan_image *img;
	unsigned char *owned;
	const unsigned char *view;
	size_t len;
	int rc;

	if (i >= f->nimages)
		return -EINVAL;
	img = &f->images[i];
	if (img->kind != ELFSCAN_KIND_SASS || (img->flags & ELFSCAN_FLAG_OPAQUE))
		return -ENODATA;
	if ((rc = image_view(f, img, &owned, &view, &len)))
		return rc;
	rc = es_cubin_kernels(view, len, each, arg);
	free(owned);
	return rc == -EBADMSG ? -ENODATA : rc;
}

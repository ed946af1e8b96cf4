/*
 * An image's payload, as stored or decompressed (fatbin.md 2.5): whole,
 * for --verify and for finding kernels, or only its first bytes, for the
 * cubin's own ELF header during a listing.
 */
#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <zstd.h>

#include "internal.h"

int es_payload(const struct elfscan_file *f, const struct elfscan_image *img,
	       unsigned char **owned, const unsigned char **view, size_t *len)
{
	uint64_t at = img->offset + img->header_size;
	const unsigned char *src;
	unsigned char *dst;
	size_t got;

	*owned = NULL;
	*view = NULL;
	*len = 0;
	if (at < img->offset || !f->buf || !in_range(at, img->stored_size, f->len))
		return -EBADMSG;
	src = f->buf + at;
	if (img->codec == ELFSCAN_CODEC_NONE) {
		*view = src;
		*len = (size_t)img->stored_size;
		return 0;
	}
	if (img->codec == ELFSCAN_CODEC_UNKNOWN || img->size == 0 ||
	    img->size > ES_PAYLOAD_MAX || img->stored_size > INT32_MAX)
		return -EBADMSG;
	dst = malloc(img->size);
	if (!dst)
		return -ENOMEM;
	if (img->codec == ELFSCAN_CODEC_LZ4) {
		int n = LZ4_decompress_safe((const char *)src, (char *)dst,
					    (int)img->stored_size,
					    img->size > INT32_MAX ? INT32_MAX
								  : (int)img->size);
		got = n < 0 ? (size_t)-1 : (size_t)n;
	} else {
		got = ZSTD_decompress(dst, img->size, src, img->stored_size);
		if (ZSTD_isError(got))
			got = (size_t)-1;
	}
	if (got == (size_t)-1) {
		free(dst);
		return -EBADMSG;
	}
	*len = got;
	if (got != img->size) {
		free(dst);
		return -EMSGSIZE;
	}
	*owned = dst;
	*view = dst;
	return 0;
}

/*
 * The first bytes of a zstd frame: a stream read into a small buffer.
 * zstd still decodes the first block (up to 128 KiB) to hand them over,
 * but nothing past it. The decompression context is the file's, made at
 * the first use and reset for each frame: making one per image cost 8% of
 * cuSPARSE's --known-sections scan (892 zstd cubins).
 */
static long zstd_head(struct elfscan_file *f, const unsigned char *src,
		      size_t srclen, unsigned char *dst, size_t n)
{
	ZSTD_inBuffer in = { src, srclen, 0 };
	ZSTD_outBuffer out = { dst, n, 0 };
	ZSTD_DCtx *z = f->zstd;

	if (!z && !(z = f->zstd = ZSTD_createDCtx()))
		return -ENOMEM;
	ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
	while (out.pos < out.size && in.pos < in.size) {
		size_t r = ZSTD_decompressStream(z, &out, &in);

		if (ZSTD_isError(r))
			return -EBADMSG;
		if (r == 0)
			break;
	}
	return (long)out.pos;
}

void es_payload_release(struct elfscan_file *f)
{
	ZSTD_freeDCtx(f->zstd);
	f->zstd = NULL;
}

long es_payload_head(struct elfscan_file *f, const struct elfscan_image *img,
		     unsigned char *dst, size_t n)
{
	uint64_t at = img->offset + img->header_size;
	const unsigned char *src;

	if (at < img->offset || !in_range(at, img->stored_size, f->len))
		return -EBADMSG;
	if (img->codec == ELFSCAN_CODEC_NONE) {
		size_t k = img->stored_size < n ? (size_t)img->stored_size : n;

		memcpy(dst, es_at(f, at, k), k);
		return (long)k;
	}
	if (img->stored_size > INT32_MAX)
		return -EBADMSG;
	src = f->buf + at;
	if (img->codec == ELFSCAN_CODEC_LZ4) {
		/* Stops decoding once n bytes are out: reads only their input. */
		int k = LZ4_decompress_safe_partial((const char *)src, (char *)dst,
						    (int)img->stored_size, (int)n, (int)n);

		return k < 0 ? -EBADMSG : k;
	}
	if (img->codec == ELFSCAN_CODEC_ZSTD)
		return zstd_head(f, src, (size_t)img->stored_size, dst, n);
	return -EBADMSG;
}

int es_read_cubin_header(struct elfscan_file *f, struct elfscan_image *img)
{
	unsigned char head[64];
	long n;

	if (img->kind != ELFSCAN_KIND_SASS || img->variant != ELFSCAN_VARIANT_NONE ||
	    (img->flags & ELFSCAN_FLAG_OPAQUE) || img->version_major != 1 ||
	    img->version_minor >= 8)
		return 0;
	n = es_payload_head(f, img, head, sizeof(head));
	if (n == -ENOMEM)
		return -ENOMEM;
	/* Unreadable: --verify says so; a listing keeps the header's word. */
	if (n < (long)sizeof(head) || memcmp(head, "\177ELF", 4) != 0 ||
	    rd16(head + 18) != EM_CUDA)
		return 0;
	if (es_eflags_arch_specific(head[8], rd32(head + 0x30))) {
		img->variant = ELFSCAN_VARIANT_A;
		img->variant_from_cubin = true;
	}
	return 0;
}

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

/*
 * A zstd stream decoded into a buffer that grows with what comes out, up
 * to cap bytes: the header's size is a claim, and a few bytes of RLE
 * blocks can claim 2 GiB. Returns the bytes decoded into *out (which the
 * caller frees), or -1 when the stream is corrupt or holds more than cap;
 * *out is NULL with -ENOMEM in *err.
 */
static long long zstd_grow(const unsigned char *src, size_t srclen, size_t cap,
			   unsigned char **out, int *err)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, srclen, 0 };
	ZSTD_outBuffer ob = { NULL, 0, 0 };
	/* nvcc's cubins shrink 3 to 10 times: most fit the first buffer. */
	size_t want = srclen < cap / 16 ? srclen * 16 : cap;
	unsigned long long says = ZSTD_getFrameContentSize(src, srclen);
	long long got = -1;

	*out = NULL;
	*err = 0;
	if (want < 65536 && cap > want)
		want = cap < 65536 ? cap : 65536;
	/*
	 * A frame that states the size, as nvcc's do, is decoded in one pass
	 * into a buffer of that size, as far as its bytes can hold it: a
	 * 4-byte block yields at most 2 MiB.
	 */
	if (says == cap && cap / (1u << 19) <= srclen)
		want = cap;
	if (!z) {
		*err = -ENOMEM;
		return -1;
	}
	for (;;) {
		size_t r;

		if (ob.pos == ob.size) {
			unsigned char *p;

			if (ob.size == cap)
				break; /* more than the header says */
			p = realloc(ob.dst, want);
			if (!p) {
				*err = -ENOMEM;
				break;
			}
			ob.dst = p;
			ob.size = want;
			want = want > cap / 2 ? cap : want * 2;
		}
		r = ZSTD_decompressStream(z, &ob, &in);
		if (ZSTD_isError(r))
			break;
		if (in.pos == in.size && r == 0) {
			got = (long long)ob.pos; /* the last frame ended */
			break;
		}
		if (in.pos == in.size && ob.pos < ob.size)
			break; /* cut short */
	}
	ZSTD_freeDCtx(z);
	if (got < 0) {
		free(ob.dst);
		return -1;
	}
	*out = ob.dst;
	return got;
}

int es_payload(const struct elfscan_file *f, const struct elfscan_image *img,
	       unsigned char **owned, const unsigned char **view, size_t *len)
{
	uint64_t at = img->offset + img->header_size;
	const unsigned char *src;
	unsigned char *dst;
	size_t got, cap;

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
	if (img->codec == ELFSCAN_CODEC_LZ4) {
		int n;

		/*
		 * An LZ4 block yields at most 255 bytes a byte (a match's
		 * length bytes): a claim past that is not allocated.
		 */
		cap = img->size < img->stored_size * 255 + 255
			      ? (size_t)img->size
			      : (size_t)img->stored_size * 255 + 255;
		if (!(dst = malloc(cap)))
			return -ENOMEM;
		n = LZ4_decompress_safe((const char *)src, (char *)dst,
					(int)img->stored_size,
					cap > INT32_MAX ? INT32_MAX : (int)cap);
		got = n < 0 ? (size_t)-1 : (size_t)n;
	} else {
		int err;
		long long n = zstd_grow(src, (size_t)img->stored_size,
					(size_t)img->size, &dst, &err);

		if (err)
			return err;
		got = n < 0 ? (size_t)-1 : (size_t)n;
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

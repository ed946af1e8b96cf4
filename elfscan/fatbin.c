/*
 * Fatbin containers and their entries, read from raw bytes. Nothing here
 * needs libelf or allocates outside the result arrays, so the shim can
 * link it. Layout: reference/fatbin.md sections 2.1-2.7.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

/* Entry header fields (fatbin.md 2.2). */
enum {
	E_KIND = 0x00,
	E_HVER = 0x02,
	E_HSIZE = 0x04,
	E_PADDED = 0x08,
	E_CSIZE = 0x10,
	E_OPTS = 0x14,
	E_MINOR = 0x18,
	E_MAJOR = 0x1A,
	E_ARCH = 0x1C,
	E_IDENT_OFF = 0x20,
	E_IDENT_LEN = 0x24,
	E_FLAGS = 0x28,
	E_USIZE = 0x38,
};

static int known_kind(unsigned kind)
{
	return kind == ELFSCAN_KIND_PTX || kind == ELFSCAN_KIND_SASS ||
	       kind == ELFSCAN_KIND_LTOIR;
}

int elfscan_entry_parse(const void *buf, size_t avail,
			struct elfscan_image *img,
			enum elfscan_problem_code *problem)
{
	const unsigned char *e = buf;
	uint64_t hs, padded, csz, usz, flags;
	uint32_t opts;

	memset(img, 0, sizeof(*img));
	if (avail < FATBIN_ENTRY_HEADER_MIN) {
		*problem = ELFSCAN_P_ENTRY_TRUNCATED;
		return -EBADMSG;
	}
	hs = rd32(e + E_HSIZE);
	padded = rd64(e + E_PADDED);
	if (hs < FATBIN_ENTRY_HEADER_MIN || hs % 8 || padded % 8 ||
	    !in_range(hs, padded, avail)) {
		*problem = ELFSCAN_P_ENTRY_BAD_SIZES;
		return -EBADMSG;
	}
	img->kind = rd16(e + E_KIND);
	img->header_size = (uint32_t)hs;
	img->version_minor = rd16(e + E_MINOR);
	img->version_major = rd16(e + E_MAJOR);
	img->arch = rd32(e + E_ARCH);
	flags = rd64(e + E_FLAGS);
	img->flags = flags;
	img->unknown_flags = flags & ~ELFSCAN_FLAGS_KNOWN;
	if (flags & ELFSCAN_FLAG_ARCH_SPECIFIC)
		img->variant = ELFSCAN_VARIANT_A;
	else if (flags & ELFSCAN_FLAG_FAMILY_SPECIFIC)
		img->variant = ELFSCAN_VARIANT_F;
	csz = rd32(e + E_CSIZE);
	usz = rd64(e + E_USIZE);
	img->stored_size = padded;
	img->size = padded;

	if (rd16(e + E_HVER) != 0x0101) {
		*problem = ELFSCAN_P_ENTRY_BAD_VERSION;
		return 1;
	}

	if ((flags & ELFSCAN_FLAG_LZ4) && (flags & ELFSCAN_FLAG_ZSTD)) {
		img->codec = ELFSCAN_CODEC_UNKNOWN;
		*problem = ELFSCAN_P_ENTRY_BOTH_CODECS;
		return 1;
	}
	if (flags & (ELFSCAN_FLAG_LZ4 | ELFSCAN_FLAG_ZSTD)) {
		img->codec = (flags & ELFSCAN_FLAG_LZ4) ? ELFSCAN_CODEC_LZ4
							 : ELFSCAN_CODEC_ZSTD;
		img->stored_size = csz;
		img->size = usz;
		if (csz == 0 || csz > padded || padded - csz >= 8 || usz == 0) {
			*problem = ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE;
			return 1;
		}
	} else if (flags & ELFSCAN_FLAG_COMPRESSED_OLD) {
		img->codec = ELFSCAN_CODEC_UNKNOWN;
		if (csz > padded) {
			*problem = ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE;
			return 1;
		}
		if (csz)
			img->stored_size = csz;
		if (usz)
			img->size = usz;
	} else if (csz != 0 || usz != 0) {
		*problem = ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE;
		return 1;
	}

	/* Identifier: NUL-terminated inside the header. */
	{
		uint32_t ioff = rd32(e + E_IDENT_OFF);
		uint32_t ilen = rd32(e + E_IDENT_LEN);

		if (ioff || ilen) {
			if (ioff < FATBIN_ENTRY_HEADER_MIN ||
			    !in_range(ioff, (uint64_t)ilen + 1, hs)) {
				*problem = ELFSCAN_P_ENTRY_BAD_STRING;
				return 1;
			}
			img->ident = (const char *)e + ioff;
			img->ident_len = ilen;
		}
	}

	/* Options descriptor {u32 off, u32 len} inside the header. */
	opts = rd32(e + E_OPTS);
	if (opts) {
		uint32_t soff, slen;

		if (opts < FATBIN_ENTRY_HEADER_MIN || !in_range(opts, 8, hs)) {
			*problem = ELFSCAN_P_ENTRY_BAD_STRING;
			return 1;
		}
		soff = rd32(e + opts);
		slen = rd32(e + opts + 4);
		if ((soff || slen) && !in_range(soff, slen, hs)) {
			*problem = ELFSCAN_P_ENTRY_BAD_STRING;
			return 1;
		}
		/* For cubins the descriptor points at a .nv.compat copy. */
		if (soff && img->kind != ELFSCAN_KIND_SASS) {
			while (slen && e[soff + slen - 1] == '\0')
				slen--;
			img->options = (const char *)e + soff;
			img->options_len = slen;
		}
	}
	return 0;
}

int elfscan_container_validate(const void *buf, size_t len, uint64_t *size,
			       uint64_t *bad_offset)
{
	const unsigned char *c = buf;
	uint64_t body, end, pos;
	size_t n = 0;

	*bad_offset = 0;
	if (len < FATBIN_CONTAINER_HEADER || rd32(c) != FATBIN_MAGIC)
		return -ENODATA;
	body = rd64(c + 8);
	if (rd16(c + 4) != 1 || rd16(c + 6) != FATBIN_CONTAINER_HEADER ||
	    body % 8 || !in_range(FATBIN_CONTAINER_HEADER, body, len))
		return -EBADMSG;
	end = FATBIN_CONTAINER_HEADER + body;
	pos = FATBIN_CONTAINER_HEADER;
	while (pos < end) {
		struct elfscan_image img;
		enum elfscan_problem_code p;

		if (elfscan_entry_parse(c + pos, end - pos, &img, &p) != 0) {
			*bad_offset = pos;
			return -EBADMSG;
		}
		pos += img.header_size + rd64(c + pos + E_PADDED);
		n++;
	}
	if (n == 0)
		return -EBADMSG;
	*size = end;
	return 0;
}

/*
 * The window read at a miss: a header and the strings inside it fit in
 * the small one. A miss close after the last window means headers sit
 * close together (cuBLASLt: 4,695 of its 5,736 entries follow the last
 * within 4 KiB), and the large one then holds several: 2,866 reads
 * instead of 5,737 there.
 */
#define PEEK_SMALL 256u
#define PEEK_LARGE 4096u
#define PEEK_NEAR 8192u

const unsigned char *es_at(struct elfscan_file *f, uint64_t off, size_t n)
{
	size_t want;
	ssize_t got;

	if (!f->peek_fd)
		return f->buf + off;
	if (off >= f->peek_off && in_range(off - f->peek_off, n, f->peek_len))
		return f->peek + (off - f->peek_off);
	want = off >= f->peek_off && off - f->peek_off < PEEK_NEAR && f->peek_len
		       ? PEEK_LARGE
		       : PEEK_SMALL;
	if (want < n)
		want = n;
	if (want > f->len - off)
		want = f->len - off;
	if (want > f->peek_cap) {
		unsigned char *p = realloc(f->peek, want);

		if (!p)
			return f->buf + off;
		f->peek = p;
		f->peek_cap = want;
	}
	f->peek_len = 0;
	do
		got = pread(f->peek_fd - 1, f->peek, want, (off_t)off);
	while (got < 0 && errno == EINTR);
	if (got < 0 || (size_t)got < n)
		return f->buf + off;
	f->peek_off = off;
	f->peek_len = (size_t)got;
	return f->peek;
}

/*
 * The entry header at pos, for elfscan_entry_parse() with avail = end -
 * pos: all of its header_size bytes when that size fits in avail (the
 * parser reads nothing past them), else the fixed part, which is all the
 * parser reads before it rejects the sizes. Only what the header needs
 * is asked of the window: the window read at a container's header then
 * serves its first entry too, where asking for a small window's worth
 * past the entry read it again (cuDNN's engines: 4,220 reads, now 3,496).
 */
static const unsigned char *entry_at(struct elfscan_file *f, uint64_t pos,
				     uint64_t end)
{
	uint64_t avail = end - pos;
	size_t n = avail < FATBIN_ENTRY_HEADER_MIN ? (size_t)avail
						    : FATBIN_ENTRY_HEADER_MIN;
	const unsigned char *p = es_at(f, pos, n);
	uint64_t hs;

	if (n < FATBIN_ENTRY_HEADER_MIN)
		return p;
	hs = rd32(p + E_HSIZE);
	if (hs > n && hs <= avail)
		p = es_at(f, pos, (size_t)hs);
	return p;
}

/* A string the parser found at s in a copy of the header at pos. */
static const char *rebase(const struct elfscan_file *f, uint64_t pos,
			  const unsigned char *copy, const char *s)
{
	return s ? (const char *)f->buf + pos + ((const unsigned char *)s - copy)
		 : NULL;
}

/* Grow an array of elements of size sz so that one more fits. */
static int grow(void **arr, size_t n, size_t *cap, size_t sz)
{
	void *p;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int es_add_problem(struct elfscan_file *f, enum elfscan_problem_code code,
		   uint64_t offset, uint64_t value, long image, long container,
		   size_t section)
{
		struct elfscan_problem *p;

	if (grow((void **)&f->problems, f->nproblems, &f->cap_problems, sizeof(*p)))
		return -ENOMEM;
	p = &f->problems[f->nproblems++];
	p->code = code;
	p->offset = offset;
	p->value = value;
	p->image = image;
	p->container = container;
	p->section = section;
	return 0;
}

int es_append_image(struct elfscan_file *f, const struct elfscan_image *img)
{
	if (grow((void **)&f->images, f->nimages, &f->cap_images,
		 sizeof(*img)))
		return -ENOMEM;
	f->images[f->nimages++] = *img;
	return 0;
}

int es_append_container(struct elfscan_file *f, const struct elfscan_container *c)
{
	if (grow((void **)&f->containers, f->ncontainers, &f->cap_containers,
		 sizeof(*c)))
		return -ENOMEM;
	f->containers[f->ncontainers++] = *c;
	return 0;
}

int es_add_section(struct elfscan_file *f, const char *name, uint64_t offset,
		   uint64_t size, uint64_t addr, size_t *index)
{
	struct elfscan_section *s;
	char *copy = strdup(name);

	if (!copy || grow((void **)&f->sections, f->nsections,
			  &f->cap_sections, sizeof(*s))) {
		free(copy);
		return -ENOMEM;
	}
	s = &f->sections[f->nsections];
	s->name = copy;
	s->offset = offset;
	s->size = size;
	s->addr = addr;
	s->ncontainers = 0;
	*index = f->nsections++;
	return 0;
}

int es_add_container(struct elfscan_file *f, uint64_t off, uint64_t limit,
		     size_t section, enum elfscan_found found, uint64_t *next,
		     uint64_t *chain_end)
{
	const unsigned char *c;
	struct elfscan_container ct = { 0 };
	uint64_t end, pos, body, chain_at = 0;
	long ci = (long)f->ncontainers;
	int rc, chain_broke = 0;

	*next = limit;
	*chain_end = limit;
	if (!in_range(off, FATBIN_CONTAINER_HEADER, limit))
		return es_add_problem(f, ELFSCAN_P_CONTAINER_OVERRUNS, off,
				      0, -1, -1, section);
	c = es_at(f, off, FATBIN_CONTAINER_HEADER);
	if (rd16(c + 4) != 1 || rd16(c + 6) != FATBIN_CONTAINER_HEADER)
		return es_add_problem(f, ELFSCAN_P_CONTAINER_BAD_HEADER, off,
				      ((uint64_t)rd16(c + 4) << 16) |
					      rd16(c + 6),
				      -1, -1, section);
	body = rd64(c + 8);
	if (in_range(off + FATBIN_CONTAINER_HEADER, body, limit)) {
		end = off + FATBIN_CONTAINER_HEADER + body;
	} else {
		rc = es_add_problem(f, ELFSCAN_P_CONTAINER_OVERRUNS, off, body,
				    -1, ci, section);
		if (rc)
			return rc;
		end = limit;
	}

	ct.offset = off;
	ct.size = end - off;
	ct.section = section;
	ct.found = found;
	ct.first_image = f->nimages;
	if ((rc = es_append_container(f, &ct)))
		return rc;
	f->sections[section].ncontainers++;

	pos = off + FATBIN_CONTAINER_HEADER;
	while (pos < end) {
		struct elfscan_image img;
		enum elfscan_problem_code p;
		long ii = (long)f->nimages;
		const unsigned char *e = entry_at(f, pos, end);
		int r = elfscan_entry_parse(e, end - pos, &img, &p);
		uint64_t step;

		if (r < 0) {
			rc = es_add_problem(f, p, pos,
					    p == ELFSCAN_P_ENTRY_TRUNCATED
						    ? end - pos
						    : rd32(e + E_HSIZE),
					    -1, ci, section);
			if (rc)
				return rc;
			/* The chain cannot be followed further. */
			chain_broke = 1;
			chain_at = pos;
			pos = end;
			break;
		}
		/* Read before the next es_at() call moves the window. */
		step = img.header_size + rd64(e + E_PADDED);
		img.ident = rebase(f, pos, e, img.ident);
		img.options = rebase(f, pos, e, img.options);
		img.offset = pos;
		img.container = (size_t)ci;
		if (r > 0) {
			rc = es_add_problem(f, p, pos,
					    p == ELFSCAN_P_ENTRY_BAD_VERSION
						    ? rd16(e + E_HVER)
						    : img.flags,
					    p == ELFSCAN_P_ENTRY_BAD_VERSION
						    ? -1
						    : ii,
					    ci, section);
			if (rc)
				return rc;
		}
		if (r == 0 || p != ELFSCAN_P_ENTRY_BAD_VERSION) {
			if ((rc = es_append_image(f, &img)))
				return rc;
			if (!known_kind(img.kind) &&
			    (rc = es_add_problem(f, ELFSCAN_P_ENTRY_UNKNOWN_KIND,
						 pos, img.kind, ii, ci,
						 section)))
				return rc;
			if (img.unknown_flags &&
			    (rc = es_add_problem(f, ELFSCAN_P_UNKNOWN_FLAGS, pos,
						 img.unknown_flags, ii, ci,
						 section)))
				return rc;
			/* The payload may claim more than the container holds: check first. */
			if (img.codec == ELFSCAN_CODEC_LZ4 &&
			    img.stored_size >= 4 &&
			    in_range(pos + img.header_size, 4, end) &&
			    rd32(es_at(f, pos + img.header_size, 4)) ==
				    0x184D2204u &&
			    (rc = es_add_problem(f, ELFSCAN_P_LZ4_FRAME, pos, 0,
						 ii, ci, section)))
				return rc;
			if (f->each_image &&
			    (rc = f->each_image(f, &f->images[ii])))
				return rc;
		}
		pos += step;
	}
	if (pos != end &&
	    (rc = es_add_problem(f, ELFSCAN_P_CHAIN_OVERRUNS, off, 0, -1, ci,
				 section)))
		return rc;
	f->containers[ci].nimages = f->nimages - f->containers[ci].first_image;
	*next = end;
	*chain_end = chain_broke ? chain_at : end;
	return 0;
}

/* First offset >= pos whose address (offset + delta) is 8-aligned. */
static uint64_t align_up(uint64_t pos, uint64_t delta)
{
	return pos + ((8 - ((pos + delta) & 7)) & 7);
}

/*
 * Bytes checked per step of the search: it reads every 8-aligned word of
 * what lies between containers (160 MB of cuBLASLt's data sections hold
 * none), so it must run at memory speed (measured: 9.8 GB/s on an
 * in-memory buffer here, the machine's single-thread memory bandwidth).
 */
#define MAGIC_BLOCK 64u

/*
 * Does any 8-aligned position of the MAGIC_BLOCK bytes at p (p's address
 * is 8-aligned) start with the container magic?
 */
static int block_has_magic(const unsigned char *p)
{
#ifdef __SSE2__
	const __m128i m = _mm_set1_epi32((int)FATBIN_MAGIC);
	__m128i a = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)p), m);
	__m128i b = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 16)), m);
	__m128i c = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 32)), m);
	__m128i d = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 48)), m);
	__m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));

	/* Lanes 0 and 2 of each 16 bytes are the 8-aligned words. */
	return (_mm_movemask_ps(_mm_castsi128_ps(any)) & 0x5) != 0;
#else
	unsigned i;
	int hit = 0;

	for (i = 0; i < MAGIC_BLOCK; i += 8)
		hit |= rd32(p + i) == FATBIN_MAGIC;
	return hit;
#endif
}

/*
 * The first offset in [pos, stop) that starts with the container magic,
 * stepping by 8 from pos (whose address is 8-aligned); stop when none
 * does. Reads nothing at or past limit.
 */
static uint64_t find_magic(const unsigned char *buf, uint64_t pos,
			   uint64_t stop, uint64_t limit)
{
	while (pos < stop) {
		/* Skip blocks without a candidate without looking closer. */
		if (in_range(pos, MAGIC_BLOCK, limit) && !block_has_magic(buf + pos)) {
			pos += MAGIC_BLOCK;
			continue;
		}
		if (!in_range(pos, 4, limit))
			break;
		if (rd32(buf + pos) == FATBIN_MAGIC)
			return pos;
		pos += 8;
	}
	return stop;
}

/*
 * How much of the mapping the magic scan leaves mapped behind it before
 * it unmaps those pages (f->drop_page): a bound on its resident set, which
 * otherwise grows to every page it touched and the pages fault-around
 * mapped next to them (cuFFT 10's 230 MB .data: 241 MB of RSS). A
 * multiple of MAGIC_BLOCK, so that the search's steps keep their phase.
 * The fuzzer lowers it, so that small inputs cross windows.
 */
uint64_t es_drop_window = 8u << 20;
#define DROP_WINDOW es_drop_window

/*
 * Unmap the pages of the mapping in [*kept, the page before pos) once
 * DROP_WINDOW bytes lie behind; *kept moves up. MADV_DONTNEED on a
 * private file mapping never written to drops the page table entries
 * only: the bytes read the same afterwards, from the page cache.
 */
static void drop_behind(const struct elfscan_file *f, uint64_t pos,
			uint64_t *kept)
{
	uint64_t to;

	if (!f->drop_page || pos < *kept || pos - *kept < DROP_WINDOW)
		return;
	to = (pos - f->drop_page) & ~((uint64_t)f->drop_page - 1);
	if (to <= *kept)
		return;
	madvise((void *)(uintptr_t)(f->buf + *kept), (size_t)(to - *kept),
		MADV_DONTNEED);
	*kept = to;
}

/*
 * How far past a container's end the hop looks through zero words for the
 * next header before the search takes over. Measured in the CUDA 13.0
 * libraries: cuFFT's .ldata and cuSPARSE's .rodata pad containers to 32
 * bytes with 0 to 24 zero bytes (once 568), and the .cask_resource of
 * cuBLASLt and cuDNN puts one zero word after each container.
 */
#define HOP_ZEROS_MAX 4096u

/*
 * The magic scan of [start, stop): a container found at pos is walked and
 * the scan hops to its end, skips the zero words there and expects the
 * next header; only where the hop finds none does it search word by word
 * (a gap, a blob that is no container), until the next magic, and then
 * hops again. So it reads the container headers and what lies between
 * containers, never a payload. Candidates start before stop; a container
 * may run on to limit. *resume is set to the end of the last container
 * found (0 when none). Returns 0 or -ENOMEM.
 */
static int scan_range(struct elfscan_file *f, uint64_t start, uint64_t stop,
		      uint64_t limit, uint64_t addr_delta, size_t section,
		      uint64_t *resume)
{
	uint64_t pos = align_up(start, addr_delta);
	uint64_t kept = f->drop_page ? start & ~((uint64_t)f->drop_page - 1) : 0;
	int hop = 0, rc;

	*resume = 0;
	while (pos < stop && in_range(pos, FATBIN_CONTAINER_HEADER, limit)) {
		uint64_t from = pos, size, bad, next, chain_end;
		int hopped = hop;

		if (hop) {
			hop = 0;
			while (pos < stop && pos - from < HOP_ZEROS_MAX &&
			       in_range(pos, 8, limit) && rd64(f->buf + pos) == 0)
				pos += 8;
			f->magic_scanned += pos - from;
			if (pos >= stop ||
			    !in_range(pos, FATBIN_CONTAINER_HEADER, limit) ||
			    rd32(f->buf + pos) != FATBIN_MAGIC)
				continue; /* no header here: search from pos */
		} else {
			/* A window at a time, dropping what lies behind. */
			for (;;) {
				uint64_t chunk = stop - pos > DROP_WINDOW
							 ? pos + DROP_WINDOW
							 : stop;

				pos = find_magic(f->buf, pos, chunk, limit);
				if (pos < chunk || chunk == stop)
					break;
				drop_behind(f, pos, &kept);
			}
			f->magic_scanned += pos - from;
			if (pos >= stop ||
			    !in_range(pos, FATBIN_CONTAINER_HEADER, limit))
				break;
		}
		if (elfscan_container_validate(f->buf + pos, limit - pos, &size,
					       &bad) != 0) {
			pos += 8;
			f->magic_scanned += 8;
			continue;
		}
		/*
		 * The hop reads the next header there: start its load now,
		 * while this container is walked (cuFFT 10: 5% of its scan).
		 */
		if (in_range(pos + size, 8, limit))
			__builtin_prefetch(f->buf + pos + size);
		{
			/*
			 * The validation just read this container's headers
			 * through the mapping: walk them there, not again with
			 * pread (cuFFT's 23,983 containers in .ldata: 69 ms
			 * against 20).
			 */
			int peek_fd = f->peek_fd;

			f->peek_fd = 0;
			rc = es_add_container(f, pos, limit, section,
					      ELFSCAN_FOUND_MAGIC, &next,
					      &chain_end);
			f->peek_fd = peek_fd;
		}
		if (rc)
			return rc;
		f->magic_hops += hopped;
		*resume = next;
		pos = align_up(next, addr_delta);
		hop = 1;
		drop_behind(f, pos, &kept);
	}
	return 0;
}

int es_magic_scan(struct elfscan_file *f, uint64_t start, uint64_t end,
		  uint64_t addr_delta, size_t section)
{
	uint64_t resume;

	return scan_range(f, start, end, end, addr_delta, section, &resume);
}

static int all_zero(const unsigned char *p, uint64_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

int es_walk_section(struct elfscan_file *f, uint64_t start, uint64_t end,
		    uint64_t addr_delta, size_t section)
{
	uint64_t pos = start;
	int rc;

	while (pos < end) {
		uint64_t next, chain_end, resume;
		size_t before = f->ncontainers;

		/* 8-byte zero padding between containers is tolerated. */
		if (!in_range(pos, 8, end) || all_zero(es_at(f, pos, 8), 8)) {
			uint64_t n = in_range(pos, 8, end) ? 8 : end - pos;

			if (!all_zero(es_at(f, pos, n), n))
				break;
			pos += n;
			continue;
		}
		if (in_range(pos, FATBIN_CONTAINER_HEADER, end) &&
		    rd32(es_at(f, pos, FATBIN_CONTAINER_HEADER)) ==
			    FATBIN_MAGIC) {
			rc = es_add_container(f, pos, end, section,
					      ELFSCAN_FOUND_SECTION, &next,
					      &chain_end);
			if (rc)
				return rc;
			if (f->ncontainers > before) {
				/*
				 * A chain that breaks before the end leaves
				 * bytes the size field claims and no entry
				 * accounts for. A wrong size may cover the
				 * containers after this one: look for them
				 * there before walking on.
				 */
				if (chain_end < next) {
					rc = scan_range(f, chain_end, next, end,
							addr_delta, section,
							&resume);
					if (rc)
						return rc;
					if (resume > next)
						next = resume;
				}
				pos = next;
				continue;
			}
		}
		/* Junk: say where, then look for the next valid container. */
		rc = es_add_problem(f, ELFSCAN_P_JUNK_IN_SECTION, pos, 0, -1, -1,
				    section);
		if (rc)
			return rc;
		return es_magic_scan(f, pos + 1, end, addr_delta, section);
	}
	if (pos < end)
		return es_add_problem(f, ELFSCAN_P_JUNK_IN_SECTION, pos, 0, -1,
				      -1, section);
	return 0;
}

/* Images of one container in memory, for elfscan_module_describe(). */
static long describe_container(const unsigned char *c, uint64_t size,
			       struct elfscan_image *out, size_t nmax)
{
	uint64_t pos = FATBIN_CONTAINER_HEADER;
	long n = 0;

	while (pos < size) {
		struct elfscan_image img;
		enum elfscan_problem_code p;

		if (elfscan_entry_parse(c + pos, size - pos, &img, &p) < 0)
			break;
		img.offset = pos;
		if ((size_t)n < nmax)
			out[n] = img;
		n++;
		pos += img.header_size + rd64(c + pos + E_PADDED);
	}
	return n;
}

long elfscan_module_describe(const void *buf, size_t maxlen,
			     struct elfscan_image *out, size_t nmax)
{
	const unsigned char *b = buf;
	struct es_cubin cub;
	struct es_ptx ptx;

	if (!buf)
		return -EINVAL;
	if (maxlen >= FATBIN_CONTAINER_HEADER && rd32(b) == FATBIN_MAGIC) {
		uint64_t body = rd64(b + 8);

		if (rd16(b + 4) != 1 || rd16(b + 6) != FATBIN_CONTAINER_HEADER ||
		    !in_range(FATBIN_CONTAINER_HEADER, body, maxlen))
			return -EBADMSG;
		return describe_container(b, FATBIN_CONTAINER_HEADER + body,
					  out, nmax);
	}
	if (maxlen >= 64 && memcmp(b, "\177ELF", 4) == 0) {
		if (es_cubin_parse(b, maxlen, &cub) != 0)
			return -EBADMSG;
		if (nmax) {
			memset(out, 0, sizeof(*out));
			out->kind = ELFSCAN_KIND_SASS;
			out->arch = cub.sm;
			/* 'a' in .nv.compat (sm_90+) or in e_flags (ABI v7). */
			out->variant = cub.arch_specific == 1 || cub.eflags_arch_specific
					       ? ELFSCAN_VARIANT_A
				       : cub.family_specific == 1
					       ? ELFSCAN_VARIANT_F
					       : ELFSCAN_VARIANT_NONE;
			out->version_major = 1;
			out->version_minor = cub.abi_version;
			out->stored_size = out->size = cub.size;
		}
		return 1;
	}
	if (es_ptx_parse(buf, strnlen(buf, maxlen), &ptx) == 0) {
		if (nmax) {
			memset(out, 0, sizeof(*out));
			out->kind = ELFSCAN_KIND_PTX;
			out->arch = ptx.arch;
			out->variant = ptx.variant;
			out->version_major = ptx.major;
			out->version_minor = ptx.minor;
			out->stored_size = out->size =
				strnlen(buf, maxlen) + 1;
		}
		return 1;
	}
	return -EINVAL;
}

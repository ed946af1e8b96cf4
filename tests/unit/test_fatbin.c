/*
 * Fatbin containers and entries (elfscan/fatbin.c): the entry parser, the
 * container validator, module descriptions, and scans of good fixtures
 * with one field corrupted at a time. Every scan reads an exact-size copy
 * so that a sanitizer build catches any read past the input.
 */
#include <unistd.h>

#include "helpers.h"

/* Where the entries of the two corrupted fixtures sit. */
struct layout {
	const char *name;
	uint64_t container;
	uint64_t sass, ptx;             /* entry offsets */
	size_t sass_index, ptx_index;   /* their place in the chain */
	size_t nimages;
};

static const struct layout layouts[] = {
	{ "vecadd.fatbin", 0, 0x10, 0x3580, 0, 2, 3 },
	{ "sm80-ptx80.so", 0x2038, 0x2258, 0x2048, 1, 0, 2 },
};

static void test_entry_parse_fixture(void **state)
{
	size_t len;
	unsigned char *buf = read_fixture("vecadd.fatbin", &len);
	struct elfscan_image img;
	enum elfscan_problem_code p = ELFSCAN_P_COUNT;

	(void)state;
	assert_int_equal(elfscan_entry_parse(buf + 0x10, len - 0x10, &img, &p), 0);
	assert_int_equal(p, ELFSCAN_P_COUNT); /* left alone on success */
	assert_int_equal(img.kind, ELFSCAN_KIND_SASS);
	assert_int_equal(img.arch, 80);
	assert_int_equal(img.header_size, 0x40);
	assert_int_equal(img.stored_size, 0x12e8);
	assert_int_equal(img.codec, ELFSCAN_CODEC_NONE);
	assert_int_equal(img.version_major, 1);
	assert_int_equal(img.version_minor, 8);
	assert_null(img.ident);

	/* sm_100f carries a .nv.compat copy, which is not an options string. */
	assert_int_equal(elfscan_entry_parse(buf + 0x1338, len - 0x1338, &img, &p), 0);
	assert_int_equal(img.arch, 100);
	assert_int_equal(img.variant, ELFSCAN_VARIANT_F);
	assert_true(img.flags & ELFSCAN_FLAG_COMPAT_COPY);
	assert_int_equal(img.unknown_flags, 0);
	assert_null(img.options);

	assert_int_equal(elfscan_entry_parse(buf + 0x3580, len - 0x3580, &img, &p), 0);
	assert_int_equal(img.kind, ELFSCAN_KIND_PTX);
	assert_int_equal(img.codec, ELFSCAN_CODEC_ZSTD);
	assert_int_equal(img.stored_size, 0x1b9);
	assert_int_equal(img.size, 0x5ef);
	assert_int_equal(img.version_major, 9);
	assert_int_equal(img.version_minor, 0);
	assert_int_equal(img.arch, 90);
	assert_non_null(img.options); /* descriptor {0x48, 0}: empty options */
	assert_int_equal(img.options_len, 0);
	free(buf);
}

static void test_entry_parse_strings(void **state)
{
	unsigned char e[0x60];
	struct elfscan_image img;
	enum elfscan_problem_code p;

	(void)state;
	entry_init(e, sizeof(e), 0);
	put16(e + E_KIND, ELFSCAN_KIND_PTX);
	put32(e + E_OPTS, 0x40);
	put32(e + 0x40, 0x50); /* options at 0x50, 6 bytes with 2 NULs */
	put32(e + 0x44, 6);
	put32(e + E_IDENT_OFF, 0x48);
	put32(e + E_IDENT_LEN, 4);
	memcpy(e + 0x48, "k.cu", 5);
	memcpy(e + 0x50, "-O3 \0\0", 6);
	assert_int_equal(elfscan_entry_parse(e, sizeof(e), &img, &p), 0);
	assert_int_equal(img.ident_len, 4);
	assert_memory_equal(img.ident, "k.cu", 4);
	/* Trailing NULs inside the stated length are not part of the text. */
	assert_int_equal(img.options_len, 4);
	assert_memory_equal(img.options, "-O3 ", 4);
}

struct entry_case {
	const char *what;
	unsigned off, width;
	uint64_t value;
	bool or_in;
	int ret; /* <0: chain broken, >0: entry flagged */
	enum elfscan_problem_code problem;
};

/* The sign of the result and the code; the scan table below has more. */
static const struct entry_case entry_cases[] = {
	{ "header size below 0x40", E_HSIZE, 4, 0x38, false, -1, ELFSCAN_P_ENTRY_BAD_SIZES },
	{ "header size zero", E_HSIZE, 4, 0, false, -1, ELFSCAN_P_ENTRY_BAD_SIZES },
	{ "padded size past avail", E_PADDED, 8, 0x48, false, -1, ELFSCAN_P_ENTRY_BAD_SIZES },
	{ "header+padded wraps to 0", E_PADDED, 8, (uint64_t)0 - 0x48, false, -1, ELFSCAN_P_ENTRY_BAD_SIZES },
	{ "header version", E_HVER, 2, 0x0102, false, 1, ELFSCAN_P_ENTRY_BAD_VERSION },
	{ "both codecs", E_FLAGS, 8, ELFSCAN_FLAG_LZ4 | ELFSCAN_FLAG_ZSTD, true, 1, ELFSCAN_P_ENTRY_BOTH_CODECS },
	{ "zstd without sizes", E_FLAGS, 8, ELFSCAN_FLAG_ZSTD, true, 1, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE },
	{ "unpacked size while stored plain", E_USIZE, 8, 8, false, 1, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE },
	{ "ident length huge", E_IDENT_LEN, 4, 0xffffffff, false, 1, ELFSCAN_P_ENTRY_BAD_STRING },
	{ "options inside the fixed part", E_OPTS, 4, 0x10, false, 1, ELFSCAN_P_ENTRY_BAD_STRING },
};

static void test_entry_parse_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(entry_cases); i++) {
		const struct entry_case *c = &entry_cases[i];
		unsigned char e[0x50];
		struct elfscan_image img;
		enum elfscan_problem_code p = ELFSCAN_P_COUNT;
		int r;

		entry_init(e, 0x48, 0);
		put32(e + E_OPTS, 0x40); /* descriptor {0x48, 0}... */
		put32(e + 0x40, 0x48);   /* ...inside a 0x48-byte header */
		put_le(e + c->off, c->width,
		       (c->or_in ? get_le(e + c->off, c->width) : 0) | c->value);
		r = elfscan_entry_parse(e, 0x48, &img, &p);
		if (!(c->ret < 0 ? r < 0 : r > 0) || p != c->problem)
			fail_msg("%s: returned %d, problem %s", c->what, r,
				 elfscan_problem_id(p));
	}
}

static void test_entry_parse_notes(void **state)
{
	unsigned char e[0x40];
	struct elfscan_image img;
	enum elfscan_problem_code p = ELFSCAN_P_COUNT;

	(void)state;
	/* Too short for the fixed part. */
	entry_init(e, 0x40, 0);
	assert_true(elfscan_entry_parse(e, 0x3f, &img, &p) < 0);
	assert_int_equal(p, ELFSCAN_P_ENTRY_TRUNCATED);

	/* Unknown kinds and flag bits are for the caller to note, not errors. */
	p = ELFSCAN_P_COUNT;
	put16(e + E_KIND, 7);
	put64(e + E_FLAGS, get_le(e + E_FLAGS, 8) | 0x4000000000000400ull);
	assert_int_equal(elfscan_entry_parse(e, sizeof(e), &img, &p), 0);
	assert_int_equal(p, ELFSCAN_P_COUNT);
	assert_int_equal(img.kind, 7);
	assert_int_equal(img.unknown_flags, 0x4000000000000400ull);
}

static void test_container_validate(void **state)
{
	size_t len;
	unsigned char *good = read_fixture("vecadd.fatbin", &len);
	unsigned char *b;
	uint64_t size = 0, bad = 1;

	(void)state;
	b = copy_exact(good, len);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), 0);
	assert_int_equal(size, len);
	assert_int_equal(elfscan_container_validate(b, 15, &size, &bad), -ENODATA);
	assert_int_equal(elfscan_container_validate(b, len - 1, &size, &bad), -EBADMSG);
	b[0] ^= 1;
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -ENODATA);
	b[0] ^= 1;
	put16(b + 4, 2);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -EBADMSG);
	put16(b + 4, 1);
	put16(b + 6, 0x20);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -EBADMSG);
	put16(b + 6, 0x10);
	put64(b + 8, 0xfffffffffffffff0ull);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -EBADMSG);
	put64(b + 8, 0);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -EBADMSG);
	put64(b + 8, len - 16);
	/* A bad second entry is reported at its offset. */
	put32(b + 0x1338 + E_HSIZE, 0x44);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), -EBADMSG);
	assert_int_equal(bad, 0x1338);
	free(b);
	free(good);
}

static void test_module_describe(void **state)
{
	size_t len, clen, plen;
	unsigned char *fb = read_fixture("vecadd.fatbin", &len);
	unsigned char *cub = read_fixture("vecadd-sm90a.cubin", &clen);
	unsigned char *ptx = read_fixture("vecadd-sm89.ptx", &plen);
	struct elfscan_image out[2];

	(void)state;
	/* The count is the real one even when out is too small. */
	assert_int_equal(elfscan_module_describe(fb, len, out, 2), 3);
	assert_int_equal(out[0].kind, ELFSCAN_KIND_SASS);
	assert_int_equal(out[0].arch, 80);
	assert_int_equal(out[1].arch, 100);
	assert_int_equal(out[1].variant, ELFSCAN_VARIANT_F);
	assert_int_equal(elfscan_module_describe(fb, len, NULL, 0), 3);
	assert_int_equal(elfscan_module_describe(fb, len - 8, out, 2), -EBADMSG);

	assert_int_equal(elfscan_module_describe(cub, clen, out, 1), 1);
	assert_int_equal(out[0].kind, ELFSCAN_KIND_SASS);
	assert_int_equal(out[0].arch, 90);
	assert_int_equal(out[0].variant, ELFSCAN_VARIANT_A);

	/* The PTX fixture has no NUL: maxlen alone bounds the read. */
	assert_int_equal(elfscan_module_describe(ptx, plen, out, 1), 1);
	assert_int_equal(out[0].kind, ELFSCAN_KIND_PTX);
	assert_int_equal(out[0].arch, 89);
	assert_int_equal(out[0].version_major, 9);

	assert_int_equal(elfscan_module_describe(NULL, 10, out, 1), -EINVAL);
	assert_int_equal(elfscan_module_describe("hello", 5, out, 1), -EINVAL);
	free(fb);
	free(cub);
	free(ptx);
}

enum target { T_CONTAINER, T_SASS, T_PTX };
enum effect { SAME, DROPS_ONE, CHAIN_STOPS, NONE_LEFT };

struct corruption {
	const char *what;
	enum target target;
	unsigned off, width;
	uint64_t value;
	bool or_in;
	enum elfscan_problem_code problem;
	enum effect effect;
};

static const struct corruption corruptions[] = {
	{ "container version", T_CONTAINER, 4, 2, 2, false, ELFSCAN_P_CONTAINER_BAD_HEADER, NONE_LEFT },
	{ "container header size", T_CONTAINER, 6, 2, 0x20, false, ELFSCAN_P_CONTAINER_BAD_HEADER, NONE_LEFT },
	{ "container size wraps", T_CONTAINER, 8, 8, 0xfffffffffffffff0ull, false, ELFSCAN_P_CONTAINER_OVERRUNS, SAME },
	{ "container size past the end", T_CONTAINER, 8, 8, 0x100000, false, ELFSCAN_P_CONTAINER_OVERRUNS, SAME },
	{ "entry header size below 0x40", T_SASS, E_HSIZE, 4, 0x38, false, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "entry header size not /8", T_SASS, E_HSIZE, 4, 0x44, false, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "entry header size huge", T_SASS, E_HSIZE, 4, 0xfffffff8, false, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "padded size huge", T_SASS, E_PADDED, 8, 0xfffffffffffffff8ull, false, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "padded size loops back", T_PTX, E_PADDED, 8, (uint64_t)0 - 0x50, false, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "padded size odd", T_SASS, E_PADDED, 8, 1, true, ELFSCAN_P_ENTRY_BAD_SIZES, CHAIN_STOPS },
	{ "header version", T_PTX, E_HVER, 2, 0x0102, false, ELFSCAN_P_ENTRY_BAD_VERSION, DROPS_ONE },
	{ "kind unknown", T_SASS, E_KIND, 2, 7, false, ELFSCAN_P_ENTRY_UNKNOWN_KIND, SAME },
	{ "both codecs", T_PTX, E_FLAGS, 8, ELFSCAN_FLAG_LZ4, true, ELFSCAN_P_ENTRY_BOTH_CODECS, SAME },
	{ "both codecs on plain", T_SASS, E_FLAGS, 8, ELFSCAN_FLAG_LZ4 | ELFSCAN_FLAG_ZSTD, true, ELFSCAN_P_ENTRY_BOTH_CODECS, SAME },
	{ "compressed size 0", T_PTX, E_CSIZE, 4, 0, false, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE, SAME },
	{ "compressed size > padded", T_PTX, E_CSIZE, 4, 0x1c1, false, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE, SAME },
	{ "compressed size far below padded", T_PTX, E_CSIZE, 4, 0x100, false, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE, SAME },
	{ "unpacked size 0", T_PTX, E_USIZE, 8, 0, false, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE, SAME },
	{ "compressed size on plain", T_SASS, E_CSIZE, 4, 5, false, ELFSCAN_P_ENTRY_BAD_COMPRESSED_SIZE, SAME },
	{ "ident inside fixed part", T_SASS, E_IDENT_OFF, 4, 0x20, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "ident past the header", T_SASS, E_IDENT_OFF, 4, 0x1000, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "options descriptor past the header", T_PTX, E_OPTS, 4, 0x1000, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "options descriptor crosses the end", T_PTX, E_OPTS, 4, 0x4c, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "options string past the header", T_PTX, 0x40, 4, 0x1000, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "options string too long", T_PTX, 0x44, 4, 0x100, false, ELFSCAN_P_ENTRY_BAD_STRING, SAME },
	{ "unknown flag bit", T_SASS, E_FLAGS, 8, 0x4000000000000000ull, true, ELFSCAN_P_UNKNOWN_FLAGS, SAME },
	{ "OptMask flag bit", T_PTX, E_FLAGS, 8, 0x400, true, ELFSCAN_P_UNKNOWN_FLAGS, SAME },
};

/* Fails with the fixture and the case named, since the table is long. */
static void expect(bool ok, const struct layout *l, const struct corruption *c,
		   const char *claim, const struct elfscan_file *f)
{
	if (ok)
		return;
	print_problems(f);
	fail_msg("%s, %s: %s", l->name, c->what, claim);
}

static void check_corruption(const struct layout *l, const struct corruption *c,
			     const unsigned char *good, size_t len)
{
	struct scanned s;
	const struct elfscan_problem *p;
	uint64_t at = c->target == T_CONTAINER ? l->container
		      : c->target == T_SASS    ? l->sass
					       : l->ptx;
	size_t index = c->target == T_SASS ? l->sass_index : l->ptx_index;
	size_t want = c->effect == SAME        ? l->nimages
		      : c->effect == DROPS_ONE ? l->nimages - 1
		      : c->effect == NONE_LEFT ? 0
					       : index;
	bool note = c->problem == ELFSCAN_P_ENTRY_UNKNOWN_KIND ||
		    c->problem == ELFSCAN_P_UNKNOWN_FLAGS;
	unsigned char *b = copy_exact(good, len);
	uint64_t old = get_le(b + at + c->off, c->width);

	put_le(b + at + c->off, c->width, (c->or_in ? old : 0) | c->value);
	assert_int_not_equal(get_le(b + at + c->off, c->width), old);
	scanned_open(&s, b, len, NULL);
	p = find_problem(&s.f, c->problem);
	expect(s.rc == 0, l, c, "scan failed", &s.f);
	expect(p != NULL, l, c, "expected problem missing", &s.f);
	expect(p->offset == at, l, c, "problem at the wrong offset", &s.f);
	expect(s.f.nimages == want, l, c, "wrong number of images", &s.f);
	/* Unknown kinds and flag bits are notes: the image stays listed. */
	expect(elfscan_problem_is_error(c->problem) == !note, l, c,
	       "wrong severity", &s.f);
	expect(!note || p->image == (long)index, l, c,
	       "note not tied to its image", &s.f);
	/* Verifying what is left must stay in bounds as well. */
	expect(elfscan_verify(&s.f) == 0, l, c, "verify failed", &s.f);
	scanned_close(&s);
	free(b);
}

static void test_corrupt_one_field(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_LEN(layouts); i++) {
		size_t len;
		unsigned char *good = read_fixture(layouts[i].name, &len);
		struct scanned s;

		/* The layout table is right, and the good file is clean. */
		scanned_open(&s, good, len, NULL);
		assert_int_equal(s.rc, 0);
		assert_int_equal(s.f.nproblems, 0);
		assert_int_equal(s.f.nimages, layouts[i].nimages);
		assert_int_equal(s.f.images[layouts[i].sass_index].offset, layouts[i].sass);
		assert_int_equal(s.f.images[layouts[i].ptx_index].offset, layouts[i].ptx);
		assert_int_equal(s.f.containers[0].offset, layouts[i].container);
		scanned_close(&s);
		for (j = 0; j < ARRAY_LEN(corruptions); j++)
			check_corruption(&layouts[i], &corruptions[j], good, len);
		free(good);
	}
}

static void test_corrupt_magic(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;

	(void)state;
	b[0x2038] ^= 0xff;
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_has_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION);
	assert_int_equal(find_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION)->offset, 0x2038);
	/* The wrapper still points there, at what is no container now. */
	assert_has_problem(&s.f, ELFSCAN_P_WRAPPER_DANGLING);
	assert_int_equal(s.f.nimages, 0);
	scanned_close(&s);
	free(b);

	/* A standalone fatbin without its magic is no file we read. */
	b = read_fixture("vecadd.fatbin", &len);
	b[0] ^= 0xff;
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, -EINVAL);
	assert_int_equal(s.f.type, ELFSCAN_FILE_UNKNOWN);
	scanned_close(&s);
	free(b);
}

/* Every prefix of a good file scans without crashing and finds no more. */
static void truncations(const char *name)
{
	size_t len, n, good_images;
	unsigned char *good = read_fixture(name, &len);
	struct scanned s;

	scanned_open(&s, good, len, NULL);
	good_images = s.f.nimages;
	scanned_close(&s);
	for (n = 0; n <= len; n++) {
		scanned_open(&s, good, n, NULL);
		if (s.rc != 0 && s.rc != -EINVAL)
			fail_msg("%s cut at %zu: rc %d", name, n, s.rc);
		if (s.f.nimages > good_images)
			fail_msg("%s cut at %zu: %zu images", name, n, s.f.nimages);
		if (s.rc == 0)
			assert_int_equal(elfscan_verify(&s.f), 0);
		scanned_close(&s);
	}
	free(good);
}

static void test_truncate_fatbin(void **state)
{
	(void)state;
	truncations("vecadd.fatbin");
}

static void test_truncate_so(void **state)
{
	(void)state;
	truncations("sm80-ptx80.so");
}

static void test_padding_and_scraps(void **state)
{
	size_t len;
	unsigned char *one = read_fixture("vecadd.fatbin", &len);
	unsigned char *b = malloc(2 * len + 8);
	struct scanned s;

	(void)state;
	assert_non_null(b);
	/* Eight zero bytes between containers are padding, not junk. */
	memcpy(b, one, len);
	memset(b + len, 0, 8);
	memcpy(b + len + 8, one, len);
	scanned_open(&s, b, 2 * len + 8, NULL);
	assert_int_equal(s.f.nproblems, 0);
	assert_int_equal(s.f.ncontainers, 2);
	assert_int_equal(s.f.containers[1].found, ELFSCAN_FOUND_SECTION);
	scanned_close(&s);

	/* A trailing odd-sized scrap is junk. */
	memcpy(b + len, "\1\2\3\4\5", 5);
	scanned_open(&s, b, len + 5, NULL);
	assert_int_equal(count_problems(&s.f, ELFSCAN_P_JUNK_IN_SECTION), 1);
	assert_int_equal(find_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION)->offset, len);
	assert_int_equal(s.f.nimages, 3);
	scanned_close(&s);
	free(b);
	free(one);
}

/*
 * Junk between two containers is reported where it starts, and the
 * resynchronising search finds the next container at every 8-aligned
 * distance, wherever it falls in the blocks the search steps over.
 */
static void test_junk_between_containers(void **state)
{
	size_t len, k, i;
	unsigned char *one = read_fixture("vecadd.fatbin", &len);
	unsigned char *b = malloc(2 * len + 8 * 40);

	(void)state;
	assert_non_null(b);
	memcpy(b, one, len);
	for (k = 1; k <= 40; k++) {
		size_t junk = 8 * k;
		struct scanned s;

		memset(b + len, 0xa5, junk);
		memcpy(b + len + junk, one, len);
		scanned_open(&s, b, 2 * len + junk, NULL);
		assert_int_equal(s.rc, 0);
		if (s.f.ncontainers != 2 || s.f.containers[1].offset != len + junk ||
		    s.f.containers[1].found != ELFSCAN_FOUND_MAGIC || s.f.nimages != 6)
			fail_msg("%zu junk bytes: %zu containers", junk,
				 s.f.ncontainers);
		for (i = 0; i < 3; i++)
			assert_int_equal(s.f.images[3 + i].offset,
					 s.f.images[i].offset + len + junk);
		assert_int_equal(count_problems(&s.f, ELFSCAN_P_JUNK_IN_SECTION), 1);
		assert_int_equal(find_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION)->offset, len);
		scanned_close(&s);
	}
	free(b);
	free(one);
}

/*
 * In .nv_fatbin of a shared object: a small container, junk, then a
 * container that only resynchronisation can find. The PTX entry's bytes
 * (0x2048..0x2258) make room for all three.
 */
static void test_junk_in_nv_fatbin(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;

	(void)state;
	container_init(b + 0x2038, 0x40);
	entry_init(b + 0x2048, 0x40, 0);
	memset(b + 0x2088, 0xa5, 0x2248 - 0x2088);
	container_init(b + 0x2248, 0x3580 - 0x2258);
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_has_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION);
	assert_int_equal(find_problem(&s.f, ELFSCAN_P_JUNK_IN_SECTION)->offset, 0x2088);
	assert_int_equal(s.f.ncontainers, 2);
	assert_int_equal(s.f.containers[0].wrapper_version, 1);
	assert_int_equal(s.f.containers[1].offset, 0x2248);
	assert_int_equal(s.f.containers[1].found, ELFSCAN_FOUND_MAGIC);
	assert_int_equal(s.f.containers[1].nimages, 1);
	assert_int_equal(s.f.nimages, 2);
	assert_int_equal(s.f.images[1].offset, 0x2258);
	assert_int_equal(s.f.images[1].arch, 80);
	scanned_close(&s);
	free(b);
}

/*
 * Entry headers are at least 0x40 bytes, so every step moves forward: a
 * chain of empty-payload entries is walked once each, and sizes that
 * would step back or stand still are rejected. alarm() turns a loop into
 * a failure instead of a hang.
 */
static void test_chain_progress(void **state)
{
	enum { N = 1000 };
	size_t len = 16 + (size_t)N * 0x40, i;
	unsigned char *b = calloc(1, len);
	struct scanned s;
	uint64_t size, bad;

	(void)state;
	assert_non_null(b);
	alarm(60);
	container_init(b, (uint64_t)N * 0x40);
	for (i = 0; i < N; i++)
		entry_init(b + 16 + i * 0x40, 0x40, 0);
	assert_int_equal(elfscan_container_validate(b, len, &size, &bad), 0);
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.nproblems, 0);
	assert_int_equal(s.f.nimages, N);
	for (i = 1; i < N; i++)
		assert_int_equal(s.f.images[i].offset, s.f.images[i - 1].offset + 0x40);
	scanned_close(&s);
	assert_int_equal(elfscan_module_describe(b, len, NULL, 0), N);

	/* The last entry tries to stand still, then to step back. */
	put32(b + len - 0x40 + E_HSIZE, 0);
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.nimages, N - 1);
	assert_has_problem(&s.f, ELFSCAN_P_ENTRY_BAD_SIZES);
	scanned_close(&s);
	entry_init(b + len - 0x40, 0x40, (uint64_t)0 - 0x80);
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.nimages, N - 1);
	assert_has_problem(&s.f, ELFSCAN_P_ENTRY_BAD_SIZES);
	scanned_close(&s);
	assert_int_equal(elfscan_module_describe(b, len, NULL, 0), N - 1);
	alarm(0);
	free(b);
}

/*
 * fuzz_scan found it: an LZ4 image whose payload claims more than its
 * container holds, with the container's end at the buffer's. Looking for
 * an LZ4 frame magic at the payload read past the buffer; the scan must
 * read nothing outside it (the exact-size copy makes ASan see it).
 */
static const unsigned char lz4_past_end[] = {
	0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00, 0xf1, 0x00, 0x7f, 0xfe,
	0x2a, 0x7f, 0xef, 0xf9, 0x02, 0x00, 0x01, 0x01, 0x40, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2f, 0x2f,
	0x2f, 0x2f, 0x20, 0x47, 0x65, 0x6e, 0x65, 0x41, 0x63, 0x61, 0x74, 0x65,
	0x64, 0x49, 0x20, 0x4e, 0x56, 0xaa, 0xb2, 0xdf, 0xd5, 0x33, 0x32, 0x4e,
	0xa4, 0x85, 0xcc, 0x3a, 0xc9, 0x70, 0x64, 0x60, 0xa6, 0xa6, 0xa6, 0xff,
	0xff, 0x7e, 0xfe, 0x2a, 0x7f, 0xef, 0xc0, 0x2e, 0xa6,
};

static void test_lz4_payload_past_end(void **state)
{
	struct scanned s;

	(void)state;
	scanned_open(&s, lz4_past_end, sizeof(lz4_past_end), NULL);
	assert_int_equal(s.rc, 0);
	assert_true(s.f.ncontainers >= 1);
	scanned_close(&s);
}

/*
 * The magic scan hops from a container's end to the next header, and the
 * walk of .nv_fatbin resynchronises after a broken chain. These scan one
 * section of hand-made containers through the internal entry points, so
 * that the section's kind (searched or walked) is the test's choice.
 */

/*
 * A container at b with n SASS entries for arch, each a 0x40 header and
 * payload bytes of 0xa5. Returns its size.
 */
static size_t put_container(unsigned char *b, unsigned arch, unsigned n,
			    uint64_t payload)
{
	uint64_t one = 0x40 + payload;
	unsigned i;

	container_init(b, n * one);
	for (i = 0; i < n; i++) {
		unsigned char *e = b + 16 + i * one;

		entry_init(e, 0x40, payload);
		put32(e + E_ARCH, arch);
		memset(e + 0x40, 0xa5, payload);
	}
	return 16 + n * one;
}

/* Scan len bytes at b as one section: searched, or walked as .nv_fatbin. */
static void section_scan(struct elfscan_file *f, const unsigned char *b,
			 size_t len, bool walk)
{
	size_t sec;

	elfscan_file_init(f);
	f->buf = b;
	f->len = len;
	assert_int_equal(es_add_section(f, walk ? ".nv_fatbin" : ".rodata", 0,
					len, 0, &sec), 0);
	if (walk)
		assert_int_equal(es_walk_section(f, 0, len, 0, sec), 0);
	else
		assert_int_equal(es_magic_scan(f, 0, len, 0, sec), 0);
}

/* The containers found, as "offset:arch:images:found" words. */
static void expect_containers(const struct elfscan_file *f, const char *want,
			      const char *what)
{
	char got[512] = "";
	size_t i, n = 0;

	for (i = 0; i < f->ncontainers && n < sizeof(got); i++) {
		const struct elfscan_container *c = &f->containers[i];

		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%#llx:%u:%zu:%s",
				      i ? " " : "", (unsigned long long)c->offset,
				      c->nimages ? f->images[c->first_image].arch : 0,
				      c->nimages, elfscan_found_name(c->found));
	}
	if (strcmp(got, want) != 0) {
		print_problems(f);
		fail_msg("%s: containers '%s', want '%s'", what, got, want);
	}
}

/*
 * Containers one after another, with the zero padding the toolchains
 * leave (0, 8, 24 and 568 bytes): every one after the first is reached by
 * a hop, and only the padding is read outside them, not even the
 * container that one payload holds.
 */
static void test_hop_back_to_back(void **state)
{
	static const size_t pad[] = { 0, 8, 24, 568 };
	unsigned char *b = calloc(1, 8192), *copy;
	size_t len = 0, i;
	uint64_t at[5];
	struct elfscan_file f;
	char want[256];

	(void)state;
	assert_non_null(b);
	for (i = 0; i < 5; i++) {
		if (i)
			len += pad[i - 1];
		at[i] = len;
		len += put_container(b + len, 70 + (unsigned)i, 2, 0x100);
	}
	/* A valid container inside a payload is payload. */
	put_container(b + at[1] + 16 + 0x40, 99, 1, 0x40);
	copy = copy_exact(b, len);
	section_scan(&f, copy, len, false);
	snprintf(want, sizeof(want),
		 "%#llx:70:2:magic-scan %#llx:71:2:magic-scan %#llx:72:2:magic-scan "
		 "%#llx:73:2:magic-scan %#llx:74:2:magic-scan",
		 (unsigned long long)at[0], (unsigned long long)at[1],
		 (unsigned long long)at[2], (unsigned long long)at[3],
		 (unsigned long long)at[4]);
	expect_containers(&f, want, "back to back");
	assert_int_equal(f.nproblems, 0);
	assert_int_equal(f.magic_hops, 4);
	assert_int_equal(f.magic_scanned, 8 + 24 + 568);
	elfscan_file_release(&f);
	free(copy);
	free(b);
}

/*
 * Where the hop finds no header (a blob with a magic that is no
 * container), the scan searches from there to the next header and hops
 * again: it reads the blob, and only the blob.
 */
static void test_hop_gap(void **state)
{
	unsigned char *b = calloc(1, 8192), *copy;
	size_t len, c1, c2;
	struct elfscan_file f;
	char want[256];

	(void)state;
	assert_non_null(b);
	len = put_container(b, 80, 1, 0x80);
	memset(b + len, 0x5a, 1000);
	put32(b + len + 496, FATBIN_MAGIC); /* no version, no size: rejected */
	len += 1000;
	c1 = len;
	len += put_container(b + len, 86, 3, 0x40);
	c2 = len;
	len += put_container(b + len, 90, 1, 0x48);
	copy = copy_exact(b, len);
	section_scan(&f, copy, len, false);
	snprintf(want, sizeof(want),
		 "0:80:1:magic-scan %#zx:86:3:magic-scan %#zx:90:1:magic-scan", c1, c2);
	expect_containers(&f, want, "a gap");
	assert_int_equal(f.magic_hops, 1);
	assert_int_equal(f.magic_scanned, 1000);
	elfscan_file_release(&f);
	free(copy);
	free(b);
}

/*
 * A size field that claims the next container (too large), or part of
 * its own last entry only (too small), or bytes past the section's end,
 * never hides a real container. The search rejects the damaged container
 * and finds the next; the walk of .nv_fatbin lists what the damaged one's
 * chain holds, then searches the bytes it claims without accounting for.
 */
static void test_hop_corrupt_size(void **state)
{
	static const struct {
		const char *what;
		bool walk;
		int64_t delta;  /* added to the first container's size */
		const char *want;
	} cases[] = {
		{ "search, size covers the next", false, 0x1c0,
		  "0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
		{ "search, size cut in the last entry", false, -0x40,
		  "0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
		{ "search, size past the end", false, 0x100000,
		  "0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
		{ "search, size wraps", false, (int64_t)0xfffffffffffff000ll,
		  "0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
		{ "walk, size covers the next", true, 0x1c0,
		  "0:80:2:section 0x1c0:86:2:magic-scan 0x380:90:1:section" },
		{ "walk, size past the end", true, 0x100000,
		  "0:80:2:section 0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
		{ "walk, size cut in the last entry", true, -0x40,
		  "0:80:1:section 0x1c0:86:2:magic-scan 0x380:90:1:magic-scan" },
	};
	unsigned char b[0x800];
	size_t len, i;

	(void)state;
	memset(b, 0, sizeof(b));
	len = put_container(b, 80, 2, 0x98);
	assert_int_equal(len, 0x1c0);
	len += put_container(b + len, 86, 2, 0x98);
	len += put_container(b + len, 90, 1, 0x40);
	assert_int_equal(len, 0x380 + 0x90);
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		unsigned char *copy = copy_exact(b, len);
		struct elfscan_file f;

		put64(copy + 8, get_le(copy + 8, 8) + (uint64_t)cases[i].delta);
		section_scan(&f, copy, len, cases[i].walk);
		expect_containers(&f, cases[i].want, cases[i].what);
		if (cases[i].walk)
			assert_true(f.nproblems > 0);
		elfscan_file_release(&f);
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_parse_fixture),
		cmocka_unit_test(test_entry_parse_strings),
		cmocka_unit_test(test_entry_parse_bad),
		cmocka_unit_test(test_entry_parse_notes),
		cmocka_unit_test(test_container_validate),
		cmocka_unit_test(test_module_describe),
		cmocka_unit_test(test_corrupt_one_field),
		cmocka_unit_test(test_corrupt_magic),
		cmocka_unit_test(test_truncate_fatbin),
		cmocka_unit_test(test_truncate_so),
		cmocka_unit_test(test_padding_and_scraps),
		cmocka_unit_test(test_junk_between_containers),
		cmocka_unit_test(test_junk_in_nv_fatbin),
		cmocka_unit_test(test_chain_progress),
		cmocka_unit_test(test_lz4_payload_past_end),
		cmocka_unit_test(test_hop_back_to_back),
		cmocka_unit_test(test_hop_gap),
		cmocka_unit_test(test_hop_corrupt_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

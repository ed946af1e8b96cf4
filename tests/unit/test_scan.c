/*
 * Whole-file scans (elfscan/scan.c, elf.c): every committed fixture listed
 * as nvcc made it, registration through .nvFatBinSegment (also when the
 * pointers live only in relocations), the path wrapper's errors, damaged
 * ELF structure, and the problem texts. --verify is in test_verify.c.
 */
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

struct want_image {
	unsigned kind;
	const char *arch;
	enum elfscan_codec codec;
};

static const struct fixture {
	const char *name;
	enum elfscan_file_type type;
	size_t nimages;
	struct want_image images[4];
} fixtures[] = {
	{ "sm80-ptx80.so", ELFSCAN_FILE_ELF, 2,
	  { { 1, "compute_80", ELFSCAN_CODEC_ZSTD }, { 2, "sm_80", ELFSCAN_CODEC_NONE } } },
	{ "archaf.so", ELFSCAN_FILE_ELF, 4,
	  { { 2, "sm_90a", ELFSCAN_CODEC_NONE }, { 1, "compute_100f", ELFSCAN_CODEC_ZSTD },
	    { 2, "sm_100f", ELFSCAN_CODEC_NONE }, { 2, "sm_120a", ELFSCAN_CODEC_NONE } } },
	{ "lld.so", ELFSCAN_FILE_ELF, 2,
	  { { 2, "sm_80", ELFSCAN_CODEC_NONE }, { 2, "sm_90", ELFSCAN_CODEC_NONE } } },
	{ "lz4.so", ELFSCAN_FILE_ELF, 2,
	  { { 2, "sm_75", ELFSCAN_CODEC_LZ4 }, { 1, "compute_86", ELFSCAN_CODEC_LZ4 } } },
	{ "zstd.so", ELFSCAN_FILE_ELF, 2,
	  { { 2, "sm_86", ELFSCAN_CODEC_ZSTD }, { 2, "sm_89", ELFSCAN_CODEC_ZSTD } } },
	{ "vecadd.o", ELFSCAN_FILE_ELF, 2,
	  { { 2, "sm_80", ELFSCAN_CODEC_NONE }, { 1, "compute_90", ELFSCAN_CODEC_ZSTD } } },
	{ "vecadd.fatbin", ELFSCAN_FILE_FATBIN, 3,
	  { { 2, "sm_80", ELFSCAN_CODEC_NONE }, { 2, "sm_100f", ELFSCAN_CODEC_NONE },
	    { 1, "compute_90", ELFSCAN_CODEC_ZSTD } } },
	{ "vecadd-sm90a.cubin", ELFSCAN_FILE_CUBIN, 1, { { 2, "sm_90a", ELFSCAN_CODEC_NONE } } },
	{ "vecadd-sm89.ptx", ELFSCAN_FILE_PTX, 1, { { 1, "compute_89", ELFSCAN_CODEC_NONE } } },
	{ "nodevice.so", ELFSCAN_FILE_ELF, 0, { { 0, NULL, 0 } } },
};

static void check_listing(const struct fixture *x, const struct elfscan_file *f)
{
	size_t i;

	if (f->nproblems)
		print_problems(f);
	assert_int_equal(f->nproblems, 0);
	assert_int_equal(f->type, x->type);
	assert_int_equal(f->nimages, x->nimages);
	for (i = 0; i < x->nimages; i++) {
		const struct elfscan_image *img = &f->images[i];
		char arch[ELFSCAN_ARCH_NAME_MAX];

		elfscan_image_arch_name(img, arch, sizeof(arch));
		if (img->kind != x->images[i].kind ||
		    strcmp(arch, x->images[i].arch) != 0 ||
		    img->codec != x->images[i].codec)
			fail_msg("%s image %zu: %s %s %s", x->name, i,
				 elfscan_kind_name(img->kind), arch,
				 elfscan_codec_name(img->codec));
	}
	/* Containers in host ELF files are all registered by a wrapper. */
	for (i = 0; i < f->ncontainers && x->type == ELFSCAN_FILE_ELF; i++)
		assert_int_equal(f->containers[i].wrapper_version, 1);
}

static void test_fixtures_buffer(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fixtures); i++) {
		size_t len;
		unsigned char *b = read_fixture(fixtures[i].name, &len);
		struct scanned s;

		scanned_open(&s, b, len, NULL);
		assert_int_equal(s.rc, 0);
		check_listing(&fixtures[i], &s.f);
		scanned_close(&s);
		free(b);
	}
}

static void test_fixtures_path(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fixtures); i++) {
		char *path = fixture_path(fixtures[i].name);
		struct elfscan_file f;

		elfscan_file_init(&f);
		assert_int_equal(elfscan_scan_path(&f, path, NULL), 0);
		check_listing(&fixtures[i], &f);
		elfscan_file_release(&f);
		free(path);
	}
}

/* The section named name, as {offset, size}; fails when absent. */
static void section(const struct elfscan_file *f, const char *name,
		    uint64_t *off, uint64_t *size)
{
	size_t i;

	for (i = 0; i < f->nsections; i++) {
		if (strcmp(f->sections[i].name, name) == 0) {
			*off = f->sections[i].offset;
			*size = f->sections[i].size;
			return;
		}
	}
	fail_msg("no section %s", name);
}

/*
 * lld and relocatable objects leave the wrapper's data pointer 0 in the
 * file: the container is registered only if the relocations are read.
 */
static void test_registered_by_relocation(void **state)
{
	static const char *const names[] = { "lld.so", "vecadd.o" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(names); i++) {
		size_t len;
		unsigned char *b = read_fixture(names[i], &len);
		struct scanned s;
		uint64_t off = 0, size = 0;

		scanned_open(&s, b, len, NULL);
		assert_int_equal(s.rc, 0);
		section(&s.f, ".nvFatBinSegment", &off, &size);
		assert_int_equal(size, 24);
		assert_int_equal(get_le(b + off, 4), 0x466243b1);
		assert_int_equal(get_le(b + off + 8, 8), 0);
		assert_int_equal(s.f.nwrappers, 1);
		assert_int_equal(s.f.ncontainers, 1);
		assert_int_not_equal(s.f.containers[0].wrapper_version, 0);
		assert_null(find_problem(&s.f, ELFSCAN_P_WRAPPER_UNRESOLVED));
		scanned_close(&s);
		free(b);
	}
}

/*
 * A wrapper whose version field is not 1 or 2 still points at the
 * container: the container is referenced, whatever else is said about
 * the wrapper.
 */
static void test_wrapper_odd_version(void **state)
{
	static const uint32_t versions[] = { 0, 7 };
	size_t len, i;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;
	uint64_t off = 0, size = 0;

	(void)state;
	scanned_open(&s, b, len, NULL);
	section(&s.f, ".nvFatBinSegment", &off, &size);
	scanned_close(&s);
	for (i = 0; i < ARRAY_LEN(versions); i++) {
		size_t ncontainers, nwrappers;
		bool unreferenced;

		put32(b + off + 4, versions[i]);
		scanned_open(&s, b, len, NULL);
		ncontainers = s.f.ncontainers;
		nwrappers = s.f.nwrappers;
		unreferenced = find_problem(&s.f, ELFSCAN_P_CONTAINER_UNREFERENCED);
		if (unreferenced)
			print_problems(&s.f);
		scanned_close(&s);
		if (ncontainers != 1 || nwrappers != 1 || unreferenced) {
			free(b);
			fail_msg("wrapper version %u: %zu containers, %zu wrappers, "
				 "container %s", versions[i], ncontainers, nwrappers,
				 unreferenced ? "called unreferenced" : "referenced");
		}
	}
	free(b);
}

static void test_nodevice(void **state)
{
	char *path = fixture_path("nodevice.so");
	struct elfscan_file f;

	(void)state;
	elfscan_file_init(&f);
	assert_int_equal(elfscan_scan_path(&f, path, NULL), 0);
	assert_int_equal(f.type, ELFSCAN_FILE_ELF);
	assert_int_equal(f.nimages, 0);
	assert_int_equal(f.ncontainers, 0);
	assert_int_equal(f.nproblems, 0);
	assert_int_equal(f.nwrappers, 0);
	elfscan_file_release(&f);
	free(path);
}

static void test_path_errors(void **state)
{
	char *dir = fixture_path("");
	char *missing = fixture_path("no-such-file.so");
	char empty[] = "/tmp/ct-test-empty-XXXXXX";
	struct elfscan_file f;
	int fd;

	(void)state;
	elfscan_file_init(&f);
	assert_int_equal(elfscan_scan_path(&f, missing, NULL), -ENOENT);
	assert_int_equal(elfscan_scan_path(&f, dir, NULL), -EISDIR);
	fd = mkstemp(empty);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(elfscan_scan_path(&f, empty, NULL), -EINVAL);
	unlink(empty);
	assert_int_equal(elfscan_scan_path(&f, "/dev/null", NULL), -ENODEV);
	elfscan_file_release(&f);
	free(dir);
	free(missing);
}

static void test_not_a_file_we_read(void **state)
{
	static const char text[] = "just some text\n";
	struct scanned s;

	(void)state;
	scanned_open(&s, text, sizeof(text) - 1, NULL);
	assert_int_equal(s.rc, -EINVAL);
	assert_int_equal(s.f.type, ELFSCAN_FILE_UNKNOWN);
	scanned_close(&s);
	scanned_open(&s, text, 0, NULL);
	assert_int_equal(s.rc, -EINVAL);
	scanned_close(&s);
	/* ELF magic, too short for a header. */
	scanned_open(&s, "\177ELF\2\1\1", 7, NULL);
	assert_int_equal(s.rc, -EINVAL);
	assert_int_equal(s.f.type, ELFSCAN_FILE_UNKNOWN);
	scanned_close(&s);
}

/*
 * EM_CUDA ELF files the cubin reader refuses are no file the library
 * reads: -EINVAL, and (as elfscan.h promises) the type stays unknown.
 */
static void test_refused_cubin_type(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("vecadd-sm90a.cubin", &len);
	struct scanned s;

	int rc[2];
	enum elfscan_file_type type[2];

	(void)state;
	scanned_open(&s, b, 40, NULL); /* e_machine present, header cut */
	rc[0] = s.rc;
	type[0] = s.f.type;
	scanned_close(&s);
	b[4] = 1; /* ELFCLASS32: not a cubin this library reads */
	scanned_open(&s, b, len, NULL);
	rc[1] = s.rc;
	type[1] = s.f.type;
	scanned_close(&s);
	free(b);
	assert_int_equal(rc[0], -EINVAL);
	assert_int_equal(type[0], ELFSCAN_FILE_UNKNOWN);
	assert_int_equal(rc[1], -EINVAL);
	assert_int_equal(type[1], ELFSCAN_FILE_UNKNOWN);
}

/* Scan a damaged copy: a problem saying why, and no crash. */
static void expect_broken_elf(const unsigned char *b, size_t len)
{
	struct scanned s;

	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.f.type, ELFSCAN_FILE_ELF);
	if (!find_problem(&s.f, ELFSCAN_P_ELF_ERROR) &&
	    !find_problem(&s.f, ELFSCAN_P_FILE_TRUNCATED) &&
	    !find_problem(&s.f, ELFSCAN_P_SECTION_OUTSIDE_FILE)) {
		print_problems(&s.f);
		fail_msg("no elf-error, file-truncated or section-outside-file");
	}
	assert_int_equal(elfscan_verify(&s.f), 0);
	scanned_close(&s);
}

static void test_damaged_elf(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	uint64_t shoff = get_le(b + 0x28, 8);

	(void)state;
	expect_broken_elf(b, 64);
	/* The section header table past the end. */
	put64(b + 0x28, len + 0x1000);
	expect_broken_elf(b, len);
	/* The table itself cut off by a truncated file. */
	put64(b + 0x28, shoff);
	expect_broken_elf(b, (size_t)shoff + 100);
	free(b);
}

/*
 * The section header table so far past the end that offset + size wraps
 * around 2^64: as damaged as the table just past the end above, and must
 * be reported as such, not as a file that merely lacks section headers.
 */
static void test_section_table_wraps(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);

	(void)state;
	put64(b + 0x28, 0xfffffffffffffff0ull);
	expect_broken_elf(b, len);
	free(b);
}

/*
 * Without section headers (sstrip) the loadable segments are scanned and
 * the fatbin is still found. With UPX's pack header ("UPX!") in the last
 * bytes as well, the segments hold UPX's compressed form: nothing can be
 * listed, and the file is reported unreadable (packed-upx, fatal), not as
 * one without device code.
 */
static void test_packed_upx(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len), *packed;
	static const unsigned char trailer[36] = { 'U', 'P', 'X', '!', 14, 0x17 };
	struct scanned s;

	(void)state;
	put64(b + 0x28, 0); /* e_shoff */
	put16(b + 0x3c, 0); /* e_shnum */
	put16(b + 0x3e, 0); /* e_shstrndx */
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_has_problem(&s.f, ELFSCAN_P_NO_SECTION_HEADERS);
	assert_false(elfscan_problem_is_fatal(s.f.problems[0].code));
	assert_int_equal(s.f.nimages, 2);
	scanned_close(&s);

	packed = malloc(len + sizeof(trailer));
	assert_non_null(packed);
	memcpy(packed, b, len);
	memcpy(packed + len, trailer, sizeof(trailer));
	scanned_open(&s, packed, len + sizeof(trailer), NULL);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.f.nproblems, 1);
	assert_int_equal(s.f.problems[0].code, ELFSCAN_P_PACKED_UPX);
	assert_true(elfscan_problem_is_fatal(s.f.problems[0].code));
	assert_int_equal(s.f.nimages, 0);
	scanned_close(&s);

	/* The same bytes at the end of a file with its section headers are data. */
	free(b);
	b = read_fixture("sm80-ptx80.so", &len);
	memcpy(packed, b, len);
	scanned_open(&s, packed, len + sizeof(trailer), NULL);
	assert_int_equal(s.rc, 0);
	assert_null(find_problem(&s.f, ELFSCAN_P_PACKED_UPX));
	assert_int_equal(s.f.nimages, 2);
	scanned_close(&s);
	free(packed);
	free(b);
}

/* .nv_fatbin's header says its bytes start 32 bytes before the end. */
static void test_section_outside_file(void **state)
{
	size_t len, i;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	uint64_t shoff = get_le(b + 0x28, 8);
	unsigned shnum = (unsigned)get_le(b + 0x3c, 2);
	struct scanned s;
	const struct elfscan_problem *p;

	(void)state;
	for (i = 0; i < shnum; i++) {
		unsigned char *sh = b + shoff + i * 64;

		if (get_le(sh + 0x18, 8) == 0x2038 && get_le(sh + 0x20, 8) == 0x1548)
			put64(sh + 0x18, len - 32);
	}
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_has_problem(&s.f, ELFSCAN_P_SECTION_OUTSIDE_FILE);
	p = find_problem(&s.f, ELFSCAN_P_SECTION_OUTSIDE_FILE);
	assert_int_equal(p->offset, len - 32);
	assert_string_equal(s.f.sections[p->section].name, ".nv_fatbin");
	assert_int_equal(s.f.nimages, 0);
	scanned_close(&s);
	free(b);
}

/*
 * A fatbin in a section of another name is found by the magic scan only:
 * give .nv_fatbin the name of .rodata (in the same string table).
 */
static void test_magic_scan_option(void **state)
{
	size_t len, i;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	uint64_t shoff = get_le(b + 0x28, 8);
	unsigned shnum = (unsigned)get_le(b + 0x3c, 2);
	unsigned stridx = (unsigned)get_le(b + 0x3e, 2);
	uint64_t strtab = get_le(b + shoff + stridx * 64 + 0x18, 8);
	unsigned char *fatbin_sh = NULL;
	uint64_t rodata_name = 0;
	struct elfscan_options opt = { .no_magic_scan = true };
	struct scanned s;

	(void)state;
	for (i = 0; i < shnum; i++) {
		unsigned char *sh = b + shoff + i * 64;
		const char *name = (const char *)b + strtab + get_le(sh, 4);

		if (strcmp(name, ".nv_fatbin") == 0)
			fatbin_sh = sh;
		else if (strcmp(name, ".rodata") == 0)
			rodata_name = get_le(sh, 4);
	}
	assert_non_null(fatbin_sh);
	assert_int_not_equal(rodata_name, 0);
	put32(fatbin_sh, rodata_name);

	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.ncontainers, 1);
	assert_int_equal(s.f.containers[0].found, ELFSCAN_FOUND_MAGIC);
	assert_int_equal(s.f.containers[0].wrapper_version, 1);
	assert_int_equal(s.f.nimages, 2);
	scanned_close(&s);
	scanned_open(&s, b, len, &opt);
	assert_int_equal(s.f.ncontainers, 0);
	assert_has_problem(&s.f, ELFSCAN_P_WRAPPER_DANGLING);
	scanned_close(&s);
	free(b);
}

/* The section header of sm80-ptx80.so at index i. */
static unsigned char *shdr(unsigned char *b, unsigned i)
{
	return b + get_le(b + 0x28, 8) + (uint64_t)i * 64;
}

/*
 * A wrapper's pointer is an address; the first section in header order
 * that holds it says which file bytes it means. Sections that share
 * addresses (no real file has them) are looked through in that order.
 * In sm80-ptx80.so .rodata is section 14, .nv_fatbin 16 (address 0x2038,
 * the wrapper's pointer), .eh_frame_hdr 17.
 */
static void test_wrapper_overlapping_sections(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct elfscan_options opt = { .no_magic_scan = true };
	struct scanned s;

	(void)state;
	assert_int_equal(get_le(shdr(b, 16) + 0x10, 8), 0x2038);
	/* After .nv_fatbin: the wrapper still means .nv_fatbin's container. */
	put64(shdr(b, 17) + 0x10, 0x2030);
	put64(shdr(b, 17) + 0x20, 0x100);
	scanned_open(&s, b, len, &opt);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.f.nproblems, 0);
	assert_int_equal(s.f.ncontainers, 1);
	assert_true(s.f.containers[0].registered);
	scanned_close(&s);
	/* Before it: the address means .rodata's bytes, where no container is. */
	put64(shdr(b, 14) + 0x10, 0x2030);
	put64(shdr(b, 14) + 0x20, 0x100);
	scanned_open(&s, b, len, &opt);
	assert_int_equal(s.rc, 0);
	assert_has_problem(&s.f, ELFSCAN_P_WRAPPER_DANGLING);
	assert_int_equal(find_problem(&s.f, ELFSCAN_P_WRAPPER_DANGLING)->value, 0x2038);
	assert_has_problem(&s.f, ELFSCAN_P_CONTAINER_UNREFERENCED);
	assert_false(s.f.containers[0].registered);
	scanned_close(&s);
	free(b);
}

static void test_problem_texts(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;
	unsigned code, i;

	(void)state;
	scanned_open(&s, b, len, NULL);
	for (code = 0; code < ELFSCAN_P_COUNT; code++) {
		struct elfscan_problem p = { code, 0x2038, 0xffffffffffffffffull, -1, -1, 0 };
		static const size_t sizes[] = { 1, 2, 8, 17 };
		char buf[300], id[64];

		/* Ids are distinct, short and never the fallback. */
		snprintf(id, sizeof(id), "%s", elfscan_problem_id(code));
		assert_string_not_equal(id, "unknown");
		for (i = 0; i < code; i++)
			assert_string_not_equal(id, elfscan_problem_id(i));
		/* Every placeholder is filled in, with and without a file. */
		elfscan_problem_describe(&s.f, &p, buf, sizeof(buf));
		assert_null(strchr(buf, '{'));
		elfscan_problem_describe(NULL, &p, buf, sizeof(buf));
		assert_null(strchr(buf, '{'));
		/* Small buffers: truncated, terminated, not a byte more. */
		for (i = 0; i < ARRAY_LEN(sizes); i++) {
			memset(buf, 'X', sizeof(buf));
			elfscan_problem_describe(&s.f, &p, buf, sizes[i]);
			assert_true(strlen(buf) < sizes[i]);
			assert_int_equal(buf[sizes[i]], 'X');
		}
		memset(buf, 'X', sizeof(buf));
		elfscan_problem_describe(&s.f, &p, buf, 0);
		assert_int_equal(buf[0], 'X');
	}
	/* The section name and the numbers reach the text. */
	for (i = 0; strcmp(s.f.sections[i].name, ".nv_fatbin") != 0; i++)
		assert_true(i + 1 < s.f.nsections);
	{
		struct elfscan_problem p = { ELFSCAN_P_JUNK_IN_SECTION, 0x2038, 0, -1, -1, i };
		char buf[200];

		assert_string_equal(elfscan_problem_describe(&s.f, &p, buf, sizeof(buf)),
				    "bytes at 0x2038 in '.nv_fatbin' are not a fatbin container");
	}
	assert_false(elfscan_problem_is_error(ELFSCAN_P_UNKNOWN_FLAGS));
	assert_true(elfscan_problem_is_error(ELFSCAN_P_JUNK_IN_SECTION));
	assert_false(elfscan_problem_is_error(ELFSCAN_P_COUNT));
	/* Fatal problems are errors too; a damaged container is not fatal. */
	assert_true(elfscan_problem_is_fatal(ELFSCAN_P_ELF_ERROR));
	assert_true(elfscan_problem_is_error(ELFSCAN_P_ELF_ERROR));
	assert_false(elfscan_problem_is_fatal(ELFSCAN_P_JUNK_IN_SECTION));
	assert_false(elfscan_problem_is_fatal(ELFSCAN_P_UNKNOWN_FLAGS));
	assert_false(elfscan_problem_is_fatal(ELFSCAN_P_COUNT));
	assert_string_equal(elfscan_problem_id(ELFSCAN_P_COUNT), "unknown");
	scanned_close(&s);
	free(b);
}

static void same_results(const char *what, const struct elfscan_file *a,
			 const struct elfscan_file *b)
{
	size_t i;

	if (a->ncontainers != b->ncontainers || a->nimages != b->nimages ||
	    a->nproblems != b->nproblems || a->nsections != b->nsections ||
	    a->magic_scanned != b->magic_scanned || a->magic_hops != b->magic_hops)
		fail_msg("%s: counts differ", what);
	for (i = 0; i < a->nsections; i++)
		assert_int_equal(a->sections[i].ncontainers, b->sections[i].ncontainers);
	for (i = 0; i < a->ncontainers; i++) {
		const struct elfscan_container *x = &a->containers[i], *y = &b->containers[i];

		if (x->offset != y->offset || x->size != y->size || x->section != y->section ||
		    x->found != y->found || x->registered != y->registered ||
		    x->wrapper_version != y->wrapper_version ||
		    x->first_image != y->first_image || x->nimages != y->nimages)
			fail_msg("%s: container %zu differs", what, i);
	}
	for (i = 0; i < a->nimages; i++) {
		const struct elfscan_image *x = &a->images[i], *y = &b->images[i];

		if (x->kind != y->kind || x->arch != y->arch || x->variant != y->variant ||
		    x->codec != y->codec || x->flags != y->flags || x->offset != y->offset ||
		    x->header_size != y->header_size || x->stored_size != y->stored_size ||
		    x->size != y->size || x->container != y->container ||
		    x->ident_len != y->ident_len || x->options_len != y->options_len ||
		    (x->ident && memcmp(x->ident, y->ident, x->ident_len)) ||
		    (x->options && memcmp(x->options, y->options, x->options_len)))
			fail_msg("%s: image %zu differs", what, i);
	}
	for (i = 0; i < a->nproblems; i++) {
		const struct elfscan_problem *x = &a->problems[i], *y = &b->problems[i];

		if (x->code != y->code || x->offset != y->offset || x->value != y->value ||
		    x->image != y->image || x->container != y->container ||
		    x->section != y->section)
			fail_msg("%s: problem %zu differs", what, i);
	}
}

/*
 * Scan buf with no thread and with three, each section a job of its own;
 * adds to *magic the containers the magic scan found, to *problems the
 * problems.
 */
static void scan_both_ways(const char *what, const unsigned char *buf, size_t len,
			   size_t *magic, size_t *problems)
{
	struct elfscan_options one = { 0 }, three = { .threads = 3 };
	struct elfscan_file a, b;
	uint64_t keep = es_thread_scan_min;
	size_t i;

	es_thread_scan_min = 0;
	elfscan_file_init(&a);
	elfscan_file_init(&b);
	assert_int_equal(elfscan_scan_buffer(&a, buf, len, &one), 0);
	assert_int_equal(elfscan_scan_buffer(&b, buf, len, &three), 0);
	same_results(what, &a, &b);
	for (i = 0; i < a.ncontainers; i++)
		*magic += a.containers[i].found == ELFSCAN_FOUND_MAGIC;
	*problems += a.nproblems;
	elfscan_file_release(&a);
	elfscan_file_release(&b);
	es_thread_scan_min = keep;
}

/*
 * Sections scanned by threads side by side give what one thread gives, in
 * the same order: every fixture, and each with its first container's
 * version broken (junk in .nv_fatbin: a problem, then a resynchronising
 * magic scan) and a small container planted in what were its payloads.
 */
static void test_threads_same_results(void **state)
{
	size_t i, magic = 0, problems = 0;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fixtures); i++) {
		size_t len, k;
		unsigned char *b = read_fixture(fixtures[i].name, &len);

		if (fixtures[i].type != ELFSCAN_FILE_ELF) {
			free(b);
			continue;
		}
		scan_both_ways(fixtures[i].name, b, len, &magic, &problems);
		for (k = 0; k + 16 <= len; k += 8)
			if (get_le(b + k, 4) == 0xBA55ED50u)
				break;
		if (k + 0x100 + 80 <= len) {
			/* A minimal container inside the first one's payloads. */
			container_init(b + k + 0x100, 64);
			entry_init(b + k + 0x110, 64, 0);
			put16(b + k + 4, 7);
			scan_both_ways(fixtures[i].name, b, len, &magic, &problems);
		}
		free(b);
	}
	/* The damage was there to be found. */
	assert_true(magic > 0);
	assert_true(problems > 0);
}

static void test_arch_names(void **state)
{
	struct elfscan_image img;
	char buf[ELFSCAN_ARCH_NAME_MAX], small[5];

	(void)state;
	memset(&img, 0, sizeof(img));
	img.kind = ELFSCAN_KIND_LTOIR;
	img.arch = 80;
	assert_string_equal(elfscan_image_arch_name(&img, buf, sizeof(buf)), "lto_80");
	img.kind = 7;
	img.variant = ELFSCAN_VARIANT_F;
	assert_string_equal(elfscan_image_arch_name(&img, buf, sizeof(buf)), "kind7_80f");
	/* The widest names a file can hold (u16 kind, u32 arch) still fit. */
	img.kind = 0xffff;
	img.arch = 0xffffffffu;
	img.variant = ELFSCAN_VARIANT_A;
	assert_string_equal(elfscan_image_arch_name(&img, buf, sizeof(buf)),
			    "kind65535_4294967295a");
	img.kind = ELFSCAN_KIND_PTX;
	assert_string_equal(elfscan_image_arch_name(&img, buf, sizeof(buf)),
			    "compute_4294967295a");
	img.arch = 90;
	assert_string_equal(elfscan_image_arch_name(&img, small, sizeof(small)), "comp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_buffer),
		cmocka_unit_test(test_fixtures_path),
		cmocka_unit_test(test_registered_by_relocation),
		cmocka_unit_test(test_wrapper_odd_version),
		cmocka_unit_test(test_nodevice),
		cmocka_unit_test(test_path_errors),
		cmocka_unit_test(test_not_a_file_we_read),
		cmocka_unit_test(test_refused_cubin_type),
		cmocka_unit_test(test_damaged_elf),
		cmocka_unit_test(test_section_table_wraps),
		cmocka_unit_test(test_packed_upx),
		cmocka_unit_test(test_section_outside_file),
		cmocka_unit_test(test_magic_scan_option),
		cmocka_unit_test(test_wrapper_overlapping_sections),
		cmocka_unit_test(test_problem_texts),
		cmocka_unit_test(test_arch_names),
		cmocka_unit_test(test_threads_same_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

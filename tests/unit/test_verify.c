/*
 * --verify (elfscan/verify.c): every payload of the good fixtures matches
 * its header, and one change to a header or a compressed stream is
 * reported against the right image.
 */
#include <sys/resource.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

static const char *const fixtures[] = {
	"sm80-ptx80.so", "archaf.so", "lld.so", "lz4.so", "zstd.so", "vecadd.o",
	"vecadd.fatbin", "vecadd-sm90a.cubin", "vecadd-sm89.ptx", "nodevice.so",
};

static void test_verify_good(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fixtures); i++) {
		size_t len;
		unsigned char *b = read_fixture(fixtures[i], &len);
		struct scanned s;

		scanned_open(&s, b, len, NULL);
		assert_int_equal(elfscan_verify(&s.f), 0);
		if (s.f.nproblems)
			print_problems(&s.f);
		assert_int_equal(s.f.nproblems, 0);
		for (j = 0; j < s.f.nimages; j++) {
			enum elfscan_check c = s.f.images[j].check;

			if (c != ELFSCAN_CHECK_OK && c != ELFSCAN_CHECK_OPAQUE)
				fail_msg("%s image %zu: check %d", fixtures[i],
					 j, (int)c);
		}
		scanned_close(&s);
		free(b);
	}
}

/*
 * One change to a good fixture, and what --verify must say about it. The
 * payloads carry no checksum, so a flipped literal byte can decompress to
 * text of the right size; the cases flip bytes that the decoder must
 * notice (zstd frame and block headers, LZ4 tokens).
 */
static const struct verify_case {
	const char *what, *fixture;
	size_t image;
	bool in_payload; /* off counts from the payload, else the entry */
	unsigned off, width;
	uint64_t value; /* XORed in */
	enum elfscan_problem_code problem; /* COUNT: any payload problem */
	enum elfscan_check check;          /* NOT_RUN: not OK, any other */
} verify_cases[] = {
	{ "zstd frame magic", "sm80-ptx80.so", 0, true, 0, 1, 0xff, ELFSCAN_P_PAYLOAD_DECOMPRESS, ELFSCAN_CHECK_FAILED },
	{ "zstd block header", "sm80-ptx80.so", 0, true, 7, 1, 0xff, ELFSCAN_P_PAYLOAD_DECOMPRESS, ELFSCAN_CHECK_FAILED },
	{ "zstd sass block header", "zstd.so", 1, true, 7, 1, 0xff, ELFSCAN_P_PAYLOAD_DECOMPRESS, ELFSCAN_CHECK_FAILED },
	{ "lz4 first token", "lz4.so", 0, true, 0, 1, 0xff, ELFSCAN_P_COUNT, ELFSCAN_CHECK_NOT_RUN },
	{ "lz4 ptx first bytes", "lz4.so", 1, true, 0, 4, 0xffffffff, ELFSCAN_P_COUNT, ELFSCAN_CHECK_NOT_RUN },
	{ "unpacked size larger", "sm80-ptx80.so", 0, false, 0x38, 8, 0x1000, ELFSCAN_P_PAYLOAD_SIZE, ELFSCAN_CHECK_MISMATCH },
	{ "unpacked size smaller", "zstd.so", 0, false, 0x38, 8, 0x200, ELFSCAN_P_PAYLOAD_DECOMPRESS, ELFSCAN_CHECK_FAILED },
	{ "lz4 unpacked size larger", "lz4.so", 0, false, 0x38, 8, 0x1000, ELFSCAN_P_COUNT, ELFSCAN_CHECK_NOT_RUN },
	{ "cubin magic", "sm80-ptx80.so", 1, true, 0, 1, 0xff, ELFSCAN_P_PAYLOAD_NOT_CUBIN, ELFSCAN_CHECK_FAILED },
	{ "sass header arch", "sm80-ptx80.so", 1, false, 0x1c, 4, 80 ^ 86, ELFSCAN_P_CUBIN_ARCH_MISMATCH, ELFSCAN_CHECK_MISMATCH },
	{ "sass header ABI", "sm80-ptx80.so", 1, false, 0x18, 2, 8 ^ 7, ELFSCAN_P_CUBIN_ABI_MISMATCH, ELFSCAN_CHECK_MISMATCH },
	{ "sass 'a' flag dropped", "archaf.so", 0, false, 0x28, 8, ELFSCAN_FLAG_ARCH_SPECIFIC, ELFSCAN_P_CUBIN_VARIANT_MISMATCH, ELFSCAN_CHECK_MISMATCH },
	{ "ptx header ISA", "sm80-ptx80.so", 0, false, 0x1a, 2, 9 ^ 8, ELFSCAN_P_PTX_VERSION_MISMATCH, ELFSCAN_CHECK_MISMATCH },
	{ "ptx header arch", "sm80-ptx80.so", 0, false, 0x1c, 4, 80 ^ 86, ELFSCAN_P_PTX_TARGET_MISMATCH, ELFSCAN_CHECK_MISMATCH },
	{ "ptx header 'f' flag", "archaf.so", 1, false, 0x28, 8, ELFSCAN_FLAG_FAMILY_SPECIFIC, ELFSCAN_P_PTX_TARGET_MISMATCH, ELFSCAN_CHECK_MISMATCH },
};

static bool payload_problem(enum elfscan_problem_code c)
{
	return c >= ELFSCAN_P_PAYLOAD_DECOMPRESS && c <= ELFSCAN_P_PTX_TARGET_MISMATCH;
}

static void test_verify_corrupted(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_LEN(verify_cases); i++) {
		const struct verify_case *c = &verify_cases[i];
		size_t len;
		unsigned char *b = read_fixture(c->fixture, &len);
		struct scanned s;
		const struct elfscan_image *img;
		uint64_t at;
		bool found = false;

		/* Find the entry in a clean scan, then change the copy. */
		scanned_open(&s, b, len, NULL);
		assert_true(c->image < s.f.nimages);
		img = &s.f.images[c->image];
		at = img->offset + c->off + (c->in_payload ? img->header_size : 0);
		scanned_close(&s);
		put_le(b + at, c->width, get_le(b + at, c->width) ^ c->value);

		scanned_open(&s, b, len, NULL);
		assert_int_equal(s.rc, 0);
		assert_int_equal(elfscan_verify(&s.f), 0);
		img = &s.f.images[c->image];
		for (j = 0; j < s.f.nproblems; j++) {
			const struct elfscan_problem *p = &s.f.problems[j];

			if (p->image == (long)c->image &&
			    (c->problem == ELFSCAN_P_COUNT ? payload_problem(p->code)
							   : p->code == c->problem))
				found = true;
		}
		if (!found || (c->check == ELFSCAN_CHECK_NOT_RUN
				       ? img->check == ELFSCAN_CHECK_OK
				       : img->check != c->check)) {
			print_problems(&s.f);
			fail_msg("%s: check %d", c->what, (int)img->check);
		}
		scanned_close(&s);
		free(b);
	}
}

/*
 * The cubin's own ELF header: an ABI v7 cubin whose e_flags carry the
 * arch-specific bit (0x800) while its entry says plain, as five of
 * Debian's cuBLAS 12.4 cubins do. Made from the plain sm_80 cubin of
 * sm80-ptx80.so: the entry's and the cubin's ABI version set to 7 (one
 * cubin of the v7 era), then the one field under test, e_flags.
 */
static void test_eflags_arch_specific(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;
	uint64_t entry, cubin;
	char name[ELFSCAN_ARCH_NAME_MAX];

	(void)state;
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.images[1].kind, ELFSCAN_KIND_SASS);
	entry = s.f.images[1].offset;
	cubin = entry + s.f.images[1].header_size;
	scanned_close(&s);
	put_le(b + entry + 0x18, 2, 7); /* header version 1.7 */
	b[cubin + 8] = 7;               /* EI_ABIVERSION 7 */
	put_le(b + cubin + 0x30, 4, 0x550 | 80); /* v7 e_flags: 64-bit, unified, sm_80 */
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.f.images[1].variant, ELFSCAN_VARIANT_NONE);
	assert_false(s.f.images[1].variant_from_cubin);
	assert_int_equal(elfscan_verify(&s.f), 0);
	if (s.f.nproblems)
		print_problems(&s.f);
	assert_int_equal(s.f.nproblems, 0);
	scanned_close(&s);

	put_le(b + cubin + 0x30, 4, 0xd50 | 80); /* + EF_CUDA_ACCELERATORS */
	scanned_open(&s, b, len, NULL);
	/* Listed as the cubin says, as cuobjdump does: sm_80a. */
	assert_int_equal(s.f.images[1].variant, ELFSCAN_VARIANT_A);
	assert_true(s.f.images[1].variant_from_cubin);
	assert_string_equal(elfscan_image_arch_name(&s.f.images[1], name, sizeof(name)), "sm_80a");
	assert_int_equal(s.f.nproblems, 0);
	assert_int_equal(elfscan_verify(&s.f), 0);
	assert_has_problem(&s.f, ELFSCAN_P_CUBIN_EFLAGS_VARIANT);
	assert_int_equal(s.f.images[1].check, ELFSCAN_CHECK_MISMATCH);
	scanned_close(&s);
	free(b);
}

/* The first bytes of a payload, decoded no further: the same bytes as whole. */
static void test_payload_head(void **state)
{
	static const char *const files[] = { "lz4.so", "zstd.so", "sm80-ptx80.so" };
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_LEN(files); i++) {
		size_t len;
		unsigned char *b = read_fixture(files[i], &len);
		struct scanned s;

		scanned_open(&s, b, len, NULL);
		for (k = 0; k < s.f.nimages; k++) {
			unsigned char *owned, head[64];
			const unsigned char *view;
			size_t n;

			assert_int_equal(es_payload(&s.f, &s.f.images[k], &owned, &view, &n), 0);
			assert_int_equal(es_payload_head(&s.f, &s.f.images[k], head, sizeof(head)),
					 sizeof(head));
			assert_memory_equal(head, view, sizeof(head));
			free(owned);
		}
		scanned_close(&s);
		free(b);
	}
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/*
 * A compressed image whose header claims the most a payload may be
 * (2 GiB): --verify reports the size it decodes to, and allocates what
 * the stream can yield, not what the header claims (a 93-byte file made
 * it malloc 2 GiB, fuzz_scan's out-of-memory in .ci/run). Outside ASan
 * (whose shadow is private data), RLIMIT_DATA holds the test to 256 MiB
 * more than it has.
 */
static void test_payload_claims_too_much(void **state)
{
	static const char *const files[] = { "lz4.so", "zstd.so" };
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_LEN(files); i++) {
		size_t len;
		unsigned char *b = read_fixture(files[i], &len);
		struct scanned s;
		struct rlimit was, lim;
#ifndef UNDER_ASAN
		unsigned long data = 0;
		FILE *statm;
#endif
		bool found = false;
		uint64_t at;

		scanned_open(&s, b, len, NULL);
		assert_true(s.f.nimages > 0 && s.f.images[0].codec != ELFSCAN_CODEC_NONE);
		at = s.f.images[0].offset + 0x38;
		scanned_close(&s);
		put_le(b + at, 8, ES_PAYLOAD_MAX);

		scanned_open(&s, b, len, NULL);
		assert_int_equal(s.rc, 0);
		assert_int_equal(s.f.images[0].size, ES_PAYLOAD_MAX);
		assert_int_equal(getrlimit(RLIMIT_DATA, &was), 0);
		lim = was;
#ifndef UNDER_ASAN
		statm = fopen("/proc/self/statm", "r");
		assert_non_null(statm);
		assert_int_equal(fscanf(statm, "%*u %*u %*u %*u %*u %lu", &data), 1);
		fclose(statm);
		lim.rlim_cur = data * (unsigned long)sysconf(_SC_PAGESIZE) + (256ul << 20);
		if (was.rlim_cur != RLIM_INFINITY && was.rlim_cur < lim.rlim_cur)
			lim.rlim_cur = was.rlim_cur;
#endif
		assert_int_equal(setrlimit(RLIMIT_DATA, &lim), 0);
		assert_int_equal(elfscan_verify(&s.f), 0);
		assert_int_equal(setrlimit(RLIMIT_DATA, &was), 0);
		for (j = 0; j < s.f.nproblems; j++)
			if (s.f.problems[j].image == 0 &&
			    s.f.problems[j].code == ELFSCAN_P_PAYLOAD_SIZE)
				found = true;
		if (!found || s.f.images[0].check != ELFSCAN_CHECK_MISMATCH) {
			print_problems(&s.f);
			fail_msg("%s: check %d", files[i], (int)s.f.images[0].check);
		}
		scanned_close(&s);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_good),
		cmocka_unit_test(test_verify_corrupted),
		cmocka_unit_test(test_eflags_arch_specific),
		cmocka_unit_test(test_payload_head),
		cmocka_unit_test(test_payload_claims_too_much),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

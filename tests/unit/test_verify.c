/*
 * --verify (elfscan/verify.c): every payload of the good fixtures matches
 * its header, and one change to a header or a compressed stream is
 * reported against the right image.
 */
#include "helpers.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_good),
		cmocka_unit_test(test_verify_corrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

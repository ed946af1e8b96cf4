/*
 * Which image runs on which GPU (elfscan/arch.c): target parsing, the
 * compatibility rules of reference/fatbin.md 4.1 as a table, and the
 * driver's choice among several images.
 */
#include "helpers.h"
#include "arch.h"

static void test_target_parse(void **state)
{
	static const struct {
		const char *s;
		unsigned major, minor;
		enum elfscan_variant variant;
	} good[] = {
		{ "sm_90", 9, 0, ELFSCAN_VARIANT_NONE },
		{ "sm_90a", 9, 0, ELFSCAN_VARIANT_A },
		{ "sm_100f", 10, 0, ELFSCAN_VARIANT_F },
		{ "sm_121", 12, 1, ELFSCAN_VARIANT_NONE },
		{ "compute_90", 9, 0, ELFSCAN_VARIANT_NONE },
		{ "compute_120a", 12, 0, ELFSCAN_VARIANT_A },
		{ "9.0", 9, 0, ELFSCAN_VARIANT_NONE },
		{ "90", 9, 0, ELFSCAN_VARIANT_NONE },
		{ "86", 8, 6, ELFSCAN_VARIANT_NONE },
		{ "12.1", 12, 1, ELFSCAN_VARIANT_NONE },
		{ "10.0", 10, 0, ELFSCAN_VARIANT_NONE },
		{ "7.5", 7, 5, ELFSCAN_VARIANT_NONE },
	};
	static const char *const bad[] = {
		"", "sm_", "compute_", "9", "9.10", "abc", "sm_90x", "sm_90af",
		"9.", ".0", "0.0", "sm_-90", "sm_ 90", "90 ", "123456", "9.0.1",
		"SM_90", "native",
	};
	struct elfscan_target t;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(good); i++) {
		int rc = elfscan_target_parse(good[i].s, &t);

		if (rc != 0 || t.major != good[i].major ||
		    t.minor != good[i].minor || t.variant != good[i].variant)
			fail_msg("'%s': rc %d, %u.%u variant %d", good[i].s, rc,
				 t.major, t.minor, (int)t.variant);
	}
	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (elfscan_target_parse(bad[i], &t) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
}

static void test_target_name(void **state)
{
	static const char *const names[] = { "sm_90", "sm_90a", "sm_100f", "sm_121" };
	struct elfscan_target t;
	char buf[ELFSCAN_ARCH_NAME_MAX], small[4];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(names); i++) {
		assert_int_equal(elfscan_target_parse(names[i], &t), 0);
		assert_string_equal(elfscan_target_name(&t, buf, sizeof(buf)), names[i]);
	}
	assert_string_equal(elfscan_target_name(&t, small, sizeof(small)), "sm_");
}

/* variant is an int so that the short names below need no casts. */
static struct elfscan_image image(unsigned kind, unsigned arch, int variant)
{
	struct elfscan_image img;

	memset(&img, 0, sizeof(img));
	img.kind = kind;
	img.arch = arch;
	img.variant = (enum elfscan_variant)variant;
	return img;
}

enum { SASS = ELFSCAN_KIND_SASS, PTX = ELFSCAN_KIND_PTX, LTO = ELFSCAN_KIND_LTOIR };
enum { N = ELFSCAN_VARIANT_NONE, A = ELFSCAN_VARIANT_A, F = ELFSCAN_VARIANT_F };

static const struct run_case {
	unsigned kind, arch;
	int variant;
	const char *gpu;
	enum elfscan_run want;
} run_cases[] = {
	/* SASS sm_XY: same major, minor >= Y. */
	{ SASS, 80, N, "8.0", ELFSCAN_RUN_SASS },
	{ SASS, 80, N, "8.6", ELFSCAN_RUN_SASS },
	{ SASS, 80, N, "8.9", ELFSCAN_RUN_SASS },
	{ SASS, 80, N, "9.0", ELFSCAN_RUN_NO },
	{ SASS, 80, N, "7.5", ELFSCAN_RUN_NO },
	{ SASS, 86, N, "8.0", ELFSCAN_RUN_NO },
	{ SASS, 90, N, "10.0", ELFSCAN_RUN_NO },
	{ SASS, 120, N, "12.1", ELFSCAN_RUN_SASS },
	/* sm_XYa: exactly X.Y. */
	{ SASS, 90, A, "9.0", ELFSCAN_RUN_SASS },
	{ SASS, 90, A, "10.0", ELFSCAN_RUN_NO },
	{ SASS, 100, A, "10.0", ELFSCAN_RUN_SASS },
	{ SASS, 100, A, "10.3", ELFSCAN_RUN_NO },
	{ SASS, 120, A, "12.1", ELFSCAN_RUN_NO },
	/* sm_XYf: same major, minor >= Y. */
	{ SASS, 100, F, "10.0", ELFSCAN_RUN_SASS },
	{ SASS, 100, F, "10.3", ELFSCAN_RUN_SASS },
	{ SASS, 100, F, "12.0", ELFSCAN_RUN_NO },
	{ SASS, 103, F, "10.0", ELFSCAN_RUN_NO },
	{ SASS, 120, F, "12.1", ELFSCAN_RUN_SASS },
	{ SASS, 120, F, "10.0", ELFSCAN_RUN_NO },
	/* PTX compute_XY: any GPU from X.Y on, compiled by the driver. */
	{ PTX, 80, N, "8.0", ELFSCAN_RUN_JIT },
	{ PTX, 80, N, "9.0", ELFSCAN_RUN_JIT },
	{ PTX, 80, N, "12.0", ELFSCAN_RUN_JIT },
	{ PTX, 90, N, "8.6", ELFSCAN_RUN_NO },
	{ PTX, 86, N, "8.9", ELFSCAN_RUN_JIT },
	{ PTX, 89, N, "8.6", ELFSCAN_RUN_NO },
	{ PTX, 100, N, "12.1", ELFSCAN_RUN_JIT },
	/* compute_XYa / compute_XYf: as their SASS. */
	{ PTX, 90, A, "9.0", ELFSCAN_RUN_JIT },
	{ PTX, 90, A, "10.0", ELFSCAN_RUN_NO },
	{ PTX, 100, F, "10.3", ELFSCAN_RUN_JIT },
	{ PTX, 100, F, "12.0", ELFSCAN_RUN_NO },
	/* LTO-IR and unknown kinds never run by themselves. */
	{ LTO, 80, N, "8.0", ELFSCAN_RUN_NO },
	{ LTO, 80, N, "9.0", ELFSCAN_RUN_NO },
	{ 7, 80, N, "8.0", ELFSCAN_RUN_NO },
};

static void test_runs_on(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(run_cases); i++) {
		const struct run_case *c = &run_cases[i];
		struct elfscan_image img = image(c->kind, c->arch, c->variant);
		struct elfscan_target t;
		char name[ELFSCAN_ARCH_NAME_MAX];
		enum elfscan_run got;

		assert_int_equal(elfscan_target_parse(c->gpu, &t), 0);
		got = elfscan_image_runs_on(&img, &t);
		if (got != c->want)
			fail_msg("%s on %s: %d, want %d",
				 elfscan_image_arch_name(&img, name, sizeof(name)),
				 c->gpu, (int)got, (int)c->want);
	}
}

/* The target's own variant does not narrow what runs: sm_90a is a 9.0. */
static void test_target_variant_ignored(void **state)
{
	struct elfscan_image img = image(SASS, 90, N);
	struct elfscan_target t;

	(void)state;
	assert_int_equal(elfscan_target_parse("sm_90a", &t), 0);
	assert_int_equal(elfscan_image_runs_on(&img, &t), ELFSCAN_RUN_SASS);
}

static long pick(const struct elfscan_image *imgs, size_t n, const char *gpu)
{
	struct elfscan_target t;

	assert_int_equal(elfscan_target_parse(gpu, &t), 0);
	return elfscan_pick_image(imgs, n, &t);
}

static void test_pick_image(void **state)
{
	struct elfscan_image imgs[6];

	(void)state;
	/* SASS before PTX, even PTX for a higher arch. */
	imgs[0] = image(PTX, 86, N);
	imgs[1] = image(SASS, 80, N);
	assert_int_equal(pick(imgs, 2, "8.6"), 1);
	/* Only PTX fits a newer GPU. */
	assert_int_equal(pick(imgs, 2, "9.0"), 0);
	/* Nothing fits an older one. */
	assert_int_equal(pick(imgs, 2, "7.5"), -1);
	assert_int_equal(pick(imgs, 0, "8.6"), -1);

	/* Among SASS the highest arch that runs; among PTX too. */
	imgs[0] = image(SASS, 80, N);
	imgs[1] = image(SASS, 86, N);
	imgs[2] = image(SASS, 89, N);
	imgs[3] = image(PTX, 80, N);
	imgs[4] = image(PTX, 86, N);
	assert_int_equal(pick(imgs, 5, "8.6"), 1);
	assert_int_equal(pick(imgs, 5, "8.9"), 2);
	assert_int_equal(pick(imgs, 5, "12.0"), 4);

	/* 'a' before 'f' before plain at the same arch, in any order. */
	imgs[0] = image(SASS, 100, N);
	imgs[1] = image(SASS, 100, F);
	imgs[2] = image(SASS, 100, A);
	assert_int_equal(pick(imgs, 3, "10.0"), 2);
	assert_int_equal(pick(imgs, 2, "10.0"), 1);
	imgs[0] = image(SASS, 100, A);
	imgs[1] = image(SASS, 100, N);
	imgs[2] = image(SASS, 100, F);
	assert_int_equal(pick(imgs, 3, "10.0"), 0);
	/* On 10.3 the 'a' image does not run, 'f' does, plain too. */
	assert_int_equal(pick(imgs, 3, "10.3"), 2);

	/* LTO-IR is never picked. */
	imgs[0] = image(LTO, 90, N);
	assert_int_equal(pick(imgs, 1, "9.0"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_parse),
		cmocka_unit_test(test_target_name),
		cmocka_unit_test(test_runs_on),
		cmocka_unit_test(test_target_variant_ignored),
		cmocka_unit_test(test_pick_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

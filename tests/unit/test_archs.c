/*
 * The toolkits that build each arch (cli/common/archs.c): the last one for
 * every arch CUDA dropped, nothing for the archs CUDA 13 builds (the ones
 * its nvcc --list-gpu-arch names), and the one wording of the fixes.
 */
#include "helpers.h"
#include "archs.h"

static void test_last_toolkit(void **state)
{
	static const struct {
		unsigned major, minor;
		int last, dropped;
	} gone[] = {
		{ 2, 0, 8000, 9000 },   { 2, 1, 8000, 9000 },   { 3, 0, 10020, 11000 },
		{ 3, 2, 10020, 11000 }, { 3, 5, 11080, 12000 }, { 3, 7, 11080, 12000 },
		{ 5, 0, 12090, 13000 }, { 5, 2, 12090, 13000 }, { 5, 3, 12090, 13000 },
		{ 6, 0, 12090, 13000 }, { 6, 1, 12090, 13000 }, { 6, 2, 12090, 13000 },
		{ 7, 0, 12090, 13000 }, { 7, 2, 12090, 13000 }, { 10, 1, 12090, 13000 },
	};
	/* CUDA 13.0's nvcc --list-gpu-arch, and archs that never existed. */
	static const unsigned current[][2] = {
		{ 7, 5 }, { 8, 0 }, { 8, 6 }, { 8, 7 }, { 8, 8 }, { 8, 9 }, { 9, 0 },
		{ 10, 0 }, { 11, 0 }, { 10, 3 }, { 12, 0 }, { 12, 1 }, { 4, 0 }, { 0, 0 },
		{ 7, 1 }, { 99, 9 }, { 2, 10 },
	};
	size_t i;
	int dropped;

	(void)state;
	for (i = 0; i < ARRAY_LEN(gone); i++) {
		dropped = -1;
		if (ct_arch_last_toolkit(gone[i].major, gone[i].minor, &dropped) != gone[i].last ||
		    dropped != gone[i].dropped)
			fail_msg("%u.%u: last %d, dropped %d", gone[i].major, gone[i].minor,
				 ct_arch_last_toolkit(gone[i].major, gone[i].minor, NULL), dropped);
	}
	for (i = 0; i < ARRAY_LEN(current); i++) {
		dropped = -1;
		if (ct_arch_last_toolkit(current[i][0], current[i][1], &dropped) != 0 || dropped != 0)
			fail_msg("%u.%u: CUDA 13 builds it, not dropped (%d)", current[i][0],
				 current[i][1], dropped);
	}
	assert_int_equal(ct_arch_renamed(10, 1), 110);
	assert_int_equal(ct_arch_renamed(11, 0), 0);
	assert_int_equal(ct_arch_renamed(7, 0), 0);
}

static void test_words(void **state)
{
	char buf[384], small[8];

	(void)state;
	assert_string_equal(ct_arch_gencode_words(9, 0, buf, sizeof(buf)),
			    "-gencode arch=compute_90,code=sm_90");
	assert_string_equal(ct_arch_gencode_words(12, 1, buf, sizeof(buf)),
			    "-gencode arch=compute_121,code=sm_121");
	assert_string_equal(ct_arch_gencode_words(7, 0, buf, sizeof(buf)),
			    "CUDA 12.9 or older (CUDA 13.0 and later cannot build for 7.0): "
			    "-gencode arch=compute_70,code=sm_70");
	/* Kepler is out of support too: its last driver branch is older than CUDA 13's. */
	assert_string_equal(ct_arch_gencode_words(3, 5, buf, sizeof(buf)),
			    "CUDA 11.8 or older (CUDA 12.0 and later cannot build for 3.5; 3.5 GPUs "
			    "are out of support: R470 was the last driver branch for them): "
			    "-gencode arch=compute_35,code=sm_35");
	assert_string_equal(ct_arch_gencode_words(2, 0, buf, sizeof(buf)),
			    "CUDA 8.0 or older (CUDA 9.0 and later cannot build for 2.0): "
			    "-gencode arch=compute_20,code=sm_20");
	assert_string_equal(ct_arch_gencode_words(10, 1, buf, sizeof(buf)),
			    "CUDA 12.9 or older (CUDA 13.0 renamed sm_101 to sm_110): "
			    "-gencode arch=compute_101,code=sm_101");
	assert_string_equal(ct_arch_toolkit_words(9, 0, buf, sizeof(buf)), "");
	assert_string_equal(ct_arch_toolkit_words(6, 1, buf, sizeof(buf)),
			    "CUDA 12.9 or older (CUDA 13.0 and later cannot build for 6.1)");
	/* Truncated, still terminated. */
	assert_string_equal(ct_arch_gencode_words(7, 0, small, sizeof(small)), "CUDA 12");
	assert_string_equal(ct_arch_toolkit_words(7, 0, small, sizeof(small)), "CUDA 12");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_toolkit),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The CUDA release table (cli/common/cuda_releases.def) as check and run
 * read it: PTX ISA -> CUDA -> Linux driver, the one ptx-too-new rule, and
 * --driver's parser. test_findings.c covers the older lookups.
 */
#include <errno.h>

#include "helpers.h"

#include "compat.h"

/* Every ISA from 7.0 (CUDA 11.0) to 9.1 (CUDA 13.1), and its driver. */
static void test_isa_table(void **state)
{
	static const struct {
		unsigned major, minor;
		int cuda;
		const char *linux_driver;
	} rows[] = {
		{ 7, 0, 11000, "450.36.06" }, { 7, 1, 11010, "455.23" },
		{ 7, 2, 11020, "460.27.03" }, { 7, 3, 11030, "465.19.01" },
		{ 7, 4, 11040, "470.42.01" }, { 7, 5, 11050, "495.29.05" },
		{ 7, 6, 11060, "510.39.01" }, { 7, 7, 11070, "515.43.04" },
		{ 7, 8, 11080, "520.61.05" }, { 8, 0, 12000, "525.60.13" },
		{ 8, 1, 12010, "530.30.02" }, { 8, 2, 12020, "535.54.03" },
		{ 8, 3, 12030, "545.23.06" }, { 8, 4, 12040, "550.54.14" },
		{ 8, 5, 12050, "555.42.02" }, { 8, 6, 12070, "565.57.01" },
		{ 8, 7, 12080, "570.26" },    { 8, 8, 12090, "575.51.03" },
		{ 9, 0, 13000, "580.65.06" }, { 9, 1, 13010, "590.44.01" },
		{ 9, 2, 13020, "595.45.04" }, { 9, 3, 13030, "610.43.02" },
	};
	size_t i;
	int newer;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int cuda = ct_ptx_isa_cuda(rows[i].major, rows[i].minor);

		assert_int_equal(cuda, rows[i].cuda);
		assert_string_equal(ct_toolkit_driver(cuda, &newer), rows[i].linux_driver);
		assert_false(newer);
	}
	/* CUDA 12.6 writes ISA 8.5 too: its driver is not what 8.5 needs. */
	assert_string_equal(ct_toolkit_driver(12060, &newer), "560.28.03");
	/* An ISA no nvcc wrote needs the next real one's release. */
	assert_int_equal(ct_ptx_isa_cuda(8, 9), 13000);
	assert_int_equal(ct_ptx_isa_cuda(7, 12), 12000);
	assert_int_equal(ct_ptx_isa_cuda(6, 5), 10000);
	assert_int_equal(ct_ptx_isa_cuda(9, 4), -1);
}

static void test_ptx_driver_reads(void **state)
{
	(void)state;
	/* The case: ISA 8.5 (CUDA 12.5) on a 550 driver (12.4). */
	assert_false(ct_ptx_driver_reads(8, 5, 12040));
	assert_true(ct_ptx_driver_reads(8, 5, 12050));
	assert_true(ct_ptx_driver_reads(8, 4, 12040));
	/* 565 (12.7) reads 8.6; 560 (12.6) does not. */
	assert_true(ct_ptx_driver_reads(8, 6, 12070));
	assert_false(ct_ptx_driver_reads(8, 6, 12060));
	assert_false(ct_ptx_driver_reads(9, 0, 12090));
	assert_true(ct_ptx_driver_reads(9, 0, 13000));
	assert_true(ct_ptx_driver_reads(6, 4, 11000));
	/* CUDA 13.2's wheels (torch 2.15's) write ISA 9.2. */
	assert_false(ct_ptx_driver_reads(9, 2, 13010));
	assert_true(ct_ptx_driver_reads(9, 2, 13020));
	/* Past the table: refused by a driver in it, not by a newer one. */
	assert_false(ct_ptx_driver_reads(9, 4, 13030));
	assert_true(ct_ptx_driver_reads(9, 4, 13040));
}

static void test_driver_parse(void **state)
{
	int cuda = -1;

	(void)state;
	assert_int_equal(ct_driver_parse("550.54", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("550.54.15", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("550", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("550.40.07", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("555.42.02", &cuda), 0);
	assert_int_equal(cuda, 12050);
	assert_int_equal(ct_driver_parse("565.57.01", &cuda), 0);
	assert_int_equal(cuda, 12070);
	assert_int_equal(ct_driver_parse("580", &cuda), 0);
	assert_int_equal(cuda, 13000);
	assert_int_equal(ct_driver_parse("470.82.01", &cuda), 0);
	assert_int_equal(cuda, 11040);
	/* A branch between two in the table: the older one's CUDA. */
	assert_int_equal(ct_driver_parse("540", &cuda), 0);
	assert_int_equal(cuda, 12020);
	/* Past the table: newer than every CUDA in it. */
	assert_int_equal(ct_driver_parse("595.58.03", &cuda), 0);
	assert_int_equal(cuda, 13020);
	assert_int_equal(ct_driver_parse("610.10", &cuda), 0);
	assert_int_equal(cuda, 13030);
	assert_int_equal(ct_driver_parse("620.70.06", &cuda), 0);
	assert_true(cuda > 13030);
	assert_true(ct_ptx_driver_reads(9, 1, cuda));
	assert_int_equal(ct_driver_parse("590.44.01", &cuda), 0);
	assert_int_equal(cuda, 13010);
	/* CUDA versions. */
	assert_int_equal(ct_driver_parse("12.4", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("13", &cuda), 0);
	assert_int_equal(cuda, 13000);
	assert_int_equal(ct_driver_parse("12.4.1", &cuda), 0);
	assert_int_equal(cuda, 12040);
	assert_int_equal(ct_driver_parse("10.2", &cuda), 0);
	assert_int_equal(cuda, 10020);
	assert_false(ct_ptx_driver_reads(7, 0, cuda));
	/* Not a driver. */
	cuda = 7;
	assert_int_equal(ct_driver_parse("", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("abc", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("12.", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse(".4", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("12..4", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("550.54.15.1", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("550 ", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("-550", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("0.5", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("12.100", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("99999999999999999999", &cuda), -EINVAL);
	assert_int_equal(ct_driver_parse("native", &cuda), -EINVAL);
	/* A Linux driver older than CUDA 11's. */
	assert_int_equal(ct_driver_parse("440.33", &cuda), -ERANGE);
	assert_int_equal(ct_driver_parse("100", &cuda), -ERANGE);
	assert_int_equal(cuda, 7);
}

/* The GPU archs each branch drives (cuda_releases.def's gpus_new and gpus_gone). */
static void test_branch_gpus(void **state)
{
	unsigned first, last;

	(void)state;
	/* Kepler: R470 was the last branch; 495 the first without it. */
	assert_int_equal(ct_branch_gpu(470, 3, 5, &first, &last), 1);
	assert_int_equal(first, 0);
	assert_int_equal(last, 470);
	assert_int_equal(ct_branch_gpu(450, 3, 7, NULL, NULL), 1);
	assert_int_equal(ct_branch_gpu(495, 3, 5, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(550, 3, 0, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(0, 3, 2, NULL, NULL), 1);
	/* Hopper and Ada: R510 and older do not drive them, R520 does, R515 not said. */
	assert_int_equal(ct_branch_gpu(470, 9, 0, &first, &last), 0);
	assert_int_equal(first, 0);
	assert_int_equal(last, 0);
	assert_int_equal(ct_branch_gpu(510, 8, 9, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(515, 9, 0, NULL, NULL), -1);
	assert_int_equal(ct_branch_gpu(520, 9, 0, NULL, NULL), 1);
	assert_int_equal(ct_branch_gpu(580, 8, 9, NULL, NULL), 1);
	assert_int_equal(ct_branch_gpu_later(9, 0, &first), 510);
	assert_int_equal(first, 520);
	assert_int_equal(ct_branch_gpu_later(8, 0, &first), 0);
	assert_int_equal(first, 0);
	/* Maxwell, Pascal, Volta: R580 the last. */
	assert_int_equal(ct_branch_gpu(580, 7, 0, &first, &last), 1);
	assert_int_equal(last, 580);
	assert_int_equal(ct_branch_gpu(590, 7, 0, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(590, 5, 0, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(610, 6, 1, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(550, 5, 2, NULL, NULL), 1);
	/* Blackwell: R570 the first. */
	assert_int_equal(ct_branch_gpu(550, 12, 0, &first, &last), 0);
	assert_int_equal(first, 570);
	assert_int_equal(last, 0);
	assert_int_equal(ct_branch_gpu(565, 10, 0, NULL, NULL), 0);
	assert_int_equal(ct_branch_gpu(570, 12, 0, NULL, NULL), 1);
	assert_int_equal(ct_branch_gpu(610, 10, 0, NULL, NULL), 1);
	/* Archs the sources name no branch for are not judged. */
	assert_int_equal(ct_branch_gpu(450, 8, 6, &first, &last), -1);
	assert_int_equal(first, 0);
	assert_int_equal(last, 0);
	assert_int_equal(ct_branch_gpu(550, 7, 5, NULL, NULL), -1);
	assert_int_equal(ct_branch_gpu(550, 10, 3, NULL, NULL), -1);
	assert_int_equal(ct_branch_gpu(550, 12, 1, NULL, NULL), -1);
	assert_int_equal(ct_branch_gpu(550, 7, 2, NULL, NULL), -1);
	assert_int_equal(ct_branch_gpu(550, 1, 20, NULL, NULL), -1);
}

static void test_cuda_branch(void **state)
{
	(void)state;
	assert_int_equal(ct_cuda_branch(12040), 550);
	assert_int_equal(ct_cuda_branch(13000), 580);
	assert_int_equal(ct_cuda_branch(11000), 450);
	assert_int_equal(ct_cuda_branch(12000), 525);
	/* Older than the table; newer than it. */
	assert_int_equal(ct_cuda_branch(10020), 0);
	assert_int_equal(ct_cuda_branch(13020), 595);
	assert_true(ct_cuda_branch(13040) > 610);
	assert_int_equal(ct_newest_cuda(), 13030);
	assert_string_equal(ct_branch_driver(570), "570.26");
	assert_string_equal(ct_branch_driver(580), "580.65.06");
	assert_null(ct_branch_driver(540));
}

/* The soname a CUDA major ships for a name without a major, the newest of several. */
static void test_soname_in_cuda(void **state)
{
	(void)state;
	assert_string_equal(ct_soname_in_cuda("libnvrtc.so", 11), "libnvrtc.so.11.2");
	assert_string_equal(ct_soname_in_cuda("libnvrtc.so", 13), "libnvrtc.so.13");
	assert_string_equal(ct_soname_in_cuda("/opt/x/libcublasLt.so", 12), "libcublasLt.so.12");
	/* libnvrtc.alt and libnvrtc-builtins are other libraries. */
	assert_string_equal(ct_soname_in_cuda("libnvrtc.so.13", 12), "libnvrtc.so.12");
	assert_null(ct_soname_in_cuda("libnvrtc.so", 10));
	assert_null(ct_soname_in_cuda("libfoo.so", 12));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isa_table),
		cmocka_unit_test(test_ptx_driver_reads),
		cmocka_unit_test(test_driver_parse),
		cmocka_unit_test(test_branch_gpus),
		cmocka_unit_test(test_cuda_branch),
		cmocka_unit_test(test_soname_in_cuda),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

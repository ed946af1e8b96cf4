/*
 * driver-too-old (cli/diagnose/driver_rule.c): when a driver is too old
 * for a runtime, the finding as run/report and doctor say it, and the one
 * fix wording with what is known and what is not.
 */
#include "helpers.h"

#include "driver_rule.h"
#include "findings.h"

static void test_too_old(void **state)
{
	(void)state;
	assert_true(ct_driver_too_old(13000, 12040));
	assert_true(ct_driver_too_old(12000, 11080));
	/* Minor-version compatibility: a newer minor of the driver's major runs. */
	assert_false(ct_driver_too_old(12080, 12040));
	assert_false(ct_driver_too_old(12040, 13000));
	/* Unknown on either side: not judged. */
	assert_false(ct_driver_too_old(0, 12040));
	assert_false(ct_driver_too_old(13000, 0));
	assert_false(ct_driver_too_old(13000, -1));
}

static void test_process(void **state)
{
	const char *from[] = { "/usr/local/cuda/lib64/libcudart.so.13, dlopen by gpuapp" };
	struct ct_driver_need n = {
		.seen = CT_DRIVER_SEEN_PROCESS, .runtime = 13000, .runtime_minor_known = true,
		.runtime_from = from, .nruntime_from = 1, .driver = 12040,
		.driver_path = "/l/libcuda.so.1", .driver_release = "550.163.01",
	};
	struct ct_findings fs;
	struct ct_finding *f;

	(void)state;
	ct_findings_init(&fs);
	f = ct_driver_rule(&fs, &n);
	assert_non_null(f);
	assert_int_equal(f->code, CT_F_DRIVER_TOO_OLD);
	assert_string_equal(f->object, "/l/libcuda.so.1");
	assert_string_equal(f->message, "the driver supports CUDA 12.4, the CUDA runtime needs 13.0: "
					"\"CUDA driver version is insufficient for CUDA runtime "
					"version\"");
	assert_int_equal(f->nevidence, 2);
	assert_string_equal(f->evidence[0],
			    "driver: /l/libcuda.so.1 (550.163.01), supports CUDA 12.4");
	assert_string_equal(f->evidence[1], "runtime: /usr/local/cuda/lib64/libcudart.so.13, "
					    "dlopen by gpuapp");
	assert_string_equal(f->fix, "update the driver to 580.65.06 or newer (any driver of that "
				    "branch runs every CUDA 13 release);\n"
				    "or use a CUDA 12 runtime: a build of your framework for CUDA "
				    "12 (pip: the -cu12 wheels)");
	/* A newer minor: nothing. */
	n.runtime = 12080;
	assert_null(ct_driver_rule(&fs, &n));
	assert_int_equal(fs.n, 1);
	ct_findings_release(&fs);
}

static void test_machine(void **state)
{
	const char *from[] = { "/c/libcudart.so.13 (13, CUDA toolkit)", "/w/libcudart.so.13 (13, pip wheel)" };
	struct ct_driver_need n = {
		.seen = CT_DRIVER_SEEN_MACHINE, .runtime = 13000, .runtime_minor_known = false,
		.runtime_path = "/c/libcudart.so.13", .runtime_from = from, .nruntime_from = 2,
		.driver = 12020, .driver_path = "/l/libcuda.so.1", .driver_release = "",
		.compat_dir = "/usr/local/cuda-13.0/compat", .compat_release = "580.65.06",
	};
	struct ct_findings fs;
	struct ct_finding *f;

	(void)state;
	ct_findings_init(&fs);
	f = ct_driver_rule(&fs, &n);
	assert_non_null(f);
	assert_string_equal(f->object, "/c/libcudart.so.13");
	assert_string_equal(f->message, "the CUDA 13 runtime '/c/libcudart.so.13' needs a newer "
					"driver than this one, which supports CUDA 12.2");
	assert_int_equal(f->nevidence, 4);
	assert_string_equal(f->evidence[1], "/w/libcudart.so.13 (13, pip wheel)");
	assert_string_equal(f->evidence[2],
			    "the driver: /l/libcuda.so.1, CUDA 12.2 (cuDriverGetVersion)");
	assert_non_null(strstr(f->fix, "update the driver to 580.65.06 or newer"));
	assert_non_null(strstr(f->fix, ";\nor, on a data-center GPU, put "
				       "'/usr/local/cuda-13.0/compat' first on LD_LIBRARY_PATH "
				       "(forward compatibility, libcuda 580.65.06)"));
	ct_findings_release(&fs);
}

/* The same wording with a side unknown (cuInit or a module load said 35). */
static void test_fix_unknowns(void **state)
{
	struct ct_findings fs;
	struct ct_finding *f;

	(void)state;
	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_DRIVER_TOO_OLD, NULL, "cuInit: 35");
	ct_driver_fix(f, 0, 12040, NULL, NULL, true);
	assert_string_equal(f->fix, "update the driver;\nor use a CUDA 12 runtime: a build of "
				    "your framework for CUDA 12 (pip: the -cu12 wheels)");
	f = ct_finding_add(&fs, CT_F_DRIVER_TOO_OLD, NULL, "module: 35");
	ct_driver_fix(f, 0, 0, NULL, NULL, true);
	assert_string_equal(f->fix, "update the driver;\nor use a build of your framework for the "
				    "CUDA version the driver supports");
	/* A runtime newer than the tables: no driver to name. */
	f = ct_finding_add(&fs, CT_F_DRIVER_TOO_OLD, NULL, "too new");
	ct_driver_fix(f, 15000, 13000, NULL, NULL, true);
	assert_non_null(strstr(f->fix, "update the driver to one for CUDA 15 or newer;\n"));
	ct_findings_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_old),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_fix_unknowns),
	};

	return cmocka_run_group_tests_name("driver_rule", tests, NULL, NULL);
}

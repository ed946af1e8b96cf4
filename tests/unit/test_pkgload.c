/*
 * Which build of a package with one library per CUDA release its import
 * loads (cli/diagnose/pkgload.c, ct_pkg_builds_pick), by bitsandbytes'
 * rule: torch's CUDA exactly, else the newest older one of its major,
 * else the oldest newer one; BNB_CUDA_VERSION names one outright, shipped
 * or not; a CPU build of torch asks for none; a package without such
 * builds has none. A package's objects in their dependency order
 * (cuDNN's core, graph, ops, adv), built here with cc.
 */
#include "helpers.h"

#include <unistd.h>

#include "pkgload.h"

static char *const paths[] = {
	"/s/bitsandbytes/libbitsandbytes_cpu.so",    "/s/bitsandbytes/libbitsandbytes_cuda118.so",
	"/s/bitsandbytes/libbitsandbytes_cuda124.so", "/s/bitsandbytes/libbitsandbytes_cuda126.so",
	"/s/bitsandbytes/libbitsandbytes_cuda130.so", "/s/bitsandbytes/libbitsandbytes_cuda132.so",
};
enum { N = sizeof(paths) / sizeof(paths[0]) };

static long pick(int major, int minor)
{
	struct ct_pkg_torch t = { .cuda_major = major, .cuda_minor = minor };
	struct ct_pkg_builds b;
	bool is_build[N];

	assert_int_equal(ct_pkg_builds_pick("bitsandbytes", paths, N, &t, is_build, &b), 5);
	assert_false(is_build[0]);
	assert_true(is_build[1]);
	assert_string_equal(b.shipped, "118, 124, 126, 130, 132");
	return b.pick;
}

static void test_pick(void **state)
{
	(void)state;
	unsetenv("BNB_CUDA_VERSION");
	assert_int_equal(pick(13, 2), 5); /* exactly */
	assert_int_equal(pick(12, 5), 2); /* the newest older of 12: 12.4 */
	assert_int_equal(pick(12, 1), 2); /* none older: the oldest newer, 12.4 */
	assert_int_equal(pick(12, 9), 3);
	assert_int_equal(pick(11, 8), 1);
	assert_int_equal(pick(14, 0), -1); /* no build of that major */
	assert_int_equal(pick(0, 0), -1);  /* a CPU build of torch */
}

static void test_variable(void **state)
{
	struct ct_pkg_torch t = { .cuda_major = 13, .cuda_minor = 2 };
	struct ct_pkg_builds b;
	bool is_build[N];

	(void)state;
	setenv("BNB_CUDA_VERSION", "126", 1);
	ct_pkg_builds_pick("bitsandbytes", paths, N, &t, is_build, &b);
	assert_true(b.forced);
	assert_int_equal(b.pick, 3);
	assert_string_equal(b.variable, "BNB_CUDA_VERSION");
	setenv("BNB_CUDA_VERSION", "125", 1);
	ct_pkg_builds_pick("bitsandbytes", paths, N, &t, is_build, &b);
	assert_int_equal(b.pick, -1);
	assert_string_equal(b.wanted, "libbitsandbytes_cuda125.so");
	assert_string_equal(b.why, "BNB_CUDA_VERSION=125");
	/* Another package's builds: its variable is not bitsandbytes'. */
	ct_pkg_builds_pick("other", paths, N, &t, is_build, &b);
	assert_false(b.forced);
	assert_int_equal(b.pick, 5);
	unsetenv("BNB_CUDA_VERSION");
}

static void test_none(void **state)
{
	char *const plain[] = { "/s/x/_C.so", "/s/x/libcuda_helper.so", "/s/x/lib_cuda12.so.1" };
	struct ct_pkg_torch t = { .cuda_major = 13, .cuda_minor = 2 };
	struct ct_pkg_builds b;
	bool is_build[3];

	(void)state;
	assert_int_equal(ct_pkg_builds_pick("x", plain, 3, &t, is_build, &b), 0);
	assert_int_equal(b.pick, -1);
	assert_false(is_build[0] || is_build[1] || is_build[2]);
}

/* cc -shared dir/name.so with soname name and the libraries needs (space-separated files). */
static bool so(const char *dir, const char *name, const char *needs)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && echo 'int f_%d(void){return 0;}' >x.c && cc -shared -fPIC -w -o %s x.c "
		 "-Wl,-soname,%s -Wl,--no-as-needed %s 2>/dev/null",
		 dir, (int)strlen(name), name, name, needs);
	return system(cmd) == 0;
}

static void test_order(void **state)
{
	char dir[] = "/tmp/ct-pkgload.XXXXXX", cmd[256], *files[4];
	size_t order[4], i;
	static const char *const names[] = { "libadv.so.9", "libcore.so.9", "libops.so.9",
					     "libgraph.so.9" };

	(void)state;
	assert_non_null(mkdtemp(dir));
	if (!so(dir, "libgraph.so.9", "") || !so(dir, "libops.so.9", "libgraph.so.9") ||
	    !so(dir, "libadv.so.9", "libops.so.9 libgraph.so.9") || !so(dir, "libcore.so.9", "")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)system(cmd);
		skip();
	}
	for (i = 0; i < 4; i++)
		assert_true(asprintf(&files[i], "%s/%s", dir, names[i]) > 0);
	ct_pkg_dependency_order(files, 4, order);
	/* graph before ops before adv; core (needing none of them) in its place. */
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 3);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 0);
	for (i = 0; i < 4; i++)
		free(files[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_variable),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * What Triton finds at its first compile, read from files
 * (cli/loader/triton.c), on a Triton tree written here: a CUDA tool's
 * release from its text (the format string before it passed over, the
 * text across a 1 MiB read boundary, none, not executable); ptxas below
 * and from sm_90, the variables that choose another (taken when it runs,
 * passed over when it cannot); libcuda_dirs() from TRITON_LIBCUDA_PATH
 * (unchecked, then the link fails) and from LD_LIBRARY_PATH.
 */
#include "helpers.h"
#include "scratch.h"

#include <unistd.h>

#include "triton.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("triton");
}

static int teardown(void **state)
{
	(void)state;
	scratch_remove();
	return 0;
}

/* top/rel: pad bytes of zeros, then text; mode. */
static void put(const char *rel, size_t pad, const char *text, mode_t mode)
{
	char dir[1024], *slash;
	FILE *f;
	size_t i;

	snprintf(dir, sizeof(dir), "%s", rel);
	if ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		scratch_mkdirs(dir);
	}
	assert_non_null(f = fopen(scratch_at(rel), "w"));
	for (i = 0; i < pad; i++)
		fputc(0, f);
	fwrite(text, 1, strlen(text) + 1, f);
	fclose(f);
	chmod(scratch_at(rel), mode);
}

static void test_release(void **state)
{
	char r[16];
	bool runs;

	(void)state;
	put("t/a", 10, "Cuda compilation tools, release %d.%d, ", 0755);
	assert_false(ct_cuda_tool_release(scratch_at("t/a"), r, sizeof(r), &runs));
	assert_true(runs);
	/* Across the first 1 MiB read. */
	put("t/b", (1 << 20) - 20, "Cuda compilation tools, release 12.4, V12.4.131", 0644);
	assert_true(ct_cuda_tool_release(scratch_at("t/b"), r, sizeof(r), &runs));
	assert_string_equal(r, "12.4");
	assert_false(runs);
	assert_false(ct_cuda_tool_release(scratch_at("t/none"), r, sizeof(r), &runs));
	assert_false(ct_cuda_tool_release(top, r, sizeof(r), &runs)); /* a folder */
}

static void tree(void)
{
	put("s/triton/backends/nvidia/driver.py", 0,
	    "libraries = ['libcuda.so.1']\ndef libcuda_dirs():\n    pass\n", 0644);
	put("s/triton/backends/nvidia/compiler.py", 0, "return knobs.nvidia.ptxas_blackwell\n", 0644);
	put("s/triton/backends/nvidia/bin/ptxas", 0, "Cuda compilation tools, release 12.9, V", 0755);
	put("s/triton/backends/nvidia/bin/ptxas-blackwell", 0,
	    "Cuda compilation tools, release 13.4, V", 0755);
	put("old/ptxas", 0, "Cuda compilation tools, release 12.4, V", 0755);
	put("noexec/ptxas", 0, "Cuda compilation tools, release 12.4, V", 0644);
	put("drv/libcuda.so.1", 0, "x", 0644);
	put("stubs/libcuda.so", 0, "x", 0644);
}

static void test_ptxas(void **state)
{
	struct ct_loader_env env = { .library_path = "", .preload = "" };
	struct ct_loader L;
	struct ct_triton t;
	struct ct_triton_ptxas x;

	(void)state;
	tree();
	ct_loader_init(&L, 0, 0, &env);
	assert_int_equal(ct_triton_read(&t, scratch_at("s"), &L), 0);
	assert_true(t.blackwell);
	assert_true(t.link_versioned);
	unsetenv("TRITON_PTXAS_PATH");
	unsetenv("TRITON_PTXAS_BLACKWELL_PATH");
	ct_triton_ptxas(&t, 8, 0, true, &x);
	assert_string_equal(x.path, scratch_at("s/triton/backends/nvidia/bin/ptxas"));
	assert_string_equal(x.release, "12.9");
	assert_null(x.variable);
	ct_triton_ptxas(&t, 12, 0, true, &x);
	assert_string_equal(x.release, "13.4");
	setenv("TRITON_PTXAS_BLACKWELL_PATH", scratch_at("old/ptxas"), 1);
	ct_triton_ptxas(&t, 12, 0, true, &x);
	assert_string_equal(x.path, scratch_at("old/ptxas"));
	assert_string_equal(x.release, "12.4");
	assert_string_equal(x.variable, "TRITON_PTXAS_BLACKWELL_PATH");
	ct_triton_ptxas(&t, 12, 0, false, &x);
	assert_string_equal(x.release, "13.4");
	/* Below sm_90 the other variable; one that cannot run is passed over. */
	ct_triton_ptxas(&t, 8, 6, true, &x);
	assert_string_equal(x.release, "12.9");
	setenv("TRITON_PTXAS_PATH", scratch_at("noexec/ptxas"), 1);
	ct_triton_ptxas(&t, 8, 6, true, &x);
	assert_string_equal(x.refused, scratch_at("noexec/ptxas"));
	assert_string_equal(x.release, "12.9");
	unsetenv("TRITON_PTXAS_PATH");
	unsetenv("TRITON_PTXAS_BLACKWELL_PATH");
	ct_triton_release(&t);
	ct_loader_release(&L);
	assert_int_equal(ct_triton_read(&t, scratch_at("no-site"), &L), -ENOENT);
}

static void test_libcuda(void **state)
{
	struct ct_loader_env env = { .library_path = "", .preload = "" };
	struct ct_loader L;
	struct ct_triton t;
	char lp[2048];

	(void)state;
	tree();
	/* TRITON_LIBCUDA_PATH: taken unchecked; a stubs folder links nothing. */
	setenv("TRITON_LIBCUDA_PATH", scratch_at("stubs"), 1);
	ct_loader_init(&L, 0, 0, &env);
	ct_triton_read(&t, scratch_at("s"), &L);
	assert_string_equal(t.dirs_from, "TRITON_LIBCUDA_PATH");
	assert_int_equal(t.ndirs, 1);
	assert_string_equal(t.found, "");
	ct_triton_release(&t);
	ct_loader_release(&L);
	unsetenv("TRITON_LIBCUDA_PATH");
	/* No cache entry: LD_LIBRARY_PATH's folders that hold it. */
	snprintf(lp, sizeof(lp), "%s:%s", scratch_at("stubs"), scratch_at("drv"));
	env.library_path = lp;
	ct_loader_init(&L, 0, 0, &env);
	ct_triton_read(&t, scratch_at("s"), &L);
	if (t.dirs_from && strcmp(t.dirs_from, "ld.so.cache") == 0) {
		/* This machine's ld.so.cache has a driver: LD_LIBRARY_PATH is not asked. */
		ct_triton_release(&t);
		ct_loader_release(&L);
		return;
	}
	assert_string_equal(t.dirs_from, "LD_LIBRARY_PATH");
	assert_int_equal(t.ndirs, 1);
	assert_string_equal(t.found, scratch_at("drv/libcuda.so.1"));
	assert_string_equal(t.link_file, t.found);
	ct_triton_release(&t);
	ct_loader_release(&L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_ptxas),
		cmocka_unit_test(test_libcuda),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

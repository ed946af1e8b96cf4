/*
 * The driver's version of its libraries (cli/loader/libfacts.c): the real
 * file's name, else the banner the driver writes into the file, read in
 * chunks; the banner wherever it sits, a chunk's end included, and
 * nothing taken from a banner that is not NVIDIA's.
 */
#include "helpers.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libfacts.h"

#define BANNER "Version 550.163.01. Copyright (C) 2025 NVIDIA Corporation. All rights reserved."
#define CHUNK (1u << 20) /* the reader's chunk */

static char dir[] = "/tmp/cudatrace-libfacts.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64 + sizeof(dir)];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* name in dir: size bytes of 'x', text at off (when text). Returns the path. */
static const char *make_file(const char *name, size_t size, const char *text, size_t off)
{
	static char path[PATH_MAX];
	char *buf = calloc(1, size);
	FILE *f;

	assert_non_null(buf);
	memset(buf, 'x', size);
	if (text)
		memcpy(buf + off, text, strlen(text));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
	free(buf);
	return path;
}

static void test_banner_anywhere(void **state)
{
	/* At the start, in the first chunk, and cut by the first chunk's end. */
	static const size_t offs[] = { 0, 4096, CHUNK - 200, CHUNK - 90, CHUNK - 60, CHUNK - 40,
				       CHUNK - 30, CHUNK - 20, CHUNK - 9, CHUNK - 1, CHUNK,
				       CHUNK + 5, 2 * CHUNK - 50 };
	char v[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(offs); i++) {
		const char *p = make_file("libcuda.so.1", 3 * CHUNK, BANNER, offs[i]);
		const char *from = ct_driver_version(p, "libcuda.so.1", v, sizeof(v));

		if (!from || strcmp(v, "550.163.01") != 0)
			fail_msg("banner at %zu: got '%s' from %s", offs[i], v, from ? from : "nothing");
		assert_string_equal(from, "file");
	}
	/* At the very end of the file. */
	ct_driver_version(make_file("libcuda.so.1", 100 + strlen(BANNER), BANNER, 100),
			  "libcuda.so.1", v, sizeof(v));
	assert_string_equal(v, "550.163.01");
}

static void test_not_a_banner(void **state)
{
	static const char *const others[] = {
		"Version 550.163.01. Copyright (C) 2025 Someone Else. All rights reserved.",
		"Release 550.163.01. Copyright (C) 2025 NVIDIA Corporation.",
		"Version . Copyright (C) 2025 NVIDIA Corporation.",
		"Version 550. Copyright (C) 2025 NVIDIA Corporation.",
	};
	char v[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(others); i++) {
		const char *p = make_file("libcuda.so.1", 8192, others[i], 1000);

		assert_null(ct_driver_version(p, "libcuda.so.1", v, sizeof(v)));
		assert_string_equal(v, "");
	}
	assert_null(ct_driver_version(make_file("libcuda.so.1", 8192, NULL, 0), "libcuda.so.1", v,
				      sizeof(v)));
	assert_string_equal(v, "");
}

static void test_file_name_first(void **state)
{
	char p[PATH_MAX], link[PATH_MAX], v[64];

	(void)state;
	/* The name wins over a banner that says otherwise. */
	snprintf(p, sizeof(p), "%s", make_file("libcuda.so.580.65.06", 8192, BANNER, 10));
	snprintf(link, sizeof(link), "%s/libcuda.so.1", dir);
	unlink(link);
	assert_int_equal(symlink("libcuda.so.580.65.06", link), 0);
	assert_string_equal(ct_driver_version(link, "libcuda.so.1", v, sizeof(v)), "file name");
	assert_string_equal(v, "580.65.06");
	assert_int_equal(unlink(link), 0);
}

static void test_no_wait(void **state)
{
	char p[PATH_MAX], v[64];

	(void)state;
	/* A FIFO in the library's place: no read, no wait. */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_null(ct_driver_version(p, "libcuda.so.1", v, sizeof(v)));
	snprintf(p, sizeof(p), "%s/missing", dir);
	assert_null(ct_driver_version(p, "libcuda.so.1", v, sizeof(v)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_banner_anywhere),
		cmocka_unit_test(test_not_a_banner),
		cmocka_unit_test(test_file_name_first),
		cmocka_unit_test(test_no_wait),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * The driver's version of its libraries (cli/loader/libfacts.c): the real
 * file's name, else the banner the driver writes into the file, read in
 * chunks; the banner wherever it sits, a chunk's end included, and
 * nothing taken from a banner that is not NVIDIA's. A wheel's library:
 * the version of the package whose RECORD lists the file.
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

/* dist-info NAME in site, its RECORD listing rel with size (none when rel is NULL). */
static void make_dist(const char *site, const char *name, const char *rel, size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", site, name);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/RECORD", site, name);
	assert_non_null(f = fopen(path, "w"));
	if (rel)
		fprintf(f, "%s,sha256=x,%zu\n", rel, size);
	fprintf(f, "%s/RECORD,,\n", name);
	assert_int_equal(fclose(f), 0);
}

static void test_wheel_record(void **state)
{
	char site[PATH_MAX], lib[PATH_MAX], v[64], cmd[3 * PATH_MAX];

	(void)state;
	/*
	 * nvidia_cusparse (CUDA 13, nvidia/cu13/lib) and nvidia_cusparse_cu12
	 * (nvidia/cusparse/lib) both match nvidia/cusparse/lib by name, with
	 * the same major: the RECORD that lists the file says which.
	 */
	snprintf(site, sizeof(site), "%s/site", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/nvidia/cusparse/lib' '%s/nvidia/cudnn/lib'", site, site);
	assert_int_equal(system(cmd), 0);
	make_dist(site, "nvidia_cusparse-12.7.10.12.dist-info", "nvidia/cu13/lib/libcusparse.so.12", 100);
	make_dist(site, "nvidia_cusparse_cu12-12.5.10.65.dist-info",
		  "nvidia/cusparse/lib/libcusparse.so.12", 300);
	snprintf(lib, sizeof(lib), "%s", make_file("site/nvidia/cusparse/lib/libcusparse.so.12", 300,
						   NULL, 0));
	assert_string_equal(ct_library_file_version(lib, "libcusparse.so.12", v, sizeof(v)),
			    "dist-info");
	assert_string_equal(v, "12.5.10.65");
	/*
	 * nvidia_cudnn_cu12 installed after nvidia_cudnn_cu13 overwrote
	 * nvidia/cudnn/lib/libcudnn.so.9: both RECORDs list it, the size says
	 * whose it is now; either way round.
	 */
	make_dist(site, "nvidia_cudnn_cu12-9.28.0.42.dist-info", "nvidia/cudnn/lib/libcudnn.so.9", 137432);
	make_dist(site, "nvidia_cudnn_cu13-9.26.0.51.dist-info", "nvidia/cudnn/lib/libcudnn.so.9", 133336);
	snprintf(lib, sizeof(lib), "%s", make_file("site/nvidia/cudnn/lib/libcudnn.so.9", 137432, NULL, 0));
	ct_library_file_version(lib, "libcudnn.so.9", v, sizeof(v));
	assert_string_equal(v, "9.28.0.42");
	snprintf(lib, sizeof(lib), "%s", make_file("site/nvidia/cudnn/lib/libcudnn.so.9", 133336, NULL, 0));
	ct_library_file_version(lib, "libcudnn.so.9", v, sizeof(v));
	assert_string_equal(v, "9.26.0.51");
	/* No RECORD lists it: the first package of its major, as before. */
	snprintf(lib, sizeof(lib), "%s", make_file("site/nvidia/cudnn/lib/libcudnn.so.9", 5, NULL, 0));
	ct_library_file_version(lib, "libcudnn.so.9", v, sizeof(v));
	assert_string_equal(v, "9.28.0.42");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_banner_anywhere),
		cmocka_unit_test(test_not_a_banner),
		cmocka_unit_test(test_file_name_first),
		cmocka_unit_test(test_no_wait),
		cmocka_unit_test(test_wheel_record),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

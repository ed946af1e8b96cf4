/*
 * Facts kept between runs (cli/common/cache.c): a record comes back only
 * for the key it was stored under, whole, from a folder of the user's own;
 * a damaged, foreign or oversized entry is no record. The folder is a
 * fresh XDG_CACHE_HOME per test.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "cache.h"

static char base[64];

static int make_home(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/ct-cache-test.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	setenv("XDG_CACHE_HOME", base, 1);
	unsetenv("CUDATRACE_CACHE");
	return 0;
}

static int drop_home(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static struct ct_cache_key key(unsigned long long ino, long mtime_ns)
{
	struct ct_cache_key k = { .dev = 0xfe00, .ino = ino, .size = 1 << 24,
				  .mtime_s = 1700000000, .mtime_ns = mtime_ns,
				  .ctime_s = 1700000000, .ctime_ns = 5 };

	return k;
}

/* The one entry's path (the key's inode names it). */
static void entry_path(char *buf, size_t size, unsigned long long ino)
{
	snprintf(buf, size, "%s/cudatrace/t-1-fe00-%llx", base, ino);
}

static void test_round_trip(void **state)
{
	struct ct_cache_key k = key(0x10, 1), other = key(0x10, 2), elsewhere = key(0x11, 1);
	char buf[64];
	struct stat st;
	char path[128];

	(void)state;
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_put("t-1", &k, "images 3\n", 9), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), 9);
	assert_string_equal(buf, "images 3\n");
	/* Another mtime, another inode, another kind: no record. */
	assert_int_equal(ct_cache_get("t-1", &other, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_get("t-1", &elsewhere, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_get("t-2", &k, buf, sizeof(buf)), -1);
	/* A buffer too small for it: none rather than a cut record. */
	assert_int_equal(ct_cache_get("t-1", &k, buf, 9), -1);
	/* Stored again for the new mtime: the old one is replaced. */
	assert_int_equal(ct_cache_put("t-1", &other, "images 4\n", 9), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_get("t-1", &other, buf, sizeof(buf)), 9);
	entry_path(path, sizeof(path), 0x10);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_damaged(void **state)
{
	struct ct_cache_key k = key(0x20, 1);
	char buf[64], path[128];
	int fd;

	(void)state;
	assert_int_equal(ct_cache_put("t-1", &k, "images 3\n", 9), 0);
	entry_path(path, sizeof(path), 0x20);
	/* Cut inside its header line. */
	assert_int_equal(truncate(path, 20), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	/* A NUL inside the record. */
	assert_int_equal(ct_cache_put("t-1", &k, "images 3\n", 9), 0);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\0x\n", 3), 3);
	close(fd);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	/* Larger than any entry written. */
	assert_int_equal(truncate(path, 1 << 20), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	/* A record with a NUL, or too large, is not stored. */
	assert_int_equal(ct_cache_put("t-1", &k, "a\0b", 3), -1);
	{
		static char big[4096];

		memset(big, 'x', sizeof(big));
		assert_int_equal(ct_cache_put("t-1", &k, big, sizeof(big)), -1);
	}
}

static void test_not_ours(void **state)
{
	struct ct_cache_key k = key(0x30, 1);
	char buf[64], dir[96];

	(void)state;
	assert_int_equal(ct_cache_put("t-1", &k, "images 3\n", 9), 0);
	snprintf(dir, sizeof(dir), "%s/cudatrace", base);
	/* A folder others may enter: neither read nor written. */
	assert_int_equal(chmod(dir, 0750), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_put("t-1", &k, "images 4\n", 9), -1);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), 9);
	/* Turned off. */
	setenv("CUDATRACE_CACHE", "off", 1);
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_put("t-1", &k, "images 4\n", 9), -1);
	unsetenv("CUDATRACE_CACHE");
	/* No usable folder at all: a relative XDG_CACHE_HOME and no HOME. */
	setenv("XDG_CACHE_HOME", "relative", 1);
	unsetenv("HOME");
	assert_int_equal(ct_cache_get("t-1", &k, buf, sizeof(buf)), -1);
	assert_int_equal(ct_cache_put("t-1", &k, "images 4\n", 9), -1);
	setenv("XDG_CACHE_HOME", base, 1);
}

static void test_key_of(void **state)
{
	struct ct_cache_key a, b;
	struct stat st;

	(void)state;
	assert_int_equal(stat("/", &st), 0);
	ct_cache_key_of(&a, &st);
	ct_cache_key_of(&b, &st);
	assert_true(ct_cache_key_same(&a, &b));
	b.ctime_ns++;
	assert_false(ct_cache_key_same(&a, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, make_home, drop_home),
		cmocka_unit_test_setup_teardown(test_damaged, make_home, drop_home),
		cmocka_unit_test_setup_teardown(test_not_ours, make_home, drop_home),
		cmocka_unit_test(test_key_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

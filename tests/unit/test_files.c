/*
 * Reading a file cudatrace did not create (cli/common/files.c): a regular
 * file comes back readable, through a link too; anything else comes back
 * as the O_PATH descriptor it was checked through, which fstat describes
 * and nothing reads (a device's open is a side effect, a FIFO's open
 * blocks); O_NOFOLLOW refuses a link; a pinned path reads the file pinned,
 * whatever is at the path later.
 */
#include <fcntl.h>
#include <unistd.h>

#include "helpers.h"
#include "files.h"

struct dir {
	char path[64];
	char file[128], link[128], dev[128], fifo[128], sub[128];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	FILE *f;

	snprintf(d->path, sizeof(d->path), "/tmp/ct-files.XXXXXX");
	if (!d || !mkdtemp(d->path))
		return -1;
	snprintf(d->file, sizeof(d->file), "%s/lib.so", d->path);
	snprintf(d->link, sizeof(d->link), "%s/lib.so.1", d->path);
	snprintf(d->dev, sizeof(d->dev), "%s/libdev.so", d->path);
	snprintf(d->fifo, sizeof(d->fifo), "%s/fifo", d->path);
	snprintf(d->sub, sizeof(d->sub), "%s/sub", d->path);
	if (!(f = fopen(d->file, "w")) || fputs("\177ELF-and-more", f) < 0 || fclose(f) != 0 ||
	    symlink(d->file, d->link) != 0 || symlink("/dev/null", d->dev) != 0 ||
	    mkfifo(d->fifo, 0600) != 0 || mkdir(d->sub, 0700) != 0)
		return -1;
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->file);
	unlink(d->link);
	unlink(d->dev);
	unlink(d->fifo);
	rmdir(d->sub);
	rmdir(d->path);
	free(d);
	return 0;
}

static void test_regular(void **state)
{
	struct dir *d = *state;
	char buf[8];
	int fd = ct_open_file(d->link, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, 4), 4);
	assert_memory_equal(buf, "\177ELF", 4);
	/* The descriptor is the file's own, not a path's. */
	assert_int_not_equal(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	close(fd);
}

static void test_not_regular(void **state)
{
	struct dir *d = *state;
	const char *paths[] = { d->dev, d->fifo, d->sub };
	const mode_t types[] = { S_IFCHR, S_IFIFO, S_IFDIR };
	size_t i;

	for (i = 0; i < ARRAY_LEN(paths); i++) {
		struct stat st;
		char c;
		int fd = ct_open_file(paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		assert_true(fd >= 0);
		/* O_PATH: fstat tells what it is; no read reaches it. */
		assert_int_equal(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_mode & S_IFMT, types[i]);
		assert_int_equal(read(fd, &c, 1), -1);
		assert_int_equal(errno, EBADF);
		close(fd);
	}
	assert_null(ct_fopen_file(d->dev));
	assert_int_equal(errno, ENODEV);
	assert_null(ct_fopen_file(d->sub));
	assert_int_equal(errno, EISDIR);
	assert_null(ct_read_small_file(d->fifo, 100));
}

static void test_nofollow_and_missing(void **state)
{
	struct dir *d = *state;
	char missing[160];
	int fd;

	assert_int_equal(ct_open_file(d->link, O_RDONLY | O_NOFOLLOW), -1);
	assert_int_equal(errno, ELOOP);
	fd = ct_open_file(d->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	snprintf(missing, sizeof(missing), "%s/none", d->path);
	assert_int_equal(ct_open_file(missing, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_small_and_fopen(void **state)
{
	struct dir *d = *state;
	char *text = ct_read_small_file(d->link, 100), line[32];
	FILE *f = ct_fopen_file(d->link);

	assert_non_null(text);
	assert_string_equal(text, "\177ELF-and-more");
	free(text);
	assert_null(ct_read_small_file(d->link, 4)); /* larger than max */
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "\177ELF-and-more");
	fclose(f);
}

/* The pinned file is read, whatever is put at its path afterwards. */
static void test_pinned(void **state)
{
	struct dir *d = *state;
	char pinned[160], buf[8] = { 0 };
	FILE *f;
	int fd;

	snprintf(pinned, sizeof(pinned), "%s/pinned.so", d->path);
	assert_non_null(f = fopen(pinned, "w"));
	fputs("first", f);
	fclose(f);
	fd = open(pinned, O_PATH | O_CLOEXEC);
	assert_true(ct_pin_file(pinned, fd));
	assert_int_equal(unlink(pinned), 0);
	assert_int_equal(symlink("/dev/null", pinned), 0);
	fd = ct_open_file(pinned, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, 5), 5);
	assert_string_equal(buf, "first");
	close(fd);
	/* A pin of a device is refused. */
	assert_false(ct_pin_file(d->dev, open(d->dev, O_PATH | O_CLOEXEC)));
	unlink(pinned);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_nofollow_and_missing),
		cmocka_unit_test(test_small_and_fopen),
		cmocka_unit_test(test_pinned),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

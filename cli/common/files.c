/* Reading a file cudatrace did not create, without opening anything else (files.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

#include "files.h"
#include "util.h"

/* The files pinned, by path: ps PID pins every file a process maps (thousands). */
static struct pin {
	char *path;
	int fd;
	dev_t dev;
	ino_t ino;
	UT_hash_handle hh;
} *pins;

static const struct pin *pin_of(const char *path)
{
	struct pin *p = NULL;

	HASH_FIND_STR(pins, path, p);
	return p;
}

bool ct_pin_file(const char *path, int fd)
{
	const struct pin *had = pin_of(path);
	struct pin *p;
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	if (had) {
		close(fd);
		return had->dev == st.st_dev && had->ino == st.st_ino;
	}
	p = ct_xcalloc(1, sizeof(*p));
	p->path = ct_xstrdup(path);
	p->fd = fd;
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	HASH_ADD_KEYPTR(hh, pins, p->path, strlen(p->path), p);
	return true;
}

static bool same_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/*
 * Without /proc (a chroot that did not mount it): the path's real folders
 * are walked one at a time, each opened O_PATH|O_NOFOLLOW, so that no link
 * swapped in meanwhile is followed, and the file is opened in its pinned
 * folder with O_NOFOLLOW only after fstatat found there the regular file
 * checked; it is checked once more through the descriptor. What remains
 * between the look and the open is that folder's entry, which only a
 * device node made or hard-linked there could take, and neither is open
 * to an unprivileged user (mknod needs CAP_MKNOD; protected_hardlinks).
 */
static int open_walking(const char *path, int flags, dev_t dev, ino_t ino)
{
	char *real = realpath(path, NULL), *name, *comp, *save = NULL;
	int dfd = -1, fd = -1, err = ESTALE;
	struct stat st;

	if (!real)
		return -1;
	name = strrchr(real, '/');
	if (!name)
		goto out;
	*name++ = '\0';
	dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (comp = strtok_r(real, "/", &save); comp && dfd >= 0;
	     comp = strtok_r(NULL, "/", &save)) {
		int next = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(dfd);
		dfd = next;
	}
	if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_dev != dev || st.st_ino != ino)
		goto out;
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && !same_file(fd, dev, ino)) {
		close(fd);
		fd = -1;
	}
	err = fd < 0 ? errno : 0;
out:
	if (dfd >= 0)
		close(dfd);
	free(real);
	if (fd < 0)
		errno = err ? err : ESTALE;
	return fd;
}

/*
 * The regular file behind the O_PATH descriptor pfd, opened with flags:
 * through /proc/self/fd/N, the same file whatever is at its path now
 * (the permission to read it is checked there, as open checks it).
 */
static int reopen(int pfd, const char *path, int flags, dev_t dev, ino_t ino)
{
	char self[40];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, (flags & ~O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && path)
		return open_walking(path, flags & ~O_NOFOLLOW, dev, ino);
	if (fd >= 0 && !same_file(fd, dev, ino)) {
		/* Not the /proc of this process: read nothing through it. */
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

int ct_open_file(const char *path, int flags)
{
	const struct pin *p = pins ? pin_of(path) : NULL;
	struct stat st;
	int pfd, fd, err;

	if (p)
		return reopen(p->fd, NULL, flags, p->dev, p->ino);
	pfd = open(path, O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)));
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) != 0) {
		err = errno;
		close(pfd);
		errno = err;
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		/* O_NOFOLLOW: a link at path is refused, as open(2) refuses it. */
		close(pfd);
		errno = ELOOP;
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return pfd;
	fd = reopen(pfd, path, flags, st.st_dev, st.st_ino);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}

FILE *ct_fopen_file(const char *path)
{
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st = { 0 };
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
		return NULL;
	}
	if (!(f = fdopen(fd, "r")))
		close(fd);
	return f;
}

char *ct_read_small_file(const char *path, size_t max)
{
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		close(fd);
		return NULL;
	}
	buf = ct_xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

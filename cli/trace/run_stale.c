/* The private folders of dead runs; see run_stale.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_dir.h"
#include "run_stale.h"

/* A folder made in the last seconds may be a live run's, not locked yet. */
#define STALE_GRACE 10

int ct_run_stale_hold(int fd)
{
	/* Waits only while another run's scan looks at it (a moment). */
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int ct_run_stale_said(int fd)
{
	return fchmod(fd, 01700) == 0 ? 0 : -errno;
}

/* "cudatrace." and the six letters or digits mkdtemp puts. */
static bool run_name(const char *name)
{
	size_t i;

	if (strncmp(name, "cudatrace.", 10) != 0 || strlen(name) != 16)
		return false;
	for (i = 10; i < 16; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	return true;
}

/* The newest modification of the folder open on fd and of what it holds. */
static time_t newest(int fd, const struct stat *st)
{
	int list_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	time_t t = st->st_mtime;
	struct dirent *de;
	DIR *dir;

	if (list_fd < 0 || !(dir = fdopendir(list_fd))) {
		if (list_fd >= 0)
			close(list_fd);
		return t;
	}
	while ((de = readdir(dir))) {
		struct stat e;

		if (strcmp(de->d_name, "..") == 0) /* the temporary folder: always new */
			continue;
		if (fstatat(fd, de->d_name, &e, AT_SYMLINK_NOFOLLOW) == 0 && e.st_mtime > t)
			t = e.st_mtime;
	}
	closedir(dir);
	return t;
}

/* One candidate: 1 when it is a dead run's (fn told), else 0. */
static int check_one(int tmp_fd, const char *tmpdir, const char *name, time_t now,
		     ct_stale_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct stat st, again;
	time_t t;
	int fd, err = 0;
	bool removed = false;

	fd = openat(tmp_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	/*
	 * Only this user's, as run makes them (another's is none of ours), and
	 * not one its run said it left (01700, ct_run_stale_said).
	 */
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700 ||
	    flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return 0;
	}
	t = newest(fd, &st);
	if (now - t < STALE_GRACE) {
		close(fd);
		return 0;
	}
	if (snprintf(path, sizeof(path), "%s/%s", tmpdir, name) >= (int)sizeof(path)) {
		close(fd);
		return 0;
	}
	if (now - t >= CT_STALE_REMOVE_AFTER) {
		/* Held locked meanwhile; the name removed only while it is this folder. */
		err = ct_run_dir_empty(fd);
		if (err == 0 && fstatat(tmp_fd, name, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
		    again.st_dev == st.st_dev && again.st_ino == st.st_ino)
			err = unlinkat(tmp_fd, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
		removed = err == 0;
	}
	close(fd);
	fn(ctx, path, removed, err);
	return 1;
}

int ct_run_stale_scan(const char *tmpdir, ct_stale_fn fn, void *ctx)
{
	int tmp_fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), list_fd, n = 0;
	time_t now = time(NULL);
	struct dirent *de;
	DIR *dir;

	if (tmp_fd < 0)
		return 0;
	list_fd = openat(tmp_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (list_fd < 0 || !(dir = fdopendir(list_fd))) {
		if (list_fd >= 0)
			close(list_fd);
		close(tmp_fd);
		return 0;
	}
	while ((de = readdir(dir)))
		if (run_name(de->d_name))
			n += check_one(tmp_fd, tmpdir, de->d_name, now, fn, ctx);
	closedir(dir);
	close(tmp_fd);
	return n;
}

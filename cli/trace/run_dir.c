/* The trace folder of cudatrace run, held by a descriptor; see run_dir.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ct_limits.h"
#include "run_dir.h"
#include "trace.h"
#include "util.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

void ct_run_dir_init(struct ct_run_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

/* A folder made here: exactly 0700, whatever the umask, and ours. */
static int open_made(int at, const char *name)
{
	int fd = openat(at, name, DIR_FLAGS);

	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0700) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * The nearest folder above path (absolute, resolved) that another user
 * than us and root may change, into out ("" none). A sticky folder
 * (/tmp) lets no one rename what they do not own, so it is safe as long
 * as what is in it is ours: the folder below is checked in its turn.
 */
static void writable_above(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	out[0] = '\0';
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return;
	while ((slash = strrchr(dir, '/')) && slash[1]) {
		slash[slash == dir] = '\0';
		if (stat(dir, &st) != 0)
			continue;
		if ((st.st_uid != geteuid() && st.st_uid != 0) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			snprintf(out, size, "%s", dir);
			return;
		}
	}
}

/*
 * The folder's absolute path (for the shim), checked to name the folder
 * opened, and short enough for the shim; its mode, owner and identity as
 * found, and who else may change the folders above it.
 */
static int finish(struct ct_run_dir *d, const char *path)
{
	struct stat fst, pst;

	if (fstat(d->fd, &fst) != 0)
		return -errno;
	d->mode = fst.st_mode & 07777;
	d->uid = fst.st_uid;
	d->dev = fst.st_dev;
	d->ino = fst.st_ino;
	if (!realpath(path, d->path))
		return -errno;
	if (stat(d->path, &pst) != 0)
		return -errno;
	if (pst.st_dev != fst.st_dev || pst.st_ino != fst.st_ino)
		return -ESTALE; /* swapped while being opened */
	if (strlen(d->path) > CT_TRACE_DIR_MAX)
		return -ENAMETOOLONG;
	if (faccessat(d->fd, ".", W_OK | X_OK, 0) != 0)
		return -errno;
	writable_above(d->path, d->writable_above, sizeof(d->writable_above));
	return 0;
}

bool ct_run_dir_replaced(const struct ct_run_dir *d)
{
	struct stat st;

	return d->fd >= 0 && (lstat(d->path, &st) != 0 || !S_ISDIR(st.st_mode) ||
			      st.st_dev != d->dev || st.st_ino != d->ino);
}

int ct_run_dir_open(struct ct_run_dir *d, const char *path)
{
	char name[NAME_MAX + 1], *prefix = NULL;
	size_t *made = NULL, nmade = 0, n;
	const char *p = path, *next;
	bool is_path_fd = true;
	int fd, nfd, err = 0;

	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (; *p; p = next) {
		bool last;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto out;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		for (next = p + n; *next == '/'; next++)
			;
		last = *next == '\0';
		/* Folders above are followed as named; the last one never. */
		nfd = openat(fd, name, last ? DIR_FLAGS : O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT) {
			if (mkdirat(fd, name, 0700) == 0) {
				made = ct_xrealloc(made, (nmade + 1) * sizeof(*made));
				made[nmade++] = (size_t)(p + n - path);
				nfd = open_made(fd, name);
				if (nfd < 0) {
					err = nfd;
					goto out;
				}
				d->created = last;
			} else if (errno == EEXIST) {
				nfd = openat(fd, name, last ? DIR_FLAGS
							    : O_PATH | O_DIRECTORY | O_CLOEXEC);
			}
		}
		if (nfd < 0) {
			struct stat st;

			err = -errno;
			if (err == -ENOTDIR && last &&
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				err = -ELOOP;
			goto out;
		}
		close(fd);
		fd = nfd;
		is_path_fd = !last;
	}
	if (is_path_fd) { /* "/", ".", or a path ending in "." */
		nfd = openat(fd, ".", DIR_FLAGS);
		if (nfd < 0) {
			err = -errno;
			goto out;
		}
		close(fd);
		fd = nfd;
	}
	d->fd = fd;
	fd = -1;
	err = finish(d, path);
	d->nmade = (unsigned)nmade;
out:
	if (fd >= 0)
		close(fd);
	if (err) {
		if (d->fd >= 0)
			close(d->fd);
		d->fd = -1;
		d->created = false;
		/* Leave nothing behind: the folders made here, deepest first. */
		prefix = ct_xstrdup(path);
		while (nmade-- > 0) {
			prefix[made[nmade]] = '\0';
			rmdir(prefix);
		}
	}
	free(prefix);
	free(made);
	return err;
}

void ct_run_dir_unmake(struct ct_run_dir *d)
{
	char path[PATH_MAX], *slash;
	struct stat st;
	unsigned i;

	if (d->fd < 0 || d->private_dir || !d->nmade)
		goto out;
	snprintf(path, sizeof(path), "%s", d->path);
	/* The folder itself only while its name is still it (not swapped for another). */
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_dev != d->dev ||
	    st.st_ino != d->ino)
		goto out;
	for (i = 0; i < d->nmade; i++) {
		if (rmdir(path) != 0)
			break;
		if (!(slash = strrchr(path, '/')) || slash == path)
			break;
		*slash = '\0';
	}
out:
	ct_run_dir_close(d);
}

int ct_run_dir_private(struct ct_run_dir *d, const char *tmpdir)
{
	char tmpl[PATH_MAX];
	struct stat st;
	int err;

	if (snprintf(tmpl, sizeof(tmpl), "%s/cudatrace.XXXXXX", tmpdir) >= (int)sizeof(tmpl))
		return -ENAMETOOLONG;
	if (!mkdtemp(tmpl))
		return -errno;
	d->private_dir = true;
	d->created = true;
	d->fd = open(tmpl, DIR_FLAGS);
	if (d->fd < 0)
		err = -errno;
	else if (fstat(d->fd, &st) != 0)
		err = -errno;
	else if (st.st_uid != geteuid())
		err = -EPERM; /* not the folder mkdtemp made */
	else if (fchmod(d->fd, 0700) != 0)
		err = -errno;
	else
		err = finish(d, tmpl);
	if (err) {
		if (d->fd >= 0)
			close(d->fd);
		d->fd = -1;
		rmdir(tmpl);
	}
	return err;
}

FILE *ct_run_dir_create(const struct ct_run_dir *d, const char *stem, const char *suffix,
			char *used_name, size_t size)
{
	/* O_EXCL|O_NOFOLLOW: nothing planted is followed, truncated or opened. */
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = -1, k, err;
	FILE *f;

	for (k = 0; k < 10 && fd < 0; k++) {
		int n = k ? snprintf(used_name, size, "%s.%d%s", stem, k, suffix)
			  : snprintf(used_name, size, "%s%s", stem, suffix);

		if (n < 0 || (size_t)n >= size || strchr(used_name, '/')) {
			errno = EINVAL;
			return NULL;
		}
		fd = openat(d->fd, used_name, flags, 0600);
		if (fd < 0 && errno != EEXIST)
			return NULL;
	}
	if (fd < 0) {
		errno = EEXIST;
		return NULL;
	}
	if (fchmod(fd, 0600) != 0 || !(f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlinkat(d->fd, used_name, 0);
		errno = err;
		return NULL;
	}
	return f;
}

void ct_run_dir_unlink(const struct ct_run_dir *d, const char *name)
{
	unlinkat(d->fd, name, 0);
}

/* A stream of the folder's names, through the descriptor. */
static DIR *list(const struct ct_run_dir *d)
{
	int fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	if (!(dir = fdopendir(fd)))
		close(fd);
	return dir;
}

bool ct_run_dir_recorded(const struct ct_run_dir *d, const char *host, long pid,
			 time_t since)
{
	char prefix[320];
	struct dirent *de;
	bool found = false;
	size_t plen;
	DIR *dir;

	snprintf(prefix, sizeof(prefix), "%s-%ld-", host, pid);
	plen = strlen(prefix);
	if (!(dir = list(d)))
		return false;
	while (!found && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct stat st;

		found = n > plen + 6 && strncmp(de->d_name, prefix, plen) == 0 &&
			strcmp(de->d_name + n - 6, ".jsonl") == 0 &&
			fstatat(d->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISREG(st.st_mode) && st.st_size > 0 && st.st_mtime >= since;
	}
	closedir(dir);
	return found;
}

const char *ct_run_dir_why_unwritable(const struct ct_run_dir *d)
{
	struct statvfs v;
	bool root = geteuid() == 0; /* may use the blocks kept for root */

	if (fstatvfs(d->fd, &v) == 0) {
		if (v.f_flag & ST_RDONLY)
			return "the trace directory is on a read-only file system";
		if ((root ? v.f_bfree : v.f_bavail) == 0)
			return "the trace directory's disk is full";
		if (v.f_files && (root ? v.f_ffree : v.f_favail) == 0)
			return "the trace directory's file system has no free inodes";
	}
	if (faccessat(d->fd, ".", W_OK | X_OK, 0) != 0)
		return "the trace directory is not writable";
	return NULL;
}

/* Why the folder could not be read, with the limit that ran out when one did. */
static void say_unreadable(const struct ct_run_dir *d, int err, char *why, size_t size)
{
	struct rlimit lim;

	if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &lim) == 0 &&
	    lim.rlim_cur != RLIM_INFINITY)
		snprintf(why, size, "cannot read trace directory '%s': %s (cudatrace's open "
			 "file limit, ulimit -n, is %llu)", d->path, strerror(err),
			 (unsigned long long)lim.rlim_cur);
	else
		snprintf(why, size, "cannot read trace directory '%s': %s", d->path,
			 strerror(err));
}

int ct_run_dir_read(const struct ct_run_dir *d, struct ct_trace *t, char *why, size_t size)
{
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), rc = -1;
	char self[64];

	/* Only this user's files: others who may write to a shared folder could
	 * plant forged traces (the shim makes its own 0600 and writes into
	 * nothing else). */
	t->only_owner = true;
	t->owner = geteuid();
	t->one_link = true;
	/*
	 * A working directory this user may not even open (a folder made 000
	 * since, another user's home left by su): the folder's own descriptor
	 * by its /proc name, which no rename can redirect either.
	 */
	if (cwd < 0) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", d->fd);
		if (access(self, F_OK) == 0) {
			rc = ct_trace_read_dir(t, self, why, size);
			if (rc != 0)
				say_unreadable(d, errno, why, size);
			return rc;
		}
	}
	/* The folder itself as ".", so a name swapped since cannot redirect. */
	if (cwd < 0 || fchdir(d->fd) != 0) {
		say_unreadable(d, errno, why, size);
	} else {
		rc = ct_trace_read_dir(t, ".", why, size);
		if (rc != 0)
			say_unreadable(d, errno, why, size);
		if (fchdir(cwd) != 0) {
			snprintf(why, size, "cannot return to the working directory: %s",
				 strerror(errno));
			rc = -1;
		}
	}
	if (cwd >= 0)
		close(cwd);
	return rc;
}

/* What getdents64 gives: the kernel's own record (no libc wrapper needed). */
struct dirent64_rec {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x1000U /* Linux 5.8; older headers lack it */
#endif

/* Folders below the one emptied that are emptied too; deeper ones are left. */
#define EMPTY_DEPTH 16

/*
 * The mount a descriptor's file is on (statx's mount id), or 0 when the
 * kernel does not say (before Linux 5.8): then no folder is entered.
 */
static uint64_t mount_id(int fd)
{
	struct statx stx;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		    &stx) != 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

/*
 * Empty the folder open on fd, depth levels below the one
 * ct_run_dir_empty was given; mnt is that one's mount. A folder in it is
 * entered by descriptor (openat with O_NOFOLLOW and O_DIRECTORY: a link
 * is never followed, nothing but a folder is opened), only on the same
 * mount (a file system mounted inside is never emptied), and removed
 * once empty. 0 when fd's folder is now empty, else -errno of what stayed.
 */
static int empty_at(int fd, uint64_t mnt, int depth)
{
	/* The names are read through a descriptor of its own: fd's offset stays. */
	int list_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed, left;
	char buf[1024] __attribute__((aligned(8)));
	long n;

	if (list_fd < 0)
		return -errno;
	/* Again until a pass removes nothing: names removed under a read. */
	do {
		removed = 0;
		left = 0;
		if (lseek(list_fd, 0, SEEK_SET) != 0) {
			left = -errno;
			break;
		}
		while ((n = syscall(SYS_getdents64, list_fd, buf, sizeof(buf))) > 0) {
			long pos;

			for (pos = 0; pos < n;) {
				const struct dirent64_rec *de = (const void *)(buf + pos);
				int sub, err;

				pos += de->reclen;
				if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0)
					continue;
				/* unlinkat never follows a link: a planted one goes, its target stays. */
				if (unlinkat(fd, de->name, 0) == 0) {
					removed = 1;
					continue;
				}
				err = errno;
				if (err == EISDIR) {
					if (unlinkat(fd, de->name, AT_REMOVEDIR) == 0) {
						removed = 1;
						continue;
					}
					err = errno;
				}
				if ((err == ENOTEMPTY || err == EEXIST) && depth < EMPTY_DEPTH && mnt) {
					sub = openat(fd, de->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
									   O_CLOEXEC | O_NONBLOCK);
					if (sub >= 0) {
						if (mount_id(sub) == mnt)
							err = -empty_at(sub, mnt, depth + 1);
						else
							err = EBUSY; /* a mount inside: never emptied */
						close(sub);
						if (err == 0 && unlinkat(fd, de->name, AT_REMOVEDIR) == 0) {
							removed = 1;
							continue;
						}
						if (err == 0)
							err = errno;
					} else {
						err = errno;
					}
				}
				if (!left)
					left = -err;
			}
		}
		if (n < 0 && !left)
			left = -errno;
	} while (removed);
	close(list_fd);
	return left;
}

int ct_run_dir_empty(int fd)
{
	return empty_at(fd, mount_id(fd), 0);
}

int ct_run_dir_remove(const struct ct_run_dir *d)
{
	struct stat a, b;
	int saved = errno, err;

	if (d->fd < 0 || !d->private_dir)
		return 0;
	err = ct_run_dir_empty(d->fd);
	/* Its name, only while it still names this folder (not a link). */
	if (fstat(d->fd, &a) != 0) {
		if (!err)
			err = -errno;
	} else if (fstatat(AT_FDCWD, d->path, &b, AT_SYMLINK_NOFOLLOW) != 0) {
		/* Gone already (removed before, or by someone else): nothing left of it here. */
		if (errno != ENOENT && !err)
			err = -errno;
	} else if (S_ISDIR(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		if (rmdir(d->path) != 0 && !err)
			err = -errno;
	}
	errno = saved;
	return err;
}

void ct_run_dir_close(struct ct_run_dir *d)
{
	if (d->fd < 0)
		return;
	ct_run_dir_remove(d);
	close(d->fd);
	d->fd = -1;
}

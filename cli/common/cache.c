/* Facts about a file kept between runs; see cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"

/* A header line and a record: what an entry may hold, all of it. */
#define RECORD_MAX 3072u
#define ENTRY_MAX 4096u

void ct_cache_key_of(struct ct_cache_key *k, const struct stat *st)
{
	memset(k, 0, sizeof(*k));
	k->dev = (unsigned long long)st->st_dev;
	k->ino = (unsigned long long)st->st_ino;
	k->size = (unsigned long long)st->st_size;
	k->mtime_s = (long long)st->st_mtim.tv_sec;
	k->mtime_ns = st->st_mtim.tv_nsec;
	k->ctime_s = (long long)st->st_ctim.tv_sec;
	k->ctime_ns = st->st_ctim.tv_nsec;
}

int ct_cache_key_same(const struct ct_cache_key *a, const struct ct_cache_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

/* The running cudatrace binary, as a key: what a record was worked out by. */
static struct ct_cache_key writer;
static bool writer_known;
static pthread_once_t writer_once = PTHREAD_ONCE_INIT;

static void read_writer(void)
{
	struct stat st;

	if (stat("/proc/self/exe", &st) == 0) {
		ct_cache_key_of(&writer, &st);
		writer_known = true;
	}
}

/* The line every entry starts with: what it is about, and by whom. */
static int header(char *buf, size_t size, const char *kind,
		  const struct ct_cache_key *k)
{
	int n = snprintf(buf, size,
			 "cudatrace-cache %s %llx:%llx:%llu:%lld.%09ld:%lld.%09ld "
			 "by %llx:%llx:%llu:%lld.%09ld\n",
			 kind, k->dev, k->ino, k->size, k->mtime_s, k->mtime_ns,
			 k->ctime_s, k->ctime_ns, writer.dev, writer.ino, writer.size,
			 writer.mtime_s, writer.mtime_ns);

	return n > 0 && (size_t)n < size ? n : -1;
}

/* A folder descriptor is the effective user's, and with private also theirs alone. */
static bool owned(int fd, bool private)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (!private || (st.st_mode & 077) == 0);
}

/*
 * The folder the cache folder lives in, O_PATH, when it is the effective
 * user's; with create, made (0700) in a parent of theirs when missing.
 */
static int open_base(bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char path[PATH_MAX], *slash;
	int n, fd, pfd;

	if (xdg && xdg[0] == '/')
		n = snprintf(path, sizeof(path), "%s", xdg);
	else if (home && home[0] == '/')
		n = snprintf(path, sizeof(path), "%s/.cache", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && (slash = strrchr(path, '/')) &&
	    slash[1]) {
		*slash = '\0';
		pfd = open(slash == path ? "/" : path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (pfd >= 0 && owned(pfd, false) &&
		    (mkdirat(pfd, slash + 1, 0700) == 0 || errno == EEXIST))
			fd = openat(pfd, slash + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pfd >= 0)
			close(pfd);
	}
	if (fd >= 0 && !owned(fd, false)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The cache folder, O_PATH, checked: the effective user's alone. */
static int open_cache(bool create)
{
	const char *off = getenv("CUDATRACE_CACHE");
	int base, fd;

	if (off && strcmp(off, "off") == 0)
		return -1;
	pthread_once(&writer_once, read_writer);
	if (!writer_known || (base = open_base(create)) < 0)
		return -1;
	fd = openat(base, "cudatrace", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && mkdirat(base, "cudatrace", 0700) == 0)
		fd = openat(base, "cudatrace", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(base);
	if (fd >= 0 && !owned(fd, true)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int entry_name(char *buf, size_t size, const char *kind,
		      const struct ct_cache_key *k)
{
	int n = snprintf(buf, size, "%s-%llx-%llx", kind, k->dev, k->ino);

	return n > 0 && (size_t)n < size ? 0 : -1;
}

ssize_t ct_cache_get(const char *kind, const struct ct_cache_key *k, char *buf,
		     size_t size)
{
	char name[128], want[256], entry[ENTRY_MAX + 1];
	struct stat st;
	ssize_t got = -1, n = 0, r;
	int dir, fd = -1, h;

	if (!size || (dir = open_cache(false)) < 0)
		return -1;
	if (entry_name(name, sizeof(name), kind, k) != 0 ||
	    (h = header(want, sizeof(want), kind, k)) < 0)
		goto out;
	/*
	 * A folder only its owner writes to: nothing else can be at the
	 * name, and O_NOFOLLOW, O_NONBLOCK and the fstat below refuse
	 * whatever the owner put there that is no entry.
	 */
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) || st.st_size > ENTRY_MAX)
		goto out;
	while ((size_t)n < sizeof(entry) - 1 &&
	       ((r = read(fd, entry + n, sizeof(entry) - 1 - (size_t)n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	entry[n] = '\0';
	if (n < h || memcmp(entry, want, (size_t)h) != 0 ||
	    strlen(entry) != (size_t)n || (size_t)(n - h) >= size)
		goto out;
	memcpy(buf, entry + h, (size_t)(n - h) + 1);
	got = n - h;
out:
	if (fd >= 0)
		close(fd);
	close(dir);
	return got;
}

int ct_cache_put(const char *kind, const struct ct_cache_key *k, const char *rec,
		 size_t len)
{
	static unsigned long seq;
	char name[128], tmp[192], entry[ENTRY_MAX];
	struct timespec now;
	size_t n, done = 0;
	int dir, fd, h, rc = -1;

	if (len > RECORD_MAX || memchr(rec, '\0', len) || (dir = open_cache(true)) < 0)
		return -1;
	if (entry_name(name, sizeof(name), kind, k) != 0 ||
	    (h = header(entry, sizeof(entry), kind, k)) < 0 ||
	    (size_t)h + len > sizeof(entry))
		goto out;
	memcpy(entry + h, rec, len);
	n = (size_t)h + len;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.%lu.%lx", name, (long)getpid(),
		 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), (unsigned long)now.tv_nsec);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	while (done < n) {
		ssize_t w = write(fd, entry + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (close(fd) == 0 && done == n && renameat(dir, tmp, dir, name) == 0)
		rc = 0;
	else
		unlinkat(dir, tmp, 0);
out:
	close(dir);
	return rc;
}

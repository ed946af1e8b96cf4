/*
 * The trace file and its records (docs/trace-format.md).
 *
 * One file per process: $CUDATRACE_DIR/<host>-<pid>-<tag>.jsonl. Two
 * copies of this code write to it, the auditor and the preload, in
 * separate namespaces that share no memory: they agree on the name
 * because both derive it from the kernel's per-exec AT_RANDOM bytes,
 * keyed through SipHash with the pid, so that nobody else can know it in
 * advance (a fork child's name cannot be guessed from its parent's), and
 * the published image id reveals nothing of those bytes (glibc's stack
 * and pointer guards come from them).
 *
 * Every record is opened, written with one write(2) and closed again:
 * holding a descriptor would take one from a program that counts them or
 * closes them all, and would be lost to the program's own
 * close/dup2 (interpose.md 3.6). A record cut short by a crash is the
 * reader's problem; nothing is buffered, so _exit(127) loses nothing.
 * Only a file this process made is written to: opened without following
 * links or blocking, and checked to be the same regular file every time
 * (the folder may be shared with people who swap files in it). And only in
 * the folder cudatrace run made and checked: it is opened by name for each
 * record, never through a link, and must be the same folder (device and
 * inode, CUDATRACE_DIR_ID) before anything is opened or made relative to
 * it; someone who may write to the folder above could swap it for a link
 * while the program runs, and a root program would then make root's files
 * wherever it points. A record refused so is lost and counted.
 *
 * Shared state is only what is the same for every process this image
 * forks (directory, host, key), or tagged with the pid it belongs to: a
 * fork child starts with a copy of it, a vfork child writes through its
 * parent's memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ct_utf8.h"
#include "ct_limits.h"
#include "shim.h"

#ifndef CUDATRACE_VERSION
#define CUDATRACE_VERSION "0.0.0"
#endif

/* Trace schema version, in every start record. */
#define CT_SCHEMA 1

/* The longest start record, and the room kept under RLIMIT_FSIZE (ct_limits.h). */
#define START_MAX CT_SHIM_START_MAX
#define FSIZE_SPARE CT_SHIM_FSIZE_SPARE
#define PATH_LEN CT_SHIM_PATH_MAX

bool ct_is_auditor;

/*
 * state: ST_* in the low bits; while initialising, the initialising
 * thread's id above them, so that a fork child, where that thread does
 * not exist, can take over instead of waiting for it forever.
 */
enum { ST_NEW, ST_INITIALISING, ST_ON, ST_OFF };
#define ST_MASK 3
#define ST_SHIFT 2
static int state = ST_NEW;

static char dir[CT_SHIM_DIR_BUF];
/*
 * The folder's identity: CUDATRACE_DIR_ID ("<dev>:<ino>", decimal, as
 * cudatrace run found it), or without it as this image found it first.
 */
static uint64_t dir_dev, dir_ino;
static bool dir_known;
static char host[128];
static unsigned char key[16]; /* AT_RANDOM: never written anywhere */
static char image[24];
/* CUDATRACE_RUN: the run of cudatrace that started us, 1 to 32 hex digits; "": none. */
static char run[40];

/* The file this process made: its pid (0: none yet), device and inode. */
static int mine_pid;
static uint64_t mine_dev, mine_ino;
/* Records lost since the last one written: count, and pid << 32. */
static uint64_t dropped;

/* --- formatting ---------------------------------------------------------- */

/*
 * Room kept at the end of every record for what closes it: a string's
 * quote, a few brackets and ',"truncated":true}\n'.
 */
#define RESERVE 40

static bool fits(const struct ct_rec *r, size_t n)
{
	return !r->frozen && r->n + n <= r->cap - RESERVE;
}

/* Out of room inside a field: drop the field, write only closers now. */
static void freeze(struct ct_rec *r)
{
	r->n = r->mark;
	r->frozen = true;
	r->truncated = true;
}

static bool put(struct ct_rec *r, const char *s, size_t n)
{
	if (!fits(r, n)) {
		freeze(r);
		return false;
	}
	ct_memcpy(r->buf + r->n, s, n);
	r->n += n;
	return true;
}

static bool putc_(struct ct_rec *r, char c)
{
	return put(r, &c, 1);
}

static bool put_u64(struct ct_rec *r, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return put(r, tmp + i, sizeof(tmp) - (size_t)i);
}

/*
 * A JSON string's content; one too long for the room left is cut, still
 * valid. False when it was cut.
 */
static bool put_escaped(struct ct_rec *r, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = u[i];
		char e[6];
		size_t len, elen;
		const char *out;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			/* A run of printable ASCII needs no escaping: copied whole. */
			size_t plain = 1;

			while (i + plain < n && u[i + plain] >= 0x20 && u[i + plain] < 0x7f &&
			       u[i + plain] != '"' && u[i + plain] != '\\')
				plain++;
			if (!fits(r, plain + 1)) {
				/* What fits of it, keeping the closing quote's byte. */
				size_t left = r->frozen || r->n + RESERVE + 1 >= r->cap ? 0
					    : r->cap - RESERVE - 1 - r->n;

				ct_memcpy(r->buf + r->n, s + i, left < plain ? left : plain);
				r->n += left < plain ? left : plain;
				r->truncated = true;
				return false;
			}
			ct_memcpy(r->buf + r->n, s + i, plain);
			r->n += plain;
			i += plain;
			continue;
		}
		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			out = e;
			elen = 2;
			len = 1;
		} else if (c < 0x20 || c == 0x7f ||
			   (len = ct_utf8_len(u + i, n - i)) == 0) {
			e[0] = '\\';
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			out = e;
			elen = 6;
			len = 1;
		} else {
			out = s + i;
			elen = len;
		}
		/* Keep one byte for the closing quote. */
		if (!fits(r, elen + 1)) {
			r->truncated = true;
			return false;
		}
		put(r, out, elen);
		i += len;
	}
	return true;
}

static void put_string(struct ct_rec *r, const char *s, size_t n)
{
	if (!putc_(r, '"'))
		return;
	put_escaped(r, s, n);
	r->buf[r->n++] = '"';
}

/*
 * A value that may name URLs with credentials (a PATH-like list can hold
 * https://user:token@host/...): the user information, up to the last '@'
 * before the path, is written as "***".
 */
static void put_masked(struct ct_rec *r, const char *s, size_t n)
{
	size_t i = 0, from = 0;

	if (!putc_(r, '"'))
		return;
	while (i + 3 <= n) {
		size_t a = i + 3, k, at = 0;

		if (s[i] != ':' || s[i + 1] != '/' || s[i + 2] != '/') {
			i++;
			continue;
		}
		for (k = a; k < n && s[k] != '/'; k++)
			if (s[k] == '@')
				at = k;
		if (at) {
			if (!put_escaped(r, s + from, a - from) ||
			    !put_escaped(r, "***", 3))
				goto close;
			from = at;
		}
		i = at ? at : a;
	}
	put_escaped(r, s + from, n - from);
close:
	r->buf[r->n++] = '"';
}

/* Starts a field: separator and key. False when there is no room. */
static bool field(struct ct_rec *r, const char *k)
{
	if (r->frozen)
		return false;
	r->mark = r->n;
	if (!r->first && !putc_(r, ','))
		return false;
	r->first = false;
	if (k) {
		put_string(r, k, ct_strlen(k));
		if (r->truncated && r->n == r->mark) /* the key itself did not fit */
			return false;
		if (!putc_(r, ':'))
			return false;
	}
	return true;
}

void ct_rec_strn(struct ct_rec *r, const char *k, const char *val, size_t n)
{
	if (!field(r, k))
		return;
	if (val)
		put_string(r, val, n);
	else
		put(r, "null", 4);
}

void ct_rec_str(struct ct_rec *r, const char *k, const char *val)
{
	ct_rec_strn(r, k, val, val ? ct_strlen(val) : 0);
}

void ct_rec_u64(struct ct_rec *r, const char *k, uint64_t v)
{
	if (field(r, k))
		put_u64(r, v);
}

void ct_rec_i64(struct ct_rec *r, const char *k, int64_t v)
{
	if (!field(r, k))
		return;
	if (v < 0) {
		if (putc_(r, '-'))
			put_u64(r, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(r, (uint64_t)v);
	}
}

void ct_rec_bool(struct ct_rec *r, const char *k, bool v)
{
	if (field(r, k))
		put(r, v ? "true" : "false", v ? 4 : 5);
}

void ct_rec_open(struct ct_rec *r, const char *k, char bracket)
{
	if (field(r, k) && putc_(r, bracket)) {
		r->first = true;
		return;
	}
	r->skipped++; /* left out whole; its close writes nothing */
}

void ct_rec_close(struct ct_rec *r, char bracket)
{
	if (r->skipped) {
		r->skipped--;
		return;
	}
	/* Closers always fit: they come out of the reserve. */
	r->buf[r->n++] = bracket;
	r->first = false;
}

/* Ends the record in its buffer: truncation mark, brace, newline. */
static void finish(struct ct_rec *r)
{
	static const char mark[] = ",\"truncated\":true";

	if (r->truncated)
		for (size_t i = 0; mark[i]; i++)
			r->buf[r->n++] = mark[i];
	r->buf[r->n++] = '}';
	r->buf[r->n++] = '\n';
}

/* --- the file -------------------------------------------------------------- */

static void put_hex(char *out, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 15; i >= 0; i--, v >>= 4)
		out[i] = hex[v & 15];
	out[16] = '\0';
}

static void copy(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* Once per image, and again in a fork child that caught it half done. */
/*
 * The run id cudatrace run put in the environment. Only hex digits are
 * taken, so the value needs no escaping; anything else is no run id.
 */
static void read_run(void)
{
	long n = ct_initial_env("CUDATRACE_RUN", run, sizeof(run));
	long i;

	for (i = 0; i < n && i <= 32; i++)
		if (!((run[i] >= '0' && run[i] <= '9') || (run[i] >= 'a' && run[i] <= 'f')))
			break;
	if (n < 1 || n > 32 || i != n)
		run[0] = '\0';
}

/* CUDATRACE_DIR_ID into dir_dev, dir_ino: 1, 0 when unset, -1 when malformed. */
static int read_dir_id(void)
{
	char v[48];
	long n = ct_initial_env("CUDATRACE_DIR_ID", v, sizeof(v));
	uint64_t num[2] = { 0, 0 };
	long i;
	int k = 0;

	if (n < 0)
		return 0;
	if (n < 3)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] == ':' && k == 0 && i > 0) {
			k = 1;
		} else if (v[i] >= '0' && v[i] <= '9' && num[k] <= (UINT64_MAX - 9) / 10) {
			num[k] = num[k] * 10 + (uint64_t)(v[i] - '0');
		} else {
			return -1;
		}
	}
	if (k != 1 || v[n - 1] == ':')
		return -1;
	dir_dev = num[0];
	dir_ino = num[1];
	return 1;
}

static void init(void)
{
	int pid = (int)syscall(SYS_getpid), tid = (int)syscall(SYS_gettid);
	int cur = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	const unsigned char *rnd;
	struct utsname u;
	size_t i;

	for (;;) {
		int st = cur & ST_MASK, owner = cur >> ST_SHIFT;

		if (st == ST_ON || st == ST_OFF)
			return;
		if (st == ST_INITIALISING) {
			/* A signal handler on the initialising thread: no record. */
			if (owner == tid)
				return;
			/* Another thread of this process: wait the microseconds it takes. */
			if (syscall(SYS_tgkill, pid, owner, 0) == 0 || errno != ESRCH) {
				syscall(SYS_sched_yield);
				cur = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
				continue;
			}
			/* It is not in this process: we are a fork child; take over. */
		}
		if (__atomic_compare_exchange_n(&state, &cur,
						tid << ST_SHIFT | ST_INITIALISING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	rnd = (const unsigned char *)getauxval(AT_RANDOM);
	/* Room for "/<host>-<pid>-<tag>.jsonl" after the directory (ct_limits.h). */
	if (!rnd || ct_initial_env("CUDATRACE_DIR", dir, CT_TRACE_DIR_MAX + 1) < 0 ||
	    dir[0] != '/') {
		__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
		return;
	}
	/* Given but unreadable: no folder can be checked, nothing is written. */
	switch (read_dir_id()) {
	case -1:
		__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
		return;
	case 1:
		__atomic_store_n(&dir_known, true, __ATOMIC_RELEASE);
		break;
	}
	copy(host, sizeof(host), uname(&u) == 0 ? u.nodename : "unknown");
	for (i = 0; i < sizeof(key); i++)
		key[i] = rnd[i];
	put_hex(image, ct_siphash(key, "image", 5));
	read_run();
	__atomic_store_n(&state, ST_ON, __ATOMIC_RELEASE);
}

static bool tracing(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE) & ST_MASK;

	if (s == ST_NEW || s == ST_INITIALISING) {
		init();
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE) & ST_MASK;
	}
	return s == ST_ON;
}

static void stop_tracing(void)
{
	__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
}

/* "<host>-<pid>-<tag>.jsonl", the file's name in the folder, into buf. */
static void trace_name(char *buf, size_t size, int pid)
{
	struct ct_rec tmp; /* reuse the formatter without JSON quoting */
	unsigned char salt[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 'n', 'a', 'm', 'e' };
	char tag[17];
	size_t n;
	int i;

	for (i = 0; i < 8; i++)
		salt[i] = (unsigned char)((uint64_t)(unsigned)pid >> (8 * i));
	put_hex(tag, ct_siphash(key, salt, sizeof(salt)));
	tmp.n = 0;
	tmp.mark = 0;
	tmp.cap = sizeof(tmp.small);
	tmp.buf = tmp.small;
	tmp.truncated = false;
	tmp.frozen = false;
	put(&tmp, host, ct_strlen(host));
	putc_(&tmp, '-');
	put_u64(&tmp, (uint64_t)pid);
	putc_(&tmp, '-');
	put(&tmp, tag, 16);
	put(&tmp, ".jsonl", 6);
	n = tmp.n < size - 1 ? tmp.n : size - 1;
	for (size_t k = 0; k < n; k++)
		buf[k] = tmp.buf[k];
	buf[n] = '\0';
}

/*
 * Errors after which no later write can succeed, or must not: EEXIST
 * here means the name holds something this process did not make.
 */
static bool permanent(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EFBIG || err == EACCES ||
	       err == EROFS || err == ENOENT || err == ENOTDIR || err == EPERM ||
	       err == ELOOP || err == EIO || err == ENXIO || err == EISDIR ||
	       err == ENAMETOOLONG || err == ENODEV || err == EEXIST;
}

/* Count n records of this process as lost. */
static void lose(int pid, unsigned n)
{
	uint64_t v = __atomic_load_n(&dropped, __ATOMIC_RELAXED), nv;

	do {
		nv = (int)(v >> 32) == pid ? v + n : (uint64_t)(unsigned)pid << 32 | n;
	} while (!__atomic_compare_exchange_n(&dropped, &v, nv, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* The records of this process lost so far, now owed to the trace. */
static unsigned take_lost(int pid)
{
	uint64_t v = __atomic_load_n(&dropped, __ATOMIC_RELAXED);

	do {
		if ((int)(v >> 32) != pid || (uint32_t)v == 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&dropped, &v, (uint64_t)(unsigned)pid << 32,
					      false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return (uint32_t)v;
}

static int fstat_fd(int fd, struct stat *st)
{
	/* Not fstat(): glibc 2.33 made it a symbol of that version. */
	return (int)syscall(SYS_fstat, fd, st);
}

/*
 * The trace folder, opened for one record (O_PATH: what is made or opened
 * in it goes relative to this descriptor). -EXDEV when its name is now
 * something else: a link (never followed), not a folder, or another
 * folder than the one cudatrace run made (the record is refused, and
 * counted: the name may be put back). Otherwise a descriptor or -errno.
 */
static int open_dir(void)
{
	struct stat st;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EXDEV : -errno;
	if (fstat_fd(dfd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(dfd);
		return -EXDEV;
	}
	if (!__atomic_load_n(&dir_known, __ATOMIC_ACQUIRE)) {
		/* Not run by cudatrace: the folder this image found first. */
		__atomic_store_n(&dir_dev, (uint64_t)st.st_dev, __ATOMIC_RELAXED);
		__atomic_store_n(&dir_ino, (uint64_t)st.st_ino, __ATOMIC_RELAXED);
		__atomic_store_n(&dir_known, true, __ATOMIC_RELEASE);
	} else if ((uint64_t)st.st_dev != __atomic_load_n(&dir_dev, __ATOMIC_RELAXED) ||
		   (uint64_t)st.st_ino != __atomic_load_n(&dir_ino, __ATOMIC_RELAXED)) {
		close(dfd);
		return -EXDEV;
	}
	return dfd;
}

/* The start record, built before its file exists (start_build, below). */
struct start {
	char *mem;
	size_t size;
	struct ct_rec *rec; /* in the mapping too: hooks run on small stacks */
};
static bool start_build(struct start *st, int pid);
static void start_release(struct start *st);
static bool room(int fd, size_t len, size_t spare);

/* A new file name in the folder dfd holding the start record; flags as open_trace's. */
static int create_at(int dfd, const char *name, int flags, const struct start *s)
{
	struct stat st;
	int fd = openat(dfd, name, flags | O_CREAT | O_EXCL, 0600);

	if (fd < 0)
		return -errno;
	/* 0600 whatever the umask. */
	if (fstat_fd(fd, &st) == 0 && (st.st_mode & 07777) != 0600)
		fchmod(fd, 0600);
	if (!room(fd, s->rec->n, FSIZE_SPARE) ||
	    write(fd, s->rec->buf, s->rec->n) != (ssize_t)s->rec->n) {
		close(fd);
		return -EFBIG;
	}
	return fd;
}

/*
 * Makes this process's trace file with its start record already in it:
 * written to a file with no name yet (O_TMPFILE), then linked into place,
 * which never replaces anything, so that no one sees the file without its
 * first record, and a thread killed half way leaves nothing behind.
 * Returns a descriptor, or -errno (-EEXIST: someone was first).
 */
static int create_trace(int dfd, const char *name, int pid, int flags)
{
	char self[40];
	struct start s;
	int fd, err;

	if (!start_build(&s, pid))
		return -ENOMEM;
	fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0) {
		struct stat st;

		ct_fd_path(fd, self);
		if (fstat_fd(fd, &st) == 0 && (st.st_mode & 07777) != 0600)
			fchmod(fd, 0600);
		if (!room(fd, s.rec->n, FSIZE_SPARE) ||
		    write(fd, s.rec->buf, s.rec->n) != (ssize_t)s.rec->n) {
			close(fd);
			fd = -EFBIG;
		} else if (linkat(AT_FDCWD, self, dfd, name, AT_SYMLINK_FOLLOW) != 0) {
			err = errno;
			close(fd);
			fd = -err;
		}
	} else {
		/* A file system without it: create in place (the start may come second). */
		fd = create_at(dfd, name, flags, &s);
	}
	start_release(&s);
	return fd;
}

/*
 * This process's trace file, opened for one record: created the first
 * time, after that the same regular file every time. Returns a
 * descriptor, or -errno (-EEXIST when the name holds something this
 * process did not make, -EFBIG when the start record did not fit under
 * RLIMIT_FSIZE).
 */
static int open_trace(int dfd, const char *name, int pid)
{
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
	bool known = __atomic_load_n(&mine_pid, __ATOMIC_ACQUIRE) == pid;
	struct stat st;
	int fd = openat(dfd, name, flags);

	if (fd < 0 && errno == ENOENT && !known) {
		fd = create_trace(dfd, name, pid, flags);
		if (fd >= 0)
			goto mine;
		/* Another thread, or the other copy of the shim, was first. */
		if (fd != -EEXIST)
			return fd;
		fd = openat(dfd, name, flags);
	}
	if (fd < 0)
		return -errno;
	if (fstat_fd(fd, &st) != 0)
		goto refuse;
	if (known) {
		if ((uint64_t)st.st_dev != __atomic_load_n(&mine_dev, __ATOMIC_RELAXED) ||
		    (uint64_t)st.st_ino != __atomic_load_n(&mine_ino, __ATOMIC_RELAXED))
			goto refuse; /* swapped since */
		return fd;
	}
	/*
	 * Not made by this copy: only the other copy of the shim in this
	 * process can have made it (nobody else knows the name), and it makes
	 * nothing but this.
	 */
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (st.st_mode & 077))
		goto refuse;
mine:
	if (!known && fstat_fd(fd, &st) == 0) {
		__atomic_store_n(&mine_dev, (uint64_t)st.st_dev, __ATOMIC_RELAXED);
		__atomic_store_n(&mine_ino, (uint64_t)st.st_ino, __ATOMIC_RELAXED);
		__atomic_store_n(&mine_pid, pid, __ATOMIC_RELEASE);
	}
	return fd;
refuse:
	close(fd);
	return -EEXIST;
}

/*
 * Whether len more bytes keep the file under RLIMIT_FSIZE (past it the
 * program would get SIGXFSZ), with spare bytes still left after them.
 */
static bool room(int fd, size_t len, size_t spare)
{
	struct rlimit lim;
	off_t size;

	if (getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
		return true;
	size = lseek(fd, 0, SEEK_END);
	return size >= 0 && (uint64_t)size + len + spare <= lim.rlim_cur;
}

/*
 * {"ev":"dropped"} for what this process lost, when it lost any; with
 * stopped (err) when tracing stops for good after it. False when it could
 * not be written (the count stays owed).
 */
static bool write_lost(int fd, int pid, int err)
{
	struct ct_rec r;
	char buf[256];
	unsigned n = take_lost(pid);

	if (!n && !err)
		return true;
	if (!ct_rec_begin_in(&r, "dropped", buf, sizeof(buf)))
		return false;
	ct_rec_u64(&r, "records", n);
	if (err) {
		ct_rec_bool(&r, "stopped", true);
		ct_rec_i64(&r, "errno", err);
	}
	finish(&r);
	if (room(fd, r.n, err ? 0 : FSIZE_SPARE) && write(fd, r.buf, r.n) == (ssize_t)r.n)
		return true;
	if (n)
		lose(pid, n);
	return false;
}

/* Tracing stops for good: this record and whatever comes later are lost. */
static void give_up(int fd, int pid, int err, bool said)
{
	lose(pid, 1);
	if (fd >= 0 && said)
		write_lost(fd, pid, err);
	stop_tracing();
}

/*
 * Append len bytes as one record (none: only make sure the file exists
 * and say what was lost).
 */
static void append(const char *data, size_t len)
{
	char name[PATH_LEN];
	int pid = (int)syscall(SYS_getpid), fd, dfd;
	ssize_t w;

	dfd = open_dir();
	if (dfd == -EXDEV) {
		lose(pid, 1); /* refused: not the folder cudatrace made */
		return;
	}
	if (dfd < 0) {
		if (permanent(-dfd))
			give_up(-1, pid, -dfd, false);
		else
			lose(pid, 1);
		return;
	}
	trace_name(name, sizeof(name), pid);
	fd = open_trace(dfd, name, pid);
	close(dfd);
	if (fd < 0) {
		if (permanent(-fd))
			give_up(-1, pid, -fd, false);
		else
			lose(pid, 1);
		return;
	}
	if (!room(fd, len + 256, FSIZE_SPARE)) {
		give_up(fd, pid, EFBIG, true);
		goto out;
	}
	write_lost(fd, pid, 0);
	if (!len)
		goto out;
	w = write(fd, data, len);
	if (w == (ssize_t)len)
		goto out;
	if (w >= 0) {
		/* Cut short: end the line so that the next record stands alone. */
		if (w > 0 && write(fd, "\n", 1) < 0) {
			/* nothing else to do */
		}
		errno = ENOSPC;
	}
	if (permanent(errno))
		give_up(fd, pid, errno, true);
	else
		lose(pid, 1);
out:
	close(fd);
}

bool ct_rec_begin_in(struct ct_rec *r, const char *ev, char *buf, size_t cap)
{
	struct timespec ts;

	r->n = 0;
	r->mark = 0;
	r->buf = buf;
	r->cap = cap;
	r->truncated = false;
	r->frozen = false;
	r->first = true;
	r->skipped = 0;
	if (!tracing())
		return false;
	clock_gettime(CLOCK_REALTIME, &ts);
	putc_(r, '{');
	ct_rec_str(r, "ev", ev);
	ct_rec_u64(r, "t", (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	ct_rec_u64(r, "tid", (uint64_t)syscall(SYS_gettid));
	return true;
}

bool ct_rec_begin(struct ct_rec *r, const char *ev)
{
	return ct_rec_begin_in(r, ev, r->small, sizeof(r->small));
}

void ct_rec_end(struct ct_rec *r)
{
	if (r->n == 0 || !tracing())
		return;
	finish(r);
	append(r->buf, r->n);
}

/* --- the start record ------------------------------------------------------ */

/*
 * The environment variables that shape how CUDA libraries are found and
 * loaded, by exact name; docs/trace-format.md ("privacy") lists them. No
 * other variable is ever written: tokens live in the environment.
 */
static const char *const env_names[] = {
#define CT_ENV(name) name,
#include "ct_env.def"
#undef CT_ENV
};

/*
 * The launcher's rank variables, and what places the rank in its job: the
 * Slurm step, the array and its task (the id sbatch --array printed), the
 * elastic agent's restart (an attempt of the job, not another job).
 */
static const char *const rank_names[] = {
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
	"SLURM_PROCID", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID",
	"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
	"PMI_RANK", "PMIX_RANK", "TORCHELASTIC_RESTART_COUNT",
};

/* Names no list may let through, whatever their case. */
static const char *const secret_words[] = {
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool listed(const char *name, size_t n, const char *const *list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (ct_strncmp(name, list[i], n) == 0 && list[i][n] == '\0')
			return true;
	return false;
}

static bool secret(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < COUNT(secret_words); i++)
		if (ct_contains_word(name, n, secret_words[i]))
			return true;
	return false;
}

/* The listed NAME=value strings of the environment (len bytes) as members. */
static void env_pairs(struct ct_rec *r, const char *env, size_t len,
		      const char *const *names, size_t count)
{
	size_t i = 0;

	while (env && i < len) {
		const char *e = env + i;
		size_t elen = ct_strlen(e), eq = 0;

		while (eq < elen && e[eq] != '=')
			eq++;
		if (eq < elen && listed(e, eq, names, count) && !secret(e, eq) &&
		    field(r, NULL)) {
			put_string(r, e, eq);
			if (putc_(r, ':'))
				put_masked(r, e + eq + 1, elen - eq - 1);
		}
		i += elen + 1;
	}
}

/* argv from /proc/self/cmdline, last: what does not fit is cut, and said. */
static void put_argv(struct ct_rec *r)
{
	static const char cut_mark[] = ",\"argv_cut\":true";
	size_t len = 0, mapped = 0, i;
	char *cmd = ct_map_file("/proc/self/cmdline", &len, &mapped);
	bool was = r->truncated, frozen = r->frozen;

	r->truncated = false;
	r->cap -= sizeof(cut_mark);
	ct_rec_open(r, "argv", '[');
	for (i = 0; cmd && i < len;) {
		size_t n = ct_strlen(cmd + i);

		ct_rec_strn(r, NULL, cmd + i, n);
		i += n + 1;
	}
	ct_rec_close(r, ']');
	r->cap += sizeof(cut_mark);
	if (r->truncated && !frozen) {
		r->frozen = false;
		ct_rec_bool(r, "argv_cut", true);
	}
	r->truncated |= was;
	ct_unmap(cmd, mapped);
}

/*
 * The start record: large (argv, the environment), so it is built in a
 * mapping of its own, which also keeps a vfork child from writing over
 * its parent's. False when it could not be built.
 */
static bool start_build(struct start *st, int pid)
{
	size_t elen = 0, emapped = 0;
	struct ct_rec *r;
	char *env, *path;
	ssize_t n;

	st->size = START_MAX + 4096 + sizeof(struct ct_rec);
	st->mem = mmap(NULL, st->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->mem == MAP_FAILED) {
		st->mem = NULL;
		return false;
	}
	path = st->mem + START_MAX;
	r = st->rec = (struct ct_rec *)(void *)(path + 4096);
	if (!ct_rec_begin_in(r, "start", st->mem, START_MAX)) {
		start_release(st);
		return false;
	}
	ct_rec_u64(r, "v", CT_SCHEMA);
	ct_rec_str(r, "shim", CUDATRACE_VERSION);
	ct_rec_u64(r, "pid", (uint64_t)pid);
	ct_rec_u64(r, "ppid", (uint64_t)getppid());
	ct_rec_str(r, "host", host);
	/* Forks share it with their parent; an exec gets a new one. */
	ct_rec_str(r, "image", image);
	/* The run of cudatrace it belongs to: a report reads one run of a folder. */
	if (run[0])
		ct_rec_str(r, "run", run);
	ct_rec_bool(r, "auditor", ct_is_auditor);
	n = readlink("/proc/self/exe", path, 4095);
	path[n > 0 ? n : 0] = '\0';
	ct_rec_str(r, "exe", n > 0 ? path : NULL);
	ct_rec_str(r, "cwd", getcwd(path, 4096) ? path : NULL);
	ct_rec_u64(r, "uid", (uint64_t)getuid());
	ct_rec_u64(r, "euid", (uint64_t)geteuid());
	ct_rec_bool(r, "secure", getauxval(AT_SECURE) != 0);
	env = ct_map_file("/proc/self/environ", &elen, &emapped);
	ct_rec_open(r, "ranks", '{');
	env_pairs(r, env, elen, rank_names, COUNT(rank_names));
	ct_rec_close(r, '}');
	ct_rec_open(r, "env", '{');
	env_pairs(r, env, elen, env_names, COUNT(env_names));
	ct_rec_close(r, '}');
	ct_unmap(env, emapped);
	put_argv(r);
	finish(r);
	return true;
}

static void start_release(struct start *st)
{
	if (st->mem)
		munmap(st->mem, st->size);
	st->mem = NULL;
}

void ct_trace_start(void)
{
	int e = errno;

	/* Creating the file writes the start record; nothing else to say. */
	if (tracing() &&
	    __atomic_load_n(&mine_pid, __ATOMIC_ACQUIRE) != (int)syscall(SYS_getpid))
		append(NULL, 0);
	errno = e;
}

/* At exit: what this process lost since its last record, if anything. */
__attribute__((destructor)) static void trace_end(void)
{
	int e = errno, pid = (int)syscall(SYS_getpid);
	uint64_t v = __atomic_load_n(&dropped, __ATOMIC_RELAXED);

	if ((int)(v >> 32) == pid && (uint32_t)v && tracing())
		append(NULL, 0);
	errno = e;
}

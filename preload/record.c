/*
 * The trace file and its records (docs/trace-format.md).
 *
 * One file per process image: $CUDATRACE_DIR/<host>-<pid>-<image>.jsonl,
 * where <image> comes from the kernel's per-exec AT_RANDOM bytes, so the
 * auditor and the preload of one image agree on the name without talking,
 * and an exec'd image or a forked child gets a file of its own.
 *
 * Every record is opened, written with one write(2) and closed again:
 * holding a descriptor would take one from a program that counts them or
 * closes them all, and would be lost to the program's own
 * close/dup2 (interpose.md 3.6). A record cut short by a crash is the
 * reader's problem; nothing is buffered, so _exit(127) loses nothing.
 *
 * Shared state is only what is the same for every process this image
 * forks (directory, host, image id): a vfork child writes through the
 * parent's memory, so per-process facts are computed per record.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ct_utf8.h"
#include "shim.h"

#ifndef CUDATRACE_VERSION
#define CUDATRACE_VERSION "0.0.0"
#endif

/* Trace schema version, in every start record. */
#define CT_SCHEMA 1

bool ct_is_auditor;

enum { ST_NEW, ST_INITIALISING, ST_ON, ST_OFF };
static int state = ST_NEW;

static char dir[2048];
static char host[128];
static char image[24];
static int created_pid;       /* the last pid whose file we created */
static unsigned long dropped; /* records lost to a transient error */

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
	while (n--)
		r->buf[r->n++] = *s++;
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

/* A JSON string; one too long for the room left is cut, still valid. */
static void put_string(struct ct_rec *r, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	if (!putc_(r, '"'))
		return;
	while (i < n) {
		unsigned char c = u[i];
		char e[6];
		size_t len, elen;
		const char *out;

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
			break;
		}
		put(r, out, elen);
		i += len;
	}
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

static void put_hex(char *out, const unsigned char *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static void copy(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* Once per image: where the trace goes. */
static void init(void)
{
	int expected = ST_NEW;
	const char *d;
	struct utsname u;
	const unsigned char *rnd;

	if (!__atomic_compare_exchange_n(&state, &expected, ST_INITIALISING,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		/* Another thread is at it: wait the few microseconds it takes. */
		while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_INITIALISING)
			syscall(SYS_sched_yield);
		return;
	}
	d = ct_initial_env("CUDATRACE_DIR");
	rnd = (const unsigned char *)getauxval(AT_RANDOM);
	if (!d || d[0] != '/' || ct_strlen(d) + 200 > sizeof(dir)) {
		__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
		return;
	}
	copy(dir, sizeof(dir), d);
	copy(host, sizeof(host), uname(&u) == 0 ? u.nodename : "unknown");
	if (rnd)
		put_hex(image, rnd, 8);
	else
		copy(image, sizeof(image), "0");
	__atomic_store_n(&state, ST_ON, __ATOMIC_RELEASE);
}

static bool tracing(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (s == ST_NEW || s == ST_INITIALISING) {
		init();
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	}
	return s == ST_ON;
}

static void stop_tracing(void)
{
	__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
}

/* "<dir>/<host>-<pid>-<image>.jsonl" into buf. */
static void trace_path(char *buf, size_t size, int pid)
{
	struct ct_rec tmp; /* reuse the formatter without JSON quoting */
	size_t n;

	tmp.n = 0;
	tmp.mark = 0;
	tmp.cap = sizeof(tmp.small);
	tmp.buf = tmp.small;
	tmp.truncated = false;
	tmp.frozen = false;
	put(&tmp, dir, ct_strlen(dir));
	putc_(&tmp, '/');
	put(&tmp, host, ct_strlen(host));
	putc_(&tmp, '-');
	put_u64(&tmp, (uint64_t)pid);
	putc_(&tmp, '-');
	put(&tmp, image, ct_strlen(image));
	put(&tmp, ".jsonl", 6);
	n = tmp.n < size - 1 ? tmp.n : size - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp.buf[i];
	buf[n] = '\0';
}

/* Errors after which no later write can succeed. */
static bool permanent(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EFBIG || err == EACCES ||
	       err == EROFS || err == ENOENT || err == ENOTDIR || err == EPERM ||
	       err == ELOOP || err == EIO;
}

static void write_start(int fd, int pid);

/*
 * Append len bytes as one record. A file over RLIMIT_FSIZE would earn the
 * program a SIGXFSZ, so the limit is checked before writing.
 */
static void append(const char *data, size_t len)
{
	char path[2400];
	int pid = (int)syscall(SYS_getpid), fd, flags;
	struct rlimit lim;
	bool fresh = false;

	trace_path(path, sizeof(path), pid);
	flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
	fd = -1;
	if (__atomic_load_n(&created_pid, __ATOMIC_RELAXED) != pid) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			fresh = true;
			__atomic_store_n(&created_pid, pid, __ATOMIC_RELAXED);
		} else if (errno == EEXIST) {
			__atomic_store_n(&created_pid, pid, __ATOMIC_RELAXED);
		}
	}
	if (fd < 0)
		fd = open(path, flags);
	if (fd < 0) {
		if (permanent(errno))
			stop_tracing();
		else
			__atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
		off_t size = lseek(fd, 0, SEEK_END);

		if (size < 0 || (uint64_t)size + len + 65536 > lim.rlim_cur) {
			close(fd);
			stop_tracing();
			return;
		}
	}
	if (fresh)
		write_start(fd, pid);
	if (__atomic_load_n(&dropped, __ATOMIC_RELAXED)) {
		struct ct_rec r;
		unsigned long n = __atomic_exchange_n(&dropped, 0, __ATOMIC_RELAXED);

		if (ct_rec_begin(&r, "dropped")) {
			ct_rec_u64(&r, "records", n);
			finish(&r);
			if (write(fd, r.buf, r.n) < 0) {
				/* nothing else to do */
			}
		}
	}
	if (write(fd, data, len) != (ssize_t)len) {
		if (permanent(errno))
			stop_tracing();
	}
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

/* Environment variables that shape loading; the rest (tokens!) never. */
static bool env_wanted(const char *e)
{
	static const char *const names[] = {
		"LD_LIBRARY_PATH=", "LD_PRELOAD=", "LD_AUDIT=", "LD_BIND_NOW=",
		"LD_DEBUG=", "PATH=", "PYTHONPATH=", "PYTHONHOME=",
		"CONDA_PREFIX=", "CONDA_DEFAULT_ENV=", "VIRTUAL_ENV=",
		"TORCH_CUDA_ARCH_LIST=", "CUDATRACE_DIR=",
	};
	static const char *const prefixes[] = { "CUDA_", "NVIDIA_", "CUDNN_",
						"NCCL_", "CUBLAS_" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ct_has_prefix(e, names[i]))
			return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (ct_has_prefix(e, prefixes[i]))
			return true;
	return false;
}

static bool rank_var(const char *e)
{
	static const char *const names[] = {
		"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=",
		"SLURM_PROCID=", "SLURM_LOCALID=", "SLURM_JOB_ID=",
		"OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_LOCAL_RANK=",
		"PMI_RANK=", "PMIX_RANK=",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ct_has_prefix(e, names[i]))
			return true;
	return false;
}

/* The environment's NAME=value strings, each through fn. */
static void env_pairs(struct ct_rec *r, bool (*want)(const char *))
{
	static char buf[32768];
	long n = ct_read_file("/proc/self/environ", buf, sizeof(buf)), i = 0;

	while (i < n) {
		const char *e = buf + i;
		size_t len = ct_strlen(e), eq = 0;

		while (eq < len && e[eq] != '=')
			eq++;
		if (eq < len && want(e) && field(r, NULL)) {
			put_string(r, e, eq);
			if (putc_(r, ':'))
				put_string(r, e + eq + 1, len - eq - 1);
		}
		i += (long)len + 1;
	}
}

/*
 * The start record is large (argv, environment), so it is built in a
 * static buffer; only the thread that created the file gets here, once.
 */
static struct {
	int busy;
	struct ct_rec rec;
	char buf[65536];
	char cmdline[16384];
	char path[4096];
} start;

static void write_start(int fd, int pid)
{
	struct ct_rec *r = &start.rec;
	long n, i;
	int expected = 0;

	if (!__atomic_compare_exchange_n(&start.busy, &expected, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (ct_rec_begin_in(r, "start", start.buf, sizeof(start.buf))) {
		ct_rec_u64(r, "v", CT_SCHEMA);
		ct_rec_str(r, "shim", CUDATRACE_VERSION);
		ct_rec_u64(r, "pid", (uint64_t)pid);
		ct_rec_u64(r, "ppid", (uint64_t)getppid());
		ct_rec_str(r, "host", host);
		/* Forks share it with their parent; an exec gets a new one. */
		ct_rec_str(r, "image", image);
		ct_rec_bool(r, "auditor", ct_is_auditor);
		n = readlink("/proc/self/exe", start.path, sizeof(start.path) - 1);
		start.path[n > 0 ? n : 0] = '\0';
		ct_rec_str(r, "exe", n > 0 ? start.path : NULL);
		ct_rec_str(r, "cwd", getcwd(start.path, sizeof(start.path)) ? start.path : NULL);
		ct_rec_u64(r, "uid", (uint64_t)getuid());
		ct_rec_u64(r, "euid", (uint64_t)geteuid());
		ct_rec_bool(r, "secure", getauxval(AT_SECURE) != 0);
		ct_rec_open(r, "argv", '[');
		n = ct_read_file("/proc/self/cmdline", start.cmdline,
				 sizeof(start.cmdline));
		for (i = 0; i < n;) {
			size_t len = ct_strlen(start.cmdline + i);

			ct_rec_strn(r, NULL, start.cmdline + i, len);
			i += (long)len + 1;
		}
		ct_rec_close(r, ']');
		ct_rec_open(r, "ranks", '{');
		env_pairs(r, rank_var);
		ct_rec_close(r, '}');
		ct_rec_open(r, "env", '{');
		env_pairs(r, env_wanted);
		ct_rec_close(r, '}');
		finish(r);
		if (write(fd, r->buf, r->n) < 0) {
			/* the record that follows will say what it can */
		}
	}
	__atomic_store_n(&start.busy, 0, __ATOMIC_RELEASE);
}

void ct_trace_start(void)
{
	int pid, fd;
	char path[2400];

	if (!tracing())
		return;
	/* Creating the file writes the start record; nothing else to say. */
	pid = (int)syscall(SYS_getpid);
	if (__atomic_load_n(&created_pid, __ATOMIC_RELAXED) == pid)
		return;
	trace_path(path, sizeof(path), pid);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				O_CREAT | O_EXCL,
		  0600);
	if (fd < 0) {
		if (errno == EEXIST)
			__atomic_store_n(&created_pid, pid, __ATOMIC_RELAXED);
		else if (permanent(errno))
			stop_tracing();
		return;
	}
	__atomic_store_n(&created_pid, pid, __ATOMIC_RELAXED);
	write_start(fd, pid);
	close(fd);
}

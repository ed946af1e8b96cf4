/*
 * Running processes from /proc (procs.h): the files each maps, checked
 * against what is at their paths now; its command line and the
 * environment variables a trace keeps. Read through a descriptor of the
 * process's folder, so that its files are one process's. Then the driver
 * it maps, judged by the machine's (ct_proc_set_driver, trace.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "files.h"
#include "gpu.h"
#include "libnames.h"
#include "procs.h"
#include "trace_internal.h"
#include "util.h"

/* What is read of one small /proc file at most (cmdline, environ, stat); the arguments kept. */
#define PROC_FILE_MAX ((size_t)16 << 20)
#define PROC_ARGS_MAX 4096
/*
 * maps is read a line at a time, whatever its size. A line holds a path
 * of PATH_MAX bytes at most, each escaped in four ("\012") at worst; the
 * files kept (those with code) and their paths are bounded: a process
 * maps a few thousand libraries, not 65,536 (the words in scan_line).
 */
#define MAPS_LINE_MAX ((size_t)20 << 10)
#define MAPS_CHUNK ((size_t)64 << 10)
#define PROC_FILES_MAX 65536
#define PROC_PATHS_MAX ((size_t)16 << 20)

static const char *const env_names[] = {
#define CT_ENV(name) name,
#include "ct_env.def"
#undef CT_ENV
};

/* The whole of a /proc file of dfd, NUL-terminated (*len without it); NULL with errno. */
static char *read_at(int dfd, const char *name, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t n = 0, cap = 4096;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	buf = ct_xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= PROC_FILE_MAX)
				break;
			cap *= 2;
			buf = ct_xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A mapped file's identity: its device and inode as maps gives them. */
struct file_key {
	uint64_t dev, ino;
};

/* One mapped file kept: its first executable mapping (the program's: its first). */
struct mapped {
	struct file_key key;
	char *path;
	uint64_t start, end;          /* that mapping, for map_files */
	UT_hash_handle hh;            /* by key */
};

/* A maps line's fields; path points into the line. */
struct maps_line {
	struct file_key key;
	const char *path;
	uint64_t start, end;
	bool exec;
};

/*
 * A maps line: "START-END PERMS OFFSET MAJ:MIN INODE   PATH". The path is
 * what follows the inode's blanks, to the end of the line (it may hold
 * blanks; " (deleted)" ends a file no longer at its path). 1 when it is
 * a file's, 0 otherwise.
 */
static int parse_maps_line(const char *line, struct maps_line *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int used = 0;
	const char *path;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
		   &ino, &used) < 7 || used == 0)
		return 0;
	path = line + used;
	if (ino == 0 || path[0] != '/')
		return 0;
	m->path = path;
	m->key.dev = (uint64_t)makedev(maj, min);
	m->key.ino = (uint64_t)ino;
	m->start = (uint64_t)start;
	m->end = (uint64_t)end;
	m->exec = strchr(perms, 'x') != NULL;
	return 1;
}

/*
 * The files of one process's maps, read a line at a time: memory grows
 * with the files kept (those with code), never with the maps' size (a
 * process with 60,000 mappings of shared tensors and data shards), and
 * each file is found again by a hash of its device and inode.
 */
struct maps_scan {
	struct mapped *set;           /* by device and inode */
	struct mapped **order;        /* in address order */
	size_t n, path_bytes;
	struct file_key exe;          /* the program's file; exe_known when stat'ed */
	bool exe_known;
	bool cuda;                    /* it maps a CUDA library or the driver (code or data) */
	const char *limit;            /* the first limit it went past, in words; NULL: none */
	size_t limited;               /* mappings left out by a limit */
};

static void maps_scan_release(struct maps_scan *s)
{
	struct mapped *e, *tmp;

	HASH_ITER(hh, s->set, e, tmp) {
		HASH_DEL(s->set, e);
		free(e->path);
		free(e);
	}
	free(s->order);
}

static void past_limit(struct maps_scan *s, const char *why)
{
	if (!s->limit)
		s->limit = why;
	s->limited++;
}

static void scan_line(struct maps_scan *s, const char *line)
{
	struct maps_line m;
	struct mapped *e;
	size_t len;

	if (!parse_maps_line(line, &m))
		return;
	/* CUDA's libraries, the driver's real file (libcuda.so.580.159.04) among them. */
	if (!s->cuda && ct_cuda_library(m.path))
		s->cuda = true;
	/* Data (locale archives, fonts, tensors, shards) is no loaded object. */
	if (!m.exec && !(s->exe_known && s->exe.dev == m.key.dev && s->exe.ino == m.key.ino))
		return;
	HASH_FIND(hh, s->set, &m.key, sizeof(m.key), e);
	if (e)
		return;
	len = strlen(m.path);
	if (s->n == PROC_FILES_MAX) {
		past_limit(s, "more than 65536 mapped files with code");
		return;
	}
	if (s->path_bytes + len > PROC_PATHS_MAX) {
		past_limit(s, "the paths of its mapped files hold more than 16 MiB");
		return;
	}
	e = ct_xcalloc(1, sizeof(*e));
	e->key = m.key;
	e->path = ct_xstrdup(m.path);
	e->start = m.start;
	e->end = m.end;
	HASH_ADD(hh, s->set, key, sizeof(e->key), e);
	*CT_TRACE_PUSH(s->order, s->n) = e;
	s->path_bytes += len;
}

/*
 * Read dfd's maps whole into s, a line at a time. A line longer than any
 * the kernel writes (MAPS_LINE_MAX) is left out, counted. Returns 0 or
 * -1 with errno.
 */
static int scan_maps(int dfd, struct maps_scan *s)
{
	int fd = openat(dfd, "maps", O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret = -1, e;
	size_t cap = MAPS_LINE_MAX + MAPS_CHUNK, len = 0, start;
	bool skipping = false;
	char *buf, *nl;
	ssize_t r;

	if (fd < 0)
		return -1;
	buf = ct_xmalloc(cap + 1);
	for (;;) {
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out;
		if (r == 0)
			break;
		len += (size_t)r;
		for (start = 0; (nl = memchr(buf + start, '\n', len - start)); start = (size_t)(nl - buf) + 1) {
			*nl = '\0';
			if (!skipping)
				scan_line(s, buf + start);
			skipping = false;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len >= MAPS_LINE_MAX) {
			if (!skipping)
				past_limit(s, "a line of its maps is longer than any the kernel writes");
			skipping = true;
			len = 0;
		}
	}
	/* The last line, without its newline. */
	if (len && !skipping) {
		buf[len] = '\0';
		scan_line(s, buf);
	}
	ret = 0;
out:
	e = errno;
	free(buf);
	close(fd);
	errno = e;
	return ret;
}

/*
 * Is the file at m->path now the one the process mapped? Its device and
 * inode against the maps line's, or (an overlay file system names the
 * layer's device in maps) against the mapped file itself, stat'ed
 * through map_files. Nothing is opened here: the path is only stat'ed.
 */
static bool still_there(int dfd, const struct mapped *m)
{
	struct stat st, mf;
	char link[64];

	if (stat(m->path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if ((uint64_t)st.st_dev == m->key.dev && (uint64_t)st.st_ino == m->key.ino)
		return true;
	snprintf(link, sizeof(link), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
	return fstatat(dfd, link, &mf, 0) == 0 && mf.st_dev == st.st_dev &&
	       mf.st_ino == st.st_ino && (uint64_t)mf.st_ino == m->key.ino;
}

/*
 * The same check through a descriptor, which is then pinned
 * (ct_pin_file): every later read of the path reads the file checked,
 * whatever the process puts at the path meanwhile. For a process read
 * whole (ps PID), whose files the loader model and the diagnosis read.
 */
static bool pinned_there(int dfd, const struct mapped *m)
{
	/*
	 * O_PATH opens nothing: a device swapped in at the path is never
	 * opened (no driver's open, as root); the file is read later through
	 * /proc/self/fd only once it is known to be the regular file mapped.
	 */
	int fd = open(m->path, O_PATH | O_CLOEXEC);
	struct stat st, mf;
	char link[64];
	bool same;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	same = (uint64_t)st.st_dev == m->key.dev && (uint64_t)st.st_ino == m->key.ino;
	if (!same) {
		snprintf(link, sizeof(link), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
		same = fstatat(dfd, link, &mf, 0) == 0 && mf.st_dev == st.st_dev &&
		       mf.st_ino == st.st_ino && (uint64_t)mf.st_ino == m->key.ino;
	}
	if (!same) {
		close(fd);
		return false;
	}
	return ct_pin_file(m->path, fd);
}

/* NUL-separated strings into an arena array; *n of them. */
static const char **split_nul(struct ct_trace *t, const char *buf, size_t len, size_t *n)
{
	const char **v;
	size_t i, k = 0;

	for (i = 0; i < len; i++)
		k += buf[i] == '\0';
	if (len && buf[len - 1] != '\0')
		k++;
	if (k > PROC_ARGS_MAX)
		k = PROC_ARGS_MAX;
	v = ct_arena_alloc(&t->arena, (k ? k : 1) * sizeof(*v));
	*n = 0;
	for (i = 0; i < len && *n < k; i += strlen(buf + i) + 1)
		v[(*n)++] = ct_intern(&t->strings, buf + i);
	return v;
}

/* The variables of environ a trace keeps, and no other (their values may be secrets). */
static void read_env(struct ct_trace *t, struct ct_proc *p, int dfd)
{
	size_t len = 0, i, k, nenv = 0;
	struct ct_var *env = NULL;
	char *buf = read_at(dfd, "environ", &len);

	if (!buf) {
		p->proc_env_unread = true;
		return;
	}
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		const char *eq = strchr(buf + i, '=');

		if (!eq)
			continue;
		for (k = 0; k < sizeof(env_names) / sizeof(env_names[0]); k++) {
			size_t nl = strlen(env_names[k]);

			if ((size_t)(eq - (buf + i)) == nl && strncmp(buf + i, env_names[k], nl) == 0) {
				struct ct_var *v = CT_TRACE_PUSH(env, nenv);

				v->name = ct_intern(&t->strings, env_names[k]);
				v->value = ct_intern(&t->strings, eq + 1);
				break;
			}
		}
	}
	free(buf);
	/* A trace's variables live in its arena (ct_trace_release frees no p->env). */
	if (nenv) {
		p->env = ct_arena_alloc(&t->arena, nenv * sizeof(*env));
		memcpy(p->env, env, nenv * sizeof(*env));
		p->nenv = nenv;
	}
	free(env);
}

/* The parent's pid from stat: the fourth field, after the command's last ')'. */
static int64_t read_ppid(int dfd)
{
	size_t len = 0;
	char *buf = read_at(dfd, "stat", &len), *close_paren;
	long long ppid = 0;

	if (!buf)
		return 0;
	close_paren = strrchr(buf, ')');
	if (close_paren && sscanf(close_paren + 1, " %*c %lld", &ppid) != 1)
		ppid = 0;
	free(buf);
	return ppid;
}

/*
 * Does the process live in another mount namespace than cudatrace (a
 * container)? Its paths then name other files here. Only stat'ed.
 */
static bool other_mount_ns(const char *root, int dfd)
{
	char self[4200];
	struct stat its, mine;

	snprintf(self, sizeof(self), "%s/self/ns/mnt", root);
	return fstatat(dfd, "ns/mnt", &its, 0) == 0 && stat(self, &mine) == 0 &&
	       (its.st_dev != mine.st_dev || its.st_ino != mine.st_ino);
}

int ct_trace_read_pid(struct ct_trace *t, const char *root, pid_t pid, bool cuda_only,
		      char *why, size_t size)
{
	struct maps_scan scan;
	size_t len = 0, i;
	char dir[4200], exe[4096], *args;
	struct stat exe_st, dir_st;
	struct ct_proc *p;
	ssize_t el;
	int dfd, ret = 0;

	memset(&scan, 0, sizeof(scan));
	snprintf(dir, sizeof(dir), "%s/%lld", root, (long long)pid);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &dir_st) != 0) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		snprintf(why, size, "process %lld: %s", (long long)pid,
			 ret == -ESRCH ? "no such process" : strerror(-ret));
		goto out;
	}
	/* The program's file first: its mappings without code count too. */
	if (fstatat(dfd, "exe", &exe_st, 0) == 0) {
		scan.exe.dev = (uint64_t)exe_st.st_dev;
		scan.exe.ino = (uint64_t)exe_st.st_ino;
		scan.exe_known = true;
	}
	if (scan_maps(dfd, &scan) != 0) {
		ret = errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
		snprintf(why, size, "process %lld: %s", (long long)pid,
			 ret == -ESRCH ? "no such process (it ended)"
			 : ret == -EACCES && geteuid() == 0
				 ? "its maps cannot be read, even by root (the kernel refuses: a "
				   "process of another container or user namespace, or a "
				   "ptrace policy)"
			 : ret == -EACCES ? "its maps cannot be read (another user's process: "
					    "run as that user or root)"
					  : strerror(-ret));
		goto out;
	}
	if (cuda_only && !scan.cuda) {
		ret = 1;
		goto out;
	}
	p = CT_TRACE_PUSH(t->procs, t->nprocs);
	p->running = true;
	p->pid = pid;
	p->ppid = read_ppid(dfd);
	p->cuinit = -1;
	p->owner = -1; /* no trace file: a running process's runs are not counted by user */
	p->proc_uid = (int64_t)dir_st.st_uid;
	p->proc_limit = scan.limit;
	p->proc_limited = scan.limited;
	p->proc_other_mnt = other_mount_ns(root, dfd);
	el = readlinkat(dfd, "exe", exe, sizeof(exe) - 1);
	if (el > 0) {
		exe[el] = '\0';
		p->exe = p->image = ct_intern(&t->strings, exe);
	}
	args = read_at(dfd, "cmdline", &len);
	if (args) {
		p->argv = split_nul(t, args, len, &p->argc);
		free(args);
	}
	read_env(t, p, dfd);
	for (i = 0; i < scan.n; i++) {
		const struct mapped *m = scan.order[i];
		struct ct_loaded *o;
		bool is_main = scan.exe_known && scan.exe.dev == m->key.dev &&
			       scan.exe.ino == m->key.ino;

		if (cuda_only ? !still_there(dfd, m) : !pinned_there(dfd, m)) {
			if (p->proc_unverified < CT_PROC_LEFT_OUT_NAMED)
				p->proc_left_out[p->proc_unverified] = ct_intern(&t->strings, m->path);
			p->proc_unverified++;
			continue;
		}
		o = CT_TRACE_PUSH(p->objects, p->nobjects);
		o->path = ct_intern(&t->strings, m->path);
		o->name = ct_intern(&t->strings, ct_path_base(m->path));
		o->dev = m->key.dev;
		o->ino = m->key.ino;
		o->main = is_main;
		o->via = is_main ? CT_RULE_DIRECT : CT_RULE_UNKNOWN;
	}
out:
	maps_scan_release(&scan);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int ct_proc_pids(const char *root, bool all, uid_t uid, pid_t **pids, size_t *n)
{
	DIR *d = opendir(root);
	struct dirent *e;
	struct stat st;

	*pids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (*end || v <= 0 || e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (!all && (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || st.st_uid != uid))
			continue;
		*CT_TRACE_PUSH(*pids, *n) = (pid_t)v;
	}
	closedir(d);
	if (*n)
		qsort(*pids, *n, sizeof(**pids), cmp_pid);
	return 0;
}

/* The machine's driver, for ps: cudatrace's own probe of it stands for the process's. */
void ct_proc_set_driver(struct ct_trace *t, struct ct_proc *p, const struct ct_driver_probe *probe,
			bool same)
{
	struct ct_driver_rec *d = &p->driver;
	const char *mapped = NULL;
	int i;

	for (i = 0; (size_t)i < p->nobjects && !mapped; i++)
		if (ct_driver_file(p->objects[i].path))
			mapped = p->objects[i].path;
	if (!mapped || d->present)
		return;
	d->present = true;
	/* The file the process maps is its driver; the probe's is cudatrace's own. */
	d->path = mapped;
	if (!probe->opened || (!same && probe->init_result != 0)) {
		p->driver_unasked = true;
		return;
	}
	p->cuinit_probed = same;
	if (same && probe->init_result >= 0) {
		p->cuinit = probe->init_result;
		p->ncuinit = 1;
	}
	d->version = probe->version > 0 ? probe->version : 0;
	d->ngpus = 0;
	d->gpus = probe->ngpus > 0 ? ct_arena_alloc(&t->arena, (size_t)probe->ngpus *
								   sizeof(*d->gpus))
				   : NULL;
	for (i = 0; i < probe->ngpus; i++) {
		const struct ct_gpu_info *g = &probe->gpus[i];
		struct ct_gpu_rec *r = &d->gpus[d->ngpus++];
		char cc[32];

		memset(r, 0, sizeof(*r));
		r->index = g->index;
		r->name = g->name[0] ? ct_intern(&t->strings, g->name) : NULL;
		if (g->major >= 0 && g->minor >= 0) {
			snprintf(cc, sizeof(cc), "%d.%d", g->major, g->minor);
			r->cc = ct_intern(&t->strings, cc);
		}
		/* A trace's uuid is the bare hex; the probe's says "GPU-" first. */
		r->uuid = !g->uuid[0] ? NULL
			  : ct_intern(&t->strings, strncmp(g->uuid, "GPU-", 4) == 0 ? g->uuid + 4
										 : g->uuid);
	}
	d->has_devices = probe->init_result == 0;
}

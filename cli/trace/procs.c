/*
 * Running processes from /proc (procs.h): the files each maps, checked
 * against what is at their paths now; its command line and the
 * environment variables a trace keeps. Read through a descriptor of the
 * process's folder, so that its files are one process's.
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

#include "libnames.h"
#include "procs.h"
#include "util.h"

/* What is read of one /proc file at most: a maps of 64k mappings, a long command line. */
#define PROC_FILE_MAX ((size_t)16 << 20)
#define PROC_ARGS_MAX 4096

static const char *const env_names[] = {
#define CT_ENV(name) name,
#include "ct_env.def"
#undef CT_ENV
};

static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	if (n > SIZE_MAX / 2 / size)
		ct_out_of_memory();
	return ct_xrealloc(arr, (n ? n * 2 : 1) * size);
}

#define PUSH(arr, n)                                                          \
	((arr) = grow((arr), (n), sizeof(*(arr))),                             \
	 memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])

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

/* One mapped file: the first line that names it, with an executable mapping somewhere. */
struct mapped {
	char *path;
	uint64_t dev, ino;
	uint64_t start, end;          /* its first mapping, for map_files */
	bool exec;
};

/*
 * A maps line: "START-END PERMS OFFSET MAJ:MIN INODE   PATH". The path is
 * what follows the inode's blanks, to the end of the line (it may hold
 * blanks; " (deleted)" ends a file no longer at its path). 1 when it is
 * a file's, 0 otherwise.
 */
static int parse_maps_line(char *line, struct mapped *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int used = 0;
	char *path;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
		   &ino, &used) < 7 || used == 0)
		return 0;
	path = line + used;
	if (ino == 0 || path[0] != '/')
		return 0;
	m->path = path;
	m->dev = (uint64_t)makedev(maj, min);
	m->ino = (uint64_t)ino;
	m->start = (uint64_t)start;
	m->end = (uint64_t)end;
	m->exec = strchr(perms, 'x') != NULL;
	return 1;
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
	if ((uint64_t)st.st_dev == m->dev && (uint64_t)st.st_ino == m->ino)
		return true;
	snprintf(link, sizeof(link), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
	return fstatat(dfd, link, &mf, 0) == 0 && mf.st_dev == st.st_dev &&
	       mf.st_ino == st.st_ino && (uint64_t)mf.st_ino == m->ino;
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
	same = (uint64_t)st.st_dev == m->dev && (uint64_t)st.st_ino == m->ino;
	if (!same) {
		snprintf(link, sizeof(link), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
		same = fstatat(dfd, link, &mf, 0) == 0 && mf.st_dev == st.st_dev &&
		       mf.st_ino == st.st_ino && (uint64_t)mf.st_ino == m->ino;
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
				struct ct_var *v = PUSH(env, nenv);

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

static bool maps_cuda(const struct mapped *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ct_cuda_library(m[i].path) || ct_driver_library(m[i].path) == CT_DRIVER_LIB_CUDA)
			return true;
	return false;
}

int ct_trace_read_pid(struct ct_trace *t, const char *root, pid_t pid, bool cuda_only,
		      char *why, size_t size)
{
	struct mapped *files = NULL;
	size_t nfiles = 0, len = 0, i, k;
	char dir[4200], exe[4096], *maps = NULL, *line, *save = NULL, *args;
	struct stat exe_st, dir_st;
	bool exe_ok;
	struct ct_proc *p;
	ssize_t el;
	int dfd, ret = 0;

	snprintf(dir, sizeof(dir), "%s/%lld", root, (long long)pid);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &dir_st) != 0) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		snprintf(why, size, "process %lld: %s", (long long)pid,
			 ret == -ESRCH ? "no such process" : strerror(-ret));
		goto out;
	}
	maps = read_at(dfd, "maps", &len);
	if (!maps) {
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
	/* Each file once, in address order; executable mappings only mark it a loaded object. */
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct mapped m;

		if (!parse_maps_line(line, &m))
			continue;
		for (k = 0; k < nfiles; k++)
			if (files[k].dev == m.dev && files[k].ino == m.ino)
				break;
		if (k < nfiles) {
			files[k].exec |= m.exec;
			continue;
		}
		*PUSH(files, nfiles) = m;
	}
	if (cuda_only && !maps_cuda(files, nfiles)) {
		ret = 1;
		goto out;
	}
	p = PUSH(t->procs, t->nprocs);
	p->running = true;
	p->pid = pid;
	p->ppid = read_ppid(dfd);
	p->cuinit = -1;
	p->owner = -1; /* no trace file: a running process's runs are not counted by user */
	p->proc_uid = (int64_t)dir_st.st_uid;
	el = readlinkat(dfd, "exe", exe, sizeof(exe) - 1);
	exe_ok = el > 0 && fstatat(dfd, "exe", &exe_st, 0) == 0;
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
	for (i = 0; i < nfiles; i++) {
		struct mapped *m = &files[i];
		struct ct_loaded *o;
		bool is_main = exe_ok && (uint64_t)exe_st.st_dev == m->dev &&
			       (uint64_t)exe_st.st_ino == m->ino;

		if (!m->exec && !is_main)
			continue;     /* data: locale archives, fonts, caches */
		if (cuda_only ? !still_there(dfd, m) : !pinned_there(dfd, m)) {
			p->proc_unverified++;
			continue;
		}
		o = PUSH(p->objects, p->nobjects);
		o->path = ct_intern(&t->strings, m->path);
		o->name = ct_intern(&t->strings, ct_path_base(m->path));
		o->dev = m->dev;
		o->ino = m->ino;
		o->main = is_main;
		o->via = is_main ? CT_RULE_DIRECT : CT_RULE_UNKNOWN;
	}
out:
	free(files);
	free(maps);
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
		*PUSH(*pids, *n) = (pid_t)v;
	}
	closedir(d);
	if (*n)
		qsort(*pids, *n, sizeof(**pids), cmp_pid);
	return 0;
}

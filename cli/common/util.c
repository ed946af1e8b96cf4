/* Small helpers every layer of the CLI uses (util.h). */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* What ct_run_capture keeps of a program's output. */
#define CAPTURE_MAX (16u << 20)

char *ct_human_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1000.0 && u < 4) {
		v /= 1000.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, size, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/*
 * The one message below the commands: without memory there is nothing to
 * return to. One write(2), so it cannot itself need memory.
 */
void ct_out_of_memory(void)
{
	static const char msg[] = "cudatrace: out of memory\n";
	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)n;
	exit(CT_EXIT_BAD_INPUT);
}

static void *check(void *p)
{
	if (!p)
		ct_out_of_memory();
	return p;
}

void *ct_xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *ct_xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *ct_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *ct_xstrdup(const char *s) { return check(strdup(s)); }

int ct_run_start(char *const argv[], char *const envp[], bool want_stderr,
		 struct ct_capture *c)
{
	/*
	 * The output goes to an anonymous file read once the child is done:
	 * through a pipe, the loader's hundreds of small writes would wake
	 * us as many times (2 ms instead of 1 for --list-diagnostics).
	 */
	posix_spawn_file_actions_t fa;
	int rc;

	c->pid = -1;
	c->fd = memfd_create("cudatrace-capture", MFD_CLOEXEC);
	if (c->fd < 0) {
		char tmp[] = "/tmp/cudatrace-capture.XXXXXX";

		if ((c->fd = mkostemp(tmp, O_CLOEXEC)) < 0)
			return -errno;
		unlink(tmp);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, c->fd, want_stderr ? 2 : 1);
	posix_spawn_file_actions_addopen(&fa, want_stderr ? 1 : 2, "/dev/null", O_WRONLY, 0);
	/*
	 * No fflush: the helper writes to none of our streams, and a failed
	 * flush of stdout here would lose the cause the command must report.
	 */
	rc = posix_spawn(&c->pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		close(c->fd);
		c->fd = -1;
		c->pid = -1;
		return -rc;
	}
	return 0;
}

char *ct_run_wait(struct ct_capture *c, int *status)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;

	*status = -1;
	if (c->pid < 0)
		return NULL;
	while (waitpid(c->pid, status, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	for (;;) {
		ssize_t r;

		if (n + 4096 > cap) {
			if (cap >= CAPTURE_MAX)
				break;
			cap = cap ? cap * 2 : 65536;
			buf = ct_xrealloc(buf, cap + 1);
		}
		r = pread(c->fd, buf + n, cap - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(c->fd);
	c->fd = -1;
	c->pid = -1;
	buf = ct_xrealloc(buf, n + 1);
	buf[n] = '\0';
	return buf;
}

char *ct_run_capture(char *const argv[], char *const envp[], bool want_stderr,
		     int *status)
{
	struct ct_capture c;

	*status = -1;
	if (ct_run_start(argv, envp, want_stderr, &c) != 0)
		return NULL;
	return ct_run_wait(&c, status);
}

bool ct_word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (n && (p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
		p++;
	}
	return false;
}

size_t ct_threads(size_t max)
{
	const char *v = getenv("CUDATRACE_THREADS");
	cpu_set_t set;
	size_t n;

	if (v && *v) {
		char *end;
		unsigned long u;

		errno = 0;
		u = strtoul(v, &end, 10);
		if (errno == 0 && *end == '\0' && u >= 1 && u <= 64)
			return (size_t)u;
	}
	n = sched_getaffinity(0, sizeof(set), &set) == 0 ? (size_t)CPU_COUNT(&set) : 1;
	return n < 1 ? 1 : n > max ? max : n;
}

uint64_t ct_le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

const char *ct_path_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *ct_path_dir(const char *path, char *buf, size_t size)
{
	const char *s = strrchr(path, '/');
	size_t n = s ? (size_t)(s - path) : 0;

	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), path);
	if (s && !n)
		snprintf(buf, size, "/");
	return buf;
}

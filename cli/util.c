/* Small helpers every command uses. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudatrace.h"

const char *ct_progname = "cudatrace";

void ct_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", ct_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

static void *check(void *p)
{
	if (!p) {
		ct_error("out of memory");
		exit(CT_EXIT_BAD_INPUT);
	}
	return p;
}

void *ct_xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *ct_xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *ct_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *ct_xstrdup(const char *s) { return check(strdup(s)); }

char *ct_run_capture(char *const argv[], char *const envp[], bool want_stderr,
		     int *status)
{
	int fds[2];
	pid_t pid;
	char *buf = NULL;
	size_t n = 0, cap = 0;

	*status = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(fds[1], want_stderr ? 2 : 1);
		dup2(null, want_stderr ? 1 : 2);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r;

		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = ct_xrealloc(buf, cap + 1);
		}
		r = read(fds[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	buf = ct_xrealloc(buf, n + 1);
	buf[n] = '\0';
	return buf;
}

char *ct_read_small_file(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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

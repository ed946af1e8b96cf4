/*
 * Small helpers that do not go through libc's string functions (whose
 * newest symbol versions would raise the glibc floor) and never allocate.
 */
#include <fcntl.h>
#include <unistd.h>

#include "shim.h"

size_t ct_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int ct_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int ct_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

const char *ct_basename(const char *path)
{
	const char *b = path;

	for (; *path; path++)
		if (*path == '/')
			b = path + 1;
	return b;
}

bool ct_has_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

long ct_read_file(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	int fd;

	if (size == 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, size - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (long)n;
}

/*
 * /proc/self/environ is the environment the kernel gave this image, which
 * the program cannot have changed yet; read once, kept for the process.
 */
static char env_buf[32768];
static long env_len = -2;

const char *ct_initial_env(const char *name)
{
	size_t nlen = ct_strlen(name);
	long i = 0;

	if (env_len == -2)
		env_len = ct_read_file("/proc/self/environ", env_buf,
				       sizeof(env_buf));
	while (i < env_len) {
		const char *e = env_buf + i;
		size_t len = ct_strlen(e);

		if (ct_strncmp(e, name, nlen) == 0 && e[nlen] == '=')
			return e + nlen + 1;
		i += (long)len + 1;
	}
	return NULL;
}

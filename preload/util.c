/*
 * Small helpers that do not go through libc's string functions (whose
 * newest symbol versions would raise the glibc floor) and never allocate
 * from the heap.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/*
 * Whole files of any size (the environment, the command line) live in an
 * anonymous mapping that grows as they are read: no malloc, which may not
 * be usable yet or may be the program's own, and no fixed limit.
 */
char *ct_map_file(const char *path, size_t *len, size_t *mapped)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *more = mremap(buf, cap, 2 * cap, MREMAP_MAYMOVE);

			if (more == MAP_FAILED)
				break; /* keep what was read: the caller sees it is short */
			buf = more;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	*mapped = cap;
	return buf;
}

void ct_unmap(char *buf, size_t mapped)
{
	if (buf)
		munmap(buf, mapped);
}

/*
 * /proc/self/environ is the environment the kernel gave this image, which
 * the program cannot have changed yet. Read whole, however large (job
 * environments of Slurm, modules and conda pass 32 KiB, and cudatrace run
 * puts CUDATRACE_DIR last).
 */
long ct_initial_env(const char *name, char *out, size_t size)
{
	size_t nlen = ct_strlen(name), len, mapped, i = 0;
	char *env = ct_map_file("/proc/self/environ", &len, &mapped);
	long found = -1;

	while (env && i < len) {
		const char *e = env + i;
		size_t elen = ct_strlen(e);

		if (ct_strncmp(e, name, nlen) == 0 && e[nlen] == '=') {
			size_t vlen = elen - nlen - 1, k;

			if (vlen < size) {
				for (k = 0; k <= vlen; k++)
					out[k] = e[nlen + 1 + k];
				found = (long)vlen;
			}
			break;
		}
		i += elen + 1;
	}
	ct_unmap(env, mapped);
	return found;
}

bool ct_contains_word(const char *s, size_t n, const char *word)
{
	size_t w = ct_strlen(word), i, k;

	for (i = 0; i + w <= n; i++) {
		for (k = 0; k < w; k++) {
			char c = s[i + k];

			if (c >= 'a' && c <= 'z')
				c = (char)(c - 'a' + 'A');
			if (c != word[k])
				break;
		}
		if (k == w)
			return true;
	}
	return false;
}

/* SipHash-2-4 (Aumasson and Bernstein), a keyed hash that hides its key. */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                     \
	do {                                                         \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t ct_siphash(const unsigned char key[16], const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t k0 = le64(key), k1 = le64(key + 8), m, b = (uint64_t)n << 56;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	size_t i;

	for (; n >= 8; n -= 8, p += 8) {
		m = le64(p);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (i = 0; i < n; i++)
		b |= (uint64_t)p[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

void ct_memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
}

void ct_fd_path(int fd, char out[40])
{
	static const char prefix[] = "/proc/self/fd/";
	char digits[12];
	size_t k = sizeof(prefix) - 1;
	int n = 0;
	unsigned d = fd < 0 ? 0 : (unsigned)fd;

	ct_memcpy(out, prefix, k);
	do {
		digits[n++] = (char)('0' + d % 10);
		d /= 10;
	} while (d);
	while (n)
		out[k++] = digits[--n];
	out[k] = '\0';
}

int ct_open_regular(const char *path)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), fd = -1;
	char self[40];
	struct stat st;

	if (pfd < 0)
		return -1;
	/* Not fstat(): glibc 2.33 made it a symbol of that version. */
	if (syscall(SYS_fstat, pfd, &st) == 0 && S_ISREG(st.st_mode)) {
		ct_fd_path(pfd, self);
		fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(pfd);
	return fd;
}

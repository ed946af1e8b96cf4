/*
 * How a Python interpreter was built, from its files: nothing is run
 * (doctor's "nothing run"); see python.h, struct ct_python_build.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "python.h"
#include "util.h"

/* The most of a program or libpython searched for its compiled-in strings. */
#define SCAN_MAX ((size_t)256 << 20)

/* The first file matching pattern, into out; false when none. */
static bool first_match(const char *pattern, char *out, size_t size)
{
	glob_t g;
	bool found = false;

	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc) {
		snprintf(out, size, "%s", g.gl_pathv[0]);
		found = true;
	}
	globfree(&g);
	return found;
}

/* #define PY_VERSION "3.11.7" of the installation's patchlevel.h. */
static bool from_patchlevel(const struct ct_python *py, char *out, size_t size)
{
	char pattern[PATH_MAX], file[PATH_MAX], *text, *at, *end;
	bool ok = false;

	if (!py->base || !py->version[0])
		return false;
	snprintf(pattern, sizeof(pattern), "%s/include/python%s*/patchlevel.h", py->base,
		 py->version);
	if (!first_match(pattern, file, sizeof(file)) || !(text = ct_read_small_file(file, 1 << 16)))
		return false;
	if ((at = strstr(text, "#define PY_VERSION")) && (at = strchr(at, '"')) &&
	    (end = strchr(at + 1, '"')) && end - at - 1 > 0 && (size_t)(end - at - 1) < size) {
		memcpy(out, at + 1, (size_t)(end - at - 1));
		out[end - at - 1] = '\0';
		ok = strncmp(out, py->version, strlen(py->version)) == 0;
	}
	free(text);
	return ok;
}

/*
 * A NUL-terminated string in the file's bytes made only of printable
 * characters, starting at p: its length, or 0 when it is no such string
 * (or longer than max).
 */
static size_t printable_at(const char *p, const char *end, size_t max)
{
	size_t n = 0;

	while (p + n < end && n <= max && p[n] >= 0x20 && p[n] < 0x7f)
		n++;
	return p + n < end && p[n] == '\0' && n <= max ? n : 0;
}

/*
 * The strings CPython compiles in: PY_VERSION ("3.11.7", a string of its
 * own, NUL before and after) and Py_GetCompiler's "[GCC 12.2.0]" (a
 * string of its own, or after a newline), searched in the file's bytes.
 */
static void scan_file(const char *path, const char *xy, struct ct_python_build *b,
		      bool *got_version)
{
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t len, xylen = strlen(xy);
	const char *m, *p, *end;
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return;
	}
	len = (uint64_t)st.st_size > SCAN_MAX ? SCAN_MAX : (size_t)st.st_size;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	end = m + len;
	for (p = m; !b->compiler[0] && (p = memmem(p, (size_t)(end - p), "[GCC ", 5)); p++) {
		size_t n = printable_at(p, end, sizeof(b->compiler));

		if (n > 6 && p[n - 1] == ']' && p > m && (p[-1] == '\n' || p[-1] == '\0'))
			snprintf(b->compiler, sizeof(b->compiler), "%.*s", (int)(n - 2), p + 1);
	}
	for (p = m; !b->compiler[0] && (p = memmem(p, (size_t)(end - p), "[Clang ", 7)); p++) {
		size_t n = printable_at(p, end, sizeof(b->compiler));

		if (n > 8 && p[n - 1] == ']' && p > m && (p[-1] == '\n' || p[-1] == '\0'))
			snprintf(b->compiler, sizeof(b->compiler), "%.*s", (int)(n - 2), p + 1);
	}
	/* "3.11." then digits, and a release tag (a1, rc2, +) at most: the whole string. */
	for (p = m; xylen && !*got_version && (p = memmem(p, (size_t)(end - p), xy, xylen)); p++) {
		size_t n = printable_at(p, end, sizeof(b->version) - 1), k = xylen;

		if (p == m || p[-1] != '\0' || n <= xylen + 1 || p[xylen] != '.')
			continue;
		for (k = xylen + 1; k < n && p[k] >= '0' && p[k] <= '9'; k++)
			;
		if (k == xylen + 1 || n - k > 4 || strspn(p + k, "abrc+0123456789") != n - k)
			continue;
		snprintf(b->version, sizeof(b->version), "%.*s", (int)n, p);
		b->version_from = "the program";
		*got_version = true;
	}
	munmap((void *)m, len);
}

/* A _sysconfigdata value: 'KEY': 'text' or 'KEY': 1, into out. */
static bool sysconfig_value(const char *text, const char *key, char *out, size_t size)
{
	char needle[80];
	const char *at, *v;
	size_t n;

	snprintf(needle, sizeof(needle), "'%s': ", key);
	if (!(at = strstr(text, needle)))
		return false;
	v = at + strlen(needle);
	if (*v == '\'') {
		v++;
		n = strcspn(v, "'\n");
	} else {
		n = strspn(v, "0123456789");
	}
	if (!n || n >= size)
		return false;
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

static void from_sysconfig(const struct ct_python *py, struct ct_python_build *b)
{
	char pattern[PATH_MAX], file[PATH_MAX], v[16];
	char *text;

	if (!py->base || !py->version[0])
		return;
	snprintf(pattern, sizeof(pattern), "%s/lib/python%s*/_sysconfigdata_*.py", py->base,
		 py->version);
	if (!first_match(pattern, file, sizeof(file)) || !(text = ct_read_small_file(file, 4 << 20)))
		return;
	sysconfig_value(text, "SOABI", b->soabi, sizeof(b->soabi));
	if (sysconfig_value(text, "Py_GIL_DISABLED", v, sizeof(v)) && strcmp(v, "1") == 0)
		snprintf(b->flags, sizeof(b->flags), "free-threaded");
	if (sysconfig_value(text, "Py_DEBUG", v, sizeof(v)) && strcmp(v, "1") == 0) {
		size_t n = strlen(b->flags);

		snprintf(b->flags + n, sizeof(b->flags) - n, "%sdebug", n ? ", " : "");
	}
	free(text);
}

void ct_python_build_read(const struct ct_python *py, struct ct_python_build *b)
{
	char pattern[PATH_MAX], lib[PATH_MAX];
	bool got = false;

	memset(b, 0, sizeof(*b));
	if (py->cfg_version[0]) {
		snprintf(b->version, sizeof(b->version), "%s", py->cfg_version);
		b->version_from = "pyvenv.cfg";
		got = true;
	} else if (from_patchlevel(py, b->version, sizeof(b->version))) {
		b->version_from = "patchlevel.h";
		got = true;
	}
	from_sysconfig(py, b);
	/* The program, then its libpython when it was built --enable-shared. */
	scan_file(py->real, py->version, b, &got);
	if ((!got || !b->compiler[0]) && py->base && py->version[0]) {
		snprintf(pattern, sizeof(pattern), "%s/lib/libpython%s*.so.1*", py->base, py->version);
		if (first_match(pattern, lib, sizeof(lib)))
			scan_file(lib, py->version, b, &got);
	}
}

/* Small helpers every command uses. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

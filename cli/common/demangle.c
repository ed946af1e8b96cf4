/* C++ names in words through libstdc++'s demangler; see demangle.h. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn demangler(void)
{
	static bool looked;
	static cxa_demangle_fn fn;

	if (!looked) {
		/*
		 * RTLD_LOCAL: its symbols must not serve anything else in this
		 * process. Never closed: the handle lives as long as the CLI.
		 */
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		looked = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

char *ct_demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = -1;
	char *out;

	/* Only Itanium-ABI names: a C name would be "demangled" as a type name. */
	if (!name || strncmp(name, "_Z", 2) != 0 || !(fn = demangler()))
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The ends of the leading <length><identifier> parts of an Itanium-ABI
 * name: "_ZN3c104cuda9SetDeviceEi" gives the ends of "_ZN3c10",
 * "_ZN3c104cuda" and "_ZN3c104cuda9SetDevice". Template arguments and
 * special names end the walk; what came before stays.
 */
size_t ct_mangled_parts(const char *s, size_t *ends, size_t max)
{
	size_t n = 0, len = strlen(s);
	const char *p;

	if (strncmp(s, "_ZN", 3) == 0) {
		p = s + 3;
		p += strspn(p, "rVK");
		if (*p == 'R' || *p == 'O')
			p++;
		if (p[0] == 'S' && p[1] == 't')
			p += 2;
	} else if (strncmp(s, "_Z", 2) == 0) {
		p = s + 2;
	} else {
		return 0;
	}
	while (n < max && isdigit((unsigned char)*p)) {
		char *end;
		unsigned long k = strtoul(p, &end, 10);

		if (k == 0 || k > len - (size_t)(end - s))
			break;
		p = end + k;
		ends[n++] = (size_t)(p - s);
	}
	return n;
}

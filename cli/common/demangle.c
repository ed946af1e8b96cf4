/* C++ names in words through libstdc++'s demangler; see demangle.h. */
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

/* Loads libzip with dlopen; see zipload.h. */
#include <dlfcn.h>
#include <stdio.h>

#include "zipload.h"

#ifndef CT_LIBZIP_SONAME
#define CT_LIBZIP_SONAME "libzip.so.4"
#endif

/*
 * The sonames tried, the one built against first. libzip 1.10 (soname 5:
 * Debian trixie, Fedora 39 and later) changed only functions cudatrace
 * does not call (zip_source_zip's flags); every function and structure of
 * CT_ZIP_FUNCTIONS is the same in 4 and 5, so a build against either
 * reads wheels with either, as a wheel built on one distribution must on
 * the others.
 */
static const char *const sonames[] = { CT_LIBZIP_SONAME, "libzip.so.5", "libzip.so.4" };

const struct ct_zip *ct_zip_load(char *why, size_t size)
{
	static struct ct_zip z;
	static int loaded;
	const char *soname = NULL;
	char first[256] = "";
	void *h = NULL;
	size_t i;

	if (loaded)
		return &z;
	for (i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && !h; i++) {
		soname = sonames[i];
		h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
		/* The build's own soname says why best, when none is there. */
		if (!h && !first[0])
			snprintf(first, sizeof(first), "%s", dlerror());
	}
	if (!h) {
		snprintf(why, size, "cannot read wheels without libzip: %s", first);
		return NULL;
	}
#define CT_ZIP_RESOLVE(name)                                                  \
	if (!(*(void **)&z.name = dlsym(h, #name))) {                         \
		snprintf(why, size, "%s lacks %s", soname, #name);            \
		dlclose(h);                                                   \
		return NULL;                                                  \
	}
	CT_ZIP_FUNCTIONS(CT_ZIP_RESOLVE)
#undef CT_ZIP_RESOLVE
	loaded = 1;
	return &z;
}

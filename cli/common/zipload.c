/* Loads libzip with dlopen; see zipload.h. */
#include <dlfcn.h>
#include <stdio.h>

#include "zipload.h"

#ifndef CT_LIBZIP_SONAME
#define CT_LIBZIP_SONAME "libzip.so.4"
#endif

const struct ct_zip *ct_zip_load(char *why, size_t size)
{
	static struct ct_zip z;
	static int loaded;
	void *h;

	if (loaded)
		return &z;
	h = dlopen(CT_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, size, "cannot read wheels without libzip: %s",
			 dlerror());
		return NULL;
	}
#define CT_ZIP_RESOLVE(name)                                                  \
	if (!(*(void **)&z.name = dlsym(h, #name))) {                         \
		snprintf(why, size, "%s lacks %s", CT_LIBZIP_SONAME, #name);  \
		dlclose(h);                                                   \
		return NULL;                                                  \
	}
	CT_ZIP_FUNCTIONS(CT_ZIP_RESOLVE)
#undef CT_ZIP_RESOLVE
	loaded = 1;
	return &z;
}

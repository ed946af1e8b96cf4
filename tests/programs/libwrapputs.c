/*
 * Another preloaded library that wraps puts with dlsym(RTLD_NEXT): a
 * dlsym interposer that is not a tail call sends this into recursion.
 */
#include <dlfcn.h>
#include <stdio.h>

int puts(const char *s)
{
	int (*next)(const char *);

	*(void **)&next = dlsym(RTLD_NEXT, "puts");
	printf("[wrapped] ");
	return next(s);
}

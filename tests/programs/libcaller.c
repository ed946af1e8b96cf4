/*
 * Has RUNPATH $ORIGIN/sub and dlopens a sibling found only there: a
 * dlopen wrapper that is not a tail call makes this fail (DESIGN.md 1).
 */
#include <dlfcn.h>
#include <stdio.h>

int caller_call(void)
{
	void *h = dlopen("libtarget.so", RTLD_NOW);
	int (*f)(void);

	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return -1;
	}
	*(void **)&f = dlsym(h, "target_answer");
	return f ? f() : -1;
}

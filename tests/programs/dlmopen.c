/* A library in a new namespace, where preloads do not reach. */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *h = dlmopen(LM_ID_NEWLM, "libm.so.6", RTLD_NOW);
	double (*c)(double);

	if (!h) {
		printf("dlmopen failed: %s\n", dlerror());
		return 1;
	}
	*(void **)&c = dlsym(h, "cos");
	printf("cos(0) = %.1f\n", c ? c(0.0) : -1.0);
	return 0;
}

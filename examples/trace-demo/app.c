/*
 * A stand-in for a framework starting up: it looks for a CUDA 12 runtime
 * first (as a wheel built for CUDA 12 would), falls back to CUDA 13, and
 * asks the runtime how many GPUs there are.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	static const char *const runtimes[] = { "libcudart.so.12", "libcudart.so.13" };
	int (*count)(int *);
	const char *(*text)(int);
	void *rt = NULL;
	int i, n = 0, rc;

	for (i = 0; i < 2 && !rt; i++) {
		rt = dlopen(runtimes[i], RTLD_NOW | RTLD_GLOBAL);
		if (!rt)
			printf("app: cannot load %s: %s\n", runtimes[i], dlerror());
	}
	if (!rt) {
		printf("app: no CUDA runtime\n");
		return 1;
	}
	*(void **)&count = dlsym(rt, "cudaGetDeviceCount");
	*(void **)&text = dlsym(rt, "cudaGetErrorString");
	rc = count(&n);
	printf("app: cudaGetDeviceCount: %s, %d GPU(s)\n", text(rc), rc ? 0 : n);
	return rc ? 1 : 0;
}

/*
 * Loads a CUDA runtime by path and asks it for the GPUs, as a framework
 * that dlopens cudart does. usage: rtload /path/to/libcudart.so.N
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*count)(int *), (*version)(int *);
	const char *(*text)(int);
	void *h;
	int n = -1, v = 0, rc;

	if (argc < 2)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	*(void **)&count = dlsym(h, "cudaGetDeviceCount");
	*(void **)&version = dlsym(h, "cudaRuntimeGetVersion");
	*(void **)&text = dlsym(h, "cudaGetErrorString");
	version(&v);
	rc = count(&n);
	printf("runtime %d: cudaGetDeviceCount %d (%s)\n", v, rc, text(rc));
	return 0;
}

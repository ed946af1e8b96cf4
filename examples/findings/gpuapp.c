/*
 * What a framework does when it starts, step by step, so that each
 * example in this folder can reproduce one failure:
 *
 *   gpuapp [--driver] [--runtime PATH|NAME] [--global LIB] [--load LIB]...
 *
 * --driver   dlopen("libcuda.so.1"), cuInit(0), count the GPUs
 * --runtime  dlopen a CUDA runtime (RTLD_GLOBAL, as frameworks load it, so
 *            that extensions built with -cudart shared resolve against it)
 *            and ask it for the GPUs
 * --global   dlopen a library with RTLD_GLOBAL and call nothing (a runtime
 *            that extensions built with -cudart shared resolve against)
 * --load     dlopen a library (an extension, a CUDA library); may repeat
 *
 * It prints what each step got and exits 1 when a step failed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	int (*init)(unsigned), (*count)(int *);
	int rc, n = 0;

	if (!h) {
		printf("driver: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	if (!init || !count) {
		printf("driver: libcuda.so.1 lacks cuInit\n");
		return 1;
	}
	rc = init(0);
	if (rc == 0)
		count(&n);
	printf("driver: cuInit %d, %d GPU(s)\n", rc, n);
	return rc != 0;
}

static int runtime(const char *name)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
	int (*count)(int *);
	const char *(*text)(int);
	int rc, n = 0;

	if (!h) {
		printf("runtime: %s\n", dlerror());
		return 1;
	}
	*(void **)&count = dlsym(h, "cudaGetDeviceCount");
	*(void **)&text = dlsym(h, "cudaGetErrorString");
	if (!count || !text) {
		printf("runtime: %s has no cudaGetDeviceCount\n", name);
		return 1;
	}
	rc = count(&n);
	printf("runtime: cudaGetDeviceCount: %s, %d GPU(s)\n", text(rc), n);
	return rc != 0;
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--driver") == 0) {
			failed |= driver();
		} else if (strcmp(argv[i], "--runtime") == 0 && i + 1 < argc) {
			failed |= runtime(argv[++i]);
		} else if (strcmp(argv[i], "--global") == 0 && i + 1 < argc) {
			if (!dlopen(argv[++i], RTLD_NOW | RTLD_GLOBAL)) {
				printf("global: %s\n", dlerror());
				failed = 1;
			}
		} else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc) {
			if (!dlopen(argv[++i], RTLD_NOW)) {
				printf("load: %s\n", dlerror());
				failed = 1;
			} else {
				printf("load: %s ok\n", argv[i]);
			}
		} else {
			fprintf(stderr, "usage: gpuapp [--driver] [--runtime LIB] [--global LIB] "
					"[--load LIB]...\n");
			return 2;
		}
	}
	return failed;
}

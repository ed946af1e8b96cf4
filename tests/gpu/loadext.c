/* Loads the sm_80-only extension and launches its kernel. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./libext80.so", RTLD_NOW);
	int (*launch)(void);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&launch = dlsym(h, "ext_launch");
	printf("ext_launch: %d\n", launch());
	return 0;
}

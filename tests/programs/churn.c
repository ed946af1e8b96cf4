/*
 * churn N LIB...: N rounds of dlopen every LIB (RTLD_NOW | RTLD_LOCAL),
 * then dlclose them all, as plugin loaders and test harnesses do. Prints
 * how many loads succeeded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *h[64];
	int n, i, r, ok = 0;

	if (argc < 3 || argc - 2 > 64) {
		fprintf(stderr, "usage: churn N LIB... (at most 64)\n");
		return 2;
	}
	n = atoi(argv[1]);
	for (r = 0; r < n; r++) {
		for (i = 2; i < argc; i++)
			ok += (h[i - 2] = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) != NULL;
		for (i = 2; i < argc; i++)
			if (h[i - 2])
				dlclose(h[i - 2]);
	}
	printf("%d loads of %d\n", ok, n * (argc - 2));
	return 0;
}

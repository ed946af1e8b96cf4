/*
 * bench: dlopen every library named on the command line (RTLD_NOW |
 * RTLD_GLOBAL, as frameworks load CUDA), then exit. Prints how many loaded.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++)
		n += dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL) != NULL;
	printf("%d of %d loaded\n", n, argc - 1);
	return 0;
}

/* Loads nothing CUDA: the baseline of the equivalence suite. */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("hello from %d arguments\n", argc - 1);
	if (argc > 1)
		fprintf(stderr, "first argument: %s\n", argv[1]);
	return 0;
}

/* Executes itself N times, then says so. usage: execchain N */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	char next[16];

	if (n > 0) {
		snprintf(next, sizeof(next), "%d", n - 1);
		execl("/proc/self/exe", argv[0], next, (char *)NULL);
		perror("execl");
		return 1;
	}
	printf("end of the chain\n");
	return 0;
}

/* Killed by SIGSEGV. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	printf("about to crash\n");
	fflush(stdout);
	raise(SIGSEGV);
	return 0;
}

/* Leaves with _exit(7), skipping atexit handlers and stdio flushing. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("before _exit\n");
	fflush(stdout);
	_exit(7);
}

/*
 * A fork child that waits at a gate before its first record, so that a
 * test can plant files where it expects the child's trace (issue 9,
 * points 2 and 3). Prints "child PID of PARENT", then reads one byte from stdin in
 * the child, which then loads a library, asks dlerror and leaves.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int status;
	char c;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (read(0, &c, 1) != 1)
			_exit(5);
		dlopen("libm.so.6", RTLD_NOW);
		dlopen("libcudatrace-test-absent.so", RTLD_NOW);
		dlerror();
		_exit(3);
	}
	printf("child %d of %d\n", (int)pid, (int)getpid());
	fflush(stdout);
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
	return 0;
}

/* fork without exec: the child loads a library and exits with 3. */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		void *h = dlopen("libm.so.6", RTLD_NOW);

		_exit(h ? 3 : 4);
	}
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
	return 0;
}

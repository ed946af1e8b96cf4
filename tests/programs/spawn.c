/* posix_spawn of a child, and an exec with the environment scrubbed. */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char *child[] = { "hello", "spawned", NULL };
	char *none[] = { NULL };
	pid_t pid;
	int status;

	if (argc < 2)
		return 2;
	if (posix_spawn(&pid, argv[1], NULL, NULL, child, environ) != 0)
		return 1;
	waitpid(pid, &status, 0);
	printf("spawned child exited %d\n", WEXITSTATUS(status));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execve(argv[1], child, none); /* no LD_AUDIT, no LD_PRELOAD */
		_exit(127);
	}
	waitpid(pid, &status, 0);
	printf("scrubbed child exited %d\n", WEXITSTATUS(status));
	return 0;
}

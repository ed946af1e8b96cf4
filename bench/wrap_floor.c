/*
 * The least a tracer that runs the program as its child can cost: fork,
 * exec and wait, nothing else (bench/trace's "wrapped" variant, with the
 * shim injected through the environment as cudatrace injects it). What
 * cudatrace -qq costs beyond this is its own start and its run record.
 *
 *   wrap_floor PROGRAM [ARG...]   exits with the program's status
 */
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: wrap_floor PROGRAM [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * bench/peak_rss: the peak resident set of a command, for bench/scan;
 * never a test, not installed.
 *
 *   build/bench/peak_rss COMMAND [ARG...]
 *
 * Runs COMMAND with its output discarded and prints "maxrss_kib=N
 * status=N". A process started by a big parent (Python) inherits the
 * parent's peak in ru_maxrss, through fork and exec alike; started from
 * this small one, the figure is the command's own.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peak_rss COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("peak_rss: wait4");
		return 1;
	}
	printf("maxrss_kib=%ld status=%d\n", ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

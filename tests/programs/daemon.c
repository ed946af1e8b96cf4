/*
 * daemon SECONDS LIB...: becomes a daemon the classic way (fork, setsid,
 * fork; issue 31, point 7). The worker waits until its parent is gone (its
 * ppid is no longer the middle process: 1, or a subreaper), dlopens each
 * LIB (libraries that are not there), tells the program, and sleeps
 * SECONDS with its stdio on /dev/null, outliving the program, which exits
 * 0 once told. It prints the worker's pid.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void worker(int done, pid_t middle, unsigned seconds, int n, char **libs)
{
	int fd = open("/dev/null", O_RDWR), i;
	char c = 'x';

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	while (getppid() == middle)
		usleep(10000);
	for (i = 0; i < n; i++)
		dlopen(libs[i], RTLD_NOW);
	if (write(done, &c, 1) != 1)
		_exit(1);
	close(done);
	sleep(seconds);
	_exit(0);
}

int main(int argc, char **argv)
{
	int fds[2], status;
	pid_t middle, pid;
	char c;

	if (argc < 3 || pipe(fds) != 0)
		return 2;
	fflush(stdout);
	middle = fork();
	if (middle < 0)
		return 2;
	if (middle == 0) {
		close(fds[0]);
		if (setsid() < 0)
			_exit(2);
		middle = getpid();
		pid = fork();
		if (pid == 0)
			worker(fds[1], middle, (unsigned)atoi(argv[1]), argc - 2, argv + 2);
		if (pid < 0)
			_exit(2);
		printf("worker %ld\n", (long)pid);
		fflush(stdout);
		_exit(0);
	}
	close(fds[1]);
	if (waitpid(middle, &status, 0) != middle || !WIFEXITED(status) || WEXITSTATUS(status))
		return 2;
	/* Told once the worker has asked for every library. */
	if (read(fds[0], &c, 1) != 1)
		return 2;
	return 0;
}

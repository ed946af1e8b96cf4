/*
 * bench: what one trace record costs in system calls, on the file system
 * of DIR, N records each way (median of 5 rounds):
 *
 *   shim       as preload/record.c writes a record: getpid, gettid, open
 *              of the trace by name, fstat (is it still our file?),
 *              getrlimit (room under RLIMIT_FSIZE), write, close;
 *   checked    a descriptor held open, checked with fstat before each
 *              write (the check cannot make the write safe: the number can
 *              change hands between the two calls);
 *   unchecked  a descriptor held open, write only.
 *
 * Prints "shim US checked US unchecked US" (microseconds per record).
 * bench/trace sets these against the time the churn's loads leave.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RECORD 200 /* bytes: about the churn's mean record */
#define ROUNDS 5

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static char rec[RECORD];

static int one(const char *path, int how, int fd)
{
	struct stat st;
	struct rlimit lim;

	if (how == 0) {
		(void)syscall(SYS_getpid);
		(void)syscall(SYS_gettid);
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) != 0 || getrlimit(RLIMIT_FSIZE, &lim) != 0 ||
		    write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec) || close(fd) != 0)
			return -1;
		return 0;
	}
	if (how == 1 && fstat(fd, &st) != 0)
		return -1;
	return write(fd, rec, sizeof(rec)) == (ssize_t)sizeof(rec) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "shim", "checked", "unchecked" };
	char path[4096];
	double us[3][ROUNDS];
	int n, how, r, i, fd;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: record_cost DIR N\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/record-cost.jsonl", argv[1]);
	memset(rec, 'x', sizeof(rec) - 1);
	rec[sizeof(rec) - 1] = '\n';
	for (r = 0; r < ROUNDS; r++)
		for (how = 0; how < 3; how++) {
			double t0;

			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
			if (fd < 0) {
				perror(path);
				return 2;
			}
			t0 = now();
			for (i = 0; i < n; i++)
				if (one(path, how, fd) != 0) {
					perror(path);
					return 2;
				}
			us[how][r] = (now() - t0) / n * 1e6;
			close(fd);
		}
	unlink(path);
	for (how = 0; how < 3; how++) {
		qsort(us[how], ROUNDS, sizeof(double), cmp);
		printf("%s%s %.2f", how ? " " : "", names[how], us[how][ROUNDS / 2]);
	}
	printf("\n");
	return 0;
}

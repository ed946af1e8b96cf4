/*
 * Forks that race the shim's first record (issue 9, point 4): a worker
 * whose threads make their first dlopen while it forks; the grandchild
 * leaves through _exit, a hooked call, and must not hang. The worker is a
 * fresh fork of a parent that made no preload record, so every round
 * races the preload's first initialisation anew.
 *
 * forkrace [ROUNDS]: prints "N forks, M hung"; exits 1 when one hung.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS 4

static volatile int go;

static void *work(void *arg)
{
	long delay = (long)arg * 200;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	while (delay--)
		__asm__ volatile("" ::: "memory");
	dlopen("libm.so.6", RTLD_NOW);
	return NULL;
}

/* Waits up to ms for pid; kills it when it does not end. True if it ended. */
static int reap(pid_t pid, int ms)
{
	struct timespec tick = { 0, 1000000 };
	int status, i;

	for (i = 0; i < ms; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return 1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 0;
}

static void worker(void)
{
	pthread_t t[THREADS];
	pid_t g;
	long i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	g = fork();
	if (g == 0)
		_exit(0);
	i = g > 0 && !reap(g, 3000);
	/* The threads may be the ones that hang; leave without them. */
	_exit((int)i);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000, hung = 0, i;

	for (i = 0; i < rounds; i++) {
		int status;
		pid_t w = fork();

		if (w == 0)
			worker();
		if (w < 0 || waitpid(w, &status, 0) != w || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			hung++;
	}
	printf("%d forks, %d hung\n", rounds, hung);
	return hung ? 1 : 0;
}

/*
 * Dies of a signal: itself, or a fork of it (the parent waits and exits
 * 0), after touching the CUDA driver when asked.
 *
 * usage: crash [--cuda | --load] [--child] segv|kill|abrt
 *   --cuda   dlopen("libcuda.so.1") and cuInit(0) first (the test double,
 *            with build/fakecuda on LD_LIBRARY_PATH)
 *   --load   only dlopen("libcuda.so.1")
 *   --child  a fork dies; the parent says how and exits 0
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch_cuda(int init_too)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	int (*init)(unsigned);

	if (!h || !init_too) {
		printf("libcuda.so.1: %s\n", h ? "loaded" : dlerror());
		fflush(stdout);
		return;
	}
	*(void **)&init = dlsym(h, "cuInit");
	printf("cuInit: %d\n", init ? init(0) : -1);
	fflush(stdout);
}

static void die(const char *how)
{
	volatile int *volatile nowhere = NULL;

	if (strcmp(how, "segv") == 0)
		*nowhere = 1; /* a real fault, not raise() */
	else if (strcmp(how, "abrt") == 0)
		abort();
	else
		raise(SIGKILL);
	_exit(99); /* not reached */
}

int main(int argc, char **argv)
{
	int i, cuda = 0, child = 0, status;
	const char *how = "kill";
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cuda") == 0)
			cuda = 2;
		else if (strcmp(argv[i], "--load") == 0)
			cuda = 1;
		else if (strcmp(argv[i], "--child") == 0)
			child = 1;
		else
			how = argv[i];
	}
	printf("about to die: %s\n", how);
	fflush(stdout);
	if (!child) {
		if (cuda)
			touch_cuda(cuda == 2);
		die(how);
	}
	pid = fork();
	if (pid == 0) {
		if (cuda)
			touch_cuda(cuda == 2);
		die(how);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	printf("child %s by signal %d\n", WIFSIGNALED(status) ? "killed" : "not killed",
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}

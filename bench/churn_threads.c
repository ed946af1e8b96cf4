/*
 * bench: THREADS threads, each ROUNDS times dlopen every library named on
 * the command line (RTLD_NOW | RTLD_LOCAL) and dlclose them again: the
 * heavy dlopen/dlclose churn of a multi-threaded program (data loaders,
 * plugin hosts). THREADS and ROUNDS come from the environment (default 16
 * and 50). Prints how many loads succeeded.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static char **libs;
static int nlibs, rounds;
static int loaded;

static void *churn(void *arg)
{
	void *h[64];
	int r, i, ok = 0;

	(void)arg;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nlibs; i++)
			ok += (h[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL)) != NULL;
		for (i = 0; i < nlibs; i++)
			if (h[i])
				dlclose(h[i]);
	}
	__atomic_add_fetch(&loaded, ok, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *t = getenv("THREADS"), *r = getenv("ROUNDS");
	int nthreads = t ? atoi(t) : 16, i;
	pthread_t th[256];

	rounds = r ? atoi(r) : 50;
	libs = argv + 1;
	nlibs = argc - 1 > 64 ? 64 : argc - 1;
	if (nthreads < 1 || nthreads > 256)
		nthreads = 16;
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, churn, NULL);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("%d loads of %d\n", loaded, nthreads * rounds * nlibs);
	return 0;
}

/* 16 threads loading and unloading libraries at once. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 16
#define ROUNDS 40

static void *work(void *arg)
{
	static const char *const libs[] = { "libm.so.6", "libz.so.1", "libcudatrace-test-absent.so" };
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		void *h = dlopen(libs[i % 3], RTLD_NOW);

		if (h) {
			ok++;
			dlclose(h);
		}
	}
	return (void *)ok;
}

int main(void)
{
	pthread_t t[THREADS];
	long total = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("%d threads, %ld loads\n", THREADS, total);
	return 0;
}

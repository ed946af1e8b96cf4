/*
 * Records lost while no descriptor is free, and no record after them
 * (issue 9, point 8): asks dlerror with the table full, frees the
 * descriptors and returns from main, which no hook sees.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
	struct rlimit r = { 64, 64 };
	int fds[64], n = 0, i;
	const char *msg;

	dlopen("libcudatrace-test-absent.so", RTLD_NOW);
	setrlimit(RLIMIT_NOFILE, &r);
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	msg = dlerror();
	for (i = 0; i < n; i++)
		close(fds[i]);
	printf("%s\n", msg ? "dlerror said why" : "no dlerror");
	return 0;
}

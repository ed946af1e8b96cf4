/*
 * Closes every descriptor above stderr, then opens files and a library:
 * the descriptor numbers it gets must be the same traced or not.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd, i;

	for (fd = 3; fd < 1024; fd++)
		close(fd);
	for (i = 0; i < 3; i++) {
		fd = open("/dev/null", O_RDONLY);
		printf("open gave %d\n", fd);
	}
	printf("dlopen: %s\n", dlopen("libm.so.6", RTLD_NOW) ? "ok" : dlerror());
	fd = open("/dev/null", O_RDONLY);
	printf("open gave %d\n", fd);
	return 0;
}

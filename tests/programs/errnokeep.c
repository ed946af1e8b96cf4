/* errno is the program's: the hooks never change it. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	errno = 1234;
	dlerror();
	printf("after dlerror: %d\n", errno);
	errno = 4321;
	dlopen("libm.so.6", RTLD_NOW);
	printf("after dlopen: %d\n", errno);
	execl("/nonexistent/program", "x", (char *)NULL);
	printf("after a failed exec: %d\n", errno);
	return 0;
}

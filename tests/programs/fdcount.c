/* Opens descriptors until none is left: the count must not change. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
	struct rlimit r = { 64, 64 };
	int n = 0;

	setrlimit(RLIMIT_NOFILE, &r);
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	printf("opened %d descriptors\n", n);
	return 0;
}

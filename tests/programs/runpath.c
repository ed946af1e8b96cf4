/* main -> libcaller.so (RUNPATH $ORIGIN/sub) -> dlopen("libtarget.so"). */
#include <stdio.h>

int caller_call(void);

int main(void)
{
	printf("target says %d\n", caller_call());
	return 0;
}

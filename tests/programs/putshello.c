/* Calls puts, which a preloaded library wraps. */
#include <stdio.h>

int main(void)
{
	puts("hello through puts");
	return 0;
}

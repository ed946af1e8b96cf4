/* RTLD_NOLOAD probes: of a missing library and of one already loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	void *a = dlopen("libcudatrace-test-absent.so", RTLD_NOW | RTLD_NOLOAD);
	const char *e = dlerror();
	char text[256];
	void *b;

	/* The next dl call frees the message: keep a copy. */
	snprintf(text, sizeof(text), "%s", e ? e : "no error");
	b = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	printf("absent: %s (%s)\n", a ? "loaded" : "not loaded", text);
	printf("libc: %s\n", b ? "loaded" : "not loaded");
	return 0;
}

/*
 * errno is the program's also around the CUDA driver's entry points the
 * shim wraps: cuInit and cuModuleLoad reached through dlsym (the wrappers
 * la_symbind64 hands out), with errno set before each call. With
 * --lose-trace, the program first puts a folder in place of its own trace
 * files, so that recording the calls fails.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void lose_trace(void)
{
	const char *dir = getenv("CUDATRACE_DIR");
	struct dirent *de;
	char path[8192];
	DIR *d;

	if (!dir || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".jsonl")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			/* A folder in its place: the next record's open fails (EISDIR). */
			if (unlink(path) == 0)
				mkdir(path, 0700);
		}
	closedir(d);
}

int main(int argc, char **argv)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	int (*init)(unsigned);
	int (*load)(void **, const char *);
	void *mod = NULL;

	if (!h) {
		printf("no driver: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&load = dlsym(h, "cuModuleLoad");
	if (!init || !load) {
		printf("no entry points\n");
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "--lose-trace") == 0)
		lose_trace();
	errno = 4321;
	init(0);
	printf("after cuInit: %d\n", errno);
	errno = 1234;
	load(&mod, "/nonexistent/module.cubin");
	printf("after cuModuleLoad: %d\n", errno);
	return 0;
}

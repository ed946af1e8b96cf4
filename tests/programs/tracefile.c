/*
 * Swaps its own trace file while it runs, as anyone who may write to a
 * shared trace folder can (issue 9, points 2 and 3). The shim must write
 * neither into what took its place nor block on it.
 *
 * tracefile MODE: MODE is "fifo" (no reader), "fifo-read" (a FIFO this
 * program reads from), "file" (a regular file of the same owner). The
 * original file is kept as NAME.moved. Prints what the planted thing got.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fifo";
	const char *dir = getenv("CUDATRACE_DIR");
	char prefix[256], name[4096], moved[4200], buf[4096];
	struct utsname u;
	struct dirent *de;
	DIR *d;
	int fd = -1;
	ssize_t got = 0, r;

	/* The preload half has opened the file by now. */
	dlopen("libm.so.6", RTLD_NOW);
	if (!dir || uname(&u) != 0 || !(d = opendir(dir)))
		return 2;
	snprintf(prefix, sizeof(prefix), "%s-%d-", u.nodename, (int)getpid());
	name[0] = '\0';
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 &&
		    strstr(de->d_name, ".jsonl"))
			snprintf(name, sizeof(name), "%s/%s", dir, de->d_name);
	closedir(d);
	if (!name[0])
		return 2;
	snprintf(moved, sizeof(moved), "%s.moved", name);
	if (rename(name, moved) != 0)
		return 2;
	if (strncmp(mode, "fifo", 4) == 0) {
		if (mkfifo(name, 0666) != 0)
			return 2;
		if (strcmp(mode, "fifo-read") == 0)
			fd = open(name, O_RDONLY | O_NONBLOCK);
	} else {
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0 || write(fd, "planted\n", 8) != 8)
			return 2;
		close(fd);
		fd = -1;
	}
	dlopen("libz.so.1", RTLD_NOW);
	dlopen("libcudatrace-test-absent.so", RTLD_NOW);
	dlerror();
	if (fd >= 0)
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			got += r;
	printf("%s got %ld bytes\n", mode, (long)got);
	return 0;
}

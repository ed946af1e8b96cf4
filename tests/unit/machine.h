/*
 * Shared by the loader model's tests (test_resolve, test_diagnose,
 * test_doctor): set-up commands, and a made-up machine: the platform facts of glibc 2.36 on this
 * machine's ELF class and architecture, with the default directories,
 * subdirectories and ld.so.cache path a test chooses (under its own
 * folder), so nothing depends on the real loader or /etc/ld.so.cache.
 */
#ifndef CT_TEST_MACHINE_H
#define CT_TEST_MACHINE_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"

/* Run a shell command a test's set-up needs; the test fails if it does. */
static inline void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("setup failed: %s", cmd);
}

/* The ELF machine of this test program, as the loader would have it. */
static inline unsigned host_machine(void)
{
	unsigned char h[20];
	int fd = open("/proc/self/exe", O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, h, sizeof(h)), (ssize_t)sizeof(h));
	close(fd);
	return (unsigned)(h[18] | h[19] << 8);
}

/*
 * like's platform, borrowing the strings given (ct_loader_init_like
 * copies them): $LIB "lib", $PLATFORM "x86_64", the directories in order.
 */
static inline void made_up_platform(struct ct_loader *like, char **dirs, size_t ndirs,
				    char **subdirs, size_t nsubdirs, char *cache)
{
	memset(like, 0, sizeof(*like));
	like->plat.lib = "lib";
	like->plat.platform = "x86_64";
	like->plat.version = "2.36";
	like->plat.major = 2;
	like->plat.minor = 36;
	like->plat.system_dirs = dirs;
	like->plat.nsystem_dirs = ndirs;
	like->plat.subdirs = subdirs;
	like->plat.nsubdirs = nsubdirs;
	like->plat.cache = cache;
	like->plat.machine = host_machine();
	like->plat.elf_class = sizeof(void *) == 8 ? 64 : 32; /* 32 or 64, not ELFCLASS* */
	like->plat.from_loader = true;
}

#endif

/*
 * libFuzzer target for the loader's view of an ELF file (cli/loader/elfinfo.c):
 * any bytes, written to a file because ct_elfinfo_read takes a path, are
 * read with libelf for DT_NEEDED, SONAME, RPATH/RUNPATH, PT_INTERP and
 * the symbol versions needed and defined, then asked for a version. ASan
 * and UBSan find the overreads and leaks in our code (libelf itself is not
 * instrumented); the checks turn broken invariants into crashes.
 *
 *   make fuzz-elfinfo FUZZ_SECONDS=60   (seeds: tests/fuzz/seeds elfinfo)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file: made once, unlinked at once, opened through /proc. */
static const char *as_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		char tmpl[] = "/tmp/fuzz_elfinfo.XXXXXX";

		if ((fd = mkstemp(tmpl)) < 0 || unlink(tmpl) != 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (pwrite(fd, data, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size) != 0)
		abort();
	return path;
}

/* Reading every string makes ASan check that it is whole and ours. */
static volatile size_t total;

static size_t len(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_elfinfo e;
	size_t i, n = 0;
	int rc;

	ct_elfinfo_init(&e);
	rc = ct_elfinfo_read(&e, as_file(data, size));
	if (rc > 0 || (rc == 0 && e.elf_class != 32 && e.elf_class != 64))
		__builtin_trap();
	n += len(e.interp) + len(e.soname) + len(e.rpath) + len(e.runpath);
	for (i = 0; i < e.nneeded; i++)
		n += strlen(e.needed[i]);
	for (i = 0; i < e.nverneed; i++)
		n += len(e.verneed[i].file) + len(e.verneed[i].version) +
		     len(e.verneed[i].symbol);
	for (i = 0; i < e.nverdef; i++)
		n += strlen(e.verdef[i]);
	(void)ct_elfinfo_defines(&e, "GLIBC_2.2.5");
	if (e.nverdef && !ct_elfinfo_defines(&e, e.verdef[e.nverdef - 1]))
		__builtin_trap();
	ct_elfinfo_release(&e);
	total = n;
	return 0;
}

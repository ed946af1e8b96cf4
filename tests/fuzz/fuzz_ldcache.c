/*
 * libFuzzer target for the ld.so.cache reader (cli/loader/ldcache.c): any bytes,
 * written to a file because ct_ldcache_read takes a path, are read as a
 * cache and looked up, for fixed names and for names the input holds, on a
 * fixed x86-64 haswell platform (ct_platform_load would run the loader)
 * and an aarch64 one. ASan and UBSan find the overreads; the checks turn
 * broken invariants into crashes libFuzzer reports.
 *
 *   make fuzz-ldcache FUZZ_SECONDS=60   (seeds: tests/fuzz/seeds ldcache)
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ldcache.h"
#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *hwcaps[] = { (char *)"x86-64-v3", (char *)"x86-64-v2" };
static const struct ct_platform platforms[] = {
	{ .machine = EM_X86_64, .elf_class = 64, .platform = (char *)"haswell",
	  .hwcaps = hwcaps, .nhwcaps = 2, .hwcap = 0x6, .hwcap_mask = 0x6 },
	{ .machine = EM_AARCH64, .elf_class = 64, .platform = (char *)"aarch64" },
};

/* The input as a file: made once, unlinked at once, opened through /proc. */
static const char *as_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		char tmpl[] = "/tmp/fuzz_ldcache.XXXXXX";

		if ((fd = mkstemp(tmpl)) < 0 || unlink(tmpl) != 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (pwrite(fd, data, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size) != 0)
		abort();
	return path;
}

static void lookup(const struct ct_ldcache *c, const struct ct_platform *p, const char *name)
{
	const struct ct_ldcache_entry *e = ct_ldcache_lookup(c, p, name);

	if (e && (e < c->entries || e >= c->entries + c->n || strcmp(e->key, name) != 0 ||
		  !ct_ldcache_fits(e, p)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_ldcache c;
	int rc = ct_ldcache_read(&c, as_file(data, size));
	size_t i, k;

	if (rc > 0 || (rc < 0 && (c.n || c.entries || c.generator || c.present)) ||
	    (rc == 0 && (!c.present || !c.format)))
		__builtin_trap();
	for (i = 0; i < c.n; i++)
		if (!c.entries[i].key || !c.entries[i].path)
			__builtin_trap();
	for (k = 0; k < sizeof(platforms) / sizeof(platforms[0]); k++) {
		lookup(&c, &platforms[k], "libc.so.6");
		lookup(&c, &platforms[k], "libctseed.so.1");
		if (c.n) {
			lookup(&c, &platforms[k], c.entries[0].key);
			lookup(&c, &platforms[k], c.entries[c.n - 1].key);
		}
	}
	ct_ldcache_release(&c);
	return 0;
}

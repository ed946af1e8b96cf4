/*
 * /etc/ld.so.cache, read from its binary format (reference/resolution.md
 * 2.6) as the loader reads it: the new "glibc-ld.so.cache1.1" layout, the
 * old "ld.so-1.7.0" one, or both (compat: then the new part is used), with
 * glibc-hwcaps and legacy hwcap entries. What the loader looks up there,
 * not what ld.so.conf says: a stale cache is what the loader uses.
 *
 * Ownership: struct ct_ldcache owns its entries; ct_ldcache_release frees.
 */
#ifndef CT_LDCACHE_H
#define CT_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_platform;

struct ct_ldcache_entry {
	char *key;         /* the soname: "libcudart.so.13" */
	char *path;        /* the file */
	int32_t flags;     /* type and ABI: 0x0303 is libc6, x86-64 */
	char *hwcap;       /* glibc-hwcaps subdirectory (as the loader reads the
			      name), or NULL */
	uint64_t legacy_hwcap; /* legacy hardware capability bits, or 0 */
};

struct ct_ldcache {
	struct ct_ldcache_entry *entries;
	size_t n;
	char *generator;   /* "ldconfig (Debian GLIBC 2.36-9) ...", or NULL */
	const char *format; /* "new", "compat" (old then new) or "old" */
	bool present;
};

/*
 * Read the cache at path. Returns 0, -errno when it cannot be read, or
 * -EBADMSG when it is not a cache (then nothing is loaded).
 */
int ct_ldcache_read(struct ct_ldcache *c, const char *path);
void ct_ldcache_release(struct ct_ldcache *c);

/*
 * What the loader finds for name: the best usable glibc-hwcaps entry,
 * else the first plain entry whose flags fit the loader's machine.
 * Returns the entry or NULL.
 */
const struct ct_ldcache_entry *ct_ldcache_lookup(const struct ct_ldcache *c,
						 const struct ct_platform *p,
						 const char *name);

/* Does the entry's ABI fit this loader (x86-64 libc6, aarch64, ...)? */
bool ct_ldcache_fits(const struct ct_ldcache_entry *e, const struct ct_platform *p);

#endif

/* /etc/ld.so.cache; see ldcache.h. The file is untrusted input. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudatrace.h"
#include "ldcache.h"
#include "platform.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define EXT_MAGIC 0xEAA42174u
#define FLAG_ELF_LIBC6 3
#define FLAG_TYPE_MASK 0xff
#define FLAG_X8664_LIB64 0x0300
#define FLAG_AARCH64_LIB64 0x0a00
#define HWCAP_EXTENSION (1ULL << 62)

static uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A NUL-terminated string at off inside [0, len), or NULL. */
static const char *str_at(const unsigned char *b, size_t len, uint64_t off)
{
	if (off >= len || !memchr(b + off, '\0', len - off))
		return NULL;
	return (const char *)b + off;
}

int ct_ldcache_read(struct ct_ldcache *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	struct stat st;
	unsigned char *b = NULL;
	size_t len, base = 0, i, nlibs, hw_count = 0;
	const unsigned char *hw_offsets = NULL;
	ssize_t got;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size > (1 << 28)) {
		close(fd);
		return -EBADMSG;
	}
	len = (size_t)st.st_size;
	b = ct_xmalloc(len);
	got = read(fd, b, len);
	close(fd);
	if (got != (ssize_t)len) {
		free(b);
		return -EIO;
	}
	/* An old-format cache first, then the new one, 8-byte aligned. */
	if (len >= sizeof(OLD_MAGIC) - 1 + 4 &&
	    memcmp(b, OLD_MAGIC, sizeof(OLD_MAGIC) - 1) == 0) {
		uint32_t nold = u32(b + sizeof(OLD_MAGIC) - 1);

		base = sizeof(OLD_MAGIC) - 1 + 4 + (size_t)nold * 12;
		base = (base + 7) & ~(size_t)7;
	}
	if (base + 48 > len || memcmp(b + base, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) != 0) {
		free(b);
		return -EBADMSG;
	}
	nlibs = u32(b + base + 20);
	if (nlibs > (len - base - 48) / 24) {
		free(b);
		return -EBADMSG;
	}
	/* The extension section: generator string, hwcaps subdirectory names. */
	{
		uint32_t ext = u32(b + base + 32);

		if (ext && base + ext + 8 <= len && u32(b + base + ext) == EXT_MAGIC) {
			uint32_t count = u32(b + base + ext + 4), k;

			for (k = 0; k < count && base + ext + 8 + (k + 1) * 16 <= len; k++) {
				const unsigned char *s = b + base + ext + 8 + k * 16;
				uint32_t tag = u32(s), off = u32(s + 8), size = u32(s + 12);

				if (off > len || size > len - off)
					continue;
				if (tag == 0 && !c->generator) {
					c->generator = ct_xmalloc(size + 1);
					memcpy(c->generator, b + off, size);
					c->generator[size] = '\0';
				} else if (tag == 1) {
					hw_offsets = b + off;
					hw_count = size / 4;
				}
			}
		}
	}
	c->entries = ct_xcalloc(nlibs ? nlibs : 1, sizeof(*c->entries));
	for (i = 0; i < nlibs; i++) {
		const unsigned char *e = b + base + 48 + i * 24;
		/* String offsets count from the new header. */
		const char *key = str_at(b, len, base + u32(e + 4));
		const char *val = str_at(b, len, base + u32(e + 8));
		uint64_t hw = (uint64_t)u32(e + 16) | (uint64_t)u32(e + 20) << 32;
		struct ct_ldcache_entry *out = &c->entries[c->n];

		if (!key || !val)
			continue;
		out->key = ct_xstrdup(key);
		out->path = ct_xstrdup(val);
		out->flags = (int32_t)u32(e);
		if ((hw >> 32 & ~0x3ffULL) == HWCAP_EXTENSION >> 32) {
			uint32_t idx = (uint32_t)hw;
			const char *name = idx < hw_count
						   ? str_at(b, len, base + u32(hw_offsets + idx * 4))
						   : NULL;

			out->hwcap = ct_xstrdup(name ? name : "?");
		} else {
			out->legacy_hwcap = hw;
		}
		c->n++;
	}
	c->present = true;
	free(b);
	return rc;
}

void ct_ldcache_release(struct ct_ldcache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->entries[i].key);
		free(c->entries[i].path);
		free(c->entries[i].hwcap);
	}
	free(c->entries);
	free(c->generator);
	memset(c, 0, sizeof(*c));
}

bool ct_ldcache_fits(const struct ct_ldcache_entry *e, const struct ct_platform *p)
{
	/* The loader takes exactly its own libc6 ABI (_dl_cache_check_flags). */
	switch (p->machine) {
	case EM_X86_64:
		return e->flags == (FLAG_ELF_LIBC6 | FLAG_X8664_LIB64);
	case EM_AARCH64:
		return e->flags == (FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64);
	default:
		return (e->flags & FLAG_TYPE_MASK) == FLAG_ELF_LIBC6;
	}
}

const struct ct_ldcache_entry *ct_ldcache_lookup(const struct ct_ldcache *c,
						 const struct ct_platform *p,
						 const char *name)
{
	const struct ct_ldcache_entry *best_hw = NULL, *plain = NULL;
	size_t best_rank = (size_t)-1, i, k;

	for (i = 0; i < c->n; i++) {
		const struct ct_ldcache_entry *e = &c->entries[i];

		if (strcmp(e->key, name) != 0 || !ct_ldcache_fits(e, p))
			continue;
		if (e->hwcap) {
			/* Usable only when the CPU supports that level. */
			for (k = 0; k < p->nhwcaps; k++)
				if (strcmp(p->hwcaps[k], e->hwcap) == 0 && k < best_rank) {
					best_rank = k;
					best_hw = e;
				}
			continue;
		}
		if (e->legacy_hwcap)
			continue;
		if (!plain)
			plain = e;
	}
	return best_hw ? best_hw : plain;
}

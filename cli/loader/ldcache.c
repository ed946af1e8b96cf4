/* /etc/ld.so.cache; see ldcache.h. The file is untrusted input. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "util.h"
#include "ldcache.h"
#include "platform.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_HEADER 16 /* magic (11) + padding, then the count */
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

/* An entry of either layout; strings at offsets from strtab (bounded). */
static void add_entry(struct ct_ldcache *c, const unsigned char *b, size_t len,
		      size_t strtab, int32_t flags, uint32_t key, uint32_t value,
		      uint64_t hw, bool new_layout, const unsigned char *hw_offsets,
		      size_t hw_count)
{
	const char *k = str_at(b, len, (uint64_t)strtab + key);
	const char *v = str_at(b, len, (uint64_t)strtab + value);
	struct ct_ldcache_entry *out;

	if (!k || !v)
		return;
	out = &c->entries[c->n++];
	out->key = ct_xstrdup(k);
	out->path = ct_xstrdup(v);
	out->flags = flags;
	if (new_layout && (hw >> 32 & ~0x3ffULL) == HWCAP_EXTENSION >> 32) {
		uint32_t idx = (uint32_t)hw;
		/*
		 * The loader reads these names at offsets from the start of
		 * the file (glibc_hwcaps_compare), while ldconfig writes them
		 * from the start of the new part: in a compat cache the names
		 * come out wrong and such entries are never used. Read them as
		 * the loader does.
		 */
		const char *name = idx < hw_count ? str_at(b, len, u32(hw_offsets + idx * 4))
						  : NULL;

		out->hwcap = ct_xstrdup(name ? name : "");
	} else if (new_layout) {
		out->legacy_hwcap = hw;
	}
}

int ct_ldcache_read(struct ct_ldcache *c, const char *path)
{
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	unsigned char *b = NULL;
	size_t len, base = 0, i, nlibs, nold = 0, hw_count = 0;
	const unsigned char *hw_offsets = NULL;
	bool have_old = false;
	ssize_t got;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > (1 << 28)) {
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
	/*
	 * The old layout: 12 bytes of magic (with its NUL), a count, 12-byte
	 * entries. A new part may follow, 8-byte aligned (a compat cache).
	 */
	if (len >= OLD_HEADER && memcmp(b, OLD_MAGIC, sizeof(OLD_MAGIC) - 1) == 0) {
		nold = u32(b + OLD_HEADER - 4);
		if (nold > (len - OLD_HEADER) / 12) {
			free(b);
			return -EBADMSG;
		}
		have_old = true;
		base = (OLD_HEADER + nold * 12 + 7) & ~(size_t)7;
	}
	if (base + 48 > len || memcmp(b + base, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) != 0) {
		if (!have_old) {
			free(b);
			return -EBADMSG;
		}
		/* Old layout only: strings follow the entries. */
		c->entries = ct_xcalloc(nold ? nold : 1, sizeof(*c->entries));
		for (i = 0; i < nold; i++) {
			const unsigned char *e = b + OLD_HEADER + i * 12;

			add_entry(c, b, len, OLD_HEADER + nold * 12, (int32_t)u32(e), u32(e + 4),
				  u32(e + 8), 0, false, NULL, 0);
		}
		c->format = "old";
		c->present = true;
		free(b);
		return 0;
	}
	nlibs = u32(b + base + 20);
	if (nlibs > (len - base - 48) / 24) {
		free(b);
		return -EBADMSG;
	}
	/* The extension: offsets from the start of the file, as the loader reads them. */
	{
		uint32_t ext = u32(b + base + 32);

		if (ext && ext % 4 == 0 && (size_t)ext + 8 <= len && u32(b + ext) == EXT_MAGIC) {
			uint32_t count = u32(b + ext + 4), k;

			for (k = 0; k < count && (size_t)ext + 8 + (k + 1) * 16 <= len; k++) {
				const unsigned char *sec = b + ext + 8 + k * 16;
				uint32_t tag = u32(sec), off = u32(sec + 8), size = u32(sec + 12);

				if (off > len || size > len - off)
					continue;
				if (tag == 0 && !c->generator) {
					c->generator = ct_xmalloc(size + 1);
					memcpy(c->generator, b + off, size);
					c->generator[size] = '\0';
				} else if (tag == 1 && off % 4 == 0) {
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
		add_entry(c, b, len, base, (int32_t)u32(e), u32(e + 4), u32(e + 8),
			  (uint64_t)u32(e + 16) | (uint64_t)u32(e + 20) << 32, true, hw_offsets,
			  hw_count);
	}
	c->format = have_old ? "compat" : "new";
	c->present = true;
	free(b);
	return 0;
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

/*
 * Legacy hardware capability bits an entry may carry and still be used
 * (search_cache's hwcap_exclude): the CPU's important bits, the platform
 * bits (checked apart) and TLS.
 */
#define HWCAP_TLS (1ULL << 63)
#define X86_FIRST_PLATFORM 48
#define X86_PLATFORMS 4

static bool legacy_usable(uint64_t hw, const struct ct_platform *p)
{
	uint64_t platform_mask = 0, platform_bit = 0;

	if (p->machine == EM_X86_64 || p->machine == EM_386) {
		static const char *const names[X86_PLATFORMS] = { "i586", "i686", "haswell",
								  "xeon_phi" };
		int k;

		platform_mask = ((1ULL << X86_PLATFORMS) - 1) << X86_FIRST_PLATFORM;
		for (k = 0; k < X86_PLATFORMS; k++)
			if (p->platform && strcmp(p->platform, names[k]) == 0)
				platform_bit = 1ULL << (X86_FIRST_PLATFORM + k);
	}
	if (hw & ~((p->hwcap & p->hwcap_mask) | platform_mask | HWCAP_TLS))
		return false;
	return !(hw & platform_mask) || (hw & platform_mask) == platform_bit;
}

const struct ct_ldcache_entry *ct_ldcache_lookup(const struct ct_ldcache *c,
						 const struct ct_platform *p,
						 const char *name)
{
	const struct ct_ldcache_entry *best = NULL;
	size_t best_rank = (size_t)-1, i, k;

	/*
	 * The entries of one name sit together, glibc-hwcaps ones first: the
	 * usable one of the best-ranked subdirectory wins, else the first
	 * usable plain entry.
	 */
	for (i = 0; i < c->n; i++) {
		const struct ct_ldcache_entry *e = &c->entries[i];

		if (strcmp(e->key, name) != 0 || !ct_ldcache_fits(e, p))
			continue;
		if (e->hwcap) {
			for (k = 0; k < p->nhwcaps; k++)
				if (strcmp(p->hwcaps[k], e->hwcap) == 0 && k < best_rank) {
					best_rank = k;
					best = e;
				}
			continue;
		}
		if (best)
			break;
		if (e->legacy_hwcap && !legacy_usable(e->legacy_hwcap, p))
			continue;
		return e;
	}
	return best;
}

/*
 * Facts about a file kept between runs: a small record per file and kind,
 * under $XDG_CACHE_HOME/cudatrace (an absolute XDG_CACHE_HOME, else
 * $HOME/.cache/cudatrace), for what costs far more to work out than to
 * read back (ldd's device-code summary of cuBLASLt: 50 ms of CPU for a
 * search of 193 MB, against the system's ldd's 7).
 *
 * A record is found by the file's device and inode and used only when
 * its size, mtime and ctime (nanoseconds; no user can set a ctime) and
 * the cudatrace binary that wrote it (its device, inode, size and mtime:
 * a rebuilt scanner answers afresh) are still the same. It is trusted
 * only in a folder of the user's own: the cache folder (and the one
 * above it) must belong to the effective user, the cache folder must
 * give nothing to group or others, and so must each entry, a regular
 * file of the same owner, never followed through a link. Otherwise
 * nothing is read or written: as root with a user's HOME (sudo), the
 * user's cache is neither trusted nor written into. Entries are written
 * to a temporary name (O_EXCL, 0600) and renamed into place, so a reader
 * sees a whole record or none. CUDATRACE_CACHE=off turns it all off.
 * Every failure is silent: the caller works the facts out as without a
 * cache. Thread-safe.
 */
#ifndef CT_CACHE_H
#define CT_CACHE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What a record is about: the file, as fstat described it. */
struct ct_cache_key {
	unsigned long long dev, ino, size;
	long long mtime_s, ctime_s;
	long mtime_ns, ctime_ns;
};

void ct_cache_key_of(struct ct_cache_key *k, const struct stat *st);
/* Whether two fstat results describe the same contents (the key's fields). */
int ct_cache_key_same(const struct ct_cache_key *a, const struct ct_cache_key *b);

/*
 * The record of kind (a short name with its format's version, "[a-z0-9-]")
 * stored for k, copied into buf (size bytes) and NUL-terminated; returns
 * its length, or -1 when there is none that may be used.
 */
ssize_t ct_cache_get(const char *kind, const struct ct_cache_key *k, char *buf,
		     size_t size);
/*
 * Store rec (len bytes, at most 3 KiB) as kind's record for k, replacing
 * any. Returns 0, or -1 when the cache cannot be written (nothing is).
 */
int ct_cache_put(const char *kind, const struct ct_cache_key *k, const char *rec,
		 size_t len);

#endif

/*
 * Copies of a library that exist on this machine but were not on the
 * loader's path for one lookup: the other directories of ld.so.cache, the
 * pip nvidia-* wheels and torch of the python3 on PATH, conda prefixes,
 * CUDA toolkits in /usr/local, and the default directories; and other
 * majors of the same library (libcudart.so.12 asked, libcudart.so.13
 * present), also in the directories that were searched.
 *
 * Everything asked of the file system is asked once per loader (struct
 * ct_copies_cache in L->memo): the directories where copies live, each
 * directory's entries, each path's stat, type and real name. So a report
 * with thousands of missing names lists each directory once. The answers
 * are those of the first time asked: a loader is a snapshot of a moment.
 *
 * Ownership: struct ct_copies owns its strings; ct_copies_release frees.
 * The cache is kept with the loader (made here on first use, freed by
 * ct_loader_release through the function left beside it, so that the
 * model never calls this module). Not thread-safe.
 */
#ifndef CT_COPIES_H
#define CT_COPIES_H

#include <stdbool.h>
#include <stddef.h>

struct ct_loader;
struct ct_lookup;

struct ct_copy {
	char *path;
	const char *where; /* "ld.so.cache", "ld.so.cache directory", "ld.so.conf
			      directory", "pip wheel", "conda", "CUDA toolkit",
			      "default directory", "searched directory" */
	char *version;     /* from the real file's name: "12.4.127", or "" */
	bool same_name;    /* the name asked for; false: another major */
};

struct ct_copies {
	struct ct_copy *c;
	size_t n;
};

/*
 * The copies of k's name other than the file k found and the paths it
 * tried, one per file (symlinks and merged directories folded). Uses and
 * fills L->copies (a loader without one gets a cache for this call only).
 */
void ct_find_copies(const struct ct_loader *L, const struct ct_lookup *k,
		    struct ct_copies *out);
void ct_copies_release(struct ct_copies *c);

/* The loader's cache: empty, to fill on first use; freed with all it holds (NULL is fine). */
struct ct_copies_cache *ct_copies_cache_new(void);
void ct_copies_cache_free(struct ct_copies_cache *c);

/*
 * "libcudart.so.12" -> "libcudart.so" and major "12". An unversioned name
 * ending in ".so" ("libcuda.so", "libcupti.so") is its own stem, with
 * *major NULL: callers that compare majors must check it. False for a name
 * that is neither, or a stem longer than stem_size.
 */
bool ct_soname_split(const char *name, char *stem, size_t stem_size, const char **major);

#endif

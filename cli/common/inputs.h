/*
 * The inputs of scan and check: files, directories (recursive) and
 * wheels, one object each, scanned by elfscan.
 */
#ifndef CT_INPUTS_H
#define CT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "elfscan.h"

struct ct_object {
	const char *path;          /* "dir/x.so" or "dist/x.whl!x/_C.so" */
	struct elfscan_file *scan; /* NULL when error is set */
	const char *error;         /* why it could not be read, or NULL */
	bool named;                /* a PATH given as such, not a file found
				      below a directory or in a wheel */
};

/* Return nonzero to stop the walk. */
typedef int (*ct_object_fn)(void *ctx, const struct ct_object *obj);

struct ct_walk_options {
	bool verify;        /* run elfscan_verify() on each object */
	bool no_magic_scan; /* only .nv_fatbin and __nv_relfatbin */
	/*
	 * Threads beside the caller's: they scan (and verify) the files ahead
	 * of the one fn is given, or, for a single file, its sections
	 * (elfscan_options.threads). fn is always called from the caller's
	 * thread, in walk order; 0: none.
	 */
	unsigned threads;
	/*
	 * Out, may be NULL: incremented for every regular file the walk
	 * reaches (a PATH, or a file below a directory, of any kind), so
	 * that a caller tells "no file at all" (an empty folder) from files
	 * that hold nothing to scan.
	 */
	size_t *files;
};

/*
 * Calls fn for each object under each of the n paths, in order: the file
 * itself, every device-code candidate below a directory (symlinked
 * directories followed once, files reached twice scanned once), or every
 * ELF, cubin, fatbin or PTX member of a wheel, read in memory. Unreadable
 * paths reach fn with error set. Stops at fn's first nonzero value and
 * returns it, or 0.
 */
int ct_walk(char *const *paths, size_t n, const struct ct_walk_options *opt,
	    ct_object_fn fn, void *ctx);

#endif

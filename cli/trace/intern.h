/*
 * Strings kept once: the trace reader keeps each distinct string of the
 * records (a path, a name, an arch), and each distinct list of a module's
 * images, once, however many records and
 * processes repeat it. The ranks of a job load the same libraries from
 * the same paths: a thousand copies of each path would be most of a
 * report's memory.
 *
 * Ownership: the strings live in the arena given to ct_intern_init (and
 * as long as it); the table is the intern's own (ct_intern_release). The
 * strings handed out are shared: never written. Not thread-safe: one per
 * thread.
 */
#ifndef CT_INTERN_H
#define CT_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

struct ct_intern_slot {
	const void *p;               /* NULL: free */
	uint64_t hash, len;
};

struct ct_intern {
	struct ct_arena *arena;      /* borrowed */
	struct ct_intern_slot *slots; /* open addressing */
	size_t cap, n;
	uint64_t seed;               /* keys the hash (untrusted strings) */
};

void ct_intern_init(struct ct_intern *in, struct ct_arena *arena);
/* Frees the table; the strings stay in the arena. */
void ct_intern_release(struct ct_intern *in);
/* The one copy of s (up to its NUL) in the arena. */
const char *ct_intern(struct ct_intern *in, const char *s);
/*
 * The one copy of data[0..n) in the arena, aligned as ct_arena_alloc
 * aligns (an array of records that holds interned strings: the same
 * strings give the same bytes). n > 0.
 */
const void *ct_intern_blob(struct ct_intern *in, const void *data, size_t n);

#endif

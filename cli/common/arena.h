/*
 * An arena: chunks of memory freed together. The trace reader keeps its
 * parsed records and the typed records made from them in one
 * (struct ct_trace), so a trace is freed in one go; the models the views
 * print keep theirs so too (diff's sides, compare.h). Common, so that a
 * view may see a model that holds one.
 *
 * Ownership: everything ct_arena_alloc and ct_arena_strdup return lives
 * until ct_arena_release or ct_arena_reset. Allocation never fails (out of
 * memory, or a size that cannot be had, ends the program,
 * cli/common/util.h). Not thread-safe: an arena per thread.
 */
#ifndef CT_ARENA_H
#define CT_ARENA_H

#include <stddef.h>

struct ct_arena {
	struct ct_arena_chunk *head;
};

void ct_arena_init(struct ct_arena *a);
void ct_arena_release(struct ct_arena *a);
/* Free everything allocated, keeping one chunk for what comes next (a scratch arena per line). */
void ct_arena_reset(struct ct_arena *a);
void *ct_arena_alloc(struct ct_arena *a, size_t n);
char *ct_arena_strdup(struct ct_arena *a, const char *s);
/* The first n bytes of s (which holds at least n), NUL-terminated. */
char *ct_arena_strndup(struct ct_arena *a, const char *s, size_t n);
/*
 * Move from's chunks into a (from is left empty): what was allocated in
 * from now lives as long as a. For arenas filled apart (one per thread)
 * and kept together.
 */
void ct_arena_adopt(struct ct_arena *a, struct ct_arena *from);

#endif

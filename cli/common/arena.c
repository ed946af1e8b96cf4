/* Chunks of memory freed together; see arena.h. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "arena.h"

#define CHUNK 65536

struct ct_arena_chunk {
	struct ct_arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void ct_arena_init(struct ct_arena *a)
{
	a->head = NULL;
}

void ct_arena_release(struct ct_arena *a)
{
	while (a->head) {
		struct ct_arena_chunk *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

void ct_arena_reset(struct ct_arena *a)
{
	struct ct_arena_chunk *keep = NULL;

	while (a->head) {
		struct ct_arena_chunk *next = a->head->next;

		/* The oldest chunk is the standard size unless one huge item made it. */
		if (!next && a->head->size == CHUNK)
			keep = a->head;
		else
			free(a->head);
		a->head = next;
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
	}
	a->head = keep;
}

/* A chunk for n bytes, the newest. */
static struct ct_arena_chunk *new_chunk(struct ct_arena *a, size_t n)
{
	size_t size = n > CHUNK ? n : CHUNK;
	struct ct_arena_chunk *c;

	if (n > SIZE_MAX - sizeof(max_align_t) - sizeof(*c))
		ct_out_of_memory();
	c = ct_xmalloc(sizeof(*c) + size);
	c->size = size;
	c->used = 0;
	c->next = a->head;
	a->head = c;
	return c;
}

/* n bytes at an offset of a chunk that is a multiple of align (a power of two; 1: any). */
static inline void *bump(struct ct_arena *a, size_t n, size_t align)
{
	struct ct_arena_chunk *c = a->head;
	size_t off = c ? (c->used + align - 1) & ~(align - 1) : 0;

	if (!c || off > c->size || c->size - off < n) {
		c = new_chunk(a, n);
		off = 0;
	}
	c->used = off + n;
	return (char *)c->data + off;
}

void *ct_arena_alloc(struct ct_arena *a, size_t n)
{
	return bump(a, n, _Alignof(max_align_t));
}

char *ct_arena_strdup(struct ct_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;

	/* Strings need no alignment: a trace holds millions of short ones. */
	return memcpy(bump(a, n, 1), s, n);
}

char *ct_arena_strndup(struct ct_arena *a, const char *s, size_t n)
{
	char *out = bump(a, n + 1, 1);

	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

void ct_arena_adopt(struct ct_arena *a, struct ct_arena *from)
{
	struct ct_arena_chunk *last = from->head;

	if (!last)
		return;
	while (last->next)
		last = last->next;
	/* Behind a's chunks: a's newest stays the one allocations go on in. */
	if (a->head) {
		struct ct_arena_chunk *tail = a->head;

		while (tail->next)
			tail = tail->next;
		tail->next = from->head;
	} else {
		a->head = from->head;
	}
	from->head = NULL;
}

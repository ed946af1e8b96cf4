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

void *ct_arena_alloc(struct ct_arena *a, size_t n)
{
	struct ct_arena_chunk *c = a->head;
	size_t align = sizeof(max_align_t);

	if (n > SIZE_MAX - align - sizeof(*c))
		ct_out_of_memory();
	n = (n + align - 1) / align * align;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK ? n : CHUNK;

		c = ct_xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

char *ct_arena_strdup(struct ct_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(ct_arena_alloc(a, n), s, n);
}

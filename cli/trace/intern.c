/* Strings kept once; see intern.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "intern.h"
#include "util.h"

void ct_intern_init(struct ct_intern *in, struct ct_arena *arena)
{
	const unsigned char *random = (const unsigned char *)getauxval(AT_RANDOM);

	memset(in, 0, sizeof(*in));
	in->arena = arena;
	/*
	 * Traces are untrusted: a hash keyed by the kernel's random bytes for
	 * this process, so that nobody can write strings that all collide.
	 */
	if (random)
		memcpy(&in->seed, random + 8, sizeof(in->seed));
}

void ct_intern_release(struct ct_intern *in)
{
	free(in->slots);
	in->slots = NULL;
	in->cap = in->n = 0;
}

/* 64 bits of a string, 8 bytes at a time (paths are most of what is hashed). */
static uint64_t hash_of(uint64_t seed, const char *s, size_t n)
{
	uint64_t h = (seed ^ 0x9e3779b97f4a7c15ull) * 0xc4ceb9fe1a85ec53ull ^ n;

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, s, n);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static void grow(struct ct_intern *in)
{
	size_t cap = in->cap ? in->cap * 2 : 1024, i;
	struct ct_intern_slot *slots;

	if (cap > SIZE_MAX / 2 / sizeof(*slots))
		ct_out_of_memory();
	slots = ct_xcalloc(cap, sizeof(*slots));
	for (i = 0; i < in->cap; i++) {
		size_t k;

		if (!in->slots[i].p)
			continue;
		for (k = in->slots[i].hash & (cap - 1); slots[k].p; k = (k + 1) & (cap - 1))
			;
		slots[k] = in->slots[i];
	}
	free(in->slots);
	in->slots = slots;
	in->cap = cap;
}

/* A string is its bytes and NUL; a blob is marked apart (it is aligned, a string need not be). */
#define BLOB ((uint64_t)1 << 63)

static const void *intern(struct ct_intern *in, const void *data, size_t n, bool blob)
{
	uint64_t h = hash_of(in->seed ^ blob, data, n), len = n | (blob ? BLOB : 0);
	struct ct_intern_slot *e;
	size_t k;
	void *copy;

	/* At most half full: probes stay short. */
	if (2 * (in->n + 1) > in->cap)
		grow(in);
	for (k = h & (in->cap - 1); (e = &in->slots[k])->p; k = (k + 1) & (in->cap - 1))
		if (e->hash == h && e->len == len && memcmp(e->p, data, n) == 0)
			return e->p;
	copy = blob ? ct_arena_alloc(in->arena, n) : ct_arena_strndup(in->arena, data, n);
	if (blob)
		memcpy(copy, data, n);
	e->p = copy;
	e->hash = h;
	e->len = len;
	in->n++;
	return copy;
}

const char *ct_intern(struct ct_intern *in, const char *s)
{
	return intern(in, s, strlen(s), false);
}

const void *ct_intern_blob(struct ct_intern *in, const void *data, size_t n)
{
	return intern(in, data, n, true);
}

/*
 * What the files that build the report model share (model_internal.h):
 * strings copied into the model once, its arena's arrays, libraries'
 * versions read once.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libfacts.h"
#include "model_internal.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/*
 * The trace's strings are kept once each (intern.h): a job's ranks name
 * the same paths by the same pointers. So a copy is found by the address
 * first, which costs no hashing of the text, then by the text.
 */
struct ct_rm_ptrs {
	const char **from, **to;   /* open addressing; from NULL: free */
	size_t cap, n;
};

static size_t ptr_slot(const struct ct_rm_ptrs *p, const char *s)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (p->cap - 1);
}

static void ptrs_grow(struct ct_rm_ptrs *p)
{
	struct ct_rm_ptrs bigger = { NULL, NULL, p->cap ? p->cap * 2 : 1024, 0 };
	size_t i, k;

	bigger.from = ct_xcalloc(bigger.cap, sizeof(*bigger.from));
	bigger.to = ct_xcalloc(bigger.cap, sizeof(*bigger.to));
	for (i = 0; i < p->cap; i++) {
		if (!p->from[i])
			continue;
		for (k = ptr_slot(&bigger, p->from[i]); bigger.from[k]; k = (k + 1) & (bigger.cap - 1))
			;
		bigger.from[k] = p->from[i];
		bigger.to[k] = p->to[i];
		bigger.n++;
	}
	free(p->from);
	free(p->to);
	*p = bigger;
}

void ct_rm_store_new(struct ct_report_model *m)
{
	m->store = ct_xcalloc(1, sizeof(*m->store));
	ct_arena_init(&m->store->arena);
	ct_intern_init(&m->store->strings, &m->store->arena);
}

void ct_rm_store_free(struct ct_report_model *m)
{
	if (!m->store)
		return;
	ct_intern_release(&m->store->strings);
	ct_arena_release(&m->store->arena);
	free(m->store);
	m->store = NULL;
}

void ct_rm_init(struct ct_report_model *m)
{
	memset(m, 0, sizeof(*m));
	ct_rm_store_new(m);
	ct_findings_init(&m->findings);
	m->worst = -1;
}

const char *ct_rm_keep(struct ct_report_model *m, const char *s)
{
	return s ? ct_intern(&m->store->strings, s) : NULL;
}

const char *ct_rm_str(struct ct_rm_build *b, const char *s)
{
	struct ct_rm_ptrs *p;
	size_t k;

	if (!s)
		return NULL;
	if (!b->ptrs)
		b->ptrs = ct_xcalloc(1, sizeof(*b->ptrs));
	p = b->ptrs;
	if ((p->n + 1) * 2 > p->cap)
		ptrs_grow(p);
	for (k = ptr_slot(p, s); p->from[k]; k = (k + 1) & (p->cap - 1))
		if (p->from[k] == s)
			return p->to[k];
	p->from[k] = s;
	p->to[k] = ct_rm_keep(b->m, s);
	p->n++;
	return p->to[k];
}

void ct_rm_ptrs_free(struct ct_rm_ptrs *p)
{
	if (!p)
		return;
	free(p->from);
	free(p->to);
	free(p);
}

const char *ct_rm_strf(struct ct_rm_build *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	const char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return "";
	if ((size_t)n < sizeof(small))
		return ct_intern(&b->m->store->strings, small);
	va_start(ap, fmt);
	if (vasprintf(&big, fmt, ap) < 0)
		ct_out_of_memory();
	va_end(ap);
	s = ct_intern(&b->m->store->strings, big);
	free(big);
	return s;
}

void *ct_rm_calloc(struct ct_report_model *m, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		ct_out_of_memory();
	p = ct_arena_alloc(&m->store->arena, n && size ? n * size : 1);
	memset(p, 0, n * size);
	return p;
}

void *ct_rm_dup(struct ct_report_model *m, const void *p, size_t n)
{
	void *q = ct_arena_alloc(&m->store->arena, n ? n : 1);

	if (n)
		memcpy(q, p, n);
	return q;
}

void *ct_rm_scratch(struct ct_rm_build *b, size_t n)
{
	void *p = ct_arena_alloc(&b->scratch, n ? n : 1);

	memset(p, 0, n);
	return p;
}

const char *ct_rm_base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

/* A library's version by its real path and the soname it is asked by. */
struct ct_rm_versions {
	char *key;           /* "soname\0path" */
	size_t klen;
	char ver[64];
	UT_hash_handle hh;
};

const char *ct_rm_version(struct ct_rm_build *b, const char *path, const char *soname, char *buf,
			  size_t size)
{
	size_t slen = soname ? strlen(soname) + 1 : 0, plen = strlen(path);
	struct ct_rm_versions *v;
	/* Asked for every library of every rank: the key is kept only when it is new. */
	char *key = ct_xmalloc(1 + slen + plen);

	/* A first byte says whether there is a soname: none differs from "". */
	key[0] = soname ? 's' : '-';
	if (soname)
		memcpy(key + 1, soname, slen);
	memcpy(key + 1 + slen, path, plen);
	HASH_FIND(hh, b->versions, key, 1 + slen + plen, v);
	if (!v) {
		v = ct_rm_scratch(b, sizeof(*v));
		v->key = memcpy(ct_rm_scratch(b, 1 + slen + plen), key, 1 + slen + plen);
		v->klen = 1 + slen + plen;
		ct_library_version_read(path, soname, v->ver, sizeof(v->ver));
		HASH_ADD_KEYPTR(hh, b->versions, v->key, v->klen, v);
	}
	free(key);
	snprintf(buf, size, "%s", v->ver);
	return buf;
}

void ct_rm_versions_forget(struct ct_rm_build *b)
{
	HASH_CLEAR(hh, b->versions);
}

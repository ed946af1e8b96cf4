/*
 * The JSON values of a trace record into typed records (reader.h): kept
 * in the reader's arena, their strings each once (intern.h). A value of
 * another type than the record's field reads as absent; rectypes.h has
 * refused the records whose fields have the wrong type already.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* The strings of an array (anything else left out); *n of them. */
const char **ct_decode_strings(struct reader *rd, const struct ct_jv *v, size_t *n)
{
	const char **out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_ARR || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(rd->arena, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++)
		if (v->u.c.items[i]->type == CT_J_STR)
			out[(*n)++] = keep(rd, v->u.c.items[i]->u.str.s);
	return out;
}

/* A name met already, for ct_decode_vars. */
struct seen_name {
	const char *name;
	UT_hash_handle hh;
};

/*
 * An object's members as names and values (NULL when not a string). A
 * name set twice (a real environment may hold one twice; the shim copies
 * it as it is) is kept once, with its first value, as getenv reads it: so
 * every view says one value, and report --json never writes a key twice.
 */
struct ct_var *ct_decode_vars(struct reader *rd, const struct ct_jv *v, size_t *n)
{
	struct seen_name *seen = NULL, *e, *tmp;
	struct ct_var *out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_OBJ || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(rd->arena, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++) {
		const char *name = keep(rd, v->u.c.keys[i]);

		HASH_FIND_STR(seen, name, e);
		if (e)
			continue;
		e = ct_xcalloc(1, sizeof(*e));
		e->name = name;
		HASH_ADD_KEYPTR(hh, seen, e->name, strlen(e->name), e);
		out[*n].name = name;
		out[*n].value = v->u.c.items[i]->type == CT_J_STR
					? keep(rd, v->u.c.items[i]->u.str.s)
					: NULL;
		(*n)++;
	}
	HASH_ITER(hh, seen, e, tmp) {
		HASH_DEL(seen, e);
		free(e);
	}
	return out;
}

/*
 * A module record's images: an entry per array item (a non-object one is
 * all unknown). A process registers hundreds of fatbins with the same few
 * lists, and every rank the same ones: each list is kept once.
 */
static bool same_or_null(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Does the array v say what list (n images) says? */
static bool images_are(const struct ct_jv *v, const struct ct_image_rec *list, size_t n)
{
	size_t i;

	if (!list || n != v->u.c.n)
		return false;
	for (i = 0; i < n; i++) {
		const struct ct_jv *im = v->u.c.items[i];

		if (!same_or_null(ct_jstr(im, "kind", NULL), list[i].kind) ||
		    !same_or_null(ct_jstr(im, "arch", NULL), list[i].arch) ||
		    !same_or_null(ct_jstr(im, "ptx_version", NULL), list[i].ptx_version))
			return false;
	}
	return true;
}

const struct ct_image_rec *ct_decode_images(struct reader *rd, const struct ct_jv *v,
					    size_t *n)
{
	struct ct_image_rec *out;
	const struct ct_image_rec *kept;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_ARR || !v->u.c.n)
		return NULL;
	/* Most registrations repeat the list before them (libtorch_cuda: 340 of one list). */
	if (images_are(v, rd->last_images, rd->nlast_images)) {
		*n = rd->nlast_images;
		return rd->last_images;
	}
	out = ct_xcalloc(v->u.c.n, sizeof(*out));
	for (i = 0; i < v->u.c.n; i++) {
		const struct ct_jv *im = v->u.c.items[i];

		out[i].kind = kstr(rd, im, "kind", NULL);
		out[i].arch = kstr(rd, im, "arch", NULL);
		out[i].ptx_version = kstr(rd, im, "ptx_version", NULL);
	}
	*n = v->u.c.n;
	kept = ct_intern_blob(rd->strings, out, *n * sizeof(*out));
	free(out);
	rd->last_images = kept;
	rd->nlast_images = *n;
	return kept;
}

/* A driver record; it replaces what an earlier one said. */
void ct_decode_driver(struct reader *rd, struct ct_driver_rec *d, const struct ct_jv *v)
{
	const struct ct_jv *devs = ct_jget(v, "devices");
	size_t i;

	memset(d, 0, sizeof(*d));
	d->present = true;
	d->path = kstr(rd, v, "path", NULL);
	d->version = ct_jint(v, "version", 0);
	if (!devs || devs->type != CT_J_ARR)
		return;
	d->has_devices = true;
	if (!devs->u.c.n)
		return;
	d->gpus = ct_arena_alloc(rd->arena, devs->u.c.n * sizeof(*d->gpus));
	for (i = 0; i < devs->u.c.n; i++) {
		const struct ct_jv *g = devs->u.c.items[i];

		d->gpus[i].index = ct_jint(g, "index", (int64_t)i);
		d->gpus[i].name = kstr(rd, g, "name", NULL);
		d->gpus[i].cc = kstr(rd, g, "cc", NULL);
		d->gpus[i].uuid = kstr(rd, g, "uuid", NULL);
	}
	d->ngpus = devs->u.c.n;
}

/*
 * A count a record gives: absent is 0; negative, above CT_TRACE_COUNT_MAX
 * or not an integer is refused (counted, never wrapped) and reads as 0.
 */
uint64_t ct_decode_count(struct reader *rd, const struct ct_jv *v, const char *key)
{
	const struct ct_jv *m = ct_jget(v, key);

	if (!m)
		return 0;
	if (m->type == CT_J_INT && m->u.i >= 0 && m->u.i <= CT_TRACE_COUNT_MAX)
		return (uint64_t)m->u.i;
	rd->p->bad_values++;
	return 0;
}

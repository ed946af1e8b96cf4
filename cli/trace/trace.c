/* Reading and joining trace records; see trace.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

#include "gpu.h"
#include "intern.h"
#include "job.h"
#include "jsonparse.h"
#include "libnames.h"
#include "lines.h"
#include "mask.h"
#include "rectypes.h"
#include "runrec.h"
#include "trace.h"

/* What the file system said of a path, asked once per trace. */
struct ct_trace_stat {
	const char *path;            /* in the trace's arena */
	bool exists;
	uint64_t dev, ino;
	UT_hash_handle hh;
};

void ct_trace_init(struct ct_trace *t)
{
	memset(t, 0, sizeof(*t));
	ct_arena_init(&t->arena);
	ct_intern_init(&t->strings, &t->arena);
}

static void proc_release(struct ct_proc *p)
{
	size_t i;

	for (i = 0; i < p->nsearches; i++)
		free(p->searches[i].tries);
	free(p->objects);
	free(p->searches);
	free(p->requests);
	free(p->modules);
	free(p->execs);
}

void ct_trace_release(struct ct_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		proc_release(&t->procs[i]);
	free(t->procs);
	free(t->runs); /* their strings are in the arena */
	free(t->job_notes); /* their lists too */
	HASH_CLEAR(hh, t->stats); /* the entries are in the arena */
	ct_intern_release(&t->strings);
	ct_arena_release(&t->arena);
	memset(t, 0, sizeof(*t));
}

/*
 * Room for element n of an array that holds n: it doubles when n is a
 * power of two, so appending is linear in all.
 */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	if (n > SIZE_MAX / 2 / size)
		ct_out_of_memory();
	return ct_xrealloc(arr, (n ? n * 2 : 1) * size);
}

/* Append one zeroed element to a growing array; returns it. */
#define PUSH(arr, n)                                                          \
	((arr) = grow((arr), (n), sizeof(*(arr))),                             \
	 memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])

/*
 * While a file is read, joins go through hash tables (in the reader's own
 * arena, freed with it) and pointers into arrays that grow are kept as
 * indices, turned into pointers once the process is complete.
 */
struct by_id {                       /* a search id: its latest search */
	int64_t id;
	size_t search;
	UT_hash_handle hh;
};

struct by_tid {                      /* a thread */
	int64_t tid;
	size_t pending;              /* its dlopen waiting for a search: index + 1 */
	size_t last_request;         /* its latest dlopen: index + 1 */
	size_t open_search;          /* its latest search, not yet followed by another
					record of the thread: index + 1 */
	UT_hash_handle hh;
};

struct by_path {                     /* an object's path */
	const char *path;
	size_t first;                /* its first object: index */
	size_t open;                 /* its latest one not closed: index + 1 */
	UT_hash_handle hh;
};

struct by_file {                     /* an object's device and inode */
	struct { uint64_t dev, ino; } key;
	size_t first;
	UT_hash_handle hh;
};

/*
 * Where a file's records go: the trace's arena and strings, or a reading
 * thread's own (adopted by the trace afterwards). The trace itself is read
 * only (its options), but for its table of what the file system said,
 * which lock guards when threads share it.
 */
struct sink {
	struct ct_trace *t;
	struct ct_arena *arena;
	struct ct_intern *strings;
	pthread_mutex_t *lock;       /* t->stats; NULL: one thread */
};

struct reader {
	const struct sink *k;
	struct ct_proc *p;
	struct ct_arena *arena;      /* the sink's: typed records go there */
	struct ct_intern *strings;   /* their strings, each kept once */
	const struct ct_image_rec *last_images; /* the latest module's images */
	size_t nlast_images;
	struct ct_arena own;         /* the tables below */
	struct by_id *ids;
	struct by_tid *tids;
	struct by_path *paths;
	size_t *search_request;      /* per search: request index + 1 */
	size_t *search_found;        /* per search: object index + 1 */
	size_t *object_search;       /* per object: search index + 1 */
	size_t *object_below;        /* per object: the one open before it on its path, + 1 */
	bool program_seen;           /* the program's own open record was read */
	size_t searches_before, objects_before; /* the searches and opens before it */
};

static struct by_tid *thread(struct reader *rd, int64_t tid)
{
	struct by_tid *e;

	HASH_FIND(hh, rd->tids, &tid, sizeof(tid), e);
	if (!e) {
		e = ct_arena_alloc(&rd->own, sizeof(*e));
		memset(e, 0, sizeof(*e));
		e->tid = tid;
		HASH_ADD(hh, rd->tids, tid, sizeof(e->tid), e);
	}
	return e;
}

static struct ct_search *find_search(struct reader *rd, int64_t id)
{
	struct by_id *e;

	HASH_FIND(hh, rd->ids, &id, sizeof(id), e);
	return e ? &rd->p->searches[e->search] : NULL;
}

static struct by_path *find_path(struct by_path *paths, const char *path)
{
	struct by_path *e;

	HASH_FIND(hh, paths, path, strlen(path), e);
	return e;
}

/* ---- JSON values into typed records, in the arena ---------------------------- */

/*
 * A string kept: the parsed record lives only as long as its line. Once
 * for all the records and processes that repeat it.
 */
static const char *keep(struct reader *rd, const char *s)
{
	return s ? ct_intern(rd->strings, s) : NULL;
}

static const char *kstr(struct reader *rd, const struct ct_jv *v, const char *key,
			const char *fallback)
{
	const char *s = ct_jstr(v, key, NULL);

	return s ? keep(rd, s) : fallback;
}

/* The strings of an array (anything else left out); *n of them. */
static const char **decode_strings(struct reader *rd, const struct ct_jv *v, size_t *n)
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

/* An object's members as names and values (NULL when not a string). */
static struct ct_var *decode_vars(struct reader *rd, const struct ct_jv *v, size_t *n)
{
	struct ct_var *out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_OBJ || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(rd->arena, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++) {
		out[i].name = keep(rd, v->u.c.keys[i]);
		out[i].value = v->u.c.items[i]->type == CT_J_STR
				       ? keep(rd, v->u.c.items[i]->u.str.s)
				       : NULL;
	}
	*n = v->u.c.n;
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

static const struct ct_image_rec *decode_images(struct reader *rd, const struct ct_jv *v,
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
static void decode_driver(struct reader *rd, struct ct_driver_rec *d, const struct ct_jv *v)
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
static uint64_t count_of(struct reader *rd, const struct ct_jv *v, const char *key)
{
	const struct ct_jv *m = ct_jget(v, key);

	if (!m)
		return 0;
	if (m->type == CT_J_INT && m->u.i >= 0 && m->u.i <= CT_TRACE_COUNT_MAX)
		return (uint64_t)m->u.i;
	rd->p->bad_values++;
	return 0;
}

/* ---- records ------------------------------------------------------------------ */

static void on_search(struct reader *rd, const struct ct_jv *v, int64_t t, int64_t tid)
{
	struct ct_proc *p = rd->p;
	struct ct_search *s;
	struct by_tid *th = thread(rd, tid);
	struct by_id *e;
	size_t k = p->nsearches;

	rd->search_request = grow(rd->search_request, k, sizeof(size_t));
	rd->search_found = grow(rd->search_found, k, sizeof(size_t));
	s = PUSH(p->searches, p->nsearches);
	s->id = ct_jint(v, "id", 0);
	s->t = t;
	s->tid = tid;
	s->name = kstr(rd, v, "name", "");
	s->by = kstr(rd, v, "by", "");
	rd->search_request[k] = 0;
	rd->search_found[k] = 0;
	HASH_FIND(hh, rd->ids, &s->id, sizeof(s->id), e);
	if (!e) {
		e = ct_arena_alloc(&rd->own, sizeof(*e));
		e->id = s->id;
		HASH_ADD(hh, rd->ids, id, sizeof(e->id), e);
	}
	e->search = k;
	/* The first search after a dlopen on this thread is its own. */
	if (th->pending &&
	    strcmp(p->requests[th->pending - 1].name ? p->requests[th->pending - 1].name : "",
		   s->name) == 0) {
		rd->search_request[k] = th->pending;
		th->pending = 0;
	}
}

static void on_open(struct reader *rd, const struct ct_jv *v, int64_t t)
{
	struct ct_proc *p = rd->p;
	struct ct_search *s = ct_jget(v, "search") ? find_search(rd, ct_jint(v, "search", -1)) : NULL;
	size_t k = p->nobjects;
	struct ct_loaded *o;
	struct by_path *e;
	const char *b;

	rd->object_search = grow(rd->object_search, k, sizeof(size_t));
	rd->object_below = grow(rd->object_below, k, sizeof(size_t));
	o = PUSH(p->objects, p->nobjects);
	o->path = kstr(rd, v, "path", "");
	o->soname = kstr(rd, v, "soname", NULL);
	o->name = kstr(rd, v, "name", NULL);
	o->via = ct_rule_parse(ct_jstr(v, "via", NULL));
	o->by = kstr(rd, v, "by", NULL);
	o->lmid = ct_jint(v, "lmid", 0);
	o->t = t;
	o->dev = ct_ju64(v, "dev", 0);
	o->ino = ct_ju64(v, "ino", 0);
	o->size = ct_jint(v, "size", -1);
	o->mtime = ct_jint(v, "mtime", -1);
	o->main = ct_jbool(v, "main", false);
	b = strrchr(o->path, '/');
	o->shim = strcmp(b ? b + 1 : o->path, "libcudatrace.so") == 0;
	rd->object_search[k] = 0;
	if (s) {
		size_t si = (size_t)(s - p->searches);

		rd->search_found[si] = k + 1;
		rd->object_search[k] = si + 1;
	}
	if (!(e = find_path(rd->paths, o->path))) {
		e = ct_arena_alloc(&rd->own, sizeof(*e));
		memset(e, 0, sizeof(*e));
		e->path = o->path;
		e->first = k;
		HASH_ADD_KEYPTR(hh, rd->paths, e->path, strlen(e->path), e);
	}
	rd->object_below[k] = e->open;
	e->open = k + 1;
}

static void on_close(struct reader *rd, const struct ct_jv *v)
{
	struct by_path *e = find_path(rd->paths, ct_jstr(v, "path", ""));

	/* The latest object of that path still open. */
	if (e && e->open) {
		size_t k = e->open - 1;

		rd->p->objects[k].closed = true;
		e->open = rd->object_below[k];
	}
}

/* A start record's run: 1 to 32 hex digits, as the shim writes it; else none. */
static const char *run_id(struct reader *rd, const struct ct_jv *v)
{
	const char *s = ct_jstr(v, "run", NULL);
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return n >= 1 && n <= 32 && s[n] == '\0' ? kstr(rd, v, "run", NULL) : NULL;
}

/* The process's latest CUDA record so far is this one. */
static void cuda_event(struct ct_proc *p, enum ct_cuda_event kind, size_t index)
{
	p->last_cuda = kind;
	p->last_cuda_index = index;
}

/*
 * The loader answers a search on the thread that made it, before that
 * thread does anything else: a later record of the thread (an open, the
 * next search, dlerror, exit) means the search was answered. A dropped
 * record leaves every search still waiting in doubt: its answer may be
 * among the records lost.
 */
static void settle(struct reader *rd, const char *ev, int64_t tid)
{
	struct by_tid *th, *tmp;

	if (strcmp(ev, "try") == 0)
		return;
	if (strcmp(ev, "dropped") == 0) {
		HASH_ITER(hh, rd->tids, th, tmp)
			if (th->open_search)
				rd->p->searches[th->open_search - 1].in_doubt = true;
		return;
	}
	th = thread(rd, tid);
	if (th->open_search)
		rd->p->searches[th->open_search - 1].unsettled = false;
	th->open_search = 0;
}

static void on_record(struct reader *rd, const struct ct_jv *v)
{
	struct ct_proc *p = rd->p;
	const char *ev = ct_jstr(v, "ev", "");
	int64_t t = ct_jint(v, "t", 0), tid = ct_jint(v, "tid", 0);

	settle(rd, ev, tid);
	p->switch_last = false;
	if (strcmp(ev, "start") == 0) {
		if (p->started)
			return; /* a second one says nothing new */
		p->started = true;
		p->pid = ct_jint(v, "pid", p->pid);
		p->ppid = ct_jint(v, "ppid", 0);
		p->t = t;
		p->host = kstr(rd, v, "host", NULL);
		p->image = kstr(rd, v, "image", NULL);
		p->run = run_id(rd, v);
		p->exe = kstr(rd, v, "exe", NULL);
		p->cwd = kstr(rd, v, "cwd", NULL);
		p->argv = decode_strings(rd, ct_jget(v, "argv"), &p->argc);
		p->env = decode_vars(rd, ct_jget(v, "env"), &p->nenv);
		p->ranks = decode_vars(rd, ct_jget(v, "ranks"), &p->nranks);
		p->auditor = ct_jbool(v, "auditor", false);
		p->secure = ct_jbool(v, "secure", false);
	} else if (strcmp(ev, "search") == 0) {
		on_search(rd, v, t, tid);
		p->searches[p->nsearches - 1].unsettled = true;
		thread(rd, tid)->open_search = p->nsearches;
		if (ct_cuda_library(p->searches[p->nsearches - 1].name))
			cuda_event(p, CT_CUDA_EV_SEARCH, p->nsearches - 1);
	} else if (strcmp(ev, "try") == 0) {
		struct ct_search *s = find_search(rd, ct_jint(v, "search", -1));
		struct ct_try *tr;

		if (!s)
			return;
		tr = PUSH(s->tries, s->ntries);
		tr->path = kstr(rd, v, "path", "");
		tr->via = ct_rule_parse(ct_jstr(v, "via", NULL));
	} else if (strcmp(ev, "open") == 0) {
		on_open(rd, v, t);
		/* The program's own: what came before it is another auditor's (finish). */
		if (p->objects[p->nobjects - 1].main && !rd->program_seen) {
			rd->program_seen = true;
			rd->searches_before = p->nsearches;
			rd->objects_before = p->nobjects - 1;
		}
		if (ct_cuda_library(p->objects[p->nobjects - 1].path))
			cuda_event(p, CT_CUDA_EV_OPEN, p->nobjects - 1);
	} else if (strcmp(ev, "close") == 0) {
		on_close(rd, v);
	} else if (strcmp(ev, "dlopen") == 0) {
		struct ct_request *q = PUSH(p->requests, p->nrequests);
		struct by_tid *th = thread(rd, tid);

		q->api = kstr(rd, v, "api", "dlopen");
		q->name = kstr(rd, v, "name", NULL);
		q->caller = kstr(rd, v, "caller", NULL);
		q->flags = ct_jint(v, "flags", 0);
		q->noload = ct_jbool(v, "noload", false);
		q->lmid = ct_jint(v, "lmid", 0);
		q->t = t;
		q->tid = tid;
		th->pending = th->last_request = p->nrequests;
		if (q->name && ct_cuda_library(q->name))
			cuda_event(p, CT_CUDA_EV_DLOPEN, p->nrequests - 1);
	} else if (strcmp(ev, "dlerror") == 0) {
		struct by_tid *th = thread(rd, tid);

		/* The text goes with this thread's latest request. */
		if (th->last_request && !p->requests[th->last_request - 1].error)
			p->requests[th->last_request - 1].error = kstr(rd, v, "text", NULL);
	} else if (strcmp(ev, "module") == 0 || strcmp(ev, "register") == 0) {
		struct ct_module *m = PUSH(p->modules, p->nmodules);

		m->registration = ev[0] == 'r';
		m->api = m->registration ? "__cudaRegisterFatBinary" : kstr(rd, v, "api", "");
		m->caller = kstr(rd, v, "caller", NULL);
		m->file = kstr(rd, v, "file", NULL);
		m->input = kstr(rd, v, "input", NULL);
		m->name = kstr(rd, v, "name", NULL);
		m->result = ct_jint(v, "result", 0);
		m->t = t;
		m->images = decode_images(rd, ct_jget(v, "images"), &m->nimages);
		m->object = kstr(rd, v, "object", NULL);
		m->offset = ct_jint(v, "offset", -1);
		m->size = ct_jint(v, "size", -1);
		if (m->offset < 0 || m->size < -1)
			m->offset = m->size = -1;
		cuda_event(p, CT_CUDA_EV_MODULE, p->nmodules - 1);
	} else if (strcmp(ev, "cuinit") == 0) {
		p->cuinit = ct_jint(v, "result", -1);
		p->ncuinit++;
		cuda_event(p, CT_CUDA_EV_CUINIT, 0);
	} else if (strcmp(ev, "driver") == 0) {
		decode_driver(rd, &p->driver, v);
		/* The record with the devices is cuInit's own, written after it. */
		if (!p->driver.has_devices)
			cuda_event(p, CT_CUDA_EV_DRIVER, 0);
	} else if (strcmp(ev, "exec") == 0) {
		struct ct_exec *x = PUSH(p->execs, p->nexecs);

		x->api = kstr(rd, v, "api", "");
		x->path = kstr(rd, v, "path", NULL);
		x->traced = ct_jbool(v, "traced", true);
		x->untraced = kstr(rd, v, "untraced", NULL);
		x->no_auditor = !ct_jbool(v, "auditor", true);
		x->dir = kstr(rd, v, "dir", NULL);
		x->t = t;
	} else if (strcmp(ev, "exec_failed") == 0) {
		const char *api = ct_jstr(v, "api", NULL);
		size_t k = p->nexecs;

		/* The call returned: the process goes on in its image. */
		while (k > 0 && api && strcmp(p->execs[k - 1].api, api) != 0)
			k--;
		if (k > 0)
			p->execs[k - 1].failed = true;
	} else if (strcmp(ev, "exit") == 0) {
		p->exited = true;
		p->exit_status = ct_jint(v, "status", 0);
		p->exit_api = kstr(rd, v, "api", "exit");
	} else if (strcmp(ev, "switch") == 0) {
		p->switch_api = kstr(rd, v, "api", "setuid");
		p->switch_uid = ct_jint(v, "uid", -1);
		p->switch_path = kstr(rd, v, "path", NULL);
		p->switch_last = true;
	} else if (strcmp(ev, "fini") == 0) {
		p->fini = true;
	} else if (strcmp(ev, "main") == 0) {
		p->reached_main = true;
	} else if (strcmp(ev, "dropped") == 0) {
		/* At most a file's records times 2^32: no sum can wrap. */
		p->dropped += (unsigned long)count_of(rd, v, "records");
		if (ct_jbool(v, "stopped", false)) {
			p->stopped = true;
			if (!p->stop_errno)
				p->stop_errno = ct_jint(v, "errno", 0);
		}
	}
}

/* ---- the end of a file ---------------------------------------------------------- */

/* What stat says of path (a copy, so that no lock is held while it is used). */
static struct ct_trace_stat stat_once(const struct sink *k, const char *path)
{
	struct ct_trace *t = k->t;
	struct ct_trace_stat *e, answer;
	struct stat st;

	if (k->lock)
		pthread_mutex_lock(k->lock);
	HASH_FIND(hh, t->stats, path, strlen(path), e);
	if (!e) {
		/* Under the lock: asked once however many threads want it. */
		e = ct_arena_alloc(&t->arena, sizeof(*e));
		memset(e, 0, sizeof(*e));
		e->path = ct_arena_strdup(&t->arena, path);
		if (stat(path, &st) == 0) {
			e->exists = true;
			e->dev = (uint64_t)st.st_dev;
			e->ino = (uint64_t)st.st_ino;
		}
		HASH_ADD_KEYPTR(hh, t->stats, e->path, strlen(e->path), e);
	}
	answer = *e;
	if (k->lock)
		pthread_mutex_unlock(k->lock);
	return answer;
}

/*
 * The objects mapped before a search are those before the first one
 * mapped after it; latest[k] is the latest time of objects 0..k, so the
 * count is a binary search.
 */
static size_t mapped_before(const int64_t *latest, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (latest[mid] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * path with its "." and ".." components and repeated slashes taken out,
 * as words: "/a/lib/../../b/x.so" is "/b/x.so". False when it is not
 * absolute or does not fit.
 */
static bool lexical_path(const char *path, char *out, size_t size)
{
	size_t len = 0;
	const char *p = path;

	if (!path || path[0] != '/' || size < 2)
		return false;
	while (*p) {
		const char *c;
		size_t n;

		while (*p == '/')
			p++;
		c = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - c);
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (len > 0 && out[len] != '/')
				len--;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + n + 1 > size)
			return false;
		out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
		out[len] = '\0';
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return true;
}

/*
 * Which of the first n objects a name with a slash is, by its words:
 * PyTorch's wheels dlopen ".../nvidia/cu13/lib/libcudart.so.13" after
 * libtorch_global_deps.so's RPATH mapped ".../torch/lib/../../nvidia/
 * cu13/lib/libcudart.so.13"; the loader finds the same file and answers
 * without an open record. Read on another machine, words are all there is
 * (a symbolic link in the path could make them another file, which a
 * process that went on without a dlerror makes unlikely).
 */
static size_t loaded_lexically(const struct ct_proc *p, const char *name, size_t n)
{
	char want[PATH_MAX], have[PATH_MAX];
	size_t k;

	if (!lexical_path(name, want, sizeof(want)))
		return n;
	for (k = 0; k < n; k++)
		if (p->objects[k].path && strstr(p->objects[k].path, "/.") &&
		    lexical_path(p->objects[k].path, have, sizeof(have)) &&
		    strcmp(want, have) == 0)
			return k;
	return n;
}

/*
 * Which of the first n objects is path (by its name, or by the file it
 * is on this machine): the first such, or n.
 */
static size_t loaded_as(struct reader *rd, struct by_file *files, const char *path,
			size_t n)
{
	struct by_path *e = find_path(rd->paths, path);
	size_t best = e && e->first < n ? e->first : n;

	if (files) {
		const struct ct_trace_stat st = stat_once(rd->k, path);
		struct by_file *f;

		if (st.exists) {
			struct by_file key;

			memset(&key, 0, sizeof(key));
			key.key.dev = st.dev;
			key.key.ino = st.ino;
			HASH_FIND(hh, files, &key.key, sizeof(key.key), f);
			if (f && f->first < best)
				best = f->first;
		}
	}
	return best;
}

/* An array that grew by doubling, cut to its n elements: a job keeps thousands. */
static void *fit(void *arr, size_t n, size_t size)
{
	return arr && n ? ct_xrealloc(arr, n * size) : arr;
}

/* Indices to pointers, and what can only be known at the end. */
static void finish(struct reader *rd)
{
	struct ct_proc *p = rd->p;
	struct by_file *files = NULL, *f;
	int64_t *latest = NULL;
	size_t i, j, k;

	/* Before any pointer into them is taken. */
	p->objects = fit(p->objects, p->nobjects, sizeof(*p->objects));
	p->searches = fit(p->searches, p->nsearches, sizeof(*p->searches));
	p->requests = fit(p->requests, p->nrequests, sizeof(*p->requests));
	p->modules = fit(p->modules, p->nmodules, sizeof(*p->modules));
	p->execs = fit(p->execs, p->nexecs, sizeof(*p->execs));
	for (i = 0; i < p->nsearches; i++)
		p->searches[i].tries = fit(p->searches[i].tries, p->searches[i].ntries,
					   sizeof(*p->searches[i].tries));

	for (i = 0; i < p->nsearches; i++) {
		struct ct_search *s = &p->searches[i];

		if (rd->search_request[i]) {
			s->request = &p->requests[rd->search_request[i] - 1];
			s->request->search = s;
		}
		if (rd->search_found[i])
			s->found = &p->objects[rd->search_found[i] - 1];
	}
	/*
	 * The loader reports the program first, once the auditors are set up:
	 * what was searched and opened before it is another auditor's (a fork
	 * child's file has no such record, and nothing before it).
	 */
	for (i = 0; rd->program_seen && i < rd->searches_before; i++)
		p->searches[i].audit = true;
	for (i = 0; rd->program_seen && i < rd->objects_before; i++)
		p->objects[i].audit = true;
	for (i = 0; i < p->nobjects; i++) {
		struct ct_loaded *o = &p->objects[i];

		if (rd->object_search[i]) {
			o->search = &p->searches[rd->object_search[i] - 1];
			o->request = o->search->request;
		}
	}
	if (!p->nobjects)
		return;
	latest = ct_xmalloc(p->nobjects * sizeof(*latest));
	for (k = 0; k < p->nobjects; k++) {
		const struct ct_loaded *o = &p->objects[k];

		latest[k] = k && latest[k - 1] > o->t ? latest[k - 1] : o->t;
		if (!o->ino)
			continue;
		f = ct_arena_alloc(&rd->own, sizeof(*f));
		memset(f, 0, sizeof(*f));
		f->key.dev = o->dev;
		f->key.ino = o->ino;
		f->first = k;
		{
			struct by_file *had;

			HASH_FIND(hh, files, &f->key, sizeof(f->key), had);
			if (!had)
				HASH_ADD(hh, files, key, sizeof(f->key), f);
		}
	}
	/*
	 * A search that opened nothing may still have succeeded: the loader
	 * maps a file only once, so a candidate that is an object already
	 * loaded ends the search without an open record.
	 */
	for (i = 0; i < p->nsearches; i++) {
		struct ct_search *s = &p->searches[i];
		size_t n;

		if (s->found)
			continue;
		n = mapped_before(latest, p->nobjects, s->t);
		for (j = 0; j < s->ntries && !s->found; j++)
			if ((k = loaded_as(rd, files, s->tries[j].path, n)) < n)
				s->found = &p->objects[k];
		/*
		 * A name with a slash is opened directly, without candidates:
		 * by its name, its file here, or its words.
		 */
		if (!s->found && strchr(s->name, '/')) {
			if ((k = loaded_as(rd, files, s->name, n)) < n ||
			    (k = loaded_lexically(p, s->name, n)) < n)
				s->found = &p->objects[k];
		}
		s->already_loaded = s->found != NULL;
	}
	HASH_CLEAR(hh, files);
	free(latest);
}

/* ---- files ---------------------------------------------------------------------- */

/* The first limit met is the one said. */
/* The words of the limits below say their numbers. */
_Static_assert(CT_TRACE_LINE_MAX == (size_t)2 << 20, "say the line limit's size");
_Static_assert(CT_TRACE_VALUES_MAX == 524288, "say the values limit's number");

static void limited(struct ct_proc *p, const char *why)
{
	if (!p->limit)
		p->limit = why;
}

/* The records in all a trace may read. */
static size_t records_max(const struct ct_trace *t)
{
	return t->records_max ? t->records_max : CT_TRACE_RECORDS_MAX;
}

/* What reading one file came to, before it is counted in the trace. */
enum file_outcome {
	FILE_UNREADABLE,             /* could not be opened: a bad file */
	FILE_FOREIGN,                /* another user's, left out unread */
	FILE_OTHER_RUN,              /* another run's (its first record says) */
	FILE_EMPTY,                  /* no record at all: a bad file */
	FILE_NO_START,               /* records, but no start record: no process */
	FILE_PROC,                   /* a process */
};

struct file_result {
	enum file_outcome what;
	struct ct_proc proc;         /* FILE_PROC */
	size_t records;              /* records read, counted in the total */
	uint64_t bytes;              /* bytes read, counted in the total */
	bool done;                   /* read (by a thread) */
};

/*
 * Read the file at path into res, as if records_before records and
 * bytes_before bytes of the trace were read before it (the total
 * limits). The trace is not changed: count_file does that.
 */
static void read_file(const struct sink *k, const char *path, size_t records_before,
		      uint64_t bytes_before, struct file_result *res)
{
	const struct ct_trace *t = k->t;
	struct reader rd;
	struct ct_proc proc;
	struct ct_lines lines;
	struct ct_arena scratch;
	size_t records = 0;
	char *line;
	size_t len;
	bool unterminated;
	uint64_t left = bytes_before < CT_TRACE_BYTES_MAX ? CT_TRACE_BYTES_MAX - bytes_before : 0;
	size_t max_bytes = CT_TRACE_FILE_BYTES_MAX;
	bool total_bytes = false, other_run = false, run_known = false;

	memset(res, 0, sizeof(*res));
	res->done = true;
	/* What is left of the total, but always room for a first line. */
	if (left < max_bytes) {
		max_bytes = left > CT_TRACE_LINE_MAX + 1 ? (size_t)left : CT_TRACE_LINE_MAX + 1;
		total_bytes = true;
	}
	if (ct_lines_open(&lines, path, CT_TRACE_LINE_MAX, max_bytes) != 0) {
		res->what = FILE_UNREADABLE;
		return;
	}
	/*
	 * In a folder others may write to, their files are not this run's,
	 * nor is a hard link to a file made elsewhere (the shim's have one).
	 */
	if ((t->only_owner && lines.owner != t->owner) || (t->one_link && lines.nlink != 1)) {
		res->what = FILE_FOREIGN;
		ct_lines_close(&lines);
		return;
	}
	memset(&rd, 0, sizeof(rd));
	memset(&proc, 0, sizeof(proc));
	ct_arena_init(&rd.own);
	ct_arena_init(&scratch);
	proc.file = ct_arena_strdup(k->arena, path);
	proc.cuinit = -1;
	proc.owner = (int64_t)lines.owner;
	rd.k = k;
	rd.p = &proc;
	rd.arena = k->arena;
	rd.strings = k->strings;
	while (ct_lines_next(&lines, &line, &len, &unterminated) == 1) {
		const struct ct_jv *v;
		const char *err = NULL;

		if (len == 0)
			continue;
		if (records >= CT_TRACE_FILE_RECORDS_MAX ||
		    (records && records_before + records >= records_max(t))) {
			if (records >= CT_TRACE_FILE_RECORDS_MAX) {
				limited(&proc, "the file holds more than 1000000 records");
			} else if (!proc.limit) {
				char why[80];

				snprintf(why, sizeof(why), "the trace holds more than %zu records in all",
					 records_max(t));
				limited(&proc, ct_arena_strdup(k->arena, why));
			}
			proc.limited++;
			continue;
		}
		/* The record's values live as long as its line. */
		ct_arena_reset(&scratch);
		v = ct_json_parse_record(&scratch, line, len, CT_TRACE_VALUES_MAX, &err);
		if (!v && err == ct_json_too_many) {
			limited(&proc, "a record holds more than 524288 values");
			proc.limited++;
			continue;
		}
		/* A field of the wrong type: not a record the shim wrote (rectypes.h). */
		if (!v || v->type != CT_J_OBJ || !ct_jget(v, "ev") || !ct_record_well_typed(v)) {
			/* A last line without its newline was cut by a crash. */
			if (unterminated && lines.truncated)
				proc.limited++;
			else if (unterminated)
				proc.cut = true;
			else
				proc.bad_lines++;
			continue;
		}
		records++;
		on_record(&rd, v);
		/*
		 * Another run's file (its start record, the first one, says):
		 * not read further.
		 */
		if (t->only_run && !run_known && proc.started) {
			run_known = true;
			if (strcmp(ct_proc_run(&proc), t->only_run) != 0) {
				other_run = true;
				break;
			}
		}
	}
	if (lines.too_long) {
		limited(&proc, "a line is longer than 2 MiB");
		proc.limited += lines.too_long;
	}
	if (lines.truncated)
		limited(&proc, total_bytes ? "the trace is larger than 4 GiB in all"
					   : "the file is larger than 256 MiB");
	res->records = records;
	res->bytes = lines.read_total;
	ct_lines_close(&lines);
	ct_arena_release(&scratch);
	if (other_run) {
		res->what = FILE_OTHER_RUN;
		proc_release(&proc);
	} else if (records == 0) {
		res->what = FILE_EMPTY;
		proc_release(&proc);
	} else if (!proc.started) {
		/*
		 * The shim makes every file with its start record in it: records
		 * without one name no process (they would read as "process 0").
		 */
		res->what = FILE_NO_START;
		proc_release(&proc);
	} else {
		finish(&rd);
		proc.records = records;
		res->what = FILE_PROC;
		res->proc = proc;
	}
	HASH_CLEAR(hh, rd.ids);
	HASH_CLEAR(hh, rd.tids);
	HASH_CLEAR(hh, rd.paths);
	ct_arena_release(&rd.own);
	free(rd.search_request);
	free(rd.search_found);
	free(rd.object_search);
	free(rd.object_below);
}

/* A file read, counted in the trace (in the order of the files). */
static void count_file(struct ct_trace *t, struct file_result *res)
{
	switch (res->what) {
	case FILE_UNREADABLE:
		t->bad_files++;
		return;
	case FILE_FOREIGN:
		t->foreign_files++;
		return;
	case FILE_OTHER_RUN:
		t->other_run_files++;
		break;
	case FILE_EMPTY:
		t->bad_files++;
		break;
	case FILE_NO_START:
		t->unstarted_files++;
		break;
	case FILE_PROC:
		*PUSH(t->procs, t->nprocs) = res->proc;
		break;
	}
	t->nrecords += res->records;
	t->nbytes += res->bytes;
}

/*
 * Was res, read as if nothing came before it, what reading it after the
 * trace so far gives? Yes while the total limits are out of reach: no
 * record of it can reach the records in all, and what is left of the
 * bytes in all is no less than a file may have.
 */
static bool read_alike(const struct ct_trace *t, const struct file_result *res)
{
	if (res->what == FILE_UNREADABLE || res->what == FILE_FOREIGN)
		return true;
	return t->nrecords + res->records < records_max(t) &&
	       t->nbytes <= CT_TRACE_BYTES_MAX - CT_TRACE_FILE_BYTES_MAX;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A run record: one line, counted in the total as a trace file's bytes are. */
static void read_run_file(struct ct_trace *t, const char *path)
{
	struct ct_run r;
	uint64_t n = 0;

	if (t->nbytes >= CT_TRACE_BYTES_MAX)
		return;
	if (ct_runrec_read(&t->arena, path, t->only_owner, t->owner, t->one_link, &r, &n) == 0)
		ct_trace_add_run(t, &r);
	t->nbytes += n;
}

/* A copy in the trace's arena (NULL stays NULL). */
static const char *arena_copy(struct ct_trace *t, const char *s)
{
	return s ? ct_arena_strdup(&t->arena, s) : NULL;
}

/*
 * A program that cannot be traced left no file: its run record stands
 * for it, so that the report says what it could not see instead of
 * nothing. It is the process cudatrace started, with what the record
 * knows of it and nothing else.
 */
static void untraced_process(struct ct_trace *t, const struct ct_run *r)
{
	struct ct_proc *p = PUSH(t->procs, t->nprocs);

	p->pid = r->pid;
	p->t = r->t;
	p->host = r->host;
	p->run = r->run;
	p->exe = r->command;
	p->argv = r->argv;
	p->argc = r->argc;
	p->cuinit = -1;
	p->untraced = r->untraced;
	p->owner = r->owner;
}

void ct_trace_add_run(struct ct_trace *t, const struct ct_run *r)
{
	struct ct_run *k;
	const char **argv = NULL;
	size_t i;

	if (!r->run || (t->only_run && strcmp(r->run, t->only_run) != 0))
		return;
	/* Another user's record of the same id is another run: it cannot replace this one. */
	for (i = 0; i < t->nruns; i++)
		if (strcmp(t->runs[i].run, r->run) == 0 && t->runs[i].owner == r->owner)
			return;
	if (r->argc) {
		argv = ct_arena_alloc(&t->arena, r->argc * sizeof(*argv));
		for (i = 0; i < r->argc; i++)
			argv[i] = arena_copy(t, r->argv[i]);
	}
	k = PUSH(t->runs, t->nruns);
	*k = *r;
	k->run = arena_copy(t, r->run);
	k->host = arena_copy(t, r->host);
	k->command = arena_copy(t, r->command);
	k->argv = argv;
	k->untraced = arena_copy(t, r->untraced);
	k->job_from = ct_job_var(r->job_from); /* a static string, never the caller's */
	k->job = k->job_from ? arena_copy(t, r->job) : NULL;
	if (k->untraced && k->pid > 0)
		untraced_process(t, k);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files of a folder read by several threads, each into its own arena
 * and strings, then counted in the order of their names, as one thread
 * reads them: the report is the same whatever the threads. A file's
 * records depend on the files before it only through the total limits;
 * near those, files are read again in order (read_alike).
 */
struct pool {
	struct ct_trace *t;
	char **paths;                /* every file; run records are read in order, after */
	bool *run_record;
	struct file_result *res;
	size_t n;
	size_t next;                 /* the next file to take */
	size_t records;              /* read so far, the trace's before them too */
	uint64_t bytes;
	pthread_mutex_t lock;        /* next, records, bytes */
	pthread_mutex_t stats;       /* t->stats */
};

struct worker {
	struct pool *pool;
	struct ct_arena arena;
	struct ct_intern strings;
	pthread_t thread;
	bool running;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	struct sink k = { pl->t, &w->arena, &w->strings, &pl->stats };

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pl->lock);
		while (pl->next < pl->n && pl->run_record[pl->next])
			pl->next++;
		/* Past the total limits what a file gives depends on the files before it. */
		if (pl->next >= pl->n || pl->records >= records_max(pl->t) ||
		    pl->bytes > CT_TRACE_BYTES_MAX - CT_TRACE_FILE_BYTES_MAX) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		i = pl->next++;
		pthread_mutex_unlock(&pl->lock);
		read_file(&k, pl->paths[i], 0, 0, &pl->res[i]);
		pthread_mutex_lock(&pl->lock);
		pl->records += pl->res[i].records;
		pl->bytes += pl->res[i].bytes;
		pthread_mutex_unlock(&pl->lock);
	}
}

/* How many threads read: t->threads, else ct_threads (CUDATRACE_THREADS, or the processors, at most 8). */
static size_t reading_threads(const struct ct_trace *t, size_t files)
{
	size_t n = t->threads ? t->threads : ct_threads(8);

	return n > files ? files : n ? n : 1;
}

static void read_files(struct ct_trace *t, char **paths, bool *run_record, size_t n)
{
	struct sink one = { t, &t->arena, &t->strings, NULL };
	struct worker *ws = NULL;
	struct pool pl;
	size_t nthreads, i, files = 0;

	for (i = 0; i < n; i++)
		files += !run_record[i];
	nthreads = reading_threads(t, files);
	memset(&pl, 0, sizeof(pl));
	if (nthreads > 1) {
		pl.t = t;
		pl.paths = paths;
		pl.run_record = run_record;
		pl.n = n;
		pl.records = t->nrecords;
		pl.bytes = t->nbytes;
		pl.res = ct_xcalloc(n, sizeof(*pl.res));
		pthread_mutex_init(&pl.lock, NULL);
		pthread_mutex_init(&pl.stats, NULL);
		ws = ct_xcalloc(nthreads, sizeof(*ws));
		for (i = 0; i < nthreads; i++) {
			ws[i].pool = &pl;
			ct_arena_init(&ws[i].arena);
			ct_intern_init(&ws[i].strings, &ws[i].arena);
		}
		/* This thread is the first worker; a thread that cannot start is one less. */
		for (i = 1; i < nthreads; i++)
			ws[i].running = pthread_create(&ws[i].thread, NULL, work, &ws[i]) == 0;
		work(&ws[0]);
		for (i = 1; i < nthreads; i++)
			if (ws[i].running)
				pthread_join(ws[i].thread, NULL);
	}
	for (i = 0; i < n; i++) {
		struct file_result mine, *res = pl.res ? &pl.res[i] : &mine;

		if (run_record[i]) {
			read_run_file(t, paths[i]);
			continue;
		}
		if (!pl.res || !res->done || !read_alike(t, res)) {
			if (pl.res && res->done && res->what == FILE_PROC)
				proc_release(&res->proc);
			res = &mine;
			read_file(&one, paths[i], t->nrecords, t->nbytes, res);
		}
		count_file(t, res);
	}
	if (nthreads > 1) {
		for (i = 0; i < nthreads; i++) {
			ct_intern_release(&ws[i].strings);
			ct_arena_adopt(&t->arena, &ws[i].arena);
		}
		pthread_mutex_destroy(&pl.lock);
		pthread_mutex_destroy(&pl.stats);
		free(ws);
		free(pl.res);
	}
}

int ct_trace_read_dir(struct ct_trace *t, const char *dir, char *why,
		      size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, **paths;
	bool *run_record;
	size_t n = 0, i;

	if (!d) {
		int err = errno;

		snprintf(why, size, "cannot read trace directory '%s': %s", dir, strerror(err));
		errno = err;
		return -1;
	}
	while ((de = readdir(d)))
		if (has_suffix(de->d_name, ".jsonl") || has_suffix(de->d_name, ".run.json")) {
			names = grow(names, n, sizeof(*names));
			names[n++] = ct_xstrdup(de->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	paths = ct_xcalloc(n + 1, sizeof(*paths));
	run_record = ct_xcalloc(n + 1, sizeof(*run_record));
	for (i = 0; i < n; i++) {
		paths[i] = ct_xmalloc(strlen(dir) + strlen(names[i]) + 2);
		sprintf(paths[i], "%s/%s", dir, names[i]);
		run_record[i] = has_suffix(names[i], ".run.json");
		free(names[i]);
	}
	free(names);
	read_files(t, paths, run_record, n);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(run_record);
	return 0;
}

/* ---- processes joined ------------------------------------------------------------ */

static int cmp_procs(const void *a, const void *b)
{
	const struct ct_proc *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool same_host(const struct ct_proc *p, const struct ct_proc *q)
{
	return !p->host || !q->host || strcmp(p->host, q->host) == 0;
}

/* The processes of one pid, in the order they sort. */
struct by_pid {
	int64_t pid;
	size_t *procs;
	size_t n;
	UT_hash_handle hh;
};

static const struct by_pid *pid_procs(struct by_pid *pids, int64_t pid)
{
	struct by_pid *e;

	HASH_FIND(hh, pids, &pid, sizeof(pid), e);
	return e;
}

/* The first process (in start order) of each image id: its exec'd process. */
struct by_image {
	const char *image;
	size_t first;
	UT_hash_handle hh;
};

/*
 * The first process of p's image (the i-th) sorted before it, on its host,
 * or SIZE_MAX: an image id is the exec's own random bytes, so a process
 * that shares it is a fork of that exec, however many forks down.
 */
static size_t image_first(const struct ct_trace *t, struct by_image *images, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	struct by_image *e;

	if (!p->image)
		return SIZE_MAX;
	HASH_FIND_STR(images, p->image, e);
	if (!e || e->first >= i || !same_host(p, &t->procs[e->first]))
		return SIZE_MAX;
	return e->first;
}

/* The latest of e's processes sorted before i on p's host and started no later. */
static size_t earlier(const struct ct_trace *t, const struct by_pid *e, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	size_t lo = 0, hi = e ? e->n : 0;

	/* e->procs ascends: those below i. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->procs[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct ct_proc *q = &t->procs[e->procs[lo]];

		if (same_host(p, q) && q->t <= p->t)
			return e->procs[lo];
	}
	return SIZE_MAX;
}

/*
 * The process a run record names: its run's, on its host, with its pid;
 * the last image of that pid (an exec goes on in the same process), which
 * is the one that ended as the record says.
 */
static void join_run(struct ct_trace *t, const struct by_pid *e, const struct ct_run *r)
{
	struct ct_proc *top = NULL;
	size_t k;

	for (k = 0; e && r->pid > 0 && k < e->n; k++) {
		struct ct_proc *q = &t->procs[e->procs[k]];

		if (q->run && strcmp(q->run, r->run) == 0 && q->owner == r->owner &&
		    (!q->host || !r->host || strcmp(q->host, r->host) == 0))
			top = q; /* ascending: the last is the latest */
	}
	if (top)
		top->launched = r;
}

/* Runs by id, then owner: a run is both (another user's file cannot be this user's run's). */
static int cmp_run_ids(const void *a, const void *b)
{
	const struct ct_run *x = *(const struct ct_run *const *)a, *y = *(const struct ct_run *const *)b;
	int c = strcmp(x->run, y->run);

	return c ? c : (x->owner > y->owner) - (x->owner < y->owner);
}

/*
 * Each process to its run's record, of the same id and owner (unique
 * among t->runs): a sort and a search each.
 */
static void join_run_records(struct ct_trace *t)
{
	const struct ct_run **by_id;
	size_t i;

	if (!t->nruns)
		return;
	by_id = ct_xcalloc(t->nruns, sizeof(*by_id));
	for (i = 0; i < t->nruns; i++)
		by_id[i] = &t->runs[i];
	qsort(by_id, t->nruns, sizeof(*by_id), cmp_run_ids);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		struct ct_run key = { .run = p->run, .owner = p->owner };
		const struct ct_run *kp = &key, **found;

		if (!p->run)
			continue;
		found = bsearch(&kp, by_id, t->nruns, sizeof(*by_id), cmp_run_ids);
		p->run_rec = found ? *found : NULL;
	}
	free(by_id);
}

/*
 * Does a chain of forks lead from process i to one whose auditor ran?
 * Each process is walked once: state says what is known of it (a cycle,
 * which a forged trace can make, ends a walk with no).
 */
enum { UNKNOWN, YES, NO, WALKING };

static void inherit_auditor(struct ct_trace *t, unsigned char *state, size_t i)
{
	unsigned char answer;
	size_t k = i;

	for (;;) {
		const struct ct_proc *q = &t->procs[k];

		if (state[k] == YES || state[k] == NO) {
			answer = state[k];
			break;
		}
		if (state[k] == WALKING) {
			answer = NO;
			break;
		}
		if (q->auditor) {
			answer = YES;
			break;
		}
		state[k] = WALKING;
		if (!q->forked || !q->parent) {
			answer = NO;
			break;
		}
		k = (size_t)(q->parent - t->procs);
	}
	/* Everything walked has that answer. */
	for (k = i; state[k] == WALKING;) {
		struct ct_proc *q = &t->procs[k];

		state[k] = answer;
		q->auditor = answer == YES;
		if (!q->forked || !q->parent)
			break;
		k = (size_t)(q->parent - t->procs);
	}
}

/*
 * A process read twice (`report T T`, or a copy of a file in the folder)
 * is one process: the same start record (host, pid, image, run and time)
 * cannot come from two. The copy with the most records stays (a copy made
 * while the process ran holds fewer); the others are counted, not read.
 */
struct by_start {
	const char *key;
	size_t proc;
	UT_hash_handle hh;
};

/*
 * only_job: the processes of the runs whose record names that job, the
 * others left out as another run's files are. A process's run is known
 * by its run id and owner, on every host: a sort of the job's runs, a
 * search each.
 */
static void keep_job(struct ct_trace *t)
{
	const struct ct_run **ids = ct_xcalloc(t->nruns ? t->nruns : 1, sizeof(*ids));
	size_t i, n = 0, nids = 0;

	for (i = 0; i < t->nruns; i++)
		if (t->runs[i].job && strcmp(t->runs[i].job, t->only_job) == 0)
			ids[nids++] = &t->runs[i];
	qsort(ids, nids, sizeof(*ids), cmp_run_ids);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_run key = { .run = t->procs[i].run, .owner = t->procs[i].owner };
		const struct ct_run *kp = &key;

		if (key.run && nids && bsearch(&kp, ids, nids, sizeof(*ids), cmp_run_ids)) {
			t->procs[n++] = t->procs[i];
		} else {
			/* A process made from its record has no file to count. */
			t->other_run_files += t->procs[i].untraced == NULL;
			proc_release(&t->procs[i]);
		}
	}
	t->nprocs = n;
	free(ids);
}

static void drop_duplicates(struct ct_trace *t)
{
	struct by_start *seen = NULL, *e, *tmp;
	struct ct_arena keys;
	bool *gone = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*gone));
	size_t i, n = 0;

	ct_arena_init(&keys);
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		char head[96];
		size_t len;
		char *key;

		if (!p->started)
			continue;
		/* Another user's copy is not this user's process (nor can it replace it). */
		snprintf(head, sizeof(head), "%lld %lld %lld ", (long long)p->pid, (long long)p->t,
			 (long long)p->owner);
		len = strlen(head) + strlen(p->host ? p->host : "") +
		      strlen(p->image ? p->image : "") + strlen(ct_proc_run(p)) + 3;
		key = ct_arena_alloc(&keys, len);
		snprintf(key, len, "%s%s/%s/%s", head, p->host ? p->host : "",
			 p->image ? p->image : "", ct_proc_run(p));
		HASH_FIND(hh, seen, key, strlen(key), e);
		if (!e) {
			e = ct_arena_alloc(&keys, sizeof(*e));
			memset(e, 0, sizeof(*e));
			e->key = key;
			e->proc = i;
			HASH_ADD_KEYPTR(hh, seen, e->key, strlen(e->key), e);
			continue;
		}
		if (p->records > t->procs[e->proc].records) {
			gone[e->proc] = true;
			e->proc = i;
		} else {
			gone[i] = true;
		}
		t->duplicate_files++;
	}
	for (i = 0; i < t->nprocs; i++) {
		if (gone[i])
			proc_release(&t->procs[i]);
		else
			t->procs[n++] = t->procs[i];
	}
	t->nprocs = n;
	HASH_ITER(hh, seen, e, tmp)
		HASH_DEL(seen, e);
	ct_arena_release(&keys);
	free(gone);
}

static void note_jobs(struct ct_trace *t);

void ct_trace_link(struct ct_trace *t)
{
	struct by_pid *pids = NULL, *e, *tmp;
	struct by_image *images = NULL, *im, *imtmp, *ims;
	unsigned char *state;
	size_t i, j;

	if (t->only_job)
		keep_job(t);
	drop_duplicates(t);
	if (t->nprocs)
		qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_procs);
	for (i = 0; i < t->nprocs; i++) {
		int64_t pid = t->procs[i].pid;

		HASH_FIND(hh, pids, &pid, sizeof(pid), e);
		if (!e) {
			e = ct_xcalloc(1, sizeof(*e));
			e->pid = pid;
			HASH_ADD(hh, pids, pid, sizeof(e->pid), e);
		}
		e->procs = grow(e->procs, e->n, sizeof(*e->procs));
		e->procs[e->n++] = i;
	}
	ims = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*ims));
	for (i = 0; i < t->nprocs; i++) {
		const char *image = t->procs[i].image;

		if (!image)
			continue;
		HASH_FIND_STR(images, image, im);
		if (im)
			continue;
		ims[i].image = image;
		ims[i].first = i;
		HASH_ADD_KEYPTR(hh, images, ims[i].image, strlen(image), &ims[i]);
	}
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		const struct by_pid *parents = pid_procs(pids, p->ppid);
		size_t a, b;

		/* A fork shares its parent's image: that one, wherever it sorts. */
		for (j = 0; parents && p->image && j < parents->n && !p->parent; j++) {
			struct ct_proc *q = &t->procs[parents->procs[j]];

			if (q != p && q->image && strcmp(p->image, q->image) == 0 &&
			    (!p->host || !q->host || strcmp(p->host, q->host) == 0)) {
				p->parent = q;
				p->forked = true;
			}
		}
		if (p->parent)
			continue;
		/*
		 * Its parent pid is none of its image's (a daemon's worker: fork,
		 * setsid, fork, and the middle one exited, so its ppid is 1 or a
		 * subreaper): still a fork, of its image's first process.
		 */
		if ((a = image_first(t, images, i)) != SIZE_MAX) {
			p->parent = &t->procs[a];
			p->forked = true;
			p->fork_by_image = true;
			continue;
		}
		/*
		 * The latest before it on the same host: the same pid (the image
		 * it exec'd from) or its parent pid.
		 */
		a = earlier(t, pid_procs(pids, p->pid), i);
		b = earlier(t, pid_procs(pids, p->ppid), i);
		if (a != SIZE_MAX && (b == SIZE_MAX || a > b))
			p->parent = &t->procs[a];
		else if (b != SIZE_MAX)
			p->parent = &t->procs[b];
	}
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];

		if (p->parent && !p->forked && p->parent->pid == p->pid && !p->parent->next_image)
			p->parent->next_image = p;
	}
	for (i = 0; i < t->nruns; i++)
		join_run(t, pid_procs(pids, t->runs[i].pid), &t->runs[i]);
	join_run_records(t);
	for (i = 0; i < t->nprocs; i++)
		ct_proc_mark_cut(&t->procs[i]);
	HASH_ITER(hh, pids, e, tmp) {
		HASH_DEL(pids, e);
		free(e->procs);
		free(e);
	}
	HASH_ITER(hh, images, im, imtmp)
		HASH_DEL(images, im);
	free(ims);
	/*
	 * A fork's first record comes from the preload half, which cannot tell
	 * whether the auditor runs: its image's first process says (forks of
	 * forks too, whatever order they sorted in).
	 */
	state = ct_xcalloc(t->nprocs ? t->nprocs : 1, 1);
	for (i = 0; i < t->nprocs; i++)
		if (state[i] == UNKNOWN)
			inherit_auditor(t, state, i);
	free(state);
	note_jobs(t);
}

/* The first member of that name, as the JSON reader's lookups took it. */
static const char *var_value(const struct ct_var *vars, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(vars[i].name, name) == 0)
			return vars[i].value;
	return NULL;
}

const char *ct_proc_run(const struct ct_proc *p)
{
	return p->run ? p->run : CT_TRACE_RUN_UNKNOWN;
}

/*
 * A process's place among runs and jobs: its job (the variable and id;
 * "" and its run outside a job), the user who owns its files, its host
 * and rank (for job_notes; "" otherwise), and its run. Sorted by all of
 * them in that order, so that each level groups the ones under it.
 */
struct job_key {
	const char *from, *id;
	int64_t owner;
	const char *host, *rank, *run;
	size_t proc;                 /* its index in t->procs */
};

enum { BY_FROM = 1, BY_JOB, BY_OWNER, BY_HOST, BY_RANK, BY_RUN };

/* x and y compared on their first level fields. */
static int cmp_keys_upto(const struct job_key *x, const struct job_key *y, int level)
{
	const char *const xs[] = { x->from, x->id, NULL, x->host, x->rank, x->run };
	const char *const ys[] = { y->from, y->id, NULL, y->host, y->rank, y->run };
	int i, c;

	for (i = 0; i < level; i++) {
		if (i + 1 == BY_OWNER)
			c = (x->owner > y->owner) - (x->owner < y->owner);
		else
			c = strcmp(xs[i], ys[i]);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_job_keys(const void *a, const void *b)
{
	return cmp_keys_upto(a, b, BY_RUN);
}

/* Each process's key: its job (with_job) or its run; host and rank with with_rank. */
static struct job_key *job_keys(const struct ct_trace *t, bool with_job, bool with_rank)
{
	struct job_key *keys = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*keys));
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct job_key *k = &keys[i];

		k->id = with_job ? ct_proc_job(p, &k->from) : NULL;
		if (!k->id) {
			k->from = "";
			k->id = ct_proc_run(p);
		}
		k->owner = p->owner;
		k->host = with_rank && p->host ? p->host : "";
		k->rank = with_rank && ct_proc_rank(p) ? ct_proc_rank(p) : "";
		k->run = ct_proc_run(p);
		k->proc = i;
	}
	qsort(keys, t->nprocs, sizeof(*keys), cmp_job_keys);
	return keys;
}

/* How many distinct keys, on their first level fields. */
static size_t distinct_keys(const struct job_key *keys, size_t n, int level)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		count += i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], level) != 0;
	return count;
}

size_t ct_trace_runs(const struct ct_trace *t)
{
	struct job_key *keys;
	size_t n;

	if (!t->nprocs)
		return 0;
	keys = job_keys(t, false, false);
	n = distinct_keys(keys, t->nprocs, BY_OWNER);
	free(keys);
	return n;
}

const char *ct_proc_job(const struct ct_proc *p, const char **from)
{
	const struct ct_run *r = p->run_rec;

	if (from)
		*from = r && r->job ? r->job_from : NULL;
	return r ? r->job : NULL;
}

size_t ct_trace_jobs(const struct ct_trace *t)
{
	struct job_key *keys;
	size_t n;

	if (!t->nprocs)
		return 0;
	keys = job_keys(t, true, false);
	n = distinct_keys(keys, t->nprocs, BY_OWNER);
	free(keys);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A note about keys[0..n) (one group), its runs each once; its lists in t's arena. */
static struct ct_job_note *add_note(struct ct_trace *t, enum ct_job_note_kind kind,
				    const struct job_key *keys, size_t n)
{
	struct ct_job_note *note;
	size_t i;

	t->job_notes = grow(t->job_notes, t->njob_notes, sizeof(*t->job_notes));
	note = &t->job_notes[t->njob_notes++];
	memset(note, 0, sizeof(*note));
	note->kind = kind;
	note->job = keys[0].id;
	note->from = keys[0].from;
	note->host = kind == CT_JOB_NOTE_RANK && keys[0].host[0] ? keys[0].host : NULL;
	note->rank = kind == CT_JOB_NOTE_RANK ? keys[0].rank : NULL;
	note->owners = ct_arena_alloc(&t->arena, distinct_keys(keys, n, BY_OWNER) *
							 sizeof(*note->owners));
	note->owner_runs = ct_arena_alloc(&t->arena, distinct_keys(keys, n, BY_OWNER) *
							     sizeof(*note->owner_runs));
	note->runs = ct_arena_alloc(&t->arena, n * sizeof(*note->runs));
	for (i = 0; i < n; i++) {
		if (i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], BY_OWNER) != 0) {
			note->owners[note->nowners] = keys[i].owner;
			note->owner_runs[note->nowners++] = 0;
		}
		if (i == 0 || cmp_keys_upto(&keys[i], &keys[i - 1], BY_RUN) != 0) {
			note->runs[note->nruns++] = keys[i].run;
			note->owner_runs[note->nowners - 1]++;
		}
	}
	/* The runs by id, whoever owns them (the users' runs are counted above). */
	qsort(note->runs, note->nruns, sizeof(*note->runs), cmp_str);
	return note;
}

/*
 * job_notes: a job id that the runs of several users name, and a rank of
 * a job that several of its runs claim on one host. The jobs of a trace
 * sorted once for each, then walked group by group.
 */
static void note_jobs(struct ct_trace *t)
{
	struct job_key *keys;
	size_t i, j, n;

	free(t->job_notes);
	t->job_notes = NULL;
	t->njob_notes = 0;
	if (!t->nprocs)
		return;
	keys = job_keys(t, true, false);
	for (i = 0; i < t->nprocs; i = j) {
		for (j = i + 1; j < t->nprocs && cmp_keys_upto(&keys[j], &keys[i], BY_JOB) == 0; j++)
			;
		if (!keys[i].from[0] || distinct_keys(keys + i, j - i, BY_OWNER) < 2)
			continue;
		add_note(t, CT_JOB_NOTE_USERS, keys + i, j - i);
		for (n = i; n < j; n++)
			t->procs[keys[n].proc].job_shared = true;
	}
	free(keys);
	keys = job_keys(t, true, true);
	for (i = 0; i < t->nprocs; i = j) {
		for (j = i + 1; j < t->nprocs && cmp_keys_upto(&keys[j], &keys[i], BY_RANK) == 0; j++)
			;
		n = j - i;
		if (keys[i].from[0] && keys[i].rank[0] && distinct_keys(keys + i, n, BY_RUN) > 1)
			add_note(t, CT_JOB_NOTE_RANK, keys + i, n);
	}
	free(keys);
	t->job_notes = fit(t->job_notes, t->njob_notes, sizeof(*t->job_notes));
}

const char *ct_proc_env(const struct ct_proc *p, const char *name)
{
	return var_value(p->env, p->nenv, name);
}

const char *ct_proc_rank(const struct ct_proc *p)
{
	static const char *const vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
					    "PMI_RANK", "PMIX_RANK" };
	const char *rank = NULL;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && !rank; i++)
		rank = var_value(p->ranks, p->nranks, vars[i]);
	return rank;
}

void ct_proc_command(const struct ct_proc *p, char *buf, size_t size, size_t width)
{
	size_t n = 0, i;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; i < p->argc && n + 1 < size; i++) {
		/* Shown and shared: secrets masked (mask.h). */
		char *m = ct_mask_arg(p->argv, i);
		const char *s = m ? m : p->argv[i];

		if (i == 0 && strrchr(s, '/'))
			s = strrchr(s, '/') + 1;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", s);
		free(m);
	}
	if (!buf[0]) {
		const char *s = p->exe && strrchr(p->exe, '/') ? strrchr(p->exe, '/') + 1 : p->exe;

		snprintf(buf, size, "%s", s ? s : "?");
	}
	if (width >= 4 && width < size && strlen(buf) > width)
		strcpy(buf + width - 3, "...");
}

static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/*
 * Is path's directory dir (dlen bytes) or below it? An empty entry (a
 * relative dir of none) is the working directory: every relative path is
 * below it (its glibc-hwcaps and legacy subdirectories).
 */
static bool in_dir(const char *path, const char *dir, size_t dlen)
{
	if (dlen == 0 && dir[0] != '/')
		return path[0] != '/';
	return strncmp(path, dir, dlen) == 0 && path[dlen] == '/';
}

/*
 * For each directory the loader tries its glibc-hwcaps and legacy
 * subdirectories first and the directory itself last, so, read backwards,
 * a directory starts a run that goes on while the paths lie below it.
 */
struct ct_try_run *ct_try_runs(const struct ct_try *tries, size_t n, size_t *nruns)
{
	struct ct_try_run *runs = ct_xcalloc(n + 1, sizeof(*runs));
	size_t i = n, k = 0, r;

	while (i > 0) {
		const char *base_path = tries[i - 1].path;
		size_t dlen = dir_len(base_path), j = i - 1;

		while (j > 0 && in_dir(tries[j - 1].path, base_path, dlen) &&
		       dir_len(tries[j - 1].path) > dlen)
			j--;
		runs[k].dir = base_path;
		runs[k].dir_len = dlen;
		runs[k].via = tries[i - 1].via;
		runs[k].nsubdirs = i - 1 - j;
		k++;
		i = j;
	}
	/* Found from the end: put them in the loader's order. */
	for (r = 0; r < k / 2; r++) {
		struct ct_try_run tmp = runs[r];

		runs[r] = runs[k - 1 - r];
		runs[k - 1 - r] = tmp;
	}
	*nruns = k;
	return runs;
}

void ct_images_words(const struct ct_module *m, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < m->nimages; i++) {
		const char *a = m->images[i].arch ? m->images[i].arch : "?";

		if (ct_word_in(buf, a)) /* once each */
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
				      n ? " " : "", a);
		if (n >= size)
			break;
	}
}

const char *ct_proc_other_auditors(const struct ct_proc *p, char *buf, size_t size)
{
	const char *list = ct_proc_env(p, "LD_AUDIT");
	size_t n = 0;
	bool shim_seen = false;

	if (!size)
		return buf;
	buf[0] = '\0';
	while (list && *list) {
		size_t len = strcspn(list, ": ");
		const char *b = memrchr(list, '/', len);
		size_t blen = b ? len - (size_t)(b + 1 - list) : len;

		if (len && blen == strlen("libcudatrace.so") &&
		    strncmp(b ? b + 1 : list, "libcudatrace.so", blen) == 0 && !shim_seen) {
			shim_seen = true;
		} else if (len && n + 1 < size) {
			n += (size_t)snprintf(buf + n, size - n, "%s%.*s", n ? ":" : "", (int)len, list);
			if (n >= size)
				n = size - 1;
		}
		list += len;
		list += strspn(list, ": ");
	}
	return buf;
}

/* ---- the machine's driver, for ps --------------------------------------------- */

void ct_proc_set_driver(struct ct_trace *t, struct ct_proc *p, const struct ct_driver_probe *probe,
			bool same)
{
	struct ct_driver_rec *d = &p->driver;
	const char *mapped = NULL;
	int i;

	for (i = 0; (size_t)i < p->nobjects && !mapped; i++)
		if (ct_driver_file(p->objects[i].path))
			mapped = p->objects[i].path;
	if (!mapped || d->present)
		return;
	d->present = true;
	/* The file the process maps is its driver; the probe's is cudatrace's own. */
	d->path = mapped;
	if (!probe->opened || (!same && probe->init_result != 0)) {
		p->driver_unasked = true;
		return;
	}
	p->cuinit_probed = same;
	if (same && probe->init_result >= 0) {
		p->cuinit = probe->init_result;
		p->ncuinit = 1;
	}
	d->version = probe->version > 0 ? probe->version : 0;
	d->ngpus = 0;
	d->gpus = probe->ngpus > 0 ? ct_arena_alloc(&t->arena, (size_t)probe->ngpus *
								   sizeof(*d->gpus))
				   : NULL;
	for (i = 0; i < probe->ngpus; i++) {
		const struct ct_gpu_info *g = &probe->gpus[i];
		struct ct_gpu_rec *r = &d->gpus[d->ngpus++];
		char cc[32];

		memset(r, 0, sizeof(*r));
		r->index = g->index;
		r->name = g->name[0] ? ct_intern(&t->strings, g->name) : NULL;
		if (g->major >= 0 && g->minor >= 0) {
			snprintf(cc, sizeof(cc), "%d.%d", g->major, g->minor);
			r->cc = ct_intern(&t->strings, cc);
		}
		/* A trace's uuid is the bare hex; the probe's says "GPU-" first. */
		r->uuid = !g->uuid[0] ? NULL
			  : ct_intern(&t->strings, strncmp(g->uuid, "GPU-", 4) == 0 ? g->uuid + 4
										 : g->uuid);
	}
	d->has_devices = probe->init_result == 0;
}

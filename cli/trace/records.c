/*
 * A trace file's records into the typed records of its process
 * (reader.h): each record as it comes, joined through the reader's
 * tables (a search to its dlopen and the object it opened, a close to
 * the open it ends, a dlerror to its thread's dlopen); at the end of the
 * file, indices become pointers.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "libnames.h"
#include "reader.h"

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

static void on_search(struct reader *rd, const struct ct_jv *v, int64_t t, int64_t tid)
{
	struct ct_proc *p = rd->p;
	struct ct_search *s;
	struct by_tid *th = thread(rd, tid);
	struct by_id *e;
	size_t k = p->nsearches;

	rd->search_request = ct_trace_grow(rd->search_request, k, sizeof(size_t));
	rd->search_found = ct_trace_grow(rd->search_found, k, sizeof(size_t));
	s = CT_TRACE_PUSH(p->searches, p->nsearches);
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
		th->last_search = k + 1;
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

	rd->object_search = ct_trace_grow(rd->object_search, k, sizeof(size_t));
	rd->object_below = ct_trace_grow(rd->object_below, k, sizeof(size_t));
	o = CT_TRACE_PUSH(p->objects, p->nobjects);
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

/*
 * Is a dlerror text a dlsym's on an object the request (at time t) loaded
 * and kept: "PATH: undefined symbol: NAME", PATH still loaded and opened
 * since? A dlopen that fails on a symbol unmaps what it mapped, and one
 * that fails on a symbol version says "version"; an object loaded before
 * the request (RTLD_NOW on a lazily bound library) keeps its text with it.
 */
static bool dlsym_text(struct reader *rd, const char *text, int64_t t)
{
	const char *colon = text ? strstr(text, ": undefined symbol: ") : NULL;
	char path[PATH_MAX];
	struct by_path *e;

	if (!colon || text[0] != '/' || (size_t)(colon - text) >= sizeof(path))
		return false;
	memcpy(path, text, (size_t)(colon - text));
	path[colon - text] = '\0';
	return (e = find_path(rd->paths, path)) && e->open && rd->p->objects[e->open - 1].t >= t;
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
 * Can the thread's latest dlopen have failed, so that the dlerror text
 * that follows is its own? A text also follows a failed dlsym or dlclose
 * (bitsandbytes asks ctypes for a symbol it may lack, and goes on): a
 * dlopen that succeeded has no error, and giving it that text makes a
 * loaded library look refused. It succeeded when the object its search
 * opened is still there (the loader unloads what a failed dlopen mapped:
 * a close record), or, with the auditor, when it made no search: the
 * loader asks the auditor about every name not already loaded. Without
 * the auditor no search is recorded: nothing says, and the text is kept.
 */
static bool request_may_have_failed(const struct reader *rd, const struct by_tid *th)
{
	const struct ct_proc *p = rd->p;
	size_t found;

	if (!th->last_search)
		return !p->auditor;
	found = rd->search_found[th->last_search - 1];
	return !found || p->objects[found - 1].closed;
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

void ct_reader_record(struct reader *rd, const struct ct_jv *v)
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
		p->argv = ct_decode_strings(rd, ct_jget(v, "argv"), &p->argc);
		p->env = ct_decode_vars(rd, ct_jget(v, "env"), &p->nenv);
		p->ranks = ct_decode_vars(rd, ct_jget(v, "ranks"), &p->nranks);
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
		tr = CT_TRACE_PUSH(s->tries, s->ntries);
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
		struct ct_request *q = CT_TRACE_PUSH(p->requests, p->nrequests);
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
		th->last_search = 0;
		if (q->name && ct_cuda_library(q->name))
			cuda_event(p, CT_CUDA_EV_DLOPEN, p->nrequests - 1);
	} else if (strcmp(ev, "dlerror") == 0) {
		struct by_tid *th = thread(rd, tid);

		/*
		 * The text goes with this thread's latest request, if that one
		 * can have failed, unless it is a later dlsym's on what that
		 * dlopen loaded and kept ("PATH: undefined symbol: get_context",
		 * bitsandbytes' getattr on its library).
		 */
		if (th->last_request && !p->requests[th->last_request - 1].error &&
		    request_may_have_failed(rd, th) &&
		    !dlsym_text(rd, ct_jstr(v, "text", NULL), p->requests[th->last_request - 1].t))
			p->requests[th->last_request - 1].error = kstr(rd, v, "text", NULL);
	} else if (strcmp(ev, "module") == 0 || strcmp(ev, "register") == 0) {
		struct ct_module *m = CT_TRACE_PUSH(p->modules, p->nmodules);

		m->registration = ev[0] == 'r';
		m->api = m->registration ? "__cudaRegisterFatBinary" : kstr(rd, v, "api", "");
		m->caller = kstr(rd, v, "caller", NULL);
		m->file = kstr(rd, v, "file", NULL);
		m->input = kstr(rd, v, "input", NULL);
		m->name = kstr(rd, v, "name", NULL);
		m->result = ct_jint(v, "result", 0);
		m->t = t;
		m->images = ct_decode_images(rd, ct_jget(v, "images"), &m->nimages);
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
		ct_decode_driver(rd, &p->driver, v);
		/* The record with the devices is cuInit's own, written after it. */
		if (!p->driver.has_devices)
			cuda_event(p, CT_CUDA_EV_DRIVER, 0);
	} else if (strcmp(ev, "exec") == 0) {
		struct ct_exec *x = CT_TRACE_PUSH(p->execs, p->nexecs);

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
		p->dropped += (unsigned long)ct_decode_count(rd, v, "records");
		if (ct_jbool(v, "stopped", false)) {
			p->stopped = true;
			if (!p->stop_errno)
				p->stop_errno = ct_jint(v, "errno", 0);
		}
	}
}

void ct_reader_init(struct reader *rd, const struct sink *k, struct ct_proc *p)
{
	memset(rd, 0, sizeof(*rd));
	ct_arena_init(&rd->own);
	rd->k = k;
	rd->p = p;
	rd->arena = k->arena;
	rd->strings = k->strings;
}

void ct_reader_release(struct reader *rd)
{
	HASH_CLEAR(hh, rd->ids);
	HASH_CLEAR(hh, rd->tids);
	HASH_CLEAR(hh, rd->paths);
	ct_arena_release(&rd->own);
	free(rd->search_request);
	free(rd->search_found);
	free(rd->object_search);
	free(rd->object_below);
}

/* Indices to pointers, and what can only be known at the end. */
void ct_reader_finish(struct reader *rd)
{
	struct ct_proc *p = rd->p;
	size_t i;

	/* Before any pointer into them is taken. */
	p->objects = ct_trace_fit(p->objects, p->nobjects, sizeof(*p->objects));
	p->searches = ct_trace_fit(p->searches, p->nsearches, sizeof(*p->searches));
	p->requests = ct_trace_fit(p->requests, p->nrequests, sizeof(*p->requests));
	p->modules = ct_trace_fit(p->modules, p->nmodules, sizeof(*p->modules));
	p->execs = ct_trace_fit(p->execs, p->nexecs, sizeof(*p->execs));
	for (i = 0; i < p->nsearches; i++)
		p->searches[i].tries = ct_trace_fit(p->searches[i].tries, p->searches[i].ntries,
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
	ct_searches_already_loaded(rd);
}

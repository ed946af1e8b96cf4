/* Reading and joining trace records; see trace.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "jsonparse.h"
#include "mask.h"
#include "trace.h"

/* Trace files larger than this are read up to it (and said to be cut). */
#define TRACE_MAX ((size_t)1 << 30)

void ct_trace_init(struct ct_trace *t)
{
	memset(t, 0, sizeof(*t));
	ct_arena_init(&t->arena);
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
	ct_arena_release(&t->arena);
	memset(t, 0, sizeof(*t));
}

/* Append one zeroed element to a growing array; returns it. */
#define PUSH(arr, n)                                                          \
	((arr) = ct_xrealloc((arr), ((n) + 1) * sizeof(*(arr))),               \
	 memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])

static struct ct_search *find_search(struct ct_proc *p, int64_t id)
{
	size_t i = p->nsearches;

	while (i--)
		if (p->searches[i].id == id)
			return &p->searches[i];
	return NULL;
}

/*
 * Pointers into arrays that grow are kept as indices while reading and
 * turned into pointers once the process is complete.
 */
struct pending {
	int64_t tid;
	size_t request; /* index + 1 into requests; 0: none */
};

struct reader {
	struct ct_proc *p;
	struct ct_arena *arena;     /* the trace's: typed records go there */
	struct pending *pending;
	size_t npending;
	size_t *search_request; /* per search: request index + 1 */
	size_t *search_found;   /* per search: object index + 1 */
	size_t *object_search;  /* per object: search index + 1 */
};

static struct pending *pending_for(struct reader *r, int64_t tid)
{
	size_t i;

	for (i = 0; i < r->npending; i++)
		if (r->pending[i].tid == tid)
			return &r->pending[i];
	r->pending = ct_xrealloc(r->pending, (r->npending + 1) * sizeof(*r->pending));
	r->pending[r->npending].tid = tid;
	r->pending[r->npending].request = 0;
	return &r->pending[r->npending++];
}

/* ---- JSON values into typed records, in the arena ---------------------------- */

/* The strings of an array (anything else left out); *n of them. */
static const char **decode_strings(struct ct_arena *a, const struct ct_jv *v, size_t *n)
{
	const char **out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_ARR || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(a, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++)
		if (v->u.c.items[i]->type == CT_J_STR)
			out[(*n)++] = v->u.c.items[i]->u.str.s;
	return out;
}

/* An object's members as names and values (NULL when not a string). */
static struct ct_var *decode_vars(struct ct_arena *a, const struct ct_jv *v, size_t *n)
{
	struct ct_var *out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_OBJ || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(a, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++) {
		out[i].name = v->u.c.keys[i];
		out[i].value = v->u.c.items[i]->type == CT_J_STR ? v->u.c.items[i]->u.str.s : NULL;
	}
	*n = v->u.c.n;
	return out;
}

/* A module record's images: an entry per array item (a non-object one is all unknown). */
static struct ct_image_rec *decode_images(struct ct_arena *a, const struct ct_jv *v, size_t *n)
{
	struct ct_image_rec *out;
	size_t i;

	*n = 0;
	if (!v || v->type != CT_J_ARR || !v->u.c.n)
		return NULL;
	out = ct_arena_alloc(a, v->u.c.n * sizeof(*out));
	for (i = 0; i < v->u.c.n; i++) {
		const struct ct_jv *im = v->u.c.items[i];

		out[i].kind = ct_jstr(im, "kind", NULL);
		out[i].arch = ct_jstr(im, "arch", NULL);
		out[i].ptx_version = ct_jstr(im, "ptx_version", NULL);
	}
	*n = v->u.c.n;
	return out;
}

/* A driver record; it replaces what an earlier one said. */
static void decode_driver(struct ct_arena *a, struct ct_driver_rec *d, const struct ct_jv *v)
{
	const struct ct_jv *devs = ct_jget(v, "devices");
	size_t i;

	memset(d, 0, sizeof(*d));
	d->present = true;
	d->path = ct_jstr(v, "path", NULL);
	d->version = ct_jint(v, "version", 0);
	if (!devs || devs->type != CT_J_ARR)
		return;
	d->has_devices = true;
	if (!devs->u.c.n)
		return;
	d->gpus = ct_arena_alloc(a, devs->u.c.n * sizeof(*d->gpus));
	for (i = 0; i < devs->u.c.n; i++) {
		const struct ct_jv *g = devs->u.c.items[i];

		d->gpus[i].index = ct_jint(g, "index", (int64_t)i);
		d->gpus[i].name = ct_jstr(g, "name", NULL);
		d->gpus[i].cc = ct_jstr(g, "cc", NULL);
		d->gpus[i].uuid = ct_jstr(g, "uuid", NULL);
	}
	d->ngpus = devs->u.c.n;
}

/* ---- records ------------------------------------------------------------------ */

static void on_record(struct reader *rd, const struct ct_jv *v)
{
	struct ct_proc *p = rd->p;
	const char *ev = ct_jstr(v, "ev", "");
	int64_t t = ct_jint(v, "t", 0), tid = ct_jint(v, "tid", 0);

	if (strcmp(ev, "start") == 0) {
		if (p->started)
			return; /* a second one says nothing new */
		p->started = true;
		p->pid = ct_jint(v, "pid", p->pid);
		p->ppid = ct_jint(v, "ppid", 0);
		p->t = t;
		p->host = ct_jstr(v, "host", NULL);
		p->image = ct_jstr(v, "image", NULL);
		p->exe = ct_jstr(v, "exe", NULL);
		p->cwd = ct_jstr(v, "cwd", NULL);
		p->argv = decode_strings(rd->arena, ct_jget(v, "argv"), &p->argc);
		p->env = decode_vars(rd->arena, ct_jget(v, "env"), &p->nenv);
		p->ranks = decode_vars(rd->arena, ct_jget(v, "ranks"), &p->nranks);
		p->auditor = ct_jbool(v, "auditor", false);
		p->secure = ct_jbool(v, "secure", false);
	} else if (strcmp(ev, "search") == 0) {
		struct ct_search *s = PUSH(p->searches, p->nsearches);
		struct pending *pd = pending_for(rd, tid);
		size_t k = p->nsearches - 1;

		s->id = ct_jint(v, "id", 0);
		s->t = t;
		s->tid = tid;
		s->name = ct_jstr(v, "name", "");
		s->by = ct_jstr(v, "by", "");
		rd->search_request = ct_xrealloc(rd->search_request, p->nsearches * sizeof(size_t));
		rd->search_found = ct_xrealloc(rd->search_found, p->nsearches * sizeof(size_t));
		rd->search_request[k] = 0;
		rd->search_found[k] = 0;
		/* The first search after a dlopen on this thread is its own. */
		if (pd->request &&
		    strcmp(p->requests[pd->request - 1].name ? p->requests[pd->request - 1].name : "",
			   s->name) == 0) {
			rd->search_request[k] = pd->request;
			pd->request = 0;
		}
	} else if (strcmp(ev, "try") == 0) {
		struct ct_search *s = find_search(p, ct_jint(v, "search", -1));
		struct ct_try *tr;

		if (!s)
			return;
		tr = PUSH(s->tries, s->ntries);
		tr->path = ct_jstr(v, "path", "");
		tr->via = ct_rule_parse(ct_jstr(v, "via", NULL));
	} else if (strcmp(ev, "open") == 0) {
		struct ct_loaded *o = PUSH(p->objects, p->nobjects);
		struct ct_search *s = ct_jget(v, "search") ? find_search(p, ct_jint(v, "search", -1)) : NULL;
		const char *b;

		o->path = ct_jstr(v, "path", "");
		o->soname = ct_jstr(v, "soname", NULL);
		o->name = ct_jstr(v, "name", NULL);
		o->via = ct_rule_parse(ct_jstr(v, "via", NULL));
		o->by = ct_jstr(v, "by", NULL);
		o->lmid = ct_jint(v, "lmid", 0);
		o->t = t;
		o->dev = ct_ju64(v, "dev", 0);
		o->ino = ct_ju64(v, "ino", 0);
		o->size = ct_jint(v, "size", -1);
		o->mtime = ct_jint(v, "mtime", -1);
		o->main = ct_jbool(v, "main", false);
		b = strrchr(o->path, '/');
		o->shim = strcmp(b ? b + 1 : o->path, "libcudatrace.so") == 0;
		rd->object_search = ct_xrealloc(rd->object_search, p->nobjects * sizeof(size_t));
		rd->object_search[p->nobjects - 1] = 0;
		if (s) {
			size_t k = (size_t)(s - p->searches);

			rd->search_found[k] = p->nobjects;
			rd->object_search[p->nobjects - 1] = k + 1;
		}
	} else if (strcmp(ev, "close") == 0) {
		const char *path = ct_jstr(v, "path", "");
		size_t i = p->nobjects;

		while (i--)
			if (!p->objects[i].closed && strcmp(p->objects[i].path, path) == 0) {
				p->objects[i].closed = true;
				break;
			}
	} else if (strcmp(ev, "dlopen") == 0) {
		struct ct_request *q = PUSH(p->requests, p->nrequests);

		q->api = ct_jstr(v, "api", "dlopen");
		q->name = ct_jstr(v, "name", NULL);
		q->caller = ct_jstr(v, "caller", NULL);
		q->flags = ct_jint(v, "flags", 0);
		q->noload = ct_jbool(v, "noload", false);
		q->lmid = ct_jint(v, "lmid", 0);
		q->t = t;
		q->tid = tid;
		pending_for(rd, tid)->request = p->nrequests;
	} else if (strcmp(ev, "dlerror") == 0) {
		size_t i = p->nrequests;

		/* The text goes with this thread's latest request. */
		while (i--)
			if (p->requests[i].tid == tid) {
				if (!p->requests[i].error)
					p->requests[i].error = ct_jstr(v, "text", NULL);
				break;
			}
	} else if (strcmp(ev, "module") == 0 || strcmp(ev, "register") == 0) {
		struct ct_module *m = PUSH(p->modules, p->nmodules);

		m->registration = ev[0] == 'r';
		m->api = m->registration ? "__cudaRegisterFatBinary" : ct_jstr(v, "api", "");
		m->caller = ct_jstr(v, "caller", NULL);
		m->file = ct_jstr(v, "file", NULL);
		m->input = ct_jstr(v, "input", NULL);
		m->name = ct_jstr(v, "name", NULL);
		m->result = ct_jint(v, "result", 0);
		m->t = t;
		m->images = decode_images(rd->arena, ct_jget(v, "images"), &m->nimages);
	} else if (strcmp(ev, "cuinit") == 0) {
		p->cuinit = ct_jint(v, "result", -1);
		p->ncuinit++;
	} else if (strcmp(ev, "driver") == 0) {
		decode_driver(rd->arena, &p->driver, v);
	} else if (strcmp(ev, "exec") == 0) {
		struct ct_exec *x = PUSH(p->execs, p->nexecs);

		x->api = ct_jstr(v, "api", "");
		x->path = ct_jstr(v, "path", NULL);
		x->traced = ct_jbool(v, "traced", true);
		x->untraced = ct_jstr(v, "untraced", NULL);
		x->no_auditor = !ct_jbool(v, "auditor", true);
		x->t = t;
	} else if (strcmp(ev, "exit") == 0) {
		p->exited = true;
		p->exit_status = ct_jint(v, "status", 0);
		p->exit_api = ct_jstr(v, "api", "exit");
	} else if (strcmp(ev, "fini") == 0) {
		p->fini = true;
	} else if (strcmp(ev, "main") == 0) {
		p->reached_main = true;
	} else if (strcmp(ev, "dropped") == 0) {
		p->dropped += (unsigned long)ct_jint(v, "records", 0);
	}
}

/* Indices to pointers, and what can only be known at the end. */
static void finish(struct reader *rd)
{
	struct ct_proc *p = rd->p;
	size_t i, j, k;

	for (i = 0; i < p->nsearches; i++) {
		struct ct_search *s = &p->searches[i];

		if (rd->search_request[i]) {
			s->request = &p->requests[rd->search_request[i] - 1];
			s->request->search = s;
		}
		if (rd->search_found[i])
			s->found = &p->objects[rd->search_found[i] - 1];
	}
	for (i = 0; i < p->nobjects; i++) {
		struct ct_loaded *o = &p->objects[i];

		if (rd->object_search[i]) {
			o->search = &p->searches[rd->object_search[i] - 1];
			o->request = o->search->request;
		}
	}
	/*
	 * A search that opened nothing may still have succeeded: the loader
	 * maps a file only once, so a candidate that is an object already
	 * loaded ends the search without an open record.
	 */
	for (i = 0; i < p->nsearches; i++) {
		struct ct_search *s = &p->searches[i];

		if (s->found)
			continue;
		for (j = 0; j < s->ntries && !s->already_loaded; j++) {
			struct stat st;
			bool exists = stat(s->tries[j].path, &st) == 0;

			for (k = 0; k < p->nobjects; k++) {
				const struct ct_loaded *o = &p->objects[k];

				if (o->t > s->t)
					break;
				if (strcmp(o->path, s->tries[j].path) == 0 ||
				    (exists && o->dev == (uint64_t)st.st_dev &&
				     o->ino == (uint64_t)st.st_ino)) {
					s->already_loaded = true;
					s->found = &p->objects[k];
					break;
				}
			}
		}
		/* A name with a slash is opened directly, without candidates. */
		if (!s->found && strchr(s->name, '/'))
			for (k = 0; k < p->nobjects; k++)
				if (p->objects[k].t <= s->t &&
				    strcmp(p->objects[k].path, s->name) == 0) {
					s->already_loaded = true;
					s->found = &p->objects[k];
					break;
				}
	}
}

static char *read_all(const char *path, size_t *len, bool *cut)
{
	/* O_NONBLOCK: a FIFO named *.jsonl must not hang the reader. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	size_t n = 0, cap;

	*cut = false;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	cap = (size_t)st.st_size < TRACE_MAX ? (size_t)st.st_size : TRACE_MAX;
	buf = ct_xmalloc(cap + 1);
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*cut = (size_t)st.st_size > TRACE_MAX;
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void read_file(struct ct_trace *t, const char *path)
{
	struct reader rd = { 0 };
	struct ct_proc proc = { 0 };
	size_t len, records = 0;
	bool cut;
	char *buf = read_all(path, &len, &cut), *line, *end;

	if (!buf) {
		t->bad_files++;
		return;
	}
	proc.file = ct_arena_strdup(&t->arena, path);
	proc.cuinit = -1;
	proc.cut = cut;
	rd.p = &proc;
	rd.arena = &t->arena;
	for (line = buf; line < buf + len; line = end + 1) {
		const struct ct_jv *v;
		const char *err;
		char *copy;
		size_t n;

		end = memchr(line, '\n', (size_t)(buf + len - line));
		if (!end)
			end = buf + len;
		n = (size_t)(end - line);
		if (n == 0)
			continue;
		/* Records are parsed from a copy kept in the arena. */
		copy = ct_arena_alloc(&t->arena, n + 1);
		memcpy(copy, line, n);
		copy[n] = '\0';
		v = ct_json_parse(&t->arena, copy, n, &err);
		if (!v || v->type != CT_J_OBJ || !ct_jget(v, "ev")) {
			/* A last line without its newline was cut by a crash. */
			if (end == buf + len)
				proc.cut = true;
			else
				proc.bad_lines++;
			continue;
		}
		records++;
		on_record(&rd, v);
	}
	free(buf);
	if (records == 0) {
		t->bad_files++;
		proc_release(&proc);
	} else {
		finish(&rd);
		*PUSH(t->procs, t->nprocs) = proc;
	}
	free(rd.pending);
	free(rd.search_request);
	free(rd.search_found);
	free(rd.object_search);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ct_trace_read_dir(struct ct_trace *t, const char *dir, char *why,
		      size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;

	if (!d) {
		snprintf(why, size, "cannot read trace directory '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (has_suffix(de->d_name, ".jsonl")) {
			names = ct_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = ct_xstrdup(de->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		char *path = ct_xmalloc(strlen(dir) + strlen(names[i]) + 2);

		sprintf(path, "%s/%s", dir, names[i]);
		read_file(t, path);
		free(path);
		free(names[i]);
	}
	free(names);
	return 0;
}

static int cmp_procs(const void *a, const void *b)
{
	const struct ct_proc *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void ct_trace_link(struct ct_trace *t)
{
	size_t i, j;
	bool changed;

	if (t->nprocs)
		qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_procs);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];

		/* A fork shares its parent's image: that one, wherever it sorts. */
		for (j = 0; j < t->nprocs && !p->parent; j++) {
			struct ct_proc *q = &t->procs[j];

			if (q != p && q->pid == p->ppid && p->image && q->image &&
			    strcmp(p->image, q->image) == 0 &&
			    (!p->host || !q->host || strcmp(p->host, q->host) == 0)) {
				p->parent = q;
				p->forked = true;
			}
		}
		for (j = i; j-- > 0 && !p->parent;) {
			struct ct_proc *q = &t->procs[j];
			bool same_host = !p->host || !q->host || strcmp(p->host, q->host) == 0;

			/* The same pid earlier on the same host: the image it exec'd from. */
			if (same_host && q->pid == p->pid && q->t <= p->t) {
				p->parent = q;
				break;
			}
			if (same_host && q->pid == p->ppid && q->t <= p->t) {
				p->parent = q;
				break;
			}
		}
	}
	/*
	 * A fork's first record comes from the preload half, which cannot tell
	 * whether the auditor runs: its image's first process says (forks of
	 * forks too, whatever order they sorted in).
	 */
	for (changed = true; changed;) {
		changed = false;
		for (i = 0; i < t->nprocs; i++) {
			struct ct_proc *p = &t->procs[i];

			if (p->forked && p->parent && p->parent->auditor && !p->auditor) {
				p->auditor = true;
				changed = true;
			}
		}
	}
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

/* Is path's directory dir (dlen bytes) or below it? */
static bool in_dir(const char *path, const char *dir, size_t dlen)
{
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

		if (strstr(buf, a)) /* once each */
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
				      n ? " " : "", a);
		if (n >= size)
			break;
	}
}

/*
 * What a process's searches mean (trace.h): which found an object
 * already mapped though nothing was opened (at the end of its file,
 * reader.h), whether the trace tells that one found nothing
 * (ct_search_known), and their candidates folded by directory
 * (ct_try_runs).
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"

struct by_file {                     /* an object's device and inode */
	struct { uint64_t dev, ino; } key;
	size_t first;
	UT_hash_handle hh;
};

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

/* The searches of a file just read answered by an object already mapped (reader.h). */
void ct_searches_already_loaded(struct reader *rd)
{
	struct ct_proc *p = rd->p;
	struct by_file *files = NULL, *f;
	int64_t *latest = NULL;
	size_t i, j, k;

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

enum ct_search_known ct_search_known(const struct ct_proc *p, const struct ct_search *s)
{
	const struct ct_run *r = p->launched;

	if (s->found || s->already_loaded)
		return CT_SEARCH_KNOWN;
	if (s->audit)
		return CT_SEARCH_AUDITOR;
	if (s->in_doubt)
		return CT_SEARCH_LOST;
	/* Its thread went on, or the process went on to an end it wrote itself. */
	if (!s->unsettled || p->exited || p->fini)
		return CT_SEARCH_KNOWN;
	if (r && r->signal > 0)
		return CT_SEARCH_INTERRUPTED;
	/*
	 * The loader's own failure at start-up: it prints its error and exits
	 * 127 before main, past every exit hook, so the trace ends with the
	 * search. Anything else that ends a trace mid-search (a dlopen that
	 * never returned, a trace that stops while the program goes on to
	 * exit 0) is no miss.
	 */
	if (!p->reached_main && (!r || !r->exited || r->exit_status != 0))
		return CT_SEARCH_KNOWN;
	return CT_SEARCH_INTERRUPTED;
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

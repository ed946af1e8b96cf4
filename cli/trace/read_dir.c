/*
 * A folder's trace files and run records into the trace (trace.h:
 * ct_trace_read_dir). The files are read by threads (the only ones in
 * cudatrace), each into its own arena and strings, and counted in the
 * order of their names: the trace is the one a single thread reads.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "runrec.h"

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
		*CT_TRACE_PUSH(t->procs, t->nprocs) = res->proc;
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
	return t->nrecords + res->records < ct_trace_records_max(t) &&
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
		if (pl->next >= pl->n || pl->records >= ct_trace_records_max(pl->t) ||
		    pl->bytes > CT_TRACE_BYTES_MAX - CT_TRACE_FILE_BYTES_MAX) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		i = pl->next++;
		pthread_mutex_unlock(&pl->lock);
		ct_trace_read_file(&k, pl->paths[i], 0, 0, &pl->res[i]);
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
				ct_trace_proc_release(&res->proc);
			res = &mine;
			ct_trace_read_file(&one, paths[i], t->nrecords, t->nbytes, res);
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
			names = ct_trace_grow(names, n, sizeof(*names));
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

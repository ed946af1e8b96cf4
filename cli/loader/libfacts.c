/* A file's CUDA facts; see libfacts.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfinfo.h"
#include "libfacts.h"
#include "libnames.h"
#include "summary.h"
#include "util.h"

/*
 * threads: elfscan's, for a file whose sections have much to search
 * (cuBLASLt's .ldata, .cask_resource and .rodata side by side).
 */
static void read_facts(struct ct_cuda_facts *c, const char *path, const char *soname,
		       unsigned threads)
{
	struct elfscan_options opt = { .no_registration = true, .threads = threads };
	struct elfscan_file f;

	memset(c, 0, sizeof(*c));
	c->cuda_library = ct_cuda_library(path);
	c->cuda_minor = -1;
	snprintf(c->name, sizeof(c->name), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (c->cuda_library) {
		if (soname) {
			snprintf(c->soname, sizeof(c->soname), "%s", soname);
		} else {
			struct ct_elfinfo e;

			ct_elfinfo_init(&e);
			if (ct_elfinfo_read(&e, path) == 0 && e.soname)
				snprintf(c->soname, sizeof(c->soname), "%s", e.soname);
			ct_elfinfo_release(&e);
		}
		ct_library_version_of(path, c->soname, c->version, sizeof(c->version));
		c->renamed = ct_library_renamed(path, c->soname);
		c->cuda = ct_library_cuda(c->soname[0] ? c->soname : path, c->version,
					  &c->cuda_minor);
	}
	elfscan_file_init(&f);
	/*
	 * Everything scan's default finds: the fatbin sections and the
	 * containers outside them (cuFFT keeps all but one in .ldata, its
	 * .nv_fatbin says "sass sm_52" alone), so the summary names what
	 * scan names. Headers only, and no registration cross-check (9 MB
	 * of relocations in cuBLASLt): what is registered is not asked here.
	 */
	if (elfscan_scan_path(&f, path, &opt) == 0) {
		struct ct_summary s;

		ct_summary_build(&s, &f, 0, f.nimages);
		c->scanned = true;
		c->nimages = f.nimages;
		ct_summary_oneline(&s, c->line, sizeof(c->line));
		ct_summary_archs(&s, ELFSCAN_KIND_SASS, c->sass, sizeof(c->sass));
		ct_summary_archs(&s, ELFSCAN_KIND_PTX, c->ptx, sizeof(c->ptx));
		ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, c->ltoir, sizeof(c->ltoir));
		ct_summary_release(&s);
	}
	elfscan_file_release(&f);
}

void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path)
{
	ct_cuda_facts_read_named(c, path, NULL);
}

void ct_cuda_facts_read_named(struct ct_cuda_facts *c, const char *path, const char *soname)
{
	read_facts(c, path, soname, (unsigned)ct_threads(4) - 1);
}

/* ---- reading several files side by side ------------------------------------ */

enum { QUEUED, READING, READ };

struct facts_item {
	char *path;
	char *soname;           /* as the loader read it; NULL: read it */
	uint64_t size;          /* the file's: the larger, the more headers, first */
	int state;
	struct ct_cuda_facts facts;
};

struct ct_facts_pool {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct facts_item **items;
	size_t n, cap;
	bool stopping;
	pthread_t *threads;
	size_t nthreads;
};

/* Called locked; returns unlocked with the item read. */
static void read_item(struct ct_facts_pool *p, struct facts_item *it)
{
	it->state = READING;
	pthread_mutex_unlock(&p->lock);
	/* The pool's threads wait for files mostly: lend them to a big one. */
	read_facts(&it->facts, it->path, it->soname, (unsigned)p->nthreads);
	pthread_mutex_lock(&p->lock);
	it->state = READ;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Called locked: the largest file still queued, or NULL. Read largest
 * first, cuBLASLt's 5,737 headers do not come last and alone.
 */
static struct facts_item *largest_queued(const struct ct_facts_pool *p)
{
	struct facts_item *best = NULL;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->items[i]->state == QUEUED && (!best || p->items[i]->size > best->size))
			best = p->items[i];
	return best;
}

static void *facts_thread(void *arg)
{
	struct ct_facts_pool *p = arg;
	struct facts_item *it;

	pthread_mutex_lock(&p->lock);
	while (!p->stopping) {
		if (!(it = largest_queued(p))) {
			pthread_cond_wait(&p->changed, &p->lock);
			continue;
		}
		read_item(p, it);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct ct_facts_pool *ct_facts_start(size_t threads)
{
	struct ct_facts_pool *p = ct_xcalloc(1, sizeof(*p));
	size_t i;

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	p->threads = ct_xcalloc(threads + 1, sizeof(*p->threads));
	/* A thread that cannot start is one less; the caller reads the rest. */
	for (i = 0; i < threads; i++)
		if (pthread_create(&p->threads[p->nthreads], NULL, facts_thread, p) == 0)
			p->nthreads++;
	return p;
}

/* Called locked. */
static struct facts_item *find_or_add(struct ct_facts_pool *p, const char *path,
				      const char *soname)
{
	struct facts_item *it;
	struct stat st;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->items[i]->path, path) == 0)
			return p->items[i];
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->items = ct_xrealloc(p->items, p->cap * sizeof(*p->items));
	}
	it = ct_xcalloc(1, sizeof(*it));
	it->path = ct_xstrdup(path);
	it->soname = soname ? ct_xstrdup(soname) : NULL;
	if (stat(path, &st) == 0)
		it->size = (uint64_t)st.st_size;
	p->items[p->n++] = it;
	pthread_cond_broadcast(&p->changed);
	return it;
}

void ct_facts_add(struct ct_facts_pool *p, const char *path, const char *soname)
{
	pthread_mutex_lock(&p->lock);
	find_or_add(p, path, soname);
	pthread_mutex_unlock(&p->lock);
}

const struct ct_cuda_facts *ct_facts_get(struct ct_facts_pool *p, const char *path)
{
	struct facts_item *it, *other;

	pthread_mutex_lock(&p->lock);
	it = find_or_add(p, path, NULL);
	if (it->state == QUEUED) {
		read_item(p, it);
		return &it->facts;
	}
	/* A thread reads it: read another file meanwhile rather than wait. */
	while (it->state != READ) {
		if ((other = largest_queued(p))) {
			read_item(p, other);
			pthread_mutex_lock(&p->lock);
		} else {
			pthread_cond_wait(&p->changed, &p->lock);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return &it->facts;
}

void ct_facts_stop(struct ct_facts_pool *p)
{
	size_t i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	for (i = 0; i < p->n; i++) {
		free(p->items[i]->path);
		free(p->items[i]->soname);
		free(p->items[i]);
	}
	free(p->items);
	free(p->threads);
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/*
 * Turning command-line paths into scanned objects: plain files,
 * directories walked recursively, and wheels whose members are read into
 * memory (nothing is extracted to disk).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

#include "files.h"
#include "util.h"
#include "inputs.h"
#include "elfscan.h"
#include "zip.h"

/*
 * A wheel's member is read whole into memory to be scanned, so its
 * declared size is what it costs. Real CUDA wheels hold members of 1 GB
 * and more (torch's libtorch_cuda.so; cuBLASLt's 500 MB), deflated 2 to
 * 5 times smaller: device code is dense, and often compressed already.
 * Deflate cannot shrink anything more than about 1030 times, and only
 * runs of one byte come near that: a zip bomb. A member declared over
 * BOMB_SIZE that is stored more than BOMB_RATIO times smaller is refused
 * (docs/scan-and-check.md, "Wheels"); smaller members cost little however
 * they are stored.
 */
#define BOMB_SIZE ((uint64_t)64 << 20)
#define BOMB_RATIO 100

struct file_id {
	dev_t dev;
	ino_t ino;
};

struct seen {
	struct file_id id;
	UT_hash_handle hh;
};

/*
 * A file on its way to fn: scanned by a worker thread while the files
 * before it are handed over, so that a folder of libraries is read by
 * every processor and fn still sees them in walk order.
 */
struct pending {
	char *path;
	char *error;           /* set instead of a scan: handed over as is */
	struct elfscan_file f;
	int rc;
	int state;             /* QUEUED, SCANNING, SCANNED */
	bool named;            /* ct_object.named */
	struct pending *next;  /* in walk order */
};

enum { QUEUED, SCANNING, SCANNED };

struct walk {
	const struct ct_walk_options *opt;
	ct_object_fn fn;
	void *ctx;
	struct seen *dirs;  /* directories entered: loops end here */
	struct seen *files; /* files scanned: two names, one scan */
	/* The pipeline: head is handed over next; workers take QUEUED ones. */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct pending *head, *tail;
	size_t npending, ahead; /* ahead: how many may wait at most */
	pthread_t *workers;
	size_t nworkers;
	bool one_file;      /* a single regular file: threads for its sections */
	int stop, quit;
};

/* Adds id to the set; returns 1 when it was already there. */
static int seen_add(struct seen **set, const struct stat *st)
{
	struct seen *s;
	struct file_id id;

	memset(&id, 0, sizeof(id));
	id.dev = st->st_dev;
	id.ino = st->st_ino;
	HASH_FIND(hh, *set, &id, sizeof(id), s);
	if (s)
		return 1;
	s = ct_xcalloc(1, sizeof(*s));
	s->id = id;
	HASH_ADD(hh, *set, id, sizeof(s->id), s);
	return 0;
}

static void seen_free(struct seen **set)
{
	struct seen *s, *tmp;

	HASH_ITER(hh, *set, s, tmp)
	{
		HASH_DEL(*set, s);
		free(s);
	}
}

static int enqueue(struct walk *w, const char *path, const char *error, bool named);

/* In walk order: after the files before it are handed over. */
static int report_error(struct walk *w, const char *path, const char *why)
{
	return enqueue(w, path, why, false);
}

static const char *scan_error_text(int rc)
{
	if (rc == -EINVAL)
		return "not an ELF, cubin, fatbin or PTX file";
	if (rc == -ENODEV)
		return "not a regular file";
	return strerror(-rc);
}

/* Scan f's bytes (already set up) and hand the object over. */
static int deliver(struct walk *w, const char *path, struct elfscan_file *f,
		   int rc, bool named)
{
	struct ct_object obj = { path, f, NULL, named };
	char why[256];
	int stop;

	if (rc == 0 && f->nproblems &&
	    elfscan_problem_is_fatal(f->problems[0].code)) {
		obj.scan = NULL;
		obj.error = elfscan_problem_describe(f, &f->problems[0], why,
						     sizeof(why));
	}
	if (rc) {
		obj.scan = NULL;
		obj.error = scan_error_text(rc);
	}
	stop = w->fn(w->ctx, &obj);
	return stop;
}

static void scan_pending(struct walk *w, struct pending *p)
{
	struct elfscan_options o = { .no_magic_scan = w->opt->no_magic_scan,
				     .threads = w->one_file ? w->opt->threads : 0 };

	elfscan_file_init(&p->f);
	p->rc = elfscan_scan_path(&p->f, p->path, &o);
	if (p->rc == 0 && w->opt->verify &&
	    !(p->f.nproblems && elfscan_problem_is_fatal(p->f.problems[0].code)))
		p->rc = elfscan_verify(&p->f);
}

/*
 * Called locked: scan the first file still queued from p on, unlocked
 * meanwhile. Returns false when none is queued.
 */
static bool scan_queued(struct walk *w, struct pending *p)
{
	while (p && p->state != QUEUED)
		p = p->next;
	if (!p)
		return false;
	p->state = SCANNING;
	pthread_mutex_unlock(&w->lock);
	scan_pending(w, p);
	pthread_mutex_lock(&w->lock);
	p->state = SCANNED;
	pthread_cond_broadcast(&w->changed);
	return true;
}

static void *worker(void *arg)
{
	struct walk *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->quit)
		if (!scan_queued(w, w->head))
			pthread_cond_wait(&w->changed, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Hand the oldest pending file to fn. While a worker still scans it, this
 * thread scans the files queued after it instead of waiting.
 */
static void hand_over(struct walk *w)
{
	struct pending *p;

	pthread_mutex_lock(&w->lock);
	p = w->head;
	while (p->state != SCANNED)
		if (!scan_queued(w, p))
			pthread_cond_wait(&w->changed, &w->lock);
	w->head = p->next;
	if (!w->head)
		w->tail = NULL;
	w->npending--;
	pthread_mutex_unlock(&w->lock);
	if (!w->stop) {
		if (p->error) {
			struct ct_object obj = { p->path, NULL, p->error, p->named };

			w->stop = w->fn(w->ctx, &obj);
		} else {
			w->stop = deliver(w, p->path, &p->f, p->rc, p->named);
		}
	}
	if (!p->error)
		elfscan_file_release(&p->f);
	free(p->path);
	free(p->error);
	free(p);
}

/* Everything queued, handed over in order; returns the stop value. */
static int drain(struct walk *w)
{
	while (w->head)
		hand_over(w);
	return w->stop;
}

static int enqueue(struct walk *w, const char *path, const char *error, bool named)
{
	struct pending *p = ct_xcalloc(1, sizeof(*p));

	p->named = named;
	p->path = ct_xstrdup(path);
	p->error = error ? ct_xstrdup(error) : NULL;
	p->state = error ? SCANNED : QUEUED;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = p;
	else
		w->head = p;
	w->tail = p;
	w->npending++;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	while (w->npending > w->ahead && !w->stop)
		hand_over(w);
	return w->stop;
}

static int scan_file(struct walk *w, const char *path, bool named)
{
	return enqueue(w, path, NULL, named);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int named_device_file(const char *name)
{
	return has_suffix(name, ".ptx") || has_suffix(name, ".cubin") ||
	       has_suffix(name, ".fatbin");
}

/* Magic numbers of what we read; the zip magic marks a wheel. */
enum magic { M_OTHER, M_DEVICE, M_ZIP };

static enum magic classify(const unsigned char *b, size_t n)
{
	if (n >= 4 && memcmp(b, "\177ELF", 4) == 0)
		return M_DEVICE;
	if (n >= 4 && b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 &&
	    b[3] == 0xBA)
		return M_DEVICE;
	if (n >= 4 && memcmp(b, "PK\003\004", 4) == 0)
		return M_ZIP;
	return M_OTHER;
}

static enum magic file_magic(const char *path)
{
	unsigned char b[4];
	ssize_t n;
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return M_OTHER;
	n = read(fd, b, sizeof(b));
	close(fd);
	return classify(b, n > 0 ? (size_t)n : 0);
}

/* Straight to fn: the queue is empty (a wheel's members, after drain). */
static int report_now(struct walk *w, const char *path, const char *why)
{
	struct ct_object obj = { path, NULL, why, false };

	w->stop = w->fn(w->ctx, &obj);
	return w->stop;
}

/* Whole MiB for messages; a few bytes are "1 MiB", never "0 MiB". */
static unsigned long long mib(uint64_t n)
{
	return n && n < (1 << 20) ? 1 : (unsigned long long)(n >> 20);
}

/*
 * Why member m may not be read into memory (in why), or NULL. The bytes
 * read are bounded by the size declared, never more (ct_zip_file_read).
 */
static const char *member_refused(const struct ct_zip_member *m, char *why, size_t size)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;

	if (m->size > BOMB_SIZE && (m->stored == 0 || m->size / m->stored > BOMB_RATIO)) {
		snprintf(why, size,
			 "refused as a zip bomb: %llu MiB unpacked from %llu MiB stored "
			 "(members over %llu MiB are read only up to %d times their stored size)",
			 mib(m->size), mib(m->stored), mib(BOMB_SIZE), BOMB_RATIO);
		return why;
	}
	if (ram && m->size > ram) {
		snprintf(why, size,
			 "refused: %llu MiB unpacked, more than this machine's memory (%llu MiB)",
			 mib(m->size), mib(ram));
		return why;
	}
	return NULL;
}

/*
 * Member m (its first 4 bytes in head, already read from zf) whole into a
 * new buffer of exactly the size declared: the reader yields no more, and
 * fails the member if its data holds more or less, or its CRC-32 differs.
 * NULL with why set when it cannot be had.
 */
static unsigned char *read_member(struct ct_zip_file *zf, const struct ct_zip_member *m,
				  const unsigned char *head, char *why, size_t size)
{
	unsigned char *buf;
	ssize_t got;

	if (member_refused(m, why, size))
		return NULL;
	/* Not ct_xmalloc: a member too big for this process is that member's error. */
	if (m->size > SIZE_MAX || m->size > SSIZE_MAX || !(buf = malloc((size_t)m->size))) {
		snprintf(why, size, "refused: %llu MiB unpacked, more memory than cudatrace can have",
			 mib(m->size));
		return NULL;
	}
	memcpy(buf, head, 4);
	got = ct_zip_file_read(zf, buf + 4, (size_t)m->size - 4, why, size);
	if (got != (ssize_t)(m->size - 4)) {
		if (got >= 0)
			snprintf(why, size, "damaged: it ends before its declared size");
		free(buf);
		return NULL;
	}
	return buf;
}

/* A wheel's members, each scanned in memory and handed over as PATH!NAME. */
static int scan_members(struct walk *w, const char *path, const struct ct_zip *za)
{
	size_t i;
	int stop = 0;

	for (i = 0; i < za->n && !stop; i++) {
		const struct ct_zip_member *m = &za->members[i];
		struct ct_zip_file zf;
		unsigned char head[4], *buf = NULL;
		char *mpath, why[256];
		struct elfscan_file f;
		struct elfscan_options o = { .no_magic_scan = w->opt->no_magic_scan };
		int rc;

		if (has_suffix(m->name, "/") || m->size < 4)
			continue;
		mpath = ct_xmalloc(strlen(path) + strlen(m->name) + 2);
		sprintf(mpath, "%s!%s", path, m->name);
		if (ct_zip_file_open(&zf, za, i, why, sizeof(why)) < 0) {
			stop = report_now(w, mpath, why);
			goto next;
		}
		if (ct_zip_file_read(&zf, head, sizeof(head), why, sizeof(why)) != (ssize_t)sizeof(head)) {
			stop = report_now(w, mpath, why);
			goto next;
		}
		if (classify(head, sizeof(head)) != M_DEVICE && !named_device_file(m->name))
			goto next;
		if (!(buf = read_member(&zf, m, head, why, sizeof(why)))) {
			stop = report_now(w, mpath, why);
			goto next;
		}
		ct_zip_file_close(&zf);
		elfscan_file_init(&f);
		rc = elfscan_scan_buffer(&f, buf, (size_t)m->size, &o);
		if (rc == 0 && w->opt->verify &&
		    !(f.nproblems && elfscan_problem_is_fatal(f.problems[0].code)))
			rc = elfscan_verify(&f);
		stop = deliver(w, mpath, &f, rc, false);
		elfscan_file_release(&f);
next:
		ct_zip_file_close(&zf);
		free(buf);
		free(mpath);
	}
	return stop;
}

static int scan_wheel(struct walk *w, const char *path)
{
	struct ct_zip za;
	struct stat fst;
	int fd;
	char why[256], what[300];

	/* Members are handed over here, in order: after every file before. */
	if (drain(w))
		return w->stop;
	/* Through the descriptor checked (files.h): the path is never opened again. */
	fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
		snprintf(why, sizeof(why), "%s", fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return report_now(w, path, why);
	}
	if (ct_zip_open_fd(&za, fd, why, sizeof(why)) < 0) {
		close(fd);
		snprintf(what, sizeof(what), "cannot read as a wheel: %s", why);
		return report_now(w, path, what);
	}
	w->stop = scan_members(w, path, &za);
	ct_zip_close(&za);
	close(fd);
	return w->stop;
}

static int walk_path(struct walk *w, const char *path, int explicit_arg);

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(struct walk *w, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int stop = 0, pass;

	if (!d)
		return report_error(w, path, strerror(errno));
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = ct_xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = ct_xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1) /* an empty folder leaves names NULL: not for qsort */
		qsort(names, n, sizeof(*names), cmp_names);

	/* Real files first, so a library is named by its file, not a link. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n && !stop; i++) {
			char *child;
			struct stat lst;
			size_t len = strlen(path);
			int is_link;

			child = ct_xmalloc(len + strlen(names[i]) + 2);
			snprintf(child, len + strlen(names[i]) + 2, "%s%s%s", path,
				len && path[len - 1] == '/' ? "" : "/",
				names[i]);
			if (lstat(child, &lst) != 0) {
				free(child);
				continue;
			}
			is_link = S_ISLNK(lst.st_mode);
			if (is_link != pass) {
				free(child);
				continue;
			}
			stop = walk_path(w, child, 0);
			free(child);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return stop;
}

static int walk_path(struct walk *w, const char *path, int explicit_arg)
{
	struct stat st;
	enum magic m;

	if (stat(path, &st) != 0) {
		/* A dangling link inside a tree is not the user's input. */
		if (!explicit_arg && errno == ENOENT)
			return 0;
		return report_error(w, path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		if (seen_add(&w->dirs, &st))
			return 0;
		return walk_dir(w, path);
	}
	if (!S_ISREG(st.st_mode)) {
		if (explicit_arg)
			return report_error(w, path, "not a regular file");
		return 0;
	}
	if (w->opt->files)
		(*w->opt->files)++;
	m = file_magic(path);
	if (!explicit_arg && m == M_OTHER && !named_device_file(path))
		return 0;
	if (!explicit_arg && m == M_ZIP && !has_suffix(path, ".whl"))
		return 0;
	if (seen_add(&w->files, &st) && !explicit_arg)
		return 0;
	if (m == M_ZIP)
		return scan_wheel(w, path);
	return scan_file(w, path, explicit_arg);
}

int ct_walk(char *const *paths, size_t n, const struct ct_walk_options *opt,
	    ct_object_fn fn, void *ctx)
{
	struct walk w;
	struct stat st;
	size_t i;
	int stop;

	memset(&w, 0, sizeof(w));
	w.opt = opt;
	w.fn = fn;
	w.ctx = ctx;
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.changed, NULL);
	/* One file: its sections share the threads. Else the files do. */
	w.one_file = n == 1 && stat(paths[0], &st) == 0 && S_ISREG(st.st_mode);
	if (opt->threads && !w.one_file) {
		w.workers = ct_xcalloc(opt->threads, sizeof(*w.workers));
		for (i = 0; i < opt->threads; i++)
			if (pthread_create(&w.workers[w.nworkers], NULL, worker, &w) == 0)
				w.nworkers++;
	}
	/* Scanned ahead: enough to keep every thread busy, few mappings held. */
	w.ahead = 4 * (w.nworkers + 1);
	for (i = 0; i < n && !w.stop; i++) {
		/* Each PATH on its own: one given twice is listed twice. */
		walk_path(&w, paths[i], 1);
		seen_free(&w.dirs);
		seen_free(&w.files);
	}
	stop = drain(&w);
	pthread_mutex_lock(&w.lock);
	w.quit = 1;
	pthread_cond_broadcast(&w.changed);
	pthread_mutex_unlock(&w.lock);
	for (i = 0; i < w.nworkers; i++)
		pthread_join(w.workers[i], NULL);
	free(w.workers);
	pthread_cond_destroy(&w.changed);
	pthread_mutex_destroy(&w.lock);
	return stop;
}

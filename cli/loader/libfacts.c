/* A file's CUDA facts; see libfacts.h. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "compat.h"
#include "copies.h"
#include "elfinfo.h"
#include "libfacts.h"
#include "libnames.h"
#include "summary.h"
#include "files.h"
#include "util.h"

/*
 * The CUDA major a wheel or toolkit folder belongs to: "cu13" (CUDA 13
 * wheels share nvidia/cu13/lib) or "cuda-12.4"; 0 when it says none.
 */
static int folder_cuda_major(const char *name)
{
	if (strncmp(name, "cuda-", 5) == 0)
		return atoi(name + 5);
	if (strncmp(name, "cu", 2) == 0 && name[2] >= '1' && name[2] <= '9')
		return atoi(name + 2);
	return 0;
}

enum { RECORD_MAX = 16 << 20 };

/*
 * Does the RECORD of the dist-info folder list rel (a path relative to
 * the site folder) with this size? A RECORD line is "PATH,HASH,SIZE"
 * (PATH quoted when it holds a comma, which no library's name does).
 */
static bool record_lists(const char *distinfo, const char *rel, long long fsize)
{
	char file[PATH_MAX], *text, *line, *save = NULL;
	size_t rl = strlen(rel);
	bool found = false;
	int n = snprintf(file, sizeof(file), "%s/RECORD", distinfo);

	if (n < 0 || (size_t)n >= sizeof(file) || !(text = ct_read_small_file(file, RECORD_MAX)))
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		const char *comma = strrchr(line, ',');

		found = strncmp(line, rel, rl) == 0 && line[rl] == ',' && comma &&
			strtoll(comma + 1, NULL, 10) == fsize;
	}
	free(text);
	return found;
}

/*
 * The version pip recorded for the wheel a library came with: the
 * .dist-info folder of its package in site-packages (SITE/nvidia/COMP/lib),
 * or in a dist-info folder next to a toolkit's lib folder, which
 * wheel-assembled toolkits keep. Wheels name their files by soname alone,
 * so this is the only place their version is written down.
 *
 * Several packages can match a folder: nvidia_cusparse (CUDA 13, its files
 * in nvidia/cu13/lib) and nvidia_cusparse_cu12 (nvidia/cusparse/lib) of one
 * major, or nvidia_cudnn_cu12 and nvidia_cudnn_cu13, which both install
 * nvidia/cudnn/lib/libcudnn.so.9: the last one installed overwrote the
 * other's file, and both RECORDs still list it. The package whose RECORD
 * lists the file with its size is the one it came from; without such a
 * RECORD, the first package of the library's major.
 */
static bool wheel_version(const char *real, const char *soname, char *buf, size_t size)
{
	char lib[PATH_MAX], pkgdir[PATH_MAX], up[PATH_MAX], site[PATH_MAX], pattern[PATH_MAX];
	char pkg[96];
	const char *so_major = strstr(soname, ".so."), *comp, *rel = NULL;
	int major, n;
	glob_t g;
	size_t i, pick = SIZE_MAX;
	struct stat st;
	bool ok = false;

	ct_path_dir(ct_path_dir(ct_path_dir(real, lib, sizeof(lib)), pkgdir, sizeof(pkgdir)), up, sizeof(up));
	comp = ct_path_base(pkgdir);
	major = folder_cuda_major(comp);
	if (strcmp(ct_path_base(up), "nvidia") == 0)
		ct_path_dir(up, site, sizeof(site));
	else if (!major || (n = snprintf(site, sizeof(site), "%s/dist-info", pkgdir)) < 0 ||
		 (size_t)n >= sizeof(site)) /* cuda-13.0/lib next to cuda-13.0/dist-info */
		return false;
	if (!major) {
		/* nvidia/cuda_runtime/lib: nvidia_cuda_runtime_cu12-12.4.127.dist-info */
		n = snprintf(pattern, sizeof(pattern), "%s/nvidia_%s*-*.dist-info", site, comp);
	} else {
		/* nvidia/cu13/lib holds every CUDA 13 wheel's files: ask by package. */
		if (!ct_pip_package(soname, major, pkg, sizeof(pkg)))
			return false;
		for (i = 0; pkg[i]; i++)
			pkg[i] = pkg[i] == '-' ? '_' : pkg[i];
		n = snprintf(pattern, sizeof(pattern), "%s/%s-*.dist-info", site, pkg);
	}
	if (n < 0 || (size_t)n >= sizeof(pattern) || glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return false;
	/* The file's path in the site folder, as RECORD spells it. */
	if (strncmp(real, site, strlen(site)) == 0 && real[strlen(site)] == '/' &&
	    stat(real, &st) == 0)
		rel = real + strlen(site) + 1;
	/* Only a version of the library's own major: several may be installed. */
	for (i = 0; i < g.gl_pathc; i++) {
		/* NAME-VERSION.dist-info: NAME has no '-', VERSION none either. */
		size_t len = strlen(g.gl_pathv[i]) - strlen(".dist-info");
		const char *v = memrchr(g.gl_pathv[i], '-', len) + 1;

		if (so_major && atoi(so_major + 4) != atoi(v))
			continue;
		if (rel && record_lists(g.gl_pathv[i], rel, (long long)st.st_size)) {
			pick = i;
			break;
		}
		if (pick == SIZE_MAX)
			pick = i;
	}
	if (pick != SIZE_MAX) {
		size_t len = strlen(g.gl_pathv[pick]) - strlen(".dist-info");
		const char *v = memrchr(g.gl_pathv[pick], '-', len) + 1;

		snprintf(buf, size, "%.*s", (int)(g.gl_pathv[pick] + len - v), v);
		ok = true;
	}
	globfree(&g);
	return ok;
}

/* The major a version or soname part starts with ("11" of "11.8.89"), or -1. */
static int leading_major(const char *v)
{
	return v && v[0] >= '0' && v[0] <= '9' ? atoi(v) : -1;
}

const char *ct_library_file_version(const char *path, const char *soname, char *buf, size_t size)
{
	char real[PATH_MAX], stem[256];
	const char *major, *b;

	buf[0] = '\0';
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	b = ct_path_base(real);
	/*
	 * libcudart.so.12.4.127 says its version, and libcudart.so.11.8.89
	 * says libcudart.so.11.0's (every CUDA 11.1 to 11.8 runtime has that
	 * soname); a file named by its soname alone (libcudart.so.12,
	 * libcudart.so.11.0) says only what the soname says. A name of
	 * another major than the soname's lies (a copy renamed), except the
	 * driver's: libcuda.so.550.163.01 is libcuda.so.1.
	 */
	if (ct_soname_split(soname, stem, sizeof(stem), &major) && strcmp(b, soname) != 0 &&
	    strncmp(b, stem, strlen(stem)) == 0 && b[strlen(stem)] == '.' &&
	    strchr(ct_library_version(real, buf, size), '.') &&
	    (ct_driver_library(soname) != CT_DRIVER_LIB_NONE || !major ||
	     leading_major(major) == leading_major(buf)))
		return "file name";
	buf[0] = '\0';
	return wheel_version(real, soname, buf, size) ? "dist-info" : NULL;
}

const char *ct_library_version_read(const char *path, const char *soname, char *buf, size_t size)
{
	const char *from, *v;

	if (!size)
		return NULL;
	buf[0] = '\0';
	if (!soname || !soname[0]) {
		char real[PATH_MAX];

		/*
		 * No DT_SONAME to weigh the name against (ps's list reads none):
		 * the real file's name says what it says (libcudart.so.12.4.127);
		 * one that says only a major (a wheel's libcudart.so.12) may have
		 * its release in the wheel's dist-info.
		 */
		ct_library_version(path, buf, size);
		if (strchr(buf, '.'))
			return "file name";
		if (!realpath(path, real))
			snprintf(real, sizeof(real), "%s", path);
		if (wheel_version(real, ct_path_base(real), buf, size))
			return "dist-info";
		ct_library_version(path, buf, size);
		return buf[0] ? "file name" : NULL;
	}
	if ((from = ct_library_file_version(path, soname, buf, size)))
		return from;
	/*
	 * The soname's major alone, never more: libcudart.so.11.0's "11.0"
	 * names no release (11.8.89 has it too).
	 */
	v = strstr(ct_path_base(soname), ".so.");
	if (!v || leading_major(v + 4) < 0)
		return NULL;
	snprintf(buf, size, "%.*s", (int)strspn(v + 4, "0123456789"), v + 4);
	return "soname";
}

/*
 * The driver's banner in its libraries' read-only data: "Version
 * 550.163.01. Copyright (C) 2025 NVIDIA Corporation." (libcuda.so.1 of
 * 550.163.01: once, in .rodata). Read in chunks, never mapped: a plain
 * libcuda.so.1 (WSL's, a copy without its symlink) is asked this once.
 */
#define BANNER ". Copyright (C) "
#define BANNER_CHUNK (1u << 20)
/*
 * What a chunk keeps of the one before: the version before a banner
 * (40 bytes) and the 64 after it that name NVIDIA, so that a banner cut
 * by a chunk's end is whole in the next.
 */
#define BANNER_KEEP 128u
#define BANNER_MAX (512ull << 20)

/* At the banner at: "Version 550.163.01" before it, NVIDIA after. Into buf. */
static bool banner_at(const char *lo, const char *at, const char *hi, char *buf, size_t size)
{
	const char *v = at;
	size_t after = (size_t)(hi - at) < 64 ? (size_t)(hi - at) : 64;

	if (!memmem(at, after, "NVIDIA Corporation", 18))
		return false;
	while (v > lo && at - v < 32 && ((v[-1] >= '0' && v[-1] <= '9') || v[-1] == '.'))
		v--;
	if (v == at || *v == '.' || !memchr(v, '.', (size_t)(at - v)) || v - lo < 8 ||
	    memcmp(v - 8, "Version ", 8) != 0)
		return false;
	snprintf(buf, size, "%.*s", (int)(at - v), v);
	return true;
}

static bool banner_of(const char *path, char *buf, size_t size)
{
	char *chunk;
	size_t kept = 0;
	uint64_t off = 0;
	bool ok = false;
	/* Never wait on a FIFO or a device put in a library's place. */
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	chunk = ct_xmalloc(BANNER_KEEP + BANNER_CHUNK);
	while (!ok && off < BANNER_MAX) {
		ssize_t got = pread(fd, chunk + kept, BANNER_CHUNK, (off_t)off);
		const char *at = chunk, *end;

		if (got <= 0)
			break;
		end = chunk + kept + got;
		while (!ok && (at = memmem(at, (size_t)(end - at), BANNER, strlen(BANNER)))) {
			ok = banner_at(chunk, at, end, buf, size);
			at += strlen(BANNER);
		}
		kept = (size_t)(end - chunk) < BANNER_KEEP ? (size_t)(end - chunk) : BANNER_KEEP;
		memmove(chunk, end - kept, kept);
		off += (uint64_t)got;
	}
	free(chunk);
	close(fd);
	return ok;
}

const char *ct_driver_version(const char *path, const char *soname, char *buf, size_t size)
{
	const char *from = ct_library_file_version(path, soname, buf, size);

	if (from)
		return from;
	return banner_of(path, buf, size) ? "file" : NULL;
}

/*
 * Device-code summaries kept between runs (cache.h) for files this large
 * or larger: below, the scan costs about what reading a record back
 * does (a 16 MB library has at most a few milliseconds to search).
 */
#define FACTS_CACHE_MIN ((off_t)16 << 20)
#define FACTS_CACHE_KIND "device-code-1"

/* The summary as a record: a line each, "images N", then line, sass, ptx, ltoir. */
static int facts_record(const struct ct_cuda_facts *c, char *buf, size_t size)
{
	int n = snprintf(buf, size, "images %zu\nline %s\nsass %s\nptx %s\nltoir %s\n",
			 c->nimages, c->line, c->sass, c->ptx, c->ltoir);

	return n > 0 && (size_t)n < size ? n : -1;
}

/* One "NAME VALUE" line of rec at *at into out (size bytes); false unless it fits. */
static bool record_field(const char **at, const char *name, char *out, size_t size)
{
	size_t len = strlen(name), n;
	const char *end;

	if (strncmp(*at, name, len) != 0 || (*at)[len] != ' ' ||
	    !(end = strchr(*at + len + 1, '\n')))
		return false;
	n = (size_t)(end - (*at + len + 1));
	if (n >= size)
		return false;
	memcpy(out, *at + len + 1, n);
	out[n] = '\0';
	*at = end + 1;
	return true;
}

/* The summary from a record facts_record wrote; false, and c untouched, otherwise. */
static bool facts_from_record(struct ct_cuda_facts *c, const char *rec)
{
	char images[24], line[sizeof(c->line)], sass[sizeof(c->sass)];
	char ptx[sizeof(c->ptx)], ltoir[sizeof(c->ltoir)];
	const char *at = rec;
	char *end;
	unsigned long long n;

	if (!record_field(&at, "images", images, sizeof(images)) ||
	    !record_field(&at, "line", line, sizeof(line)) ||
	    !record_field(&at, "sass", sass, sizeof(sass)) ||
	    !record_field(&at, "ptx", ptx, sizeof(ptx)) ||
	    !record_field(&at, "ltoir", ltoir, sizeof(ltoir)) || *at ||
	    images[0] < '0' || images[0] > '9')
		return false;
	errno = 0;
	n = strtoull(images, &end, 10);
	if (errno || *end || n > SIZE_MAX)
		return false;
	c->scanned = true;
	c->nimages = (size_t)n;
	memcpy(c->line, line, sizeof(line));
	memcpy(c->sass, sass, sizeof(sass));
	memcpy(c->ptx, ptx, sizeof(ptx));
	memcpy(c->ltoir, ltoir, sizeof(ltoir));
	return true;
}

/*
 * The device code of the file at path into c: every container scan's
 * default finds, headers only. Read from the cache when it holds this
 * very file's (by the descriptor scanned: its fstat is the key), else
 * scanned and, when the file did not change meanwhile, kept there.
 */
static void read_device_code(struct ct_cuda_facts *c, const char *path, unsigned threads)
{
	/*
	 * Everything scan's default finds: the fatbin sections and the
	 * containers outside them (cuFFT keeps all but one in .ldata, its
	 * .nv_fatbin says "sass sm_52" alone), so the summary names what
	 * scan names. Headers only, and no registration cross-check (9 MB
	 * of relocations in cuBLASLt): what is registered is not asked here.
	 */
	struct elfscan_options opt = { .no_registration = true, .threads = threads };
	struct ct_cache_key key, after;
	struct elfscan_file f;
	struct stat st;
	char rec[2048];
	bool keep = false;
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= FACTS_CACHE_MIN) {
		ct_cache_key_of(&key, &st);
		if (ct_cache_get(FACTS_CACHE_KIND, &key, rec, sizeof(rec)) >= 0 &&
		    facts_from_record(c, rec)) {
			close(fd);
			return;
		}
		keep = true;
	}
	elfscan_file_init(&f);
	if (elfscan_scan_fd(&f, fd, &opt) == 0) {
		struct ct_summary s;
		int n;

		ct_summary_build(&s, &f, 0, f.nimages);
		c->scanned = true;
		c->nimages = f.nimages;
		ct_summary_oneline(&s, c->line, sizeof(c->line));
		ct_summary_archs(&s, ELFSCAN_KIND_SASS, c->sass, sizeof(c->sass));
		ct_summary_archs(&s, ELFSCAN_KIND_PTX, c->ptx, sizeof(c->ptx));
		ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, c->ltoir, sizeof(c->ltoir));
		ct_summary_release(&s);
		/* Kept only when what was read is what the key says. */
		if (keep && fstat(fd, &st) == 0) {
			ct_cache_key_of(&after, &st);
			if (ct_cache_key_same(&key, &after) &&
			    (n = facts_record(c, rec, sizeof(rec))) > 0)
				ct_cache_put(FACTS_CACHE_KIND, &key, rec, (size_t)n);
		}
	}
	elfscan_file_release(&f);
	close(fd);
}

/*
 * threads: elfscan's, for a file whose sections have much to search
 * (cuBLASLt's .ldata, .cask_resource and .rodata side by side).
 */
static void read_facts(struct ct_cuda_facts *c, const char *path, const char *soname,
		       unsigned threads)
{
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
		ct_library_version_read(path, c->soname, c->version, sizeof(c->version));
		c->renamed = ct_library_renamed(path, c->soname);
		c->cuda = ct_library_cuda(c->soname[0] ? c->soname : path, c->version,
					  &c->cuda_minor);
		c->driver = ct_driver_library(c->soname[0] ? c->soname : path);
	}
	if (c->driver) {
		/* Its soname's major ("1") says nothing: the driver's version does. */
		ct_driver_version(path, ct_driver_soname(c->driver), c->driver_version,
				  sizeof(c->driver_version));
		snprintf(c->version, sizeof(c->version), "%s", c->driver_version);
		/*
		 * The toolkit's lib64/stubs/libcuda.so (soname libcuda.so.1) is
		 * for linking only: no banner, and cuInit says so (doctor).
		 */
		if (!c->driver_version[0]) {
			char real[PATH_MAX];

			c->driver_stub = strstr(path, "/stubs/") ||
					 (realpath(path, real) && strstr(real, "/stubs/"));
		}
	}
	read_device_code(c, path, threads);
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

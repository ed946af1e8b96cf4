/*
 * A made-up machine under a temporary root for the tests that judge and
 * print traces (test_diagnose, test_facts): system directories sys1..sysN,
 * no ld.so.cache, a trace folder, the committed fixtures; @R and @F in
 * expected texts stand for the root and the fixtures.
 */
#ifndef CT_TEST_WORLD_H
#define CT_TEST_WORLD_H

#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "helpers.h"
#include "machine.h"

#include "diagnose.h"
#include "resolve.h"
#include "trace.h"

struct world {
	char root[64];
	char fixtures[PATH_MAX];
	int nfiles;               /* trace files written: their start times */
	int nsources;
	struct ct_loader machine;
	struct ct_trace t;
	struct ct_diagnosis d;
	bool judged;
};

/* text with @R and @F expanded (and ' for " when quotes); malloc'd. */
static inline char *expand(const struct world *w, const char *text, bool quotes)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	const char *c;

	assert_non_null(m);
	for (c = text; *c; c++) {
		if (c[0] == '@' && c[1] == 'R') {
			fputs(w->root, m);
			c++;
		} else if (c[0] == '@' && c[1] == 'F') {
			fputs(w->fixtures, m);
			c++;
		} else {
			fputc(quotes && *c == '\'' ? '"' : *c, m);
		}
	}
	assert_int_equal(fclose(m), 0);
	return out;
}

static inline int world_remove_one(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The loader of the made-up machine: its nsys system directories, no cache. */
static inline void world_machine(struct world *w, int nsys)
{
	struct ct_loader_env env = { "", "" };
	struct ct_loader like;
	char sys[4][96], cache[96];
	char *dirs[4];
	int i, err = 0;

	for (i = 0; i < nsys && i < 4; i++) {
		snprintf(sys[i], sizeof(sys[i]), "%s/sys%d", w->root, i + 1);
		dirs[i] = sys[i];
	}
	snprintf(cache, sizeof(cache), "%s/no-ld.so.cache", w->root);
	made_up_platform(&like, dirs, (size_t)i, NULL, 0, cache);
	ct_loader_init_like(&w->machine, &like, &env);
	assert_false(w->machine.cache_ok);
	assert_null(w->machine.ld_library_path);
	assert_null(w->machine.ld_preload);
	assert_non_null(ct_loader_start(&w->machine, NULL, &err));
	assert_int_equal(err, 0);
}

/* A new world under /tmp/ct-TAG-test-XXXXXX with nsys (1 to 4) system directories; NULL on failure. */
static inline struct world *world_open(const char *tag, int nsys)
{
	struct world *w = calloc(1, sizeof(*w));
	char fx[PATH_MAX];
	int i;

	if (!w)
		return NULL;
	snprintf(w->root, sizeof(w->root), "/tmp/ct-%s-test-XXXXXX", tag);
	snprintf(fx, sizeof(fx), "%s/%s", srcdir(), FIXTURE_DIR);
	if (!mkdtemp(w->root) || !realpath(fx, w->fixtures)) {
		free(w);
		return NULL;
	}
	if (mkdir(strcat(strcpy(fx, w->root), "/trace"), 0755) != 0)
		return NULL;
	for (i = 1; i <= nsys; i++) {
		snprintf(fx, sizeof(fx), "%s/sys%d", w->root, i);
		if (mkdir(fx, 0755) != 0)
			return NULL;
	}
	world_machine(w, nsys);
	return w;
}

/* Read the world's trace folder and diagnose it (targets: --arch, or none). */
static inline void world_judge(struct world *w, const struct elfscan_target *targets,
			       size_t ntargets)
{
	char dir[PATH_MAX], why[512] = "";

	snprintf(dir, sizeof(dir), "%s/trace", w->root);
	ct_trace_init(&w->t);
	if (ct_trace_read_dir(&w->t, dir, why, sizeof(why)) != 0)
		fail_msg("ct_trace_read_dir: %s", why);
	ct_trace_link(&w->t);
	ct_diagnose(&w->d, &w->t, targets, ntargets, &w->machine);
	w->judged = true;
}

static inline int world_close(void **state)
{
	struct world *w = *state;

	if (w->judged) {
		ct_diagnosis_release(&w->d);
		ct_trace_release(&w->t);
	}
	ct_loader_release(&w->machine);
	nftw(w->root, world_remove_one, 8, FTW_DEPTH | FTW_PHYS);
	free(w);
	return 0;
}

#endif

/*
 * A unit test's scratch folder: made under $TMPDIR (or /tmp) by its setup,
 * removed with all it holds by its teardown; top is its path. For the
 * tests that write a tree of files to read (a venv, a Triton wheel, a
 * torch/__init__.py). Static, so each test takes what it uses.
 */
#ifndef CT_TEST_SCRATCH_H
#define CT_TEST_SCRATCH_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[256];

static int scratch_remove_one(const char *path, const struct stat *st, int flag,
			      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Make top, "ct-NAME.XXXXXX": 0, or -1 (a setup's return). */
static inline int scratch_make(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/ct-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	return mkdtemp(top) ? 0 : -1;
}

/* Remove top and what it holds (links as links). */
static inline void scratch_remove(void)
{
	nftw(top, scratch_remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* top/rel, in one of four buffers turned in order (four alive at once). */
static inline char *scratch_at(const char *rel)
{
	static char bufs[4][1024];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", top, rel);
	return b;
}

/* mkdir -p top/rel */
static inline void scratch_mkdirs(const char *rel)
{
	char path[1400], *p;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

#endif

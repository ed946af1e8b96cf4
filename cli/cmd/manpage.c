/* --help's pointer to the man page: only to a page this install has. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manpage.h"

#ifndef CT_MANDIR
#define CT_MANDIR "/usr/local/share/man"
#endif

/* The page in man dir mandir (mandir/man1/cudatrace.1[.gz]), resolved. */
static bool page_in(const char *mandir, char *page, size_t size)
{
	static const char *const names[] = { "cudatrace.1", "cudatrace.1.gz" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/man1/%s", mandir, names[i]) >=
		    (int)sizeof(path))
			return false;
		if (access(path, R_OK) == 0 && realpath(path, page) && strlen(page) < size)
			return true;
	}
	return false;
}

/* dir, resolved, is one of PATH's folders. */
static bool on_path(const char *dir)
{
	const char *path = getenv("PATH"), *p;
	char want[PATH_MAX], elem[PATH_MAX], real[PATH_MAX];

	if (!path || !realpath(dir, want))
		return false;
	for (p = path; *p;) {
		size_t n = strcspn(p, ":");

		if (n > 0 && n < sizeof(elem)) {
			memcpy(elem, p, n);
			elem[n] = '\0';
			if (realpath(elem, real) && strcmp(real, want) == 0)
				return true;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/*
 * man finds a page by name in the folders its configuration names and, for
 * each folder X/bin on PATH, in X/share/man and X/man (man-db's manpath);
 * MANPATH, when set, replaces that search.
 */
static bool man_finds(const char *page)
{
	static const char *const system_dirs[] = { "/usr/share/man", "/usr/local/share/man",
						   "/usr/man", "/usr/local/man" };
	const char *manpath = getenv("MANPATH");
	char dir[PATH_MAX], bin[PATH_MAX + 8], *slash;
	size_t i;

	snprintf(dir, sizeof(dir), "%s", page);
	for (i = 0; i < 2; i++) { /* up from man1/cudatrace.1 */
		if (!(slash = strrchr(dir, '/')))
			return false;
		*slash = '\0';
	}
	if (manpath && *manpath) {
		size_t n = strlen(dir);
		const char *p;

		for (p = manpath; (p = strstr(p, dir)); p += n)
			if ((p == manpath || p[-1] == ':') && (p[n] == ':' || p[n] == '\0'))
				return true;
		/* A trailing or doubled ':' adds man's own search. */
		if (manpath[strlen(manpath) - 1] != ':' && !strstr(manpath, "::") &&
		    manpath[0] != ':')
			return false;
	}
	for (i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (strcmp(dir, system_dirs[i]) == 0)
			return true;
	/* X/share/man or X/man: X/bin on PATH. */
	if ((slash = strrchr(dir, '/')) && strcmp(slash, "/man") == 0) {
		*slash = '\0';
		if ((slash = strrchr(dir, '/')) && strcmp(slash, "/share") == 0) {
			snprintf(bin, sizeof(bin), "%.*s/bin", (int)(slash - dir), dir);
			if (on_path(bin))
				return true;
		}
		snprintf(bin, sizeof(bin), "%s/bin", dir);
		if (on_path(bin))
			return true;
	}
	return false;
}

const char *ct_man_hint(char *buf, size_t size)
{
	/* Relative to the binary's folder; the wheel's from site-packages/cudatrace/bin. */
	static const char *const installed[] = { "/../share/man", "/../../../../../share/man" };
	char exe[PATH_MAX], dir[PATH_MAX + 32], page[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(installed) / sizeof(installed[0]) + 1; i++) {
		if (i < sizeof(installed) / sizeof(installed[0]))
			snprintf(dir, sizeof(dir), "%s%s", exe, installed[i]);
		else
			snprintf(dir, sizeof(dir), "%s", CT_MANDIR);
		if (!page_in(dir, page, sizeof(page)))
			continue;
		if (man_finds(page))
			snprintf(buf, size, "man cudatrace");
		else
			snprintf(buf, size, "man %s", page);
		return buf;
	}
	/* A build tree: build/cudatrace beside docs/cudatrace.1. */
	snprintf(dir, sizeof(dir), "%s/../docs/cudatrace.1", exe);
	if (access(dir, R_OK) == 0 && realpath(dir, page)) {
		snprintf(buf, size, "man %s", page);
		return buf;
	}
	return NULL;
}

/* A library's framework and version from its install; see framework.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework.h"
#include "files.h"
#include "util.h"

bool ct_framework_library(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return strncmp(b, "libtorch", 8) == 0 || strncmp(b, "libc10", 6) == 0 ||
	       strncmp(b, "libshm", 6) == 0;
}

/*
 * The string value of `key = '...'` (or `key: T = "..."`) at the start of
 * a line of a Python file; into out, false when absent or not a string.
 */
static bool py_string(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v = l + klen, *end;
		char q;

		if (strncmp(l, key, klen) != 0 || (v[0] != ' ' && v[0] != ':' && v[0] != '='))
			continue;
		v += strcspn(v, "=\n");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " \t");
		if (*v != '\'' && *v != '"')
			return false;
		q = *v++;
		if (!(end = strchr(v, q)) || memchr(v, '\n', (size_t)(end - v)) ||
		    (size_t)(end - v) >= size)
			return false;
		memcpy(out, v, (size_t)(end - v));
		out[end - v] = '\0';
		return true;
	}
	return false;
}

static bool read_version_py(const char *file, struct ct_framework *fw)
{
	char *text = ct_read_small_file(file, 64 * 1024);
	bool ok;

	if (!text)
		return false;
	memset(fw, 0, sizeof(*fw));
	ok = py_string(text, "__version__", fw->version, sizeof(fw->version));
	if (ok) {
		/* /lib is /usr/lib on a merged /usr: the path a user knows. */
		char *real = realpath(file, NULL);

		snprintf(fw->name, sizeof(fw->name), "PyTorch");
		py_string(text, "cuda", fw->cuda, sizeof(fw->cuda));
		snprintf(fw->source, sizeof(fw->source), "%s", real ? real : file);
		free(real);
	}
	free(text);
	return ok;
}

/* version.py for a library in dir, in either layout. */
static bool version_near(const char *dir, struct ct_framework *fw)
{
	char file[PATH_MAX + 64], up[PATH_MAX];
	const char *slash;
	size_t n = strlen(dir);

	/* pip: <site-packages>/torch/lib/libc10.so */
	if (n >= 10 && strcmp(dir + n - 10, "/torch/lib") == 0) {
		snprintf(file, sizeof(file), "%.*s/version.py", (int)(n - 4), dir);
		if (read_version_py(file, fw))
			return true;
	}
	/* Debian: /usr/lib/<triplet>/libc10.so.2.6 and /usr/lib/python3/dist-packages/torch. */
	if (!(slash = strrchr(dir, '/')) || (size_t)(slash - dir) >= sizeof(up))
		return false;
	snprintf(up, sizeof(up), "%.*s", (int)(slash - dir), dir);
	snprintf(file, sizeof(file), "%s/python3/dist-packages/torch/version.py", up[0] ? up : "");
	return read_version_py(file, fw);
}

bool ct_framework_of(const char *path, struct ct_framework *fw)
{
	char dir[PATH_MAX], *real;
	const char *slash;
	bool ok = false;

	if (!path || !ct_framework_library(path) || !(slash = strrchr(path, '/')) ||
	    (size_t)(slash - path) >= sizeof(dir))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	ok = version_near(dir, fw);
	/* A link into the package (a lib folder of links to torch/lib). */
	if (!ok && (real = realpath(path, NULL))) {
		if ((slash = strrchr(real, '/')) && (size_t)(slash - real) < sizeof(dir)) {
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - real), real);
			ok = version_near(dir, fw);
		}
		free(real);
	}
	return ok;
}

/* torch/__init__.py's preloading, read from its text; see torchinit.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "torchinit.h"
#include "util.h"

enum { INIT_MAX = 8 << 20 };

/* PyTorch 2.6's list: what a file that says nothing gets. */
static const char *const fallback[][2] = {
	{ "cublas", "libcublas.so.*[0-9]" },	   { "cudnn", "libcudnn.so.*[0-9]" },
	{ "cuda_nvrtc", "libnvrtc.so.*[0-9]" },	   { "cuda_runtime", "libcudart.so.*[0-9]" },
	{ "cuda_cupti", "libcupti.so.*[0-9]" },	   { "cufft", "libcufft.so.*[0-9]" },
	{ "curand", "libcurand.so.*[0-9]" },	   { "nvjitlink", "libnvJitLink.so.*[0-9]" },
	{ "cusparse", "libcusparse.so.*[0-9]" },   { "cusparselt", "libcusparseLt.so.*[0-9]" },
	{ "cusolver", "libcusolver.so.*[0-9]" },   { "nccl", "libnccl.so.*[0-9]" },
	{ "nvtx", "libnvToolsExt.so.*[0-9]" },
};

static void add(struct ct_torch_init *t, const char *folder, size_t fl, const char *pattern,
		size_t pl)
{
	struct ct_torch_preload *p;
	size_t i;

	if (fl >= sizeof(p->folder) || pl >= sizeof(p->pattern))
		return;
	for (i = 0; i < t->n; i++)
		if (strlen(t->list[i].pattern) == pl && strncmp(t->list[i].pattern, pattern, pl) == 0 &&
		    strlen(t->list[i].folder) == fl && strncmp(t->list[i].folder, folder, fl) == 0)
			return;
	t->list = ct_xrealloc(t->list, (t->n + 1) * sizeof(*t->list));
	p = &t->list[t->n++];
	snprintf(p->folder, sizeof(p->folder), "%.*s", (int)fl, folder);
	snprintf(p->pattern, sizeof(p->pattern), "%.*s", (int)pl, pattern);
}

/*
 * The body of the top-level function name: from its "def" to the next
 * line that starts at column 0 with something other than a comment or a
 * blank. [*start, *end) of text; false when there is no such function.
 */
static bool body(const char *text, const char *name, const char **start, const char **end)
{
	char head[96];
	const char *p = text, *l;

	snprintf(head, sizeof(head), "def %s(", name);
	for (;;) {
		if (!(p = strstr(p, head)))
			return false;
		if (p == text || p[-1] == '\n')
			break;
		p++;
	}
	*start = p;
	for (l = strchr(p, '\n'); l; l = strchr(l + 1, '\n'))
		if (l[1] && l[1] != ' ' && l[1] != '\t' && l[1] != '\n' && l[1] != '#' &&
		    l[1] != ')' && l[1] != '\r')
			break;
	*end = l ? l + 1 : p + strlen(p);
	return true;
}

static bool contains(const char *start, const char *end, const char *what)
{
	size_t n = strlen(what);
	const char *p;

	for (p = start; p + n <= end; p++)
		if (memcmp(p, what, n) == 0)
			return true;
	return false;
}

/* A quoted string literal at *p ("x" or 'x', no escapes): its text, and *p past it. */
static bool literal(const char **p, const char *end, const char **s, size_t *len)
{
	const char *q = *p, *close;
	char quote = *q;

	if ((quote != '"' && quote != '\'') || q + 1 >= end ||
	    !(close = memchr(q + 1, quote, (size_t)(end - q - 1))) || memchr(q + 1, '\n', (size_t)(close - q - 1)))
		return false;
	*s = q + 1;
	*len = (size_t)(close - q - 1);
	*p = close + 1;
	return true;
}

/*
 * Every pair of string literals of the body, a folder and a library
 * pattern, in the text's order: tuples ("cublas", "libcublas.so.*[0-9]"),
 * a dict's "cublas": "libcublas.so.*[0-9]", and the calls
 * _preload_cuda_lib("nvtx", "libnvToolsExt.so.*[0-9]", ...). Comments
 * are skipped.
 */
static void pairs(struct ct_torch_init *t, const char *p, const char *end)
{
	while (p < end) {
		const char *a, *b, *q;
		size_t al, bl;

		if (*p == '#') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		q = p;
		if (!literal(&q, end, &a, &al)) {
			p++;
			continue;
		}
		p = q;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= end || (*q != ',' && *q != ':'))
			continue;
		q++;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n'))
			q++;
		if (!literal(&q, end, &b, &bl))
			continue;
		/* A folder name and a library's file pattern: nothing else looks so. */
		if (al && !memchr(a, '/', al) && !memchr(a, ' ', al) && bl > 6 &&
		    strncmp(b, "lib", 3) == 0 && memmem(b, bl, ".so", 3)) {
			add(t, a, al, b, bl);
			p = q;
		}
	}
}

void ct_torch_init_read(const char *torch_dir, struct ct_torch_init *t)
{
	char file[PATH_MAX];
	const char *s, *e;
	char *text;
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(file, sizeof(file), "%s/__init__.py", torch_dir);
	/* 2.15 keeps the list in _preload_cuda_deps, 2.6 in _load_global_deps. */
	if ((text = ct_read_small_file(file, INIT_MAX)) && body(text, "_preload_cuda_deps", &s, &e))
		pairs(t, s, e);
	if (text && !t->n && body(text, "_load_global_deps", &s, &e))
		pairs(t, s, e);
	if (t->n) {
		t->from_file = true;
		t->always = body(text, "_load_global_deps", &s, &e) &&
			    contains(s, e, "_preload_cuda_deps(required=False)");
		if (body(text, "_get_cuda_dep_paths", &s, &e)) {
			t->cuda_folder = contains(s, e, "\"cu{") || contains(s, e, "'cu{");
			t->plain_folder = contains(s, e, "os.path.join(path, lib_folder,");
		}
	} else {
		for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
			add(t, fallback[i][0], strlen(fallback[i][0]), fallback[i][1],
			    strlen(fallback[i][1]));
	}
	free(text);
}

void ct_torch_init_release(struct ct_torch_init *t)
{
	free(t->list);
	memset(t, 0, sizeof(*t));
}

bool ct_torch_init_preloads(const struct ct_torch_init *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		size_t n = strcspn(t->list[i].pattern, ".");

		if (strncmp(name, t->list[i].pattern, n) == 0 && name[n] == '.')
			return true;
	}
	return false;
}

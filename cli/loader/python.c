/* Python installations as files; see python.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python.h"
#include "files.h"
#include "util.h"

/* The most of a site folder walked for shared objects, and how deep. */
enum { WALK_DEPTH = 12, RECORD_MAX = 64 << 20 };

static void push(char ***v, size_t *n, const char *s)
{
	*v = ct_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = ct_xstrdup(s);
}

static void free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dirname into buf ("." for a bare name, "/" for the root's children). */
static char *dir_of(const char *path, char *buf, size_t size)
{
	const char *s = strrchr(path, '/');

	if (!s)
		snprintf(buf, size, ".");
	else if (s == path)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(s - path), path);
	return buf;
}

bool ct_python_shared_object(const char *name)
{
	size_t n = strlen(name);
	const char *so = strstr(name, ".so");

	if (n > 3 && strcmp(name + n - 3, ".so") == 0)
		return true;
	/* libcudnn.so.9, libcublas.so.12.4.5.8: digits and dots after ".so." */
	for (; so; so = strstr(so + 1, ".so"))
		if (so[3] == '.' && so[4] && strspn(so + 4, "0123456789.") == strlen(so + 4))
			return true;
	return false;
}

char *ct_python_normal_name(const char *name, char *buf, size_t size)
{
	size_t i, n = 0;
	bool sep = false;

	for (i = 0; name[i] && n + 1 < size; i++) {
		char c = name[i];

		if (c == '-' || c == '_' || c == '.') {
			sep = true;
			continue;
		}
		if (sep && n && n + 2 < size)
			buf[n++] = '-';
		sep = false;
		buf[n++] = (char)tolower((unsigned char)c);
	}
	buf[n] = '\0';
	return buf;
}

/* ---- interpreters ------------------------------------------------------------ */

/* "3.13" from "python3.13" (or "python3.13d", "python3.13t"); false otherwise. */
static bool version_from_name(const char *name, char *out, size_t size)
{
	const char *v;
	size_t n;

	if (strncmp(name, "python", 6) != 0)
		return false;
	v = name + 6;
	n = strspn(v, "0123456789.");
	if (n < 3 || !strchr(v, '.') || v[0] == '.')
		return false;
	snprintf(out, size, "%.*s", (int)n, v);
	return true;
}

/* pyvenv.cfg's value for key, into out; false when absent. */
static bool cfg_value(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v = l + strspn(l, " \t"), *end;

		if (strncmp(v, key, klen) != 0)
			continue;
		v += klen;
		v += strspn(v, " \t");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " \t");
		end = v + strcspn(v, "\r\n");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		snprintf(out, size, "%.*s", (int)(end - v), v);
		return true;
	}
	return false;
}

static void add_site(struct ct_python *py, const char *dir)
{
	char real[PATH_MAX], other[PATH_MAX];
	size_t i;

	if (!is_dir(dir) || !realpath(dir, real))
		return;
	for (i = 0; i < py->nsites; i++)
		if (realpath(py->sites[i], other) && strcmp(other, real) == 0)
			return;
	push(&py->sites, &py->nsites, dir);
}

/*
 * The site folders of an installation at prefix, for version (every
 * pythonX.Y folder there when the version is unknown).
 */
static void prefix_sites(struct ct_python *py, const char *prefix, const char *version)
{
	char path[PATH_MAX], pattern[PATH_MAX];
	const char *pre = strcmp(prefix, "/") == 0 ? "" : prefix;
	glob_t g;
	size_t i;

	if (!version[0]) {
		snprintf(pattern, sizeof(pattern), "%s/lib/python3.*", pre);
		if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				char v[16];

				if (version_from_name(ct_path_base(g.gl_pathv[i]), v, sizeof(v)))
					prefix_sites(py, prefix, v);
			}
			globfree(&g);
		}
		return;
	}
	snprintf(path, sizeof(path), "%s/lib/python3/dist-packages", pre);
	if (strcmp(prefix, "/usr") == 0 && is_dir(path)) {
		/* Debian's site.py: local, then the packages', then the version's own. */
		snprintf(path, sizeof(path), "/usr/local/lib/python%s/dist-packages", version);
		add_site(py, path);
		add_site(py, "/usr/lib/python3/dist-packages");
		snprintf(path, sizeof(path), "/usr/lib/python%s/dist-packages", version);
		add_site(py, path);
		return;
	}
	snprintf(path, sizeof(path), "%s/lib/python%s/site-packages", pre, version);
	add_site(py, path);
	snprintf(path, sizeof(path), "%s/lib64/python%s/site-packages", pre, version);
	add_site(py, path);
}

static void user_site(struct ct_python *py)
{
	const char *home = getenv("HOME");
	char path[PATH_MAX], pattern[PATH_MAX];
	glob_t g;
	size_t i;

	if (!home || !*home || getenv("PYTHONNOUSERSITE"))
		return;
	if (py->version[0]) {
		snprintf(path, sizeof(path), "%s/.local/lib/python%s/site-packages", home,
			 py->version);
		add_site(py, path);
		return;
	}
	snprintf(pattern, sizeof(pattern), "%s/.local/lib/python3.*/site-packages", home);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			add_site(py, g.gl_pathv[i]);
		globfree(&g);
	}
}

int ct_python_open(struct ct_python *py, const char *exe, const char *from)
{
	char real[PATH_MAX], bindir[PATH_MAX], up[PATH_MAX], cfg[PATH_MAX + 16], value[PATH_MAX];
	char base_prefix[PATH_MAX], *text = NULL;
	bool system_site = true;
	struct stat st;

	memset(py, 0, sizeof(*py));
	if (stat(exe, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (access(exe, X_OK) != 0)
		return -errno;
	py->exe = ct_xstrdup(exe);
	py->real = ct_xstrdup(realpath(exe, real) ? real : exe);
	py->from = from;
	/* A venv's pyvenv.cfg: next to the program, or one folder up. */
	dir_of(exe, bindir, sizeof(bindir));
	snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", bindir);
	if (!(text = ct_read_small_file(cfg, 1 << 16))) {
		snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", dir_of(bindir, up, sizeof(up)));
		text = ct_read_small_file(cfg, 1 << 16);
	}
	if (text && (cfg_value(text, "version_info", value, sizeof(value)) ||
		     cfg_value(text, "version", value, sizeof(value)))) {
		/* "3.11.7.final.0" (3.11 and later) or "3.8.10": the release. */
		size_t n = strspn(value, "0123456789.");
		char *fin = strstr(value, ".final");

		if (fin)
			n = (size_t)(fin - value);
		if (n && n < sizeof(py->cfg_version)) {
			memcpy(py->cfg_version, value, n);
			py->cfg_version[n] = '\0';
		}
	}
	if (!version_from_name(ct_path_base(py->real), py->version, sizeof(py->version)) &&
	    !version_from_name(ct_path_base(exe), py->version, sizeof(py->version)) && text &&
	    (cfg_value(text, "version_info", value, sizeof(value)) ||
	     cfg_value(text, "version", value, sizeof(value)))) {
		/* "3.11.2": its major and minor. */
		char *dot = strchr(value, '.');

		if (dot && (dot = strchr(dot + 1, '.')))
			*dot = '\0';
		if (strlen(value) < sizeof(py->version) && value[0] >= '0' && value[0] <= '9')
			memcpy(py->version, value, strlen(value) + 1);
	}
	/* The base installation: home (the base's bin folder) or the program's. */
	if (text && cfg_value(text, "home", value, sizeof(value)) && value[0] == '/') {
		size_t n = strlen(value);

		while (n > 1 && value[n - 1] == '/')
			value[--n] = '\0';
		dir_of(value, base_prefix, sizeof(base_prefix));
	} else
		dir_of(dir_of(py->real, up, sizeof(up)), base_prefix, sizeof(base_prefix));
	py->base = ct_xstrdup(base_prefix);
	if (text) {
		py->venv = true;
		py->prefix = ct_xstrdup(dir_of(cfg, up, sizeof(up)));
		system_site = cfg_value(text, "include-system-site-packages", value, sizeof(value)) &&
			      strcasecmp(value, "true") == 0;
		prefix_sites(py, py->prefix, py->version);
		if (system_site) {
			user_site(py);
			prefix_sites(py, base_prefix, py->version);
		}
	} else {
		/* CPython looks for its prefix where the program really is (symlinks followed). */
		py->prefix = ct_xstrdup(base_prefix);
		user_site(py);
		prefix_sites(py, py->prefix, py->version);
	}
	free(text);
	return 0;
}

void ct_python_release(struct ct_python *py)
{
	free(py->exe);
	free(py->real);
	free(py->prefix);
	free(py->base);
	free_list(py->sites, py->nsites);
	memset(py, 0, sizeof(*py));
}

static bool same_sites(const struct ct_python *a, const struct ct_python *b)
{
	size_t i;

	if (a->nsites != b->nsites || strcmp(a->real, b->real) != 0)
		return false;
	for (i = 0; i < a->nsites; i++)
		if (strcmp(a->sites[i], b->sites[i]) != 0)
			return false;
	return true;
}

static void try_add(struct ct_python **v, size_t *n, const char *exe, const char *from)
{
	struct ct_python py;
	size_t i;

	if (ct_python_open(&py, exe, from) != 0)
		return;
	for (i = 0; i < *n; i++)
		if (same_sites(&(*v)[i], &py)) {
			ct_python_release(&py);
			return;
		}
	*v = ct_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = py;
}

/* The first word of a file's first line (pyenv's version files), into out. */
static bool first_word(const char *file, char *out, size_t size)
{
	char *text = ct_read_small_file(file, 4096);
	size_t k;
	bool ok;

	if (!text)
		return false;
	k = strspn(text, " \t\r\n");
	snprintf(out, size, "%.*s", (int)strcspn(text + k, " \t\r\n:"), text + k);
	ok = out[0] != '\0';
	free(text);
	return ok;
}

/*
 * A pyenv shim (ROOT/shims/python3, a script) runs ROOT/versions/V/bin/python3,
 * V from $PYENV_VERSION, a .python-version in this folder or one above, or
 * ROOT/version. Into out; false when exe is no shim, or V is "system" or
 * not installed (then the next python3 on PATH is the one run).
 */
static bool pyenv_target(const char *exe, char *out, size_t size)
{
	char dir[PATH_MAX], root[PATH_MAX], file[PATH_MAX + 32], v[256], cwd[PATH_MAX];
	const char *env = getenv("PYENV_VERSION");
	struct stat st;
	bool found = false;

	dir_of(exe, dir, sizeof(dir));
	if (strcmp(ct_path_base(dir), "shims") != 0)
		return false;
	dir_of(dir, root, sizeof(root));
	if (env && *env) {
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(env, ":"), env);
		found = true;
	}
	if (!found && getcwd(cwd, sizeof(cwd))) {
		for (;;) {
			snprintf(file, sizeof(file), "%s/.python-version", strcmp(cwd, "/") ? cwd : "");
			if ((found = first_word(file, v, sizeof(v))) || strcmp(cwd, "/") == 0)
				break;
			dir_of(cwd, dir, sizeof(dir));
			snprintf(cwd, sizeof(cwd), "%s", dir);
		}
	}
	if (!found) {
		snprintf(file, sizeof(file), "%s/version", root);
		found = first_word(file, v, sizeof(v));
	}
	if (!found || strcmp(v, "system") == 0 || strchr(v, '/'))
		return false;
	if ((size_t)snprintf(out, size, "%s/versions/%s/bin/python3", root, v) >= size)
		return false;
	return stat(out, &st) == 0 && S_ISREG(st.st_mode);
}

int ct_pythons_find(const char *given, struct ct_python **out, size_t *n)
{
	const char *path = getenv("PATH"), *env;
	char exe[PATH_MAX];
	int rc;

	*out = NULL;
	*n = 0;
	if (given) {
		*out = ct_xcalloc(1, sizeof(**out));
		if ((rc = ct_python_open(*out, given, "--python")) < 0) {
			free(*out);
			*out = NULL;
			return rc;
		}
		*n = 1;
		return 0;
	}
	while (path && *path) {
		size_t len = strcspn(path, ":");
		struct stat st;

		snprintf(exe, sizeof(exe), "%.*s/python3", (int)len, path);
		if (len && stat(exe, &st) == 0 && S_ISREG(st.st_mode) && access(exe, X_OK) == 0) {
			char target[PATH_MAX];
			char dir[PATH_MAX];

			if (pyenv_target(exe, target, sizeof(target))) {
				try_add(out, n, target, "PATH (pyenv)");
				break;
			}
			/* A shim of "system" runs the next python3 on PATH. */
			if (strcmp(ct_path_base(dir_of(exe, dir, sizeof(dir))), "shims") != 0) {
				try_add(out, n, exe, "PATH");
				break;
			}
		}
		path += len + (path[len] == ':');
	}
	if ((env = getenv("VIRTUAL_ENV")) && *env) {
		snprintf(exe, sizeof(exe), "%s/bin/python3", env);
		try_add(out, n, exe, "VIRTUAL_ENV");
	}
	if ((env = getenv("CONDA_PREFIX")) && *env) {
		snprintf(exe, sizeof(exe), "%s/bin/python3", env);
		try_add(out, n, exe, "CONDA_PREFIX");
	}
	return 0;
}

/* ---- distributions ---------------------------------------------------------- */

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_dist(const void *a, const void *b)
{
	const struct ct_dist *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);

	return c ? c : strcmp(x->name, y->name);
}

/* The length of the run of chars of s in set. */
static size_t span(const char *s, const char *set)
{
	return strspn(s, set);
}

bool ct_requirement_parse(const char *text, struct ct_requirement *r)
{
	const char *p = text + span(text, " \t"), *semi, *x;
	size_t n;

	memset(r, 0, sizeof(*r));
	n = strcspn(p, " \t[(;<>=!~@,");
	if (!n || n >= sizeof(r->name))
		return false;
	memcpy(r->name, p, n);
	p += n;
	p += span(p, " \t");
	if (*p == '[') {
		n = strcspn(++p, "]");
		snprintf(r->extras, sizeof(r->extras), "%.*s", (int)n, p);
		p += n + (p[n] == ']');
		p += span(p, " \t");
	}
	semi = strchr(p, ';');
	n = semi ? (size_t)(semi - p) : strlen(p);
	/* "(>=1.0)", the old way of writing a spec. */
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == ')'))
		n--;
	if (*p == '(')
		p++, n--;
	if ((ssize_t)n > 0)
		snprintf(r->spec, sizeof(r->spec), "%.*s", (int)n, p);
	/* extra == "ctk" (or 'ctk'), anywhere in the markers. */
	if (semi && (x = strstr(semi, "extra"))) {
		x += 5;
		x += span(x, " \t");
		if (x[0] == '=' && x[1] == '=') {
			x += 2;
			x += span(x, " \t");
			if (*x == '"' || *x == '\'') {
				char q = *x++;

				n = strcspn(x, q == '"' ? "\"" : "'");
				snprintf(r->extra, sizeof(r->extra), "%.*s", (int)n, x);
			}
		}
	}
	return true;
}

const struct ct_requirement *ct_dist_requirement(const struct ct_dist *d, const char *name)
{
	char a[160], b[160];
	size_t i;

	if (!d)
		return NULL;
	ct_python_normal_name(name, a, sizeof(a));
	for (i = 0; i < d->nreqs; i++)
		if (!d->reqs[i].extra[0] &&
		    strcmp(ct_python_normal_name(d->reqs[i].name, b, sizeof(b)), a) == 0)
			return &d->reqs[i];
	return NULL;
}

const struct ct_requirement *ct_dist_toolkit_extra(const struct ct_dist *d, const char *soname,
						  int major)
{
	char stem[64], word[64], spec_major[16];
	const char *b = ct_path_base(soname), *w;
	size_t i, n;

	if (!d || strncmp(b, "lib", 3) != 0)
		return NULL;
	for (n = 0; b[3 + n] && b[3 + n] != '.' && n + 1 < sizeof(stem); n++)
		stem[n] = (char)tolower((unsigned char)b[3 + n]);
	stem[n] = '\0';
	snprintf(spec_major, sizeof(spec_major), "==%d.", major);
	for (i = 0; i < d->nreqs; i++) {
		const struct ct_requirement *r = &d->reqs[i];

		if (!r->extra[0] || strcmp(r->name, "cuda-toolkit") != 0 ||
		    (major > 0 && strncmp(r->spec, spec_major, strlen(spec_major)) != 0))
			continue;
		/* cublas brings libcublas and libcublasLt. */
		for (w = r->extras; *w; w += n + (w[n] == ',')) {
			n = strcspn(w, ",");
			snprintf(word, sizeof(word), "%.*s", (int)n, w);
			if (word[0] && strncmp(stem, word, strlen(word)) == 0)
				return r;
		}
	}
	return NULL;
}

/* "Name: x" and "Version: y" from the headers of METADATA / PKG-INFO. */
static void read_metadata(struct ct_dist *d, const char *file)
{
	char line[1024];
	FILE *f = ct_fopen_file(file);

	if (!f)
		return;
	/* The headers end at the first empty line; the description follows. */
	while (fgets(line, sizeof(line), f) && line[0] != '\n' && line[0] != '\r') {
		char *v;

		line[strcspn(line, "\r\n")] = '\0';
		if (!(v = strchr(line, ':')))
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strcasecmp(line, "Name") == 0 && *v && !d->name) {
			d->name = ct_xstrdup(v);
		} else if (strcasecmp(line, "Version") == 0 && *v && !d->version) {
			d->version = ct_xstrdup(v);
		} else if (strcasecmp(line, "Requires-Dist") == 0) {
			struct ct_requirement r;

			if (!ct_requirement_parse(v, &r))
				continue;
			d->reqs = ct_xrealloc(d->reqs, (d->nreqs + 1) * sizeof(*d->reqs));
			d->reqs[d->nreqs++] = r;
		}
	}
	fclose(f);
}

/* Drop "x/../" and "./" from a path built of a folder and a relative name. */
static void tidy(char *path)
{
	char *p;

	while ((p = strstr(path, "/./")))
		memmove(p, p + 2, strlen(p + 2) + 1);
	while ((p = strstr(path, "/../")) && p > path) {
		char *q = p - 1;

		while (q > path && *q != '/')
			q--;
		if (*q != '/')
			break;
		memmove(q, p + 3, strlen(p + 3) + 1);
	}
}

/*
 * The shared objects a RECORD (one path a line, then ",hash,size") or an
 * installed-files.txt (one path a line) lists, relative to rel_to.
 */
static bool read_listing(struct ct_dist *d, const char *file, const char *rel_to, bool csv)
{
	char *text = ct_read_small_file(file, RECORD_MAX), *line, *save = NULL;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char path[PATH_MAX], *end, *size = NULL;
		bool quoted = false;
		struct stat st;

		if (csv && line[0] == '"') { /* a name with a comma in it, quoted */
			line++;
			end = strchr(line, '"');
			quoted = true;
		} else {
			end = csv ? strchr(line, ',') : line + strcspn(line, "\r");
		}
		if (end) {
			/* ",HASH,SIZE" after the path (its closing quote first, if quoted). */
			if (csv && end[quoted] && (size = strchr(end + 1 + quoted, ',')))
				size++;
			*end = '\0';
		}
		if (!line[0] || line[0] == '/' || !ct_python_shared_object(ct_path_base(line)))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", rel_to, line) >= sizeof(path))
			continue;
		tidy(path);
		/* A regular file (through a link too): never a FIFO to block on. */
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			push(&d->files, &d->nfiles, path);
			if (csv) {
				d->size_ok = ct_xrealloc(d->size_ok, d->nfiles);
				d->size_ok[d->nfiles - 1] =
					!size || !isdigit((unsigned char)*size)
						? -1
						: strtoll(size, NULL, 10) == (long long)st.st_size;
			}
		}
	}
	free(text);
	d->from_record = true;
	return true;
}

/* Every shared object under path (a file or a folder), into d. */
static void walk(struct ct_dist *d, const char *path, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *dir;

	/* Links to folders are not followed (no loops); links to files are. */
	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		if (ct_python_shared_object(ct_path_base(path)) && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			push(&d->files, &d->nfiles, path);
		return;
	}
	if (depth > WALK_DEPTH || !(dir = opendir(path)))
		return;
	while ((e = readdir(dir))) {
		char sub[PATH_MAX];

		if (e->d_name[0] == '.' || strcmp(e->d_name, "__pycache__") == 0)
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= sizeof(sub))
			continue;
		walk(d, sub, depth + 1);
	}
	closedir(dir);
}

/* A top-level name a distribution installs: the folder, or module files named so. */
static void walk_top(struct ct_dist *d, const char *site, const char *top)
{
	char path[PATH_MAX];

	if (!top[0] || strchr(top, '/') || strcmp(top, ".") == 0 || strcmp(top, "..") == 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", site, top);
	walk(d, path, 0);
}

/* The top-level names of d's files (the folder under site each is in). */
static void tops_of(const struct ct_dist *d, const char *site, char ***tops, size_t *n)
{
	size_t i, k, len = strlen(site);

	for (i = 0; i < d->nfiles; i++) {
		const char *rel, *slash;
		char top[NAME_MAX + 1];

		if (strncmp(d->files[i], site, len) != 0 || d->files[i][len] != '/')
			continue;
		rel = d->files[i] + len + 1;
		slash = strchr(rel, '/');
		snprintf(top, sizeof(top), "%.*s", slash ? (int)(slash - rel) : (int)strlen(rel), rel);
		for (k = 0; k < *n && strcmp((*tops)[k], top) != 0; k++)
			;
		if (k == *n)
			push(tops, n, top);
	}
}

/* d's files sorted by name, their RECORD sizes' verdicts with them. */
static void sort_files(struct ct_dist *d)
{
	size_t i, j;

	if (d->nfiles < 2)
		return;
	if (!d->size_ok) {
		qsort(d->files, d->nfiles, sizeof(*d->files), by_string);
		return;
	}
	/* Few files a package: an insertion sort keeps the two arrays together. */
	for (i = 1; i < d->nfiles; i++) {
		char *f = d->files[i];
		signed char ok = d->size_ok[i];

		for (j = i; j > 0 && strcmp(d->files[j - 1], f) > 0; j--) {
			d->files[j] = d->files[j - 1];
			d->size_ok[j] = d->size_ok[j - 1];
		}
		d->files[j] = f;
		d->size_ok[j] = ok;
	}
}

static void read_dist(struct ct_site *s, const char *name)
{
	char meta[PATH_MAX], file[PATH_MAX + 32], stem[NAME_MAX + 1], *dash, *text;
	bool egg = strstr(name, ".egg-info") != NULL;
	struct ct_dist d = { 0 };
	struct stat st;

	snprintf(meta, sizeof(meta), "%s/%s", s->dir, name);
	if (stat(meta, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		snprintf(file, sizeof(file), "%s/%s", meta, egg ? "PKG-INFO" : "METADATA");
		read_metadata(&d, file);
	} else if (egg && S_ISREG(st.st_mode)) {
		read_metadata(&d, meta); /* distutils' single-file PKG-INFO */
	} else {
		return;
	}
	/* NAME-VERSION[-pyX.Y].(dist|egg)-info, when the metadata does not say. */
	snprintf(stem, sizeof(stem), "%.*s", (int)(strstr(name, egg ? ".egg-info" : ".dist-info") - name),
		 name);
	dash = strchr(stem, '-');
	if (dash)
		*dash++ = '\0';
	if (!d.name)
		d.name = ct_xstrdup(stem);
	if (!d.version) {
		char *py = dash ? strstr(dash, "-py") : NULL;

		if (py)
			*py = '\0';
		d.version = ct_xstrdup(dash ? dash : "");
	}
	d.meta = ct_xstrdup(meta);
	if (S_ISDIR(st.st_mode)) {
		snprintf(file, sizeof(file), "%s/RECORD", meta);
		if (!read_listing(&d, file, s->dir, true)) {
			snprintf(file, sizeof(file), "%s/installed-files.txt", meta);
			read_listing(&d, file, meta, false);
		}
	}
	if (!d.from_record) {
		/* top_level.txt, else the distribution's own name as a module. */
		char *line, *save = NULL, norm[256];

		text = NULL;

		snprintf(file, sizeof(file), "%s/top_level.txt", meta);
		if (S_ISDIR(st.st_mode) && (text = ct_read_small_file(file, 1 << 20))) {
			for (line = strtok_r(text, "\r\n", &save); line;
			     line = strtok_r(NULL, "\r\n", &save))
				walk_top(&d, s->dir, line);
			free(text);
		} else {
			size_t i;

			char *cu;

			snprintf(norm, sizeof(norm), "%s", d.name);
			for (i = 0; norm[i]; i++)
				norm[i] = norm[i] == '-' || norm[i] == '.' ? '_' : (char)tolower((unsigned char)norm[i]);
			walk_top(&d, s->dir, norm);
			/* NVIDIA's wheels: nvidia_cuda_runtime_cu12 lives in nvidia/cuda_runtime. */
			if (!d.nfiles && strncmp(norm, "nvidia_", 7) == 0 && (cu = strrchr(norm, '_')) &&
			    strncmp(cu, "_cu", 3) == 0 && cu > norm + 7) {
				char path[PATH_MAX];

				*cu = '\0';
				snprintf(path, sizeof(path), "%s/nvidia/%s", s->dir, norm + 7);
				walk(&d, path, 0);
			}
		}
	}
	sort_files(&d);
	snprintf(file, sizeof(file), "%s/direct_url.json", meta);
	if (S_ISDIR(st.st_mode) && (text = ct_read_small_file(file, 1 << 20))) {
		d.built_here = strstr(text, "\"dir_info\"") || strstr(text, "\"vcs_info\"");
		free(text);
	}
	s->dists = ct_xrealloc(s->dists, (s->ndists + 1) * sizeof(*s->dists));
	s->dists[s->ndists++] = d;
}

/* Shared objects under site that no distribution lists, by top-level name. */
static void read_unclaimed(struct ct_site *s)
{
	char **tops = NULL;
	size_t ntops = 0, i, k, n = s->ndists;
	struct dirent *e;
	DIR *dir;

	for (i = 0; i < n; i++)
		tops_of(&s->dists[i], s->dir, &tops, &ntops);
	if (!(dir = opendir(s->dir)))
		goto out;
	while ((e = readdir(dir))) {
		struct ct_dist d = { 0 };
		char path[PATH_MAX], top[NAME_MAX + 1];
		bool claimed = false;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "__pycache__") == 0 ||
		    strstr(e->d_name, ".dist-info") || strstr(e->d_name, ".egg-info"))
			continue;
		/* A module file "x.cpython-313-x86_64-linux-gnu.so" is top-level "x". */
		snprintf(top, sizeof(top), "%s", e->d_name);
		for (k = 0; k < ntops; k++)
			claimed |= strcmp(tops[k], top) == 0;
		if (claimed)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, e->d_name);
		walk(&d, path, 0);
		if (!d.nfiles)
			continue;
		if (d.nfiles > 1)
			qsort(d.files, d.nfiles, sizeof(*d.files), by_string);
		top[strcspn(top, ".")] = '\0';
		d.name = ct_xstrdup(top[0] ? top : e->d_name);
		d.version = ct_xstrdup("");
		s->dists = ct_xrealloc(s->dists, (s->ndists + 1) * sizeof(*s->dists));
		s->dists[s->ndists++] = d;
	}
	closedir(dir);
out:
	free_list(tops, ntops);
}

/*
 * Files two distributions of s list, which the file's size says are the
 * other's now (nvidia-cudnn-cu12 and -cu13 both install
 * nvidia/cudnn/lib/libcudnn.so.9: the last installed wrote its own).
 */
static void mark_replaced(struct ct_site *s)
{
	size_t a, b, i;

	for (a = 0; a < s->ndists; a++) {
		struct ct_dist *x = &s->dists[a];

		for (i = 0; x->size_ok && i < x->nfiles; i++) {
			if (x->size_ok[i] != 0)
				continue;
			for (b = 0; b < s->ndists; b++) {
				const struct ct_dist *y = &s->dists[b];
				char **hit;
				char who[512];

				if (b == a || !y->size_ok ||
				    !(hit = bsearch(&x->files[i], y->files, y->nfiles, sizeof(*y->files),
						    by_string)) ||
				    y->size_ok[hit - y->files] != 1)
					continue;
				if (!x->replaced_by)
					x->replaced_by = ct_xcalloc(x->nfiles, sizeof(*x->replaced_by));
				snprintf(who, sizeof(who), "%s%s%s", y->name, y->version[0] ? " " : "",
					 y->version);
				x->replaced_by[i] = ct_xstrdup(who);
				break;
			}
		}
	}
}

int ct_site_read(struct ct_site *s, const char *dir)
{
	struct dirent *e;
	DIR *d;

	memset(s, 0, sizeof(*s));
	if (!(d = opendir(dir)))
		return -errno;
	s->dir = ct_xstrdup(dir);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if ((n > 10 && strcmp(e->d_name + n - 10, ".dist-info") == 0) ||
		    (n > 9 && strcmp(e->d_name + n - 9, ".egg-info") == 0))
			read_dist(s, e->d_name);
	}
	closedir(d);
	mark_replaced(s);
	read_unclaimed(s);
	if (s->ndists > 1)
		qsort(s->dists, s->ndists, sizeof(*s->dists), by_dist);
	return 0;
}

void ct_site_release(struct ct_site *s)
{
	size_t i;

	for (i = 0; i < s->ndists; i++) {
		free(s->dists[i].name);
		free(s->dists[i].version);
		free(s->dists[i].meta);
		if (s->dists[i].replaced_by)
			free_list(s->dists[i].replaced_by, s->dists[i].nfiles);
		free_list(s->dists[i].files, s->dists[i].nfiles);
		free(s->dists[i].size_ok);
		free(s->dists[i].reqs);
	}
	free(s->dists);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* A site folder's file, its distribution and its pins; see distinfo.h. */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "distinfo.h"
#include "files.h"
#include "python.h"
#include "util.h"

enum { RECORD_MAX = 64 << 20, METADATA_MAX = 4 << 20, DISTS_MAX = 4096 };

/*
 * Does the RECORD of meta list rel ("PATH,HASH,SIZE", PATH relative to the
 * site folder)? *size: the size it gives, or -1.
 */
static bool record_lists_sized(const char *meta, const char *rel, long long *size)
{
	char file[PATH_MAX], *text, *line, *save = NULL;
	size_t rl = strlen(rel);
	bool found = false;
	int n = snprintf(file, sizeof(file), "%s/RECORD", meta);

	if (size)
		*size = -1;
	if (n < 0 || (size_t)n >= sizeof(file) || !(text = ct_read_small_file(file, RECORD_MAX)))
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		const char *comma = strrchr(line, ',');

		found = strncmp(line, rel, rl) == 0 && line[rl] == ',';
		if (found && size && comma && comma[1])
			*size = strtoll(comma + 1, NULL, 10);
	}
	free(text);
	return found;
}

static bool record_lists(const char *meta, const char *rel)
{
	return record_lists_sized(meta, rel, NULL);
}

/* The headers of meta's METADATA (up to the first empty line), to free; or NULL. */
static char *metadata_headers(const char *meta)
{
	char file[PATH_MAX], *text, *end;
	int n = snprintf(file, sizeof(file), "%s/METADATA", meta);

	if (n < 0 || (size_t)n >= sizeof(file) || !(text = ct_read_small_file(file, METADATA_MAX)))
		return NULL;
	for (end = text; (end = strchr(end, '\n')); end++)
		if (end[1] == '\n' || (end[1] == '\r' && end[2] == '\n')) {
			end[1] = '\0';
			break;
		}
	return text;
}

/* "Name" and "Version" of meta's METADATA; else from its folder's name (NAME-VERSION.dist-info). */
static void name_version(struct ct_dist_info *d)
{
	char *text = metadata_headers(d->meta), *line, *save = NULL;
	const char *base = ct_path_base(d->meta), *dash = strchr(base, '-'),
		   *dot = strstr(base, ".dist-info");

	for (line = text ? strtok_r(text, "\r\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strcasecmp(line, "Name") == 0 && !d->name[0])
			snprintf(d->name, sizeof(d->name), "%s", v);
		else if (strcasecmp(line, "Version") == 0 && !d->version[0])
			snprintf(d->version, sizeof(d->version), "%s", v);
	}
	free(text);
	if (!d->name[0] && dash)
		snprintf(d->name, sizeof(d->name), "%.*s", (int)(dash - base), base);
	if (!d->version[0] && dash && dot && dot > dash)
		snprintf(d->version, sizeof(d->version), "%.*s", (int)(dot - dash - 1), dash + 1);
}

/* The site folder of real (the last site-packages or dist-packages in it), its length; 0: none. */
static size_t site_length(const char *real)
{
	static const char *const names[] = { "/site-packages/", "/dist-packages/" };
	size_t i, best = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = real, *hit;

		while ((hit = strstr(p, names[i]))) {
			size_t len = (size_t)(hit - real) + strlen(names[i]) - 1;

			if (len > best)
				best = len;
			p = hit + 1;
		}
	}
	return best;
}

int ct_dist_info_of(const char *path, struct ct_dist_info *d)
{
	char real[PATH_MAX], site[PATH_MAX], top[256], want[256], have[256], pattern[PATH_MAX + 16];
	const char *rel, *slash;
	size_t len, i, pass;
	glob_t g;
	int rc = -ENOENT;

	memset(d, 0, sizeof(*d));
	if (!path || !realpath(path, real) || !(len = site_length(real)))
		return -ENOENT;
	snprintf(site, sizeof(site), "%.*s", (int)len, real);
	rel = real + len + 1;
	slash = strchr(rel, '/');
	snprintf(top, sizeof(top), "%.*s", slash ? (int)(slash - rel) : (int)strlen(rel), rel);
	ct_python_normal_name(top, want, sizeof(want));
	if (snprintf(pattern, sizeof(pattern), "%s/*.dist-info", site) >= (int)sizeof(pattern) ||
	    glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return -ENOENT;
	/* The distribution named like the top-level folder first (torch: torch-2.15.0.dist-info). */
	for (pass = 0; pass < 2 && rc; pass++)
		for (i = 0; i < g.gl_pathc && i < DISTS_MAX && rc; i++) {
			const char *b = ct_path_base(g.gl_pathv[i]), *dash = strchr(b, '-');
			char name[256];

			snprintf(name, sizeof(name), "%.*s", dash ? (int)(dash - b) : (int)strlen(b), b);
			ct_python_normal_name(name, have, sizeof(have));
			if ((strcmp(have, want) == 0) != (pass == 0) || !record_lists(g.gl_pathv[i], rel))
				continue;
			snprintf(d->meta, sizeof(d->meta), "%s", g.gl_pathv[i]);
			name_version(d);
			rc = 0;
		}
	globfree(&g);
	return rc;
}

size_t ct_dist_claims(const char *path, struct ct_dist_info *out, size_t max, size_t *owner)
{
	char real[PATH_MAX], pattern[PATH_MAX + 16];
	const char *rel;
	struct stat st;
	size_t len, i, n = 0, top;
	glob_t g;

	if (owner)
		*owner = max;
	if (!path || !realpath(path, real) || !(len = site_length(real)) || stat(real, &st) != 0)
		return 0;
	rel = real + len + 1;
	/*
	 * Packages that install into one folder are named like it (nvidia/:
	 * nvidia_cudnn_cu12, nvidia_cudnn_cu13): only their RECORDs are read,
	 * not TensorFlow's 3 MB one for every library.
	 */
	top = strcspn(rel, "/");
	if (!rel[top] ||
	    snprintf(pattern, sizeof(pattern), "%.*s/%.*s*.dist-info", (int)len, real, (int)top,
		     rel) >= (int)sizeof(pattern) ||
	    glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return 0;
	for (i = 0; i < g.gl_pathc && i < DISTS_MAX && n < max; i++) {
		long long size;

		if (!record_lists_sized(g.gl_pathv[i], rel, &size))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].meta, sizeof(out[n].meta), "%s", g.gl_pathv[i]);
		name_version(&out[n]);
		if (owner && *owner == max && size == (long long)st.st_size)
			*owner = n;
		n++;
	}
	globfree(&g);
	return n;
}

/*
 * One header line of a METADATA (cut in place): is it a Requires-Dist of
 * want (a normalized name)? Then *r is that requirement
 * (ct_requirement_parse: its spec, and its extra when only an extra of
 * this distribution asks for it).
 */
static bool requirement_of(char *line, const char *want, struct ct_requirement *r)
{
	char *v = strchr(line, ':'), have[256];

	if (!v)
		return false;
	*v++ = '\0';
	return strcasecmp(line, "Requires-Dist") == 0 && ct_requirement_parse(v, r) &&
	       strcmp(ct_python_normal_name(r->name, have, sizeof(have)), want) == 0;
}

/* Does meta's METADATA require dist? *extra: only within an extra. */
static bool requires(const char *meta, const char *want, bool *extra)
{
	char *text = metadata_headers(meta), *line, *save = NULL;
	struct ct_requirement r;
	bool found = false;

	*extra = false;
	for (line = text ? strtok_r(text, "\r\n", &save) : NULL; line && (!found || *extra);
	     line = strtok_r(NULL, "\r\n", &save)) {
		if (!requirement_of(line, want, &r))
			continue;
		*extra = r.extra[0] != '\0';
		found = true;
	}
	free(text);
	return found;
}

bool ct_dist_requirer(const char *near, const char *dist, struct ct_dist_info *d)
{
	char real[PATH_MAX], pattern[PATH_MAX + 16], want[256];
	size_t len, i, pick = SIZE_MAX;
	bool extra;
	glob_t g;

	memset(d, 0, sizeof(*d));
	if (!near || !realpath(near, real) || !(len = site_length(real)))
		return false;
	if (snprintf(pattern, sizeof(pattern), "%.*s/*.dist-info", (int)len, real) >=
		    (int)sizeof(pattern) ||
	    glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return false;
	ct_python_normal_name(dist, want, sizeof(want));
	for (i = 0; i < g.gl_pathc && i < DISTS_MAX; i++) {
		if (!requires(g.gl_pathv[i], want, &extra))
			continue;
		if (pick == SIZE_MAX || !extra)
			pick = i;
		if (!extra)
			break;
	}
	if (pick != SIZE_MAX) {
		snprintf(d->meta, sizeof(d->meta), "%s", g.gl_pathv[pick]);
		name_version(d);
	}
	globfree(&g);
	return pick != SIZE_MAX;
}

int ct_dist_cuda(const char *name)
{
	char n[256];
	const char *s;

	ct_python_normal_name(name, n, sizeof(n));
	s = strrchr(n, '-');
	if (s && strncmp(s, "-cu", 3) == 0 && isdigit((unsigned char)s[3]))
		return atoi(s + 3);
	/* CuPy's: cupy-cuda12x. */
	if (s && strncmp(s, "-cuda", 5) == 0 && isdigit((unsigned char)s[5]) &&
	    isdigit((unsigned char)s[6]) && s[7] == 'x' && !s[8])
		return atoi(s + 5);
	return 0;
}

bool ct_pip_would_replace(const char *near, const char *pkg, const char *soname,
			  struct ct_dist_info *owner, char *path)
{
	char real[PATH_MAX], comp[128], mine[256], theirs[256];
	const char *c = strncmp(pkg, "nvidia-", 7) == 0 ? pkg + 7 : NULL, *suffix;
	size_t len, i;
	int n;

	path[0] = '\0';
	if (!c || !near || !realpath(near, real) || !(len = site_length(real)))
		return false;
	snprintf(comp, sizeof(comp), "%s", c);
	suffix = strrchr(comp, '-');
	if (suffix && strncmp(suffix, "-cu", 3) == 0 && isdigit((unsigned char)suffix[3])) {
		comp[suffix - comp] = '\0';
		for (i = 0; comp[i]; i++)
			comp[i] = comp[i] == '-' ? '_' : comp[i];
	} else {
		snprintf(comp, sizeof(comp), "cu13");
	}
	n = snprintf(path, PATH_MAX, "%.*s/nvidia/%s/lib/%s", (int)len, real, comp, soname);
	if (n < 0 || n >= PATH_MAX || ct_dist_info_of(path, owner) != 0) {
		path[0] = '\0';
		return false;
	}
	ct_python_normal_name(pkg, mine, sizeof(mine));
	ct_python_normal_name(owner->name, theirs, sizeof(theirs));
	if (strcmp(mine, theirs) == 0) {
		path[0] = '\0';
		return false;
	}
	return true;
}

bool ct_dist_info_pin(const struct ct_dist_info *d, const char *dist, char *buf, size_t size)
{
	char *text = metadata_headers(d->meta), *line, *save = NULL, *spec, want[256];
	struct ct_requirement r;
	bool found = false;
	size_t n;

	if (!text)
		return false;
	ct_python_normal_name(dist, want, sizeof(want));
	for (line = strtok_r(text, "\r\n", &save); line && !found;
	     line = strtok_r(NULL, "\r\n", &save)) {
		if (!requirement_of(line, want, &r) || r.extra[0])
			continue;
		spec = r.spec;
		/* One "==" pin alone: not "===", a wildcard, nor a range. */
		if (strncmp(spec, "==", 2) != 0 || spec[2] == '=')
			continue;
		spec += 2 + strspn(spec + 2, " \t");
		n = strcspn(spec, " \t),");
		if (!n || spec[n + strspn(spec + n, " \t)")] == ',' || memchr(spec, '*', n))
			continue;
		snprintf(buf, size, "%.*s", (int)n, spec);
		found = true;
	}
	free(text);
	return found;
}

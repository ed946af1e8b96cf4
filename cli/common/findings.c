/* Findings: adding, grouping, the worst severity; see findings.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "findings.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

static const struct {
	const char *id, *title;
	int severity;
} table[] = {
#define CT_FINDING(name, id, severity, title) { id, title, severity },
#include "findings.def"
#undef CT_FINDING
};

const char *ct_finding_id(enum ct_finding_code code)
{
	return (unsigned)code < CT_F_COUNT ? table[code].id : "?";
}

const char *ct_finding_title(enum ct_finding_code code)
{
	return (unsigned)code < CT_F_COUNT ? table[code].title : "?";
}

const char *ct_severity_name(enum ct_severity s)
{
	return s == CT_SEV_ERROR ? "error" : s == CT_SEV_WARNING ? "warning" : "info";
}

void ct_findings_init(struct ct_findings *fs)
{
	memset(fs, 0, sizeof(*fs));
}

static void where_free(struct ct_where *w)
{
	free(w->host);
	free(w->rank);
	free(w->job);
	free(w->program);
}

static void finding_free(struct ct_finding *f)
{
	size_t i;

	free(f->object);
	free(f->message);
	free(f->fix);
	for (i = 0; i < f->nfix_lines; i++)
		free(f->fix_lines[i]);
	free(f->fix_lines);
	for (i = 0; i < f->nevidence; i++)
		free(f->evidence[i]);
	free(f->evidence);
	for (i = 0; i < f->nwhere; i++)
		where_free(&f->where[i]);
	free(f->where);
	free(f->cause);
	for (i = 0; i < f->nneeded_by; i++) {
		free(f->needed_by[i].object);
		free(f->needed_by[i].how);
	}
	free(f->needed_by);
	for (i = 0; i < f->nmissing; i++) {
		free(f->missing[i].name);
		free(f->missing[i].needed_by);
	}
	free(f->missing);
	if (f->state_free)
		f->state_free(f->state);
}

void ct_findings_release(struct ct_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		finding_free(&fs->f[i]);
	free(fs->f);
	ct_findings_init(fs);
}

__attribute__((format(__printf__, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		ct_out_of_memory();
	return s;
}

struct ct_finding *ct_finding_add(struct ct_findings *fs, enum ct_finding_code code,
				  const char *object, const char *fmt, ...)
{
	struct ct_finding *f;
	va_list ap;

	fs->f = ct_xrealloc(fs->f, (fs->n + 1) * sizeof(*fs->f));
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->severity = (enum ct_severity)table[code].severity;
	f->object = object ? ct_xstrdup(object) : NULL;
	va_start(ap, fmt);
	f->message = vformat(fmt, ap);
	va_end(ap);
	return f;
}

/* The fix's lines joined, for JSON and for comparing findings. */
static void join_fix(struct ct_finding *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->nfix_lines; i++)
		n += strlen(f->fix_lines[i]) + 1;
	free(f->fix);
	f->fix = ct_xmalloc(n + 1);
	f->fix[0] = '\0';
	for (i = 0, n = 0; i < f->nfix_lines; i++)
		n += (size_t)sprintf(f->fix + n, "%s%s", i ? "\n" : "", f->fix_lines[i]);
}

static void add_fix_line(struct ct_finding *f, char *line)
{
	f->fix_lines = ct_xrealloc(f->fix_lines, (f->nfix_lines + 1) * sizeof(*f->fix_lines));
	f->fix_lines[f->nfix_lines++] = line;
	join_fix(f);
}

void ct_finding_fix(struct ct_finding *f, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < f->nfix_lines; i++)
		free(f->fix_lines[i]);
	f->nfix_lines = 0;
	va_start(ap, fmt);
	add_fix_line(f, vformat(fmt, ap));
	va_end(ap);
}

void ct_finding_fix_line(struct ct_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_fix_line(f, vformat(fmt, ap));
	va_end(ap);
}

void ct_finding_evidence(struct ct_finding *f, const char *fmt, ...)
{
	va_list ap;

	f->evidence = ct_xrealloc(f->evidence, (f->nevidence + 1) * sizeof(char *));
	va_start(ap, fmt);
	f->evidence[f->nevidence++] = vformat(fmt, ap);
	va_end(ap);
}

static char *dup_or_null(const char *s)
{
	return s ? ct_xstrdup(s) : NULL;
}

void ct_finding_cause(struct ct_finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->cause);
	va_start(ap, fmt);
	f->cause = vformat(fmt, ap);
	va_end(ap);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void ct_finding_needed_by(struct ct_finding *f, const char *object, const char *how)
{
	size_t i;

	if (!object || !object[0])
		return;
	for (i = 0; i < f->nneeded_by; i++)
		if (strcmp(f->needed_by[i].object, object) == 0 && same_str(f->needed_by[i].how, how))
			return;
	f->needed_by = ct_xrealloc(f->needed_by, (f->nneeded_by + 1) * sizeof(*f->needed_by));
	f->needed_by[f->nneeded_by].object = ct_xstrdup(object);
	f->needed_by[f->nneeded_by++].how = dup_or_null(how);
}

void ct_finding_missing(struct ct_finding *f, const char *name, const char *needed_by)
{
	size_t i;

	for (i = 0; i < f->nmissing; i++)
		if (strcmp(f->missing[i].name, name) == 0 &&
		    strcmp(f->missing[i].needed_by, needed_by) == 0)
			return;
	f->missing = ct_xrealloc(f->missing, (f->nmissing + 1) * sizeof(*f->missing));
	f->missing[f->nmissing].name = ct_xstrdup(name);
	f->missing[f->nmissing++].needed_by = ct_xstrdup(needed_by);
}

static const char *file_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Is the object of askers[i] named before i (asked twice, two ways)? */
static bool named_before(const struct ct_finding *f, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (strcmp(f->needed_by[k].object, f->needed_by[i].object) == 0)
			return true;
	return false;
}

size_t ct_finding_askers(const struct ct_finding *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->nneeded_by; i++)
		n += !named_before(f, i);
	return n;
}

char *ct_finding_askers_words(const struct ct_finding *f, char *buf, size_t size)
{
	size_t i, n = ct_finding_askers(f), said = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < f->nneeded_by && len < size; i++) {
		if (named_before(f, i))
			continue;
		if (said == 2 && n > 3) {
			snprintf(buf + len, size - len, " and %zu more", n - said);
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					!said ? "" : said + 1 == n ? " and " : ", ",
					file_name(f->needed_by[i].object));
		said++;
	}
	return buf;
}

void ct_finding_where(struct ct_finding *f, int64_t pid, const char *host,
		      const char *rank, const char *job, const char *program)
{
	struct ct_where *w;

	f->where = ct_xrealloc(f->where, (f->nwhere + 1) * sizeof(*f->where));
	w = &f->where[f->nwhere++];
	w->pid = pid;
	w->host = dup_or_null(host);
	w->rank = dup_or_null(rank);
	w->job = dup_or_null(job);
	w->program = dup_or_null(program);
}

/* A place (a pid on a host) a grouped finding was seen in. */
struct place {
	char *key;                   /* the pid, NUL, the host (or nothing) */
	size_t len;
	UT_hash_handle hh;
};

/*
 * Add w to the places; false when it was there already. A job's finding
 * is seen in thousands of processes: a table, not a walk of the list.
 */
static bool new_place(struct place **places, const struct ct_where *w)
{
	char pid[32];
	size_t plen = (size_t)snprintf(pid, sizeof(pid), "%lld", (long long)w->pid) + 1;
	size_t len = plen + (w->host ? strlen(w->host) + 1 : 0);
	char *key = ct_xmalloc(len + 1);
	struct place *e;

	memcpy(key, pid, plen);
	if (w->host)
		memcpy(key + plen, w->host, len - plen);
	HASH_FIND(hh, *places, key, len, e);
	if (e) {
		free(key);
		return false;
	}
	e = ct_xcalloc(1, sizeof(*e));
	e->key = key;
	e->len = len;
	HASH_ADD_KEYPTR(hh, *places, e->key, e->len, e);
	return true;
}

static void places_free(struct place **places)
{
	struct place *e, *tmp;

	HASH_ITER(hh, *places, e, tmp) {
		HASH_DEL(*places, e);
		free(e->key);
		free(e);
	}
}

/* The first finding of each kind (code, severity, object, message, fix), by its key. */
struct kind {
	char *key;
	size_t first;
	struct place *places;        /* the first's places, and those merged into it */
	bool merged;                 /* another was merged: places made */
	UT_hash_handle hh;
};

static char *kind_key(const struct ct_finding *f)
{
	char *key = NULL;

	/* \x1f between fields, \x1e for a missing one: neither can be mistaken for text. */
	if (f->cause) {
		if (asprintf(&key, "%d\x1f%d\x1f\x1d%s", (int)f->code, (int)f->severity,
			     f->cause) < 0)
			ct_out_of_memory();
		return key;
	}
	if (asprintf(&key, "%d\x1f%d\x1f%s\x1f%s\x1f%s", (int)f->code, (int)f->severity,
		     f->object ? f->object : "\x1e", f->message, f->fix ? f->fix : "\x1e") < 0)
		ct_out_of_memory();
	return key;
}

void ct_findings_group(struct ct_findings *fs)
{
	struct ct_finding *out = ct_xcalloc(fs->n + 1, sizeof(*out));
	struct kind *kinds = NULL, *k, *tmp;
	size_t n = 0, i, a;
	int sev;

	/* Merge into the first of each kind; then order by severity, stably. */
	for (i = 0; i < fs->n; i++) {
		struct ct_finding *f = &fs->f[i], *first;
		char *key = kind_key(f);

		HASH_FIND_STR(kinds, key, k);
		if (!k) {
			k = ct_xcalloc(1, sizeof(*k));
			k->key = key;
			k->first = i;
			HASH_ADD_KEYPTR(hh, kinds, k->key, strlen(k->key), k);
			continue;
		}
		free(key);
		first = &fs->f[k->first];
		/* The table of places when a second finding joins the first (most stay alone). */
		if (!k->merged) {
			for (a = 0; a < first->nwhere; a++)
				new_place(&k->places, &first->where[a]);
			k->merged = true;
		}
		first->where = ct_xrealloc(first->where,
					   (first->nwhere + f->nwhere + 1) * sizeof(*f->where));
		/* A process is one place, however many objects in it asked. */
		for (a = 0; a < f->nwhere; a++)
			if (!new_place(&k->places, &f->where[a]))
				where_free(&f->where[a]);
			else
				first->where[first->nwhere++] = f->where[a];
		free(f->where);
		f->where = NULL;
		f->nwhere = 0;
		for (a = 0; a < f->nneeded_by; a++)
			ct_finding_needed_by(first, f->needed_by[a].object, f->needed_by[a].how);
		for (a = 0; a < f->nmissing; a++)
			ct_finding_missing(first, f->missing[a].name, f->missing[a].needed_by);
		finding_free(f);
		f->message = NULL; /* merged away */
	}
	HASH_ITER(hh, kinds, k, tmp) {
		struct ct_finding *f = &fs->f[k->first];

		/* Said again for every object that asked. */
		if (f->restate && ct_finding_askers(f) > 1)
			f->restate(f);
		HASH_DEL(kinds, k);
		places_free(&k->places);
		free(k->key);
		free(k);
	}
	for (sev = CT_SEV_ERROR; sev >= CT_SEV_INFO; sev--)
		for (i = 0; i < fs->n; i++)
			if (fs->f[i].message && (int)fs->f[i].severity == sev)
				out[n++] = fs->f[i];
	free(fs->f);
	fs->f = out;
	fs->n = n;
}

int ct_findings_worst(const struct ct_findings *fs)
{
	int worst = -1;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if ((int)fs->f[i].severity > worst)
			worst = (int)fs->f[i].severity;
	return worst;
}

/* A value among the places, counted once (distinct). */
struct seen_value {
	const char *v;
	UT_hash_handle hh;
};

/* What distinct counts of each place. */
enum place_part { PLACE_HOST, PLACE_JOB, PLACE_JOB_RANK, PLACE_RANK };

/*
 * Distinct values among the places (NULLs not counted but as a job's: a
 * rank outside any job is in the job of no id): a job's finding has
 * thousands. A rank is counted in its job: "job\x1frank".
 */
static size_t distinct(const struct ct_finding *f, enum place_part part)
{
	struct seen_value *all = ct_xcalloc(f->nwhere + 1, sizeof(*all)), *seen = NULL, *e;
	char **keys = ct_xcalloc(f->nwhere + 1, sizeof(*keys));
	size_t i, n = 0, nkeys = 0;

	for (i = 0; i < f->nwhere; i++) {
		const struct ct_where *w = &f->where[i];
		const char *v = part == PLACE_HOST ? w->host : part == PLACE_RANK ? w->rank : NULL;

		if (part == PLACE_JOB) {
			v = w->job ? w->job : "";
		} else if (part == PLACE_JOB_RANK && w->rank) {
			if (asprintf(&keys[nkeys], "%s\x1f%s", w->job ? w->job : "", w->rank) < 0)
				ct_out_of_memory();
			v = keys[nkeys++];
		}
		if (!v)
			continue;
		HASH_FIND_STR(seen, v, e);
		if (e)
			continue;
		all[n].v = v;
		HASH_ADD_KEYPTR(hh, seen, all[n].v, strlen(v), &all[n]);
		n++;
	}
	HASH_CLEAR(hh, seen);
	free(all);
	for (i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	return n;
}

/* Does every place have a rank? */
static bool all_ranked(const struct ct_finding *f)
{
	size_t i;

	for (i = 0; i < f->nwhere; i++)
		if (!f->where[i].rank)
			return false;
	return true;
}

/* The host of every place when they share one; NULL otherwise. */
static const char *one_host(const struct ct_finding *f)
{
	size_t i;

	for (i = 0; i < f->nwhere; i++)
		if (!f->where[i].host || strcmp(f->where[i].host, f->where[0].host) != 0)
			return NULL;
	return f->nwhere ? f->where[0].host : NULL;
}

char *ct_where_words(const struct ct_finding *f, char *buf, size_t size)
{
	size_t hosts, jobs, ranks, n = 0, same_rank = 0;
	const char *host = f->name_hosts ? one_host(f) : NULL;
	const struct ct_where *w = &f->where[0];

	if (f->nwhere == 0) {
		snprintf(buf, size, "this machine");
		return buf;
	}
	if (f->nwhere == 1) {
		/* A pid, and a rank number, are on every host of a cluster. */
		if (w->rank)
			snprintf(buf, size, "rank %s%s%s (process %lld)", w->rank, host ? " on " : "",
				 host ? host : "", (long long)w->pid);
		else
			snprintf(buf, size, "process %lld%s%s%s%s", (long long)w->pid,
				 host ? " on " : "", host ? host : "", w->program ? ": " : "",
				 w->program ? w->program : "");
		return buf;
	}
	hosts = distinct(f, PLACE_HOST);
	if (all_ranked(f)) {
		jobs = distinct(f, PLACE_JOB);
		ranks = distinct(f, PLACE_JOB_RANK);
		/* The same rank of each job (an array's tasks, a batch job's steps). */
		if (jobs > 1 && ranks == jobs && distinct(f, PLACE_RANK) == 1)
			n = (size_t)snprintf(buf, size, "rank %s of %zu jobs", w->rank, jobs);
		else if (jobs > 1)
			n = (size_t)snprintf(buf, size, "%zu ranks of %zu jobs", ranks, jobs);
		else if (ranks > 1)
			n = (size_t)snprintf(buf, size, "%zu ranks", ranks);
		else /* one rank's processes: its children, a worker restarted */
			n = (size_t)snprintf(buf, size, "rank %s", w->rank), same_rank = f->nwhere;
	} else {
		n = (size_t)snprintf(buf, size, "%zu processes", f->nwhere);
	}
	if (n < size && hosts > 1)
		n += (size_t)snprintf(buf + n, size - n, " on %zu hosts", hosts);
	else if (n < size && host)
		n += (size_t)snprintf(buf + n, size - n, " on %s", host);
	if (n < size && same_rank)
		snprintf(buf + n, size - n, " (%zu processes)", same_rank);
	return buf;
}

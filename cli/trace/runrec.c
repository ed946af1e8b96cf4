/* Reading a run record; see runrec.h. */
#include <string.h>

#include "job.h"
#include "jsonparse.h"
#include "lines.h"
#include "runrec.h"

/* A string member, kept in a; NULL when absent or not a string. */
static const char *kstr(struct ct_arena *a, const struct ct_jv *v, const char *key)
{
	const char *s = ct_jstr(v, key, NULL);

	return s ? ct_arena_strdup(a, s) : NULL;
}

/* An integer member in [min, max]; 0 when absent or out of range. */
static int64_t kint(const struct ct_jv *v, const char *key, int64_t min, int64_t max)
{
	const struct ct_jv *m = ct_jget(v, key);

	return m && m->type == CT_J_INT && m->u.i >= min && m->u.i <= max ? m->u.i : 0;
}

int ct_runrec_read(struct ct_arena *a, const char *path, bool only_owner, uid_t owner,
		   bool one_link, struct ct_run *r, uint64_t *nbytes)
{
	const struct ct_jv *v, *argv, *ex;
	struct ct_arena scratch;
	struct ct_lines lines;
	const char *err = NULL, *run, *job;
	char *line;
	bool unterminated;
	size_t len, i, n;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	*nbytes = 0;
	/* One record: a line; nothing past it is read. */
	if (ct_lines_open(&lines, path, CT_TRACE_LINE_MAX, CT_TRACE_LINE_MAX + 1) != 0)
		return -1;
	if ((only_owner && lines.owner != owner) || (one_link && lines.nlink != 1)) {
		ct_lines_close(&lines);
		return -1;
	}
	ct_arena_init(&scratch);
	if (ct_lines_next(&lines, &line, &len, &unterminated) != 1)
		goto out;
	v = ct_json_parse_max(&scratch, line, len, CT_TRACE_VALUES_MAX, &err);
	if (!v || strcmp(ct_jstr(v, "ev", ""), "run") != 0)
		goto out;
	/* A run id as the shim takes it: 1 to 32 lowercase hex digits. */
	run = ct_jstr(v, "run", NULL);
	n = run ? strspn(run, "0123456789abcdef") : 0;
	if (n < 1 || n > 32 || run[n] != '\0')
		goto out;
	r->run = ct_arena_strdup(a, run);
	r->owner = (int64_t)lines.owner;
	r->host = kstr(a, v, "host");
	r->command = kstr(a, v, "command");
	argv = ct_jget(v, "argv");
	if (argv && argv->type == CT_J_ARR && argv->u.c.n) {
		const char **out = ct_arena_alloc(a, argv->u.c.n * sizeof(*out));

		for (i = 0; i < argv->u.c.n; i++)
			if (argv->u.c.items[i]->type == CT_J_STR)
				out[r->argc++] = ct_arena_strdup(a, argv->u.c.items[i]->u.str.s);
		r->argv = out;
	}
	/* Values no kernel gives read as not recorded. */
	r->pid = kint(v, "pid", 1, INT32_MAX);
	r->t = kint(v, "t", 0, INT64_MAX);
	ex = ct_jget(v, "exit");
	r->exited = ex && ex->type == CT_J_INT && ex->u.i >= 0 && ex->u.i <= 255;
	r->exit_status = r->exited ? ex->u.i : 0;
	r->signal = r->exited ? 0 : kint(v, "signal", 1, 127);
	r->untraced = kstr(a, v, "untraced");
	/* A job id is believed with the variable it came from, both as run writes them. */
	job = ct_jstr(v, "job", NULL);
	r->job_from = ct_job_var(ct_jstr(v, "job_from", NULL));
	if (r->job_from && ct_job_id_valid(job))
		r->job = ct_arena_strdup(a, job);
	else
		r->job_from = NULL;
	rc = 0;
out:
	*nbytes = lines.read_total;
	ct_lines_close(&lines);
	ct_arena_release(&scratch);
	return rc;
}

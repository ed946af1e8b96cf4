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

/* Whether s is 1 to CT_JOB_NUM_MAX decimal digits, as run writes a step, task or count. */
static bool number(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > 0 && n <= CT_JOB_NUM_MAX && strspn(s, "0123456789") == n;
}

/*
 * What places r's job in its scheduler's (runrec.h), each as run writes
 * it or not at all: a step that job does not end with, an array task
 * without its array, a job around named by a variable that is not a
 * launcher's (or the job's own) is no place; --job selects by them.
 */
static void job_place(struct ct_arena *a, const struct ct_jv *v, struct ct_run *r)
{
	const char *step = ct_jstr(v, "job_step", NULL), *array = ct_jstr(v, "job_array", NULL);
	const char *task = ct_jstr(v, "job_array_task", NULL), *restart = ct_jstr(v, "job_restart", NULL);
	const char *in = ct_jstr(v, "job_in", NULL), *in_from = ct_job_var(ct_jstr(v, "job_in_from", NULL));
	size_t n = strlen(r->job), k = step ? strlen(step) : 0;

	if (number(step) && strcmp(r->job_from, "SLURM_JOB_ID") == 0 && n > k + 1 &&
	    r->job[n - k - 1] == '.' && strcmp(r->job + n - k, step) == 0)
		r->job_step = ct_arena_strdup(a, step);
	if (ct_job_id_valid(array)) {
		r->job_array = ct_arena_strdup(a, array);
		if (number(task))
			r->job_array_task = ct_arena_strdup(a, task);
	}
	if (number(restart))
		r->job_restart = ct_arena_strdup(a, restart);
	if (in_from && in_from != r->job_from && ct_job_id_valid(in)) {
		r->job_in = ct_arena_strdup(a, in);
		r->job_in_from = in_from;
	}
}

int ct_runrec_read(struct ct_arena *a, const char *path, bool only_owner, uid_t owner,
		   bool one_link, struct ct_run *r, uint64_t *nbytes)
{
	const struct ct_jv *v, *argv, *ex, *secs;
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
	secs = ct_jget(v, "seconds");
	r->ns = -1;
	if (secs && secs->type == CT_J_INT && secs->u.i >= 0 && secs->u.i <= INT64_MAX / 1000000000)
		r->ns = secs->u.i * 1000000000;
	else if (secs && secs->type == CT_J_NUM && secs->u.d >= 0 && secs->u.d < 9e9)
		r->ns = (int64_t)(secs->u.d * 1e9);
	/* A job id is believed with the variable it came from, both as run writes them. */
	job = ct_jstr(v, "job", NULL);
	r->job_from = ct_job_var(ct_jstr(v, "job_from", NULL));
	if (r->job_from && ct_job_id_valid(job))
		r->job = ct_arena_strdup(a, job);
	else
		r->job_from = NULL;
	if (r->job)
		job_place(a, v, r);
	rc = 0;
out:
	*nbytes = lines.read_total;
	ct_lines_close(&lines);
	ct_arena_release(&scratch);
	return rc;
}

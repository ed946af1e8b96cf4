/* The job of a run, from its environment; see job.h. */
#include <string.h>

#include "job.h"

static const char *const vars[] = {
#define X(var, who, rank) #var,
#include "jobs.def"
#undef X
};

/* Each launcher's rank variable, in the same order ("" for none). */
static const char *const rank_vars[] = {
#define X(var, who, rank) rank,
#include "jobs.def"
#undef X
};

/* The value of name in envp, or NULL. */
static const char *env_value(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

bool ct_job_id_valid(const char *s)
{
	size_t n;

	if (!s)
		return false;
	for (n = 0; s[n]; n++)
		if (n == CT_JOB_ID_MAX || (unsigned char)s[n] <= ' ' || (unsigned char)s[n] >= 0x7f)
			return false;
	return n > 0;
}

const char *ct_job_var(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i], name) == 0)
			return vars[i];
	return NULL;
}

const char *ct_job_rank_var(const char *from)
{
	size_t i;

	for (i = 0; from && i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i], from) == 0)
			return rank_vars[i][0] ? rank_vars[i] : NULL;
	return NULL;
}

const char *ct_job_rank_var_at(size_t i)
{
	size_t k;

	for (k = 0; k < sizeof(rank_vars) / sizeof(rank_vars[0]); k++)
		if (rank_vars[k][0] && i-- == 0)
			return rank_vars[k];
	return NULL;
}

/* Whether s is 1 to CT_JOB_NUM_MAX decimal digits. */
static bool number(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > 0 && n <= CT_JOB_NUM_MAX && strspn(s, "0123456789") == n;
}

/* s into out (CT_JOB_NUM_MAX + 1 bytes) when it is a number. */
static void copy_number(char *out, const char *s)
{
	if (number(s))
		memcpy(out, s, strlen(s) + 1);
}

/*
 * The job vars[i] names in envp, into id (CT_JOB_ID_MAX + 1 bytes); with
 * step, Slurm's step is added ("123.0") and copied there. Whether it names
 * one.
 */
static bool job_of(char *const *envp, size_t i, char *id, char *step)
{
	const char *v = env_value(envp, vars[i]), *s;
	size_t n;

	if (!ct_job_id_valid(v))
		return false;
	/* torchrun's default --rdzv-id: every torchrun without one has it. */
	if (strcmp(vars[i], "TORCHELASTIC_RUN_ID") == 0 && strcmp(v, "none") == 0)
		return false;
	n = strlen(v); /* at most CT_JOB_ID_MAX: a valid id */
	memcpy(id, v, n + 1);
	/* Two sruns in one batch job are two launches: their steps tell them apart. */
	s = step && strcmp(vars[i], "SLURM_JOB_ID") == 0 ? env_value(envp, "SLURM_STEP_ID") : NULL;
	if (number(s) && n + 1 + strlen(s) <= CT_JOB_ID_MAX) {
		id[n] = '.';
		memcpy(id + n + 1, s, strlen(s) + 1);
		memcpy(step, s, strlen(s) + 1);
	}
	return true;
}

bool ct_job_from_env(char *const *envp, struct ct_job *job)
{
	const size_t count = sizeof(vars) / sizeof(vars[0]);
	const char *v;
	size_t i, k;

	memset(job, 0, sizeof(*job));
	for (i = 0; i < count && !job_of(envp, i, job->id, job->step); i++)
		;
	if (i == count)
		return false;
	job->from = vars[i];
	/* The scheduler's job around a torchrun or mpirun: the job, not its step. */
	for (k = i + 1; k < count && !job_of(envp, k, job->in_id, NULL); k++)
		;
	if (k < count)
		job->in_from = vars[k];
	v = env_value(envp, "SLURM_ARRAY_JOB_ID");
	if (ct_job_id_valid(v)) {
		memcpy(job->array, v, strlen(v) + 1);
		copy_number(job->array_task, env_value(envp, "SLURM_ARRAY_TASK_ID"));
	}
	if (strcmp(job->from, "TORCHELASTIC_RUN_ID") == 0)
		copy_number(job->restart, env_value(envp, "TORCHELASTIC_RESTART_COUNT"));
	else if (strcmp(job->from, "SLURM_JOB_ID") == 0)
		copy_number(job->restart, env_value(envp, "SLURM_RESTART_COUNT"));
	return true;
}

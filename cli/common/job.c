/* The job of a run, from its environment; see job.h. */
#include <string.h>

#include "job.h"

static const char *const vars[] = {
#define X(var, who) #var,
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

bool ct_job_from_env(char *const *envp, struct ct_job *job)
{
	size_t i, n;

	memset(job, 0, sizeof(*job));
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = env_value(envp, vars[i]), *step;

		if (!ct_job_id_valid(v))
			continue;
		/* torchrun's default --rdzv-id: every torchrun without one has it. */
		if (strcmp(vars[i], "TORCHELASTIC_RUN_ID") == 0 && strcmp(v, "none") == 0)
			continue;
		/* Two sruns in one batch job are two launches: their steps tell them apart. */
		step = strcmp(vars[i], "SLURM_JOB_ID") == 0 ? env_value(envp, "SLURM_STEP_ID") : NULL;
		n = strlen(v); /* at most CT_JOB_ID_MAX: a valid id */
		memcpy(job->id, v, n + 1);
		if (step && *step && strspn(step, "0123456789") == strlen(step) &&
		    n + 1 + strlen(step) <= CT_JOB_ID_MAX) {
			job->id[n] = '.';
			memcpy(job->id + n + 1, step, strlen(step) + 1);
		}
		job->from = vars[i];
		return true;
	}
	return false;
}

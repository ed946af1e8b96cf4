/*
 * The job of a run (cli/common/job.c): which launcher variable names it,
 * in jobs.def's order; Slurm's step; torchrun's default id "none"; ids
 * that cannot be one (empty, a space, too long) name no job; what places
 * the launch in the scheduler's job (step, array and task, restart, the
 * job around a torchrun or mpirun).
 */
#include "helpers.h"
#include "job.h"

static void expect(char **env, const char *from, const char *id)
{
	struct ct_job job;
	bool found = ct_job_from_env(env, &job);

	if (!from) {
		assert_false(found);
		assert_null(job.from);
		return;
	}
	assert_true(found);
	assert_string_equal(job.from, from);
	assert_string_equal(job.id, id);
}

static void test_launchers(void **state)
{
	char *slurm[] = { "HOME=/root", "SLURM_PROCID=2", "SLURM_JOB_ID=123", NULL };
	char *step[] = { "SLURM_STEP_ID=4", "SLURM_JOB_ID=123", NULL };
	char *pbs[] = { "PBS_JOBID=77.server", NULL };
	char *lsf[] = { "LSB_JOBID=9", NULL };
	char *ompi4[] = { "OMPI_COMM_WORLD_RANK=0", "OMPI_MCA_ess_base_jobid=3735420929", NULL };
	char *pmix[] = { "PMIX_NAMESPACE=prterun-node1-4242@1", "PMIX_RANK=0", NULL };
	char *pmi[] = { "PMI_RANK=1", "PMI_JOBID=55_0", NULL };
	char *torch[] = { "TORCHELASTIC_RUN_ID=9b2f0c9e-1b1e-4d4e-a3c1-2c5d1f0e7a11", NULL };
	char *none[] = { "RANK=0", "WORLD_SIZE=8", "SLURM_JOBID=1", NULL };

	(void)state;
	expect(slurm, "SLURM_JOB_ID", "123");
	expect(step, "SLURM_JOB_ID", "123.4");
	expect(pbs, "PBS_JOBID", "77.server");
	expect(lsf, "LSB_JOBID", "9");
	expect(ompi4, "OMPI_MCA_ess_base_jobid", "3735420929");
	expect(pmix, "PMIX_NAMESPACE", "prterun-node1-4242@1");
	expect(pmi, "PMI_JOBID", "55_0");
	expect(torch, "TORCHELASTIC_RUN_ID", "9b2f0c9e-1b1e-4d4e-a3c1-2c5d1f0e7a11");
	expect(none, NULL, NULL);
	expect(NULL, NULL, NULL);
}

static void test_order(void **state)
{
	/* torchrun inside a Slurm job: the torchrun launch is the job. */
	char *both[] = { "SLURM_JOB_ID=123", "TORCHELASTIC_RUN_ID=r1", NULL };
	/* torchrun without --rdzv-id says "none": Slurm's id then. */
	char *dflt[] = { "SLURM_JOB_ID=123", "TORCHELASTIC_RUN_ID=none", NULL };
	char *alone[] = { "TORCHELASTIC_RUN_ID=none", NULL };
	/* srun --mpi=pmix: PMIx's namespace is the step's. */
	char *pmix[] = { "SLURM_JOB_ID=123", "PMIX_NAMESPACE=slurm.pmix.123.0", NULL };

	(void)state;
	expect(both, "TORCHELASTIC_RUN_ID", "r1");
	expect(dflt, "SLURM_JOB_ID", "123");
	expect(alone, NULL, NULL);
	expect(pmix, "PMIX_NAMESPACE", "slurm.pmix.123.0");
}

static void test_invalid(void **state)
{
	char longid[CT_JOB_ID_MAX + 32], var[CT_JOB_ID_MAX + 64];
	char *empty[] = { "SLURM_JOB_ID=", "PBS_JOBID=5", NULL };
	char *space[] = { "SLURM_JOB_ID=1 2", NULL };
	char *ctrl[] = { "SLURM_JOB_ID=1\x1b[2J", NULL };
	char *prefix[] = { "SLURM_JOB_IDX=1", "XSLURM_JOB_ID=2", NULL };
	char *badstep[] = { "SLURM_JOB_ID=123", "SLURM_STEP_ID=batch", NULL };
	char *toolong[] = { var, NULL };

	(void)state;
	expect(empty, "PBS_JOBID", "5");
	expect(space, NULL, NULL);
	expect(ctrl, NULL, NULL);
	expect(prefix, NULL, NULL);
	expect(badstep, "SLURM_JOB_ID", "123");
	memset(longid, '7', CT_JOB_ID_MAX + 1);
	longid[CT_JOB_ID_MAX + 1] = '\0';
	snprintf(var, sizeof(var), "LSB_JOBID=%s", longid);
	expect(toolong, NULL, NULL);
	longid[CT_JOB_ID_MAX] = '\0';
	assert_true(ct_job_id_valid(longid));
	assert_false(ct_job_id_valid(""));
	assert_false(ct_job_id_valid(NULL));
	assert_string_equal(ct_job_var("PBS_JOBID"), "PBS_JOBID");
	assert_null(ct_job_var("PATH"));
	assert_null(ct_job_var(NULL));
}

/* job's placing: each "" or NULL when not said. */
static void expect_place(char **env, const char *step, const char *array, const char *task,
			 const char *restart, const char *in_from, const char *in_id)
{
	struct ct_job job;

	assert_true(ct_job_from_env(env, &job));
	assert_string_equal(job.step, step);
	assert_string_equal(job.array, array);
	assert_string_equal(job.array_task, task);
	assert_string_equal(job.restart, restart);
	if (!in_from) {
		assert_null(job.in_from);
		assert_string_equal(job.in_id, "");
	} else {
		assert_string_equal(job.in_from, in_from);
		assert_string_equal(job.in_id, in_id);
	}
}

static void test_place(void **state)
{
	/* srun's rank: the step; the job is 123.0, a user names it 123. */
	char *step[] = { "SLURM_JOB_ID=123", "SLURM_STEP_ID=0", "SLURM_PROCID=3", NULL };
	/* sbatch --array=0-2 printed 120; task 1 runs as job 121, its srun as 121.0. */
	char *array[] = { "SLURM_ARRAY_JOB_ID=120", "SLURM_ARRAY_TASK_ID=1", "SLURM_JOB_ID=121",
			  "SLURM_STEP_ID=0", NULL };
	/* The batch script itself: no step. */
	char *batch[] = { "SLURM_JOB_ID=123", "SLURM_ARRAY_JOB_ID=123", NULL };
	/* torchrun's second attempt, inside srun's step 2 of job 123. */
	char *torch[] = { "TORCHELASTIC_RUN_ID=r1", "TORCHELASTIC_RESTART_COUNT=1",
			  "SLURM_JOB_ID=123", "SLURM_STEP_ID=2", "SLURM_RESTART_COUNT=4", NULL };
	/* mpirun (Open MPI 5: PMIx) in a batch job; Slurm's count is not PMIx's. */
	char *mpi[] = { "PMIX_NAMESPACE=prterun-node1-77@1", "SLURM_JOB_ID=123",
			"SLURM_RESTART_COUNT=1", NULL };
	/* A requeued Slurm job's second attempt. */
	char *requeue[] = { "SLURM_JOB_ID=123", "SLURM_RESTART_COUNT=1", NULL };
	/* What cannot be a step, a task or a count is left out; an id not valid too. */
	char *bad[] = { "SLURM_JOB_ID=123", "SLURM_STEP_ID=batch", "SLURM_ARRAY_JOB_ID=1 2",
			"SLURM_ARRAY_TASK_ID=1", "SLURM_RESTART_COUNT=-1", NULL };
	char *badtask[] = { "SLURM_JOB_ID=5", "SLURM_ARRAY_JOB_ID=4", "SLURM_ARRAY_TASK_ID=x",
			    "TORCHELASTIC_RESTART_COUNT=2", NULL };
	/* The job around: the next variable set to a valid id, an empty one skipped. */
	char *outer[] = { "OMPI_MCA_ess_base_jobid=9", "PMI_JOBID=", "LSB_JOBID=7", NULL };

	(void)state;
	expect(step, "SLURM_JOB_ID", "123.0");
	expect_place(step, "0", "", "", "", NULL, NULL);
	expect(array, "SLURM_JOB_ID", "121.0");
	expect_place(array, "0", "120", "1", "", NULL, NULL);
	expect(batch, "SLURM_JOB_ID", "123");
	expect_place(batch, "", "123", "", "", NULL, NULL);
	expect(torch, "TORCHELASTIC_RUN_ID", "r1");
	expect_place(torch, "", "", "", "1", "SLURM_JOB_ID", "123");
	expect(mpi, "PMIX_NAMESPACE", "prterun-node1-77@1");
	expect_place(mpi, "", "", "", "", "SLURM_JOB_ID", "123");
	expect_place(requeue, "", "", "", "1", NULL, NULL);
	expect(bad, "SLURM_JOB_ID", "123");
	expect_place(bad, "", "", "", "", NULL, NULL);
	expect_place(badtask, "", "4", "", "", NULL, NULL);
	expect_place(outer, "", "", "", "", "LSB_JOBID", "7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The job a run belongs to: srun, torchrun and mpirun start one cudatrace
 * per rank, each a run of its own, and the ids their launcher puts in
 * every rank's environment (jobs.def) say which runs are one job. The
 * run record keeps the id and the variable it came from (docs/run.md);
 * the report counts the runs of one job as one.
 */
#ifndef CT_JOB_H
#define CT_JOB_H

#include <stdbool.h>
#include <stddef.h>

/* The longest job id kept; a longer value names no job. */
#define CT_JOB_ID_MAX 128

/* The longest step, array task or restart count kept (decimal digits). */
#define CT_JOB_NUM_MAX 20

struct ct_job {
	const char *from;            /* the variable (a jobs.def name); NULL: no job */
	char id[CT_JOB_ID_MAX + 1];  /* its value ("123", "123.0" with a Slurm step) */
	/*
	 * What places the launch within its scheduler's job; each "" when
	 * not said. A cluster user names a job by what the scheduler printed
	 * (sbatch's "123", an array's "120"), not by the launch id.
	 */
	char step[CT_JOB_NUM_MAX + 1];      /* the Slurm step that id ends with ("0") */
	char array[CT_JOB_ID_MAX + 1];      /* SLURM_ARRAY_JOB_ID: the id sbatch --array printed */
	char array_task[CT_JOB_NUM_MAX + 1]; /* SLURM_ARRAY_TASK_ID */
	/* The launcher's restart count (TORCHELASTIC_RESTART_COUNT of torchrun's
	 * elastic agent, SLURM_RESTART_COUNT of a requeued job): an attempt of
	 * the same job, not another job. */
	char restart[CT_JOB_NUM_MAX + 1];
	/* The job around the launch: the next jobs.def variable set after from,
	 * read the same way (a Slurm job "123", or its step "123.0", around a
	 * torchrun or mpirun); in_from NULL: none. */
	const char *in_from;
	char in_id[CT_JOB_ID_MAX + 1];
};

/*
 * The job of an environment (an environ array, NAME=VALUE strings, NULL
 * at its end): the first jobs.def variable set to a valid id, and what
 * places it in the scheduler's job (above). Returns whether one was
 * found; job->from is NULL when not, and the rest then says nothing.
 */
bool ct_job_from_env(char *const *envp, struct ct_job *job);

/*
 * Whether s can be a job id: 1 to CT_JOB_ID_MAX bytes, printable ASCII
 * without a space. What a run record says is checked again with it.
 */
bool ct_job_id_valid(const char *s);

/* The jobs.def variable named name (a static string), or NULL. */
const char *ct_job_var(const char *name);

/*
 * The variable that says a rank under the launcher whose variable from
 * (a jobs.def name) named the job: "SLURM_PROCID" for SLURM_JOB_ID,
 * "PMIX_RANK" for PMIX_NAMESPACE; NULL for a launcher without one (PBS,
 * LSF) or a name not in jobs.def. A static string.
 */
const char *ct_job_rank_var(const char *from);

/*
 * The i-th launcher's rank variable in jobs.def's order, those without
 * one skipped (RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
 * SLURM_PROCID), NULL past the last: a process whose job is not known is
 * a rank of the innermost launcher that says one. A static string.
 */
const char *ct_job_rank_var_at(size_t i);

#endif

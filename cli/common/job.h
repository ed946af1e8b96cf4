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

struct ct_job {
	const char *from;            /* the variable (a jobs.def name); NULL: no job */
	char id[CT_JOB_ID_MAX + 1];  /* its value ("123", "123.0" with a Slurm step) */
};

/*
 * The job of an environment (an environ array, NAME=VALUE strings, NULL
 * at its end): the first jobs.def variable set to a valid id. Returns
 * whether one was found; job->from is NULL when not.
 */
bool ct_job_from_env(char *const *envp, struct ct_job *job);

/*
 * Whether s can be a job id: 1 to CT_JOB_ID_MAX bytes, printable ASCII
 * without a space. What a run record says is checked again with it.
 */
bool ct_job_id_valid(const char *s);

/* The jobs.def variable named name (a static string), or NULL. */
const char *ct_job_var(const char *name);

#endif

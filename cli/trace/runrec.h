/*
 * A run record (<host>-<pid>.run.json, written by cudatrace run) read into
 * a struct ct_run; the trace reader's, for ct_trace_read_dir (trace.h
 * includes this header, never the other way: a run record knows no trace).
 * Run records are untrusted as trace files are: read under the same line
 * and value limits, and a field of the wrong type reads as absent.
 */
#ifndef CT_RUNREC_H
#define CT_RUNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena.h"
#include "trace_limits.h"

/*
 * A run record (<host>-<pid>.run.json, docs/run.md): what one `cudatrace
 * run` started and how it ended, as waitpid told it.
 */
struct ct_run {
	const char *run;             /* its run id */
	const char *host;
	const char *command;         /* the program, as cudatrace found it on PATH */
	const char **argv;
	size_t argc;
	int64_t pid;                 /* the program's process id; 0: not recorded (an older
					cudatrace) */
	int64_t t;                   /* when it was started, ns since the epoch; 0: not recorded */
	bool exited;                 /* it exited, with exit_status */
	int64_t exit_status;
	int64_t signal;              /* the signal that ended it; 0: none */
	const char *untraced;        /* the program cannot be traced: why, in an exec
					record's words ("static"); NULL: it can */
	const char *job;             /* the job it was one rank of (job.h: its launcher's
					id, "123"); NULL: none said */
	const char *job_from;        /* the variable that gave job (a jobs.def name, a
					static string); NULL with job */
	/*
	 * What places the launch in its scheduler's job (job.h, struct
	 * ct_job), each NULL when not said or not believed: the Slurm step
	 * job ends with ("0" of "123.0"), the array sbatch --array printed and
	 * the task, the launcher's restart count, and the job around the
	 * launch (a Slurm job around an mpirun or torchrun) with its variable
	 * (static). A user names a job by what the scheduler printed.
	 */
	const char *job_step;
	const char *job_array, *job_array_task;
	const char *job_restart;
	const char *job_in, *job_in_from;
	int64_t ns;                  /* how long it ran, ns ("seconds"); -1: not recorded */
	/*
	 * The user who owns its file: who wrote it, since no other user can
	 * make a file theirs (what the record says of itself, any user can
	 * write). -1: not read from a file. A run is its id and this user:
	 * another user's record or trace with the same id is another run's.
	 */
	int64_t owner;
};

/*
 * Read the run record at path into r, its strings in a. *nbytes gets the
 * bytes read (at most CT_TRACE_LINE_MAX + 1). With only_owner, a file
 * another user owns is left out; with one_link, a file with more than one
 * link. 0, or -1
 * when it is not a run record (unreadable, another user's, no "run"
 * record with a run id, a key twice). r->owner is the file's owner.
 */
int ct_runrec_read(struct ct_arena *a, const char *path, bool only_owner, uid_t owner,
		   bool one_link, struct ct_run *r, uint64_t *nbytes);

#endif

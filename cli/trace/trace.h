/*
 * Reading traces (docs/trace-format.md): every *.jsonl file of the given
 * directories becomes a process image with what it loaded, joined up:
 * each search with its candidates, the object it found or none, the
 * dlopen request behind it and the dlerror text the program got; module
 * loads, driver facts, exec and exit.
 *
 * Every record is decoded here, once, into the typed records below; a
 * record with a field of the wrong type (rectypes.h) is not read but
 * counted as a bad line, and an absent field reads as absent (NULL
 * strings, 0 numbers, empty arrays). A file without a start record (the
 * shim writes one first in every file) is no process: left out, counted
 * in unstarted_files. No layer above sees JSON.
 *
 * Traces are untrusted: the reader streams each file a line at a time and
 * keeps within the limits below (docs/trace-format.md, "Limits"). Past a
 * limit it goes on with what it can still read and says so in the
 * process's limit and limited; a value that cannot be true (a negative
 * count) is refused and counted in bad_values. Memory grows with what is
 * kept, never with a line's or a file's size; time is linear in the input.
 *
 * Ownership: struct ct_trace owns everything reachable from it (one arena
 * and the arrays); ct_trace_release frees it all. The records' strings
 * (and module image lists) are shared: each distinct one is kept once
 * (intern.h), so records of different processes point at the same
 * string; none is ever written. Not thread-safe; ct_trace_read_dir
 * reads a folder's files with threads of its own (threads), and returns
 * the same trace as one thread would.
 */
#ifndef CT_TRACE_H
#define CT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena.h"
#include "intern.h"
#include "libnames.h"
#include "rules.h"
#include "runrec.h"
#include "trace_limits.h"

struct ct_search;
struct ct_request;

struct ct_try {
	const char *path;
	enum ct_rule via;
};

struct ct_loaded {
	const char *path, *soname, *name, *by;
	enum ct_rule via;            /* how the loader found it */
	int64_t lmid, t, size, mtime;
	uint64_t dev, ino;       /* as the kernel gave them; 0 when unknown */
	bool main;                   /* the program itself */
	bool closed;                 /* unloaded by dlclose */
	bool shim;                   /* cudatrace's own library */
	bool audit;                  /* loaded for another auditor in LD_AUDIT, before the
					program: not the program's (ct_search.audit) */
	const struct ct_search *search;
	const struct ct_request *request; /* the dlopen that loaded it */
	/*
	 * ps (a process read from /proc): mapped, but not by the start-up
	 * the loader model replays: loaded at run time (a dlopen, or what
	 * one brought in), by a rule /proc does not say (via unknown);
	 * name_via and name_path: a dlopen of its soname from the program
	 * finds this same file there, by that rule (CT_RULE_UNKNOWN and
	 * NULL: it does not).
	 */
	bool run_time;
	enum ct_rule name_via;
	const char *name_path;
};

struct ct_search {
	int64_t id, t, tid;
	const char *name, *by;
	struct ct_try *tries;
	size_t ntries;
	struct ct_loaded *found;     /* NULL when nothing was opened */
	bool already_loaded;         /* a candidate was a file already mapped */
	struct ct_request *request;  /* the dlopen behind it, if any */
	/*
	 * Its thread wrote nothing after it (its tries aside): the trace ends
	 * before the loader's answer (ct_search_unknown says what that means).
	 */
	bool unsettled;
	/* Records were lost before its thread wrote again: its answer may be among them. */
	bool in_doubt;
	/*
	 * Made before the program's own open record: the loader setting up
	 * another auditor named in LD_AUDIT after cudatrace's (or a second
	 * copy of it), in that auditor's namespace. Not the program's; its
	 * search for the loader itself is answered without an open.
	 */
	bool audit;
};

struct ct_request {
	const char *api, *name, *caller, *error;
	int64_t flags, t, tid, lmid;
	bool noload;
	struct ct_search *search;    /* NULL: satisfied by a loaded object */
};

/* One image of a module record, as the shim read it (cudatrace scan's words). */
struct ct_image_rec {
	const char *kind;            /* "sass", "ptx", ...; NULL when absent */
	const char *arch;            /* "sm_90a", "compute_80"; NULL when absent */
	const char *ptx_version;     /* "8.0" for PTX; NULL when absent */
};

struct ct_module {
	const char *api, *caller, *file, *input, *name;
	int64_t result, t;
	const struct ct_image_rec *images; /* in the arena, shared (intern.h); an entry per array item */
	size_t nimages;
	/*
	 * Where the image is, when it lives in a file the process mapped: that
	 * file and the image's offset in it (-1 when not recorded), its size
	 * when the call gave one (else -1). The report reads it from the file.
	 */
	const char *object;
	int64_t offset, size;
	bool registration;           /* __cudaRegisterFatBinary, not a load */
};

/* A GPU of a driver record's devices. */
struct ct_gpu_rec {
	int64_t index;               /* the driver's ordinal; its position when absent */
	const char *name;            /* "Tesla T4"; NULL when absent */
	const char *cc;              /* compute capability "7.5"; NULL when absent */
	const char *uuid;            /* NULL when absent */
};

/* The latest driver record of a process. */
struct ct_driver_rec {
	bool present;                /* a driver record was read */
	const char *path;            /* the libcuda it is; NULL when absent */
	int64_t version;             /* cuDriverGetVersion: 12040; 0 when absent */
	bool has_devices;            /* it listed devices (written after cuInit) */
	struct ct_gpu_rec *gpus;     /* in the arena */
	size_t ngpus;
};

/* A name and its value: an env or ranks member of the start record. */
struct ct_var {
	const char *name;
	const char *value;           /* NULL when the trace held no string */
};

struct ct_exec {
	const char *api, *path, *untraced;
	bool traced;
	bool no_auditor;             /* traced through LD_PRELOAD alone */
	bool failed;                 /* an exec_failed record followed: the call returned */
	const char *dir;             /* traced into this other folder (a cudatrace run
					inside this one); NULL: this one */
	int64_t t;
};

/*
 * The last CUDA record of a process, in the order it wrote them: the load,
 * search or dlopen of one of CUDA's libraries (ct_cuda_library), a module
 * load or fatbin registration, cuInit (with the driver record it brings),
 * the driver's first use.
 */
enum ct_cuda_event {
	CT_CUDA_EV_NONE,
	CT_CUDA_EV_OPEN,             /* objects[index] */
	CT_CUDA_EV_SEARCH,           /* searches[index] */
	CT_CUDA_EV_DLOPEN,           /* requests[index] */
	CT_CUDA_EV_MODULE,           /* modules[index] */
	CT_CUDA_EV_CUINIT,           /* the process's cuinit */
	CT_CUDA_EV_DRIVER,           /* the driver record, before any cuInit */
};

/* The mapped files left out of a process read from /proc that it names. */
#define CT_PROC_LEFT_OUT_NAMED 4

struct ct_proc {
	const char *file;            /* the trace file */
	bool started;                /* a start record was read */
	int64_t pid, ppid, t;
	const char *host, *image, *exe, *cwd;
	const char *run;             /* the run of cudatrace it belongs to (1 to 32 hex
					digits); NULL: none (an older shim, or not run
					by cudatrace run) */
	const char **argv;           /* the strings of the start record's argv */
	size_t argc;
	struct ct_var *env;          /* the variables that shape loading */
	size_t nenv;
	struct ct_var *ranks;        /* the launcher's rank variables */
	size_t nranks;
	bool auditor;                /* the auditor half ran (LD_AUDIT honoured) */
	bool secure;
	bool fini;                   /* ran the normal exit path */
	bool exited;                 /* an exit record (status below) */
	int64_t exit_status;
	const char *exit_api;
	bool reached_main;
	/*
	 * Its last switch of user or root (a switch record: "setuid",
	 * "setresuid", "chroot"...), NULL: none; the user it became, or the
	 * new root; and whether the trace ends with it (nothing could be
	 * written after it).
	 */
	const char *switch_api;
	int64_t switch_uid;
	const char *switch_path;
	bool switch_last;
	struct ct_proc *parent;      /* the traced process that started it */
	bool forked;                 /* a fork of the parent (same image) */
	/*
	 * A fork known by its image alone: no traced process of its image has
	 * its ppid (its parent had exited, as a daemon's does after fork,
	 * setsid, fork), so parent is its image's first process, an ancestor.
	 */
	bool fork_by_image;
	struct ct_proc *next_image;  /* the traced image it exec'd (same pid), or NULL */
	const struct ct_run *launched; /* the run record of the cudatrace run that started
					it (the last image of that pid), or NULL */
	const struct ct_run *run_rec; /* the run record of its run (every process of the
					run has it: its job), or NULL */
	const char *untraced;        /* not traced at all: a process made from its run
					record (no file, no start record), and why it could
					not be traced ("static"); NULL: traced */
	int64_t owner;               /* the user who owns its trace file (who wrote it:
					no other user can make a file theirs), or its run
					record's when made from it; -1: not from a file
					(ps). Its run is its run id and this user */
	bool job_shared;             /* its job's id is named by the runs of several
					users too (job_notes): its rank is a rank of one
					user's job, not of the job the id names */
	/*
	 * Its rank's runs are attempts (attempts_known): torchrun's elastic
	 * agent started that rank again after the run before it ended
	 * (restarts.c). attempt counts from 0; superseded: a later attempt
	 * of its rank followed (the agent stopped it, or it failed).
	 */
	bool attempts_known;
	size_t attempt;
	bool superseded;
	enum ct_cuda_event last_cuda; /* its last CUDA record, and which one */
	size_t last_cuda_index;
	size_t records;              /* records read from its file */
	size_t bad_lines;            /* lines that are not trace records: not JSON,
					or a field of the wrong type */
	bool cut;                    /* the last line was cut short */
	unsigned long dropped;       /* records the shim could not write */
	bool stopped;                /* tracing stopped for good (a dropped record says) */
	int64_t stop_errno;          /* why, as the shim's errno (28: ENOSPC); 0: not said */
	/*
	 * stopped, though no record says so: cudatrace run waited for it and
	 * it exited, after main, yet its trace has no exit record (nor fini,
	 * nor exec): the shim could no longer write it (ct_trace_link).
	 */
	bool stop_unsaid;
	size_t bad_values;           /* values refused: a negative or absurd count */
	const char *limit;           /* the first limit the file went past, in words
					("a line is longer than 1 MiB"); NULL: none */
	size_t limited;              /* lines left out by a limit (those read past it) */

	struct ct_loaded *objects;
	size_t nobjects;
	struct ct_search *searches;
	size_t nsearches;
	struct ct_request *requests;
	size_t nrequests;
	struct ct_module *modules;
	size_t nmodules;
	struct ct_exec *execs;
	size_t nexecs;
	struct ct_driver_rec driver; /* the latest driver record */
	int64_t cuinit;              /* last cuInit result, or -1 */
	size_t ncuinit;
	/*
	 * Read from /proc while it runs (cudatrace ps, procs.h), not from a
	 * trace: it has not ended; its objects are the files it maps, in
	 * address order; proc_unverified mapped files were left out, since
	 * what is at their paths now is not what it mapped (the first
	 * CT_PROC_LEFT_OUT_NAMED of them in proc_left_out); it lives in
	 * another mount namespace than cudatrace (proc_other_mnt: a
	 * container, where its paths name other files); its maps went past
	 * a limit (proc_limit, in words; NULL: none) and proc_limited
	 * mappings were left out; its environment could not be read
	 * (proc_env_unread); the user owning it.
	 */
	bool running;
	/*
	 * A traced process with no record of its end whose pid still runs
	 * here as the same process (ct_trace_find_running): no exit record yet.
	 */
	bool still_running;
	/*
	 * ps asked the machine's driver itself (ct_proc_set_driver): the
	 * process's own cuInit is not in /proc. cuinit_probed: cudatrace
	 * asked the very driver file the process maps, and cuinit (when
	 * ncuinit) is cudatrace's cuInit of it;
	 * driver_unasked: that file could not be asked (cudatrace's own
	 * libcuda.so.1 is another file, or none), its GPUs are not known.
	 */
	bool cuinit_probed;
	bool driver_unasked;
	size_t proc_unverified;
	const char *proc_left_out[CT_PROC_LEFT_OUT_NAMED];
	bool proc_other_mnt;
	const char *proc_limit;
	size_t proc_limited;
	bool proc_env_unread;
	int64_t proc_uid;
};

/*
 * What the report says of the jobs of a trace beyond counting them
 * (ct_trace_link): one job id named by the runs of several users (each
 * user's runs are a job of their own: anyone who may write to a shared
 * folder can name a job), or one rank of a job claimed by several of its
 * runs on one host (two runs of one job in the folder: a requeued job, a
 * forged one), or a job whose ranks torchrun's elastic agent restarted.
 */
enum ct_job_note_kind {
	CT_JOB_NOTE_USERS,           /* job, from: named by owners[0..nowners) */
	CT_JOB_NOTE_RANK,            /* rank of job on host, claimed by runs[0..nruns) */
	CT_JOB_NOTE_RESTART,         /* job restarted by torchrun's agent: attempts of
					ranks, in runs[0..nruns) */
};

struct ct_job_note {
	enum ct_job_note_kind kind;
	const char *job, *from;      /* the job id and the variable that named it */
	const char *host;            /* CT_JOB_NOTE_RANK: the host; NULL: not said */
	const char *rank;            /* CT_JOB_NOTE_RANK: the rank claimed */
	int64_t *owners;             /* the users, ascending (CT_JOB_NOTE_RANK: the one
					whose job it is) */
	size_t *owner_runs;          /* the runs of each user */
	size_t nowners;
	const char **runs;           /* the run ids, ascending, each once */
	size_t nruns;
	size_t attempts, ranks;      /* CT_JOB_NOTE_RESTART: the most attempts of a rank,
					and the job's ranks */
};

struct ct_trace {
	struct ct_proc *procs;       /* ordered by start time */
	size_t nprocs;
	struct ct_run *runs;         /* the run records read (of only_run, when set) */
	size_t nruns;
	struct ct_job_note *job_notes; /* made by ct_trace_link; owned, its lists in arena */
	size_t njob_notes;
	size_t bad_files;            /* files that held no record at all */
	size_t unstarted_files;      /* files left out: records, but no start record
					(the shim writes one first in every file) */
	bool only_owner;             /* read only files owned by owner (set before reading) */
	bool one_link;               /* read only files with one link, as the shim's
					(set before reading): a hard link planted in a
					folder is a file made elsewhere */
	uid_t owner;
	size_t foreign_files;        /* files left out: another user's */
	bool foreign_said;           /* the command said them already: not again in the text */
	const char *only_run;        /* read only the processes of this run (a run id, or
					CT_TRACE_RUN_UNKNOWN); NULL: all. Borrowed; set
					before reading */
	const char *only_job;        /* keep only the processes of the runs in this job
					(ct_run_in_job); NULL: all. Borrowed; set before
					ct_trace_link, which leaves the others out */
	size_t other_run_files;      /* files left out: another run's (or job's) */
	size_t duplicate_files;      /* files left out: the same process as another file
					(the same folder given twice, a copy of a file) */
	size_t records_max;          /* the records in all (set before reading); 0:
					CT_TRACE_RECORDS_MAX. Tests lower it */
	size_t threads;              /* threads that read files (set before reading):
					0: ct_threads(8), CUDATRACE_THREADS or the
					processors; the trace read is the same */
	size_t nrecords;             /* records read, every file (CT_TRACE_RECORDS_MAX) */
	uint64_t nbytes;             /* bytes read, every file (CT_TRACE_BYTES_MAX) */
	struct ct_arena arena;
	struct ct_intern strings;    /* the records' strings, each kept once, in arena */
	struct ct_trace_stat *stats; /* the file system asked once per path (searches.c) */
};

/* The name of the run of processes without a run id (which no run id can be). */
#define CT_TRACE_RUN_UNKNOWN "unknown"

void ct_trace_init(struct ct_trace *t);
void ct_trace_release(struct ct_trace *t);

/*
 * ps: the driver a running process maps (its libcuda file), judged by
 * the machine's driver as ct_driver_probe asked it (gpu.h). same: the
 * probe opened that very file; then its cuInit is the process's as a run
 * would record it (cuinit_probed), and a failed cuInit stands. A probe
 * of another file lends its version and GPUs only when its cuInit worked
 * (the machine's GPUs); else, as when no probe opened a driver, the
 * driver is named and nothing more is known (driver_unasked). Nothing
 * when p maps no libcuda or has a driver record already.
 */
struct ct_driver_probe;
void ct_proc_set_driver(struct ct_trace *t, struct ct_proc *p,
			const struct ct_driver_probe *probe, bool same);

/*
 * Read every *.jsonl file in dir (not recursive) into t, and every run
 * record (*.run.json); called again for more directories, the total limit
 * counts them all. The files are read by t->threads threads and counted
 * in the order of their names: t is what one thread reading them in that
 * order makes. Returns 0, or -1 with a message in why and errno set when
 * the directory cannot be read. Files and lines that are not trace records are
 * counted, not fatal; a run record that cannot be read is left out.
 */
int ct_trace_read_dir(struct ct_trace *t, const char *dir, char *why,
		      size_t size);

/*
 * Add what a run record says, as reading its file does (r and its strings
 * are copied): a run already added (the same run id and owner) is kept as
 * it was, and under only_run another run's is left out. A program that could not
 * be traced (untraced, with its pid) becomes a process of its own, made
 * from the record: it has no file and no start record. Call before
 * ct_trace_link.
 */
void ct_trace_add_run(struct ct_trace *t, const struct ct_run *r);

/*
 * Is run r in the job a user names id (report --job)? The job its record
 * names ("123.0", torchrun's or PMIx's id), the Slurm job that one is a
 * step of ("123": the job sbatch printed, with all its steps), the Slurm
 * job around an mpirun or torchrun (job_in), the array sbatch --array
 * printed (job_array) or one task of it as Slurm names it ("120_2").
 */
bool ct_run_in_job(const struct ct_run *r, const char *id);

/*
 * Join processes to their parents, the images they exec'd and the run
 * records that started them (a record only to processes of its owner);
 * note what the jobs hold (job_notes); call once after reading. A
 * process whose run record says it exited but whose trace stops before
 * its exit path is marked stopped (ct_proc_mark_cut).
 */
void ct_trace_link(struct ct_trace *t);

/*
 * Mark p stopped (stopped, stop_unsaid) when cudatrace run reaped it as
 * exited after it reached main, yet its records stop before its exit
 * path: no fini or exit record, no exec, nothing else that explains the
 * end (a switch of user that its trace ends with). Called by
 * ct_trace_link once p->launched is known.
 */
void ct_proc_mark_cut(struct ct_proc *p);

/*
 * Processes of t with no record of their end (no exit, fini or exec
 * record, nor a run record's status) that still run on this machine:
 * their host is this one, and their pid is alive, not a zombie, started
 * (/proc/PID/stat) after their run began (their run record's time: a run
 * record is needed) and no later than their first record. A pid used
 * again since started later than that, so it is never taken for them.
 * Sets still_running; call after ct_trace_link. Reads /proc only.
 */
void ct_trace_find_running(struct ct_trace *t);

/*
 * How a process ended, as its records (and its run record) tell: its exit
 * status or signal when known; a process killed by a signal, or that left
 * without calling exit or _exit, or still runs, wrote no exit record.
 */
enum ct_end_kind {
	CT_END_EXIT,                 /* exited with status (an exit record, or its run's) */
	CT_END_RETURN,               /* ran the normal exit path (returned from main):
					its status is not recorded */
	CT_END_SIGNAL,               /* killed by signal (its run's record: waitpid) */
	CT_END_EXEC,                 /* replaced itself by exec: the new program is exec */
	CT_END_NO_RECORD,            /* no exit record: killed by a signal, or left
					without exit or _exit, or still running */
	CT_END_UNKNOWN,              /* its trace lost records: cannot tell */
	CT_END_RUNNING,              /* read from /proc while it runs (cudatrace ps), or a
					traced process that still runs (still_running) */
};

struct ct_ending {
	enum ct_end_kind kind;
	int64_t status;              /* CT_END_EXIT */
	int64_t signal;              /* CT_END_SIGNAL */
	const struct ct_exec *exec;  /* CT_END_EXEC; borrowed from the process */
};

/* How p ended (after ct_trace_link). */
void ct_proc_ending(const struct ct_proc *p, struct ct_ending *e);

/* Did p end badly: killed by a signal, or without an exit record? */
bool ct_ending_abnormal(const struct ct_ending *e);

/*
 * Does the trace tell whether a search that opened nothing found nothing?
 * Not when records were lost before its answer was written (the open may
 * be among them), nor when the trace ends before the answer and the way
 * the process ended does not say the loader gave up (a process killed, or
 * whose trace stops, while the loader searched). A loader that fails at
 * start-up ends the process without an exit record or with status 127:
 * that miss is known.
 */
enum ct_search_known {
	CT_SEARCH_KNOWN,             /* found, or known not found */
	CT_SEARCH_LOST,              /* records were lost before its answer (in_doubt) */
	CT_SEARCH_INTERRUPTED,       /* the process ended (or its trace stopped) mid-search */
	CT_SEARCH_AUDITOR,           /* another auditor's own load, not the program's (audit) */
};
enum ct_search_known ct_search_known(const struct ct_proc *p, const struct ct_search *s);

/* The run p belongs to: its run id, or CT_TRACE_RUN_UNKNOWN. */
const char *ct_proc_run(const struct ct_proc *p);

/*
 * How many runs the processes of t belong to: a run is a run id and the
 * user who owns the files (those without a run id are one run of each
 * user, CT_TRACE_RUN_UNKNOWN); 0 when there is no process.
 */
size_t ct_trace_runs(const struct ct_trace *t);

/*
 * The job p's run was one rank of (its run record's job, job.h), or NULL;
 * *from (when from is not NULL) gets the variable that named it.
 */
const char *ct_proc_job(const struct ct_proc *p, const char **from);

/*
 * How many jobs the processes of t belong to: the runs of one user that
 * share a job (the same id from the same variable, whatever their hosts)
 * are one, a run outside any job is one of its own; 0 when there is no
 * process. At most ct_trace_runs. The runs of several users that name one
 * job are a job for each user (job_notes says it).
 */
size_t ct_trace_jobs(const struct ct_trace *t);

/* How many hosts the processes of t ran on (those that name one). */
size_t ct_trace_hosts(const struct ct_trace *t);

/*
 * The entries of LD_AUDIT (as the start record kept it) other than the
 * first copy of cudatrace's shim: other auditors, and a second copy of the
 * shim (a cudatrace run inside another). Into buf, ":"-separated, "" when
 * none; returns buf.
 */
const char *ct_proc_other_auditors(const struct ct_proc *p, char *buf, size_t size);

/* The value of an environment variable the start record kept, or NULL. */
const char *ct_proc_env(const struct ct_proc *p, const char *name);

/*
 * The process's rank under the launcher that named its run's job
 * (jobs.def: SLURM_PROCID under Slurm, PMIX_RANK under PMIx, RANK under
 * torchrun), else under the innermost launcher that says one; or NULL.
 * After ct_trace_link (the run record names the job).
 */
const char *ct_proc_rank(const struct ct_proc *p);

/*
 * "python3 train.py --epochs 3" into buf, the program by its base name,
 * cut to width characters with "..." when longer; the values of secret
 * options and URL credentials masked (mask.h), since it is shown.
 */
void ct_proc_command(const struct ct_proc *p, char *buf, size_t size, size_t width);

/*
 * A search's candidates folded by directory: each directory with the
 * glibc-hwcaps and legacy subdirectories tried before it. dir is not
 * NUL-terminated at dir_len (a view into the last candidate's path).
 */
struct ct_try_run {
	const char *dir;
	size_t dir_len;
	enum ct_rule via;
	size_t nsubdirs;
};

/* The runs of tries[0..n), in the loader's order; *nruns of them, to free. */
struct ct_try_run *ct_try_runs(const struct ct_try *tries, size_t n, size_t *nruns);

/* "sm_80 sm_90 compute_90" from a module's images, each once ("?" unknown); into buf. */
void ct_images_words(const struct ct_module *m, char *buf, size_t size);

#endif

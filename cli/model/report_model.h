/*
 * The report model: everything the report of run, report, ps PID and diff
 * says, worked out once, below the printers, from the trace, the machine's
 * loader model and the diagnosis (report_model.c and the model_*.c files
 * it calls); or read back from a report --json document (model_read.c).
 * The views (cli/render/) read it and nothing else: they lay out lines,
 * they judge nothing, open no file and walk no trace (STYLE.md, Layers).
 *
 * It is plain data: numbers, enums, arrays, and strings, each in words as
 * a view prints it (escaping aside: strings from the outside world are
 * escaped where they are printed). The JSON view writes it out field for
 * field (docs/schema/report.schema.json), so what the JSON says is what
 * the model holds.
 *
 * Ownership: struct ct_report_model owns everything reachable from it:
 * its strings live in its store (an arena, each string kept once), its
 * arrays too; its findings are its own (moved out of the diagnosis, the
 * rules' state freed). No pointer into the
 * trace, the diagnosis, the loader model or elfscan's structures is
 * kept: the model outlives all of them. ct_report_model_release frees it
 * all. Not thread-safe.
 */
#ifndef CT_REPORT_MODEL_H
#define CT_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "targets.h"

struct ct_trace;
struct ct_loader;
struct ct_rm_store;

/* ---- one process's library tree (the text's) --------------------------------- */

/*
 * A line of the tree: a library under the object that asked for it, in
 * the words of its brackets, each a piece the view prints as it is.
 */
struct ct_rm_node {
	const char *path;
	const char *how;         /* "dlopen, ": the request's API, or "" */
	const char *rule;        /* the loader rule in words */
	const char *what;        /* ", 'libx.so.12' is libx.so.13, renamed", or "" */
	const char *version;     /* its version, "" when not said (a bare major) */
	bool other_namespace;
	size_t times;            /* loaded this many times under its asker */
	bool failed_dlopen;      /* unloaded: the dlopen that loaded it failed */
	const char *also;        /* "; its name ... finds it too, ...", or "" */
	/* Is, or brought, what a finding is about: shown past the default's budget. */
	bool leads;
	/* The nodes below it follow it (preorder): its subtree ends before this index. */
	size_t end;
};

/* An object whose asker is not in the trace (another namespace, a preload). */
struct ct_rm_also {
	const char *path, *rule, *also;
};

enum ct_rm_tree_state {
	CT_RM_TREE_NONE,         /* no CUDA library loaded */
	CT_RM_TREE_PARTIAL,      /* none among the files ps could read: partial says why */
	CT_RM_TREE_SHOWN,        /* main, nodes, also */
};

struct ct_rm_tree {
	enum ct_rm_tree_state state;
	const char *partial;     /* "its maps was not read in full", "some were left out" */
	const char *main;        /* the program's path */
	struct ct_rm_node *nodes; /* preorder, depth first, at most 32 levels */
	size_t nnodes;
	struct ct_rm_also *also;
	size_t nalso;
};

/*
 * The rows of a process's arch matrix the default report shows whole;
 * past them it turns brief (struct ct_rm_matrix).
 */
#define CT_REPORT_MATRIX_ROWS 6

/* ---- device code --------------------------------------------------------------- */

/* What an arch column of the matrix holds for an object: S, P, S+P, -. */
enum ct_rm_mark { CT_RM_MARK_NONE, CT_RM_MARK_SASS, CT_RM_MARK_PTX, CT_RM_MARK_BOTH };

/* What the driver runs of an object on a target, in the matrix's words. */
enum ct_rm_runs {
	CT_RM_RUNS_NONE,         /* "none" */
	CT_RM_RUNS_SASS,         /* "SASS" */
	CT_RM_RUNS_PTX,          /* "PTX (JIT)" */
	CT_RM_RUNS_PTX_TOO_NEW,  /* "none (PTX too new for the driver)" */
};

/* A row of the matrix: a file with device code, once however often loaded. */
struct ct_rm_row {
	const char *name;        /* its file name */
	unsigned char *marks;    /* per column (enum ct_rm_mark) */
	unsigned char runs[CT_MAX_TARGETS]; /* per target (enum ct_rm_runs) */
	bool sass_everywhere;    /* SASS for every target */
	bool brief;              /* among the rows the brief form shows */
};

/*
 * The arch matrix of a process: a column per arch with SASS or PTX in its
 * files (sorted, at most 64), a row per file. The brief form (more rows
 * than CT_FACTS_MATRIX_ROWS, no -v) counts the rows with SASS for every
 * target (good) and shows the first few others (brief).
 */
struct ct_rm_matrix {
	unsigned *archs;
	size_t narchs;
	struct ct_rm_row *rows;
	size_t nrows;
	size_t good;
	size_t nbrief;
};

/* The image the driver picks in a file for one target (JSON's verdicts). */
struct ct_rm_verdict {
	const char *target;      /* "sm_90" */
	const char *verdict;     /* "sass", "ptx-jit", "no-image" */
	const char *image;       /* "sm_90", "compute_80"; NULL: none */
};

/* A file's device code as JSON says it: the same for every process that loads it. */
struct ct_rm_code {
	uint64_t images;
	const char *sass, *ptx, *ltoir; /* archs in words, "none" */
	struct ct_rm_verdict *verdicts;
	size_t nverdicts;
};

struct ct_rm_object_code {
	const char *object;      /* its path */
	const struct ct_rm_code *code;
};

/* ---- failed loads (the text's) ----------------------------------------------- */

/* One way a library was missed: how, by whom (a file name), how many times. */
struct ct_rm_way {
	const char *how, *by;
	size_t times;
};

/* The misses of one name, in the order first seen. */
struct ct_rm_miss {
	const char *name;
	const char *refused, *refused_words; /* the file the loader refused, or NULL */
	struct ct_rm_way *ways;
	size_t nways;
};

enum ct_rm_auditors { CT_RM_AUDITORS_NONE, CT_RM_AUDITORS_SHIM_TWICE, CT_RM_AUDITORS_OTHER };

struct ct_rm_failures {
	struct ct_rm_miss *misses;
	size_t nmisses;
	size_t probes;           /* RTLD_NOLOAD probes that found nothing */
	size_t optional;         /* DT_AUXILIARY entries not found */
	size_t unanswered;       /* searches whose answer is not in the trace */
	enum ct_rm_auditors auditors;
	const char *other_auditors; /* CT_RM_AUDITORS_OTHER: LD_AUDIT's other entries */
};

/* ---- the driver and module loads --------------------------------------------- */

struct ct_rm_gpu {
	int64_t index;
	const char *name, *cc, *uuid; /* NULL: not recorded */
};

struct ct_rm_driver {
	bool present;            /* a driver record (JSON's "driver" is null without) */
	const char *path;        /* NULL: not recorded */
	int64_t version;         /* 13000; 0 when not recorded */
	size_t ncuinit;          /* cuInit calls recorded */
	int64_t cuinit;          /* the last one's result */
	const char *cuinit_words; /* "ok", or the error in words */
	bool probed;             /* ps: cudatrace's own cuInit of the same file */
	bool unasked;            /* ps: the file could not be asked */
	const char *asked;       /* ps (JSON): "no", "same-file", "machine"; NULL: not ps */
	struct ct_rm_gpu *gpus;
	size_t ngpus;
};

struct ct_rm_module {
	const char *api;         /* "cuModuleLoadData"; "__cudaRegisterFatBinary" for one */
	bool registration;       /* a fatbin registered, not loaded: no result */
	const char *caller;      /* a path */
	const char *caller_name; /* its file name, for the text */
	const char *file;        /* NULL: loaded from memory */
	int64_t result;
	const char *result_text, *result_name; /* CUresult in words, its name */
	const char *images;      /* archs in words ("" none known); JSON's "none" */
	const char *images_text; /* the same, as the text has room for (255 bytes) */
};

/* ---- how a process ended -------------------------------------------------------- */

/* "not traced further: execve /x (why)" */
struct ct_rm_exec {
	const char *api, *path, *why;
};

/* "  end: HOW AFTER" (and no_record: what no exit record can mean). */
struct ct_rm_end {
	const char *how, *after;
	bool no_record;
};

/* ---- a process --------------------------------------------------------------- */

/* What a process is to the report's reader (roles.h), and whether the text shows it. */
enum ct_rm_show {
	CT_RM_QUIET,             /* no CUDA activity: counted */
	CT_RM_WRAPPER,           /* on the way to the program: counted with the wrappers */
	CT_RM_SHOWN,             /* shown whole */
	CT_RM_FOLDED,            /* shown, but like one shown before (no -v): counted */
};

/* How a process came from the one before it, in its heading. */
enum ct_rm_relation {
	CT_RM_REL_NONE,
	CT_RM_REL_EXEC,          /* "(exec'd by NAME)" */
	CT_RM_REL_DESCENDS,      /* "(descends from PID by fork)" */
	CT_RM_REL_FORK,          /* "(fork of PID)" */
	CT_RM_REL_STARTED,       /* "(started by PID)" */
};

/* A library as JSON lists it. */
struct ct_rm_lib {
	const char *name, *path, *soname;
	const char *found_via;   /* a rule id; NULL: not recorded */
	const char *requested_by, *api;
	bool run_time;           /* ps: loaded after start-up (found_by_name said) */
	const char *name_via, *name_path; /* what its name finds (name_via NULL: nothing) */
	bool cuda;
	const char *version;     /* CUDA libraries: read from the file; else NULL */
	bool closed;
};

struct ct_rm_try {
	const char *path, *via;  /* via: a rule id, "" when not recorded */
};

/* A library searched and not found, as JSON lists it. */
struct ct_rm_not_found {
	const char *name, *requested_by, *api, *error;
	struct ct_rm_try *tried;
	size_t ntried;
};

struct ct_rm_var {
	const char *name, *value; /* value masked (mask.h); NULL: not a string */
};

struct ct_rm_proc {
	int64_t pid;
	bool has_ppid;           /* a process made from its run record has none */
	int64_t ppid;
	const char *host, *run, *job, *exe;
	const char *rank;        /* under the launcher that named its job; NULL: none */
	bool has_attempt;        /* its rank ran again (torchrun's agent restarted the job): */
	int64_t attempt;         /* which of its rank's runs it is, from 0 */
	int64_t uid;             /* -1: not from a file (ps) */
	enum ct_rm_show show;
	bool wrapper;
	/* The variables that shape loading (not cudatrace's own), masked; argv masked. */
	struct ct_rm_var *env;
	size_t nenv;
	const char **argv;
	size_t argc;
	bool has_exit_status, has_signal;
	int64_t exit_status, signal;
	bool still_running;
	const char *untraced;    /* why it was not traced ("static"); NULL: traced */
	/* ps: read from /proc, and what was left out. */
	bool read_from_proc;
	uint64_t proc_unverified, proc_limited;
	bool proc_other_mnt;
	const char *proc_limit;
	/*
	 * Its facts as JSON says them (libraries, not found, variables, device
	 * code, every module): every process's in a model built for JSON (or
	 * read back). Else only a process the text shows whole has its driver
	 * and its module loads (modules: the loads alone, registrations
	 * counted in nregistrations).
	 */
	bool has_facts;
	bool has_env;            /* its variables are known (a report of an older cudatrace: no) */
	struct ct_rm_lib *libs;
	size_t nlibs;
	struct ct_rm_not_found *not_found;
	size_t nnot_found;
	struct ct_rm_driver driver;
	struct ct_rm_module *modules;
	size_t nmodules;
	struct ct_rm_object_code *code;
	size_t ncode;

	/* The text's, for a process it shows whole (CT_RM_SHOWN); a model read back has none. */
	const char *command;     /* "python3 train.py", cut to 72 characters */
	const char *heading_host; /* named when the report spans hosts; else NULL */
	bool heading_uid;        /* the report spans users: its uid said */
	enum ct_rm_relation relation;
	int64_t parent_pid;
	const char *parent_name; /* CT_RM_REL_EXEC: the parent's program, its file name */
	const char *untraced_words; /* why not traced, in words */
	struct ct_rm_tree tree;
	bool has_matrix;         /* device code was read (a diagnosis judged it) */
	struct ct_rm_matrix matrix;
	struct ct_rm_failures failures;
	size_t nregistrations;   /* fatbins registered through the runtime */
	struct ct_rm_exec *untraced_execs;
	size_t nuntraced_execs;
	unsigned long dropped;
	size_t bad_lines;
	bool cut;
	struct ct_rm_end end;
};

/* ---- the report --------------------------------------------------------------- */

enum ct_rm_job_note_kind { CT_RM_NOTE_USERS, CT_RM_NOTE_RANK, CT_RM_NOTE_RESTART };

/* How other ranks of an attempt ended: "killed by SIGTERM (signal 15)", and which. */
struct ct_rm_then {
	const char *how, *which;     /* which: "rank 0 on node1, ranks 2 and 3 on node2" */
};

/*
 * How one attempt of a restarted job ended: the rank whose end came first
 * (a failure before the agent's SIGTERMs), then how the others ended.
 */
struct ct_rm_attempt_end {
	size_t attempt;
	const char *rank, *host;     /* JSON's; host NULL: not recorded */
	const char *who;             /* "rank 1 on node1" (the host when the report spans hosts) */
	const char *how;             /* "exited with status 1", "was killed by SIGSEGV (signal 11)" */
	bool has_exit_status;
	int64_t exit_status, signal;
	struct ct_rm_then *then;     /* the attempt's other ranks that did not exit 0 */
	size_t nthen;
};

/* What the jobs hold beyond their count (trace.h, struct ct_job_note). */
struct ct_rm_job_note {
	enum ct_rm_job_note_kind kind;
	const char *job, *from, *host, *rank;
	int64_t *owners;
	size_t *owner_runs;
	size_t nowners;
	const char **runs;
	size_t nruns;
	/* CT_RM_NOTE_RESTART: the attempts of its ranks, how many, how each but the last ended. */
	size_t attempts, ranks;
	const char *restarted;       /* "once", "twice", "3 times" */
	struct ct_rm_attempt_end *ends;
	size_t nends;
};

/*
 * A job whose ranks all ended by one signal, said once instead of a line
 * per process: "job 17 cancelled (SIGTERM) on 2 hosts, 4 ranks, after
 * loading libnccl.so.2 (...)".
 */
struct ct_rm_job_end {
	const char *job;             /* as the scheduler printed it: 17, not its step 17.0 */
	const char *how;             /* "cancelled (SIGTERM)", "killed by SIGSEGV (signal 11)" */
	const char *hosts;           /* "2 hosts", "node1" (one of several in the report),
					"1 host"; NULL: no host recorded */
	const char *ranks;           /* "4 ranks", "3 processes" (not all with a rank) */
	const char *after;           /* "after loading X (the last CUDA library each rank loaded)" */
};

/* A process that ended badly, in the verdict's words: "WHO [was ]HOW AFTER". */
struct ct_rm_abnormal {
	const char *who, *how, *after;
	bool was;                /* killed by a signal: "was killed by ..." */
	bool no_record;
};

/* A variable of the environment the trace kept (Markdown), and how many processes had it. */
struct ct_rm_env_line {
	const char *name, *value; /* value masked */
	size_t processes;
	bool counted;            /* said how many: values differ, or not every process has it */
};

struct ct_rm_finding_words {
	const char *code, *severity, *message, *object;
};

/* The folder's files that are no process of the report. */
struct ct_rm_left_out {
	size_t no_record, no_start, other_owner, other_run, duplicate;
	bool other_owner_said;   /* the command said them already: not again in the text */
};

struct ct_report_model {
	struct ct_rm_store *store; /* every string and array below (model_util.c) */
	bool from_json;          /* read back from a document: the text's parts are empty */
	bool all_facts;          /* every process has its facts (has_facts): JSON may write it */

	size_t runs, jobs;
	size_t hosts;            /* the hosts the processes ran on (those that name one) */
	size_t nprocs;
	struct ct_rm_proc *procs; /* in the trace's order */

	/* The verdict. */
	size_t untraced, read_from_proc, wrappers, shown, folded, quiet;
	/* Which processes were folded, by job, host and rank: "ranks 1 and 2 on node1". */
	const char *folded_where;
	const char *wrapper_words; /* "pyenv", "pyenv, conda and others" */
	const char **wrapper_names; /* at most CT_ROLE_NAMES */
	size_t nwrapper_names;
	const char *headline;    /* how the program ended, when badly; NULL: cleanly */
	struct ct_rm_job_end *job_ends; /* jobs whose ranks all ended by one signal */
	size_t njob_ends;
	struct ct_rm_abnormal *abnormal; /* the first few, but those job_ends says */
	size_t nabnormal, abnormal_more;
	const char **running;    /* "the program", "process 12 (x)": still running */
	size_t nrunning, running_more;
	struct ct_rm_job_note *job_notes;
	size_t njob_notes;

	/* The device: the GPUs recorded or --arch; device code judged when has_code. */
	char targets[CT_MAX_TARGETS][CT_TARGET_NAME]; /* "sm_90 (NVIDIA H100)" */
	size_t ntargets;
	bool targets_from_trace;
	bool has_code;           /* an object of the trace held device code */

	struct ct_findings findings;
	int worst;               /* enum ct_severity, or -1: none */
	/*
	 * What each finding says in a document's words, as diff compares
	 * them: its code, severity, message (masked, as shown) and object.
	 * A document of a newer cudatrace may hold a code findings.def does
	 * not: only its words are kept then.
	 */
	struct ct_rm_finding_words *finding_words;
	size_t nfinding_words;

	struct ct_rm_left_out files;
	struct ct_rm_env_line *env; /* Markdown's environment section (options.markdown) */
	size_t nenv;
};

struct ct_report_model_options {
	const struct elfscan_target *targets; /* --arch; NULL: the GPUs recorded */
	size_t ntargets;
	bool verbose;            /* -v: every process shown whole, none folded */
	/*
	 * Every process's facts, as the JSON view and diff read them; else
	 * (text, Markdown) only what the text prints of the processes it
	 * shows whole, which is what a job's report costs: one rank, not a
	 * thousand, and with -v no rank's libraries twice.
	 */
	bool json;
	/* The environment section Markdown prints (every process's variables, counted). */
	bool markdown;
	const struct ct_loader *machine; /* the machine judged on (ct_diagnose); borrowed */
};

/*
 * Build m from t: diagnose it (ct_diagnose, on o->machine), find each
 * process's role (roles.h) and work out everything the views print. t and
 * the machine are borrowed for the call only. Never fails (out of memory
 * ends the program, util.h); release m with ct_report_model_release.
 */
void ct_report_model_build(struct ct_report_model *m, const struct ct_trace *t,
			   const struct ct_report_model_options *o);
void ct_report_model_release(struct ct_report_model *m);

/*
 * Read a report --json document, parsed (jsonparse.h), into m, which then
 * holds what the JSON view writes (the text's parts empty, from_json
 * set). 0, or -1 with the reason in why: not a report of this major
 * (cudatrace.report/1), or one that says it could not read its traces. m
 * must be released either way.
 */
struct ct_jv;
int ct_report_model_read(struct ct_report_model *m, const struct ct_jv *doc, char *why,
			 size_t size);

/* How many models this process built (ct_report_model_build): a command builds one. */
unsigned long ct_report_model_builds(void);

#endif

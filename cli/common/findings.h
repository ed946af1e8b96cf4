/*
 * Findings: what cudatrace concludes, each with a code (findings.def), a
 * severity, a one-line message, a concrete fix and the evidence it rests
 * on, and where it was seen (processes, ranks, hosts). They are
 * vocabulary, not judging, so they live in cli/common/: the diagnosis
 * engine (cli/diagnose/) and doctor produce them, the report model
 * carries them, render/findings_out.c prints them. Depends on util.h only.
 *
 * Wording (DESIGN.md): lowercase-first messages, the subject quoted, no
 * jargon the user did not already see in their error.
 *
 * Ownership: struct ct_findings owns every finding and string in it;
 * ct_findings_release frees them. Not thread-safe.
 */
#ifndef CT_FINDINGS_H
#define CT_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ct_finding_code {
#define CT_FINDING(name, id, severity, title) CT_F_##name,
#include "findings.def"
#undef CT_FINDING
	CT_F_COUNT
};

enum ct_severity { CT_SEV_INFO = 0, CT_SEV_WARNING = 1, CT_SEV_ERROR = 2 };

/* One place a finding was seen. */
struct ct_where {
	int64_t pid;
	char *host;        /* or NULL */
	char *rank;        /* "3" from RANK/SLURM_PROCID/..., or NULL */
	char *job;         /* the job that rank is of ("4242.0"), or NULL: ranks are
			      counted per job, a folder holds many */
	char *program;     /* "python3 train.py", or NULL */
};

struct ct_finding {
	enum ct_finding_code code;
	enum ct_severity severity;
	char *object;      /* the object responsible (a path), or NULL */
	char *message;     /* one line */
	char *fix;         /* what to do: fix_lines joined by '\n' (JSON's "fix") */
	char **fix_lines;  /* its lines; a newline inside one is a value's, not a break */
	size_t nfix_lines;
	char **evidence;   /* the facts it rests on, one line each */
	size_t nevidence;
	struct ct_where *where;
	size_t nwhere;
	/*
	 * The places span several hosts (the report does): a finding seen on
	 * one host names it, since a pid or a rank number is on every host.
	 */
	bool name_hosts;
	/*
	 * One cause, one finding: findings with the same code, severity and
	 * cause (a key, NULL for none) merge into the first, which gathers
	 * every object that asked (needed_by) and every place. When more than
	 * one object asked, restate (if set) rewrites the message and the fix
	 * for all of them, from state (freed with state_free).
	 */
	char *cause;
	struct ct_asker *needed_by;
	size_t nneeded_by;
	/*
	 * lib-not-found: every library the failing load misses, the one the
	 * loader named first, then those it would have missed next (the
	 * loader stops at the first); empty for other findings. Merged like
	 * needed_by.
	 */
	struct ct_missing *missing;
	size_t nmissing;
	void (*restate)(struct ct_finding *f);
	void *state;
	void (*state_free)(void *state);
};

/* An object that needs what a finding is about, and how it asked. */
struct ct_asker {
	char *object;      /* a path */
	char *how;         /* "DT_NEEDED", "dlopen", "__nvJitLinkAddData_12_1 (version ...)", or NULL */
};

/* A library a failing load misses, and the object that needs it. */
struct ct_missing {
	char *name;        /* as asked (DT_NEEDED) */
	char *needed_by;   /* a path */
};

struct ct_findings {
	struct ct_finding *f;
	size_t n;
};

void ct_findings_init(struct ct_findings *fs);
void ct_findings_release(struct ct_findings *fs);

/*
 * Add a finding with its code's default severity and a message (printf
 * format). object may be NULL. Returns it, to add fix and evidence; the
 * pointer is valid until the next add.
 */
struct ct_finding *ct_finding_add(struct ct_findings *fs, enum ct_finding_code code,
				  const char *object, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Set the fix (replacing one set before) to one line; printf format. A
 * newline the arguments bring stays in the line, as data: only
 * ct_finding_fix_line starts another line of the fix.
 */
void ct_finding_fix(struct ct_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add a line to the fix ("or use ..."); printf format. */
void ct_finding_fix_line(struct ct_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append one line of evidence; printf format. */
void ct_finding_evidence(struct ct_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record where it was seen (strings copied; any may be NULL). */
void ct_finding_where(struct ct_finding *f, int64_t pid, const char *host,
		      const char *rank, const char *job, const char *program);

/* The cause that makes findings one (printf format); see struct ct_finding. */
void ct_finding_cause(struct ct_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add an object that asked (copied; a repeat of object and how is dropped). */
void ct_finding_needed_by(struct ct_finding *f, const char *object, const char *how);
/* Add a library the failing load misses (copied; a repeat is dropped). */
void ct_finding_missing(struct ct_finding *f, const char *name, const char *needed_by);
/* How many objects asked (each counted once). */
size_t ct_finding_askers(const struct ct_finding *f);
/*
 * The askers for a sentence: "a", "a and b", "a, b and c", "a, b and 4
 * more" (file names, not paths), into buf; returns buf.
 */
char *ct_finding_askers_words(const struct ct_finding *f, char *buf, size_t size);

/*
 * Merge findings that say the same thing (code, object, message, fix),
 * or that have one cause (ct_finding_cause), into one, with every place
 * they were seen and every object that asked; order: errors first, then
 * warnings, then information, each in first-seen order.
 */
void ct_findings_group(struct ct_findings *fs);

/* The worst severity, or -1 when there is none. */
int ct_findings_worst(const struct ct_findings *fs);

/* "code" and "error|warning|info" for JSON; the title for text. */
const char *ct_finding_id(enum ct_finding_code code);
const char *ct_finding_title(enum ct_finding_code code);
const char *ct_severity_name(enum ct_severity s);

/*
 * Where a finding was seen, in words: "process 4711: prog", "rank 3 on
 * node2 (process 4711)", "8 ranks on 2 hosts", "6 ranks of 3 jobs",
 * "rank 1 of 3 jobs on node2", "3 processes". Ranks are counted in each
 * job (a shared folder holds many, each with its rank 0); a host is
 * named when name_hosts says the report spans several. Into buf; returns
 * buf.
 */
char *ct_where_words(const struct ct_finding *f, char *buf, size_t size);

#endif

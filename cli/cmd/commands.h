/* The commands of cudatrace (cmd_*.c), called by main.c. */
#ifndef CT_COMMANDS_H
#define CT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "targets.h"

/* shared.c: the commands' messages, "cudatrace: <message>" on stderr. */
extern const char *ct_progname;
void ct_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Flush f and check that every write to it worked: 0, or -1 after saying
 * "cannot write 'name': <why>" (name NULL: "cannot write the output"; on
 * stderr itself nothing can be said). A failed output is never silent.
 */
int ct_cmd_flush(FILE *f, const char *name);
/*
 * The exit status of a command that returns rc, once its standard output
 * is flushed (main.c calls it after every command). A failed write makes
 * it CT_EXIT_BAD_INPUT (2); for run (program_status: rc is the program's),
 * only when the program's own status was 0, as its failure says more.
 */
int ct_cmd_exit(int rc, bool program_status);
/*
 * From now on, a file cut short while cudatrace reads it through a mapping
 * (a copy or build writing it in place: the next read past its new end is
 * a SIGBUS) ends cudatrace with one line naming the file, "cannot read
 * 'F': it was cut short while cudatrace read it ...", and status. run
 * calls it once the program is reaped, with the status it would return
 * (the program's, or 2), so that the program's dispositions are untouched;
 * main.c for the other commands, with CT_EXIT_BAD_INPUT. cleanup (NULL:
 * none) runs first, in the signal handler: async-signal-safe calls only
 * (run removes its private trace folder).
 */
void ct_cmd_guard_files(int status, void (*cleanup)(void));
/* ct_parse_targets (targets.h), saying why on stderr; 0 or -1. */
/*
 * scan's and check's closing line for the objects without device code a
 * directory or wheel held and that were not listed (n > 0).
 */
void ct_cmd_unlisted(size_t n);
/*
 * 0, or -1 after saying that cmd does not read standard input when one
 * of paths[0..n) is "-": users mean stdin by it, and a file of that name
 * is still ./-. Said instead of reporting a missing file named "-".
 */
int ct_cmd_no_stdin(const char *cmd, char *const *paths, size_t n);
/*
 * --color[=WHEN] (WHEN NULL: always, as ls and grep take it): sets the
 * colour mode (report.h, ct_colour_set). 0, or -1 after saying which
 * values there are. Every command takes it, whether it colours or not,
 * so that a script or alias may pass it to any.
 */
int ct_cmd_colour_option(const char *when);
/* getopt_long's entry for it (val CT_OPT_COLOR). */
#define CT_OPT_COLOR 0x100
#define CT_COLOR_OPTION { "color", optional_argument, NULL, CT_OPT_COLOR }
int ct_cmd_targets(const char *list, struct elfscan_target *targets,
		   char names[][CT_TARGET_NAME], size_t *n, size_t max);

struct ct_loader;
/*
 * The loader model of this machine (its loader's facts, ld.so.cache and
 * this environment, with a stand-in program) that run and report judge a
 * trace on. ct_loader_release frees it.
 */
void ct_machine_open(struct ct_loader *L);
/*
 * The same in two steps: ask starts the questions to this machine's
 * loader (processes of their own), open_asked waits for the answers, so
 * that a command reads its traces meanwhile. Every ask is opened.
 */
struct ct_platform_question;
void ct_machine_ask(struct ct_platform_question *q);
void ct_machine_open_asked(struct ct_loader *L, struct ct_platform_question *q);

int ct_cmd_run(int argc, char **argv);
int ct_cmd_scan(int argc, char **argv);
int ct_cmd_check(int argc, char **argv);
int ct_cmd_ldd(int argc, char **argv);
int ct_cmd_why(int argc, char **argv);
int ct_cmd_doctor(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);
int ct_cmd_ps(int argc, char **argv);
int ct_cmd_diff(int argc, char **argv);

/*
 * Read trace folders as report does (cmd_report.c): as root, only root's
 * files with one link unless trust_owner. 0, or -1 with why.
 */
struct ct_trace;
int ct_cmd_read_traces(struct ct_trace *t, char *const *dirs, int n, bool trust_owner, char *why,
		       size_t size);

/* What run, report and ps PID print of a trace, and how. */
struct ct_report_options {
	const struct elfscan_target *targets; /* --arch; NULL: the GPUs recorded */
	size_t ntargets;
	bool findings_only;  /* -q */
	bool verbose;        /* every line of evidence */
	bool colour;         /* ANSI colours in the text */
	bool markdown;       /* the text as Markdown, for an issue (markdown.h) */
	const char *home;    /* Markdown: the home directory, written ~; borrowed */
	const struct ct_loader *machine; /* the machine judged on (ct_diagnose); borrowed */
};

/*
 * The report of t (cmd_report.c): its model built once
 * (ct_report_model_build), then printed by every view asked: the text
 * (Markdown with o->markdown) to text, the JSON document to json; either
 * may be NULL. Returns the worst severity found (enum ct_severity), or -1
 * when there is no finding.
 */
int ct_cmd_print_report(const struct ct_trace *t, const struct ct_report_options *o, FILE *text,
			FILE *json);

#endif

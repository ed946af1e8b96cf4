/*
 * The report of run, report and ps PID, as views of the report model
 * (report_model.h, built once by the command): the text (the verdict
 * first, errors and warnings, then the findings with their fixes, then
 * the facts per process: facts.c), the same as Markdown for an issue, and
 * the JSON document {"version", "device", "processes", "findings"}
 * (report_json.c: the model written out). Each view reads the model and
 * nothing else; none judges, opens a file or walks a trace.
 */
#ifndef CT_REPORT_H
#define CT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

/* How the text and Markdown views lay the model out. */
struct ct_report_view {
	bool findings_only;  /* -q: the findings alone */
	bool verbose;        /* -v: every line of evidence, every line of a tree */
	bool colour;         /* ANSI colours in the text */
	const char *home;    /* Markdown: the home directory, written ~; borrowed */
};

/* The text report of m to out: verdict, findings, facts (or -q's findings alone). */
void ct_report_text(FILE *out, const struct ct_report_model *m, const struct ct_report_view *v);

/* The report of m as GitHub Markdown (markdown.h), to out. */
void ct_report_markdown(FILE *out, const struct ct_report_model *m,
			const struct ct_report_view *v);

/*
 * The JSON document of m (cudatrace.report/1) to out: m written out field
 * for field. m must hold every process's facts (built with json set, or
 * read back: all_facts).
 */
void ct_report_json(FILE *out, const struct ct_report_model *m);

/*
 * --color=WHEN: auto (the default: a terminal, and NO_COLOR unset or
 * empty), always (NO_COLOR too: an option given for this command wins
 * over the environment, as no-color.org asks), never. Set once by the
 * command, before printing; not thread-safe.
 */
enum ct_colour_mode { CT_COLOUR_AUTO, CT_COLOUR_ALWAYS, CT_COLOUR_NEVER };
void ct_colour_set(enum ct_colour_mode mode);
/* Colour for this stream, by the mode set (ct_colour_set). */
bool ct_want_colour(FILE *f);

/*
 * The report's JSON document when the traces could not be read (a folder
 * missing, unreadable, or holding none): the same fields, empty, and
 * "error", the message also said on stderr, so that --json always prints
 * one document.
 */
void ct_report_json_error(FILE *out, const char *error);

#endif

/*
 * The report of a trace, shared by `cudatrace run` and `cudatrace report`:
 * the verdict first (errors and warnings), then the findings with their
 * fixes, then the facts per process (facts.c); or all of it as one JSON
 * document {"version", "device", "processes", "findings"}.
 */
#ifndef CT_REPORT_H
#define CT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "diagnose.h"
#include "trace.h"

struct ct_loader;

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
 * Diagnose t and write the text report to text (NULL: none; Markdown
 * with o->markdown) and the JSON report to json (NULL: none). Returns the worst severity found
 * (enum ct_severity), or -1 when there is no finding.
 */
int ct_report(const struct ct_trace *t, const struct ct_report_options *o, FILE *text,
	      FILE *json);

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

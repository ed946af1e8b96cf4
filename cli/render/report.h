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

/* Colour for this stream: a terminal, and NO_COLOR unset. */
bool ct_want_colour(FILE *f);

/*
 * The report's JSON document when the traces could not be read (a folder
 * missing, unreadable, or holding none): the same fields, empty, and
 * "error", the message also said on stderr, so that --json always prints
 * one document.
 */
void ct_report_json_error(FILE *out, const char *error);

#endif

/* Findings (findings.h) as people and scripts read them. */
#ifndef CT_FINDINGS_OUT_H
#define CT_FINDINGS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"
#include "json.h"

/*
 * Print the findings, errors first: severity and code, message, the fix,
 * the evidence (verbose: all of it, else up to a few lines) and where.
 * colour: ANSI colours for the severity words.
 */
void ct_findings_print(FILE *out, const struct ct_findings *fs, bool colour, bool verbose);

/*
 * What a finding rests on, a line each after indent: the objects that
 * asked (when more than one did), then its evidence; the first few unless
 * verbose, then how many more. Part of what ct_findings_print prints.
 */
void ct_finding_evidence_print(FILE *out, const struct ct_finding *f, const char *indent,
			       bool verbose);

/* The findings as a JSON array: [{"code","severity","message","fix",
   "object","evidence":[...],"where":[{"pid","host","rank","program"}]}]. */
void ct_findings_json(struct ct_json *j, const struct ct_findings *fs);

/*
 * The verdict: "no problem found", or "2 errors, 1 warning (and 3 notes)",
 * without a newline; colour: ANSI colours for the severities.
 */
void ct_findings_tally(FILE *out, const struct ct_findings *fs, bool colour);

#endif

/* Findings as text and as JSON; see findings_out.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "findings_out.h"
#include "json.h"
#include "mask.h"
#include "text.h"

/* s as it may be shown or shared: credentials masked (mask.h). */
static const char *shown(const char *s, char **to_free)
{
	*to_free = s ? ct_mask_text(s) : NULL;
	return *to_free ? *to_free : s;
}

/*
 * The objects that asked, when more than one did (one cause, one
 * finding): a line each, the first few unless verbose.
 */
static void print_askers(FILE *out, const struct ct_finding *f, const char *indent, bool verbose)
{
	size_t k, n = verbose || f->nneeded_by <= 6 ? f->nneeded_by : 5;

	if (ct_finding_askers(f) < 2)
		return;
	for (k = 0; k < n; k++)
		ct_tprintf(out, "%s%s %s%s%s%s\n", indent, k ? "          " : "needed by:",
			   f->needed_by[k].object, f->needed_by[k].how ? " (" : "",
			   f->needed_by[k].how ? f->needed_by[k].how : "",
			   f->needed_by[k].how ? ")" : "");
	if (n < f->nneeded_by)
		ct_tprintf(out, "%s           (%zu more: --json or -v)\n", indent, f->nneeded_by - n);
}

void ct_finding_evidence_print(FILE *out, const struct ct_finding *f, const char *indent,
			       bool verbose)
{
	size_t k, shown_n = verbose || f->nevidence <= 12 ? f->nevidence : 10;
	char *m;

	print_askers(out, f, indent, verbose);
	for (k = 0; k < shown_n; k++) {
		ct_tprintf(out, "%s%s\n", indent, shown(f->evidence[k], &m));
		free(m);
	}
	if (shown_n < f->nevidence)
		ct_tprintf(out, "%s(%zu more lines: --json or -v)\n", indent, f->nevidence - shown_n);
}

/*
 * Each string of a finding is printed escaped (text.h): a message and a
 * line of evidence are one line each, so a newline in them is a trace
 * value's and shows as \n. The fix alone has lines of its own, kept apart
 * by the finding (fix_lines): each is escaped and indented under "fix:",
 * so a value's newline inside one shows as \n too.
 */
void ct_findings_print(FILE *out, const struct ct_findings *fs, bool colour, bool verbose)
{
	static const char *const colours[] = { "36", "33", "1;31" };
	size_t i, k;

	for (i = 0; i < fs->n; i++) {
		const struct ct_finding *f = &fs->f[i];
		char where[256], *m;

		ct_text_colour(out, colour, colours[f->severity]);
		ct_tprintf(out, "%s", ct_severity_name(f->severity));
		ct_text_colour(out, colour, "0");
		ct_tprintf(out, " %s: %s\n", ct_finding_id(f->code), shown(f->message, &m));
		free(m);
		ct_finding_evidence_print(out, f, "    ", verbose);
		for (k = 0; k < f->nfix_lines; k++) {
			ct_tprintf(out, "  %s %s\n", k ? "    " : "fix:", shown(f->fix_lines[k], &m));
			free(m);
		}
		if (f->nwhere)
			ct_tprintf(out, "  seen in %s\n", ct_where_words(f, where, sizeof(where)));
		if (i + 1 < fs->n)
			fputc('\n', out);
	}
}

static void json_shown(struct ct_json *j, const char *key, const char *s)
{
	char *m;

	if (key)
		ct_json_key(j, key);
	ct_json_string(j, shown(s, &m));
	free(m);
}

void ct_findings_json(struct ct_json *j, const struct ct_findings *fs)
{
	size_t i, k;

	ct_json_array_begin(j);
	for (i = 0; i < fs->n; i++) {
		const struct ct_finding *f = &fs->f[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "code", ct_finding_id(f->code));
		ct_json_kv_string(j, "severity", ct_severity_name(f->severity));
		json_shown(j, "message", f->message);
		json_shown(j, "fix", f->fix);
		ct_json_kv_string(j, "object", f->object);
		ct_json_key(j, "needed_by");
		ct_json_array_begin(j);
		for (k = 0; k < f->nneeded_by; k++) {
			ct_json_object_begin(j);
			ct_json_kv_string(j, "object", f->needed_by[k].object);
			ct_json_kv_string(j, "how", f->needed_by[k].how);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		if (f->nmissing) {
			ct_json_key(j, "missing");
			ct_json_array_begin(j);
			for (k = 0; k < f->nmissing; k++) {
				ct_json_object_begin(j);
				ct_json_kv_string(j, "name", f->missing[k].name);
				ct_json_kv_string(j, "needed_by", f->missing[k].needed_by);
				ct_json_object_end(j);
			}
			ct_json_array_end(j);
		}
		ct_json_key(j, "evidence");
		ct_json_array_begin(j);
		for (k = 0; k < f->nevidence; k++)
			json_shown(j, NULL, f->evidence[k]);
		ct_json_array_end(j);
		ct_json_key(j, "where");
		ct_json_array_begin(j);
		for (k = 0; k < f->nwhere; k++) {
			ct_json_object_begin(j);
			ct_json_key(j, "pid");
			ct_json_i64(j, f->where[k].pid);
			ct_json_kv_string(j, "host", f->where[k].host);
			ct_json_kv_string(j, "rank", f->where[k].rank);
			ct_json_kv_string(j, "job", f->where[k].job);
			json_shown(j, "program", f->where[k].program);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

void ct_findings_tally(FILE *out, const struct ct_findings *fs, bool colour)
{
	size_t i, n[3] = { 0, 0, 0 };

	for (i = 0; i < fs->n; i++)
		n[fs->f[i].severity]++;
	if (!n[CT_SEV_ERROR] && !n[CT_SEV_WARNING])
		ct_tprintf(out, "no problem found");
	if (n[CT_SEV_ERROR]) {
		ct_text_colour(out, colour, "1;31");
		ct_tprintf(out, "%zu error%s", n[CT_SEV_ERROR], n[CT_SEV_ERROR] == 1 ? "" : "s");
		ct_text_colour(out, colour, "0");
	}
	if (n[CT_SEV_WARNING]) {
		ct_tprintf(out, "%s", n[CT_SEV_ERROR] ? ", " : "");
		ct_text_colour(out, colour, "33");
		ct_tprintf(out, "%zu warning%s", n[CT_SEV_WARNING], n[CT_SEV_WARNING] == 1 ? "" : "s");
		ct_text_colour(out, colour, "0");
	}
	if (n[CT_SEV_INFO])
		ct_tprintf(out, " (and %zu note%s)", n[CT_SEV_INFO], n[CT_SEV_INFO] == 1 ? "" : "s");
}

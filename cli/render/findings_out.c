/* Findings as text and as JSON; see findings_out.h. */
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "findings_out.h"
#include "json.h"

void ct_findings_print(FILE *out, const struct ct_findings *fs, bool colour, bool verbose)
{
	static const char *const colours[] = { "\033[36m", "\033[33m", "\033[1;31m" };
	size_t i, k;

	for (i = 0; i < fs->n; i++) {
		const struct ct_finding *f = &fs->f[i];
		size_t shown = verbose || f->nevidence <= 12 ? f->nevidence : 10;
		char where[256];
		const char *p, *nl;

		fprintf(out, "%s%s%s %s: %s\n", colour ? colours[f->severity] : "",
			ct_severity_name(f->severity), colour ? "\033[0m" : "",
			ct_finding_id(f->code), f->message);
		for (k = 0; k < shown; k++)
			fprintf(out, "    %s\n", f->evidence[k]);
		if (shown < f->nevidence)
			fprintf(out, "    (%zu more lines: --json or -v)\n", f->nevidence - shown);
		for (p = f->fix; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
			nl = strchr(p, '\n');
			fprintf(out, "  %s %.*s\n", p == f->fix ? "fix:" : "    ",
				(int)(nl ? nl - p : (long)strlen(p)), p);
		}
		if (f->nwhere)
			fprintf(out, "  seen in %s\n", ct_where_words(f, where, sizeof(where)));
		if (i + 1 < fs->n)
			fputc('\n', out);
	}
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
		ct_json_kv_string(j, "message", f->message);
		ct_json_kv_string(j, "fix", f->fix);
		ct_json_kv_string(j, "object", f->object);
		ct_json_key(j, "evidence");
		ct_json_array_begin(j);
		for (k = 0; k < f->nevidence; k++)
			ct_json_string(j, f->evidence[k]);
		ct_json_array_end(j);
		ct_json_key(j, "where");
		ct_json_array_begin(j);
		for (k = 0; k < f->nwhere; k++) {
			ct_json_object_begin(j);
			ct_json_key(j, "pid");
			ct_json_i64(j, f->where[k].pid);
			ct_json_kv_string(j, "host", f->where[k].host);
			ct_json_kv_string(j, "rank", f->where[k].rank);
			ct_json_kv_string(j, "program", f->where[k].program);
			ct_json_object_end(j);
		}
		ct_json_array_end(j);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

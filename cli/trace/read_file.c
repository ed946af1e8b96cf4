/*
 * One trace file into a process (reader.h): read a line at a time under
 * the reader's limits (trace_limits.h), each line parsed and checked
 * (rectypes.h) before its record is read; what the file came to, for
 * read_dir.c to count in the trace.
 */
#include <stdio.h>
#include <string.h>

#include "lines.h"
#include "rectypes.h"
#include "reader.h"

/* The first limit met is the one said. */
/* The words of the limits below say their numbers. */
_Static_assert(CT_TRACE_LINE_MAX == (size_t)2 << 20, "say the line limit's size");
_Static_assert(CT_TRACE_VALUES_MAX == 524288, "say the values limit's number");

static void limited(struct ct_proc *p, const char *why)
{
	if (!p->limit)
		p->limit = why;
}

/* The records in all a trace may read. */
size_t ct_trace_records_max(const struct ct_trace *t)
{
	return t->records_max ? t->records_max : CT_TRACE_RECORDS_MAX;
}

void ct_trace_read_file(const struct sink *k, const char *path, size_t records_before,
			uint64_t bytes_before, struct file_result *res)
{
	const struct ct_trace *t = k->t;
	struct reader rd;
	struct ct_proc proc;
	struct ct_lines lines;
	struct ct_arena scratch;
	size_t records = 0;
	char *line;
	size_t len;
	bool unterminated;
	uint64_t left = bytes_before < CT_TRACE_BYTES_MAX ? CT_TRACE_BYTES_MAX - bytes_before : 0;
	size_t max_bytes = CT_TRACE_FILE_BYTES_MAX;
	bool total_bytes = false, other_run = false, run_known = false;

	memset(res, 0, sizeof(*res));
	res->done = true;
	/* What is left of the total, but always room for a first line. */
	if (left < max_bytes) {
		max_bytes = left > CT_TRACE_LINE_MAX + 1 ? (size_t)left : CT_TRACE_LINE_MAX + 1;
		total_bytes = true;
	}
	if (ct_lines_open(&lines, path, CT_TRACE_LINE_MAX, max_bytes) != 0) {
		res->what = FILE_UNREADABLE;
		return;
	}
	/*
	 * In a folder others may write to, their files are not this run's,
	 * nor is a hard link to a file made elsewhere (the shim's have one).
	 */
	if ((t->only_owner && lines.owner != t->owner) || (t->one_link && lines.nlink != 1)) {
		res->what = FILE_FOREIGN;
		ct_lines_close(&lines);
		return;
	}
	memset(&proc, 0, sizeof(proc));
	ct_arena_init(&scratch);
	proc.file = ct_arena_strdup(k->arena, path);
	proc.cuinit = -1;
	proc.owner = (int64_t)lines.owner;
	ct_reader_init(&rd, k, &proc);
	while (ct_lines_next(&lines, &line, &len, &unterminated) == 1) {
		const struct ct_jv *v;
		const char *err = NULL;

		if (len == 0)
			continue;
		if (records >= CT_TRACE_FILE_RECORDS_MAX ||
		    (records && records_before + records >= ct_trace_records_max(t))) {
			if (records >= CT_TRACE_FILE_RECORDS_MAX) {
				limited(&proc, "the file holds more than 1000000 records");
			} else if (!proc.limit) {
				char why[80];

				snprintf(why, sizeof(why), "the trace holds more than %zu records in all",
					 ct_trace_records_max(t));
				limited(&proc, ct_arena_strdup(k->arena, why));
			}
			proc.limited++;
			continue;
		}
		/* The record's values live as long as its line. */
		ct_arena_reset(&scratch);
		v = ct_json_parse_record(&scratch, line, len, CT_TRACE_VALUES_MAX, &err);
		if (!v && err == ct_json_too_many) {
			limited(&proc, "a record holds more than 524288 values");
			proc.limited++;
			continue;
		}
		/* A field of the wrong type: not a record the shim wrote (rectypes.h). */
		if (!v || v->type != CT_J_OBJ || !ct_jget(v, "ev") || !ct_record_well_typed(v)) {
			/* A last line without its newline was cut by a crash. */
			if (unterminated && lines.truncated)
				proc.limited++;
			else if (unterminated)
				proc.cut = true;
			else
				proc.bad_lines++;
			continue;
		}
		records++;
		ct_reader_record(&rd, v);
		/*
		 * Another run's file (its start record, the first one, says):
		 * not read further.
		 */
		if (t->only_run && !run_known && proc.started) {
			run_known = true;
			if (strcmp(ct_proc_run(&proc), t->only_run) != 0) {
				other_run = true;
				break;
			}
		}
	}
	if (lines.too_long) {
		limited(&proc, "a line is longer than 2 MiB");
		proc.limited += lines.too_long;
	}
	if (lines.truncated)
		limited(&proc, total_bytes ? "the trace is larger than 4 GiB in all"
					   : "the file is larger than 256 MiB");
	res->records = records;
	res->bytes = lines.read_total;
	ct_lines_close(&lines);
	ct_arena_release(&scratch);
	if (other_run) {
		res->what = FILE_OTHER_RUN;
		ct_trace_proc_release(&proc);
	} else if (records == 0) {
		res->what = FILE_EMPTY;
		ct_trace_proc_release(&proc);
	} else if (!proc.started) {
		/*
		 * The shim makes every file with its start record in it: records
		 * without one name no process (they would read as "process 0").
		 */
		res->what = FILE_NO_START;
		ct_trace_proc_release(&proc);
	} else {
		ct_reader_finish(&rd);
		proc.records = records;
		res->what = FILE_PROC;
		res->proc = proc;
	}
	ct_reader_release(&rd);
}

/*
 * cudatrace ps's list of processes (ps_out.h), from its model (ps_list.h),
 * which worked out everything shown: this reads no file. Every string from a
 * process (its command line, its files' paths) is escaped where printed:
 * ct_tprintf for text and Markdown (an indented block, which nothing in
 * a line can end), the JSON writer for JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "ps_out.h"
#include "schema.h"
#include "text.h"

static void print_text(FILE *out, const char *indent, const struct ct_ps_list *l, bool quiet)
{
	const struct ct_ps_unread *unread = l->unread;
	size_t i, f, nunread = l->nunread;

	for (i = 0; i < l->nprocs; i++) {
		const struct ct_ps_entry *p = &l->procs[i];
		size_t n = p->unverified;

		ct_tprintf(out, "%s%lld  %s\n", indent, p->pid, p->command_short);
		for (f = 0; f < CT_PS_FAMILIES; f++) {
			const struct ct_ps_family_lib *o = &p->libs[f];

			if (o->path)
				ct_tprintf(out, "%s  %-13s %-12s %s\n", indent, ct_ps_family_words((int)f),
					   o->version[0] ? o->version : "?", o->path);
		}
		if (p->unverified && p->other_mount_namespace)
			ct_tprintf(out, "%s  (%zu mapped file%s left out: the process runs in another "
				   "mount namespace, where %s path%s name%s other files than here; run "
				   "cudatrace ps inside the container)\n",
				   indent, n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
				   n == 1 ? "" : "s", n == 1 ? "s" : "");
		else if (p->unverified)
			ct_tprintf(out, "%s  (%zu mapped file%s left out: not the file at %s path now; "
				   "cudatrace ps %lld names %s)\n",
				   indent, n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
				   p->pid, n == 1 ? "it" : "them");
		if (p->maps_limit)
			ct_tprintf(out, "%s  (its maps was not read in full: %s; %zu mapping%s left out)\n",
				   indent, p->maps_limit, p->maps_left_out,
				   p->maps_left_out == 1 ? "" : "s");
	}
	for (i = 0; !quiet && i < nunread; i++)
		ct_tprintf(out, "%s%lld  cannot be read: %s\n", indent, unread[i].pid, unread[i].why);
	if (quiet && nunread)
		ct_tprintf(out, "%s%zu process%s cannot be read (ps without -q names them)\n", indent,
			   nunread, nunread == 1 ? "" : "es");
	/*
	 * None found is an answer as long as some process was read; what could
	 * not be read is named above, so the answer says it is about the rest.
	 */
	if (l->nprocs == 0 && nunread == 0)
		ct_tprintf(out, "%sno process maps a CUDA library\n", indent);
	else if (l->nprocs == 0 && l->nread)
		ct_tprintf(out, "%sno process that could be read maps a CUDA library (%zu read)\n",
			   indent, l->nread);
}

static void print_json(FILE *out, const struct ct_ps_list *l, struct ct_json *j)
{
	const struct ct_ps_unread *unread = l->unread;
	size_t i, f;

	ct_json_init(j, out);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "schema", CT_SCHEMA_PS);
	ct_json_kv_u64(j, "read", l->nread);
	ct_json_key(j, "processes");
	ct_json_array_begin(j);
	for (i = 0; i < l->nprocs; i++) {
		const struct ct_ps_entry *p = &l->procs[i];

		ct_json_object_begin(j);
		ct_json_key(j, "pid");
		ct_json_i64(j, p->pid);
		ct_json_kv_string(j, "command", p->command);
		ct_json_kv_string(j, "exe", p->exe);
		ct_json_kv_u64(j, "unverified", p->unverified);
		ct_json_kv_bool(j, "other_mount_namespace", p->other_mount_namespace);
		ct_json_kv_string(j, "maps_limit", p->maps_limit);
		ct_json_kv_u64(j, "maps_left_out", p->maps_left_out);
		for (f = 0; f < CT_PS_FAMILIES; f++) {
			const struct ct_ps_family_lib *o = &p->libs[f];

			ct_json_key(j, ct_ps_family_key((int)f));
			if (!o->path) {
				ct_json_null(j);
				continue;
			}
			ct_json_object_begin(j);
			ct_json_kv_string(j, "path", o->path);
			ct_json_kv_string(j, "version", o->version[0] ? o->version : NULL);
			ct_json_object_end(j);
		}
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "unreadable");
	ct_json_array_begin(j);
	for (i = 0; i < l->nunread; i++) {
		ct_json_object_begin(j);
		ct_json_key(j, "pid");
		ct_json_i64(j, unread[i].pid);
		ct_json_kv_string(j, "error", unread[i].why);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

int ct_ps_list_print(FILE *out, enum ct_ps_format format, const struct ct_ps_list *l, bool quiet)
{
	struct ct_json j;

	if (format == CT_PS_JSON) {
		print_json(out, l, &j);
		return ct_json_finish(&j);
	}
	if (format == CT_PS_MARKDOWN) {
		ct_tprintf(out, "### CUDA processes\n\n");
		print_text(out, "    ", l, quiet);
	} else {
		print_text(out, "", l, quiet);
	}
	return 0;
}

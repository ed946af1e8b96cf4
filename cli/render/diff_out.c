/*
 * cudatrace diff's output (diff_out.h). Every string from a side (paths,
 * messages, variables: another machine's) is escaped where printed:
 * ct_tprintf for text and Markdown (an indented block, which nothing in
 * a line can end), the JSON writer for JSON.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "diff_out.h"
#include "json.h"
#include "rules.h"
#include "schema.h"
#include "text.h"

static const char *rule_words(const char *id)
{
	enum ct_rule r = ct_rule_parse(id);

	return r == CT_RULE_UNKNOWN ? id : ct_rule_words(r);
}

static void lib_text(FILE *out, const char *in, const char *label, const struct ct_side_lib *l)
{
	if (!l) {
		ct_tprintf(out, "%s%s not loaded\n", in, label);
		return;
	}
	ct_tprintf(out, "%s%s %s  %s", in, label, l->version ? l->version : "?", l->path);
	if (l->rule)
		ct_tprintf(out, " [%s]", rule_words(l->rule));
	ct_tprintf(out, "\n");
}

static void driver_text(FILE *out, const char *in, const char *label, const struct ct_side *s)
{
	if (s->driver != CT_SIDE_DRIVER_FOUND) {
		ct_tprintf(out, "%s%s %s\n", in, label,
			   s->driver == CT_SIDE_DRIVER_NOT_FOUND ? "not found" : "not asked for");
		return;
	}
	ct_tprintf(out, "%s%s %s", in, label, s->driver_version ? s->driver_version : "?");
	if (s->driver_cuda > 0)
		ct_tprintf(out, " (CUDA %d.%d)", s->driver_cuda / 1000, s->driver_cuda % 1000 / 10);
	if (s->driver_path)
		ct_tprintf(out, "  %s", s->driver_path);
	ct_tprintf(out, "\n");
}

static void gpus_text(FILE *out, const char *in, const char *label, const struct ct_side *s)
{
	size_t i;

	ct_tprintf(out, "%s%s", in, label);
	if (!s->ngpus)
		ct_tprintf(out, " none");
	for (i = 0; i < s->ngpus; i++)
		ct_tprintf(out, "%s %s (%s)", i ? "," : "", s->gpus[i].name ? s->gpus[i].name : "?",
			   s->gpus[i].cc ? s->gpus[i].cc : "?");
	ct_tprintf(out, "\n");
}

/* A variable's value; a long one (NVIDIA_REQUIRE_CUDA's) cut, whole in JSON. */
static void value_text(FILE *out, const char *v)
{
	if (!v)
		ct_tprintf(out, "(unset)\n");
	else if (!*v)
		ct_tprintf(out, "(empty)\n");
	else if (strlen(v) > 160)
		ct_tprintf(out, "%.150s... (%zu characters)\n", v, strlen(v));
	else
		ct_tprintf(out, "%s\n", v);
}

static void side_line(FILE *out, const char *p, const char *label, const char *arg, const char *what,
		      const struct ct_side *s)
{
	ct_tprintf(out, "%s%s: %s (%s", p, label, arg, what);
	if (s->kind == CT_SIDE_REPORT)
		ct_tprintf(out, ", %zu process%s", s->nprocs, s->nprocs == 1 ? "" : "es");
	ct_tprintf(out, ")\n");
}

static void print_text(FILE *out, const char *p, const struct ct_diff *d, const struct ct_side *a,
		       const struct ct_side *b, const struct ct_diff_names *n, bool verbose)
{
	const char *section = NULL;
	size_t i, w = 16;
	char pad[40];

	/* The key's column: as wide as the widest role or variable, within reason. */
	for (i = 0; i < d->n; i++)
		if (d->e[i].kind != CT_DIFF_NOT_FOUND && d->e[i].kind != CT_DIFF_FINDING &&
		    strlen(d->e[i].key) > w)
			w = strlen(d->e[i].key);
	if (w > 32)
		w = 32;
	memset(pad, ' ', w + 1);
	pad[w + 1] = '\0';

	ct_tprintf(out, "%s", p);
	ct_diff_headline(out, d);
	side_line(out, p, "A", n->a, n->a_what, a);
	side_line(out, p, "B", n->b, n->b_what, b);
	for (i = 0; i < d->n; i++) {
		const struct ct_diff_entry *e = &d->e[i];
		char in[64], key[64];

		if (!section || strcmp(section, ct_diff_section(e->kind)) != 0) {
			section = ct_diff_section(e->kind);
			ct_tprintf(out, "%s\n%s%s\n", p, p, section);
		}
		snprintf(key, sizeof(key), "%-*.*s", (int)w, 40, e->key);
		snprintf(in, sizeof(in), "%s  ", p);
		switch (e->kind) {
		case CT_DIFF_LIBRARY:
		case CT_DIFF_LIB_ONLY:
			ct_tprintf(out, "%s  %s", p, key);
			lib_text(out, "", " A", e->la);
			ct_tprintf(out, "%s  %s", p, pad + 1);
			lib_text(out, "", " B", e->lb);
			break;
		case CT_DIFF_NOT_FOUND:
			ct_tprintf(out, "%s  %-*s %s %s\n", p, (int)w, "not found", e->in_a ? "A" : "B", e->key);
			break;
		case CT_DIFF_DRIVER:
			ct_tprintf(out, "%s  %-*s", p, (int)w, "driver");
			driver_text(out, "", " A", a);
			ct_tprintf(out, "%s  %s", p, pad + 1);
			driver_text(out, "", " B", b);
			break;
		case CT_DIFF_GPUS:
			ct_tprintf(out, "%s  %-*s", p, (int)w, "GPUs");
			gpus_text(out, "", " A", a);
			ct_tprintf(out, "%s  %s", p, pad + 1);
			gpus_text(out, "", " B", b);
			break;
		case CT_DIFF_CODE:
			ct_tprintf(out, "%s  %s A %s\n", p, key, e->va ? e->va : "not judged");
			ct_tprintf(out, "%s  %s B %s\n", p, pad + 1, e->vb ? e->vb : "not judged");
			break;
		case CT_DIFF_FINDING:
			ct_tprintf(out, "%s  %s only  %s %s: %s\n", p, e->in_a ? "A" : "B",
				   e->finding->severity, e->finding->code, e->finding->message);
			break;
		case CT_DIFF_ENV:
			ct_tprintf(out, "%s  %s A ", p, key);
			value_text(out, e->va);
			ct_tprintf(out, "%s  %s B ", p, pad + 1);
			value_text(out, e->vb);
			break;
		}
	}
	if (verbose && d->nnot_compared)
		ct_tprintf(out, "%s\n", p);
	for (i = 0; verbose && i < d->nnot_compared; i++)
		ct_tprintf(out, "%snot compared: %s\n", p, d->not_compared[i]);
}

static void lib_json(struct ct_json *j, const struct ct_side_lib *l)
{
	if (!l) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "soname", l->soname);
	ct_json_kv_string(j, "path", l->path);
	ct_json_kv_string(j, "version", l->version);
	ct_json_key(j, "cuda");
	if (l->cuda > 0)
		ct_json_i64(j, l->cuda);
	else
		ct_json_null(j);
	ct_json_kv_string(j, "found_via", l->rule);
	ct_json_object_end(j);
}

static void driver_json(struct ct_json *j, const struct ct_side *s)
{
	ct_json_object_begin(j);
	ct_json_kv_string(j, "state", ct_side_driver_id(s->driver));
	ct_json_kv_string(j, "version", s->driver_version);
	ct_json_key(j, "cuda");
	if (s->driver_cuda > 0)
		ct_json_i64(j, s->driver_cuda);
	else
		ct_json_null(j);
	ct_json_kv_string(j, "path", s->driver_path);
	ct_json_object_end(j);
}

static void gpus_json(struct ct_json *j, const struct ct_side *s)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < s->ngpus; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "name", s->gpus[i].name);
		ct_json_kv_string(j, "cc", s->gpus[i].cc);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void side_json(struct ct_json *j, const char *key, const char *arg, const char *what,
		      const struct ct_side *s)
{
	ct_json_key(j, key);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", arg);
	ct_json_kv_string(j, "kind", what);
	ct_json_key(j, "processes");
	if (s->kind == CT_SIDE_REPORT)
		ct_json_i64(j, (int64_t)s->nprocs);
	else
		ct_json_null(j);
	ct_json_object_end(j);
}

static void print_json(struct ct_json *j, const struct ct_diff *d, const struct ct_side *a,
		       const struct ct_side *b, const struct ct_diff_names *n)
{
	size_t i;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "schema", CT_SCHEMA_DIFF);
	side_json(j, "a", n->a, n->a_what, a);
	side_json(j, "b", n->b, n->b_what, b);
	ct_json_kv_u64(j, "differences", d->n);
	ct_json_key(j, "items");
	ct_json_array_begin(j);
	for (i = 0; i < d->n; i++) {
		const struct ct_diff_entry *e = &d->e[i];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "kind", ct_diff_kind_id(e->kind));
		ct_json_kv_string(j, "section", ct_diff_section(e->kind));
		ct_json_kv_string(j, "key", e->key);
		ct_json_key(j, "side");
		if (e->kind == CT_DIFF_LIB_ONLY || e->kind == CT_DIFF_NOT_FOUND ||
		    e->kind == CT_DIFF_FINDING)
			ct_json_string(j, e->in_a ? "a" : "b");
		else
			ct_json_null(j);
		switch (e->kind) {
		case CT_DIFF_LIBRARY:
		case CT_DIFF_LIB_ONLY:
			ct_json_key(j, "a");
			lib_json(j, e->la);
			ct_json_key(j, "b");
			lib_json(j, e->lb);
			break;
		case CT_DIFF_DRIVER:
			ct_json_key(j, "a");
			driver_json(j, a);
			ct_json_key(j, "b");
			driver_json(j, b);
			break;
		case CT_DIFF_GPUS:
			ct_json_key(j, "a");
			gpus_json(j, a);
			ct_json_key(j, "b");
			gpus_json(j, b);
			break;
		case CT_DIFF_FINDING:
			ct_json_key(j, "finding");
			ct_json_object_begin(j);
			ct_json_kv_string(j, "code", e->finding->code);
			ct_json_kv_string(j, "severity", e->finding->severity);
			ct_json_kv_string(j, "message", e->finding->message);
			ct_json_kv_string(j, "object", e->finding->object);
			ct_json_object_end(j);
			break;
		case CT_DIFF_NOT_FOUND:
			break;
		case CT_DIFF_CODE:
		case CT_DIFF_ENV:
			ct_json_kv_string(j, "a", e->va);
			ct_json_kv_string(j, "b", e->vb);
			break;
		}
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "not_compared");
	ct_json_array_begin(j);
	for (i = 0; i < d->nnot_compared; i++)
		ct_json_string(j, d->not_compared[i]);
	ct_json_array_end(j);
	ct_json_object_end(j);
}

void ct_diff_headline(FILE *out, const struct ct_diff *d)
{
	if (d->n)
		ct_tprintf(out, "cudatrace diff: %zu difference%s that matter%s to CUDA\n", d->n,
			   d->n == 1 ? "" : "s", d->n == 1 ? "s" : "");
	else
		ct_tprintf(out, "cudatrace diff: no difference that matters to CUDA\n");
}

int ct_diff_print(FILE *out, enum ct_diff_format format, const struct ct_diff *d,
		  const struct ct_side *a, const struct ct_side *b, const struct ct_diff_names *n,
		  bool verbose)
{
	struct ct_json j;

	if (format == CT_DIFF_JSON) {
		ct_json_init(&j, out);
		print_json(&j, d, a, b, n);
		return ct_json_finish(&j);
	}
	if (format == CT_DIFF_MARKDOWN) {
		ct_tprintf(out, "### cudatrace diff\n\n");
		print_text(out, "    ", d, a, b, n, verbose);
		return 0;
	}
	print_text(out, "", d, a, b, n, verbose);
	return 0;
}

static void side_unread_json(struct ct_json *j, const char *key, const char *arg, const char *what)
{
	ct_json_key(j, key);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", arg);
	ct_json_kv_string(j, "kind", what);
	ct_json_key(j, "processes");
	ct_json_null(j);
	ct_json_object_end(j);
}

int ct_diff_print_error(FILE *out, const struct ct_diff_names *n, const char *error)
{
	struct ct_json j;

	ct_json_init(&j, out);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_DIFF);
	side_unread_json(&j, "a", n->a, n->a_what);
	side_unread_json(&j, "b", n->b, n->b_what);
	ct_json_kv_u64(&j, "differences", 0);
	ct_json_key(&j, "items");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	ct_json_key(&j, "not_compared");
	ct_json_array_begin(&j);
	ct_json_array_end(&j);
	ct_json_kv_string(&j, "error", error);
	ct_json_object_end(&j);
	return ct_json_finish(&j);
}

/*
 * check's output (check_out.h): what cmd_check.c judged, as text, GitHub
 * annotations or JSON, and the total per target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_out.h"
#include "commands.h"
#include "compat.h"
#include "github.h"
#include "schema.h"
#include "text.h"
#include "util.h"

/* The colour of a verdict: fails red, JIT yellow, as errors and warnings elsewhere. */
static const char *verdict_colour(const struct ct_check_cmd *c, const struct ct_check_result *r)
{
	if (ct_check_fails(r, &c->opts))
		return "1;31";
	return r->verdict == CT_VERDICT_PTX_JIT ? "33" : NULL;
}

void ct_check_text_object(const struct ct_check_cmd *c, const struct ct_object *obj,
			  const struct ct_check_result *r)
{
	size_t t, k, len = 0;
	char *buf = NULL;
	bool tell = !c->quiet;
	FILE *out = stdout;

	/* -q: an object is shown only when it fails or runs only by JIT. */
	if (c->quiet && !(out = open_memstream(&buf, &len)))
		ct_out_of_memory();
	ct_tprintf(out, "%s\n", obj->path);
	for (t = 0; t < c->ntargets; t++) {
		const char *colour = verdict_colour(c, &r[t]);

		tell |= colour != NULL;
		ct_tprintf(out, "  %-8s ", c->target_names[t]);
		ct_text_colour(out, c->colour && colour, colour);
		ct_tprintf(out, "%-14s", ct_verdict_name(r[t].verdict));
		ct_text_colour(out, c->colour && colour, "0");
		ct_tprintf(out, " %s\n", r[t].reason);
		for (k = 0; k < CT_CHECK_DETAILS; k++)
			if (r[t].details[k][0])
				ct_tprintf(out, "  %-8s %-14s %s\n", "", "", r[t].details[k]);
		if (r[t].fix[0])
			ct_tprintf(out, "  %-8s %-14s fix: %s\n", "", "", r[t].fix);
		if (c->verbose && r[t].left_out[0])
			ct_tprintf(out, "  %-8s %-14s %s\n", "", "", r[t].left_out);
	}
	if (ct_check_damaged(obj->scan)) {
		size_t i;

		for (i = 0; i < obj->scan->nproblems; i++) {
			char text[256];

			if (!elfscan_problem_is_error(obj->scan->problems[i].code))
				continue;
			ct_tprintf(out, "  error: %s\n",
			       elfscan_problem_describe(obj->scan,
							&obj->scan->problems[i],
							text, sizeof(text)));
		}
		tell = true;
	}
	if (out != stdout) {
		if (fclose(out) != 0)
			ct_out_of_memory();
		if (tell)
			ct_text_put(stdout, buf, len); /* escaped when written into buf */
		free(buf);
	}
}

/*
 * --format github: an annotation per object and target that fails (an
 * error) or runs only by JIT (a warning), on the file as the repository
 * knows it: an archive's member is annotated on the archive.
 */
static void github_say(const char *level, const char *path, const char *title,
		       const char *const *lines, size_t nlines)
{
	const char *bang = strchr(path, '!');
	char *file = ct_xstrdup(path);

	if (bang)
		file[bang - path] = '\0';
	ct_github_annotation(stdout, level, file, title, lines, nlines);
	free(file);
}

void ct_check_github_object(const struct ct_check_cmd *c, const struct ct_object *obj,
			    const struct ct_check_result *r)
{
	size_t t, k, i;

	for (t = 0; t < c->ntargets; t++) {
		char title[128], head[sizeof(r->reason) + 4096 + 64];
		char fix[sizeof(r->fix) + 8];
		const char *lines[2 + CT_CHECK_DETAILS];
		const char *level = NULL;
		size_t n = 0;

		if (ct_check_fails(&r[t], &c->opts)) {
			level = "error";
		} else if (r[t].verdict == CT_VERDICT_PTX_JIT) {
			level = "warning";
		}
		if (level) {
			snprintf(title, sizeof(title), "cudatrace check: %s on %s",
				 ct_verdict_name(r[t].verdict), c->target_names[t]);
			snprintf(head, sizeof(head), "%s, %s: %s", obj->path, c->target_names[t],
				 r[t].reason);
			lines[n++] = head;
			for (k = 0; k < CT_CHECK_DETAILS; k++)
				lines[n++] = r[t].details[k];
			snprintf(fix, sizeof(fix), "%s%s", r[t].fix[0] ? "fix: " : "", r[t].fix);
			lines[n++] = fix;
			github_say(level, obj->path, title, lines, n);
		}
	}
	if (!ct_check_damaged(obj->scan))
		return;
	for (i = 0; i < obj->scan->nproblems; i++) {
		char text[256], msg[4096 + 512];
		const char *line = msg;

		if (!elfscan_problem_is_error(obj->scan->problems[i].code))
			continue;
		snprintf(msg, sizeof(msg), "%s: %s", obj->path,
			 elfscan_problem_describe(obj->scan, &obj->scan->problems[i], text,
						  sizeof(text)));
		github_say("error", obj->path, "cudatrace check: damaged", &line, 1);
	}
}

void ct_check_github_unreadable(const struct ct_object *obj)
{
	char msg[4096 + 512];
	const char *line = msg;

	snprintf(msg, sizeof(msg), "cannot read '%s': %s", obj->path, obj->error);
	github_say("error", obj->path, "cudatrace check: unreadable", &line, 1);
}

static void json_min_driver(struct ct_json *j, const struct ct_verdict *v)
{
	const char *linux_driver;
	char isa[32], cuda[16];
	int need = ct_check_min_driver(v, &linux_driver);

	ct_json_key(j, "min_driver");
	if (!need) {
		ct_json_null(j);
		return;
	}
	snprintf(isa, sizeof(isa), "%u.%u", v->ptx_isa_major, v->ptx_isa_minor);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "ptx_isa", isa);
	ct_json_kv_string(j, "cuda",
			  need > 10000 ? ct_cuda_version_words(need, cuda, sizeof(cuda)) : NULL);
	ct_json_kv_string(j, "linux", linux_driver);
	ct_json_object_end(j);
}

static void json_result(struct ct_json *j, const char *target, const struct elfscan_file *f,
			const struct ct_check_result *r)
{
	char name[ELFSCAN_ARCH_NAME_MAX];
	size_t k;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "target", target);
	ct_json_kv_string(j, "verdict", ct_verdict_name(r->verdict));
	ct_json_kv_string(j, "code_verdict", ct_verdict_name(r->v.verdict));
	ct_json_kv_string(j, "image",
			  r->v.image >= 0 ? elfscan_image_arch_name(&f->images[r->v.image], name,
								    sizeof(name))
					  : NULL);
	ct_json_kv_string(j, "reason", r->reason);
	ct_json_key(j, "details");
	ct_json_array_begin(j);
	for (k = 0; k < CT_CHECK_DETAILS; k++)
		if (r->details[k][0])
			ct_json_string(j, r->details[k]);
	ct_json_array_end(j);
	ct_json_kv_string(j, "fix", r->fix[0] ? r->fix : NULL);
	ct_json_kv_u64(j, "modules", r->v.modules);
	ct_json_kv_u64(j, "modules_without_image", r->v.no_image + r->v.other_gpus);
	ct_json_key(j, "fatbins");
	ct_json_object_begin(j);
	ct_json_kv_u64(j, "sass", r->v.sass);
	ct_json_kv_u64(j, "ptx_jit", r->v.ptx_jit);
	ct_json_kv_u64(j, "ptx_too_new", r->v.ptx_too_new);
	ct_json_kv_u64(j, "no_image", r->v.no_image);
	ct_json_kv_u64(j, "other_gpus", r->v.other_gpus);
	ct_json_kv_u64(j, "without_kernels", r->v.without_kernels);
	ct_json_kv_u64(j, "link_inputs", r->v.link_inputs);
	ct_json_object_end(j);
	json_min_driver(j, &r->v);
	ct_json_kv_string(j, "left_out", r->left_out[0] ? r->left_out : NULL);
	ct_json_key(j, "images");
	ct_json_array_begin(j);
	for (k = 0; k < r->v.npicks; k++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "arch", elfscan_image_arch_name(&f->images[r->v.picks[k].image],
								     name, sizeof(name)));
		ct_json_kv_string(j, "kind", elfscan_kind_name(r->v.picks[k].kind));
		ct_json_kv_u64(j, "fatbins", r->v.picks[k].fatbins);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "runtime": the CUDA runtime the object needs (cudart_need.h), or null. */
static void json_runtime(struct ct_json *j, const struct ct_cudart_need *rt)
{
	char release[16], cuda[16];
	const char *family = rt->major > 0 ? ct_family_driver(rt->major) : NULL;

	ct_json_key(j, "runtime");
	if (rt->link == CT_CUDART_UNKNOWN) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "link", rt->link == CT_CUDART_SHARED ? "shared" : "static");
	ct_json_kv_string(j, "soname", rt->soname[0] ? rt->soname : NULL);
	ct_json_key(j, "cuda_major");
	if (rt->major > 0)
		ct_json_u64(j, (uint64_t)rt->major);
	else
		ct_json_null(j);
	ct_json_kv_string(j, "release",
			  rt->release ? ct_cuda_version_words(rt->release, release, sizeof(release))
				      : NULL);
	ct_json_kv_string(j, "read_from", rt->why);
	ct_json_key(j, "min_driver");
	if (rt->major > 0 && family) {
		snprintf(cuda, sizeof(cuda), "%d.0", rt->major);
		ct_json_object_begin(j);
		ct_json_kv_string(j, "cuda", cuda);
		ct_json_kv_string(j, "linux", family);
		ct_json_object_end(j);
	} else {
		ct_json_null(j);
	}
	ct_json_object_end(j);
}

void ct_check_json_object(struct ct_check_cmd *c, const struct ct_object *obj,
			  const struct ct_cudart_need *rt, const struct ct_check_result *r,
			  size_t n)
{
	struct ct_json *j = &c->j;
	size_t t;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", obj->path);
	ct_json_kv_string(j, "error", obj->error);
	if (obj->scan && ct_check_damaged(obj->scan))
		ct_json_kv_bool(j, "damaged", true);
	if (rt) {
		json_runtime(j, rt);
	} else {
		ct_json_key(j, "runtime");
		ct_json_null(j);
	}
	ct_json_key(j, "results");
	ct_json_array_begin(j);
	for (t = 0; t < n; t++)
		json_result(j, c->target_names[t], obj->scan, &r[t]);
	ct_json_array_end(j);
	ct_json_object_end(j);
}

/* "driver": what --driver judged on, or null. */
static void json_driver(struct ct_json *j, const struct ct_check_driver *d)
{
	char cuda[16];

	ct_json_key(j, "driver");
	if (!d->cuda) {
		ct_json_null(j);
		return;
	}
	ct_json_object_begin(j);
	ct_json_kv_string(j, "given", d->given);
	ct_json_kv_string(j, "cuda",
			  d->cuda_known ? ct_cuda_version_words(d->cuda, cuda, sizeof(cuda)) : NULL);
	ct_json_key(j, "branch");
	if (d->branch && d->branch <= 999)
		ct_json_u64(j, d->branch);
	else
		ct_json_null(j);
	ct_json_object_end(j);
}

/*
 * Files, but no device code in any: the gate passes, and says how little
 * it judged ("0 of 3 objects carry device code"), in text a line of its
 * own, in GitHub's format a notice. Otherwise text counts the objects it
 * did not list.
 */
void ct_check_say_counts(const struct ct_check_cmd *c)
{
	char words[256];
	const char *line = words;

	if (c->with_code || c->reached > c->objects) {
		if (!c->github && c->unlisted && !c->quiet)
			ct_cmd_unlisted(c->unlisted);
		return;
	}
	if (c->objects)
		snprintf(words, sizeof(words), "0 of %zu object%s carr%s device code%s", c->objects,
			 c->objects == 1 ? "" : "s", c->objects == 1 ? "ies" : "y",
			 c->unlisted && !c->github ? " (-v lists them)" : "");
	else
		snprintf(words, sizeof(words), "no object in %zu file%s: none is an ELF file, "
			 "cubin, fatbin or PTX, nor a wheel holding one", c->files,
			 c->files == 1 ? "" : "s");
	if (c->github)
		ct_github_annotation(stdout, "notice", NULL, "cudatrace check: no device code", &line,
				     1);
	else
		ct_tprintf(stdout, "%s\n", words);
}

/*
 * The total, a line per target: "1 of 2 objects cannot run on sm_90",
 * "2 of 2 objects can run on sm_90 (1 only by JIT from PTX)"; over the
 * objects with device code (those without cannot fail a launch), and
 * those that could not be read. Nothing when none has device code
 * (ct_check_say_counts said so).
 */
void ct_check_say_total(const struct ct_check_cmd *c)
{
	size_t t, unread = c->reached - c->objects;

	for (t = 0; t < c->ntargets; t++) {
		size_t n = c->judged[t], other = c->failed[t] - c->cannot[t];
		bool open = false;

		if (!n)
			continue;
		if (c->cannot[t]) {
			ct_text_colour(stdout, c->colour, "1;31");
			ct_tprintf(stdout, "%zu of %zu object%s cannot run on %s", c->cannot[t], n,
				   n == 1 ? "" : "s", c->target_names[t]);
			ct_text_colour(stdout, c->colour, "0");
		} else {
			ct_tprintf(stdout, "%zu of %zu object%s can run on %s", n, n, n == 1 ? "" : "s",
				   c->target_names[t]);
		}
		if (c->jit[t]) {
			ct_tprintf(stdout, " (");
			open = true;
			ct_text_colour(stdout, c->colour, c->opts.require_sass ? "1;31" : "33");
			ct_tprintf(stdout, "%zu only by JIT from PTX%s", c->jit[t],
				   c->opts.require_sass ? ", which --require-sass fails" : "");
			ct_text_colour(stdout, c->colour, "0");
		}
		/* Fails that are no "cannot run": --every-module's fatbins for other GPUs. */
		if (other > (c->opts.require_sass ? c->jit[t] : 0)) {
			ct_tprintf(stdout, "%s", open ? "; " : " (");
			open = true;
			ct_tprintf(stdout, "%zu with fatbins for other GPUs only, which "
				   "--every-module fails", other - (c->opts.require_sass ? c->jit[t] : 0));
		}
		ct_tprintf(stdout, "%s%s\n", open ? ")" : "",
			   unread ? "; some objects could not be read (above)" : "");
	}
}

/* "totals": say_total's counts, a member per target; "unreadable": what was not read. */
static void json_totals(struct ct_check_cmd *c)
{
	struct ct_json *j = &c->j;
	size_t t;

	ct_json_key(j, "totals");
	ct_json_array_begin(j);
	for (t = 0; t < c->ntargets; t++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "target", c->target_names[t]);
		ct_json_kv_u64(j, "objects", c->judged[t]);
		ct_json_kv_u64(j, "cannot_run", c->cannot[t]);
		ct_json_kv_u64(j, "ptx_jit", c->jit[t]);
		ct_json_kv_u64(j, "fail", c->failed[t]);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_kv_u64(j, "without_device_code", c->objects - c->with_code);
	ct_json_kv_u64(j, "unreadable", c->reached - c->objects);
}


void ct_check_json_begin(struct ct_check_cmd *c)
{
	ct_json_init(&c->j, stdout);
	ct_json_object_begin(&c->j);
	ct_json_kv_string(&c->j, "schema", CT_SCHEMA_CHECK);
	json_driver(&c->j, &c->opts.driver);
	ct_json_key(&c->j, "files");
	ct_json_array_begin(&c->j);
}

void ct_check_json_end(struct ct_check_cmd *c)
{
	ct_json_array_end(&c->j);
	json_totals(c);
	ct_json_object_end(&c->j);
	ct_json_finish(&c->j);
}

/*
 * check's output (cmd_check.c judges, this prints): an object's results
 * as text (a line per target, its details and fix; -q only what fails or
 * runs by JIT), as GitHub annotations (--format github) or as JSON
 * (--json), and the total per target. Prints what it is given and judges
 * nothing (check_judge.h judged it).
 *
 * Ownership: the command's state is the caller's; every string printed is
 * borrowed. Writes to stdout.
 */
#ifndef CT_CHECK_OUT_H
#define CT_CHECK_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "check_judge.h"
#include "cudart_need.h"
#include "inputs.h"
#include "json.h"
#include "targets.h"

#define CT_CHECK_TARGETS_MAX 32

/* check's state: its options, what the walk reached, the totals. */
struct ct_check_cmd {
	struct elfscan_target targets[CT_CHECK_TARGETS_MAX];
	char target_names[CT_CHECK_TARGETS_MAX][CT_TARGET_NAME];
	size_t ntargets;
	bool json, github, verbose, quiet, colour;
	struct ct_check_opts opts;
	/*
	 * The total (ct_check_say_total), per target: objects with device code
	 * judged, those that cannot run there, those that fail the check
	 * (--require-sass, --every-module add to those), those that run only
	 * by JIT.
	 */
	size_t judged[CT_CHECK_TARGETS_MAX], cannot[CT_CHECK_TARGETS_MAX];
	size_t failed[CT_CHECK_TARGETS_MAX], jit[CT_CHECK_TARGETS_MAX];
	struct ct_json j;
	int exit_code;
	size_t unlisted; /* objects without device code, not listed */
	/*
	 * What the walk reached, so that a gate that checked nothing never
	 * passes in silence: regular files of any kind (ct_walk_options),
	 * objects handed over (read or not), those read, those of them with
	 * device code.
	 */
	size_t files, reached, objects, with_code;
	/* The object being judged: a result per target. */
	struct ct_check_result results[CT_CHECK_TARGETS_MAX];
};

/* An object read, with its results r[0..ntargets), as text (quiet: only when it fails). */
void ct_check_text_object(const struct ct_check_cmd *c, const struct ct_object *obj,
			  const struct ct_check_result *r);

/* The same as annotations: an error per target it fails, a warning per JIT-only one. */
void ct_check_github_object(const struct ct_check_cmd *c, const struct ct_object *obj,
			    const struct ct_check_result *r);

/* An object that could not be read (obj->error), as an annotation. */
void ct_check_github_unreadable(const struct ct_object *obj);

/*
 * An entry of "files": obj with the runtime it needs (NULL: not read) and
 * its results r[0..n). Between ct_check_json_begin and ct_check_json_end.
 */
void ct_check_json_object(struct ct_check_cmd *c, const struct ct_object *obj,
			  const struct ct_cudart_need *rt, const struct ct_check_result *r,
			  size_t n);

/* The JSON document up to its "files" (c->j set up on stdout), and the rest of it. */
void ct_check_json_begin(struct ct_check_cmd *c);
void ct_check_json_end(struct ct_check_cmd *c);

/*
 * No device code at all: a line that says how little was judged (a
 * notice with github); otherwise text's count of the objects not listed.
 */
void ct_check_say_counts(const struct ct_check_cmd *c);

/* The total, a line per target ("1 of 2 objects cannot run on sm_90"). */
void ct_check_say_total(const struct ct_check_cmd *c);

#endif

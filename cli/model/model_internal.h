/*
 * Private to cli/model/: what the files that build the report model share
 * while it is built (report_model.c orchestrates; model_procs.c,
 * model_tree.c, model_code.c and model_endings.c each work out one part).
 *
 * Ownership: struct ct_rm_build borrows the trace, the diagnosis and the
 * roles for the build only; the memos it holds (each file's own, their
 * entries in its scratch arena) are forgotten and freed when the build
 * ends (report_model.c). What it adds to the model lives in the model's
 * store.
 */
#ifndef CT_MODEL_INTERNAL_H
#define CT_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "diagnose.h"
#include "intern.h"
#include "report_model.h"
#include "roles.h"
#include "trace.h"

struct ct_rm_ptrs;      /* the trace's strings already copied, by address */
struct ct_rm_versions;  /* libraries' versions, by path and soname */
struct ct_rm_files;     /* each file's device code, by elfscan_file */
struct ct_rm_modwords;  /* modules' images read from files, by place */
struct ct_rm_trees;     /* what every tree asks */

struct ct_rm_build {
	struct ct_report_model *m;
	const struct ct_trace *t;
	const struct ct_diagnosis *d;
	const struct ct_roles *roles;
	const struct ct_report_model_options *o;
	struct ct_rm_ptrs *ptrs;
	struct ct_rm_versions *versions;
	struct ct_rm_files *files;
	struct ct_rm_modwords *modwords;
	struct ct_rm_trees *trees;
	struct ct_arena scratch;     /* the memos' entries, freed in one go when the build ends */
};

/* The model's memory: an arena, and its strings kept once. */
struct ct_rm_store {
	struct ct_arena arena;
	struct ct_intern strings;
};

/* m empty, with a store of its own (ct_report_model_release frees it). */
void ct_rm_init(struct ct_report_model *m);
/* A new store for m (ct_rm_store_free frees it and all in it). */
void ct_rm_store_new(struct ct_report_model *m);
void ct_rm_store_free(struct ct_report_model *m);
/* s kept in m, once (NULL stays NULL), without the trace's addresses (model_read.c). */
const char *ct_rm_keep(struct ct_report_model *m, const char *s);

/*
 * s kept in m, once (NULL stays NULL): for a string that stays where it
 * is while the model is built (the trace's, the diagnosis's, a constant),
 * found by its address first (the trace keeps each string once). Any
 * other (a buffer, a string freed after) goes through ct_rm_keep.
 */
const char *ct_rm_str(struct ct_rm_build *b, const char *s);
/* printf into m, kept once. */
const char *ct_rm_strf(struct ct_rm_build *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* n zeroed elements of size in m's arena (n may be 0: a valid pointer). */
void *ct_rm_calloc(struct ct_report_model *m, size_t n, size_t size);
/* The bytes at p copied into m's arena (n may be 0). */
void *ct_rm_dup(struct ct_report_model *m, const void *p, size_t n);

void ct_rm_ptrs_free(struct ct_rm_ptrs *ptrs);
void ct_rm_versions_forget(struct ct_rm_build *b);

/* n zeroed bytes that live as long as the build (a memo's entry). */
void *ct_rm_scratch(struct ct_rm_build *b, size_t n);

/* The file name of a path ("?" for none). */
const char *ct_rm_base(const char *path);

/*
 * A CUDA library's version, as ct_library_version_read says it, read once
 * per path and soname; into buf (64 bytes is enough).
 */
const char *ct_rm_version(struct ct_rm_build *b, const char *path, const char *soname, char *buf,
			  size_t size);

/* model_procs.c: every process: its JSON facts, its heading, the text's parts when shown. */
void ct_rm_procs_build(struct ct_rm_build *b);

/* model_tree.c: p's library tree, into out->tree. */
void ct_rm_tree_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p);
void ct_rm_trees_forget(struct ct_rm_build *b);

/* model_code.c: p's arch matrix (into out->matrix) and JSON's device code (out->code). */
void ct_rm_matrix_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p);
void ct_rm_code_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p);
/* A module's images in words (ct_module_images_words), read from a file once. */
const char *ct_rm_module_words(struct ct_rm_build *b, const struct ct_module *m);
/* Forget the memos of files and modules (their entries are the build's scratch). */
void ct_rm_code_forget(struct ct_rm_build *b);

/*
 * model_ranks.c: which of procs[0..n) these are, in words, by job, host
 * (with hosts: the report spans several) and rank: "ranks 1 and 2 on
 * node1, rank 3 on node2", "ranks 0-127", "job 4243.0: ranks 0 and 1;
 * job 4244.0: rank 0"; processes without a rank by pid. Kept in the model.
 */
const char *ct_rm_ranks_words(struct ct_rm_build *b, const struct ct_proc *const *procs, size_t n,
			      bool hosts);

/* model_endings.c: how p ended (out->end), and the verdict's lines of the trace. */
void ct_rm_end_build(struct ct_rm_build *b, struct ct_rm_proc *out, const struct ct_proc *p);
void ct_rm_endings_build(struct ct_rm_build *b);
/*
 * A job torchrun's agent restarted (n, CT_JOB_NOTE_RESTART) into o: its
 * attempts and ranks, and how each attempt but the last ended.
 */
void ct_rm_restart_build(struct ct_rm_build *b, struct ct_rm_job_note *o,
			 const struct ct_job_note *n);

#endif

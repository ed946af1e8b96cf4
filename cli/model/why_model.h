/*
 * cudatrace why as a model: how glibc's loader (the loader model,
 * resolve.h) finds one library for one requester, in words. The answer
 * the process gets (maybe a library already loaded), the search that
 * answer stands for with every candidate up to the file taken and what
 * that file shadows later in the order, the file's CUDA facts, the copies
 * elsewhere on the machine, the fix when it is not found, and the symbol
 * versions the file lacks for the requester. Built once by ct_why_build;
 * its views (render/why_out.c: text and JSON) read it and nothing else.
 *
 * Ownership: struct ct_why owns everything reachable from it, in its
 * arena; ct_why_release frees it. Not thread-safe.
 */
#ifndef CT_WHY_MODEL_H
#define CT_WHY_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "arena.h"

struct ct_why {
	struct ct_arena arena;
	const char *name;          /* as asked */
	const char *from;          /* the requester as given, or NULL: a stand-in program */
	const char *error;         /* the requester could not be set up: why (nothing
				      else is set) */
	const char *ld_library_path; /* as judged with, or NULL */
	struct ct_answer_interp interp;
	struct ct_answer_cwds cwd;

	/* The answer the process gets. */
	const char *winner;        /* the file taken, or NULL: not found */
	bool answer_new;           /* found by a search of its own (not already loaded) */
	const char *rule;          /* its rule in words, at its path (answer_new) */
	const char *rule_plain;    /* its rule in words alone (answer_new) */
	const char *found_via;     /* the answer's rule id */
	const char *via_object;    /* whose RPATH or RUNPATH found it, or NULL */
	const char *load_error;    /* not found: the loader's words */
	const char *noexec_path;   /* not found for a noexec mount: the file; NULL */
	struct ct_answer_driver_missing driver_missing;
	struct ct_answer_facts *cuda; /* the winner's facts; NULL (and none with -q) */
	bool execstack;            /* the winner asks for an executable stack that this
				      glibc refuses to a dlopen */
	const char *glibc;         /* the loader's release ("2.41") */

	/* Already loaded: the loader takes it without searching. */
	bool already_loaded;
	const char *loaded_path;
	bool loaded_is_rtld;       /* the dynamic loader itself */
	const char *loaded_for;    /* the file name of who brought it, or NULL */
	const char *loaded_for_path; /* its path (JSON), or NULL */
	const char *loaded_rule;   /* how that one found it, in words */

	/* The search, exhaustive. */
	const char *search_error;  /* no candidate at all: why, or NULL */
	const char *search_found_via; /* the search's rule id, when it found a file */
	const char *search_path;   /* the file the search finds, or NULL */
	struct ct_answer_cands reached; /* the candidates up to the winner (all: none) */
	struct ct_answer_cands later;   /* the candidates after it, numbered on,
					   each marked shadowed or not */

	struct ct_answer_copies copies; /* elsewhere on this machine, not on the path */
	const char *use_copy;      /* not found: a copy of the same name, its folder */
	const char *use_dir;       /* (what to put on LD_LIBRARY_PATH), or NULL */
	struct ct_answer_gaps gaps; /* versions the requester needs and the file lacks */
	bool fails;                /* not found, or a version missing */
};

struct ct_loader_env;

/*
 * Model how the loader finds name for from (NULL: a stand-in program
 * with no RPATH or RUNPATH), in this shell (env as ldd's, may be NULL);
 * brief: no CUDA facts (why -q shows none). Returns 0, or -1 with
 * m->error in words (from cannot be read, or is statically linked).
 * Reads from, what it loads and the copies' folders; runs nothing. m
 * must be released either way.
 */
int ct_why_build(struct ct_why *m, const char *name, const char *from,
		 const struct ct_loader_env *env, bool brief);
void ct_why_release(struct ct_why *m);

#endif

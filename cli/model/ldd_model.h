/*
 * cudatrace ldd as a model: what glibc's loader would map for one file in
 * this shell (the loader model, resolve.h), in words. Every library asked
 * for, in the order asked, with the rule that found it, its CUDA facts,
 * the candidates tried and the copies elsewhere of one not found; the
 * symbol versions a dependency lacks; what stops the program before its
 * first line (a fatal load, a noexec mount) or a dlopen of it (an
 * executable stack). Built once by ct_ldd_build; its views
 * (render/ldd_out.c: text and JSON) read it and nothing else.
 *
 * Ownership: struct ct_ldd owns everything reachable from it, in its
 * arena; ct_ldd_release frees it. Not thread-safe.
 */
#ifndef CT_LDD_MODEL_H
#define CT_LDD_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "arena.h"

/* One library asked for (a lookup of the loader model). */
struct ct_ldd_lib {
	const char *name;          /* as asked (DT_NEEDED, LD_PRELOAD) */
	const char *expanded;      /* with $ORIGIN... expanded, when that differs; NULL */
	const char *path;          /* the object it got; NULL: not found */
	const char *requested_by;  /* the asker's path */
	const char *requester_name; /* the asker's path ("the program" for a stand-in) */
	const char *found_via;     /* the rule's id */
	const char *via_object;    /* whose RPATH or RUNPATH found it, or NULL */
	const char *rule;          /* a library it mapped: the rule in words ("LD_PRELOAD") */
	const char *soname;        /* its object's DT_SONAME, or NULL */
	const char *error;         /* the loader's words, or NULL */
	const char *noexec_path;   /* the file refused for a noexec mount, or NULL */
	size_t depth;              /* 1: the file's own DT_NEEDED */
	bool preload;
	bool new_object;           /* mapped by this lookup (else already loaded) */
	bool rtld;                 /* it got the program's interpreter */
	bool fatal;                /* the loader stops the whole load here */
	bool shown;                /* shown without -v: mapped here, not found, or the
				      first lookup of the interpreter */
	struct ct_answer_facts *cuda; /* a library it mapped: its facts; NULL otherwise
					 (and without them, -q) */
	struct ct_answer_cands cands; /* not found, or -v: every candidate */
	bool has_copies;           /* not found by a name without a slash: */
	struct ct_answer_copies copies; /* the copies elsewhere (none with -q) */
	struct ct_answer_driver_missing driver_missing;
	const size_t *kids;        /* a library it mapped: the lookups it asks, as indexes */
	size_t nkids;              /* into ct_ldd.libs, in the order asked */
};

/* The loader's own facts the answer was made with. */
struct ct_ldd_loader {
	const char *rtld, *glibc, *lib, *platform; /* NULL when unknown */
	const char *const *hwcaps;
	size_t nhwcaps;
	const char *const *system_dirs;
	size_t nsystem_dirs;
	const char *const *subdirs;
	size_t nsubdirs;
	const char *cache;         /* ld.so.cache read, or NULL */
	const char *ld_library_path, *ld_preload; /* as judged with, or NULL */
	bool secure;
	bool facts_from_loader;
};

struct ct_ldd {
	struct ct_arena arena;
	const char *file;
	const char *error;         /* the file could not be set up: why (nothing else is set) */
	bool is_static;            /* no dynamic section: nothing else is set */
	struct ct_answer_facts *cuda; /* the file's own; NULL with -q */
	struct ct_ldd_loader loader;
	struct ct_answer_interp interp;
	struct ct_answer_cwds cwd;
	struct ct_ldd_lib *libs;   /* every lookup, in order */
	size_t nlibs;
	const size_t *top;         /* the file's own lookups (the tree's roots) */
	size_t ntop;
	struct ct_answer_gaps gaps;
	size_t found, not_found;
	const char *noexec;        /* FILE on a noexec mount, in words; NULL */
	const char *execstack;     /* a dlopen of FILE refused for an executable stack; NULL */
	const char *fatal;         /* the loader's own words where it stops; NULL */
	bool fatal_truncated;      /* ... for a file cut short: said without glibc's prefix */
	bool fails;                /* a library or version missing, or the load would stop */
};

struct ct_loader_env;

/* What to build: -v's candidates of every library; -q's text needs no facts nor copies. */
struct ct_ldd_options {
	bool verbose;
	bool brief;
};

/*
 * Model what the loader would do for file in this shell (env: ld.so's
 * own options, may be NULL). Returns 0 (m->is_static for a file with no
 * dynamic section), or -1 with m->error in words: nothing else is set
 * then. Reads file and every library it maps (their dynamic sections,
 * their device code, with threads); runs nothing. m must be released
 * either way.
 */
int ct_ldd_build(struct ct_ldd *m, const char *file, const struct ct_loader_env *env,
		 const struct ct_ldd_options *o);
void ct_ldd_release(struct ct_ldd *m);

#endif

/*
 * What glibc's loader model (resolve.h) answered, in words: the pieces
 * the models of ldd, why and doctor share (ldd_model.h, why_model.h,
 * doctor_model.h). A lookup's candidates with their rules and outcomes,
 * a file's CUDA facts and device-code summary, the copies of a library
 * elsewhere on the machine, a symbol version a dependency lacks, the
 * foreign interpreter a file names, the working directory's entries of
 * the search paths, and the driver-missing story of a lookup of the
 * driver's library. Everything a view prints is worked out here, once:
 * render/explain.c reads these types and calls no function of the
 * loader model.
 *
 * Ownership: every string and array is allocated in the arena given to
 * the builder (the model that holds the piece owns that arena) and lives
 * as long as it. Strings are NULL or "" where the field says. Not
 * thread-safe.
 */
#ifndef CT_ANSWERS_H
#define CT_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "libnames.h"

/* One candidate the loader tried for a name. */
struct ct_answer_cand {
	const char *path;          /* "" for an ld.so.cache consultation without entry */
	const char *rule;          /* the rule in words, at this path (ct_rule_text_at) */
	const char *rule_plain;    /* the rule in words alone (ct_rule_text) */
	const char *via;           /* the rule's id (ct_rules.def) */
	const char *via_object;    /* whose RPATH or RUNPATH, or NULL */
	const char *outcome;       /* the outcome's id: "missing", "found"... */
	const char *words;         /* the outcome in words, why refused when it was */
	bool subdir;               /* a glibc-hwcaps or legacy subdirectory */
	bool found;                /* the outcome is "found" */
	bool shadowed;             /* why: later in the order, a file that is not the winner */
};

struct ct_answer_cands {
	struct ct_answer_cand *c;
	size_t n;
};

/* A file's CUDA facts (libfacts.h), as shown. */
struct ct_answer_facts {
	bool shown;                /* a CUDA library or device code: something to say */
	bool library;              /* one of NVIDIA's CUDA libraries, by name */
	const char *renamed;       /* found as another major of itself: that in words; NULL */
	const char *version;       /* "13.0.48", or "" */
	const char *soname;        /* "" when none */
	enum ct_driver_lib driver; /* the driver's own libraries: CUDA or NVML */
	const char *driver_version; /* "550.163.01", or "" */
	bool driver_stub;          /* the toolkit's stub of the driver */
	bool scanned;              /* the device code could be read */
	size_t nimages;
	const char *line;          /* "sass sm_75 sm_80, ptx compute_90" */
	const char *sass, *ptx, *ltoir; /* space-separated, or "none" */
};

/* A copy of a library elsewhere on the machine (copies.h). */
struct ct_answer_copy {
	const char *path, *where;
	const char *version;       /* "12.4.127", or "" */
	bool same_name;            /* the name asked; false: another major */
};

struct ct_answer_copies {
	struct ct_answer_copy *c;
	size_t n;
};

/* A symbol version the copy a requester gets lacks (symvers.h). */
struct ct_answer_gap {
	const char *requester;     /* its path */
	const char *requester_brief; /* its file name ("the program" for a stand-in) */
	const char *requester_name;  /* its path ("the program" for a stand-in) */
	const char *library;       /* the name it needs it from */
	const char *version;       /* the version needed */
	const char *symbol;        /* the symbol the need names, or NULL */
	const char *missing_symbol; /* the version is there, this symbol under it is not; NULL */
	size_t nmissing;           /* symbols of that version missing */
	const char *lacking;       /* the copy that lacks it */
	const char *lacking_rule;  /* how the loader took that copy, in words */
	const char *having;        /* a copy that has it, or NULL */
	const char *having_where;  /* where that is, in words; NULL without having */
	const char *fix;
};

struct ct_answer_gaps {
	struct ct_answer_gap *g;
	size_t n;
};

/* The loader the judged file names (PT_INTERP) when not the system's. */
struct ct_answer_interp {
	const char *path;          /* NULL: none, or the system's */
	const char *facts_from;    /* the system loader whose facts were used; NULL: defaults */
};

/* A search path with an empty or relative entry: the working directory's. */
struct ct_answer_cwd {
	bool ld_library_path;      /* LD_LIBRARY_PATH's (else an object's RPATH or RUNPATH) */
	const char *rule;          /* whose: "RUNPATH of libx.so", "LD_LIBRARY_PATH" */
	const char *entry;         /* "an empty entry", "a relative entry, lib" */
	const char *found;         /* a file found there, or NULL */
};

struct ct_answer_cwds {
	struct ct_answer_cwd *e;
	size_t n;
};

/*
 * A lookup of the driver's library (libcuda.so.1, NVML) that found
 * nothing, told in driver-missing's words; lib CT_DRIVER_LIB_NONE for
 * any other lookup.
 */
struct ct_answer_driver_missing {
	enum ct_driver_lib lib;
	const char *name;          /* as asked */
	const char *stop_path;     /* the file the loader stopped at, or NULL: none found */
	const char *stop_words;    /* why it stopped there */
};

/*
 * The builders, for the models' own builders (cli/model/); views never
 * call them. Each fills its piece from the loader model's types, with
 * its strings in a.
 */
struct ct_loader;
struct ct_lookup;
struct ct_cand;
struct ct_cuda_facts;
struct ct_copies;
struct ct_version_gap;

/* k's candidates [first, first + n) (all: 0, k->ncands). */
void ct_answer_cands_from(struct ct_answer_cands *out, struct ct_arena *a,
			  const struct ct_lookup *k, size_t first, size_t n);
/* c's facts as shown; c NULL: nothing to show. */
struct ct_answer_facts *ct_answer_facts_from(struct ct_arena *a, const struct ct_cuda_facts *c);
void ct_answer_copies_from(struct ct_answer_copies *out, struct ct_arena *a,
			   const struct ct_copies *cs);
void ct_answer_gaps_from(struct ct_answer_gaps *out, struct ct_arena *a,
			 const struct ct_version_gap *g, size_t n);
void ct_answer_interp_from(struct ct_answer_interp *out, struct ct_arena *a,
			   const struct ct_loader *L);
/* The search paths of L's lookups with a relative entry the loader tried. */
void ct_answer_cwds_from(struct ct_answer_cwds *out, struct ct_arena *a, const struct ct_loader *L);
/* For a lookup k of name (the driver's library or not). */
void ct_answer_driver_missing_from(struct ct_answer_driver_missing *out, struct ct_arena *a,
				   const char *name, const struct ct_lookup *k);
/* s in a, or NULL for NULL. */
const char *ct_answer_str(struct ct_arena *a, const char *s);

#endif

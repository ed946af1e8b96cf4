/*
 * A model of glibc's dynamic loader (reference/resolution.md 2): for a
 * requesting object and a library name, the candidates it tries, in order,
 * with the rule behind each and what it found, and the object it ends up
 * with. Faithful to: already-loaded names and sonames; names with a slash;
 * the DT_RPATH chain (requester, its loaders, the executable) used only
 * when the requester has no DT_RUNPATH; LD_LIBRARY_PATH; the requester's
 * own DT_RUNPATH; /etc/ld.so.cache with glibc-hwcaps entries; the default
 * directories; DF_1_NODEFLIB; $ORIGIN, $LIB, $PLATFORM; the glibc-hwcaps
 * and legacy subdirectories of every directory; candidates of another ELF
 * class or machine skipped; secure mode; LD_PRELOAD. The platform facts
 * come from the loader itself (platform.h).
 *
 * Ownership: struct ct_loader owns every object, resolution and string
 * reachable from it; ct_loader_release frees them. Not thread-safe.
 */
#ifndef CT_RESOLVE_H
#define CT_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "elfinfo.h"
#include "ldcache.h"
#include "platform.h"
#include "rules.h"

enum ct_outcome {
	CT_DIR_MISSING,  /* the directory does not exist */
	CT_FILE_MISSING, /* no such file there */
	CT_WRONG_CLASS,  /* an ELF file of the other class: skipped */
	CT_WRONG_MACHINE, /* an ELF file for another machine: skipped */
	CT_NOT_ELF,      /* not a loadable ELF file: the loader stops there */
	CT_REJECTED,     /* a cache hit in a default directory, with NODEFLIB */
	CT_NOT_SUID,     /* secure mode: a preload that is not set-user-ID */
	CT_NO_ENTRY,     /* ld.so.cache has no entry for the name (path "") */
	CT_FOUND,
};

/*
 * Why the loader cannot load a file cut short, and one whose code is on a
 * file system mounted noexec (ct_lookup.error; the second in the loader's
 * words).
 */
extern const char ct_truncated_why[];
extern const char ct_noexec_why[];
/* A file the process may not read: the loader skips it as if it were missing. */
extern const char ct_eacces_why[];

struct ct_cand {
	char *path;
	enum ct_rule via; /* rpath, ld_library_path, runpath, ld.so.cache, default, direct */
	const struct ct_lobj *owner; /* whose RPATH/RUNPATH, for those two */
	enum ct_outcome outcome;
	const char *why;  /* CT_NOT_ELF: the loader's words (static); a file
			     skipped as missing because it may not be read:
			     ct_eacces_why; else NULL */
	bool subdir;      /* a glibc-hwcaps or legacy subdirectory */
};

/* An object the simulated loader has mapped. */
struct ct_lobj {
	char *path;               /* as the loader names it */
	char *origin;             /* what $ORIGIN expands to for it */
	enum ct_rule found_via;   /* how it was found (see struct ct_lookup) */
	const struct ct_lobj *via_owner; /* whose RPATH/RUNPATH found it */
	struct ct_lobj *loader;   /* the object whose search mapped it */
	struct ct_elfinfo info;
	dev_t dev;
	ino_t ino;
	char **names;             /* the names it answers to (soname, as asked) */
	size_t nnames;
	bool is_main;
	bool preload;
	bool is_rtld;             /* the dynamic loader (PT_INTERP) */
	size_t index;             /* in load order */
};

/* One lookup: a name asked for by a requester, and its outcome. */
struct ct_lookup {
	char *name;               /* as asked (DT_NEEDED, dlopen) */
	char *expanded;           /* with $ORIGIN, $LIB, $PLATFORM expanded; or NULL */
	const struct ct_lobj *requester;
	enum ct_rule found_via;   /* rpath ld_library_path runpath ld.so.cache
				     default direct already-loaded preload
				     not-found */
	const struct ct_lobj *via_owner;
	struct ct_lobj *object;   /* NULL when not found (or only searched) */
	char *path;               /* ct_loader_search: the file found, or NULL */
	bool new_object;          /* mapped by this lookup */
	struct ct_cand *cands;
	size_t ncands;
	const char *error;        /* the loader's words: "cannot open shared object
				     file: No such file or directory", ... */
	bool cache_miss;          /* ld.so.cache was consulted and had no entry */
	bool fatal;               /* the loader gives up the whole load here */
	bool preload;             /* asked by LD_PRELOAD or /etc/ld.so.preload */
	bool exhaustive;          /* candidates go on past the one found */
	bool secure_preload;      /* secure mode's rules for preloads */
};

struct ct_copies_cache;

/*
 * What a user of the model keeps with it between lookups: copies.c's
 * cache (ct_find_copies), made there on first use and freed through the
 * function it leaves beside it, so that the model never calls copies.c
 * (copies.c calls the model). Behind a pointer: a model passed const
 * still keeps it.
 */
struct ct_loader_memo {
	struct ct_copies_cache *copies;
	void (*free_copies)(struct ct_copies_cache *c);
};

struct ct_loader {
	struct ct_platform plat;
	struct ct_ldcache cache;
	bool cache_ok;
	char *ld_library_path;    /* as set, or NULL */
	char *ld_preload;
	bool secure;              /* the main program runs set-user-ID */
	char cwd[4096];
	struct ct_lobj **objs;    /* load order */
	size_t nobjs;
	struct ct_lobj *main;
	struct ct_lookup **lookups; /* every lookup made, in order */
	size_t nlookups;
	struct ct_lobj *rtld;     /* the dynamic loader itself, once mapped */
	const struct ct_lookup *fatal; /* the lookup that ended the load, or NULL */
	struct ct_loader_memo *memo; /* owned; NULL in a model set up by hand */
	/*
	 * The PT_INTERP of the file set up by ct_loader_open when it is not
	 * the system's loader (plat.rtld): a conda or Nix ld.so, or any
	 * program. It was not run; the facts are the system loader's. NULL:
	 * none, or the system's.
	 */
	char *foreign_interp;
};

/* What to judge with instead of the environment (ld.so's own options). */
struct ct_loader_env {
	const char *library_path; /* NULL: $LD_LIBRARY_PATH; "": none */
	const char *preload;      /* NULL: $LD_PRELOAD; "": none */
};

/*
 * The current environment's view: LD_LIBRARY_PATH, LD_PRELOAD (or what
 * env says instead; env may be NULL), the cache, and the facts of the
 * system's loader for files of machine and elf_class (0: cudatrace's own;
 * ct_platform_ask).
 */
void ct_loader_init(struct ct_loader *L, unsigned machine, int elf_class,
		    const struct ct_loader_env *env);
/*
 * The same with the loader's facts asked ahead (ct_platform_ask, which q
 * holds; answered and freed here).
 */
void ct_loader_init_asked(struct ct_loader *L, struct ct_platform_question *q,
			  const struct ct_loader_env *env);
/* The same with the loader facts of like (no program run to ask them). */
void ct_loader_init_like(struct ct_loader *L, const struct ct_loader *like,
			 const struct ct_loader_env *env);
void ct_loader_release(struct ct_loader *L);

/*
 * Map path as the program, as the kernel and the loader would (a shared
 * object given here plays the program, as under ldd). NULL path: a
 * stand-in program with no paths of its own, for "what would dlopen(name)
 * find". Returns the object, or NULL with a negative errno in *err.
 */
struct ct_lobj *ct_loader_start(struct ct_loader *L, const char *path, int *err);

/*
 * Look name up for requester as the loader does (DT_NEEDED or dlopen from
 * it), mapping the object found. The lookup is kept in L->lookups.
 */
struct ct_lookup *ct_loader_lookup(struct ct_loader *L, struct ct_lobj *requester,
				   const char *name);

/*
 * What the loader makes of the file at path as a candidate (its
 * open_verify, whether the segments it maps are in the file, whether its
 * code may be mapped): missing (*why ct_eacces_why when it is there but
 * may not be read), another class or machine (skipped, the search goes
 * on), CT_NOT_ELF (the loader stops there, *why in its words,
 * ct_truncated_why or ct_noexec_why), CT_FOUND.
 */
enum ct_outcome ct_loader_check_file(const struct ct_loader *L, const char *path,
				     const char **why);

/*
 * The search alone: the candidates the loader would try for name if
 * nothing answered to it yet. Maps nothing and is not kept in L; the
 * caller frees it with ct_lookup_free (before releasing L). The file it
 * would map is the first candidate found (path), its rule in found_via.
 * Exhaustive: every rule is tried past that one, to show what it shadows.
 */
struct ct_lookup *ct_loader_search(struct ct_loader *L, struct ct_lobj *requester,
				   const char *name, bool exhaustive);
void ct_lookup_free(struct ct_lookup *k);

/*
 * The whole start-up: LD_PRELOAD, then every DT_NEEDED breadth-first as
 * the loader maps them.
 */
void ct_loader_load_all(struct ct_loader *L);

/* Words for outcomes: "directory missing", "no such file", ... */
const char *ct_outcome_name(enum ct_outcome o);
/*
 * Does this loader refuse a dlopen that brings in an object asking for an
 * executable stack (glibc 2.41 and later; the start of a program still
 * grants one)?
 */
bool ct_loader_refuses_execstack(const struct ct_loader *L);
/* A candidate's outcome in words: why the loader refused it, when it did. */
const char *ct_cand_words(const struct ct_cand *c);
/* Stable identifiers for JSON: "dir-missing", "missing", "wrong-class", ... */
const char *ct_outcome_id(enum ct_outcome o);

/*
 * Set L up for file as the program (NULL: a stand-in program), judged by
 * the facts of the system's loader. The loader the file names (PT_INTERP)
 * is never run: when it is another file than the system's, it is kept in
 * L->foreign_interp, for the caller to say so. Returns
 * 0; 1 for a file without dynamic section (nothing set up); or a negative
 * errno with *why in words (L released).
 */
int ct_loader_open(struct ct_loader *L, const char *file, const struct ct_loader_env *env,
		   const char **why);

#endif

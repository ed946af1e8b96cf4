/*
 * The one symbol-version analysis, for ldd and why (over the loader
 * model) and for the symbol-version-missing finding (over a traced
 * process): does the copy a requester gets give the version (VERNEED) it
 * needs, and every symbol under it; if not, which copy would; and the fix,
 * in one wording.
 *
 * Ownership: a struct ct_symcache owns the tables it reads
 * (ct_symcache_free); a struct ct_symscope borrows its paths and cache; a
 * gap owns `having`.
 */
#ifndef CT_SYMVERS_H
#define CT_SYMVERS_H

#include <stdbool.h>
#include <stddef.h>

#include "elfinfo.h"
#include "resolve.h"

/*
 * Each file's version definitions and symbol table, read once when first
 * asked and kept for as long as the cache lives: a report asks the same
 * libraries of every process of a job. The paths that name one file (by
 * device and inode) share what is read of it. It also keeps what each provider
 * gives each VERNEED entry asked of it (ct_symver_check), by the entry's
 * address: the entries asked must live, unchanged, as long as the cache.
 * Not thread-safe.
 */
struct ct_symcache;

struct ct_symcache *ct_symcache_new(void);
void ct_symcache_free(struct ct_symcache *c);
/* path's dynamic symbols, or NULL when it cannot be read. Owned by c. */
const struct ct_symtab *ct_symcache_table(struct ct_symcache *c, const char *path);
/* path's unversioned undefined symbols (elfinfo.h), or NULL when unreadable. Owned by c. */
const struct ct_undefs *ct_symcache_undefs(struct ct_symcache *c, const char *path);
/* Does path define version, and symbol under it (symbol may be NULL)? */
bool ct_symcache_satisfies(struct ct_symcache *c, const char *path, const char *version,
			   const char *symbol);

/* The objects of one link map, whose symbols the loader searches. */
struct ct_symscope {
	const char *const *paths;  /* borrowed */
	size_t n;
	struct ct_symcache *cache; /* borrowed */
	const struct scope_id *id; /* the list interned in cache: alike scopes are one */
};

/* paths[0..n): the objects the loader would search for a symbol (not the program). */
void ct_symscope_init(struct ct_symscope *s, const char *const *paths, size_t n,
		      struct ct_symcache *cache);
void ct_symscope_release(struct ct_symscope *s);

enum ct_symver_verdict {
	CT_SYMVER_OK,          /* given (or the provider has no versions: the loader only warns) */
	CT_SYMVER_NO_VERSION,  /* "version `V' not found (required by R)" */
	CT_SYMVER_NO_SYMBOL,   /* "undefined symbol: S, version V" */
};

/*
 * What need (one VERNEED entry of a requester) gets from the file at
 * provider, in scope s: OK; the version missing; or the version there but
 * a symbol under it defined nowhere in the scope (NVIDIA's libraries keep
 * every symbol under one version named after the soname), then *missing
 * (a view into need) and *nmissing.
 */
enum ct_symver_verdict ct_symver_check(struct ct_symscope *s, const char *provider,
				       const struct ct_verneed *need, const char **missing,
				       size_t *nmissing);

/*
 * A copy that has what is missing (version, and symbol under it when not
 * NULL): the first file found among search's candidates (the requester's
 * own search order, past the copy it took), else a copy elsewhere on the
 * machine L knows (copies.h). *having to free, where in words ("RUNPATH
 * of libx.so, later in the order", "pip wheel"); false when none has it,
 * and always for a version of glibc's (another C library than the one
 * the loader belongs to breaks every program).
 */
bool ct_symver_having(const struct ct_loader *L, struct ct_symcache *cache,
		      const struct ct_lookup *search, const char *version, const char *symbol,
		      char **having, char *where, size_t size);

/*
 * The versions of the system's own libraries: glibc's (GLIBC_2.38, of
 * libc.so.6, libm.so.6...) come with the distribution and no program
 * can take another (the C library must match the loader); libstdc++'s
 * and libgcc_s's (GLIBCXX_3.4.32, CXXABI_1.3.15, GCC_13.0) with its
 * compiler. A requester built for newer ones needs a build for this
 * system; another copy of glibc is never the fix.
 */
enum ct_symver_kind { CT_SYMVER_LIBRARY, CT_SYMVER_GLIBC, CT_SYMVER_CXX };
enum ct_symver_kind ct_symver_kind(const char *version);

/* What the fix is told with, besides the gap (ct_symver_ctx_read). */
struct ct_symver_ctx {
	char newest[64];   /* lacking's newest version of the needed one's kind: "GLIBC_2.36"; "" */
	char glibc[16];    /* the C library's release: "2.36", from its newest GLIBC_2.x; "" */
	bool python;       /* the requester is a Python package's: pip helps (else a Node or C
			      program: the toolkit or the distribution) */
};

/*
 * lacking's newest version of the kind need->version is (GLIBC_2.x,
 * GLIBCXX_3.4.x...), and the release of the C library at libc (NULL:
 * lacking when it is glibc's), read through c; "" for what none says.
 * python as given.
 */
void ct_symver_ctx_read(struct ct_symcache *c, const char *lacking, const char *libc,
			const struct ct_verneed *need, bool python, struct ct_symver_ctx *out);

/*
 * The fix, one wording for ldd, why, run and report, into buf: requester
 * (its file name; several, "a and b", when many) took lacking through rule via; having/where as above,
 * or NULL when no copy has it. really: lacking's DT_SONAME when lacking
 * is another major renamed (ct_library_renamed), else NULL: then no
 * version of it ever works, and the fix says so. sys (may be NULL: no
 * pip, nothing known of the system): what else the fix is told with; a
 * gap in the system's libraries (ct_symver_kind) is fixed by a build of
 * the requester for this system, never "install a newer libc.so.6".
 */
void ct_symver_fix(char *buf, size_t size, const char *requester, bool many, const char *lacking,
		   const char *really, enum ct_rule via, const struct ct_verneed *need,
		   const char *symbol, const char *having, const char *where,
		   const struct ct_symver_ctx *sys);

/* A gap in the loader model: what ldd and why report. */
struct ct_version_gap {
	const struct ct_lobj *requester;
	const struct ct_lobj *lacking;   /* the copy that lacks it */
	const struct ct_verneed *need;
	const char *missing_symbol;      /* CT_SYMVER_NO_SYMBOL: the first; else NULL */
	size_t nmissing;                 /* symbols of that version missing */
	char *having;                    /* a copy that defines it, or NULL */
	char having_where[160];
	char fix[1536];                  /* ct_symver_fix */
};

/* Every gap in L's loaded objects; *n of them, to free with ct_version_gaps_free. */
struct ct_version_gap *ct_version_gaps(struct ct_loader *L, size_t *n);
/*
 * The same for the requesters L->objs[first..) only (a load made after
 * others, whose gaps were asked before), in the scope of every object.
 */
struct ct_version_gap *ct_version_gaps_since(struct ct_loader *L, size_t first, size_t *n);
void ct_version_gaps_free(struct ct_version_gap *g, size_t n);

#endif

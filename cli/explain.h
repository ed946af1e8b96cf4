/*
 * Showing the loader model's answers (resolve.h) to people and scripts:
 * the rule behind a lookup, its candidates, a library's CUDA version and
 * device code, and the symbol versions its users need. Shared by ldd and
 * why.
 */
#ifndef CT_EXPLAIN_H
#define CT_EXPLAIN_H

#include <stdio.h>

#include "json.h"
#include "resolve.h"

/* The name an object is shown by: its path, or its file name when brief. */
const char *ct_lobj_name(const struct ct_lobj *o, bool brief);

/* "RUNPATH of libfoo.so.1", "LD_LIBRARY_PATH", "ld.so.cache"; into buf. */
char *ct_rule_text(const char *via, const struct ct_lobj *owner, char *buf, size_t size);

/* Numbered candidates, one per line: path, rule, outcome. */
void ct_print_lookup_candidates(FILE *out, const struct ct_lookup *k, const char *indent);

/* The candidates as a JSON array of {"path","via","via_object","outcome"}. */
void ct_json_candidates(struct ct_json *j, const struct ct_lookup *k);

/*
 * A file's CUDA facts: version (for CUDA libraries, from the real file's
 * name) and device code (the fatbin sections, headers only). Filled by
 * ct_cuda_facts_read; ct_cuda_facts_release frees.
 */
struct ct_cuda_facts {
	bool cuda_library;      /* one of NVIDIA's CUDA libraries, by name */
	char version[64];       /* "13.0.48", or "" */
	bool scanned;           /* the scan worked */
	size_t nimages;
	char line[512];         /* "sass sm_75 sm_80, ptx compute_90" */
	char sass[512], ptx[256], ltoir[256]; /* space-separated, or "none" */
};

void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path);
/* "CUDA library, version 13.0.48; device code: sass sm_80" after prefix; nothing
   for a file that is neither a CUDA library nor has device code. */
void ct_print_cuda_facts(FILE *out, const struct ct_cuda_facts *c, const char *prefix);
/* {"library":bool,"version":..,"images":N,"sass":[..],"ptx":[..],"ltoir":[..]} */
void ct_json_cuda_facts(struct ct_json *j, const struct ct_cuda_facts *c);

/*
 * A version an object needs (VERNEED) that the object its lookup
 * resolved to does not define (VERDEF): the symbol-version-missing case.
 */
struct ct_version_gap {
	const struct ct_lobj *requester;
	const struct ct_lobj *lacking;   /* the copy that lacks it */
	const struct ct_verneed *need;
	/*
	 * The version is there but not this symbol under it (NVIDIA's
	 * libraries put every symbol under one version, libnvJitLink.so.12):
	 * "undefined symbol: SYMBOL, version VERSION". NULL: the version
	 * itself is missing ("version `VERSION' not found").
	 */
	const char *missing_symbol;
	size_t nmissing;                 /* symbols of that version missing */
	char *having;                    /* a copy that defines it, or NULL */
	char having_where[160];          /* "RUNPATH of libx.so, later in the order",
					    "pip wheel", ... */
};

/* Every gap in the loaded objects; *n of them, to free with ct_version_gaps_free. */
struct ct_version_gap *ct_version_gaps(struct ct_loader *L, size_t *n);
void ct_version_gaps_free(struct ct_version_gap *g, size_t n);
/* A gap in words, with what the program would say and the fix. */
void ct_print_gap(FILE *out, const struct ct_version_gap *g);
/* The gaps as a JSON array of symbol-version-missing entries. */
void ct_json_gaps(struct ct_json *j, const struct ct_version_gap *g, size_t n);

/*
 * Set L up for file as the program (NULL: a stand-in program), judged by
 * the loader the file names (PT_INTERP) when this system has it. Returns
 * 0; 1 for a file without dynamic section (nothing set up); or a negative
 * errno with *why in words (L released).
 */
int ct_loader_open(struct ct_loader *L, const char *file, const struct ct_loader_env *env,
		   const char **why);

#endif

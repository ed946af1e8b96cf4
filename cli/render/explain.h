/*
 * The loader model's answers (answers.h) shown to people and scripts: a
 * lookup's candidates, a file's CUDA version and device code, the symbol
 * versions its users need, the foreign interpreter, the working
 * directory's entries, the driver-missing story. Views of the model
 * (ldd_out.c, why_out.c, doctor_out.c share them): they read the types
 * of answers.h and nothing else, into the FILE or JSON writer given.
 */
#ifndef CT_EXPLAIN_H
#define CT_EXPLAIN_H

#include <stdio.h>

#include "answers.h"
#include "json.h"


/* Numbered candidates, one per line: path, rule, outcome. */
void ct_print_lookup_candidates(FILE *out, const struct ct_answer_cands *k, const char *indent);

/* The candidates as a JSON array of {"path","via","via_object","outcome","hwcaps_subdirectory"}. */
void ct_json_candidates(struct ct_json *j, const struct ct_answer_cands *k);

/*
 * "CUDA library, version 13.0.48; device code: sass sm_80" after prefix;
 * nothing for a file that is neither a CUDA library nor has device code
 * (nor for NULL). The driver's own libraries say "the NVIDIA driver
 * 550.163.01" (NVML: "NVML of the NVIDIA driver 550.163.01"), with device
 * code only when they have some.
 */
void ct_print_cuda_facts(FILE *out, const struct ct_answer_facts *c, const char *prefix);
/*
 * For a lookup of the driver's library name (libcuda.so.1, NVML) that
 * found nothing: one line after prefix in driver-missing's words (no
 * NVIDIA driver, or the file the loader stopped at); nothing otherwise.
 */
void ct_print_driver_missing(FILE *out, const struct ct_answer_driver_missing *m,
			     const char *prefix);
/* {"library":bool,"version":..,"images":N,"sass":[..],"ptx":[..],"ltoir":[..]};
   "driver_version" for the driver's own libraries. */
void ct_json_cuda_facts(struct ct_json *j, const struct ct_answer_facts *c);

/* The copies as a JSON array of {"path","where","version","same_name"}. */
void ct_json_copies(struct ct_json *j, const struct ct_answer_copies *cs);

/*
 * When the file judged names another loader (PT_INTERP) than the
 * system's: a line saying that it was not run and whose facts these are.
 * Nothing otherwise.
 */
void ct_print_foreign_interp(FILE *out, const struct ct_answer_interp *i);
/* "foreign_interp": {"path", "run": false, "facts_from"} or null. */
void ct_json_foreign_interp(struct ct_json *j, const struct ct_answer_interp *i);

/*
 * A warning per search path that has an empty or relative entry (RPATH
 * or RUNPATH of an object, LD_LIBRARY_PATH) the loader tried: it looks
 * for libraries in the working directory, so the folder a program is
 * started from can give it libraries; what it found there is named.
 */
void ct_print_cwd_entries(FILE *out, const struct ct_answer_cwds *c);
/* A gap in words, with what the program would say and the fix. */
void ct_print_gap(FILE *out, const struct ct_answer_gap *g);
/* The gaps as a JSON array of symbol-version-missing entries. */
void ct_json_gaps(struct ct_json *j, const struct ct_answer_gaps *g);


#endif

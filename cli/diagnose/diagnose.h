/*
 * The diagnosis engine: from a trace (and the files it names), findings
 * with their evidence and fixes (findings.h). Inputs: what each process
 * loaded and failed to load, the driver and GPUs it saw, the module loads
 * and their results; the scanner's view of every loaded object with device
 * code; the loader model (resolve.h) for what a requester's own paths
 * would have given; the tables of compat.h. The device is the GPUs the
 * trace recorded, or the targets given (--arch); with neither, device code
 * is not judged, and the report says so.
 *
 * Ownership: struct ct_diagnosis owns its findings and per-object caches;
 * ct_diagnosis_release frees them. The trace must outlive nothing here.
 */
#ifndef CT_DIAGNOSE_H
#define CT_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "arch.h"
#include "findings.h"
#include "targets.h"
#include "trace.h"


struct ct_devcode;
struct ct_devfile;
struct ct_symcache;
struct ct_own_choice;
struct ct_dx_unresolved;
struct ct_memo;
struct ct_dx_version;

struct ct_diagnosis {
	struct ct_findings findings;
	struct elfscan_target targets[CT_MAX_TARGETS];
	char target_names[CT_MAX_TARGETS][CT_TARGET_NAME]; /* "sm_90 (NVIDIA H100)" */
	size_t ntargets;
	bool targets_from_trace;  /* the GPUs recorded; else --arch or none */
	struct ct_devcode *code_by_path; /* each path's file (a hash table) */
	struct ct_devfile *files;  /* each file's facts, read once, by device and inode */
	struct ct_devfile *all_files; /* those and the files stat could not name */
	struct ct_symcache *syms;  /* each file's versions and symbols, read once */
	struct ct_own_choice *own_choices; /* the loader model's answers, once each */
	struct ct_dx_unresolved *unresolved; /* what an object's tree misses, once each */
	struct ct_memo *memo;      /* rules' answers for processes that map alike */
	struct ct_dx_version *versions; /* libraries' versions by path, asked once */
	struct ct_dx_refusal *refusals; /* searches that stopped at a refused file */
};

struct ct_loader;

/*
 * Every finding for t; targets (NULL/0: the GPUs the trace recorded).
 * machine is the loader model of the machine the trace is judged on
 * (resolve.h: its platform facts, ld.so.cache and environment, started
 * with a stand-in program, as ct_loader_open(L, NULL, ...) gives): what a
 * requester's own RPATH/RUNPATH would give, and copies elsewhere, are
 * asked of it. Borrowed; it must outlive the call only.
 */
void ct_diagnose(struct ct_diagnosis *d, const struct ct_trace *t,
		 const struct elfscan_target *targets, size_t ntargets,
		 const struct ct_loader *machine);
void ct_diagnosis_release(struct ct_diagnosis *d);

/*
 * When a search of the trace stopped at a file the loader refused (cut
 * short, empty, not ELF, noexec, an executable stack in a dlopen) and a
 * finding said so: that file, and *words (words may be NULL) the refusal
 * in a few words (as the finding's headline has them). NULL otherwise.
 */
const char *ct_diagnosis_refused(const struct ct_diagnosis *d, const struct ct_search *s,
				 const char **words);

/*
 * The device code of an object of the trace, scanned once per file by
 * ct_diagnose: NULL when it has none, cannot be read, or is not in the
 * trace. images/nimages as elfscan gives them; owned by d.
 */
const struct elfscan_file *ct_diagnosis_code(const struct ct_diagnosis *d, const char *path);
/*
 * The archs of a module's images, once each ("sm_80 sm_86"), into buf:
 * those the trace lists, or, when the shim recorded where the image is (a
 * file and an offset), read from that file as ct_diagnose mapped it. ""
 * when neither says. Returns buf.
 */
char *ct_module_images_words(const struct ct_diagnosis *d, const struct ct_module *m, char *buf,
			     size_t size);
/*
 * The DT_SONAME of a traced object: its file's, as ct_diagnose read it,
 * else the one the trace recorded (a trace judged away from its files);
 * NULL when neither. Owned by d or the trace.
 */
const char *ct_diagnosis_soname(const struct ct_diagnosis *d, const struct ct_loaded *o);
/* Did any object of the trace hold device code? */
bool ct_diagnosis_has_code(const struct ct_diagnosis *d);

/*
 * What kind of search the loader made, which decides what a miss does
 * (glibc 2.36, checked by experiment: tests/hostile/diag-search-kinds):
 * a DT_NEEDED or DT_FILTER entry that is missing stops the program at
 * start (status 127) or fails the dlopen that brought its requester; a
 * DT_AUXILIARY entry is skipped without a word; an LD_PRELOAD entry is
 * skipped with the loader's "ERROR: ld.so: object ... cannot be preloaded
 * ... ignored."; a dlopen returns NULL to the program.
 */
enum ct_search_kind {
	CT_SEARCH_DLOPEN,    /* a dlopen the shim recorded (s->request) */
	CT_SEARCH_NEEDED,    /* a DT_NEEDED entry of the requester */
	CT_SEARCH_FILTER,    /* a DT_FILTER entry: the filtee is required */
	CT_SEARCH_AUXILIARY, /* a DT_AUXILIARY entry: optional */
	CT_SEARCH_PRELOAD,   /* an LD_PRELOAD entry, asked for by the program */
	CT_SEARCH_OTHER,     /* none of these: the C library's own dlopen (NSS,
				libgcc_s), a dlopen the shim did not see */
};

/*
 * The kind of s, a search of process p of the trace d was made for: read
 * from the requester's dynamic section (as ct_diagnose read it) and p's
 * LD_PRELOAD. A requester whose file cannot be read gives
 * CT_SEARCH_NEEDED, the common case.
 */
enum ct_search_kind ct_diagnosis_search_kind(const struct ct_diagnosis *d, const struct ct_proc *p,
					     const struct ct_search *s);

#endif

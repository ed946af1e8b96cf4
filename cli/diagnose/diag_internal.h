/*
 * Shared by the parts of the diagnosis engine; not for other callers:
 * diagnose.h is the interface. Three floors, each calling only those
 * below it (tools/check-layers finds a circle):
 *  - the engine (diagnose.c) sets up each process (struct ctx) and runs
 *    the rules, declared last here;
 *  - the rules, a file per finding code or group of them (diag_*.c);
 *  - what the rules share: each file's facts, read once (dx_files.c),
 *    the CUDA a file was built for (builds.c), and the helpers every rule
 *    uses (dx_helpers.c). These call no rule and not the engine.
 * What these return is owned by the diagnosis (c->d) or the trace and
 * lives as long as they do, unless a comment says otherwise; words go
 * into the caller's buffer. None is thread-safe: a diagnosis is made by
 * one thread.
 */
#ifndef CT_DIAG_INTERNAL_H
#define CT_DIAG_INTERNAL_H

#include "copies.h"
#include "elfinfo.h"
#include "diagnose.h"
#include "findings.h"
#include "resolve.h"
#include "trace.h"
#include "verdict.h"

/* One process under judgement. */
struct ctx {
	struct ct_diagnosis *d;
	const struct ct_proc *p;
	const struct ct_loader *L; /* the machine: loader facts, for copies and models */
	char program[160];        /* its command line, shortened */
	const char *rank;         /* RANK, SLURM_PROCID, ... or NULL */
	/*
	 * Every object mapped in the process (ct_dx_mapped_init): what a fork
	 * inherited from its parent first, then p->objects. The rules judge
	 * p's own objects and searches, and look libraries up in this.
	 */
	const struct ct_loaded **mapped;
	size_t nmapped, ninherited;  /* mapped[0..ninherited): inherited */
	struct ct_dx_name *names;    /* the names they answer to (ct_dx_loaded_named) */
	struct ct_dx_name *name_store;
	char *mapped_key;            /* ct_dx_mapped_key, made when first asked */
	size_t mapped_key_len;
	/*
	 * Left by one rule for a later one: the searches whose answer may be
	 * among the lost records (ct_dx_rule_incomplete, for
	 * ct_dx_rule_stopped), and whether the process ended at a lazy
	 * binding's missing symbol, the loader's _exit(127)
	 * (ct_dx_rule_symbol_missing): that, not the trace, is why it has no
	 * exit record.
	 */
	size_t lost;
	char lost_names[512];
	bool lazy_stop;
};

/* ---- each file's facts, read once (dx_files.c) ---------------------------------- */

/*
 * Read path once (its device code and dynamic section) for the rules and
 * the printers: ct_diagnose reads every object of the trace before any
 * rule runs. ct_dx_files_release frees what d holds of the files.
 */
void ct_dx_file_read(struct ct_diagnosis *d, const char *path);
void ct_dx_files_release(struct ct_diagnosis *d);
/* A traced object's dynamic section, read once by ct_diagnose; NULL when unreadable. */
const struct ct_elfinfo *ct_dx_elfinfo(const struct ctx *c, const char *path);
/*
 * A file's dynamic section and device code, read once, also for a file
 * the trace does not name (cuDNN's siblings, builds.c): NULL when
 * unreadable or without device code.
 */
const struct ct_elfinfo *ct_dx_elfinfo_scan(struct ctx *c, const char *path);
const struct elfscan_file *ct_dx_code_scan(struct ctx *c, const char *path);
/*
 * What a file says of its build (builds.c computes it), kept with the
 * file's other facts so that it is worked out once per file, not once per
 * process: a job's ranks all ask it of the same libraries, and finding
 * the compiler's release reads the whole .nv_fatbin.
 */
struct ct_file_build {
	bool known;                  /* worked out */
	int cuda;                    /* 0: the file does not say */
	char *why;                   /* its evidence in words; owned by the diagnosis */
	bool release_known;          /* release worked out */
	int release;                 /* ct_fatbin_compiler_release of its device code; 0: none */
};
/* path's slot (the file read once, as ct_dx_code_scan does); never NULL. */
struct ct_file_build *ct_dx_file_build(struct ctx *c, const char *path);
/* What a file's device code gives each target of the diagnosis (d->targets). */
struct ct_file_verdicts {
	const struct elfscan_file *code; /* its device code */
	bool runnable;            /* holds SASS or PTX */
	/*
	 * check's verdict for each target (verdict.c, the one rule: fatbin
	 * by fatbin, fatbins without kernels left out), and the image it
	 * runs by: the PTX one for ptx-jit, else the most picked, or -1.
	 */
	enum ct_verdict_kind verdicts[CT_MAX_TARGETS];
	long picks[CT_MAX_TARGETS];
	size_t ptx_only[CT_MAX_TARGETS], modules[CT_MAX_TARGETS];
	char archs[512];          /* what it holds, in words */
};
/* Those of an object of the trace; NULL when it holds no device code. */
const struct ct_file_verdicts *ct_dx_file_verdicts(struct ctx *c, const char *path);
/*
 * The version of the library at path (ct_library_version_read, libfacts.h,
 * with the file's own DT_SONAME), asked of the file system once per
 * diagnosis: the same libraries' versions are said for every process that
 * maps them. ct_dx_release: the same, "" for a bare major.
 */
const char *ct_dx_version(struct ctx *c, const char *path, char *buf, size_t size);
const char *ct_dx_release(struct ctx *c, const char *path, char *buf, size_t size);
/* o's DT_SONAME: its file's (read once), else the trace's; NULL when none. */
const char *ct_dx_soname(const struct ctx *c, const struct ct_loaded *o);
/* Was o loaded under another major of its own name (ct_library_renamed)? */
bool ct_dx_renamed(const struct ctx *c, const struct ct_loaded *o);

/* ---- the CUDA a file was built for (builds.c) ------------------------------------ */

/*
 * The newest "Cuda compilation tools, release X.Y" in the .nv_fatbin of
 * the file at path (ct_fatbin_compiler_release, cudart_need.h), as CUDA's
 * integer (13010) into *cuda, worked out once per file; false when none.
 */
bool ct_dx_file_release(struct ctx *c, const char *path, int *cuda);
/*
 * The CUDA o was built for (13000; 13010 when the minor is known), and
 * the evidence in words into why; 0 when the file does not say.
 */
int ct_dx_build(struct ctx *c, const struct ct_loaded *o, char *why, size_t size);

/* ---- the helpers every rule uses (dx_helpers.c) ---------------------------------- */

const char *ct_dx_base(const char *path);
/* Record that f was seen in c's process. */
void ct_dx_where(const struct ctx *c, struct ct_finding *f);
/*
 * The objects mapped in c's process into c->mapped: for a fork, those its
 * parent had mapped when the child started (loaded before the child's
 * start record, not closed: the parent's link map is the child's), its
 * parent's parent's before that, and so on; then the process's own.
 * ct_dx_mapped_release frees the array (the objects are the trace's).
 */
void ct_dx_mapped_init(struct ctx *c);
void ct_dx_mapped_release(struct ctx *c);
/*
 * What identifies c->mapped for a rule that reads no more of them than
 * which files they are, in which order, with which soname the trace
 * gives, inherited or not, the program and the shim: two processes with
 * the same key map alike (the ranks of a job). A view valid until
 * ct_dx_mapped_release; *len bytes.
 */
const char *ct_dx_mapped_key(struct ctx *c, size_t *len);
/*
 * A rule's answer for a key remembered for the whole diagnosis (tag
 * names the rule): ct_dx_memo_has says whether (tag, key) was added.
 */
bool ct_dx_memo_has(const struct ctx *c, char tag, const char *key, size_t len);
void ct_dx_memo_add(struct ctx *c, char tag, const char *key, size_t len);
void ct_dx_memo_free(struct ct_memo *all);
/* The first mapped object (c->mapped) with this soname or file name, or NULL. */
const struct ct_loaded *ct_dx_loaded_named(const struct ctx *c, const char *name);
/*
 * Did s end, unanswered because the process ended, at a candidate the
 * loader refuses (ct_loader_check_file: CT_NOT_ELF)? Then that file is
 * the cause, not a lost answer.
 */
bool ct_dx_search_ended_refused(const struct ctx *c, const struct ct_search *s);
/*
 * Did s end with nothing? Not when it opened a file, nor when a candidate
 * was a file already mapped, its own process's (the trace says) or one
 * inherited from a parent.
 */
bool ct_dx_search_missed(const struct ctx *c, const struct ct_search *s);
/*
 * The file the loader stopped at: s's last candidate (or the path asked
 * for), when it is there and the loader refused it (empty, cut short, not
 * ELF, on a noexec mount, needing an executable stack). The search never
 * went past it, so a whole copy later in the order was never reached: that
 * file is in the way. The loader's words in *why (from dlerror() when the
 * program got them, else as the loader model judges the file now); NULL
 * when s just missed.
 */
const char *ct_dx_refused_at(const struct ctx *c, const struct ct_search *s, const char **why);
/* Was it refused for wanting an executable stack (glibc 2.41 and later, in a dlopen)? */
bool ct_dx_execstack(const char *why);
/*
 * A candidate of s that is there but that this user may not read (EACCES):
 * the loader skips such a file as if it were missing. NULL when none.
 */
const char *ct_dx_unreadable(const struct ct_search *s);
/* Remember that s stopped at the refused file path (ct_diagnosis_refused). */
void ct_dx_refusal_note(struct ctx *c, const struct ct_search *s, const char *path,
			const char *why);
void ct_dx_refusals_free(struct ct_dx_refusal *all);
/* A refusal in a headline: the loader's words; a file cut short, a noexec mount in a few. */
const char *ct_dx_refused_words(const char *why);
/* The dlopen in progress on s's thread when s was made, or NULL (start-up). */
const struct ct_request *ct_dx_within_dlopen(const struct ctx *c, const struct ct_search *s);
/* "libcudart" of "libcudart.so.12"; into buf. */
const char *ct_dx_stem(const char *name, char *buf, size_t size);
/* "dlopen by X, found via RUNPATH"; into buf. */
void ct_dx_asker(const struct ct_loaded *o, char *buf, size_t size);
/* The candidates of a traced search as evidence lines. */
void ct_dx_tries(struct ct_finding *f, const struct ct_search *s);
/* Copies of name elsewhere on the machine (s: the search that missed it). */
void ct_dx_copies(struct ctx *c, const char *name, const struct ct_search *s,
		  struct ct_copies *out);
/* The same file on this machine (stat); false when either is missing. */
bool ct_dx_same_file(const char *a, const char *b);
/*
 * The fix, in words (to free), for asker's dlopen of name, a name without a
 * major ("libnvrtc.so"), to find CUDA major's library of that name.
 */
char *ct_dx_unversioned_fix(struct ctx *c, const char *name, const char *asker, int major);
/* Two traced objects from one file: same path, else the trace's dev/ino, else stat. */
bool ct_dx_same_object(const struct ct_loaded *a, const struct ct_loaded *b);
bool ct_dx_is_driver(const char *name);
/* NVML (libnvidia-ml.so.1): the driver ships it, with libcuda.so.1. */
bool ct_dx_is_nvml(const char *name);
/* Did the process end cleanly: exit status 0, or an exec? */
bool ct_dx_clean_end(const struct ctx *c);
/* Did the process map the driver (libcuda)? */
bool ct_dx_driver_mapped(const struct ctx *c);
/* A driver record's CUDA version as the int the tables use; 0 when unknown or absurd. */
int ct_dx_cuda_of(int64_t version);
/*
 * Is c's process a Python one (its program python*, or an object a Python
 * package ships mapped)? pip is offered only there: a wheel helps no Node
 * or C program.
 */
bool ct_dx_python(const struct ctx *c);

/* ---- the rules: the engine runs each on every process ------------------------------ */

/*
 * diag_incomplete.c: what the trace of a process leaves out; and, after
 * symbol-missing (which can explain it), a trace that stopped or lost
 * records (ct_dx_rule_stopped).
 */
void ct_dx_rule_incomplete(struct ctx *c);
void ct_dx_rule_stopped(struct ctx *c);
/* diag_proc.c: what a process read from /proc (ps) left out. */
void ct_dx_rule_proc_read(struct ctx *c);
/* diag_driver.c: driver-missing; driver-too-old by the runtime or cuInit; no-device. */
void ct_dx_rule_driver_missing(struct ctx *c);
void ct_dx_rule_driver(struct ctx *c);
/* diag_not_found.c: lib-not-found. */
void ct_dx_rule_not_found(struct ctx *c);
/* diag_shadowed.c: lib-shadowed. */
void ct_dx_rule_shadowed(struct ctx *c);
/* diag_mixed.c: lib-mixed-versions, two versions of one family. */
void ct_dx_rule_mixed(struct ctx *c);
/* diag_symvers.c: symbol-version-missing. */
void ct_dx_rule_symbol_versions(struct ctx *c);
/* diag_symbols.c: symbol-missing. */
void ct_dx_rule_symbol_missing(struct ctx *c);
/* diag_builds.c: lib-mixed-versions by builds for two CUDAs; builds newer than the driver. */
void ct_dx_rule_builds(struct ctx *c);
/* diag_devcode.c: the device code of each object, and the driver's word on each module. */
void ct_dx_rule_modules(struct ctx *c);
void ct_dx_rule_device_code(struct ctx *c);

/* Frees what the shadowed rule kept of the loader model's answers (diag_shadowed.c). */
void ct_dx_own_choices_free(struct ct_own_choice *all);
/* Frees what not-found kept of the libraries each object's tree misses (diag_missing.c). */
void ct_dx_unresolved_free(struct ct_dx_unresolved *all);

/* ---- lib-not-found's other misses (diag_missing.c, for diag_not_found.c) ----------- */

/*
 * Where name comes from, in words (sonames.def), for askers built for
 * CUDA cuda (or 0), a Python package's when python; "" when the table
 * does not know it. Returns buf.
 */
const char *ct_dx_install_words(const char *name, int cuda, bool python, char *buf,
				size_t size);
/*
 * The libraries requester's load would also miss, past s's name (the
 * loader stops at the first): into f->missing, s's name first; returns
 * how many more, 0 when s's is the only one.
 */
size_t ct_dx_also_missing(struct ctx *c, struct ct_finding *f, const struct ct_search *s,
			  const char *requester);
/* f's headline and evidence say the others of f->missing too. */
void ct_dx_say_also(struct ct_finding *f);
void ct_dx_evidence_also(struct ct_finding *f);
/*
 * One fix for every library in f->missing (cs: copies of the first; who:
 * its askers in words; python, cuda as for ct_dx_install_words).
 */
void ct_dx_fix_all_missing(struct ct_finding *f, const struct ct_copies *cs, const char *who,
			   bool python, int cuda);

#endif

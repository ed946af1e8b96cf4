/*
 * check's judgement of one object on one target GPU: the verdict of its
 * device code (verdict.h) in words (the reason, what follows from it, the
 * fix), and under --driver the driver's own checks (does its branch
 * drive the GPU, does it run the CUDA runtime the object needs, does it
 * compile the PTX), which may give the verdict instead. Judges, never
 * prints: the command prints the result as text, JSON or annotations.
 *
 * What the judge needs of a file beyond its device code (its DT_SONAME,
 * DT_NEEDED, the CUDA runtime it needs) is read by the loader model,
 * above this layer: the caller hands in the functions that read it
 * (struct ct_check_reads), and the judge asks each only when a verdict
 * needs it, once per object for all its targets.
 *
 * Ownership: a struct ct_check_result owns its verdict's arrays
 * (ct_verdict_release(&r->v) frees them); its name and the object's path
 * and name are borrowed from the caller. One object is judged by one
 * thread at a time.
 */
#ifndef CT_CHECK_JUDGE_H
#define CT_CHECK_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "elfscan.h"
#include "verdict.h"

/* --driver: the CUDA version of the driver judged on (0: any), in words. */
struct ct_check_driver {
	int cuda;
	const char *given;  /* as the user wrote it ("550.54", "12.4", "native") */
	char words[128];    /* "a driver for CUDA 12.4 (550.54)" */
	bool cuda_known;    /* false for a Linux branch newer than the table */
	/*
	 * Its Linux branch (550): as given, or that of its CUDA version
	 * (ct_cuda_branch); what decides the GPUs it drives.
	 */
	unsigned branch;
};

/* check's options that change a verdict or whether it fails. */
struct ct_check_opts {
	bool every_module;           /* fatbins for other GPUs only fail too */
	bool require_sass;           /* ptx-jit fails too */
	struct ct_check_driver driver; /* --driver; cuda 0: none given */
};

/* The CUDA runtime an object needs, as --driver judges it (the loader's cudart_need.h). */
struct ct_check_runtime {
	bool shared;                 /* DT_NEEDED soname; else linked in, or unknown */
	const char *soname;          /* shared: "libcudart.so.13" */
	int major;                   /* its CUDA major (13); 0 when unknown */
	int release;                 /* linked in: the compiler release (13000); else 0 */
	const char *named;           /* linked in, major read from this soname of CUDA's
					own (cudart_need.h: "soname"); else NULL */
	bool by_folder;              /* named: its folder (nvidia/cu13/lib) chose the major */
};

/* The caller's readers of a file's facts, each asked at most once per object. */
struct ct_check_reads {
	/* Does the file's DT_SONAME name one of NVIDIA's per-GPU libraries? false: unreadable */
	bool (*soname_per_gpu)(const char *path);
	/* Does it link PyTorch (DT_NEEDED libtorch*, libc10*)? 1, 0, or -1 unknown */
	int (*links_torch)(const char *path);
	/* The CUDA runtime f (the object, scanned) needs, into *rt; arg is the object's */
	void (*runtime)(void *arg, const struct elfscan_file *f, struct ct_check_runtime *rt);
};

/* An object under judgement: what is known of it, kept for all its targets. */
struct ct_check_object {
	const char *path;
	const char *name; /* the file name: after the last '/' or '!' */
	int per_gpu;      /* one of NVIDIA's per-GPU libraries: 1, 0, or -1 not asked yet */
	int torch;        /* links libtorch or libc10: 1, 0, -1 unknown, -2 not asked yet */
	const struct ct_check_reads *read;
	void *arg;        /* the caller's, for read->runtime */
};

/* o for the object at path (borrowed), nothing asked yet. */
void ct_check_object_init(struct ct_check_object *o, const char *path,
			  const struct ct_check_reads *read, void *arg);

struct ct_check_result {
	/*
	 * The verdict: the device code's (v.verdict), unless --driver finds
	 * the driver cannot drive the GPU or run the object's CUDA runtime.
	 */
	enum ct_verdict_kind verdict;
	struct ct_verdict v;
	bool per_gpu;            /* the object is one of NVIDIA's per-GPU libraries */
	int torch;               /* it links PyTorch (archs.h: ct_arch_build_words) */
	const char *name;        /* its file name */
	char reason[1024];       /* why, in one sentence */
	char details[6][512];    /* consequences and the other fatbins, one line each; "" unused */
	char fix[768];           /* "" when none */
	char left_out[256];      /* the fatbins left out, and why; "" when none */
};

#define CT_CHECK_DETAILS (sizeof(((struct ct_check_result *)0)->details) / \
			  sizeof(((struct ct_check_result *)0)->details[0]))

/*
 * Judge o, whose scan is f (its buffer still there), for target t into
 * r (overwritten; ct_verdict_release(&r->v) frees).
 */
void ct_check_judge(struct ct_check_result *r, struct ct_check_object *o,
		    const struct elfscan_file *f, const struct elfscan_target *t,
		    const struct ct_check_opts *opts);

/* Does r fail the check (exit 1)? */
bool ct_check_fails(const struct ct_check_result *r, const struct ct_check_opts *opts);

/* Does r mean the object cannot run on the target at all? */
bool ct_check_cannot_run(const struct ct_check_result *r);

/* Is f damaged: does its scan hold an error (exit 2)? */
bool ct_check_damaged(const struct elfscan_file *f);

/*
 * The CUDA version the newest PTX the driver must JIT needs (10000: older
 * than CUDA 11, any driver; -1: newer than the table; 0: no PTX is
 * JIT-compiled), and the first Linux driver for it (NULL when unknown).
 */
int ct_check_min_driver(const struct ct_verdict *v, const char **linux_driver);

#endif

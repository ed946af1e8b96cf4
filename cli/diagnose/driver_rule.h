/*
 * driver-too-old, judged in one place: for a traced process (run and
 * report, diag_driver.c and diag_builds.c) and for the runtimes of this
 * machine (doctor, doctor.c and doctor_rules.c). A CUDA runtime of a
 * newer major than the driver supports fails with
 * cudaErrorInsufficientDriver (35); minor-version compatibility runs
 * newer minors of the driver's own major.
 * Versions are CUDA's integers, 1000 * major + 10 * minor (12040 is 12.4).
 *
 * Ownership: the findings own what is added; every string passed in is
 * only read during the call (copied into the finding). Not thread-safe.
 */
#ifndef CT_DRIVER_RULE_H
#define CT_DRIVER_RULE_H

#include <stdbool.h>
#include <stddef.h>

struct ct_finding;
struct ct_findings;

/*
 * Is a driver for CUDA driver too old for a runtime of CUDA runtime? Only
 * a newer major is. False when either is unknown (<= 0).
 */
bool ct_driver_too_old(int runtime, int driver);

/* Where the two were seen, which decides how the finding speaks. */
enum ct_driver_seen {
	CT_DRIVER_SEEN_PROCESS,  /* a traced process loaded both (run, report) */
	CT_DRIVER_SEEN_MACHINE,  /* the runtime is a file on this machine (doctor) */
};

/* A runtime and the driver it runs on, and where each came from. */
struct ct_driver_need {
	enum ct_driver_seen seen;
	int runtime;                 /* the runtime's CUDA: 13000; <= 0 unknown */
	bool runtime_minor_known;    /* false: only the major is (runtime is 13000 for "13") */
	const char *runtime_path;    /* its file (machine: named in the message; the object) */
	const char *library;         /* process: libraries built for runtime (not the process's
					runtime), named in the message; else NULL */
	const char *const *libraries; /* with library: their file names, for the pip packages */
	size_t nlibraries;            /* of their builds for the driver's CUDA in the fix */
	const char *const *runtime_from; /* each copy and where it came from, in words */
	size_t nruntime_from;
	int driver;                  /* the CUDA the driver supports (cuDriverGetVersion) */
	const char *driver_path;     /* the libcuda it is (process: the object) */
	const char *driver_release;  /* "550.163.01", or "" when unknown */
	const char *compat_dir;      /* a forward-compatibility libcuda's folder that would */
	const char *compat_release;  /* run the runtime, and its release; NULL when none */
	bool no_pip;                 /* process: no Python one (a Node or C program), which no
					pip wheel helps: the fix names builds, not packages */
};

/*
 * When the driver is too old for the runtime (ct_driver_too_old), add the
 * driver-too-old finding with its evidence and fix and return it, for the
 * caller to add where it was seen or change its severity; else NULL.
 */
struct ct_finding *ct_driver_rule(struct ct_findings *fs, const struct ct_driver_need *n);

/*
 * The fix of every driver-too-old finding, the one wording: the driver
 * the runtime's major needs, the runtime of the driver's own major, and
 * the forward-compatibility copy when there is one (compat_dir, else
 * NULL). runtime or driver <= 0 when unknown (a cuInit or a module load
 * that failed with 35 says the driver is too old, not for what). pip: the
 * wheels of that CUDA are named (a Python process, doctor's machine); a
 * Node or C program gets builds of its libraries.
 */
void ct_driver_fix(struct ct_finding *f, int runtime, int driver, const char *compat_dir,
		   const char *compat_release, bool pip);

#endif

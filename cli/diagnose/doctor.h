/*
 * The facts cudatrace doctor reports: the CUDA driver this machine
 * offers (the libcuda.so.1 the loader takes, its versions, cuInit, the
 * kernel module, forward-compatibility copies), its GPUs, every CUDA
 * runtime (libcudart.so.N) on it and whether that driver runs it, and
 * LD_LIBRARY_PATH entries whose CUDA libraries are taken before other
 * copies. ct_doctor_examine gathers the facts and judges nothing but each
 * runtime against the driver; doctor_rules.c turns them into findings,
 * cmd_doctor.c prints them.
 *
 * The /proc/driver/nvidia folder is read from $CUDATRACE_NVIDIA_PROC
 * when set (a copy taken from another machine, or a test's).
 *
 * Ownership: struct ct_doctor owns everything reachable from it;
 * ct_doctor_release frees it. Not thread-safe.
 */
#ifndef CT_DOCTOR_H
#define CT_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "copies.h"
#include "util.h"
#include "gpu.h"
#include "resolve.h"
#include "system.h"

/* A forward-compatibility libcuda (/usr/local/cuda-X.Y/compat). */
struct ct_doctor_compat {
	char *path;
	char version[64];          /* "580.65.06": ct_driver_version (libfacts.h) */
	bool on_ld_library_path;   /* its folder is an LD_LIBRARY_PATH entry */
	bool taken;                /* it is the libcuda.so.1 the loader takes */
};

struct ct_doctor_driver {
	struct ct_lookup *search;  /* the loader's search for libcuda.so.1 */
	const char *path;          /* the file it takes (search->path), or NULL */
	char version[64];          /* its version, "550.54.15" (ct_driver_version), or "" */
	bool compat;               /* it is a forward-compatibility copy */
	struct ct_driver_probe probe;
	char module_version[64];   /* the kernel module's, or "" */
	char *module_line;         /* the version file's first line, or NULL */
	int module_gpus;           /* GPUs the kernel module knows; -1 unknown */
	const char *proc;          /* the /proc/driver/nvidia folder read */
	const char *visible_devices; /* CUDA_VISIBLE_DEVICES, or NULL */
	struct ct_doctor_compat *compat_libs;
	size_t ncompat;
	struct ct_copies copies;   /* libcuda.so.1 elsewhere, when none is taken */
};

enum ct_runtime_verdict {
	CT_RT_UNKNOWN,       /* no driver version to judge by */
	CT_RT_OK,            /* the driver's CUDA is at least the runtime's */
	CT_RT_MINOR_COMPAT,  /* same major, newer minor: minor-version compatibility */
	CT_RT_TOO_NEW,       /* newer major: cudaErrorInsufficientDriver (35) */
};

struct ct_doctor_runtime {
	char *path;
	const char *where;         /* "ld.so.cache", "pip wheel", "conda",
				      "CUDA toolkit", "LD_LIBRARY_PATH", ... */
	char soname[32];           /* "libcudart.so.12" */
	int major;
	char version[64];          /* "12.4.127", or the major alone when unknown */
	const char *version_from;  /* "file name", "dist-info", "version.json" */
	int cuda;                  /* 12040; -1 when the minor is unknown */
	bool taken;                /* what the loader takes for its soname */
	enum ct_rule found_via;    /* its rule, when taken */
	enum ct_runtime_verdict verdict;
};

/* A CUDA library an LD_LIBRARY_PATH entry provides before another copy. */
struct ct_doctor_shadow {
	char *soname;
	char *path;                /* the copy taken, in the entry */
	char version[64];
	char *other;               /* the copy it hides */
	const char *other_where;
	char other_version[64];
	bool differ;               /* the versions differ, or one is unknown */
};

struct ct_doctor_ldentry {
	char *dir;                 /* "" is the current directory */
	bool exists;
	char **libs;               /* sonames of the CUDA libraries in it */
	size_t nlibs;
	struct ct_doctor_shadow *shadows;
	size_t nshadows;
};

struct ct_doctor {
	struct ct_loader L;
	bool loader_ok;
	struct ct_system sys;      /* the OS, kernel and glibc (system.h) */
	struct ct_doctor_driver drv;
	struct ct_doctor_runtime *rt;
	size_t nrt;
	struct ct_doctor_ldentry *ld;
	size_t nld;
};

/*
 * Gather the facts of this machine. Returns 0, or a negative errno with
 * *why in words when the loader model cannot start (nothing to release).
 */
int ct_doctor_examine(struct ct_doctor *d, const char **why);
void ct_doctor_release(struct ct_doctor *d);

/* "ok", "minor-version-compatibility", "driver-too-old", "unknown". */
const char *ct_runtime_verdict_id(enum ct_runtime_verdict v);

struct ct_findings;

/* The findings the facts call for, grouped (doctor_rules.c). */
void ct_doctor_findings(const struct ct_doctor *d, struct ct_findings *fs);

#endif

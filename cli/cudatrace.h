/* Declarations shared by the cudatrace command-line tool. */
#ifndef CUDATRACE_H
#define CUDATRACE_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elfscan.h"

#ifndef CUDATRACE_VERSION
#define CUDATRACE_VERSION "0.0.0"
#endif

/* Exit codes shared by the commands. */
enum {
	CT_EXIT_OK = 0,
	CT_EXIT_FINDING = 1, /* check: an object cannot run on a target */
	CT_EXIT_BAD_INPUT = 2, /* usage error, unreadable or damaged input */
};

/* util.c */
extern const char *ct_progname;
/* "cudatrace: <message>" on stderr, with a newline. */
void ct_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "12.3 MB" style sizes; returns buf. */
char *ct_human_size(uint64_t bytes, char *buf, size_t size);
/* Aborting allocators: the CLI has nothing sensible to do without memory. */
void *ct_xmalloc(size_t n) __attribute__((returns_nonnull));
void *ct_xcalloc(size_t n, size_t size) __attribute__((returns_nonnull));
void *ct_xrealloc(void *p, size_t n) __attribute__((returns_nonnull));
char *ct_xstrdup(const char *s) __attribute__((returns_nonnull));
/*
 * Run argv[0] (an absolute path) with envp, stdin from /dev/null, and
 * return what it wrote to stdout (or stderr), NUL-terminated, to free; the
 * exit status goes to *status (-1: killed). NULL when it cannot start.
 */
char *ct_run_capture(char *const argv[], char *const envp[], bool want_stderr,
		     int *status);
/* The same in two steps, so that several programs can run at once. */
struct ct_capture {
	pid_t pid;
	int fd;
};
int ct_run_start(char *const argv[], char *const envp[], bool want_stderr,
		 struct ct_capture *c);
char *ct_run_wait(struct ct_capture *c, int *status);
/* A regular file of at most max bytes, NUL-terminated, to free; or NULL. */
char *ct_read_small_file(const char *path, size_t max);

/* inputs.c: files, directories (recursive) and wheels, one object each. */
struct ct_object {
	const char *path;          /* "dir/x.so" or "dist/x.whl!x/_C.so" */
	struct elfscan_file *scan; /* NULL when error is set */
	const char *error;         /* why it could not be read, or NULL */
};

/* Return nonzero to stop the walk. */
typedef int (*ct_object_fn)(void *ctx, const struct ct_object *obj);

struct ct_walk_options {
	bool verify;        /* run elfscan_verify() on each object */
	bool no_magic_scan; /* only .nv_fatbin and __nv_relfatbin */
};

/*
 * Calls fn for each object under path: the file itself, every device-code
 * candidate below a directory (symlinked directories followed once, files
 * reached twice scanned once), or every ELF, cubin, fatbin or PTX member
 * of a wheel, read in memory. Unreadable paths reach fn with error set.
 * Returns fn's nonzero value, or 0.
 */
int ct_walk(const char *path, const struct ct_walk_options *opt,
	    ct_object_fn fn, void *ctx);

/* Commands. */
int ct_cmd_run(int argc, char **argv);
int ct_cmd_scan(int argc, char **argv);
int ct_cmd_check(int argc, char **argv);
int ct_cmd_ldd(int argc, char **argv);
int ct_cmd_why(int argc, char **argv);
int ct_cmd_doctor(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);

/* gpu.c: compute capabilities of the GPUs the driver reports. */
struct elfscan_target;
/*
 * Fills up to max targets from the CUDA driver (dlopen'd, never linked).
 * Returns the count, or -1 with a reason in why (size bytes).
 */
int ct_gpu_targets(struct elfscan_target *out, int max, char *why,
		   size_t size);

/* gpu.c: what the CUDA driver says about itself and its GPUs (doctor). */
#define CT_MAX_GPUS 64

struct ct_gpu_info {
	int index;             /* the driver's ordinal */
	char name[256];        /* "NVIDIA H100 80GB HBM3", or "" */
	int major, minor;      /* compute capability; -1 when unknown */
	char uuid[48];         /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", or "" */
};

struct ct_driver_probe {
	bool opened;           /* dlopen("libcuda.so.1") worked */
	char error[512];       /* why it did not (dlerror), or a missing entry point */
	char path[4096];       /* the file dlopen mapped, or "" */
	int version;           /* cuDriverGetVersion: 12040 for CUDA 12.4; -1 unknown */
	int init_result;       /* cuInit(0)'s CUresult; -1 when not called */
	int count;             /* cuDeviceGetCount after a good cuInit; -1 unknown */
	struct ct_gpu_info gpus[CT_MAX_GPUS];
	int ngpus;             /* the first CT_MAX_GPUS of count */
};

/*
 * Ask the driver (dlopen'd with this process's loader rules, closed
 * again) for its version, cuInit's result and every GPU. Never fails:
 * what cannot be asked stays unknown. Not thread-safe (dlerror).
 */
void ct_driver_probe(struct ct_driver_probe *p);

#endif

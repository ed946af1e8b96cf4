/*
 * cudatrace doctor as a model: what its views print, gathered once. The
 * facts come from cli/diagnose/doctor.c (the machine: system, driver and
 * kernel module, GPUs, CUDA runtimes, LD_LIBRARY_PATH's entries and what
 * they hide) and cli/diagnose/packages.c (the Python interpreters and
 * their packages with CUDA code, each with its verdict); the findings
 * from doctor_rules.c and packages.c. Built by ct_doctor_model_build
 * (doctor_build.h, the commands' side: it takes --arch's parsed targets);
 * its views (render/doctor_out.c: text, JSON, Markdown, and
 * render/packages_out.c for the interpreters) read it and nothing else.
 *
 * Ownership: struct ct_doctor_model owns everything reachable from it:
 * its arrays in its arena, the facts it was built from (which its
 * strings point into) behind the opaque pointers, and the merged
 * findings; ct_doctor_model_release frees them all. Not thread-safe.
 */
#ifndef CT_DOCTOR_MODEL_H
#define CT_DOCTOR_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "arena.h"
#include "findings.h"
#include "gpu.h"
#include "rules.h"
#include "system.h"

/* A forward-compatibility libcuda (/usr/local/cuda-X.Y/compat). */
struct ct_dm_compat {
	const char *path;
	const char *version;       /* "580.65.06", or "" */
	bool on_ld_library_path;   /* its folder is an LD_LIBRARY_PATH entry */
	bool taken;                /* it is the libcuda.so.1 the loader takes */
};

/* The NVIDIA kernel module, as /proc/driver/nvidia says. */
struct ct_dm_module {
	const char *version;       /* "550.54.15", or "" */
	const char *line;          /* its version file's first line, or NULL: no module */
	int gpus;                  /* GPUs it knows; -1 unknown */
	const char *proc;          /* the folder read ($CUDATRACE_NVIDIA_PROC, or /proc's) */
};

struct ct_dm_driver {
	const char *path;          /* the libcuda.so.1 the loader takes, or NULL */
	const char *rule;          /* the rule of that search, in words */
	const char *found_via;     /* its id */
	struct ct_answer_cands cands; /* the search's candidates */
	const char *version;       /* its release, "550.54.15", or "" */
	bool compat;               /* it is a forward-compatibility copy */
	const struct ct_driver_probe *probe; /* what the driver itself answered */
	struct ct_dm_module module;
	const char *visible_devices; /* CUDA_VISIBLE_DEVICES, or NULL */
	struct ct_dm_compat *compat_libs;
	size_t ncompat;
	struct ct_answer_copies copies; /* libcuda.so.1 elsewhere, when none is taken */
};

/* A CUDA runtime (libcudart.so.N) on the machine, and whether the driver runs it. */
struct ct_dm_runtime {
	const char *path;
	const char *where;         /* "ld.so.cache", "pip wheel", "conda", ... */
	const char *soname;        /* "libcudart.so.12" */
	int major;                 /* 0 when unknown */
	const char *version;       /* "12.4.127", or the major alone when unknown */
	const char *version_from;  /* "file name", "dist-info"...; NULL: unknown */
	int cuda;                  /* 12040; -1 when the minor is unknown */
	bool taken;                /* what the loader takes for its soname */
	enum ct_rule found_via;    /* its rule, when taken */
	const char *verdict;       /* "ok", "minor-version-compatibility",
				      "driver-too-old", "unknown" */
	const char *verdict_words; /* "the driver runs it", ... */
};

/* A CUDA library an LD_LIBRARY_PATH entry provides before another copy. */
struct ct_dm_shadow {
	const char *soname;
	const char *path;          /* the copy taken, in the entry */
	const char *version;
	const char *other;         /* the copy it hides */
	const char *other_where;
	const char *other_version;
	bool differ;               /* the versions differ, or one is unknown */
};

struct ct_dm_ldentry {
	const char *dir;           /* "" is the current directory */
	bool exists;
	const char *const *libs;   /* sonames of the CUDA libraries in it */
	size_t nlibs;
	struct ct_dm_shadow *shadows;
	size_t nshadows;
};

/* check's verdict of one package object for one target. */
struct ct_py_verdict {
	const char *target;        /* "sm_90" */
	const char *verdict;       /* check's name for it: "sass", "ptx-jit", "no-image"... */
	bool no_image;             /* no fatbin image runs on it */
	bool no_device_code;
	size_t fatbins, sass, ptx_jit, no_image_fatbins;
	const char *image;         /* the image picked in most fatbins, or "" */
};

/* A shared object of a package, judged. */
struct ct_py_module {
	const char *path;
	bool loaded;               /* the model loaded it and everything it needs */
	const char *load_error;    /* the loader's words when not, or NULL */
	const char *note;          /* why import does not load it, or only on demand; or NULL */
	bool device_code;          /* it carries SASS, PTX or LTO-IR */
	const char *archs;         /* "sm_80 sm_90 compute_90", or "" */
	struct ct_py_verdict *verdicts; /* one per target, when it has device code */
	size_t nverdicts;
};

struct ct_py_pkg {
	const char *name;
	const char *version;       /* or "" */
	const char *site;          /* the site folder it is installed in */
	const char *meta;          /* its .dist-info / .egg-info folder, or NULL */
	bool needs_torch;          /* its objects need PyTorch's libraries */
	const char *cuda;          /* the CUDA it is built for, "12.4", or "" */
	const char *cuda_from;     /* where that was read, or "" */
	struct ct_py_module *mods;
	size_t nmods;
	const struct ct_findings *findings; /* grouped, errors first */
	const char *const *facts;  /* what was judged right, in words (Triton's toolchain) */
	size_t nfacts;
	const char *verdict;       /* "ok" or the first error's code */
	bool ok;                   /* the verdict is "ok" */
};

/* A package collect_env and issue templates ask the version of (torch, numpy, triton). */
struct ct_py_key {
	const char *name;
	const char *version;       /* "" when its metadata says none; NULL: not installed */
	const char *dist;          /* its distribution's name, when installed */
	const char *site;          /* the site folder it is in, when installed */
};

/* One interpreter and its packages with CUDA code. */
struct ct_py_env {
	const char *exe;           /* as found */
	const char *real;          /* symlinks resolved */
	const char *from;          /* "PATH", "PATH (pyenv)", "VIRTUAL_ENV", "--python"... */
	const char *from_words;    /* the same as shown: "on PATH, through pyenv's shim" */
	const char *version;       /* "3.13", or "" */
	const char *prefix;
	bool venv;
	const char *const *sites;
	size_t nsites;
	const char *release;       /* "3.11.7" from its files, or "" */
	const char *release_from;  /* where that was read, or NULL */
	const char *compiler, *soabi, *flags; /* or "" */
	bool free_threaded, debug;
	struct ct_py_key *keys;
	size_t nkeys;
	struct ct_py_pkg *pkgs;    /* in site order, then by name */
	size_t npkgs;
	size_t nscanned;           /* shared objects looked at */
};

struct ct_py_envs {
	struct ct_py_env *e;
	size_t n;
	size_t total, stopped;     /* packages, and those whose verdict is not "ok" */
	int worst;                 /* the worst severity of their findings, or -1 */
};

struct ct_doctor;
struct ct_pyenv;

struct ct_doctor_model {
	struct ct_arena arena;
	const struct ct_system *sys;
	struct ct_dm_driver drv;
	struct ct_dm_runtime *rt;
	size_t nrt;
	bool ld_library_path_set;  /* LD_LIBRARY_PATH is set (maybe empty) */
	struct ct_dm_ldentry *ld;
	size_t nld;
	const char *const *targets; /* the GPUs device code is judged for */
	size_t ntargets;
	const char *targets_from;  /* "--arch", "gpus", or NULL: none */
	struct ct_py_envs py;
	struct ct_findings findings; /* the machine's */
	struct ct_findings all;    /* the machine's, then each package's with its name
				      and version before its message, one finding that
				      several share said once (Markdown, -q) */
	size_t nall_own;           /* the machine's, at the start of all */
	int worst;                 /* the worst severity of all, or -1 */

	struct ct_doctor *facts;   /* what was gathered (doctor.h); opaque to views */
	struct ct_pyenv *envs;     /* the interpreters judged (packages.h); opaque */
	size_t nenvs;
};

/* Frees everything m holds (a failed build's too). */
void ct_doctor_model_release(struct ct_doctor_model *m);

#endif

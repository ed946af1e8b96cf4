/*
 * cudatrace diff: two runs, machines or containers side by side (compare.c).
 * Each side is a report or a doctor. A report is a report model
 * (report_model.h): one built from a trace folder, or one read back from
 * what report --json printed (cudatrace.report/1); a doctor is what doctor
 * --json printed (cudatrace.doctor/1). Both are read into the same facts,
 * compared by what a library is (its soname's stem: libcudart, whatever
 * its major or path), never by path, and the differences ordered by how
 * likely each is the cause of a failure.
 *
 * A model (cli/model/): diff's views (render/diff_out.c) read these types
 * and nothing else.
 */
#ifndef CT_COMPARE_H
#define CT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

enum ct_side_kind { CT_SIDE_REPORT, CT_SIDE_DOCTOR };

/* A CUDA library of one side: what the process loaded (report), or the
 * runtime a program would take (doctor). */
struct ct_side_lib {
	const char *role;     /* the soname's stem: "libcudart", "libcudnn_ops" */
	const char *soname, *path, *version, *rule; /* rule: a rule id (ct_rules.def); NULL: none */
	int cuda;             /* the CUDA major it is for; 0: unknown */
};

struct ct_side_gpu {
	const char *name, *cc;
};

/* One object's verdict for one GPU of its side (report --json's device_code). */
struct ct_side_code {
	const char *object;   /* its file name */
	const char *target, *verdict;
};

struct ct_side_finding {
	const char *code, *severity, *message, *object;
};

struct ct_side_var {
	const char *name, *value; /* value NULL: unset */
};

/*
 * What a side knows of its driver: a report knows it only when its program
 * asked for it (loaded it, or searched for it and found none), a doctor
 * always asks. "Not asked" is no "not found": it says nothing of the
 * machine, so it is never a difference.
 */
enum ct_side_driver { CT_SIDE_DRIVER_NOT_ASKED, CT_SIDE_DRIVER_NOT_FOUND, CT_SIDE_DRIVER_FOUND };

struct ct_report_model;

struct ct_side {
	enum ct_side_kind kind;
	struct ct_arena arena;
	char *text;                  /* a doctor's document (malloc'd, owned): its strings' home */
	struct ct_report_model *model; /* a report's model (malloc'd, owned): its strings' home */
	size_t nprocs;               /* report: its processes */
	struct ct_side_lib *libs;    /* CUDA libraries but the driver's, first seen first */
	size_t nlibs;
	const char **not_found;      /* names searched and not found */
	size_t nnot_found;
	bool has_driver;             /* the driver was asked (doctor) or recorded (report) */
	enum ct_side_driver driver;  /* set by ct_side_load from the facts below */
	const char *driver_path, *driver_version; /* "580.159.04"; NULL: unknown */
	int driver_cuda;             /* 13000; 0: unknown or none */
	struct ct_side_gpu *gpus;
	size_t ngpus;
	bool has_code;               /* device code judged (report) */
	struct ct_side_code *code;
	size_t ncode;
	struct ct_side_finding *findings;
	size_t nfindings;
	/* The variables compared: a report knows all (absent: unset), a doctor two. */
	const char *const *env_known;
	size_t nenv_known;
	struct ct_side_var *env;
	size_t nenv;
};

/*
 * Read a report or doctor JSON document (text[0..len), malloc'd and
 * NUL-terminated: s owns it from here, and writes into it) into s; a
 * report through its model (ct_report_model_read). 0, or -1 with a
 * reason in why: not JSON, not one of those documents, a newer major of
 * one, or a report that says it could not read its traces. s must be
 * released either way.
 */
int ct_side_load(struct ct_side *s, char *text, size_t len, char *why, size_t size);
/*
 * A report side from its model: m (malloc'd) built with every process's
 * facts (json set), or read back; s owns it from here.
 */
void ct_side_from_model(struct ct_side *s, struct ct_report_model *m);
void ct_side_release(struct ct_side *s);

/* What differs, by kind, in the order a failure's cause is most likely found. */
enum ct_diff_kind {
	CT_DIFF_LIBRARY,    /* a CUDA library from another path, version, major or rule */
	CT_DIFF_LIB_ONLY,   /* loaded on one side only */
	CT_DIFF_NOT_FOUND,  /* not found on one side only */
	CT_DIFF_DRIVER,     /* the driver's version or file */
	CT_DIFF_GPUS,       /* the GPUs */
	CT_DIFF_CODE,       /* device code that runs on one side's GPU, not the other's */
	CT_DIFF_FINDING,    /* a finding on one side only */
	CT_DIFF_ENV,        /* a variable that shapes loading */
};

struct ct_diff_entry {
	enum ct_diff_kind kind;
	const char *key;                     /* role, name, object, code or variable */
	const struct ct_side_lib *la, *lb;   /* LIBRARY, LIB_ONLY: each side's (NULL: none) */
	const struct ct_side_finding *finding; /* FINDING: the one side's */
	bool in_a;                           /* LIB_ONLY, NOT_FOUND, FINDING: on A's side */
	const char *va, *vb;                 /* ENV: values (NULL: unset); CODE: verdict words */
};

struct ct_diff {
	struct ct_diff_entry *e;
	size_t n;
	/* Sections not compared, in words ("device code: B is a doctor's"). */
	const char *not_compared[6];
	size_t nnot_compared;
	struct ct_arena arena;           /* CODE's verdict words */
};

/* The differences between a and b (valid while both are). ct_diff_release frees. */
void ct_diff_compute(struct ct_diff *d, const struct ct_side *a, const struct ct_side *b);
void ct_diff_release(struct ct_diff *d);
/* The section a kind is printed under: "libraries", "driver and GPUs"... */
const char *ct_diff_section(enum ct_diff_kind k);
/* "found", "not-found", "not-asked": a side's driver in the JSON's words. */
const char *ct_side_driver_id(enum ct_side_driver d);
/* The JSON name of a kind: "library", "lib_only"... */
const char *ct_diff_kind_id(enum ct_diff_kind k);
/* The name a variable is compared by (LD_LIBRARY_PATH, CUDA_*, NVIDIA_*, conda, venv). */
bool ct_diff_var_relevant(const char *name);

#endif

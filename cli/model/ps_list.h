/*
 * cudatrace ps without PIDs, as a model: one entry per running process
 * that maps a CUDA library, with its command line and the four libraries
 * a user asks about first (CUDA runtime, cuBLAS, cuDNN, driver: each one's
 * path and version), and the processes that could not be read. Built once
 * from the processes /proc gave (ct_trace_read_pid); its views
 * (render/ps_out.c: text, Markdown, JSON) read it and nothing else.
 *
 * Ownership: struct ct_ps_list owns its entries and every string in them
 * (ct_ps_list_release frees); the unread processes' words are borrowed
 * from the caller and must outlive the list. Not thread-safe.
 */
#ifndef CT_PS_LIST_H
#define CT_PS_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* A process that could not be read, and why in words (borrowed). */
struct ct_ps_unread {
	long long pid;
	const char *why;
};

/* The families each process is shown with, in the order shown. */
enum { CT_PS_CUDART, CT_PS_CUBLAS, CT_PS_CUDNN, CT_PS_DRIVER, CT_PS_FAMILIES };

struct ct_ps_family_lib {
	char *path;                /* the file mapped; NULL: the process maps none */
	char *version;             /* its version ("" when no file says) */
};

struct ct_ps_entry {
	long long pid;
	char *command;             /* its command line, masked, whole (JSON's) */
	char *command_short;       /* the same cut to 60 characters (the text's) */
	char *exe;                 /* or NULL */
	size_t unverified;         /* mapped files left out: not the file at their path */
	bool other_mount_namespace; /* ... because it runs in another mount namespace */
	char *maps_limit;          /* the limit its maps was cut at, in words, or NULL */
	size_t maps_left_out;      /* mappings left out past that limit */
	struct ct_ps_family_lib libs[CT_PS_FAMILIES];
};

struct ct_ps_list {
	struct ct_ps_entry *procs;
	size_t nprocs;
	size_t nread;              /* processes read, CUDA or not */
	const struct ct_ps_unread *unread; /* borrowed */
	size_t nunread;
};

/* A family's key in JSON ("cudart") and its words in text ("CUDA runtime"). */
const char *ct_ps_family_key(int family);
const char *ct_ps_family_words(int family);

struct ct_trace;

/*
 * The list of t's processes (read by ct_trace_read_pid), out of nread
 * read, with the unread ones (borrowed). Each library's version is read
 * once per file (device and inode), whatever the processes that map it:
 * the driver's as the driver's (ct_driver_version), the others' as every
 * command reads a library's (ct_library_version_read). Never fails.
 */
void ct_ps_list_build(struct ct_ps_list *l, const struct ct_trace *t, size_t nread,
		      const struct ct_ps_unread *unread, size_t nunread);
void ct_ps_list_release(struct ct_ps_list *l);

#endif

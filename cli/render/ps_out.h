/*
 * cudatrace ps without PIDs: one line per running process that maps a
 * CUDA library, with its CUDA runtime, cuBLAS, cuDNN and driver (version
 * and path); as text, Markdown or the JSON document cudatrace.ps/1.
 */
#ifndef CT_PS_OUT_H
#define CT_PS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

/* A process that could not be read, and why in words (borrowed). */
struct ct_ps_unread {
	long long pid;
	const char *why;
};

enum ct_ps_format { CT_PS_TEXT, CT_PS_MARKDOWN, CT_PS_JSON };

/*
 * The processes of t (read by ct_trace_read_pid), out of nread processes
 * read (those that map CUDA or not), and those that could not be read;
 * quiet: the text counts those in one line instead of listing them (the
 * JSON lists them always). Each library's version is read once per file
 * (device and inode), whatever the processes that map it. Returns 0, or
 * -1 when writing failed.
 */
int ct_ps_list_print(FILE *out, enum ct_ps_format format, const struct ct_trace *t, size_t nread,
		     const struct ct_ps_unread *unread, size_t nunread, bool quiet);

#endif

/*
 * The trace reader's limits (docs/trace-format.md, "Limits"): what the
 * reader of trace files (trace.h) and of run records (runrec.h) keeps
 * within. A header of its own, so that both use them and neither
 * includes the other.
 */
#ifndef CT_TRACE_LIMITS_H
#define CT_TRACE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* The reader's limits: a line (one record), JSON values in a record, a file, all files. */
#define CT_TRACE_LINE_MAX ((size_t)2 << 20)          /* bytes; the shim writes at most 1 MiB */
#define CT_TRACE_VALUES_MAX ((size_t)1 << 19)        /* JSON values in one record (a start record's argv) */
#define CT_TRACE_FILE_RECORDS_MAX ((size_t)1000000)  /* records read from one file */
#define CT_TRACE_FILE_BYTES_MAX ((size_t)256 << 20)  /* bytes read from one file */
#define CT_TRACE_RECORDS_MAX ((size_t)16000000)      /* records read in all (a file's first always) */
#define CT_TRACE_BYTES_MAX ((uint64_t)4 << 30)       /* bytes read in all (a file's first line always) */
/* The largest count a record may give (dropped records): more is not believed. */
#define CT_TRACE_COUNT_MAX ((int64_t)1 << 32)

#endif

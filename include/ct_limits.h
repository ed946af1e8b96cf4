/*
 * Limits the shim and the CLI must agree on (the shim includes this file
 * as the CLI does, so neither keeps its own copy of a number).
 */
#ifndef CT_LIMITS_H
#define CT_LIMITS_H

/*
 * The shim builds each trace file's path, "<dir>/<host>-<pid>-<tag>.jsonl",
 * in fixed buffers (it allocates nothing): the directory in
 * CT_SHIM_DIR_BUF bytes less CT_SHIM_NAME_ROOM kept for the file's name
 * (a host name of up to 64 bytes, a pid, 16 hex digits, the suffix), the
 * whole path in CT_SHIM_PATH_MAX. So the trace directory's absolute path
 * (CUDATRACE_DIR) may be at most CT_TRACE_DIR_MAX bytes: cudatrace run
 * refuses a longer one before the program starts, and the shim does not
 * trace into one.
 */
#define CT_SHIM_DIR_BUF 4096
#define CT_SHIM_NAME_ROOM 256
#define CT_TRACE_DIR_MAX (CT_SHIM_DIR_BUF - CT_SHIM_NAME_ROOM - 1)
#define CT_SHIM_PATH_MAX (CT_SHIM_DIR_BUF + CT_SHIM_NAME_ROOM)

/*
 * The longest start record (argv and the environment are cut to fit), and
 * the room the shim keeps under RLIMIT_FSIZE for the record that says
 * tracing stopped: it writes a record only while this much is left after
 * it (past the limit the program would get SIGXFSZ). cudatrace run names
 * a file size limit too small for a trace file.
 */
#define CT_SHIM_START_MAX (1u << 20)
#define CT_SHIM_FSIZE_SPARE 65536

#endif

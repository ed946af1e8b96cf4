/*
 * Limits the shim and the CLI must agree on (the shim includes this file
 * as the CLI does, so neither keeps its own copy of a number).
 */
#ifndef CT_LIMITS_H
#define CT_LIMITS_H

/*
 * The shim builds each trace file's path, "<dir>/<host>-<pid>-<image>.jsonl",
 * in a fixed buffer of CT_SHIM_PATH_MAX bytes (it allocates nothing), and
 * keeps CT_SHIM_NAME_ROOM of it for the file's name: a host name of up to
 * 64 bytes, a pid, 16 hex digits and the suffix. So the trace directory's
 * absolute path (CUDATRACE_DIR) may be at most CT_TRACE_DIR_MAX bytes;
 * cudatrace run refuses a longer one before the program starts, and the
 * shim does not trace into one.
 */
#define CT_SHIM_PATH_MAX 2048
#define CT_SHIM_NAME_ROOM 200
#define CT_TRACE_DIR_MAX (CT_SHIM_PATH_MAX - CT_SHIM_NAME_ROOM)

#endif

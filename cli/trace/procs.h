/*
 * Running processes read from /proc, as trace-like records (cudatrace ps):
 * a process's mapped files become its objects, its environment the
 * variables a trace keeps (include/ct_env.def), its command line its argv.
 * Nothing is attached to it (no ptrace) and nothing it names is run.
 *
 * /proc is the process's own word, so it is read as hostile input: a
 * mapped file is kept only when the file at its path now is the file the
 * process mapped (the device and inode of its maps line, or of its
 * /proc/PID/map_files link), so that a process cannot make cudatrace
 * (root) read a file it swapped in at that path; the rest is counted in
 * ct_proc.proc_unverified. maps is read whole, a line at a time, in
 * memory bounded by the files kept (those with code); past a limit the
 * rest is counted in ct_proc.proc_limited with ct_proc.proc_limit
 * saying why. Only the environment
 * variables a trace keeps are read; their values are shown escaped and
 * masked by the printers, as a trace's are.
 *
 * Ownership: the process and its strings belong to t (its arena and
 * arrays), as a trace file's do.
 */
#ifndef CT_PROCS_H
#define CT_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "trace.h"

/*
 * Append process pid, read from root (normally "/proc"; tests give a made-up
 * folder), to t. With cuda_only, a process that maps none of CUDA's
 * libraries nor libcuda.so.1 is not appended (returns 1). Without it
 * (a process read whole), each file kept is pinned by a descriptor
 * (ct_pin_file): what is read of it later is the file checked. Returns 0 when
 * appended, or a negative errno with why in words when it cannot be read
 * (-ESRCH gone, -EACCES another user's).
 */
int ct_trace_read_pid(struct ct_trace *t, const char *root, pid_t pid, bool cuda_only,
		      char *why, size_t size);

/*
 * The processes of root ("/proc"), ascending; those of uid only unless
 * all. *pids is the caller's to free. Returns 0 or a negative errno.
 */
int ct_proc_pids(const char *root, bool all, uid_t uid, pid_t **pids, size_t *n);

#endif

/*
 * The trace folder of `cudatrace run`: a private temporary one, or the -o
 * folder many processes, users and hosts may share. Anyone who may write
 * to it (or to the folder above it) may plant links and FIFOs in it, or
 * swap it for a link while the program runs, and cudatrace often runs as
 * root. So the folder is opened once, and everything cudatrace itself does
 * in it (its run record, reading the trace back, removing a private
 * folder) goes through that descriptor, never through its name again.
 *
 * Nothing here prints; functions return 0 or a negative errno unless
 * their comment says otherwise.
 */
#ifndef CT_RUN_DIR_H
#define CT_RUN_DIR_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct ct_trace;

struct ct_run_dir {
	int fd;                 /* the folder (O_DIRECTORY, close-on-exec); -1: none */
	char path[PATH_MAX];    /* its absolute path, for the shim (CUDATRACE_DIR) */
	bool private_dir;       /* a private one: ct_run_dir_close removes it */
	bool created;           /* made here (with the missing folders above it) */
	unsigned nmade;         /* folders made here: the last nmade of path */
	mode_t mode;            /* as found: permission bits, sticky included */
	uid_t uid;              /* its owner */
	dev_t dev;              /* its identity, for the shim (CUDATRACE_DIR_ID) */
	ino_t ino;
	/*
	 * The nearest folder above it that another user may change (theirs,
	 * or writable by a group or everyone without the sticky bit): they
	 * can swap the folder for a link while the program runs. "": none.
	 */
	char writable_above[PATH_MAX];
};

void ct_run_dir_init(struct ct_run_dir *d);

/*
 * Open the -o folder path, creating it and the missing folders above it
 * with mode 0700, whatever the umask (existing ones are used as they are,
 * never chmodded). Folders above it are followed as the caller named them;
 * the last one is never a symlink (-ELOOP) nor anything but a folder
 * (-ENOTDIR). It must be writable (-EACCES, -EROFS) and its absolute path
 * at most CT_TRACE_DIR_MAX bytes (-ENAMETOOLONG, what the shim can use);
 * on such an error, folders made here are removed again.
 */
int ct_run_dir_open(struct ct_run_dir *d, const char *path);

/*
 * Undo what ct_run_dir_open made, when the program never started: the
 * folders it created, deepest first, each only while empty (the first
 * only while its name still is the folder opened); then close it. A
 * folder that was there before is left as it was.
 */
void ct_run_dir_unmake(struct ct_run_dir *d);
/* A new private folder (0700, unpredictable name) in tmpdir. */
int ct_run_dir_private(struct ct_run_dir *d, const char *tmpdir);

/*
 * Create a new file for writing in the folder: name, or when something is
 * already there (a planted link or FIFO, an older run's record) the first
 * free of "STEM.1SUFFIX" .. "STEM.9SUFFIX", where name is STEM followed by
 * suffix. Never follows a link, never opens what exists, never blocks;
 * mode 0600 whatever the umask. Returns a stream (the name used in
 * used_name) or NULL with errno set.
 */
FILE *ct_run_dir_create(const struct ct_run_dir *d, const char *stem, const char *suffix,
			char *used_name, size_t size);

/*
 * Whether the folder's name now names something else than the folder
 * opened (a link, another folder, nothing): it was swapped while the
 * program ran, and the shim refused to write there.
 */
bool ct_run_dir_replaced(const struct ct_run_dir *d);

/* Remove the folder's file name (after a failed write); errors ignored. */
void ct_run_dir_unlink(const struct ct_run_dir *d, const char *name);

/*
 * Did the process image(s) of host and pid write a record in the folder
 * since (a regular, non-empty "<host>-<pid>-*.jsonl" modified then or
 * later)?
 */
bool ct_run_dir_recorded(const struct ct_run_dir *d, const char *host, long pid,
			 time_t since);

/*
 * Why nothing could be recorded there, as far as the folder tells: its
 * disk full, no free inodes, read-only, not writable. NULL when none of
 * these.
 */
const char *ct_run_dir_why_unwritable(const struct ct_run_dir *d);

/*
 * ct_trace_read_dir on the folder opened, whatever its name points to now:
 * 0, or -1 with a message in why.
 */
int ct_run_dir_read(const struct ct_run_dir *d, struct ct_trace *t, char *why, size_t size);

/*
 * Close the folder; a private one is emptied through the descriptor and
 * removed (only while its name still is that folder).
 */
void ct_run_dir_close(struct ct_run_dir *d);

/*
 * A private folder emptied and removed as ct_run_dir_close does, its
 * descriptor kept open; nothing else. Async-signal-safe (system calls
 * only, errno kept): run's handler of SIGTERM and the like calls it
 * before the signal ends cudatrace. 0 when it is gone (or is no private
 * folder), else -errno of what kept it: run says that leftover.
 */
int ct_run_dir_remove(const struct ct_run_dir *d);

/*
 * Remove what the folder open on fd holds, through fd: files, links
 * (never followed) and folders, emptied the same way by descriptor, at
 * most 16 levels down and never across a mount (a folder another file
 * system is mounted on stays, as does one where the kernel cannot say
 * which mount it is on). Async-signal-safe. 0 when the folder is empty,
 * else -errno of the first thing that stayed.
 */
int ct_run_dir_empty(int fd);

#endif

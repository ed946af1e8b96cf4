/*
 * The private trace folders of earlier runs that ended without removing
 * theirs (cudatrace killed with SIGKILL, a machine that went down): each
 * holds its program's command lines and environment.
 *
 * A run holds an exclusive flock(2) on its private folder while it lives;
 * the kernel drops it when the run dies, however it dies. A folder in the
 * temporary directory named as run names them (cudatrace.XXXXXX), owned
 * by this user, 0700, that nobody holds locked is a dead run's (01700:
 * one its run could not remove and said so). Nothing here prints.
 */
#ifndef CT_RUN_STALE_H
#define CT_RUN_STALE_H

#include <stdbool.h>

/* Hold the lock of a live run on the private folder open on fd: 0 or -errno. */
int ct_run_stale_hold(int fd);

/*
 * Called for each dead run's folder found: its path, and whether it was
 * removed (left untouched, and newer than a day, otherwise). err: why a
 * removal failed (-errno), or 0.
 */
typedef void (*ct_stale_fn)(void *ctx, const char *path, bool removed, int err);

/*
 * Look in tmpdir for dead runs' private folders. Those with nothing in
 * them modified for a day (CT_STALE_REMOVE_AFTER seconds) are removed,
 * through a descriptor, never following a link; the others are given to
 * fn untouched, but those modified in the last seconds (a run that has
 * just made its folder and is about to lock it). Returns how many were
 * found.
 */
int ct_run_stale_scan(const char *tmpdir, ct_stale_fn fn, void *ctx);

/*
 * Mark the private folder open on fd as left on purpose: its run could not
 * remove it and said so to its user (mode 01700: the sticky bit, which
 * keeps its owner's rm -rf working). Later scans leave it alone, so it is
 * said once. 0 or -errno.
 */
int ct_run_stale_said(int fd);

#define CT_STALE_REMOVE_AFTER (24 * 3600)

#endif

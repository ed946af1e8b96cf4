/*
 * trace-incomplete for a process read from /proc (cudatrace ps, procs.h):
 * mapped files it left out, and a maps it could not read in full. What
 * was not read is never a clean bill: the block says what is missing and
 * what to do, as a run's report says a trace that stopped early.
 */
#include <stdio.h>

#include "diag_internal.h"

static void name_left_out(struct ct_finding *f, const struct ct_proc *p)
{
	size_t i;

	for (i = 0; i < p->proc_unverified && i < CT_PROC_LEFT_OUT_NAMED; i++)
		ct_finding_evidence(f, "left out: %s", p->proc_left_out[i]);
	if (p->proc_unverified > CT_PROC_LEFT_OUT_NAMED)
		ct_finding_evidence(f, "and %zu more", p->proc_unverified - CT_PROC_LEFT_OUT_NAMED);
}

void ct_dx_rule_proc_read(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	size_t n = p->proc_unverified;
	struct ct_finding *f;

	if (!p->running)
		return;
	if (n && p->proc_other_mnt) {
		/* Its paths name files of the container's mounts, which are not cudatrace's. */
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the process runs in another mount namespace (a container): %zu "
				   "mapped file%s left out, not the file%s at %s path%s here",
				   n, n == 1 ? "" : "s", n == 1 ? "" : "s", n == 1 ? "its" : "their",
				   n == 1 ? "" : "s");
		name_left_out(f, p);
		ct_finding_evidence(f, "a mapped file is read only when the file at its path is the "
				       "one the process mapped (device and inode)");
		ct_finding_fix(f, "run cudatrace ps inside the container, where its paths name its "
				  "files (docker exec CONTAINER cudatrace ps PID, with the process's id "
				  "there)");
		ct_dx_where(c, f);
	} else if (n) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "%zu mapped file%s left out: the file at %s path%s now is not the "
				   "one the process mapped",
				   n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "" : "s");
		name_left_out(f, p);
		ct_finding_evidence(f, "replaced or removed since the process mapped %s (an upgrade, "
				       "a rebuild), or another file put at %s path",
				    n == 1 ? "it" : "them", n == 1 ? "its" : "their");
		ct_finding_fix(f, "what the process runs is no longer at those paths: restart it to "
				  "load the files there now, then run cudatrace ps again");
		ct_dx_where(c, f);
	}
	if (p->proc_limit) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the process's maps was not read in full: %s", p->proc_limit);
		ct_finding_evidence(f, "%zu mapping%s left out", p->proc_limited,
				    p->proc_limited == 1 ? "" : "s");
		ct_finding_fix(f, "trace the program instead (cudatrace run), which records every "
				  "library it loads");
		ct_dx_where(c, f);
	}
}

/*
 * How a process ended, from its records; see trace.h. The shim never
 * changes the program, so it installs no signal handler: a process killed
 * by a signal simply writes nothing more. Only the process cudatrace run
 * started (waitpid, in its run record) is known to have died of one.
 */
#include <string.h>

#include "trace.h"

/*
 * The last exec that replaced p's image, or NULL: one that returned
 * (exec_failed) replaced nothing, and posix_spawn starts another process.
 */
static const struct ct_exec *replaced_by(const struct ct_proc *p)
{
	size_t k;

	for (k = p->nexecs; k > 0; k--) {
		const struct ct_exec *x = &p->execs[k - 1];

		if (strncmp(x->api, "posix_spawn", 11) != 0)
			return x->failed ? NULL : x;
	}
	return NULL;
}

void ct_proc_ending(const struct ct_proc *p, struct ct_ending *e)
{
	const struct ct_exec *x = replaced_by(p);

	memset(e, 0, sizeof(*e));
	if (p->running || p->still_running)
		e->kind = CT_END_RUNNING;
	else if (p->launched && p->launched->signal > 0) {
		e->kind = CT_END_SIGNAL;
		e->signal = p->launched->signal;
	} else if (p->exited || (p->launched && p->launched->exited)) {
		e->kind = CT_END_EXIT;
		e->status = p->exited ? p->exit_status : p->launched->exit_status;
	} else if (p->next_image || x) {
		/* The image it became is traced (next_image), or says why not (x). */
		e->kind = CT_END_EXEC;
		e->exec = x;
	} else if (p->fini) {
		e->kind = CT_END_RETURN;
	} else if (p->dropped || p->limit) {
		e->kind = CT_END_UNKNOWN; /* its exit record may be what was lost */
	} else {
		e->kind = CT_END_NO_RECORD;
	}
}

void ct_proc_mark_cut(struct ct_proc *p)
{
	const struct ct_run *r = p->launched;

	/*
	 * The loader's failure at start-up ends a process before main with no
	 * exit record, by design (ct_search_known): only after main is a
	 * missing exit record the trace's loss.
	 */
	if (!r || !r->exited || !p->started || !p->reached_main || p->untraced)
		return;
	if (p->fini || p->exited || p->next_image || replaced_by(p) || p->stopped ||
	    p->switch_last || p->running)
		return;
	/* A last line cut short, or lines the reader left out, are said already. */
	if (p->cut || p->limit)
		return;
	p->stopped = true;
	p->stop_unsaid = true;
}

bool ct_ending_abnormal(const struct ct_ending *e)
{
	return e->kind == CT_END_SIGNAL || e->kind == CT_END_NO_RECORD;
}

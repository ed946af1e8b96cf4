/*
 * trace-incomplete (diagnose.h): what a process's trace leaves out, and
 * why: a program that was not traced (set-user-ID, static, started
 * without the shim's environment), a switch of user or root, an exec'd
 * program that left no trace, another auditor, searches whose answer was
 * lost or cut short, records that could not be written, a damaged trace
 * file, a loader that did not run the auditor. diag_proc.c says what a
 * process read from /proc leaves out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diag_internal.h"
#include "signals.h"

/* Did the exec that started p already say it runs without the auditor? */
static bool said_by_parent(const struct ct_proc *p)
{
	size_t i;

	if (!p->parent || p->parent->pid != p->pid)
		return false;
	for (i = 0; i < p->parent->nexecs; i++)
		if (p->parent->execs[i].no_auditor)
			return true;
	return false;
}

/*
 * A program that was not traced, and why, in an exec record's words (a
 * run record uses them too): one wording, whether a traced process started
 * it or cudatrace did. path may be NULL.
 */
static struct ct_finding *add_untraced(struct ctx *c, const char *path, const char *why)
{
	const char *file = path ? path : "PROGRAM";
	struct ct_finding *f;

	if (strcmp(why, "setuid") == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' runs set-user-ID: the loader ignores LD_AUDIT and "
				   "LD_PRELOAD, so it was not traced",
				   ct_dx_base(path));
		ct_finding_fix(f, "trace it without the set-user-ID bit (a copy of it), or "
				  "read its libraries with: cudatrace ldd %s",
			       file);
	} else if (strcmp(why, "static") == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' is statically linked: no loader runs, nothing to trace",
				   ct_dx_base(path));
		ct_finding_fix(f, "it loads no library at run time: see the CUDA it carries "
				  "with: cudatrace scan %s",
			       file);
		ct_finding_fix_line(f, "judge its device code for a GPU with: cudatrace check "
				       "--arch ARCH %s",
				    file);
	} else {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, path,
				   "'%s' was started with an environment that drops the "
				   "cudatrace shim, so it was not traced",
				   ct_dx_base(path));
		ct_finding_fix(f, "keep LD_AUDIT, LD_PRELOAD, CUDATRACE_DIR and CUDATRACE_RUN in the "
				  "environment it is started with (env -i, sudo and "
				  "some launchers clear them)");
	}
	return f;
}

/* Why tracing stopped, from the shim's errno, in words. */
static const char *stop_words(int64_t err)
{
	switch (err) {
	case ENOSPC:
		return "the disk of the trace folder is full (No space left on device)";
	case EDQUOT:
		return "the disk quota of the trace folder is used up";
	case EFBIG:
		return "the trace file reached the file size limit (ulimit -f)";
	case EACCES:
	case EPERM:
		return "the trace file could no longer be opened (permission denied)";
	case ENOENT:
		return "the trace folder could no longer be found (removed, or out of reach)";
	case EIO:
		return "the disk of the trace folder failed (input/output error)";
	default:
		return NULL;
	}
}

/* How p ended, as the evidence of a search cut short says it. */
static void ended_words(const struct ct_proc *p, char *buf, size_t size)
{
	struct ct_ending e;
	const char *sig;

	ct_proc_ending(p, &e);
	switch (e.kind) {
	case CT_END_SIGNAL:
		sig = ct_signal_abbrev(e.signal);
		snprintf(buf, size, "the process was killed by signal %lld%s%s%s", (long long)e.signal,
			 sig ? " (SIG" : "", sig ? sig : "", sig ? ")" : "");
		break;
	case CT_END_EXIT:
		snprintf(buf, size, "the process went on to exit with status %lld, but its trace "
				    "stops here: it could no longer write it",
			 (long long)e.status);
		break;
	default:
		snprintf(buf, size, "the trace stops here without an exit record (the process was "
				    "killed, crashed or could no longer write its trace)");
		break;
	}
}

/*
 * Searches whose answer the trace does not hold (ct_search_known): never
 * a miss (ct_dx_search_missed), and said here instead. Lost ones are
 * counted in the finding about the lost records (n_lost, names);
 * interrupted ones are a finding each.
 */
static size_t unknown_searches(struct ctx *c, char *names, size_t size)
{
	const struct ct_proc *p = c->p;
	size_t i, k, lost = 0, len = 0;
	char how[160];

	names[0] = '\0';
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_known known = ct_search_known(p, s);
		struct ct_finding *f;

		if (known == CT_SEARCH_LOST) {
			if (lost++ < 4 && len < size)
				len += (size_t)snprintf(names + len, size - len, "%s'%s'",
							len ? ", " : "", s->name);
			continue;
		}
		if (known != CT_SEARCH_INTERRUPTED || (s->request && s->request->noload) ||
		    ct_dx_search_ended_refused(c, s))
			continue;
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the trace ends during the loader's search for '%s': whether it "
				   "was found is not known",
				   s->name);
		ended_words(p, how, sizeof(how));
		ct_finding_evidence(f, "%s", how);
		ct_finding_evidence(f, "%s by %s; candidates tried before the end: %zu",
				    s->request ? s->request->api : "needed",
				    ct_dx_base(s->request && s->request->caller ? s->request->caller
										  : s->by),
				    s->ntries);
		for (k = 0; k < s->ntries && k < 4; k++)
			ct_finding_evidence(f, "  tried %s", s->tries[k].path);
		ct_finding_fix(f, "nothing says it is missing; where the loader finds it: cudatrace "
				  "why %s --from %s",
			       s->name, s->request && s->request->caller ? s->request->caller
			       : s->by && s->by[0]			 ? s->by
									 : "PROGRAM");
		ct_dx_where(c, f);
	}
	if (lost > 4 && len < size)
		snprintf(names + len, size - len, " and %zu more", lost - 4);
	return lost;
}

/* What a switch of user or root (p's last) made of the process, in words. */
static void switch_words(const struct ct_proc *p, char *buf, size_t size)
{
	if (strcmp(p->switch_api, "chroot") == 0)
		snprintf(buf, size, "changed its root directory to '%s' (chroot)",
			 p->switch_path ? p->switch_path : "?");
	else
		snprintf(buf, size, "switched to user %lld (%s)", (long long)p->switch_uid,
			 p->switch_api);
}

/* The exec that replaced p's image, when it was to be traced; NULL: none. */
static const struct ct_exec *traced_exec(const struct ct_proc *p)
{
	size_t k;

	for (k = p->nexecs; k > 0; k--) {
		const struct ct_exec *x = &p->execs[k - 1];

		if (strncmp(x->api, "posix_spawn", 11) == 0)
			continue;
		return !x->failed && x->traced ? x : NULL;
	}
	return NULL;
}

/*
 * A process that switched user or root and could no longer write its
 * trace (the shim says the switch before it happens), or whose exec'd
 * program left no trace: what came after is not in the report.
 */
static void rule_switched(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	const struct ct_exec *x = traced_exec(p);
	struct ct_finding *f;
	char how[320];

	if (p->switch_api && p->switch_last) {
		switch_words(p, how, sizeof(how));
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->exe,
				   "'%s' %s: nothing it did after that was traced",
				   ct_dx_base(p->exe), how);
		ct_finding_evidence(f, "%s", strcmp(p->switch_api, "chroot") == 0
			? "the trace folder is outside its new root"
			: "its trace file and folder are private to the user who ran cudatrace");
		ct_finding_evidence(f, "the libraries it loaded and the programs it started after "
				       "the switch are not in this report");
		ct_finding_fix(f, "trace what runs after the switch on its own: start cudatrace "
				  "after it, as that user, with a trace folder it can write (gosu "
				  "USER cudatrace -o DIR PROGRAM)");
		ct_dx_where(c, f);
		return;
	}
	if (!x || p->next_image)
		return;
	if (x->dir) {
		/* A cudatrace run inside this one: its program is in that run's report. */
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, x->path,
				   "'%s' was traced into another folder, '%s' (a cudatrace run "
				   "inside this one): it is in that run's report, not this one",
				   ct_dx_base(x->path), x->dir);
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "%s of %s by %s", x->api, x->path ? x->path : "?",
				    c->program);
		ct_finding_fix(f, "nothing to do; read it with: cudatrace report %s", x->dir);
		ct_dx_where(c, f);
		return;
	}
	f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, x->path,
			   "'%s' left no trace: what it did is not in this report",
			   ct_dx_base(x->path));
	ct_finding_evidence(f, "%s of %s by %s", x->api, x->path ? x->path : "?", c->program);
	if (p->switch_api) {
		switch_words(p, how, sizeof(how));
		ct_finding_evidence(f, "%s %s before it", ct_dx_base(p->exe), how);
	}
	ct_finding_evidence(f, "it could not write its trace file (another user, another root "
			       "directory, a full disk), or ran in secure mode (file "
			       "capabilities), where the loader ignores LD_AUDIT and LD_PRELOAD");
	ct_finding_fix(f, "trace it on its own, started the way it was, with a trace folder it "
			  "can write (as its user: gosu USER cudatrace -o DIR PROGRAM)");
	ct_dx_where(c, f);
}

void ct_dx_rule_incomplete(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct ct_finding *f;
	char names[512];
	size_t i;

	/* cudatrace started it, and its run record says why it has no trace. */
	if (p->untraced) {
		f = add_untraced(c, p->exe, p->untraced);
		ct_finding_evidence(f, "started by cudatrace run: %s", p->exe ? p->exe : "?");
		ct_dx_where(c, f);
	}

	for (i = 0; i < p->nexecs; i++) {
		const struct ct_exec *e = &p->execs[i];
		const char *why = e->untraced ? e->untraced : "";

		if (e->traced && e->no_auditor) {
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, e->path,
					   "'%s' was started without cudatrace's auditor in LD_AUDIT: "
					   "its library searches are not recorded",
					   ct_dx_base(e->path));
			ct_finding_fix(f, "keep LD_AUDIT as cudatrace sets it when starting it (the "
					  "shim in LD_PRELOAD alone sees only dlopen and the driver)");
			ct_finding_evidence(f, "%s of %s by %s", e->api, e->path ? e->path : "?",
					    c->program);
			ct_dx_where(c, f);
			continue;
		}
		if (e->traced)
			continue;
		f = add_untraced(c, e->path, why);
		ct_finding_evidence(f, "%s of %s by %s", e->api, e->path ? e->path : "?",
				    c->program);
		ct_dx_where(c, f);
	}
	rule_switched(c);
	/* Other auditors: their own loads are left out (the reader's audit). */
	if (*ct_proc_other_auditors(p, names, sizeof(names))) {
		const char *b = strrchr(names, '/');

		if (!strchr(names, ':') && strcmp(b ? b + 1 : names, "libcudatrace.so") == 0)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "LD_AUDIT names cudatrace's shim twice (a cudatrace run "
					   "inside another): the second copy's own loads are left out");
		else
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "LD_AUDIT also names '%s' (another auditor): the libraries "
					   "the loader loads for it are left out",
					   names);
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "LD_AUDIT=%s", ct_proc_env(p, "LD_AUDIT"));
		ct_finding_fix(f, "nothing to do: cudatrace's auditor still sees every load of the "
				  "program");
		ct_dx_where(c, f);
	}
	c->lost = unknown_searches(c, c->lost_names, sizeof(c->lost_names));
	if (p->bad_lines) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' is damaged: %zu unreadable line%s%s",
				   ct_dx_base(p->file), p->bad_lines, p->bad_lines == 1 ? "" : "s",
				   p->cut ? ", the last one cut short" : "");
		ct_finding_fix(f, "a process killed while writing, or a write that failed (a full "
				  "disk, ulimit -f), cuts its last line; anything else means the "
				  "file was changed");
		ct_dx_where(c, f);
	} else if (p->cut) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' ends with a record cut short",
				   ct_dx_base(p->file));
		ct_finding_fix(f, "a process killed while writing, or a write that failed (a full "
				  "disk, ulimit -f), cuts its last line; give the trace directory "
				  "space and run again");
		ct_dx_where(c, f);
	}
	if (p->bad_values || p->limit) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, p->file,
				   "the trace file '%s' was not read in full: %s", ct_dx_base(p->file),
				   p->limit ? p->limit : "it holds impossible values");
		if (p->limited)
			ct_finding_evidence(f, "%zu line%s left out", p->limited, p->limited == 1 ? "" : "s");
		if (p->bad_values)
			ct_finding_evidence(f, "%zu negative or absurd count%s refused", p->bad_values,
					    p->bad_values == 1 ? "" : "s");
		ct_finding_fix(f, "cudatrace's shim never writes such records: the file was "
				  "changed or written by something else (limits: docs/trace-format.md)");
		ct_dx_where(c, f);
	}
	if (p->started && !p->auditor && !p->secure && !said_by_parent(p)) {
		f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
				   "the loader did not run cudatrace's auditor (LD_AUDIT): library "
				   "searches were not recorded");
		ct_finding_fix(f, "keep LD_AUDIT as cudatrace sets it (another auditor "
				  "first in it, or a loader without audit support, stops it)");
		ct_dx_where(c, f);
	}
}

void ct_dx_rule_stopped(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct ct_finding *f;

	if (p->dropped || p->stopped) {
		const char *why = p->stopped ? stop_words(p->stop_errno) : NULL;

		/*
		 * The loader stopped it at a lazily bound symbol that nothing
		 * defines: _exit(127) inside ld.so, which no shim sees, so no
		 * exit record by design; symbol-missing says so.
		 */
		if (p->stop_unsaid && !why && !p->dropped && c->lazy_stop && p->launched &&
		    p->launched->exit_status == 127)
			return;

		if (p->stopped && p->stop_unsaid && !why)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "tracing stopped after main: the process could not "
					   "write its trace");
		else if (p->stopped)
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "tracing stopped before the process ended: %s",
					   why ? why : "the trace file could no longer be written");
		else
			f = ct_finding_add(&c->d->findings, CT_F_TRACE_INCOMPLETE, NULL,
					   "%lu trace record%s could not be written", p->dropped,
					   p->dropped == 1 ? "" : "s");
		if (p->stopped && p->dropped)
			ct_finding_evidence(f, "%lu trace record%s could not be written before it",
					    p->dropped, p->dropped == 1 ? "" : "s");
		if (p->stopped && !why && p->stop_errno)
			ct_finding_evidence(f, "the shim's error: %s", strerror((int)p->stop_errno));
		/* No record says it stopped: the run record and the trace disagree. */
		if (p->stop_unsaid && p->launched)
			ct_finding_evidence(f, "it exited with status %lld (cudatrace run waited "
					       "for it), but its trace has no exit record: what it "
					       "did after its last record is not in this report",
					    (long long)p->launched->exit_status);
		if (c->lost)
			ct_finding_evidence(f, "the answer to %zu library search%s may be among the "
					       "lost records: %s; no lib-not-found or driver-missing "
					       "is made of %s",
					    c->lost, c->lost == 1 ? "" : "es", c->lost_names,
					    c->lost == 1 ? "it" : "them");
		if (p->stop_unsaid && !why)
			ct_finding_fix(f, "let the program write its trace file: free file "
					  "descriptors (ulimit -n), no seccomp filter or sandbox that "
					  "forbids opening files for writing, space in the trace "
					  "directory; then run again");
		else
			ct_finding_fix(f, "give the trace directory space and the program free "
					  "file descriptors (ulimit -n), then run again");
		ct_dx_where(c, f);
	}
}

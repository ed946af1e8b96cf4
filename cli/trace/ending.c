/*
 * How a process ended, from its records; see trace.h. The shim never
 * changes the program, so it installs no signal handler: a process killed
 * by a signal simply writes nothing more. Only the process cudatrace run
 * started (waitpid, in its run record) is known to have died of one.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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

enum ct_search_known ct_search_known(const struct ct_proc *p, const struct ct_search *s)
{
	const struct ct_run *r = p->launched;

	if (s->found || s->already_loaded)
		return CT_SEARCH_KNOWN;
	if (s->audit)
		return CT_SEARCH_AUDITOR;
	if (s->in_doubt)
		return CT_SEARCH_LOST;
	/* Its thread went on, or the process went on to an end it wrote itself. */
	if (!s->unsettled || p->exited || p->fini)
		return CT_SEARCH_KNOWN;
	if (r && r->signal > 0)
		return CT_SEARCH_INTERRUPTED;
	/*
	 * The loader's own failure at start-up: it prints its error and exits
	 * 127 before main, past every exit hook, so the trace ends with the
	 * search. Anything else that ends a trace mid-search (a dlopen that
	 * never returned, a trace that stops while the program goes on to
	 * exit 0) is no miss.
	 */
	if (!p->reached_main && (!r || !r->exited || r->exit_status != 0))
		return CT_SEARCH_KNOWN;
	return CT_SEARCH_INTERRUPTED;
}

/*
 * The clock's error allowed when a start time read from /proc is set
 * against a record's time: /proc counts in clock ticks (10 ms), and the
 * boot time is worked out from two clocks read one after the other.
 */
#define START_SLACK_NS 100000000LL

/*
 * When process pid started, as the real-time clock would have said (ns),
 * from /proc/PID/stat: 0 when it is not running (gone, a zombie) or
 * /proc does not say.
 */
static int64_t started_at(int64_t pid, int64_t boot_ns, long hz)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long ticks;
	ssize_t n;
	int fd, field;

	if (pid <= 0 || pid > 0x3fffffff || hz <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything; the state follows its last ')'. */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ')
		return 0;
	p += 2;
	if (*p == 'Z' || *p == 'X' || *p == 'x' || !*p)
		return 0;
	/* The state is field 3; the start time, in ticks since boot, field 22. */
	for (field = 3; field < 22; field++) {
		if (!(p = strchr(p, ' ')))
			return 0;
		p++;
	}
	ticks = strtoull(p, &end, 10);
	if (end == p || (*end != ' ' && *end != '\n' && *end))
		return 0;
	if (ticks > (unsigned long long)INT64_MAX / 1000000000ULL)
		return 0;
	return boot_ns + (int64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
}

static int64_t ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

void ct_trace_find_running(struct ct_trace *t)
{
	struct timespec real, boot;
	struct ct_ending e;
	struct utsname u;
	int64_t boot_ns;
	long hz = sysconf(_SC_CLK_TCK);
	size_t i;

	if (uname(&u) != 0 || clock_gettime(CLOCK_REALTIME, &real) != 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
		return;
	boot_ns = ns(&real) - ns(&boot);
	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];
		int64_t start;

		ct_proc_ending(p, &e);
		if (e.kind != CT_END_NO_RECORD && e.kind != CT_END_UNKNOWN)
			continue;
		if (!p->started || !p->host || strcmp(p->host, u.nodename) != 0 ||
		    !p->run_rec || p->run_rec->t <= 0 || p->t <= 0)
			continue;
		start = started_at(p->pid, boot_ns, hz);
		if (start && start >= p->run_rec->t - START_SLACK_NS &&
		    start <= p->t + START_SLACK_NS)
			p->still_running = true;
	}
}

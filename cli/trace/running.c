/*
 * Traced processes still running here (trace.h: ct_trace_find_running):
 * a process with no record of its end whose pid is alive on this machine
 * as the same process, by its start time in /proc/PID/stat. Reads /proc
 * only.
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

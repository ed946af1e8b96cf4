/*
 * What the commands share: their error messages (nothing below the
 * commands prints), the --arch option, and the machine a trace is judged on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "util.h"
#include "resolve.h"
#include "targets.h"
#include "text.h"

const char *ct_progname = "cudatrace";

/* Why stdout failed when a flush before the last one failed (it keeps no cause). */
static int stdout_errno;

void ct_error(const char *fmt, ...)
{
	va_list ap;

	/* What the command printed so far comes first. */
	if (fflush(stdout) != 0 && !stdout_errno)
		stdout_errno = errno;
	fprintf(stderr, "%s: ", ct_progname);
	/* The arguments are file names, argv and what was read: escaped (text.h). */
	va_start(ap, fmt);
	ct_vtprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ct_cmd_flush(FILE *f, const char *name)
{
	int err = 0;

	/* fflush fails with the cause; an earlier failure left only the flag. */
	if (fflush(f) != 0)
		err = errno;
	else if (ferror(f))
		err = f == stdout && stdout_errno ? stdout_errno : EIO;
	if (!err)
		return 0;
	if (f == stderr)
		return -1; /* nowhere left to say it; the status shows it */
	if (name)
		ct_error("cannot write '%s': %s", name, strerror(err));
	else
		ct_error("cannot write the output: %s", strerror(err));
	return -1;
}

int ct_cmd_exit(int rc, bool program_status)
{
	if (ct_cmd_flush(stdout, NULL) == 0)
		return rc;
	return program_status && rc != CT_EXIT_OK ? rc : CT_EXIT_BAD_INPUT;
}

/* ---- a file cut short under a mapping -------------------------------------- */

static volatile sig_atomic_t bus_status = CT_EXIT_BAD_INPUT;
static void (*bus_cleanup)(void);

static bool hex_field(const char **p, const char *end, char stop, uintptr_t *v)
{
	const char *q = *p;

	*v = 0;
	for (; q < end && *q != stop; q++) {
		unsigned d = *q >= '0' && *q <= '9'   ? (unsigned)(*q - '0')
			     : *q >= 'a' && *q <= 'f' ? (unsigned)(*q - 'a' + 10)
						      : 16;

		if (d == 16)
			return false;
		*v = *v << 4 | d;
	}
	if (q == end || q == *p)
		return false;
	*p = q + 1;
	return true;
}

/*
 * The file mapped at addr, from one line of /proc/self/maps ("start-end
 * perms offset dev inode   path"), into path; false when addr is not in
 * it or it maps no file.
 */
static bool maps_line(const char *line, const char *end, uintptr_t addr, char *path,
		      size_t size)
{
	uintptr_t lo, hi;
	const char *p = line;
	int field;
	size_t n;

	if (!hex_field(&p, end, '-', &lo) || !hex_field(&p, end, ' ', &hi) || addr < lo ||
	    addr >= hi)
		return false;
	/* perms, offset, dev, inode; then spaces up to the path. */
	for (field = 0; field < 4; field++) {
		while (p < end && *p != ' ')
			p++;
		while (p < end && *p == ' ')
			p++;
	}
	if (p >= end || *p != '/')
		return false;
	n = (size_t)(end - p);
	if (n >= size)
		n = size - 1;
	memcpy(path, p, n);
	path[n] = '\0';
	/* An unlinked file: the kernel adds " (deleted)". */
	if (n > 10 && memcmp(path + n - 10, " (deleted)", 10) == 0)
		path[n - 10] = '\0';
	return true;
}

/* The same for the whole of /proc/self/maps; only async-signal-safe calls. */
static bool mapped_file(uintptr_t addr, char *path, size_t size)
{
	static char buf[16384];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	bool found = false;

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		char *line = buf, *nl;

		if (r <= 0)
			break;
		have += (size_t)r;
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			if (maps_line(line, nl, addr, path, size)) {
				found = true;
				goto out;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf)) /* a line longer than any path: drop it */
			have = 0;
	}
out:
	close(fd);
	return found;
}

static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char head[] = ": cannot read '";
	static const char tail[] = "': it was cut short while cudatrace read it (a copy or a "
				   "build writing it in place); run again once nothing writes it\n";
	static char path[4352], shown[4 * sizeof(path)];
	static int taken;
	size_t n;

	(void)uc;
	/* Sent by a process: what it would have done. */
	if (si->si_code <= 0) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	/* Two threads at once: the first one speaks (the buffers are static). */
	if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();
	/* A fault of no file's: the fault again, now fatal. */
	if (!mapped_file((uintptr_t)si->si_addr, path, sizeof(path))) {
		signal(sig, SIG_DFL);
		return;
	}
	n = ct_text_escape_into(shown, sizeof(shown), path, strlen(path));
	write_all(ct_progname, strlen(ct_progname));
	write_all(head, sizeof(head) - 1);
	write_all(shown, n);
	write_all(tail, sizeof(tail) - 1);
	if (bus_cleanup)
		bus_cleanup();
	_exit(bus_status);
}

void ct_cmd_guard_files(int status, void (*cleanup)(void))
{
	struct sigaction sa;

	bus_status = status;
	bus_cleanup = cleanup;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

int ct_cmd_colour_option(const char *when)
{
	static const struct {
		const char *word;
		enum ct_colour_mode mode;
	} words[] = {
		{ "auto", CT_COLOUR_AUTO },     { "tty", CT_COLOUR_AUTO },
		{ "if-tty", CT_COLOUR_AUTO },   { "always", CT_COLOUR_ALWAYS },
		{ "yes", CT_COLOUR_ALWAYS },    { "force", CT_COLOUR_ALWAYS },
		{ "never", CT_COLOUR_NEVER },   { "no", CT_COLOUR_NEVER },
		{ "none", CT_COLOUR_NEVER },
	};
	size_t i;

	if (!when) {
		ct_colour_set(CT_COLOUR_ALWAYS);
		return 0;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(when, words[i].word) == 0) {
			ct_colour_set(words[i].mode);
			return 0;
		}
	ct_error("--color: '%s' is none of auto, always, never", when);
	return -1;
}

int ct_cmd_no_stdin(const char *cmd, char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0) {
			ct_error("%s does not read standard input ('-'): give a path (./- names a "
				 "file called '-')", cmd);
			return -1;
		}
	return 0;
}

int ct_cmd_targets(const char *list, struct elfscan_target *targets,
		   char names[][CT_TARGET_NAME], size_t *n, size_t max)
{
	char why[640];

	if (ct_parse_targets(list, targets, names, n, max, why, sizeof(why)) == 0)
		return 0;
	ct_error("%s", why);
	return -1;
}

void ct_machine_ask(struct ct_platform_question *q)
{
	ct_platform_ask(q, 0, 0);
}

void ct_machine_open_asked(struct ct_loader *L, struct ct_platform_question *q)
{
	int err = 0;

	ct_loader_init_asked(L, q, NULL);
	ct_loader_start(L, NULL, &err);
}

void ct_machine_open(struct ct_loader *L)
{
	struct ct_platform_question q;

	ct_machine_ask(&q);
	ct_machine_open_asked(L, &q);
}

void ct_cmd_unlisted(size_t n)
{
	ct_tprintf(stdout, "%zu object%s without device code (-v lists them)\n", n,
		   n == 1 ? "" : "s");
}

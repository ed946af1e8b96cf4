/*
 * What the commands share: their error messages (nothing below the
 * commands prints), the --arch option, and the machine a trace is judged on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
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
	ct_platform_ask(q, NULL);
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

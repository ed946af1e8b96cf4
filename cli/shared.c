/*
 * What the commands share: their error messages (nothing below the
 * commands prints), the --arch option, and the machine a trace is judged on.
 */
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
#include "resolve.h"
#include "targets.h"
#include "text.h"

const char *ct_progname = "cudatrace";

void ct_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", ct_progname);
	/* The arguments are file names, argv and what was read: escaped (text.h). */
	va_start(ap, fmt);
	ct_vtprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

void ct_machine_open(struct ct_loader *L)
{
	int err = 0;

	ct_loader_init(L, NULL, NULL);
	ct_loader_start(L, NULL, &err);
}

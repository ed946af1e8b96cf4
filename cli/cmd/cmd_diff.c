/*
 * cudatrace diff A B: what differs for CUDA between two runs, machines or
 * containers. Each side is a trace folder (-o), or what report --json or
 * doctor --json printed there. A folder is read and diagnosed as report
 * does, into report's own model, and a report --json is read back into
 * the same model, so that a folder and its report --json compare the
 * same; the comparing is compare.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "diff_out.h"
#include "report_model.h"
#include "resolve.h"
#include "trace.h"
#include "files.h"
#include "util.h"

/* A document bigger than this is no report anyone pasted. */
#define DOC_MAX ((size_t)1 << 30)

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudatrace diff [--json | --markdown] [-q] [-v] [--trust-owner] A B\n"
		"\n"
		"What differs for CUDA between two runs, machines or containers: \"it works\n"
		"there, not here\". A and B are trace folders (cudatrace -o DIR), or what\n"
		"cudatrace report --json or doctor --json printed, one of each if need be;\n"
		"'-' is that document on standard input (for one side).\n"
		"The differences come in the order a failure's cause is most often found:\n"
		"the CUDA libraries (by what they are, not their paths: each one's version,\n"
		"file and the loader rule that found it), the driver and the GPUs, device\n"
		"code that runs on one side's GPU and not the other's, the findings of one\n"
		"side only, and the variables that shape loading (secrets masked).\n"
		"(To trace the program diff itself: cudatrace run diff.)\n"
		"\n"
		"  --json          one JSON document on stdout (cudatrace.diff/1)\n"
		"  --markdown      GitHub-flavoured Markdown, to paste into an issue\n"
		"  -q, --quiet     only whether they differ: the first line\n"
		"  -v, --verbose   also say what could not be compared\n"
		"  --trust-owner   as root, read trace files of other users (as report does)\n"
		"  --color[=WHEN]  taken by every command; diff prints no colour\n"
		"\n"
		"exit status: 0 nothing that matters differs, 1 something does, 2 bad input\n");
}

/* A JSON file, read whole: regular files only (never a FIFO that blocks). */
static int read_doc(const char *path, char **text, size_t *len, char *why, size_t size)
{
	int fd = ct_open_file(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	size_t have = 0;
	char *buf;

	if (fd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > DOC_MAX) {
		snprintf(why, size, "%s", !S_ISREG(st.st_mode) ? "not a trace folder nor a file"
								 : "too large for a report");
		close(fd);
		return -1;
	}
	buf = ct_xmalloc((size_t)st.st_size + 1);
	while (have < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	buf[have] = '\0';
	*text = buf;
	*len = have;
	return 0;
}

/*
 * "-": the document on standard input (ssh host cudatrace doctor --json |
 * cudatrace diff - here.json), read whole up to DOC_MAX. A terminal is
 * refused: nothing would come until the user typed a report.
 */
static int read_stdin(char **text, size_t *len, char *why, size_t size)
{
	size_t have = 0, cap = 65536;
	char *buf;

	if (isatty(STDIN_FILENO)) {
		snprintf(why, size, "standard input is a terminal; pipe a report --json or "
			 "doctor --json into it, or name a file");
		return -1;
	}
	buf = ct_xmalloc(cap + 1);
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + have, cap - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, size, "%s", strerror(errno));
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have == cap) {
			if (cap >= DOC_MAX) {
				snprintf(why, size, "too large for a report");
				free(buf);
				return -1;
			}
			cap *= 2;
			buf = ct_xrealloc(buf, cap + 1);
		}
	}
	buf[have] = '\0';
	*text = buf;
	*len = have;
	return 0;
}

/*
 * A trace folder's report model, as report builds it (one diagnosis, every
 * process's facts): what its own report --json would be read back into.
 */
static int folder_model(const char *dir, bool trust_owner, struct ct_report_model **out,
			char *why, size_t size)
{
	struct ct_report_model_options o;
	struct ct_loader machine;
	struct ct_trace t;
	char *dirs[1] = { (char *)dir };

	ct_trace_init(&t);
	t.threads = ct_threads(8);
	if (ct_cmd_read_traces(&t, dirs, 1, trust_owner, why, size) != 0) {
		ct_trace_release(&t);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	ct_machine_open(&machine);
	o.machine = &machine;
	o.json = true;
	*out = ct_xmalloc(sizeof(**out));
	ct_report_model_build(*out, &t, &o);
	ct_loader_release(&machine);
	ct_trace_release(&t);
	return 0;
}

/* Read one side; on failure -1, the message in err (said on stderr by the caller). */
static int load(const char *label, const char *path, bool trust_owner, struct ct_side *s,
		const char **what, char *err, size_t errsize)
{
	struct ct_report_model *model;
	char why[1024], *text = NULL;
	size_t len = 0;
	struct stat st;
	int rc;

	memset(s, 0, sizeof(*s));
	if (strcmp(path, "-") == 0) {
		*what = "report";
		rc = read_stdin(&text, &len, why, sizeof(why));
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*what = "trace folder";
		rc = folder_model(path, trust_owner, &model, why, sizeof(why));
		/* The side owns the model: its facts point into it. */
		if (rc == 0) {
			ct_side_from_model(s, model);
			return 0;
		}
	} else {
		*what = "report";
		rc = read_doc(path, &text, &len, why, sizeof(why));
	}
	/* The side owns the text: its strings point into it. */
	if (rc == 0)
		rc = ct_side_load(s, text, len, why, sizeof(why));
	else
		free(text);
	if (rc != 0) {
		snprintf(err, errsize, "%s '%s'%s: %s", label, path,
			 strcmp(path, "-") == 0 ? " (standard input)" : "", why);
		ct_side_release(s);
		*what = NULL;
		return -1;
	}
	if (s->kind == CT_SIDE_DOCTOR)
		*what = "doctor";
	return 0;
}

/* A side not read: the message on stderr, and with --json one document all the same. */
static int unread(bool json, const struct ct_diff_names *names, const char *err)
{
	ct_error("%s", err);
	if (json)
		ct_diff_print_error(stdout, names, err);
	ct_cmd_flush(stdout, "stdout");
	return CT_EXIT_BAD_INPUT;
}

int ct_cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "trust-owner", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	enum ct_diff_format format = CT_DIFF_TEXT;
	struct ct_diff_names names;
	struct ct_side a, b;
	struct ct_diff d;
	char err[1200];
	bool json = false, markdown = false, trust_owner = false, verbose = false, quiet = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'm':
			markdown = true;
			break;
		case 'T':
			trust_owner = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'q':
			quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'h':
			usage(stdout);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (json && markdown) {
		ct_error("--json and --markdown exclude each other");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (argc - optind != 2) {
		ct_error("diff takes two: trace folders, or report --json or doctor --json outputs");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	/* Standard input is read once: it holds one document. */
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0) {
		ct_error("diff reads standard input ('-') for one side only");
		return CT_EXIT_BAD_INPUT;
	}
	memset(&names, 0, sizeof(names));
	names.a = argv[optind];
	names.b = argv[optind + 1];
	if (load("A", names.a, trust_owner, &a, &names.a_what, err, sizeof(err)) != 0)
		return unread(json, &names, err);
	if (load("B", names.b, trust_owner, &b, &names.b_what, err, sizeof(err)) != 0) {
		ct_side_release(&a);
		return unread(json, &names, err);
	}
	if (json)
		format = CT_DIFF_JSON;
	else if (markdown)
		format = CT_DIFF_MARKDOWN;
	ct_diff_compute(&d, &a, &b);
	/* -q: whether they differ, in one line, as diff -q says it (the text's first line). */
	if (quiet && format == CT_DIFF_TEXT) {
		ct_diff_headline(stdout, &d);
		rc = d.n ? CT_EXIT_FINDING : CT_EXIT_OK;
	} else {
		rc = ct_diff_print(stdout, format, &d, &a, &b, &names, verbose) == 0 && d.n
			     ? CT_EXIT_FINDING
			     : CT_EXIT_OK;
	}
	ct_diff_release(&d);
	ct_side_release(&a);
	ct_side_release(&b);
	return ct_cmd_flush(stdout, "stdout") != 0 ? CT_EXIT_BAD_INPUT : rc;
}

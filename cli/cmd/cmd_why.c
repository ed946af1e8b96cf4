/*
 * cudatrace why: how the loader finds one library for one requester, step
 * by step: every candidate with its rule and outcome, the winner, what the
 * winner shadows later in the order, and the copies on this machine that
 * were not on the path (other directories, pip wheels, conda, CUDA
 * toolkits, other majors).
 */
#include <getopt.h>
#include <string.h>

#include "commands.h"
#include "platform.h"
#include "resolve.h"
#include "text.h"
#include "why_model.h"
#include "why_out.h"

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace why [--from OBJECT] [--json] [-q] [-v] [--library-path PATH]\n"
		"                     [--preload LIST] NAME\n"
		"\n"
		"How the dynamic loader finds NAME (a soname such as libcudart.so.12, or a\n"
		"path) when OBJECT asks for it, in this environment: every candidate in\n"
		"order with its rule and outcome, the file it takes, what that file shadows,\n"
		"and the copies on this machine that were not on the path. Without --from,\n"
		"as a program with no RPATH or RUNPATH of its own would dlopen it.\n"
		"Nothing is run.\n"
		"\n"
		"  --from OBJECT        the program or library that asks (its own\n"
		"                       dependencies are loaded first, as they would be)\n"
		"  --json               one JSON document on stdout\n"
		"  -q, --quiet          the answer alone: the file taken and the rule, or\n"
		"                       not found (and a symbol version it lacks)\n"
		"  -v, --verbose        also every candidate after the one taken, with its\n"
		"                       outcome (else only the files it shadows)\n"
		"  --library-path PATH  judge as if LD_LIBRARY_PATH were PATH ('' for unset)\n"
		"  --preload LIST       judge as if LD_PRELOAD were LIST ('' for unset)\n"
		"  --color[=WHEN]       taken by every command; why prints no colour\n"
		"\n"
		"exit status: 0 found, 1 not found (or the file found lacks a symbol version\n"
		"the requester needs), 2 bad input\n");
}

int ct_cmd_why(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CT_COLOR_OPTION,
		{ "library-path", required_argument, NULL, 'L' },
		{ "preload", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ct_loader_env env = { NULL, NULL };
	struct ct_why_view view = { false, false };
	const char *from = NULL;
	bool json = false;
	struct ct_why m;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			view.quiet = true;
			break;
		case 'v':
			view.verbose = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'f':
			from = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'L':
			env.library_path = optarg;
			break;
		case 'P':
			env.preload = optarg;
			break;
		case 'h':
			usage(stdout);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind != 1 || !argv[optind][0]) {
		ct_error("why takes one library NAME");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (from && ct_cmd_no_stdin("why --from", (char *const *)&from, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	/* -q's text shows no device code: not worked out. */
	/* Kept between runs, as the device-code summaries are (cache.h). */
	ct_platform_keep_answers(true);
	rc = ct_why_build(&m, argv[optind], from, &env, view.quiet && !json);
	if (json)
		ct_why_json(stdout, &m);
	else
		ct_why_print(stdout, &m, &view);
	if (rc < 0) {
		ct_error("'%s': %s", from, m.error);
		rc = CT_EXIT_BAD_INPUT;
	} else {
		rc = m.fails ? CT_EXIT_FINDING : CT_EXIT_OK;
	}
	ct_why_release(&m);
	return rc;
}

/*
 * cudatrace ldd: the DT_NEEDED tree as glibc's loader would map it for this
 * file in this shell, each library with the rule that found it, CUDA
 * libraries with their version and device code; what is not found with
 * every candidate tried; symbol versions a dependency lacks.
 */
#include <getopt.h>
#include <string.h>

#include "commands.h"
#include "ldd_model.h"
#include "ldd_out.h"
#include "platform.h"
#include "resolve.h"
#include "text.h"

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace ldd [--json] [-q] [-v] [--library-path PATH] [--preload LIST] FILE\n"
		"\n"
		"The shared libraries FILE loads at start, as the dynamic loader would find\n"
		"them in this environment (LD_LIBRARY_PATH, LD_PRELOAD, /etc/ld.so.cache),\n"
		"each with the rule that found it. CUDA libraries show their version and\n"
		"device code; a library not found shows every place the loader tried.\n"
		"Nothing is run.\n"
		"\n"
		"  --json                one JSON document on stdout\n"
		"  -q, --quiet           no tree: the libraries not found and who needs\n"
		"                        each, what else stops it, and the count\n"
		"  -v, --verbose         every candidate of every library, and the libraries\n"
		"                        a requester finds already loaded\n"
		"  --library-path PATH   judge as if LD_LIBRARY_PATH were PATH ('' for unset)\n"
		"  --preload LIST        judge as if LD_PRELOAD were LIST ('' for unset)\n"
		"  --color[=WHEN]        taken by every command; ldd prints no colour\n"
		"\n"
		"exit status: 0 all found, 1 a library or symbol version missing, 2 bad input\n");
}

int ct_cmd_ldd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		CT_COLOR_OPTION,
		{ "library-path", required_argument, NULL, 'L' },
		{ "preload", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ct_loader_env env = { NULL, NULL };
	struct ct_ldd_view view = { false, false };
	struct ct_ldd_options build;
	bool json = false;
	struct ct_ldd m;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'v':
			view.verbose = true;
			break;
		case 'q':
			view.quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
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
	if (argc - optind != 1) {
		ct_error("ldd takes one FILE");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (ct_cmd_no_stdin("ldd", argv + optind, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	/* -q's text shows neither device code nor copies: not worked out. */
	build = (struct ct_ldd_options){ .verbose = view.verbose, .brief = view.quiet && !json };
	/* Kept between runs, as the device-code summaries are (cache.h). */
	ct_platform_keep_answers(true);
	rc = ct_ldd_build(&m, argv[optind], &env, &build);
	if (json)
		ct_ldd_json(stdout, &m, &view);
	else
		ct_ldd_print(stdout, &m, &view);
	if (rc < 0) {
		ct_error("'%s': %s", m.file, m.error);
		rc = CT_EXIT_BAD_INPUT;
	} else {
		rc = m.fails ? CT_EXIT_FINDING : CT_EXIT_OK;
	}
	ct_ldd_release(&m);
	return rc;
}

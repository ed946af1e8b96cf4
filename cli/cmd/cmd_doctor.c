/*
 * cudatrace doctor: the driver, GPUs and CUDA runtimes of this machine,
 * LD_LIBRARY_PATH's effect on them, and the findings that follow, with no
 * program to run. The facts come from doctor.c, the findings from
 * doctor_rules.c and packages.c, gathered once into doctor's model
 * (doctor_model.h); here its views show it, as text, JSON or Markdown.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "doctor_build.h"
#include "doctor_out.h"
#include "report.h"
#include "text.h"
#include "util.h"

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace doctor [--json | --markdown] [-q] [-v] [--arch ARCH] [--python PATH]\n"
		"\n"
		"The CUDA driver of this machine (the libcuda.so.1 the loader takes, its\n"
		"version, the CUDA version it supports, cuInit, the kernel module,\n"
		"forward-compatibility copies), its GPUs, every CUDA runtime on it\n"
		"(libcudart.so.N in the loader's folders, CUDA toolkits, pip wheels of the\n"
		"python3 on PATH, conda) and whether the driver runs it, the CUDA libraries\n"
		"LD_LIBRARY_PATH puts before other copies, and the findings that follow.\n"
		"Then the Python packages with CUDA code of the python3 on PATH, of\n"
		"$VIRTUAL_ENV and $CONDA_PREFIX (or of --python): will their native modules\n"
		"load, were their extensions built against the torch installed, does their\n"
		"device code run on these GPUs (or --arch), is their CUDA build at most the\n"
		"driver's. Nothing is run but the driver's own queries; nothing is imported.\n"
		"\n"
		"  --json          one JSON document on stdout\n"
		"  --markdown      GitHub-flavoured Markdown, to paste into an issue: the\n"
		"                  verdict and findings, the facts in collapsed sections\n"
		"  -q, --quiet     the verdict and the findings only (no facts)\n"
		"  -v, --verbose   every line of evidence, the driver search's candidates,\n"
		"                  and each package's objects with their device code\n"
		"  --color[=WHEN]  colour the severities: auto (a terminal, NO_COLOR\n"
		"                  unset; the default), always, never\n"
		"  --arch ARCH     judge device code for these GPUs (sm_90, sm_100,...)\n"
		"                  instead of the ones the driver reports\n"
		"  --python PATH   judge this interpreter's packages only\n"
		"\n"
		"exit status: 0 no error found, 1 an error found (the machine's or a\n"
		"package's), 2 usage\n");
}

int ct_cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "arch", required_argument, NULL, 'a' },
		{ "python", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, markdown = false, verbose = false, quiet = false;
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	struct ct_doctor_options o = { 0 };
	enum ct_doctor_failure failure;
	struct ct_doctor_model m;
	const char *arch = NULL;
	const char *why = NULL;
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
		case 'a':
			arch = optarg;
			break;
		case 'p':
			o.python = optarg;
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
	if (optind < argc) {
		ct_error("doctor takes no argument: '%s'", argv[optind]);
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (arch && ct_cmd_targets(arch, targets, names, &o.ntargets, CT_MAX_TARGETS) < 0)
		return CT_EXIT_BAD_INPUT;
	if (o.python && ct_cmd_no_stdin("doctor --python", (char *const *)&o.python, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	o.targets = targets;
	o.target_names = (const char (*)[CT_TARGET_NAME])names;
	o.arch_given = arch != NULL;
	rc = ct_doctor_model_build(&m, &o, &failure, &why);
	if (rc < 0 && failure == CT_DOCTOR_NO_LOADER) {
		if (json)
			ct_doctor_json_error(stdout);
		ct_error("cannot model the dynamic loader: %s", why ? why : "unknown error");
		rc = CT_EXIT_BAD_INPUT;
	} else if (rc < 0) {
		ct_error("--python: cannot use '%s': %s", o.python, strerror(-rc));
		rc = CT_EXIT_BAD_INPUT;
	} else {
		if (json)
			ct_doctor_json(stdout, &m);
		else if (markdown)
			ct_doctor_markdown(stdout, &m, getenv("HOME"), verbose, quiet);
		else
			ct_doctor_print(stdout, &m, verbose, quiet, ct_want_colour(stdout));
		rc = m.worst == CT_SEV_ERROR ? CT_EXIT_FINDING : CT_EXIT_OK;
	}
	ct_doctor_model_release(&m);
	return rc;
}

/*
 * cudatrace report: the findings and facts of traces kept with -o, from
 * any number of directories (processes, ranks and hosts merged).
 */
#include <getopt.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "commands.h"
#include "elfscan.h"
#include "report.h"
#include "report_model.h"
#include "resolve.h"
#include "trace.h"

int ct_cmd_print_report(const struct ct_trace *t, const struct ct_report_options *o, FILE *text,
			FILE *json)
{
	struct ct_report_model_options mo;
	struct ct_report_model m;
	struct ct_report_view v;
	int worst;

	memset(&mo, 0, sizeof(mo));
	mo.targets = o->targets;
	mo.ntargets = o->ntargets;
	mo.verbose = o->verbose;
	mo.json = json != NULL;
	mo.markdown = text && o->markdown;
	mo.machine = o->machine;
	ct_report_model_build(&m, t, &mo);
	memset(&v, 0, sizeof(v));
	v.findings_only = o->findings_only;
	v.verbose = o->verbose;
	v.colour = o->colour;
	v.home = o->home;
	if (text && o->markdown)
		ct_report_markdown(text, &m, &v);
	else if (text)
		ct_report_text(text, &m, &v);
	if (json)
		ct_report_json(json, &m);
	worst = m.worst;
	ct_report_model_release(&m);
	return worst;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudatrace report [--json | --markdown] [--arch ARCH] [--run ID] [--job ID]\n"
		"                        [--trust-owner] [-q] [-v] DIR...\n"
		"\n"
		"The diagnosis of traces kept with 'cudatrace -o DIR': findings with their\n"
		"fixes (errors first), then per process the CUDA libraries and the device\n"
		"code against the GPUs. Several directories (ranks, hosts) merge into one\n"
		"report; a finding shared by many processes is said once. A folder that\n"
		"several runs wrote into is reported whole, and says how many runs it holds;\n"
		"the runs of one job (the ranks of one srun, torchrun or mpirun) are one job.\n"
		"\n"
		"  --json          one JSON document on stdout\n"
		"  --markdown      GitHub-flavoured Markdown, to paste into an issue: the\n"
		"                  verdict and findings, the facts in collapsed sections\n"
		"  --arch ARCH     judge device code for ARCH (sm_90, 9.0, a list) instead of\n"
		"                  the GPUs the trace recorded\n"
		"  --run ID        only the processes of run ID (the \"run\" of its run record;\n"
		"                  \"unknown\": the traces without a run id): one rank\n"
		"  --job ID        only the processes of the runs of job ID (the \"job\" of\n"
		"                  their run records: SLURM_JOB_ID, torchrun's run id...)\n"
		"  --trust-owner   as root, also read the files other users own (root reads\n"
		"                  only its own by default: a user who may write to a folder\n"
		"                  can plant files there)\n"
		"  -q, --quiet     the findings only\n"
		"  -v, --verbose   everything: all evidence, askers, the whole tree, every\n"
		"                  process\n"
		"  --color[=WHEN]  colour the severities: auto (a terminal, NO_COLOR unset;\n"
		"                  the default), always, never\n"
		"\n"
		"exit status: 0 no error found, 1 an error finding, 2 bad input\n");
}

/*
 * Read the trace folders dirs[0..n) into t, as report reads them. Root
 * reads only root's files, each with one link: anyone who may write to a
 * trace folder can plant files there (a hard link to one they cannot
 * read), and root's report would show them what it holds. trust_owner
 * (--trust-owner) trusts the files' owners, never a hard link: its owner
 * did not put it there. Files left out are said here; a folder that holds
 * no trace (of t->only_run, t->only_job) is an error: -1 with why.
 */
int ct_cmd_read_traces(struct ct_trace *t, char *const *dirs, int n, bool trust_owner, char *why,
		       size_t size)
{
	int i;

	if (geteuid() == 0) {
		t->only_owner = !trust_owner;
		t->owner = 0;
		t->one_link = true;
	}
	for (i = 0; i < n; i++) {
		size_t before = t->nprocs, bad = t->bad_files + t->unstarted_files;
		size_t other = t->other_run_files;
		size_t foreign = t->foreign_files;

		if (ct_trace_read_dir(t, dirs[i], why, size) != 0)
			return -1;
		if (t->foreign_files > foreign)
			ct_error("'%s': %zu trace file%s left out: owned by another user than "
				 "root, or linked elsewhere (as root, report reads only root's, "
				 "with one link; --trust-owner reads other users')",
				 dirs[i], t->foreign_files - foreign,
				 t->foreign_files - foreign == 1 ? "" : "s");
		/* With --run, a folder may hold none of it: said once, below. */
		if (t->nprocs == before && t->other_run_files == other) {
			bool junk = t->bad_files + t->unstarted_files > bad;

			snprintf(why, size, "'%s' holds no trace%s", dirs[i],
				 t->foreign_files > foreign ? " of root's"
				 : junk			    ? " (its .jsonl files are not trace records)"
							    : " (no .jsonl file)");
			return -1;
		}
	}
	if (t->only_run && t->nprocs == 0) {
		snprintf(why, size,
			 "no run '%s' in %s%s (its id is the \"run\" of its .run.json record)",
			 t->only_run, dirs[0], n > 1 ? " and the others" : "");
		return -1;
	}
	ct_trace_link(t);
	/* A process of the trace that still runs here is said so, as ps would. */
	ct_trace_find_running(t);
	if (t->only_job && t->nprocs == 0) {
		snprintf(why, size,
			 "no job '%s' in %s%s (its id is the \"job\" of its runs' .run.json records)",
			 t->only_job, dirs[0], n > 1 ? " and the others" : "");
		return -1;
	}
	return 0;
}

int ct_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "arch", required_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'r' },
		{ "job", required_argument, NULL, 'J' },
		{ "trust-owner", no_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	struct ct_report_options o;
	struct ct_loader machine;
	struct ct_platform_question asked;
	struct ct_trace t;
	bool json = false, markdown = false, trust_owner = false;
	size_t ntargets = 0;
	char why[1024];
	int c, worst;

	memset(&o, 0, sizeof(o));
	ct_trace_init(&t);
	t.threads = ct_threads(8);
	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'm':
			markdown = true;
			break;
		case 'a':
			if (ct_cmd_targets(optarg, targets, names, &ntargets, CT_MAX_TARGETS) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'r':
			t.only_run = optarg;
			break;
		case 'J':
			t.only_job = optarg;
			break;
		case 'T':
			trust_owner = true;
			break;
		case 'q':
			o.findings_only = true;
			break;
		case 'v':
			o.verbose = true;
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
	if (optind >= argc) {
		ct_error("report takes the trace directories (cudatrace -o DIR)");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (ct_cmd_no_stdin("report", argv + optind, (size_t)(argc - optind)) != 0)
		return CT_EXIT_BAD_INPUT;
	/* The machine's loader answers while the traces are read. */
	ct_machine_ask(&asked);
	if (ct_cmd_read_traces(&t, argv + optind, argc - optind, trust_owner, why, sizeof(why)) != 0)
		goto bad;
	/* Said above, once per folder and for every format: not again in the text. */
	t.foreign_said = true;
	/*
	 * The reader's threads are done and nothing else prints at the same
	 * time: the report's many small writes (the JSON of a job's thousands
	 * of processes) need not lock the stream each.
	 */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	o.targets = ntargets ? targets : NULL;
	o.ntargets = ntargets;
	o.colour = !json && !markdown && ct_want_colour(stdout);
	o.markdown = markdown;
	o.home = getenv("HOME");
	ct_machine_open_asked(&machine, &asked);
	o.machine = &machine;
	worst = ct_cmd_print_report(&t, &o, json ? NULL : stdout, json ? stdout : NULL);
	ct_loader_release(&machine);
	ct_trace_release(&t);
	return worst == CT_SEV_ERROR ? CT_EXIT_FINDING : CT_EXIT_OK;
bad:
	ct_error("%s", why);
	/* --json prints its one document whatever happens. */
	if (json)
		ct_report_json_error(stdout, why);
	/* The questions asked are answered (their helpers waited for), then dropped. */
	ct_machine_open_asked(&machine, &asked);
	ct_loader_release(&machine);
	ct_trace_release(&t);
	return CT_EXIT_BAD_INPUT;
}

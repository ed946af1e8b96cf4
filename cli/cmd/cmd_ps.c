/*
 * cudatrace ps: the CUDA libraries of running processes, read from /proc
 * (maps, exe, cmdline, environ) without attaching to them or restarting
 * them. Without PIDs, a line per process that maps one; with PIDs, each
 * process's block of a run's report: its library tree with the rule that
 * found each object where the replay of its start-up proves it (dlopen
 * for the rest), the driver it maps judged as a run judges it, its device
 * code against the GPUs (or --arch), and the findings that need no trace.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "gpu.h"
#include "libnames.h"
#include "procrules.h"
#include "procs.h"
#include "ps_list.h"
#include "ps_out.h"
#include "report.h"
#include "resolve.h"
#include "util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudatrace ps [--json | --markdown] [--arch ARCH] [-q] [-v] [PID...]\n"
		"\n"
		"The CUDA libraries of running processes, read from /proc without stopping\n"
		"or restarting them. Without PID: every process of yours (every process, as\n"
		"root) that maps a CUDA library or libcuda.so.1, with its CUDA runtime,\n"
		"cuBLAS, cuDNN and driver. With PIDs: each one's library tree as a run's\n"
		"report shows it (the rule that found each library where a replay of its\n"
		"start-up proves it, else dlopen), its driver, its device code against the\n"
		"GPUs, and the findings that need no trace.\n"
		"(To trace the program ps itself: cudatrace run ps.)\n"
		"\n"
		"  --json          one JSON document on stdout (with PIDs: the report's)\n"
		"  --markdown      GitHub-flavoured Markdown, to paste into an issue\n"
		"  --arch ARCH     judge device code for ARCH (sm_90, 9.0, a list)\n"
		"  -q, --quiet     the findings only (with PIDs); without PIDs, the processes\n"
		"                  that cannot be read counted in one line, not listed\n"
		"  -v, --verbose   everything: all evidence, the whole tree (with PIDs)\n"
		"  --color[=WHEN]  colour the severities: auto (a terminal, NO_COLOR unset;\n"
		"                  the default), always, never\n"
		"\n"
		"exit status: 0 no error found, 1 an error finding, 2 bad input or no\n"
		"process could be read (one process that cannot be read, root's PID 1 in\n"
		"a container, is said, not failed)\n");
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > 0x7fffffffL)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* Every process of the user (all, as root) that maps CUDA: the list. */
static int list_all(enum ct_ps_format format, bool quiet)
{
	struct ct_ps_unread *unread = NULL;
	struct ct_ps_list list;
	size_t npids = 0, nunread = 0, nread = 0, i;
	char (*whys)[256] = NULL;
	struct ct_trace t;
	pid_t *pids = NULL;
	int rc, err;

	ct_trace_init(&t);
	err = ct_proc_pids("/proc", geteuid() == 0, geteuid(), &pids, &npids);
	if (err) {
		ct_error("cannot read '/proc': %s", strerror(-err));
		return CT_EXIT_BAD_INPUT;
	}
	whys = ct_xcalloc(npids ? npids : 1, sizeof(*whys));
	unread = ct_xcalloc(npids ? npids : 1, sizeof(*unread));
	for (i = 0; i < npids; i++) {
		err = ct_trace_read_pid(&t, "/proc", pids[i], true, whys[nunread], sizeof(whys[0]));
		/* Read, whether or not it maps CUDA: a list of none is an answer. */
		if (err >= 0 && pids[i] != getpid())
			nread++;
		/* A process that ended meanwhile, or a kernel thread, is no news. */
		if (err < 0 && err != -ESRCH && err != -ENOENT && pids[i] != getpid()) {
			unread[nunread].pid = pids[i];
			unread[nunread].why = whys[nunread];
			nunread++;
		}
	}
	ct_ps_list_build(&list, &t, nread, unread, nunread);
	rc = ct_ps_list_print(stdout, format, &list, quiet);
	ct_ps_list_release(&list);
	/*
	 * 2 only when nothing could be read: root in a container cannot read
	 * process 1 (the runtime's), and that is no failure of the answer.
	 */
	rc = ct_cmd_flush(stdout, "stdout") != 0 || rc != 0 ? CT_EXIT_BAD_INPUT
	     : nread == 0 && nunread > 0		     ? CT_EXIT_BAD_INPUT
							     : CT_EXIT_OK;
	free(unread);
	free(whys);
	free(pids);
	ct_trace_release(&t);
	return rc;
}


/*
 * Does p map the driver? Its maps name the real file, libcuda.so.1's
 * target: libcuda.so.580.159.04 (seen on an H200), so any libcuda.so.*.
 */
static bool maps_driver(const struct ct_proc *p)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if ((p->objects[i].soname &&
		     ct_driver_library(p->objects[i].soname) == CT_DRIVER_LIB_CUDA) ||
		    ct_driver_file(p->objects[i].path))
			return true;
	return false;
}

/*
 * Is the driver file p maps the one cudatrace's probe opened (probe_st)?
 * Then the probe's cuInit is what the process's own gives.
 */
static bool maps_probed(const struct ct_proc *p, const struct stat *probe_st)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (ct_driver_file(p->objects[i].path))
			return p->objects[i].dev == (uint64_t)probe_st->st_dev &&
			       p->objects[i].ino == (uint64_t)probe_st->st_ino;
	return false;
}

/*
 * The driver a process maps, judged as a run would judge it, and
 * without --arch the GPUs device code is judged for. /proc does not show
 * a process's cuInit, so the machine's driver is asked as doctor asks it
 * (dlopen of libcuda.so.1, cuInit, the devices): a process that maps
 * that very file gets its answer, a failed cuInit included (no-device);
 * a process that maps another file gets the machine's GPUs when cuInit
 * worked, else only its driver's name. When no process maps the driver,
 * the machine's GPUs are the targets.
 */
static void machine_gpus(struct ct_trace *t, struct elfscan_target *targets, size_t *ntargets,
			 bool want_targets)
{
	struct ct_driver_probe probe;
	struct stat probe_st;
	bool any = false, asked;
	size_t i;
	int g;

	ct_driver_probe(&probe);
	/*
	 * A cuInit that failed for cudatrace's own CUDA_VISIBLE_DEVICES says
	 * nothing of the process's: no failure is lent then.
	 */
	asked = probe.opened && probe.path[0] && stat(probe.path, &probe_st) == 0 &&
		!(probe.init_result != 0 && getenv("CUDA_VISIBLE_DEVICES"));
	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].running && maps_driver(&t->procs[i])) {
			ct_proc_set_driver(t, &t->procs[i], &probe,
					   asked && maps_probed(&t->procs[i], &probe_st));
			any = true;
		}
	if (!want_targets || !probe.opened)
		return;
	for (g = 0; !any && g < probe.ngpus && *ntargets < CT_MAX_TARGETS; g++) {
		char cc[32];

		snprintf(cc, sizeof(cc), "%d.%d", probe.gpus[g].major, probe.gpus[g].minor);
		if (probe.gpus[g].major >= 0 && elfscan_target_parse(cc, &targets[*ntargets]) == 0)
			(*ntargets)++;
	}
}

int ct_cmd_ps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "arch", required_argument, NULL, 'a' },
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
	struct ct_trace t;
	bool json = false, markdown = false;
	size_t ntargets = 0;
	char why[512];
	int c, i, worst, rc;

	memset(&o, 0, sizeof(o));
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
	for (i = optind; i < argc; i++) {
		pid_t pid;

		if (parse_pid(argv[i], &pid) != 0) {
			ct_error("'%s' is not a process id", argv[i]);
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc)
		return list_all(json ? CT_PS_JSON : markdown ? CT_PS_MARKDOWN : CT_PS_TEXT,
				o.findings_only);

	/* Each file a process maps stays open (pinned) while it is read: room for them. */
	{
		struct rlimit nofile;

		if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
			nofile.rlim_cur = nofile.rlim_max;
			setrlimit(RLIMIT_NOFILE, &nofile);
		}
	}
	ct_trace_init(&t);
	for (i = optind; i < argc; i++) {
		pid_t pid;

		parse_pid(argv[i], &pid);
		if (ct_trace_read_pid(&t, "/proc", pid, false, why, sizeof(why)) < 0)
			ct_error("%s", why);
	}
	if (t.nprocs == 0) {
		snprintf(why, sizeof(why), "no process could be read");
		ct_error("%s", why);
		if (json)
			ct_report_json_error(stdout, why);
		ct_trace_release(&t);
		ct_cmd_flush(stdout, "stdout");
		return CT_EXIT_BAD_INPUT;
	}
	machine_gpus(&t, targets, &ntargets, ntargets == 0);
	ct_machine_open(&machine);
	ct_trace_guess_rules(&t, &machine);
	o.targets = ntargets ? targets : NULL;
	o.ntargets = ntargets;
	o.colour = !json && !markdown && ct_want_colour(stdout);
	o.markdown = markdown;
	o.home = getenv("HOME");
	o.machine = &machine;
	worst = ct_cmd_print_report(&t, &o, json ? NULL : stdout, json ? stdout : NULL);
	ct_loader_release(&machine);
	ct_trace_release(&t);
	rc = worst == CT_SEV_ERROR ? CT_EXIT_FINDING : CT_EXIT_OK;
	return ct_cmd_flush(stdout, "stdout") != 0 ? CT_EXIT_BAD_INPUT : rc;
}

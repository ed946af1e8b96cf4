/* cudatrace: dispatch to the commands. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "commands.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "run", ct_cmd_run, "run a program and explain what CUDA it loaded (the default)" },
	{ "scan", ct_cmd_scan, "list the device code inside files, directories and wheels" },
	{ "report", ct_cmd_report, "the findings and facts of traces kept with -o" },
	{ "check", ct_cmd_check, "can these objects run on a GPU arch? (CI gate)" },
	{ "ldd", ct_cmd_ldd, "the libraries a file loads, and the rule that finds each" },
	{ "why", ct_cmd_why, "how the loader finds one library, candidate by candidate" },
	{ "doctor", ct_cmd_doctor, "the driver, GPUs and CUDA runtimes of this machine" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: cudatrace [run] [-o DIR] [--eager] [--] PROGRAM [ARG...]\n"
		"       cudatrace COMMAND [ARG...]\n"
		"       cudatrace --help | --version\n"
		"\n"
		"cudatrace makes CUDA library loading visible.\n"
		"\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"\n"
		"'cudatrace python train.py' runs the program under cudatrace; 'cudatrace\n"
		"COMMAND --help' describes each command; 'man cudatrace' all of them.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return ct_cmd_exit(CT_EXIT_OK, false);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("cudatrace %s\n", CUDATRACE_VERSION);
		return ct_cmd_exit(CT_EXIT_OK, false);
	}
	/* Every command's output is checked once, here: none fails silently. */
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			/* run's program must inherit cudatrace's dispositions: run guards later. */
			if (commands[i].fn != ct_cmd_run)
				ct_cmd_guard_files(CT_EXIT_BAD_INPUT);
			return ct_cmd_exit(commands[i].fn(argc - 1, argv + 1),
					   commands[i].fn == ct_cmd_run);
		}
	/* Anything else is a program to run: cudatrace python train.py. */
	return ct_cmd_exit(ct_cmd_run(argc, argv), true);
}

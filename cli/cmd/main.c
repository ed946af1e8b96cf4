/* cudatrace: dispatch to the commands. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfscan.h"
#include "files.h"
#include "util.h"
#include "commands.h"
#include "manpage.h"

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
	{ "ps", ct_cmd_ps, "the CUDA libraries of running processes, read from /proc" },
	{ "diff", ct_cmd_diff, "what differs for CUDA between two runs, machines or containers" },
};

static void usage(FILE *out)
{
	char man[PATH_MAX + 8];
	const char *hint = ct_man_hint(man, sizeof(man));
	size_t i;

	fprintf(out,
		"usage: cudatrace [run] [-o DIR] [--eager] [--] PROGRAM [ARG...]\n"
		"       cudatrace COMMAND [ARG...]\n"
		"       cudatrace help [COMMAND] | --help | -V, --version\n"
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
		"COMMAND --help' describes each command");
	/* Only a man page this install has. */
	if (hint)
		fprintf(out, "; '%s' all of them", hint);
	fprintf(out, ".\n");
}

static long command_index(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return (long)i;
	return -1;
}

/*
 * Edits between a and b (insert, delete, replace, swap two neighbours),
 * for names of a few letters: "scna" is one from "scan".
 */
static size_t edits(const char *a, const char *b)
{
	enum { MAX = 16 };
	size_t d[MAX + 1][MAX + 1], n = strlen(a), m = strlen(b), i, j;

	if (n > MAX || m > MAX)
		return MAX;
	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

/* Is name a program that execvp would find (a path, or a file on PATH)? */
static bool is_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		size_t len;

		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? p : ".", name) <
			    (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		if (!end)
			return false;
	}
}

/*
 * The command a mistyped name was meant to be ("scna": scan), or NULL.
 * Only for a word that is no program: subcommand names win over programs
 * only when spelt exactly, and a program is never refused for looking
 * like one.
 */
static const char *meant(const char *name)
{
	size_t i, len = strlen(name);

	if (len < 2 || name[0] == '-' || is_program(name))
		return NULL;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (edits(name, commands[i].name) <= (len > 4 ? 2u : 1u))
			return commands[i].name;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *guess;
	long i;

	/* Files ps pinned are read through their descriptors, by elfscan too. */
	elfscan_set_opener(ct_open_file);
	if (argc < 2) {
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2 && command_index(argv[2]) < 0) {
		/* A topic help does not know is a usage error, as git's is: no list on stdout. */
		guess = meant(argv[2]);
		if (guess)
			ct_error("help: no command '%s'; did you mean '%s'?", argv[2], guess);
		else
			ct_error("help: no command '%s' (cudatrace --help lists them)", argv[2]);
		return CT_EXIT_BAD_INPUT;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2) {
		/* cudatrace help run: run --help. */
		static char help[] = "--help";
		char *args[] = { argv[2], help, NULL };

		i = command_index(argv[2]);
		return ct_cmd_exit(commands[i].fn(2, args), false);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return ct_cmd_exit(CT_EXIT_OK, false);
	}
	/* -V as well: what python -V, gcc -v... users reach for first. */
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("cudatrace %s\n", CUDATRACE_VERSION);
		return ct_cmd_exit(CT_EXIT_OK, false);
	}
	/* Every command's output is checked once, here: none fails silently. */
	i = command_index(argv[1]);
	if (i >= 0) {
		/* getopt's own messages start with argv[0]: "cudatrace scan: ...". */
		static char names[sizeof(commands) / sizeof(commands[0])][32];

		snprintf(names[i], sizeof(names[i]), "cudatrace %s", commands[i].name);
		argv[1] = names[i];
		/* run's program must inherit cudatrace's dispositions: run guards later. */
		if (commands[i].fn != ct_cmd_run)
			ct_cmd_guard_files(CT_EXIT_BAD_INPUT, NULL);
		return ct_cmd_exit(commands[i].fn(argc - 1, argv + 1),
				   commands[i].fn == ct_cmd_run);
	}
	guess = meant(argv[1]);
	if (guess) {
		ct_error("'%s' is not a cudatrace command, nor a program on PATH; did you mean '%s'?",
			 argv[1], guess);
		return CT_EXIT_BAD_INPUT;
	}
	/* Anything else is a program to run: cudatrace python train.py. */
	argv[0] = (char *)"cudatrace";
	return ct_cmd_exit(ct_cmd_run(argc, argv), true);
}

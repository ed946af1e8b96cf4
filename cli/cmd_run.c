/*
 * cudatrace [run] [-o DIR] [--eager] [-q] [--] COMMAND [ARG...]: run the
 * program with the shim injected, wait for it, then say what it loaded.
 *
 * The program's stdin, stdout and stderr are its own; cudatrace prints
 * nothing until it ends, then the report on stderr, and exits with the
 * program's status (128+N for a signal).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "commands.h"
#include "elfscan.h"
#include "facts.h"
#include "report.h"
#include "resolve.h"
#include "json.h"
#include "text.h"
#include "trace.h"

#ifndef CT_LIBDIR
#define CT_LIBDIR "/usr/local/lib"
#endif

static volatile sig_atomic_t child_pid;

/*
 * Signals sent to cudatrace by another process (kill, a job scheduler) go
 * on to the program; those the terminal sends reach the program directly
 * (it is in our process group), so forwarding them would deliver twice.
 */
static void forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (child_pid > 0 && si && si->si_code <= 0 && si->si_pid != child_pid)
		kill((pid_t)child_pid, sig);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The shim: $CUDATRACE_SHIM, next to the binary (build tree), or LIBDIR. */
static int find_shim(char *out, size_t size)
{
	const char *env = getenv("CUDATRACE_SHIM");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		if (env[0] != '/' || !readable(env)) {
			ct_error("CUDATRACE_SHIM='%s' is not an absolute path to a readable file", env);
			return -1;
		}
		snprintf(out, size, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		if (snprintf(out, size, "%s/libcudatrace.so", exe) < (int)size &&
		    readable(out))
			return 0;
		if (snprintf(out, size, "%s/../lib/cudatrace/libcudatrace.so", exe) <
			    (int)size &&
		    readable(out)) {
			char real[PATH_MAX];

			if (realpath(out, real))
				snprintf(out, size, "%s", real);
			return 0;
		}
	}
	snprintf(out, size, "%s/cudatrace/libcudatrace.so", CT_LIBDIR);
	if (readable(out))
		return 0;
	ct_error("cannot find libcudatrace.so next to cudatrace or in %s/cudatrace "
		 "(set CUDATRACE_SHIM)", CT_LIBDIR);
	return -1;
}

/* mkdir -p, keeping existing directories. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -errno;
		buf[i] = path[i];
	}
	return 0;
}

/* The command as execvp finds it; 0, or 127 / 126 after saying why. */
static int resolve(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	if (strchr(cmd, '/')) {
		snprintf(out, size, "%s", cmd);
		if (stat(out, &st) != 0) {
			ct_error("cannot run '%s': %s", cmd, strerror(errno));
			return 127;
		}
		if (S_ISDIR(st.st_mode) || access(out, X_OK) != 0) {
			ct_error("cannot run '%s': %s", cmd,
				 S_ISDIR(st.st_mode) ? "Is a directory" : strerror(errno));
			return 126;
		}
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		size_t len = strcspn(p, ":");

		if (snprintf(out, size, "%.*s/%s", (int)(len ? len : 1),
			     len ? p : ".", cmd) < (int)size &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return 0;
		p += len;
		if (*p == ':')
			p++;
	}
	ct_error("cannot run '%s': command not found", cmd);
	return 127;
}

/* Prepend value to the list in variable name (sep-separated). */
static void prepend(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	char *v;
	size_t n;

	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	n = strlen(value) + strlen(sep) + strlen(old) + 1;
	v = ct_xmalloc(n);
	snprintf(v, n, "%s%s%s", value, sep, old);
	setenv(name, v, 1);
	free(v);
}

/* Removes a private trace directory and its files. */
static void remove_dir(const char *dir)
{
	char cmd_path[PATH_MAX];
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(cmd_path, sizeof(cmd_path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(cmd_path))
			unlink(cmd_path);
	}
	closedir(d);
	rmdir(dir);
}

/* The run record: what cudatrace launched, and how it ended. */
static void write_run_record(const char *dir, char **argv, const char *resolved,
			     int status, double seconds, const char *shim)
{
	char path[PATH_MAX], host[256] = "unknown";
	struct utsname u;
	FILE *f;
	struct ct_json j;
	int i;

	if (uname(&u) == 0)
		snprintf(host, sizeof(host), "%s", u.nodename);
	if (snprintf(path, sizeof(path), "%s/%s-%ld.run.json", dir, host,
		     (long)getpid()) >= (int)sizeof(path))
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	ct_json_init(&j, f);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "ev", "run");
	ct_json_kv_string(&j, "host", host);
	ct_json_kv_string(&j, "command", resolved);
	ct_json_key(&j, "argv");
	ct_json_array_begin(&j);
	for (i = 0; argv[i]; i++)
		ct_json_string(&j, argv[i]);
	ct_json_array_end(&j);
	ct_json_kv_string(&j, "shim", shim);
	if (WIFEXITED(status))
		ct_json_kv_u64(&j, "exit", (uint64_t)WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		ct_json_kv_u64(&j, "signal", (uint64_t)WTERMSIG(status));
	ct_json_key(&j, "seconds");
	fprintf(f, "%.3f", seconds);
	ct_json_object_end(&j);
	ct_json_finish(&j);
	fclose(f);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudatrace [run] [-o DIR] [--json FILE] [--arch ARCH] [--eager] [-q]\n"
		"                 [--] COMMAND [ARG...]\n"
		"\n"
		"Run COMMAND with cudatrace's shim injected through the dynamic loader\n"
		"(LD_AUDIT and LD_PRELOAD); when it ends, report on stderr what went wrong\n"
		"and how to fix it (findings), then which CUDA libraries every process\n"
		"loaded (where from, by which rule, for whom), its device code against the\n"
		"GPUs, the driver, and the CUDA module loads. Children (fork, exec, spawn)\n"
		"are traced too.\n"
		"\n"
		"  -o, --output DIR  keep the trace in DIR (one file per process image;\n"
		"                    many processes and hosts may share it); by default\n"
		"                    a private temporary directory, removed afterwards\n"
		"  --json FILE       also write the report as JSON to FILE\n"
		"  --arch ARCH       judge device code for ARCH (sm_90, 9.0, a list)\n"
		"                    instead of the GPUs the driver reports\n"
		"  --eager           CUDA_MODULE_LOADING=EAGER: missing kernels show at load\n"
		"  -q, --quiet       the findings only; twice (-qq): no report\n"
		"  -v, --verbose     every line of evidence\n"
		"\n"
		"Exit status: the program's, or 128+N when a signal N ended it;\n"
		"127 when COMMAND is not found, 126 when it cannot be run.\n");
}

int ct_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "eager", no_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", required_argument, NULL, 'j' },
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	size_t ntargets = 0;
	const char *out_dir = NULL, *json_file = NULL;
	bool eager = false, verbose = false, keep;
	int quiet = 0;
	char shim[PATH_MAX], dir[PATH_MAX], cmd[PATH_MAX], why[512];
	struct sigaction sa;
	struct timespec t0, t1;
	struct ct_trace trace;
	int c, rc, status = 0;
	pid_t pid;

	optind = 1;
	/* "+": options end at the command; its own options are its own. */
	while ((c = getopt_long(argc, argv, "+o:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_dir = optarg;
			break;
		case 'e':
			eager = true;
			break;
		case 'q':
			quiet++;
			break;
		case 'v':
			verbose = true;
			break;
		case 'j':
			json_file = optarg;
			break;
		case 'a':
			if (ct_cmd_targets(optarg, targets, names, &ntargets, CT_MAX_TARGETS) != 0)
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
	if (optind >= argc) {
		ct_error("run: no COMMAND given");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (find_shim(shim, sizeof(shim)) != 0)
		return CT_EXIT_BAD_INPUT;
	if ((rc = resolve(argv[optind], cmd, sizeof(cmd))) != 0)
		return rc;

	keep = out_dir != NULL;
	if (out_dir) {
		int e = make_dirs(out_dir);

		if (e || !realpath(out_dir, dir) || access(dir, W_OK | X_OK) != 0) {
			ct_error("cannot use trace directory '%s': %s", out_dir,
				 strerror(e ? -e : errno));
			return CT_EXIT_BAD_INPUT;
		}
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/cudatrace.XXXXXX",
			 tmp && tmp[0] == '/' ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			ct_error("cannot create a trace directory in %s: %s",
				 tmp && tmp[0] == '/' ? tmp : "/tmp", strerror(errno));
			return CT_EXIT_BAD_INPUT;
		}
	}

	setenv("CUDATRACE_DIR", dir, 1);
	prepend("LD_AUDIT", shim, ":");
	prepend("LD_PRELOAD", shim, ":");
	if (eager)
		setenv("CUDA_MODULE_LOADING", "EAGER", 1);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ct_error("cannot start '%s': %s", argv[optind], strerror(errno));
		return CT_EXIT_BAD_INPUT;
	}
	if (pid == 0) {
		execv(cmd, argv + optind);
		ct_error("cannot run '%s': %s", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	write_run_record(dir, argv + optind, cmd, status,
			 (double)(t1.tv_sec - t0.tv_sec) +
				 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			 shim);

	if (quiet < 2 || json_file) {
		ct_trace_init(&trace);
		if (ct_trace_read_dir(&trace, dir, why, sizeof(why)) != 0) {
			ct_error("%s", why);
		} else {
			struct ct_report_options o;
			struct ct_loader machine;
			FILE *json = NULL;

			memset(&o, 0, sizeof(o));
			ct_machine_open(&machine);
			o.machine = &machine;
			o.targets = ntargets ? targets : NULL;
			o.ntargets = ntargets;
			o.findings_only = quiet == 1;
			o.verbose = verbose;
			o.colour = ct_want_colour(stderr);
			ct_trace_link(&trace);
			fflush(stdout);
			if (json_file && !(json = fopen(json_file, "we")))
				ct_error("cannot write '%s': %s", json_file, strerror(errno));
			if (quiet < 2 && !quiet)
				fputc('\n', stderr);
			ct_report(&trace, &o, quiet < 2 ? stderr : NULL, json);
			if (json && fclose(json) != 0)
				ct_error("cannot write '%s': %s", json_file, strerror(errno));
			if (keep && !quiet)
				ct_tprintf(stderr, "\ntrace kept in %s\n", dir);
			ct_loader_release(&machine);
		}
		ct_trace_release(&trace);
	}
	if (!keep)
		remove_dir(dir);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : CT_EXIT_BAD_INPUT;
}

/*
 * cudatrace [run] [-o DIR] [--eager] [-q] [--] COMMAND [ARG...]: run the
 * program with the shim injected, wait for it, then say what it loaded.
 *
 * The program's stdin, stdout and stderr are its own; cudatrace prints
 * nothing until it ends, then the report on stderr, and exits with the
 * program's status (128+N for a signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ct_limits.h"
#include "util.h"
#include "commands.h"
#include "elfinfo.h"
#include "elfscan.h"
#include "facts.h"
#include "job.h"
#include "report.h"
#include "resolve.h"
#include "json.h"
#include "run_dir.h"
#include "run_stale.h"
#include "text.h"
#include "trace.h"

#ifndef CT_LIBDIR
#define CT_LIBDIR "/usr/local/lib"
#endif

static volatile sig_atomic_t child_pid;

/*
 * What SIGINT, SIGTERM, SIGHUP and SIGQUIT do (docs/run.md, "Signals").
 * While the program runs, they are the program's: those sent to cudatrace
 * by another process (kill, a job scheduler) go on to it; those the
 * terminal sends reach it directly (it is in our process group), so
 * forwarding them would deliver twice. Once it is reaped, they end
 * cudatrace as they would have, after its private trace folder (every
 * command line and environment of the run) is removed; SIGPIPE too.
 */
enum { PHASE_NONE, PHASE_WAIT, PHASE_REPORT };
static volatile sig_atomic_t phase;
static const struct ct_run_dir *private_dir; /* removed on a signal in PHASE_REPORT */

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	sigset_t set;

	(void)ctx;
	if (phase == PHASE_WAIT) {
		if (child_pid > 0 && si && si->si_code <= 0 && si->si_pid != child_pid)
			kill((pid_t)child_pid, sig);
		return;
	}
	if (phase == PHASE_REPORT && private_dir)
		ct_run_dir_remove(private_dir);
	/* Die of it as without a handler: the shell sees which signal. */
	signal(sig, SIG_DFL);
	raise(sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * The processes of a run whose trace folder filled whose records stop
 * before the exit path (no fini or exit record, nor an exec): tracing
 * stopped there, for want of space (their trace-incomplete finding). The
 * process run waited for is marked so whatever the cause
 * (ct_proc_mark_cut); here it gets the cause too.
 */
static void mark_cut_by_full_disk(struct ct_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		struct ct_proc *p = &t->procs[i];

		if (p->stop_unsaid && !p->stop_errno)
			p->stop_errno = ENOSPC;
		if (p->untraced || p->fini || p->exited || p->next_image || p->stopped)
			continue;
		p->stopped = true;
		p->stop_errno = ENOSPC;
	}
}

/* The guard's cleanup for a file cut short under the report (SIGBUS). */
static void remove_private(void)
{
	if (phase == PHASE_REPORT && private_dir)
		ct_run_dir_remove(private_dir);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/*
 * The shim: $CUDATRACE_SHIM, next to the binary (build tree), in
 * ../lib/cudatrace relative to it (installed: the .deb, make install, the
 * wheel; docs/install.md), or in LIBDIR as built in.
 */
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

/* cmd found on PATH as execvp finds it, into out; false when it is not there. */
static bool on_path(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		size_t len = strcspn(p, ":");

		if (snprintf(out, size, "%.*s/%s", (int)(len ? len : 1),
			     len ? p : ".", cmd) < (int)size &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

/*
 * The interpreter a script's name says ("python" for train.py: the name
 * users type, python3 where no python is on PATH), or NULL. Only a hint
 * in a message: nothing is run through it.
 */
static const char *interpreter_for(const char *name)
{
	static const struct {
		const char *ext, *interp;
	} known[] = {
		{ ".py", "python" }, { ".sh", "bash" }, { ".bash", "bash" },
		{ ".pl", "perl" },   { ".rb", "ruby" }, { ".js", "node" },
	};
	const char *dot = strrchr(name, '.');
	char buf[PATH_MAX];
	size_t i;

	if (!dot || strchr(dot, '/'))
		return NULL;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(dot, known[i].ext) == 0) {
			if (strcmp(known[i].interp, "python") == 0 && !on_path("python", buf, sizeof(buf)))
				return "python3";
			return known[i].interp;
		}
	return NULL;
}

/*
 * The way to run cmd that its message suggests, or "" (into hint):
 * "cudatrace python train.py" for a script its name says the interpreter
 * of, "cudatrace ./tool" for a program in this folder that is not on PATH.
 */
static void run_hint(const char *cmd, bool executable_here, char *hint, size_t size)
{
	const char *interp = interpreter_for(cmd);

	hint[0] = '\0';
	if (interp)
		snprintf(hint, size, "; run it through its interpreter: cudatrace %s %s", interp,
			 cmd);
	else if (executable_here)
		snprintf(hint, size, "; to run the one in this folder: cudatrace ./%s", cmd);
}

/* The command as execvp finds it; 0, or 127 / 126 after saying why. */
static int resolve(const char *cmd, char *out, size_t size)
{
	char hint[PATH_MAX + 64];
	struct stat st;

	if (strchr(cmd, '/')) {
		snprintf(out, size, "%s", cmd);
		if (stat(out, &st) != 0) {
			ct_error("cannot run '%s': %s", cmd, strerror(errno));
			return 127;
		}
		if (S_ISDIR(st.st_mode) || access(out, X_OK) != 0) {
			int err = errno;

			run_hint(cmd, false, hint, sizeof(hint));
			ct_error("cannot run '%s': %s%s", cmd,
				 S_ISDIR(st.st_mode) ? "Is a directory" : strerror(err),
				 S_ISDIR(st.st_mode) ? "" : hint);
			return 126;
		}
		return 0;
	}
	if (on_path(cmd, out, size))
		return 0;
	/* cudatrace train.py: the file is here, not on PATH, and a script. */
	if (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))
		run_hint(cmd, access(cmd, X_OK) == 0, hint, sizeof(hint));
	else
		hint[0] = '\0';
	ct_error("cannot run '%s': command not found%s", cmd, hint);
	return 127;
}

/*
 * Why execv of cmd failed (err), once, with the way to run it: the file
 * is no program the kernel runs (ENOEXEC: a script without a '#!' line),
 * or the loader it names is missing (ENOENT of a file that exists).
 */
static void say_exec_failed(const char *cmd, int err)
{
	char hint[PATH_MAX + 64];
	const char *interp = interpreter_for(cmd);

	if (err == ENOEXEC) {
		if (interp)
			snprintf(hint, sizeof(hint), "cudatrace %s %s", interp, cmd);
		else
			snprintf(hint, sizeof(hint), "cudatrace INTERPRETER %s", cmd);
		ct_error("cannot run '%s': it is no program, nor a script whose first line "
			 "('#!') names its interpreter; run it through its interpreter: %s",
			 cmd, hint);
	} else if (err == ENOENT) {
		ct_error("cannot run '%s': %s (the file is there: the loader or interpreter "
			 "it names is not)", cmd, strerror(err));
	} else {
		ct_error("cannot run '%s': %s", cmd, strerror(err));
	}
}

/*
 * Where --json FILE goes: opened before the program starts, so that a
 * long job is not run for nothing, but not emptied until the report is
 * written, and removed again when cudatrace made it and never wrote it
 * (the program could not start). "-" is standard output.
 */
struct json_out {
	const char *name;
	FILE *f;
	bool is_stdout, created, written;
	bool later;   /* a FIFO or device: opened only to write (an open may wait for a reader) */
	dev_t dev;
	ino_t ino;
};

/* 0, or -1 after saying why FILE cannot be written. */
static int json_open(struct json_out *o, const char *name)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->name = name;
	if (strcmp(name, "-") == 0) {
		o->is_stdout = true;
		o->f = stdout;
		return 0;
	}
	/*
	 * Not a regular file (a FIFO a reader holds once the report comes, a
	 * terminal): opening it may wait, or be what the reader waits for, so
	 * only its permission is checked now; it is opened to write, as before.
	 */
	if (stat(name, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		if (access(name, W_OK) != 0) {
			ct_error("cannot write '%s': %s", name, strerror(errno));
			return -1;
		}
		o->later = true;
		return 0;
	}
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
	o->created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) != 0 || !(o->f = fdopen(fd, "w"))) {
		ct_error("cannot write '%s': %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (o->created)
			unlink(name);
		return -1;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	return 0;
}

/* The stream to write the report into: a file that was there is emptied now. */
static FILE *json_begin(struct json_out *o)
{
	struct stat st;

	o->written = true;
	if (o->later && !(o->f = fopen(o->name, "we"))) {
		ct_error("cannot write '%s': %s", o->name, strerror(errno));
		return NULL;
	}
	if (!o->later && !o->is_stdout && !o->created && fstat(fileno(o->f), &st) == 0 &&
	    S_ISREG(st.st_mode) && ftruncate(fileno(o->f), 0) != 0) {
		ct_error("cannot write '%s': %s", o->name, strerror(errno));
		return NULL;
	}
	return o->f;
}

/*
 * Close it: 0, or -1 after saying why what was written did not reach it.
 * A file made here and never written is removed (while its name is still
 * it), so that a program that could not start leaves none behind.
 */
static int json_close(struct json_out *o)
{
	struct stat st;
	int rc = 0;

	if (!o->f)
		return 0;
	if (o->is_stdout) {
		o->f = NULL;
		return 0;
	}
	if (o->written && ct_cmd_flush(o->f, o->name) != 0)
		rc = -1;
	if (fclose(o->f) != 0 && o->written && rc == 0) {
		ct_error("cannot write '%s': %s", o->name, strerror(errno));
		rc = -1;
	}
	o->f = NULL;
	if (o->created && !o->written && lstat(o->name, &st) == 0 && st.st_dev == o->dev &&
	    st.st_ino == o->ino)
		unlink(o->name);
	return rc;
}

/* Prepend value to the list in variable name (sep-separated). */
static void prepend(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name), *at;
	size_t n = strlen(value);
	char *v;

	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	/*
	 * Already there (cudatrace run inside cudatrace run): a second copy of
	 * the shim would load as a second auditor and write every record twice.
	 */
	for (at = old; (at = strstr(at, value)); at += n)
		if ((at == old || strchr(": ", at[-1])) && (!at[n] || strchr(": ", at[n])))
			return;
	n += strlen(sep) + strlen(old) + 1;
	v = ct_xmalloc(n);
	snprintf(v, n, "%s%s%s", value, sep, old);
	setenv(name, v, 1);
	free(v);
}

/* The host name as the shim writes it; '/' would make a file name a path. */
static void host_name(char *host, size_t size, bool for_file)
{
	struct utsname u;
	char *c;

	snprintf(host, size, "%s", uname(&u) == 0 ? u.nodename : "unknown");
	for (c = host; for_file && *c; c++)
		if (*c == '/')
			*c = '_';
}

/*
 * This run's id: 16 hex digits nobody can guess, so that another run's
 * files in a shared folder (or forged ones) are never taken for this
 * run's. 0, or -1 after saying why there is none.
 */
static int make_run_id(char *id, size_t size)
{
	unsigned char b[8];
	size_t i;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		ct_error("cannot make a run id: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(b) && 2 * i + 2 < size; i++)
		snprintf(id + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/*
 * The run record, <host>-<pid>.run.json: what cudatrace launched, and how
 * it ended (r). Written through the folder's descriptor into a file made
 * here (a name already taken gets <host>-<pid>.N.run.json); 0, or -1
 * after saying why it could not be written.
 */
static int write_run_record(const struct ct_run_dir *d, const struct ct_run *r,
			    const struct ct_job *job, double seconds, const char *shim)
{
	char stem[300], name[320], host[256];
	struct ct_json j;
	FILE *f;
	size_t i;
	int err;

	host_name(host, sizeof(host), true);
	snprintf(stem, sizeof(stem), "%s-%ld", host, (long)getpid());
	if (!(f = ct_run_dir_create(d, stem, ".run.json", name, sizeof(name)))) {
		ct_error("cannot write the run record '%s/%s.run.json': %s", d->path, stem,
			 strerror(errno));
		return -1;
	}
	ct_json_init(&j, f);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "ev", "run");
	ct_json_kv_string(&j, "run", r->run);
	ct_json_kv_string(&j, "host", r->host);
	ct_json_kv_string(&j, "command", r->command);
	ct_json_key(&j, "argv");
	ct_json_array_begin(&j);
	for (i = 0; i < r->argc; i++)
		ct_json_string(&j, r->argv[i]);
	ct_json_array_end(&j);
	ct_json_kv_string(&j, "shim", shim);
	ct_json_key(&j, "pid");
	ct_json_i64(&j, r->pid);
	ct_json_key(&j, "t");
	ct_json_i64(&j, r->t);
	if (r->exited)
		ct_json_kv_u64(&j, "exit", (uint64_t)r->exit_status);
	else if (r->signal)
		ct_json_kv_u64(&j, "signal", (uint64_t)r->signal);
	if (r->untraced)
		ct_json_kv_string(&j, "untraced", r->untraced);
	if (job->from) {
		ct_json_kv_string(&j, "job", job->id);
		ct_json_kv_string(&j, "job_from", job->from);
		/* What a user names the job by: the step's job, the array, the attempt. */
		if (*job->step)
			ct_json_kv_string(&j, "job_step", job->step);
		if (*job->array)
			ct_json_kv_string(&j, "job_array", job->array);
		if (*job->array_task)
			ct_json_kv_string(&j, "job_array_task", job->array_task);
		if (*job->restart)
			ct_json_kv_string(&j, "job_restart", job->restart);
		if (job->in_from) {
			ct_json_kv_string(&j, "job_in", job->in_id);
			ct_json_kv_string(&j, "job_in_from", job->in_from);
		}
	}
	ct_json_key(&j, "seconds");
	fprintf(f, "%.3f", seconds);
	ct_json_object_end(&j);
	/* fflush gives the cause; an earlier failure left only the flag. */
	err = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err)
		return 0;
	ct_error("cannot write the run record '%s/%s': %s", d->path, name, strerror(err));
	ct_run_dir_unlink(d, name); /* no half a record */
	return -1;
}

/* path quoted for a POSIX shell, into out (PATH_MAX * 4 + 3 bytes). */
static void shell_quote(const char *path, char *out)
{
	const char *c;
	char *q = out;

	*q++ = '\'';
	for (c = path; *c; c++) {
		if (*c == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *c;
		}
	}
	*q++ = '\'';
	*q = '\0';
}

/* The earlier runs' private folders left behind: say so, or remove them. */
static void say_stale(void *ctx, const char *path, bool removed, int err)
{
	char quoted[PATH_MAX * 4 + 3];

	(void)ctx;
	if (removed) {
		ct_error("removed '%s', the trace directory an earlier run left over a day ago", path);
		return;
	}
	shell_quote(path, quoted);
	if (err)
		ct_error("warning: cannot remove '%s', the trace directory an earlier run left "
			 "(its command lines and environment): %s", path, strerror(-err));
	else
		ct_error("warning: '%s' is the trace directory of an earlier run that ended "
			 "without removing it (killed?); it holds that run's command lines and "
			 "environment: remove it with: rm -rf -- %s", path, quoted);
}

/* Where private folders are made: $TMPDIR when absolute, else /tmp. */
static const char *tmp_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* Open the trace folder (-o DIR, or a private one); 0, or -1 after saying why. */
static int open_trace_dir(struct ct_run_dir *d, const char *out_dir)
{
	const char *tmp = tmp_dir();
	int err;

	if (!out_dir) {
		if ((err = ct_run_dir_private(d, tmp)) == 0) {
			/* Locked while this run lives: the next ones know it from a dead one's. */
			ct_run_stale_hold(d->fd);
			return 0;
		}
		if (err == -ENAMETOOLONG)
			ct_error("cannot create a trace directory in %s: its path is too long "
				 "(cudatrace's shim takes at most %d bytes)", tmp, CT_TRACE_DIR_MAX);
		else
			ct_error("cannot create a trace directory in %s: %s", tmp, strerror(-err));
		return -1;
	}
	if ((err = ct_run_dir_open(d, out_dir)) == 0) {
		/* Never chmodded: the folder is the user's. But say what it allows. */
		if (!d->created && (d->mode & 022))
			ct_error("warning: trace directory '%s' may be written by others "
				 "(mode %04o): they can remove, swap or forge its traces",
				 out_dir, (unsigned)d->mode);
		else if (!d->created && d->uid != geteuid() && d->uid != 0)
			ct_error("warning: trace directory '%s' belongs to another user "
				 "(uid %u): they can remove, swap or forge its traces",
				 out_dir, (unsigned)d->uid);
		if (d->writable_above[0])
			ct_error("warning: trace directory '%s' is inside '%s', which another "
				 "user may change: they can swap the folder while the program "
				 "runs (the shim then refuses to write, and records are lost)",
				 out_dir, d->writable_above);
		return 0;
	}
	switch (-err) {
	case ELOOP:
		ct_error("cannot use trace directory '%s': it is a symbolic link "
			 "(not followed; give the directory it points to)", out_dir);
		break;
	case ENAMETOOLONG:
		ct_error("cannot use trace directory '%s': %s (its absolute path may have "
			 "at most %d bytes, the most cudatrace's shim takes)",
			 out_dir, strerror(-err), CT_TRACE_DIR_MAX);
		break;
	case ESTALE:
		ct_error("cannot use trace directory '%s': it changed while being opened",
			 out_dir);
		break;
	default:
		ct_error("cannot use trace directory '%s': %s", out_dir, strerror(-err));
	}
	return -1;
}

/*
 * Is the program statically linked? No loader runs in it, so the shim
 * cannot enter it: not the environment's fault, nor cudatrace's, and the
 * report says so (trace-incomplete) from the run record.
 */
static bool statically_linked(const char *cmd)
{
	struct ct_elfinfo e;
	bool is_static;

	ct_elfinfo_init(&e);
	is_static = ct_elfinfo_read(&e, cmd) == 0 && !e.interp;
	ct_elfinfo_release(&e);
	return is_static;
}

/*
 * Why the program recorded nothing: it cannot be traced (set-user-ID), or
 * its trace file could not be written: the folder (full, read-only), or
 * the limits it inherited from cudatrace, which cudatrace reads as its
 * own: a file size limit under the room the shim keeps below it, or no
 * descriptor beyond stdin, stdout and stderr for the folder and the file.
 */
static void say_nothing_recorded(const struct ct_run_dir *d, const char *cmd)
{
	const char *base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	const char *why = ct_run_dir_why_unwritable(d);
	struct rlimit fsize, nofile;
	struct stat st;

	if (getrlimit(RLIMIT_FSIZE, &fsize) != 0)
		fsize.rlim_cur = RLIM_INFINITY;
	if (getrlimit(RLIMIT_NOFILE, &nofile) != 0)
		nofile.rlim_cur = RLIM_INFINITY;
	if (stat(cmd, &st) == 0 && ((st.st_mode & S_ISUID && st.st_uid != geteuid()) ||
				    (st.st_mode & S_ISGID && st.st_gid != getegid())))
		ct_error("nothing was recorded: '%s' is a set-user-ID or set-group-ID program "
			 "(the loader ignores LD_AUDIT and LD_PRELOAD for it)", base);
	else if (why)
		ct_error("nothing was recorded: %s ('%s')", why, d->path);
	else if (fsize.rlim_cur != RLIM_INFINITY &&
		 fsize.rlim_cur < CT_SHIM_FSIZE_SPARE + CT_SHIM_START_MAX)
		ct_error("nothing was recorded: the file size limit is %llu bytes (ulimit -f), "
			 "and cudatrace's shim writes a record only while it leaves %d KiB "
			 "under that limit: '%s' could not write its trace file (raise it: "
			 "ulimit -f unlimited)",
			 (unsigned long long)fsize.rlim_cur, CT_SHIM_FSIZE_SPARE / 1024, base);
	else if (nofile.rlim_cur != RLIM_INFINITY && nofile.rlim_cur < 5)
		ct_error("nothing was recorded: the open file limit is %llu (ulimit -n): '%s' "
			 "has no descriptor free beyond stdin, stdout and stderr to write its "
			 "trace file with (cudatrace's shim needs 2)",
			 (unsigned long long)nofile.rlim_cur, base);
	else
		ct_error("nothing was recorded: '%s' left no trace in '%s' (its trace file "
			 "is missing or empty)", base, d->path);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudatrace [run] [-o DIR] [--json FILE] [--arch ARCH] [--eager] [-q] [-v]\n"
		"                 [--color[=WHEN]] [--] COMMAND [ARG...]\n"
		"\n"
		"Run COMMAND with cudatrace's shim injected through the dynamic loader\n"
		"(LD_AUDIT and LD_PRELOAD); when it ends, report on stderr what went wrong\n"
		"and how to fix it (findings), then which CUDA libraries every process\n"
		"loaded (where from, by which rule, for whom), its device code against the\n"
		"GPUs, the driver, and the CUDA module loads. Children (fork, exec, spawn)\n"
		"are traced too.\n"
		"\n"
		"  -o, --output DIR  keep the trace in DIR (one file per process image;\n"
		"                    many processes and hosts may share it; created\n"
		"                    0700, never a symlink); by default a private\n"
		"                    temporary directory, removed afterwards\n"
		"  --json FILE       also write the report as JSON to FILE ('-': stdout,\n"
		"                    after the program's own output); FILE is opened\n"
		"                    before the program starts, written when it ends\n"
		"  --arch ARCH       judge device code for ARCH (sm_90, 9.0, a list)\n"
		"                    instead of the GPUs the driver reports\n"
		"  --eager           CUDA_MODULE_LOADING=EAGER: missing kernels show at load\n"
		"  -q, --quiet       the findings only; twice (-qq): no report\n"
		"  -v, --verbose     everything: all evidence, askers, the whole tree,\n"
		"                    every process\n"
		"  --color[=WHEN]    colour the severities: auto (stderr a terminal,\n"
		"                    NO_COLOR unset; the default), always, never\n"
		"\n"
		"Exit status: the program's, or 128+N when a signal N ended it;\n"
		"127 when COMMAND is not found, 126 when it cannot be run; 2 when\n"
		"the program exited 0 but cudatrace's own output could not be\n"
		"written or nothing was recorded (said on stderr).\n");
}

/*
 * The signals handled (on_signal), and what they did before. The last,
 * SIGPIPE, only once the program is reaped: then cudatrace writes.
 */
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))
#define NFORWARDED (NHANDLED - 1)
static struct sigaction saved[NHANDLED];
static size_t nsaved;

/* handled[0..n): on_signal, but those ignored (nohup, a background job). */
static void handle_signals(size_t n)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* One at a time: the folder is removed once. */
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&sa.sa_mask, handled[i]);
	for (; nsaved < n; nsaved++)
		sigaction(handled[nsaved], NULL, &saved[nsaved]);
	for (i = 0; i < n; i++)
		/* Ignored: the program inherits that, and it stays so. */
		if (saved[i].sa_handler != SIG_IGN)
			sigaction(handled[i], &sa, NULL);
}

/* The signals as they were; one that came meanwhile acts now. */
static void restore_signals(void)
{
	sigset_t set, old;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&set, handled[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	phase = PHASE_NONE;
	for (i = 0; i < nsaved; i++)
		sigaction(handled[i], &saved[i], NULL);
	nsaved = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * The private folder removed and closed, then the signals as they were:
 * one that comes meanwhile waits for both, then acts as it would have.
 * What could not be removed (something the program put there) is marked
 * said, so that later runs leave it to the user this run tells; 0, or
 * -errno of what kept it.
 */
static int close_private(struct ct_run_dir *d)
{
	sigset_t set, old;
	size_t i;
	int err;

	sigemptyset(&set);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&set, handled[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((err = ct_run_dir_remove(d)) != 0)
		ct_run_stale_said(d->fd);
	ct_run_dir_close(d);
	private_dir = NULL;
	restore_signals();
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/*
 * The program stopped itself (raise(SIGTSTP), a read from the terminal in
 * the background) or was stopped alone: cudatrace stops too, so that the
 * shell, which waits for cudatrace, gets the terminal back and sees the
 * job stopped; when cudatrace is continued (fg, bg, kill -CONT), so is the
 * program. Stopped with cudatrace by the terminal (Ctrl-Z), the program
 * was continued with it too: nothing to do.
 */
static void follow_stop(pid_t pid, int sig)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			/* "pid (comm) S ...": comm may hold anything, the state follows its last ')'. */
			if ((p = strrchr(buf, ')')) && p[1] == ' ' && p[2] != 'T')
				return;
		}
	}
	raise(sig == SIGSTOP || sig == SIGTTIN || sig == SIGTTOU ? sig : SIGTSTP);
	kill(pid, SIGCONT);
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
		CT_COLOR_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	size_t ntargets = 0;
	const char *out_dir = NULL, *json_file = NULL;
	bool eager = false, verbose = false, failed = false, recorded, untraceable;
	int quiet = 0;
	char shim[PATH_MAX], cmd[PATH_MAX], abs_cmd[PATH_MAX], why[512], host[256], run[17];
	struct ct_run_dir dir;
	struct timespec t0, t1, start;
	struct ct_trace trace;
	struct ct_run rec;
	struct ct_job job;
	struct json_out jo;
	int c, rc, status = 0, exec_pipe[2], exec_err = 0;
	pid_t pid;

	optind = 1;
	/* "+": options end at the command; its own options are its own. */
	while ((c = getopt_long(argc, argv, "+o:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			/* A folder is what the shim writes into: stdout cannot be one. */
			if (strcmp(optarg, "-") == 0) {
				ct_error("-o takes a directory to keep the trace in; '-' (standard "
					 "output) cannot hold one (--json - writes the report there)");
				return CT_EXIT_BAD_INPUT;
			}
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
	if (optind >= argc) {
		ct_error("run: no COMMAND given");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (find_shim(shim, sizeof(shim)) != 0)
		return CT_EXIT_BAD_INPUT;
	if ((rc = resolve(argv[optind], cmd, sizeof(cmd))) != 0)
		return rc;

	if (make_run_id(run, sizeof(run)) != 0)
		return CT_EXIT_BAD_INPUT;
	/* Both outputs checked before the program starts: a long job is not run for nothing. */
	memset(&jo, 0, sizeof(jo));
	if (json_file && json_open(&jo, json_file) != 0)
		return CT_EXIT_BAD_INPUT;
	ct_run_dir_init(&dir);
	if (open_trace_dir(&dir, out_dir) != 0) {
		json_close(&jo);
		return CT_EXIT_BAD_INPUT;
	}
	/*
	 * execv's failure comes back through it; a successful exec closes it.
	 * Without a descriptor to spare (ulimit -n), the program still runs,
	 * and says its own failure to start, as it did before.
	 */
	if (pipe2(exec_pipe, O_CLOEXEC) != 0)
		exec_pipe[0] = exec_pipe[1] = -1;
	/* The shim takes both from the environment its program starts with. */
	setenv("CUDATRACE_RUN", run, 1);
	setenv("CUDATRACE_DIR", dir.path, 1);
	{
		/* The folder's identity: the shim writes into that folder or nowhere. */
		char id[48];

		snprintf(id, sizeof(id), "%ju:%ju", (uintmax_t)dir.dev, (uintmax_t)dir.ino);
		setenv("CUDATRACE_DIR_ID", id, 1);
	}
	prepend("LD_AUDIT", shim, ":");
	prepend("LD_PRELOAD", shim, ":");
	if (eager)
		setenv("CUDA_MODULE_LOADING", "EAGER", 1);

	phase = PHASE_WAIT;
	handle_signals(NFORWARDED);
	clock_gettime(CLOCK_REALTIME, &start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ct_error("cannot start '%s': %s", argv[optind], strerror(errno));
		restore_signals();
		if (exec_pipe[0] >= 0) {
			close(exec_pipe[0]);
			close(exec_pipe[1]);
		}
		json_close(&jo);
		ct_run_dir_unmake(&dir);
		return CT_EXIT_BAD_INPUT;
	}
	if (pid == 0) {
		int err;

		execv(cmd, argv + optind);
		/* Said once, by cudatrace, which then reports nothing of a run that never was. */
		err = errno;
		if (exec_pipe[1] < 0 || write(exec_pipe[1], &err, sizeof(err)) != (ssize_t)sizeof(err))
			ct_error("cannot run '%s': %s", argv[optind], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	if (exec_pipe[1] >= 0)
		close(exec_pipe[1]);
	for (; exec_pipe[0] >= 0;) {
		ssize_t n = read(exec_pipe[0], &exec_err, sizeof(exec_err));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(exec_err))
			exec_err = 0;
		break;
	}
	if (exec_pipe[0] >= 0)
		close(exec_pipe[0]);
	child_pid = pid;
	for (;;) {
		if (waitpid(pid, &status, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!WIFSTOPPED(status))
			break;
		follow_stop(pid, WSTOPSIG(status));
	}
	/*
	 * The program never started: one error, and nothing of a run left
	 * behind (no run record, no report, no folder or file made for them).
	 */
	if (exec_err) {
		restore_signals();
		child_pid = 0;
		json_close(&jo);
		ct_run_dir_unmake(&dir);
		say_exec_failed(argv[optind], exec_err);
		return exec_err == ENOENT ? 127 : 126;
	}
	/* Reaped: from now on a signal ends cudatrace (no moment it is lost). */
	if (dir.private_dir) {
		private_dir = &dir;
		phase = PHASE_REPORT;
		handle_signals(NHANDLED);
	} else {
		restore_signals();
	}
	child_pid = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* A file cut short under the report's scan: the status run would return. */
	ct_cmd_guard_files(WIFSIGNALED(status)				   ? 128 + WTERMSIG(status)
			   : WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status)
								  : CT_EXIT_BAD_INPUT,
			   remove_private);

	/* Nothing from the program itself is no "no problem found". */
	host_name(host, sizeof(host), false);
	recorded = ct_run_dir_recorded(&dir, host, (long)pid, start.tv_sec);
	/* A disk that filled during the run: the traces end early, and that is said. */
	if (recorded && ct_run_dir_why_unwritable(&dir))
		ct_error("%s ('%s'): the traces stop where it filled; what came after is not "
			 "known", ct_run_dir_why_unwritable(&dir), dir.path);
	untraceable = !recorded && statically_linked(cmd);
	memset(&rec, 0, sizeof(rec));
	rec.run = run;
	rec.host = host;
	rec.command = realpath(cmd, abs_cmd) ? abs_cmd : cmd; /* as the shim names a program */
	rec.argv = (const char **)(argv + optind);
	rec.argc = (size_t)(argc - optind);
	rec.pid = pid;
	rec.t = (int64_t)start.tv_sec * 1000000000 + start.tv_nsec;
	rec.exited = WIFEXITED(status);
	rec.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	rec.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	rec.untraced = untraceable ? "static" : NULL;
	/* Its file, and the traces read back, are this user's (run_dir.h reads only those). */
	rec.owner = (int64_t)geteuid();
	/* One rank of srun, torchrun or mpirun: the job its launcher says. */
	if (ct_job_from_env(environ, &job)) {
		rec.job = job.id;
		rec.job_from = job.from;
		rec.job_step = *job.step ? job.step : NULL;
		rec.job_array = *job.array ? job.array : NULL;
		rec.job_array_task = *job.array_task ? job.array_task : NULL;
		rec.job_restart = *job.restart ? job.restart : NULL;
		rec.job_in = job.in_from ? job.in_id : NULL;
		rec.job_in_from = job.in_from;
	}
	rec.ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
	if (write_run_record(&dir, &rec, &job, (double)rec.ns / 1e9, shim) != 0)
		failed = true;

	if (quiet < 2 || json_file) {
		ct_trace_init(&trace);
		trace.only_run = run; /* this run's processes, not the folder's others */
		trace.threads = ct_threads(8);
		if (ct_run_dir_read(&dir, &trace, why, sizeof(why)) != 0) {
			ct_error("%s", why);
			failed = true;
		} else {
			struct ct_report_options o;
			struct ct_loader machine;
			FILE *json = NULL;
			bool text;

			/* How it ended, also when its run record could not be written. */
			ct_trace_add_run(&trace, &rec);
			ct_trace_link(&trace);
			/* A daemon that outlived the program is still running, not ended. */
			ct_trace_find_running(&trace);
			/*
			 * The disk filled during the run: a process whose records end
			 * before its exit path lost what came after (the shim could
			 * write no word of it), which is no clean bill.
			 */
			if (recorded && ct_run_dir_why_unwritable(&dir))
				mark_cut_by_full_disk(&trace);
			text = quiet < 2 && (recorded || trace.nprocs);
			memset(&o, 0, sizeof(o));
			ct_machine_open(&machine);
			o.machine = &machine;
			o.targets = ntargets ? targets : NULL;
			o.ntargets = ntargets;
			o.findings_only = quiet == 1;
			o.verbose = verbose;
			o.colour = ct_want_colour(stderr);
			fflush(stdout);
			if (json_file && !(json = json_begin(&jo)))
				failed = true;
			if (text && !quiet)
				fputc('\n', stderr);
			ct_cmd_print_report(&trace, &o, text ? stderr : NULL, json);
			ct_loader_release(&machine);
		}
		ct_trace_release(&trace);
	}
	if (json_close(&jo) != 0)
		failed = true;
	/* A static program is said in the report: the program's nature, no failure. */
	if (!recorded && !untraceable) {
		say_nothing_recorded(&dir, cmd);
		failed = true;
	}
	/*
	 * The private folders dead runs left, said with the report, after the
	 * program, never among its own output: this run's own is locked, so
	 * never taken for one.
	 */
	if (dir.private_dir)
		ct_run_stale_scan(tmp_dir(), say_stale, NULL);
	if (ct_run_dir_replaced(&dir))
		ct_error("warning: trace directory '%s' was replaced while the program ran: "
			 "the shim refused to write through its name, and the records made "
			 "after were lost (the report is of the folder cudatrace made)",
			 dir.path);
	if (out_dir && !quiet)
		ct_tprintf(stderr, "\ntrace kept in %s\n", dir.path);
	if (dir.private_dir) {
		char path[PATH_MAX], quoted[PATH_MAX * 4 + 3];
		int left;

		snprintf(path, sizeof(path), "%s", dir.path);
		if ((left = close_private(&dir)) != 0) {
			/* Said once, here: later runs leave it alone (ct_run_stale_said). */
			shell_quote(path, quoted);
			ct_error("warning: cannot remove this run's trace directory '%s' (the "
				 "program left something there that cudatrace does not remove: "
				 "%s); it holds the run's command lines and environment: remove "
				 "it with: rm -rf -- %s",
				 path, strerror(-left), quoted);
		}
	} else {
		ct_run_dir_close(&dir);
	}
	if (ct_cmd_flush(stderr, NULL) != 0)
		failed = true;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : CT_EXIT_BAD_INPUT;
	/* The program's failure says more than cudatrace's own (docs/run.md). */
	return rc == 0 && failed ? CT_EXIT_BAD_INPUT : rc;
}

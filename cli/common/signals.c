/*
 * Signal abbreviations, our own table rather than glibc's sigabbrev_np():
 * that function arrived in glibc 2.32 (GLIBC_2.32), and the wheel's binary
 * must run on older ones (docs/install.md). The names are glibc's,
 * SIGPOLL's included (29 is "POLL", not "IO").
 */
#include <signal.h>
#include <stddef.h>

#include "signals.h"

static const char *const abbrev[] = {
	[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT", [SIGILL] = "ILL",
	[SIGTRAP] = "TRAP", [SIGABRT] = "ABRT", [SIGBUS] = "BUS", [SIGFPE] = "FPE",
	[SIGKILL] = "KILL", [SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
	[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM", [SIGSTKFLT] = "STKFLT",
	[SIGCHLD] = "CHLD", [SIGCONT] = "CONT", [SIGSTOP] = "STOP", [SIGTSTP] = "TSTP",
	[SIGTTIN] = "TTIN", [SIGTTOU] = "TTOU", [SIGURG] = "URG", [SIGXCPU] = "XCPU",
	[SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH",
	[SIGPOLL] = "POLL", [SIGPWR] = "PWR", [SIGSYS] = "SYS",
};

const char *ct_signal_abbrev(int64_t sig)
{
	if (sig <= 0 || sig >= (int64_t)(sizeof(abbrev) / sizeof(abbrev[0])))
		return NULL;
	return abbrev[sig];
}

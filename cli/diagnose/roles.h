/*
 * What each process of a report is to its reader (roles.c), worked out
 * once, below the printers, so that the text, the Markdown, the JSON and
 * diff all say the same:
 *
 * - shown: it did something with CUDA (a CUDA library, a search for one,
 *   the driver, cuInit, a module), a finding names it, or something of it
 *   was lost (records dropped or cut, an untraced exec), or it ended badly
 *   (a signal, no exit record);
 * - wrapper: on the way to the program the user meant and doing nothing
 *   with CUDA itself, or what such a wrapper ran besides (pyenv's shims
 *   and the dozens of helpers they run, a shell script): folded into one
 *   line, "78 wrapper processes: pyenv";
 * - quiet: the rest, counted ("2 processes without CUDA activity").
 *
 * The work is what is shown, and the last image of each program cudatrace
 * run started (what the user meant, even when it does nothing with CUDA).
 * A process is on the way when some work descends from it (by fork or
 * exec). A wrapper is a process on the way, not work itself, whose image
 * ended in an exec (env, a launcher script's exec) or which runs a shell
 * (sh, bash, dash, zsh, ksh, ...) whose child did the work; what a
 * wrapper started that is neither work nor on the way is folded with it.
 * A shown process is never folded, nor one made from a run record (not
 * traced), nor one read from /proc (ps). A python that starts workers is
 * no wrapper: only shells and exec'ing images are.
 */
#ifndef CT_ROLES_H
#define CT_ROLES_H

#include <stdbool.h>
#include <stddef.h>

#include "diagnose.h"
#include "trace.h"

enum ct_role { CT_ROLE_QUIET, CT_ROLE_SHOWN, CT_ROLE_WRAPPER };

#define CT_ROLE_NAMES 3

struct ct_roles {
	unsigned char *role;       /* per process of the trace (enum ct_role), malloc'd */
	size_t nshown, nwrappers, nquiet;
	/*
	 * The wrappers' names, most frequent first (at most CT_ROLE_NAMES):
	 * each wrapper on the way is named by the script it runs, or its
	 * program, up to a '-' ("pyenv" for pyenv-exec), so a tool's many
	 * scripts are one name.
	 */
	char names[CT_ROLE_NAMES][64];
	size_t nnames;
	bool more_names;           /* more names than CT_ROLE_NAMES */
};

/*
 * The roles of t's processes, d being t's diagnosis (the findings' places).
 * r is the caller's; ct_roles_release frees what it holds.
 */
void ct_roles_find(struct ct_roles *r, const struct ct_trace *t, const struct ct_diagnosis *d);
void ct_roles_release(struct ct_roles *r);

/* The names joined: "pyenv", "pyenv, conda and more", into buf; returns buf. */
const char *ct_roles_names(const struct ct_roles *r, char *buf, size_t size);

#endif

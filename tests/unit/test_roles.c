/*
 * Unit tests for cli/diagnose/roles.c: which processes of a trace are
 * shown, wrappers (folded into one line) or quiet, on a trace made in
 * memory the way a pyenv-like shim leaves it: env execs bash, which runs
 * the tool's script (its subshell runs readlink) and execs the program
 * cudatrace ran; a helper that searched for a CUDA library is shown.
 */
#include "helpers.h"

#include "roles.h"

static const char *argv_env[] = { "/usr/bin/env", "bash", "/x/.tool/shims/prog", "-c" };
static const char *argv_tool[] = { "bash", "/x/.tool/libexec/mytool-exec", "prog" };
static const char *argv_prog[] = { "prog", "-c" };
static const char *argv_sub[] = { "bash", "/x/.tool/libexec/mytool-exec", "prog" };
static const char *argv_readlink[] = { "readlink", "/x" };
static const char *argv_probe[] = { "probe" };
static const char *argv_run[] = { "prog", "-c" };

enum { ENV, TOOL, PROG, SUB, READLINK, PROBE, N };

static void make_trace(struct ct_trace *t, struct ct_run *run, struct ct_search *search)
{
	struct ct_proc *p;

	memset(t, 0, sizeof(*t));
	memset(run, 0, sizeof(*run));
	memset(search, 0, sizeof(*search));
	t->procs = p = calloc(N, sizeof(*p));
	assert_non_null(p);
	t->nprocs = N;
	run->argv = argv_run;
	run->argc = 2;
	run->exited = true;
	p[ENV] = (struct ct_proc){ .pid = 10, .exe = "/usr/bin/env", .argv = argv_env, .argc = 4,
				   .next_image = &p[TOOL] };
	p[TOOL] = (struct ct_proc){ .pid = 10, .exe = "/usr/bin/bash", .argv = argv_tool, .argc = 3,
				    .parent = &p[ENV], .next_image = &p[PROG] };
	/* The program cudatrace ran: no CUDA, yet what the user meant. */
	p[PROG] = (struct ct_proc){ .pid = 10, .exe = "/opt/prog", .argv = argv_prog, .argc = 2,
				    .parent = &p[TOOL], .launched = run, .exited = true };
	/* The tool's subshell, and the readlink it execs. */
	p[SUB] = (struct ct_proc){ .pid = 11, .exe = "/usr/bin/bash", .argv = argv_sub, .argc = 3,
				   .parent = &p[TOOL], .forked = true, .next_image = &p[READLINK] };
	p[READLINK] = (struct ct_proc){ .pid = 11, .exe = "/usr/bin/readlink",
					.argv = argv_readlink, .argc = 2, .parent = &p[SUB],
					.exited = true };
	/* A helper of the tool that searched for a CUDA library: shown, never folded. */
	search->name = "libcudart.so.12";
	p[PROBE] = (struct ct_proc){ .pid = 12, .exe = "/opt/probe", .argv = argv_probe, .argc = 1,
				     .parent = &p[TOOL], .exited = true, .searches = search,
				     .nsearches = 1 };
}

static void test_pyenv_like(void **state)
{
	struct ct_diagnosis d;
	struct ct_search search;
	struct ct_roles r;
	struct ct_trace t;
	struct ct_run run;
	char names[64];

	(void)state;
	memset(&d, 0, sizeof(d));
	make_trace(&t, &run, &search);
	ct_roles_find(&r, &t, &d);
	assert_int_equal(r.role[ENV], CT_ROLE_WRAPPER);
	assert_int_equal(r.role[TOOL], CT_ROLE_WRAPPER);
	assert_int_equal(r.role[PROG], CT_ROLE_QUIET);
	assert_int_equal(r.role[SUB], CT_ROLE_WRAPPER);
	assert_int_equal(r.role[READLINK], CT_ROLE_WRAPPER);
	assert_int_equal(r.role[PROBE], CT_ROLE_SHOWN);
	assert_int_equal(r.nwrappers, 4);
	assert_int_equal(r.nshown, 1);
	assert_int_equal(r.nquiet, 1);
	/* Named by what they run, up to a '-'; the shim named after the program is not. */
	assert_string_equal(ct_roles_names(&r, names, sizeof(names)), "mytool");
	ct_roles_release(&r);
	free(t.procs);
}

/* Without a program cudatrace ran nor any work: nothing is on the way, nothing folded. */
static void test_no_work(void **state)
{
	struct ct_diagnosis d;
	struct ct_search search;
	struct ct_roles r;
	struct ct_trace t;
	struct ct_run run;
	size_t i;

	(void)state;
	memset(&d, 0, sizeof(d));
	make_trace(&t, &run, &search);
	t.procs[PROG].launched = NULL;
	t.procs[PROBE].nsearches = 0;
	ct_roles_find(&r, &t, &d);
	for (i = 0; i < N; i++)
		assert_int_equal(r.role[i], CT_ROLE_QUIET);
	assert_int_equal(r.nwrappers, 0);
	assert_int_equal(r.nnames, 0);
	ct_roles_release(&r);
	free(t.procs);
}

/* A wrapper that ended badly is shown, never folded; a cycle of parents ends. */
static void test_bad_end_and_cycle(void **state)
{
	struct ct_diagnosis d;
	struct ct_search search;
	struct ct_roles r;
	struct ct_trace t;
	struct ct_run run;

	(void)state;
	memset(&d, 0, sizeof(d));
	make_trace(&t, &run, &search);
	/* The subshell was killed before it exec'd: no exit record, no exec. */
	t.procs[SUB].next_image = NULL;
	t.procs[READLINK].parent = &t.procs[READLINK];
	ct_roles_find(&r, &t, &d);
	assert_int_equal(r.role[SUB], CT_ROLE_SHOWN);
	assert_int_equal(r.role[ENV], CT_ROLE_WRAPPER);
	ct_roles_release(&r);
	free(t.procs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pyenv_like),
		cmocka_unit_test(test_no_work),
		cmocka_unit_test(test_bad_end_and_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Findings (grouping, ordering, where they were seen, JSON) and the data
 * tables they rest on (cli/common/compat.c).
 */
#include "helpers.h"

#include "compat.h"
#include "findings.h"
#include "findings_out.h"
#include "json.h"

static void add_driver_missing(struct ct_findings *fs, int64_t pid, const char *host,
			       const char *rank)
{
	struct ct_finding *f = ct_finding_add(fs, CT_F_DRIVER_MISSING, NULL,
					      "no NVIDIA driver: '%s' could not be loaded",
					      "libcuda.so.1");

	ct_finding_fix(f, "install the NVIDIA driver");
	ct_finding_evidence(f, "dlopen by %s", "libcudart.so.13");
	ct_finding_where(f, pid, host, rank, "42.0", "python3 train.py");
}

static void test_grouping(void **state)
{
	struct ct_findings fs;
	struct ct_finding *f;
	char where[128];
	int r;

	(void)state;
	ct_findings_init(&fs);
	/* A warning first, then eight ranks on two hosts with one error. */
	f = ct_finding_add(&fs, CT_F_PTX_JIT_ONLY, "/x/ext.so", "'ext.so' runs only by JIT");
	ct_finding_fix(f, "add SASS");
	ct_finding_where(f, 1, "a", "0", NULL, NULL);
	for (r = 0; r < 8; r++) {
		char rank[8];

		snprintf(rank, sizeof(rank), "%d", r);
		add_driver_missing(&fs, 100 + r, r < 4 ? "node-a" : "node-b", rank);
	}
	/* The same code and message with another fix is another finding. */
	f = ct_finding_add(&fs, CT_F_DRIVER_MISSING, NULL, "no NVIDIA driver: '%s' could not be loaded",
			   "libcuda.so.1");
	ct_finding_fix(f, "something else");
	assert_int_equal(fs.n, 10);
	ct_findings_group(&fs);
	assert_int_equal(fs.n, 3);
	/* Errors first, in first-seen order; then the warning. */
	assert_int_equal(fs.f[0].code, CT_F_DRIVER_MISSING);
	assert_int_equal(fs.f[0].nwhere, 8);
	assert_string_equal(fs.f[0].fix, "install the NVIDIA driver");
	assert_int_equal(fs.f[1].code, CT_F_DRIVER_MISSING);
	assert_int_equal(fs.f[2].severity, CT_SEV_WARNING);
	assert_string_equal(ct_where_words(&fs.f[0], where, sizeof(where)), "8 ranks on 2 hosts");
	assert_string_equal(ct_where_words(&fs.f[1], where, sizeof(where)), "this machine");
	assert_string_equal(ct_where_words(&fs.f[2], where, sizeof(where)), "rank 0 (process 1)");
	assert_int_equal(ct_findings_worst(&fs), CT_SEV_ERROR);
	ct_findings_release(&fs);
	assert_int_equal(ct_findings_worst(&fs), -1);
}

static void test_where_words(void **state)
{
	struct ct_findings fs;
	struct ct_finding *f;
	char where[128];

	(void)state;
	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_LIB_NOT_FOUND, NULL, "x");
	ct_finding_where(f, 7, "h", NULL, NULL, "python3 a.py");
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "process 7: python3 a.py");
	/* A report that spans hosts names the host: the pid is on every one. */
	f->name_hosts = true;
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "process 7 on h: python3 a.py");
	f->name_hosts = false;
	ct_finding_where(f, 8, "h", NULL, NULL, NULL);
	ct_finding_where(f, 9, "h", NULL, NULL, NULL);
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "3 processes");
	f->name_hosts = true;
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "3 processes on h");
	ct_finding_where(f, 9, "other", NULL, NULL, NULL);
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "4 processes on 2 hosts");
	ct_findings_release(&fs);
}

/*
 * Issue 36 points 1, 2 and 4: ranks are counted in their jobs (a shared
 * folder holds many, each with its rank 0), the jobs said; a single rank
 * names its host when the report spans several.
 */
static void test_where_jobs(void **state)
{
	static const struct {
		const char *job, *rank, *host;
	} array[] = { { "121.0", "0", "n1" }, { "121.0", "1", "n1" }, { "122.0", "0", "n1" },
		      { "122.0", "1", "n1" }, { "123.0", "0", "n1" }, { "123.0", "1", "n1" } };
	struct ct_findings fs;
	struct ct_finding *f, *g;
	char where[128];
	size_t i;

	(void)state;
	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_DRIVER_MISSING, NULL, "x");
	for (i = 0; i < 6; i++)
		ct_finding_where(f, 10 + (int64_t)i, array[i].host, array[i].rank, array[i].job, NULL);
	g = ct_finding_add(&fs, CT_F_LIB_NOT_FOUND, NULL, "y");
	for (i = 1; i < 6; i += 2)
		ct_finding_where(g, 10 + (int64_t)i, array[i].host, array[i].rank, array[i].job, NULL);
	f = &fs.f[0];
	/* 6 ranks of 3 jobs, not "2 ranks" (the numbers 0 and 1). */
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "6 ranks of 3 jobs");
	/* Rank 1 of each: not "3 processes". */
	assert_string_equal(ct_where_words(g, where, sizeof(where)), "rank 1 of 3 jobs");
	f->name_hosts = g->name_hosts = true;
	assert_string_equal(ct_where_words(g, where, sizeof(where)), "rank 1 of 3 jobs on n1");
	ct_finding_where(f, 99, "n2", "0", "124.0", NULL);
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "7 ranks of 4 jobs on 2 hosts");
	ct_findings_release(&fs);

	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_LIB_NOT_FOUND, NULL, "y");
	ct_finding_where(f, 353, "node2", "3", "4240.0", NULL);
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "rank 3 (process 353)");
	f->name_hosts = true;
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "rank 3 on node2 (process 353)");
	/* One rank's two processes (a restarted worker): one rank. */
	ct_finding_where(f, 360, "node2", "3", "4240.0", NULL);
	assert_string_equal(ct_where_words(f, where, sizeof(where)), "rank 3 on node2 (2 processes)");
	ct_findings_release(&fs);
}

static void test_json(void **state)
{
	struct ct_findings fs;
	struct ct_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	(void)state;
	ct_findings_init(&fs);
	add_driver_missing(&fs, 5, "h", "3");
	ct_json_init(&j, mem);
	ct_findings_json(&j, &fs);
	ct_json_finish(&j);
	fclose(mem);
	assert_non_null(strstr(text, "\"code\":\"driver-missing\",\"severity\":\"error\""));
	assert_non_null(strstr(text, "\"where\":[{\"pid\":5,\"host\":\"h\",\"rank\":\"3\""));
	assert_non_null(strstr(text, "\"evidence\":[\"dlopen by libcudart.so.13\"]"));
	free(text);
	ct_findings_release(&fs);
}

static void test_tables(void **state)
{
	char buf[64];
	int newer;

	(void)state;
	/* PTX ISA -> the CUDA whose driver reads it (reference/fatbin.md 4.1). */
	assert_int_equal(ct_ptx_isa_cuda(8, 4), 12040);
	assert_int_equal(ct_ptx_isa_cuda(8, 6), 12070);
	assert_int_equal(ct_ptx_isa_cuda(9, 0), 13000);
	assert_int_equal(ct_ptx_isa_cuda(9, 9), -1);
	/* Toolkit -> the driver it ships with (resolution.md 4.2). */
	assert_string_equal(ct_toolkit_driver(13000, &newer), "580.65.06");
	assert_false(newer);
	assert_string_equal(ct_toolkit_driver(12040, &newer), "550.54.14");
	assert_string_equal(ct_toolkit_driver(12070, &newer), "565.57.01");
	assert_null(ct_toolkit_driver(14000, &newer));
	assert_true(newer);
	assert_string_equal(ct_family_driver(12), "525.60.13");
	assert_null(ct_family_driver(10));
	assert_string_equal(ct_cuda_version_words(12040, buf, sizeof(buf)), "12.4");
	/* The pip packages that ship a library. */
	assert_string_equal(ct_pip_package("libcudart.so.12", 12, buf, sizeof(buf)),
			    "nvidia-cuda-runtime-cu12");
	assert_string_equal(ct_pip_package("/x/libcublasLt.so.13", 13, buf, sizeof(buf)),
			    "nvidia-cublas");
	assert_string_equal(ct_pip_package("libcudnn_ops.so.9", 13, buf, sizeof(buf)),
			    "nvidia-cudnn-cu13");
	assert_null(ct_pip_package("libfoo.so.1", 12, buf, sizeof(buf)));
	assert_int_equal(ct_runtime_major("libcudart.so.11.0"), 11);
	assert_int_equal(ct_runtime_major("/a/libcudart.so.13"), 13);
	assert_int_equal(ct_runtime_major("libcublas.so.13"), 0);
}

/*
 * A fix's lines are the rule's own; a newline that a value brings stays
 * inside its line and prints as \n, so a crafted name cannot start a line.
 */
static void test_fix_lines(void **state)
{
	struct ct_findings fs;
	struct ct_finding *f;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_LIB_NOT_FOUND, NULL, "'%s' was not found", "libx.so");
	ct_finding_fix(f, "install the package that ships %s;", "libx.so\nerror driver-missing: forged");
	ct_finding_fix_line(f, "or put its directory on %s", "LD_LIBRARY_PATH");
	assert_int_equal(f->nfix_lines, 2);
	assert_string_equal(f->fix_lines[1], "or put its directory on LD_LIBRARY_PATH");
	assert_string_equal(f->fix, "install the package that ships libx.so\nerror driver-missing: "
				    "forged;\nor put its directory on LD_LIBRARY_PATH");
	/* Setting the fix again replaces every line. */
	ct_finding_fix(f, "install the package that ships %s", "libx.so\nerror driver-missing: forged");
	ct_finding_fix_line(f, "or put its directory on LD_LIBRARY_PATH");
	assert_int_equal(f->nfix_lines, 2);
	assert_non_null(mem = open_memstream(&text, &len));
	ct_findings_print(mem, &fs, false, false);
	fclose(mem);
	assert_non_null(strstr(text, "  fix: install the package that ships libx.so\\nerror "
				     "driver-missing: forged\n"
				     "       or put its directory on LD_LIBRARY_PATH\n"));
	assert_null(strstr(text, "\nerror driver-missing"));
	free(text);
	ct_findings_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_where_words),
		cmocka_unit_test(test_where_jobs),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_fix_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

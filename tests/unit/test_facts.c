/*
 * The facts of a report (cli/model/, printed by cli/render/facts.c, tree.c): made-up traces,
 * written as .jsonl files into a temporary directory, judged on a made-up
 * machine (no ld.so.cache, no LD_LIBRARY_PATH), printed as the report
 * prints them. The expected texts were printed by the printers before
 * they indexed each process's tree and each file's device code once; they
 * must not change:
 *   - one process whose tree has every shape the printer knows: a library
 *     loaded three times, one loaded under another major of its name, an
 *     object that names itself as its asker, the shim (never shown), an
 *     object whose asker is not in the trace ("also loaded"), two objects
 *     that ask for each other, a chain of 31 objects to a CUDA library
 *     (shown, the tree cut at 32 levels) and one of 33 (too deep: not
 *     shown), an object with device code a finding is about, reached past
 *     the default report's budget of lines, more objects with device code
 *     than the default report's matrix has rows for;
 *   - a job of 24 alike ranks on 3 hosts: -v prints each rank exactly as
 *     the process alone, under its own heading; the default report one
 *     rank and "23 more processes like the one shown", with which ranks on
 *     which hosts (issue 36 point 5);
 *   - ranks of three kinds (another library, another exit status): the
 *     default report shows the first of each kind.
 *
 * Texts are written with @R for the test's directory and @F for the
 * committed fixtures; records also with ' for ".
 */
#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "world.h"
#include "machine.h"

#include "diagnose.h"
#include "facts.h"
#include "report_model.h"
#include "resolve.h"
#include "trace.h"

static int world_setup(void **state)
{
	struct world *w = world_open("facts", 1);
	char fx[PATH_MAX];
	size_t len;
	int i;

	if (!w)
		return -1;
	*state = w;
	/* More objects with device code than the default report's matrix has rows for. */
	if (mkdir(strcat(strcpy(fx, w->root), "/code"), 0755) != 0)
		return -1;
	for (i = 1; i <= 6; i++) {
		unsigned char *buf = read_fixture(i % 2 ? "sm80-ptx80.so" : "fatbins-sm90.so", &len);
		FILE *fp;

		snprintf(fx, sizeof(fx), "%s/code/k%d.so", w->root, i);
		fp = fopen(fx, "wb");
		if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0)
			return -1;
		free(buf);
	}
	return 0;
}

/*
 * The records of the process every test prints, after its start record:
 * see the comment at the top; with one more library (extra), and the
 * exit status given.
 */
static char *tree_records(bool extra, int status)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
#define OPEN(path, by, via) \
	fprintf(m, "{'ev':'open','path':'%s','lmid':0,'by':'%s','via':'%s'}\n", path, by, via)
	fputs("{'ev':'open','path':'@R/bin/app','lmid':0,'main':true}\n", m);
	OPEN("@R/lib/libcudart.so.12", "@R/bin/app", "ld.so.cache");
	/* The first of two loads of a path is its own asker: the second is. */
	OPEN("@R/lib/libcupti.so.12", "@R/lib/libcupti.so.12", "runpath");
	OPEN("@R/lib/libcupti.so.12", "@R/bin/app", "runpath");
	/* A major renamed: named as what it is. */
	fputs("{'ev':'open','path':'@R/lib/libcublasLt.so.12','lmid':0,"
	      "'soname':'libcublasLt.so.13','by':'@R/bin/app','via':'runpath'}\n",
	      m);
	OPEN("@R/lib/liba.so", "@R/bin/app", "runpath");
	OPEN("@R/lib/libcublas.so.12", "@R/lib/liba.so", "runpath");
	OPEN("@R/lib/libcudatrace.so", "@R/bin/app", "preload");
	OPEN("@F/fatbins-sm90.so", "@R/lib/liba.so", "direct");
	for (i = 1; i <= 6; i++) {
		char path[64];

		snprintf(path, sizeof(path), "@R/code/k%zu.so", i);
		OPEN(path, "@R/bin/app", "direct");
	}
	for (i = 0; i < 3; i++) {
		fprintf(m, "{'ev':'dlopen','tid':1,'api':'dlopen','name':'libplug.so','flags':2,"
			   "'noload':false,'caller':'@R/bin/app'}\n"
			   "{'ev':'search','tid':1,'id':%zu,'name':'libplug.so','by':'@R/bin/app'}\n"
			   "{'ev':'try','tid':1,'search':%zu,'path':'@R/lib/libplug.so','via':'runpath'}\n"
			   "{'ev':'open','tid':1,'path':'@R/lib/libplug.so','lmid':0,'search':%zu,"
			   "'name':'libplug.so','by':'@R/bin/app','via':'runpath'}\n",
			i + 1, i + 1, i + 1);
		if (i == 0)
			OPEN("@R/lib/libcufft.so.11", "@R/lib/libplug.so", "runpath");
		fputs("{'ev':'close','tid':1,'path':'@R/lib/libplug.so'}\n", m);
	}
	OPEN("@R/lib/libnvrtc.so.12", "@R/lib/gone.so", "runpath");
	OPEN("@R/lib/libx.so", "@R/lib/liby.so", "runpath");
	OPEN("@R/lib/liby.so", "@R/lib/libx.so", "runpath");
	OPEN("@R/lib/libcusparse.so.12", "@R/lib/libx.so", "runpath");
	for (i = 1; i <= 31; i++) {
		char path[64], by[64];

		snprintf(path, sizeof(path), "@R/lib/c%zu.so", i);
		snprintf(by, sizeof(by), i == 1 ? "@R/bin/app" : "@R/lib/c%zu.so", i - 1);
		OPEN(path, by, "runpath");
		if (i == 20)
			OPEN("@F/sm80-ptx80.so", "@R/lib/c20.so", "direct");
	}
	OPEN("@R/lib/libcurand.so.10", "@R/lib/c31.so", "runpath");
	OPEN("@R/lib/libnvJitLink.so.12", "@R/lib/libcurand.so.10", "runpath");
	for (i = 1; i <= 33; i++) {
		char path[64], by[64];

		snprintf(path, sizeof(path), "@R/lib/d%zu.so", i);
		snprintf(by, sizeof(by), i == 1 ? "@R/bin/app" : "@R/lib/d%zu.so", i - 1);
		OPEN(path, by, "runpath");
	}
	OPEN("@R/lib/libcusolver.so.11", "@R/lib/d33.so", "runpath");
	if (extra)
		OPEN("@R/lib/libcudnn.so.9", "@R/bin/app", "runpath");
#undef OPEN
	fprintf(m, "{'ev':'cuinit','result':0,'caller':'@R/lib/libcudart.so.12'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000,'init':0,"
		   "'devices':[{'index':0,'name':'NVIDIA H100','cc':'9.0','uuid':'GPU-0'}]}\n"
		   "{'ev':'exit','status':%d}\n",
		status);
	assert_int_equal(fclose(m), 0);
	return out;
}

/* One process image of the tree process on host, with a rank (or none). */
static void write_proc(struct world *w, const char *host, int pid, int rank, bool extra,
		       int status)
{
	char path[PATH_MAX], ranks[64] = "", *records = tree_records(extra, status), *text, *body;
	int n = w->nfiles++;
	FILE *fp;

	if (rank >= 0)
		snprintf(ranks, sizeof(ranks), "'RANK':'%d'", rank);
	assert_true(asprintf(&text,
			     "{'ev':'start','t':%d,'tid':%d,'v':1,'shim':'0.1.0','pid':%d,'ppid':1,"
			     "'host':'%s','image':'%016x','auditor':true,'exe':'@R/bin/app',"
			     "'cwd':'@R','uid':1000,'euid':1000,'secure':false,"
			     "'argv':['@R/bin/app','--run'],'ranks':{%s},'env':{}}\n%s",
			     1000 + n, pid, pid, host, n + 1, ranks, records) > 0);
	body = expand(w, text, true);
	snprintf(path, sizeof(path), "%s/trace/%s-%d-%016x.jsonl", w->root, host, pid, n + 1);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(body, fp);
	assert_int_equal(fclose(fp), 0);
	free(body);
	free(text);
	free(records);
}

/* The facts as the report prints them, from its model; malloc'd. */
static char *facts(const struct world *w, bool verbose)
{
	struct ct_report_model_options o;
	struct ct_report_model model;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
	memset(&o, 0, sizeof(o));
	o.verbose = verbose;
	o.machine = &w->machine;
	ct_report_model_build(&model, &w->t, &o);
	ct_facts_print(m, &model, verbose);
	ct_report_model_release(&model);
	assert_int_equal(fclose(m), 0);
	return out;
}

static void expect_text(const struct world *w, const char *got, const char *want)
{
	char *x = expand(w, want, false);

	if (strcmp(got, x) != 0)
		print_message("got:\n%s\nwanted:\n%s\n", got, x);
	assert_string_equal(got, x);
	free(x);
}

/*
 * What the process prints under its heading, with -v and without, as the
 * printers printed it before the tree and the device code were indexed.
 */
/* The tree's first lines, the same with -v and without. */
#define TREE_TOP \
	"  @R/bin/app\n" \
	"  |-- @R/lib/libcudart.so.12 [ld.so.cache]\n" \
	"  |-- @R/lib/libcupti.so.12 [RUNPATH]\n" \
	"  |   `-- @R/lib/libcupti.so.12 [RUNPATH]\n" \
	"  |-- @R/lib/libcublasLt.so.12 [RUNPATH, 'libcublasLt.so.12' is libcublasLt.so.13, renamed]\n" \
	"  |-- @R/lib/liba.so [RUNPATH]\n" \
	"  |   |-- @R/lib/libcublas.so.12 [RUNPATH]\n" \
	"  |   `-- @F/fatbins-sm90.so [path given]\n" \
	"  |-- @R/code/k1.so [path given]\n" \
	"  |-- @R/code/k2.so [path given]\n" \
	"  |-- @R/code/k3.so [path given]\n" \
	"  |-- @R/code/k4.so [path given]\n" \
	"  |-- @R/code/k5.so [path given]\n" \
	"  |-- @R/code/k6.so [path given]\n" \
	"  |-- @R/lib/libplug.so [dlopen, RUNPATH, loaded 3 times]\n" \
	"  |   `-- @R/lib/libcufft.so.11 [RUNPATH]\n" \
	"  `-- @R/lib/c1.so [RUNPATH]\n" \
	"      `-- @R/lib/c2.so [RUNPATH]\n" \
	"          `-- @R/lib/c3.so [RUNPATH]\n" \
	"              `-- @R/lib/c4.so [RUNPATH]\n" \
	"                  `-- @R/lib/c5.so [RUNPATH]\n" \
	"                      `-- @R/lib/c6.so [RUNPATH]\n" \
	"                          `-- @R/lib/c7.so [RUNPATH]\n" \
	"                              `-- @R/lib/c8.so [RUNPATH]\n" \
	"                                  `-- @R/lib/c9.so [RUNPATH]\n" \
	"                                      `-- @R/lib/c10.so [RUNPATH]\n" \
	"                                          `-- @R/lib/c11.so [RUNPATH]\n" \
	"                                              `-- @R/lib/c12.so [RUNPATH]\n" \
	"                                                  `-- @R/lib/c13.so [RUNPATH]\n" \
	"                                                      `-- @R/lib/c14.so [RUNPATH]\n" \
	"                                                          `-- @R/lib/c15.so [RUNPATH]\n" \
	"                                                              `-- @R/lib/c16.so [RUNPATH]\n" \
	"                                                                  `-- @R/lib/c17.so [RUNPATH]\n" \
	"                                                                      `-- @R/lib/c18.so [RUNPATH]\n" \
	"                                                                          `-- @R/lib/c19.so [RUNPATH]\n" \
	"                                                                              `-- @R/lib/c20.so [RUNPATH]\n" \
	"                                                                                  |-- @F/sm80-ptx80.so [path given]\n"

#define TREE_V \
	TREE_TOP \
	"                                                                                  `-- @R/lib/c21.so [RUNPATH]\n" \
	"                                                                                      `-- @R/lib/c22.so [RUNPATH]\n" \
	"                                                                                          `-- @R/lib/c23.so [RUNPATH]\n" \
	"                                                                                              `-- @R/lib/c24.so [RUNPATH]\n" \
	"                                                                                                  `-- @R/lib/c25.so [RUNPATH]\n" \
	"                                                                                                      `-- @R/lib/c26.so [RUNPATH]\n" \
	"                                                                                                          `-- @R/lib/c27.so [RUNPATH]\n" \
	"                                                                                                              `-- @R/lib/c28.so [RUNPATH]\n" \
	"                                                                                                                  `-- @R/lib/c29.so [RUNPATH]\n" \
	"                                                                                                                      `-- @R/lib/c30.so [RUNPATH]\n" \
	"                                                                                                                          `-- @R/lib/c31.so [RUNPATH]\n" \
	"                                                                                                                              `-- @R/lib/libcurand.so.10 [RUNPATH]\n" \
	"  also loaded:\n" \
	"    @R/lib/libnvrtc.so.12 [RUNPATH]\n" \
	"  device code: S SASS, P PTX; then what runs on the GPUs\n" \
	"                    80   90   | sm_90 (NVIDIA H100)\n" \
	"    fatbins-sm90.so S    S    | SASS\n" \
	"    k1.so           S+P  -    | PTX (JIT)\n" \
	"    k2.so           S    S    | SASS\n" \
	"    k3.so           S+P  -    | PTX (JIT)\n" \
	"    k4.so           S    S    | SASS\n" \
	"    k5.so           S+P  -    | PTX (JIT)\n" \
	"    k6.so           S    S    | SASS\n" \
	"    sm80-ptx80.so   S+P  -    | PTX (JIT)\n" \
	"  driver: @R/drv/libcuda.so.1, supports CUDA 13.0; cuInit: ok (0)\n" \
	"    GPU 0: NVIDIA H100, compute capability 9.0, GPU-GPU-0\n" \
	"  end: exited with status 0\n"

#define TREE \
	TREE_TOP \
	"  (12 more in the tree: -v)\n" \
	"  also loaded:\n" \
	"    @R/lib/libnvrtc.so.12 [RUNPATH]\n" \
	"  device code: 8 objects, 4 with SASS for sm_90 (NVIDIA H100); the others:\n" \
	"                    80   90   | sm_90 (NVIDIA H100)\n" \
	"    k1.so           S+P  -    | PTX (JIT)\n" \
	"    k3.so           S+P  -    | PTX (JIT)\n" \
	"    k5.so           S+P  -    | PTX (JIT)\n" \
	"    sm80-ptx80.so   S+P  -    | PTX (JIT)\n" \
	"  driver: @R/drv/libcuda.so.1, supports CUDA 13.0; cuInit: ok (0)\n" \
	"    GPU 0: NVIDIA H100, compute capability 9.0, GPU-GPU-0\n" \
	"  end: exited with status 0\n"

#define LIKE_IT "\n23 more processes like the one shown (same program, same libraries, same " \
		"driver results): ranks 1-7 on h0, ranks 8-15 on h1, ranks 16-23 on h2\n"

static void test_tree(void **state)
{
	struct world *w = *state;
	char *v, *brief;

	write_proc(w, "h0", 100, -1, false, 0);
	world_judge(w, NULL, 0);
	v = facts(w, true);
	brief = facts(w, false);
	expect_text(w, v, "process 100: app --run\n" TREE_V);
	expect_text(w, brief, "process 100: app --run\n" TREE);
	free(v);
	free(brief);
}

/*
 * 24 ranks, 8 on each of 3 hosts, their pids the same on every host (a
 * finding seen in one is told apart by its host): with -v each prints
 * what the process alone prints, under its heading, in the trace's order.
 */
static void test_job(void **state)
{
	struct world *w = *state;
	char *v, *brief, *want = NULL;
	size_t len = 0, i;
	FILE *m;
	int r;

	for (r = 0; r < 24; r++) {
		char host[16];

		snprintf(host, sizeof(host), "h%d", r / 8);
		write_proc(w, host, 200 + r % 8, r, false, 0);
	}
	world_judge(w, NULL, 0);
	assert_int_equal(w->t.nprocs, 24);
	v = facts(w, true);
	brief = facts(w, false);
	m = open_memstream(&want, &len);
	assert_non_null(m);
	for (i = 0; i < w->t.nprocs; i++)
		fprintf(m, "%sprocess %lld on %s, rank %s: app --run\n%s", i ? "\n" : "",
			(long long)w->t.procs[i].pid, w->t.procs[i].host, ct_proc_rank(&w->t.procs[i]),
			TREE_V);
	assert_int_equal(fclose(m), 0);
	expect_text(w, v, want);
	expect_text(w, brief, "process 200 on h0, rank 0: app --run\n" TREE LIKE_IT);
	free(want);
	free(v);
	free(brief);
}

/* The headings of a report and its last line; malloc'd. */
static char *headings(const char *text)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	const char *line, *last = text;

	assert_non_null(m);
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		if (strncmp(line, "process ", 8) == 0)
			fprintf(m, "%.*s", (int)(strchr(line, '\n') + 1 - line), line);
		last = line;
	}
	fputs(last, m);
	assert_int_equal(fclose(m), 0);
	return out;
}

/*
 * Ranks of three kinds: even ranks the process, odd ones with one more
 * library, and of those rank 5 exits with status 1 (never folded into a
 * clean exit). The default report shows the first of each kind.
 */
static void test_kinds(void **state)
{
	struct world *w = *state;
	char *brief, *got;
	int r;

	for (r = 0; r < 12; r++)
		write_proc(w, "h0", 300 + r, r, r % 2, r == 5);
	world_judge(w, NULL, 0);
	brief = facts(w, false);
	got = headings(brief);
	expect_text(w, got, "process 300, rank 0: app --run\n"
			    "process 301, rank 1: app --run\n"
			    "process 305, rank 5: app --run\n"
			    "9 more processes like those shown (same program, same libraries, same driver "
			    "results): ranks 2-4 and 6-11\n");
	free(got);
	free(brief);
}

/*
 * The device-code table names each file whole: a name longer than its
 * column (onnxruntime's libonnxruntime_providers_cuda.so and its like) is
 * printed on a line of its own, its marks on the next, under the columns.
 */
static void test_long_name(void **state)
{
	struct world *w = *state;
	static const char name[] = "libonnxruntime_providers_cuda_and_a_long_tail.so";
	char path[PATH_MAX], *text, *body, *v, *line;
	unsigned char *buf;
	size_t len;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/code/%s", w->root, name);
	buf = read_fixture("sm80-ptx80.so", &len);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(buf);
	assert_true(asprintf(&text,
			     "{'ev':'start','t':1000,'tid':400,'v':1,'shim':'0.1.0','pid':400,"
			     "'ppid':1,'host':'h0','image':'0000000000000001','auditor':true,"
			     "'exe':'@R/bin/app','cwd':'@R','uid':1000,'euid':1000,'secure':false,"
			     "'argv':['@R/bin/app'],'ranks':{},'env':{}}\n"
			     "{'ev':'open','path':'@R/bin/app','lmid':0,'main':true}\n"
			     "{'ev':'open','path':'@R/code/%s','lmid':0,'by':'@R/bin/app',"
			     "'via':'direct'}\n"
			     "{'ev':'open','path':'@R/code/k2.so','lmid':0,'by':'@R/bin/app',"
			     "'via':'direct'}\n"
			     "{'ev':'open','path':'@R/lib/libcudart.so.12','lmid':0,'by':'@R/bin/app',"
			     "'via':'ld.so.cache'}\n"
			     "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000,'init':0,"
			     "'devices':[{'index':0,'name':'NVIDIA H100','cc':'9.0','uuid':'GPU-0'}]}\n"
			     "{'ev':'exit','status':0}\n",
			     name) > 0);
	body = expand(w, text, true);
	snprintf(path, sizeof(path), "%s/trace/h0-400-0000000000000001.jsonl", w->root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(body, fp);
	assert_int_equal(fclose(fp), 0);
	free(body);
	free(text);
	world_judge(w, NULL, 0);
	v = facts(w, true);
	/* The whole name, alone on its line; its marks under the columns, as k2.so's. */
	line = strstr(v, "    libonnxruntime_providers_cuda_and_a_long_tail.so\n");
	if (!line)
		print_message("got:\n%s\n", v);
	assert_non_null(line);
	assert_non_null(strstr(line, "\n                                             S+P  -    | PTX (JIT)\n"));
	assert_non_null(strstr(v, "\n    k2.so                                    S    S    | SASS\n"));
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree, world_setup, world_close),
		cmocka_unit_test_setup_teardown(test_job, world_setup, world_close),
		cmocka_unit_test_setup_teardown(test_kinds, world_setup, world_close),
		cmocka_unit_test_setup_teardown(test_long_name, world_setup, world_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The report model (cli/model/): built once per report, whatever views
 * print it; it holds nothing of the trace (printed after the trace is
 * gone, it says the same); and read back from its own report --json it
 * writes the same document again and gives diff the same facts (a folder
 * and its report --json are one input). On a made-up trace of one
 * process: CUDA's runtime, an object with device code, a library not
 * found, a module load, the driver with a GPU, a secret in its argv.
 */
#include <fcntl.h>

#include "world.h"

#include "commands.h"
#include "compare.h"
#include "jsonparse.h"
#include "report.h"
#include "report_model.h"

static int world_setup(void **state)
{
	struct world *w = world_open("model", 1);
	char path[PATH_MAX], *body;
	FILE *fp;

	if (!w)
		return -1;
	*state = w;
	body = expand(w,
		      "{'ev':'start','t':1000,'tid':100,'v':1,'shim':'0.1.0','pid':100,'ppid':1,"
		      "'host':'h','image':'0000000000000001','auditor':true,'exe':'@R/bin/app',"
		      "'cwd':'@R','uid':0,'euid':0,'secure':false,"
		      "'argv':['@R/bin/app','--token','s3cret'],'ranks':{},"
		      "'env':{'LD_LIBRARY_PATH':'@R/lib','CUDA_VISIBLE_DEVICES':'0'}}\n"
		      "{'ev':'open','path':'@R/bin/app','lmid':0,'main':true}\n"
		      "{'ev':'open','path':'@R/lib/libcudart.so.12','lmid':0,'by':'@R/bin/app',"
		      "'via':'runpath'}\n"
		      "{'ev':'open','path':'@F/fatbins-sm90.so','lmid':0,'by':'@R/bin/app',"
		      "'via':'direct'}\n"
		      "{'ev':'search','tid':100,'id':1,'name':'libcudnn.so.9','by':'@R/bin/app'}\n"
		      "{'ev':'try','tid':100,'search':1,'path':'@R/lib/libcudnn.so.9','via':'runpath'}\n"
		      "{'ev':'cuinit','tid':100,'result':0,'caller':'@R/lib/libcudart.so.12'}\n"
		      "{'ev':'driver','tid':100,'path':'@R/drv/libcuda.so.1','version':13000,'init':0,"
		      "'devices':[{'index':0,'name':'NVIDIA H100','cc':'9.0','uuid':'GPU-0'}]}\n"
		      "{'ev':'module','tid':100,'api':'cuModuleLoadData','caller':'@R/bin/app','result':209,"
		      "'images':[{'kind':'sass','arch':'sm_80'}]}\n"
		      "{'ev':'exit','tid':100,'status':0}\n",
		      true);
	snprintf(path, sizeof(path), "%s/trace/h-100-0000000000000001.jsonl", w->root);
	fp = fopen(path, "w");
	if (!fp || fputs(body, fp) < 0 || fclose(fp) != 0)
		return -1;
	free(body);
	world_judge(w, NULL, 0);
	return 0;
}

static void build(struct world *w, struct ct_report_model *m, bool json)
{
	struct ct_report_model_options o;

	memset(&o, 0, sizeof(o));
	o.machine = &w->machine;
	o.json = json;
	ct_report_model_build(m, &w->t, &o);
}

/* The text and the JSON of m; malloc'd. */
static void print_both(const struct ct_report_model *m, char **text, char **json)
{
	struct ct_report_view v;
	size_t ntext = 0, njson = 0;
	FILE *ft = open_memstream(text, &ntext), *fj = open_memstream(json, &njson);

	assert_non_null(ft);
	assert_non_null(fj);
	memset(&v, 0, sizeof(v));
	ct_report_text(ft, m, &v);
	ct_report_json(fj, m);
	assert_int_equal(fclose(ft), 0);
	assert_int_equal(fclose(fj), 0);
}

/* run prints the text and writes --json from one model: one build, two views. */
static void test_built_once(void **state)
{
	struct world *w = *state;
	struct ct_report_options o;
	unsigned long before = ct_report_model_builds();
	char *text = NULL, *json = NULL, *text1, *json1;
	size_t ntext = 0, njson = 0;
	struct ct_report_model m;
	FILE *ft = open_memstream(&text, &ntext), *fj = open_memstream(&json, &njson);

	assert_non_null(ft);
	assert_non_null(fj);
	memset(&o, 0, sizeof(o));
	o.machine = &w->machine;
	ct_cmd_print_report(&w->t, &o, ft, fj);
	assert_int_equal(fclose(ft), 0);
	assert_int_equal(fclose(fj), 0);
	assert_int_equal(ct_report_model_builds(), before + 1);
	/* The same as each view of a model of its own. */
	build(w, &m, true);
	print_both(&m, &text1, &json1);
	ct_report_model_release(&m);
	assert_string_equal(text, text1);
	assert_string_equal(json, json1);
	assert_non_null(strstr(text, "process 100: app --token ***"));
	free(text);
	free(json);
	free(text1);
	free(json1);
}

/* cudatrace report with argv, its stdout into a file: how many models it built. */
static unsigned long report_builds(struct world *w, const char *opt)
{
	char dir[PATH_MAX], out[PATH_MAX];
	char *argv[4] = { "report", (char *)opt, dir, NULL };
	unsigned long before = ct_report_model_builds();
	int saved, fd;

	snprintf(dir, sizeof(dir), "%s/trace", w->root);
	snprintf(out, sizeof(out), "%s/out", w->root);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	ct_cmd_report(3, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return ct_report_model_builds() - before;
}

static void test_commands_build_once(void **state)
{
	struct world *w = *state;

	assert_int_equal(report_builds(w, "--json"), 1);
	assert_int_equal(report_builds(w, "--markdown"), 1);
	assert_int_equal(report_builds(w, "-v"), 1);
	assert_int_equal(report_builds(w, "-q"), 1);
}

/* Nothing of the trace or the diagnosis is kept: printed after both are gone, the same. */
static void test_outlives_the_trace(void **state)
{
	struct world *w = *state;
	char *text, *json, *text2, *json2, *scribble[64];
	struct ct_report_model m;
	size_t i;

	build(w, &m, true);
	print_both(&m, &text, &json);
	ct_diagnosis_release(&w->d);
	ct_trace_release(&w->t);
	w->judged = false;
	/* What the trace's memory held is written over. */
	for (i = 0; i < 64; i++) {
		scribble[i] = malloc(65536);
		assert_non_null(scribble[i]);
		memset(scribble[i], 'X', 65536);
	}
	print_both(&m, &text2, &json2);
	for (i = 0; i < 64; i++)
		free(scribble[i]);
	ct_report_model_release(&m);
	assert_string_equal(text, text2);
	assert_string_equal(json, json2);
	free(text);
	free(json);
	free(text2);
	free(json2);
	world_judge(w, NULL, 0);
}

/*
 * folder -> model -> JSON -> model: the same document written again, and
 * the same facts for diff as the folder's model (no difference at all).
 */
static void test_round_trip(void **state)
{
	struct world *w = *state;
	struct ct_report_model *built = malloc(sizeof(*built)), back;
	char *text, *json, *text2, *json2, why[512] = "";
	const struct ct_jv *doc;
	struct ct_side a, b;
	struct ct_arena arena;
	struct ct_diff d;

	assert_non_null(built);
	build(w, built, true);
	print_both(built, &text, &json);
	ct_arena_init(&arena);
	doc = ct_json_parse(&arena, json, strlen(json), NULL);
	assert_non_null(doc);
	assert_int_equal(ct_report_model_read(&back, doc, why, sizeof(why)), 0);
	ct_arena_release(&arena);
	assert_true(back.from_json);
	print_both(&back, &text2, &json2);
	assert_string_equal(json, json2);
	assert_int_equal(back.nprocs, built->nprocs);
	assert_int_equal(back.worst, built->worst);
	ct_report_model_release(&back);
	/* diff: the folder's model against its own document. */
	ct_side_from_model(&a, built);
	assert_int_equal(ct_side_load(&b, strdup(json), strlen(json), why, sizeof(why)), 0);
	ct_diff_compute(&d, &a, &b);
	assert_int_equal(d.n, 0);
	assert_int_equal(a.nlibs, b.nlibs);
	assert_true(a.nlibs >= 1);
	assert_string_equal(a.libs[0].role, b.libs[0].role);
	assert_int_equal(a.nnot_found, 1);
	assert_string_equal(a.not_found[0], b.not_found[0]);
	assert_int_equal(a.ngpus, 1);
	assert_string_equal(a.gpus[0].name, b.gpus[0].name);
	assert_int_equal(a.ncode, b.ncode);
	assert_int_equal(a.nfindings, b.nfindings);
	assert_int_equal(a.nenv, b.nenv);
	ct_diff_release(&d);
	ct_side_release(&a);
	ct_side_release(&b);
	free(text);
	free(json);
	free(text2);
	free(json2);
}

/* A document that is no report of this major, or one that could not read its traces. */
static void test_read_refuses(void **state)
{
	static const char *const docs[][2] = {
		{ "{\"schema\":\"cudatrace.doctor/1\"}", "not a cudatrace report" },
		{ "{\"schema\":\"cudatrace.report/2\"}", "not a cudatrace report" },
		{ "[1,2]", "not a cudatrace report" },
		{ "{\"schema\":\"cudatrace.report/1\",\"error\":\"gone\"}",
		  "the report could not read its traces: gone" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct ct_report_model m;
		struct ct_arena arena;
		const struct ct_jv *doc;
		char why[512] = "";

		ct_arena_init(&arena);
		doc = ct_json_parse(&arena, docs[i][0], strlen(docs[i][0]), NULL);
		assert_non_null(doc);
		assert_int_equal(ct_report_model_read(&m, doc, why, sizeof(why)), -1);
		assert_non_null(strstr(why, docs[i][1]));
		ct_report_model_release(&m);
		ct_arena_release(&arena);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_once),
		cmocka_unit_test(test_commands_build_once),
		cmocka_unit_test(test_outlives_the_trace),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read_refuses),
	};

	return cmocka_run_group_tests(tests, world_setup, world_close);
}

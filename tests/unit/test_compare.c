/*
 * diff's comparing (cli/model/compare.c) on made-up documents: a
 * library matched by what it is across majors and renames, never by
 * path; a version said in less detail is no difference; the driver and
 * GPUs; device code that runs on one side only; findings by code and
 * object; the variables, masked upstream; a doctor compared for what it
 * has; and every document that is not one to compare refused.
 */
#include "helpers.h"
#include "compare.h"
#include "util.h"

#define PROC(libs, notfound, driver, code, env)                                            \
	"{\"schema\":\"cudatrace.report/1\",\"processes\":[{\"pid\":1,\"libraries\":[" libs   \
	"],\"not_found\":[" notfound "],\"driver\":" driver ",\"device_code\":[" code         \
	"],\"env\":{" env "}}],\"findings\":["
#define END "]}"
#define LIB(soname, path, version, via)                                                    \
	"{\"soname\":\"" soname "\",\"path\":\"" path "\",\"version\":\"" version            \
	"\",\"found_via\":\"" via "\",\"cuda\":true}"
#define DRV(cuda, cc) "{\"path\":\"/d/libcuda.so.1\",\"version\":" cuda ",\"devices\":[{\"name\":\"G\",\"cc\":\"" cc "\"}]}"
#define CODE(obj, target, verdict)                                                          \
	"{\"object\":\"" obj "\",\"verdicts\":[{\"target\":\"" target "\",\"verdict\":\"" verdict "\"}]}"

static void load(struct ct_side *s, const char *doc)
{
	char why[256];

	if (ct_side_load(s, ct_xstrdup(doc), strlen(doc), why, sizeof(why)) != 0)
		fail_msg("%s: %s", doc, why);
}

static const struct ct_diff_entry *entry(const struct ct_diff *d, enum ct_diff_kind k, const char *key)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->e[i].kind == k && strcmp(d->e[i].key, key) == 0)
			return &d->e[i];
	return NULL;
}

static void compare(const char *a_doc, const char *b_doc, struct ct_side *a, struct ct_side *b,
		    struct ct_diff *d)
{
	load(a, a_doc);
	load(b, b_doc);
	ct_diff_compute(d, a, b);
}

static void done(struct ct_side *a, struct ct_side *b, struct ct_diff *d)
{
	ct_diff_release(d);
	ct_side_release(a);
	ct_side_release(b);
}

static void test_same(void **state)
{
	const char *doc = PROC(LIB("libcudart.so.13", "/x/libcudart.so.13", "13.0.96", "rpath"), "",
			       DRV("13000", "9.0"), CODE("/x/libk.so", "sm_90", "sass"),
			       "\"LD_LIBRARY_PATH\":\"/x\"") END;
	struct ct_side a, b;
	struct ct_diff d;

	(void)state;
	compare(doc, doc, &a, &b, &d);
	assert_int_equal(d.n, 0);
	done(&a, &b, &d);
}

/* libcudart 12 from LD_LIBRARY_PATH against 13 by RUNPATH: one library difference. */
static void test_library_by_role(void **state)
{
	struct ct_side a, b;
	struct ct_diff d;
	const struct ct_diff_entry *e;

	(void)state;
	compare(PROC(LIB("libcudart.so.12", "/a/libcudart.so.12", "12.4.127", "ld_library_path") ","
		     "{\"soname\":\"libc.so.6\",\"path\":\"/lib/libc.so.6\",\"cuda\":false}",
		     "", "null", "", "") END,
		PROC(LIB("libcudart.so.13", "/b/libcudart.so.13", "13.0.96", "runpath"), "", "null",
		     "", "") END,
		&a, &b, &d);
	assert_int_equal(d.n, 1);
	e = entry(&d, CT_DIFF_LIBRARY, "libcudart");
	assert_non_null(e);
	assert_string_equal(e->la->rule, "ld_library_path");
	assert_string_equal(e->lb->rule, "runpath");
	assert_int_equal(e->la->cuda, 12);
	assert_int_equal(e->lb->cuda, 13);
	done(&a, &b, &d);
}

/* auditwheel's renamed copy is the same library; "13" says less than "13.0.96", not otherwise. */
static void test_renamed_and_versions(void **state)
{
	struct ct_side a, b;
	struct ct_diff d;

	(void)state;
	compare(PROC(LIB("libcudart-9335f6a2.so.13", "/w/libcudart-9335f6a2.so.13", "13", "rpath"),
		     "", "null", "", "") END,
		PROC(LIB("libcudart-9335f6a2.so.13", "/w/libcudart-9335f6a2.so.13", "13.0.96",
			 "rpath"),
		     "", "null", "", "") END,
		&a, &b, &d);
	assert_int_equal(d.n, 0);
	assert_string_equal(a.libs[0].role, "libcudart");
	done(&a, &b, &d);
	compare(PROC(LIB("libcudart.so.13", "/w/libcudart.so.13", "13.0.48", "rpath"), "", "null", "",
		     "") END,
		PROC(LIB("libcudart.so.13", "/w/libcudart.so.13", "13.0.96", "rpath"), "", "null", "",
		     "") END,
		&a, &b, &d);
	assert_non_null(entry(&d, CT_DIFF_LIBRARY, "libcudart"));
	done(&a, &b, &d);
}

static void test_only_one_side(void **state)
{
	struct ct_side a, b;
	struct ct_diff d;
	const struct ct_diff_entry *e;

	(void)state;
	compare(PROC(LIB("libcudnn.so.9", "/a/libcudnn.so.9", "9.1.0", "rpath"), "", "null", "", "")
			"{\"code\":\"ptx-jit-only\",\"severity\":\"warning\",\"message\":\"m\",\"object\":\"/a/libk.so\"}" END,
		PROC("", "{\"name\":\"libcudnn.so.9\"}", "null", "", "")
			"{\"code\":\"lib-not-found\",\"severity\":\"error\",\"message\":\"'libcudnn.so.9' was not found\",\"object\":null},"
			"{\"code\":\"ptx-jit-only\",\"severity\":\"warning\",\"message\":\"other words\",\"object\":\"/b/libk.so\"}" END,
		&a, &b, &d);
	e = entry(&d, CT_DIFF_LIB_ONLY, "libcudnn");
	assert_non_null(e);
	assert_true(e->in_a);
	assert_null(e->lb);
	e = entry(&d, CT_DIFF_NOT_FOUND, "libcudnn.so.9");
	assert_non_null(e);
	assert_false(e->in_a);
	e = entry(&d, CT_DIFF_FINDING, "lib-not-found");
	assert_non_null(e);
	assert_false(e->in_a);
	/* The same finding of the same object (by its name), whatever its words. */
	assert_null(entry(&d, CT_DIFF_FINDING, "ptx-jit-only"));
	assert_int_equal(d.n, 3);
	/* In the order of likely causes. */
	assert_int_equal(d.e[0].kind, CT_DIFF_LIB_ONLY);
	assert_int_equal(d.e[2].kind, CT_DIFF_FINDING);
	done(&a, &b, &d);
}

static void test_driver_gpus_code(void **state)
{
	struct ct_side a, b;
	struct ct_diff d;
	const struct ct_diff_entry *e;

	(void)state;
	compare(PROC("", "", DRV("13000", "9.0"), CODE("/a/libk.so", "sm_90", "sass"), "") END,
		PROC("", "", DRV("12040", "7.5"), CODE("/b/libk.so", "sm_75", "no-image"), "") END,
		&a, &b, &d);
	assert_non_null(entry(&d, CT_DIFF_DRIVER, "driver"));
	assert_non_null(entry(&d, CT_DIFF_GPUS, "gpus"));
	e = entry(&d, CT_DIFF_CODE, "libk.so");
	assert_non_null(e);
	assert_string_equal(e->va, "sm_90: sass");
	assert_string_equal(e->vb, "sm_75: no-image");
	done(&a, &b, &d);
	/* Runs on both, by other images: no difference in device code. */
	compare(PROC("", "", DRV("13000", "9.0"), CODE("/a/libk.so", "sm_90", "sass"), "") END,
		PROC("", "", DRV("13000", "9.0"), CODE("/b/libk.so", "sm_90", "ptx-jit"), "") END,
		&a, &b, &d);
	assert_int_equal(d.n, 0);
	done(&a, &b, &d);
	/* No driver on one side: searched for and not found. */
	compare(PROC("", "", DRV("13000", "9.0"), "", "") END,
		PROC("", "{\"name\":\"libcuda.so.1\"}", "null", "", "") END, &a, &b, &d);
	assert_int_equal(a.driver, CT_SIDE_DRIVER_FOUND);
	assert_int_equal(b.driver, CT_SIDE_DRIVER_NOT_FOUND);
	assert_non_null(entry(&d, CT_DIFF_DRIVER, "driver"));
	assert_non_null(entry(&d, CT_DIFF_GPUS, "gpus"));
	done(&a, &b, &d);
	/*
	 * A side whose program never asked for the driver says nothing of its
	 * machine's (issue 33, point 7): neither compared, and said why.
	 */
	compare(PROC("", "", DRV("13000", "9.0"), "", "") END, PROC("", "", "null", "", "") END, &a,
		&b, &d);
	assert_int_equal(b.driver, CT_SIDE_DRIVER_NOT_ASKED);
	assert_null(entry(&d, CT_DIFF_DRIVER, "driver"));
	assert_null(entry(&d, CT_DIFF_GPUS, "gpus"));
	assert_int_equal(d.nnot_compared, 1);
	assert_string_equal(d.not_compared[0],
			    "the driver and GPUs: B's program never asked for the driver");
	done(&a, &b, &d);
	/* Not found on both sides: no difference. */
	compare(PROC("", "{\"name\":\"libcuda.so.1\"}", "null", "", "") END,
		PROC("", "{\"name\":\"libcuda.so.1\"}", "null", "", "") END, &a, &b, &d);
	assert_null(entry(&d, CT_DIFF_DRIVER, "driver"));
	done(&a, &b, &d);
}

static void test_env(void **state)
{
	struct ct_side a, b;
	struct ct_diff d;
	const struct ct_diff_entry *e;

	(void)state;
	compare(PROC("", "", "null", "", "\"CUDA_VISIBLE_DEVICES\":\"0\",\"HOME_SECRET\":\"x\",\"CONDA_PREFIX\":\"/c\"") END,
		PROC("", "", "null", "", "\"CUDA_VISIBLE_DEVICES\":\"\",\"CONDA_PREFIX\":\"/c\"") END,
		&a, &b, &d);
	assert_int_equal(d.n, 1);
	e = entry(&d, CT_DIFF_ENV, "CUDA_VISIBLE_DEVICES");
	assert_non_null(e);
	assert_string_equal(e->va, "0");
	assert_string_equal(e->vb, "");
	done(&a, &b, &d);
	/* Unset on one side. */
	compare(PROC("", "", "null", "", "\"LD_LIBRARY_PATH\":\"/x\"") END,
		PROC("", "", "null", "", "") END, &a, &b, &d);
	e = entry(&d, CT_DIFF_ENV, "LD_LIBRARY_PATH");
	assert_non_null(e);
	assert_null(e->vb);
	done(&a, &b, &d);
	assert_true(ct_diff_var_relevant("NVIDIA_VISIBLE_DEVICES"));
	assert_true(ct_diff_var_relevant("CUDA_MODULE_LOADING"));
	assert_false(ct_diff_var_relevant("HOME"));
}

/* A doctor: its driver, GPUs and the runtime it would take; nothing else is missing from it. */
static void test_doctor(void **state)
{
	static const char doctor[] =
		"{\"schema\":\"cudatrace.doctor/1\",\"driver\":{\"loaded\":true,\"loaded_path\":"
		"\"/d/libcuda.so.1\",\"version\":\"580.159.04\",\"cuda_version_int\":13000,"
		"\"cuda_visible_devices\":null},\"gpus\":[{\"name\":\"G\",\"compute_capability\":\"9.0\"}],"
		"\"runtimes\":[{\"soname\":\"libcudart.so.13\",\"path\":\"/t/libcudart.so.13\","
		"\"version\":\"13.0.96\",\"taken\":true,\"found_via\":\"ld.so.cache\"},"
		"{\"soname\":\"libcudart.so.12\",\"path\":\"/p/libcudart.so.12\",\"taken\":false}],"
		"\"ld_library_path\":[{\"dir\":\"/x\"}],\"findings\":[]}";
	struct ct_side a, b;
	struct ct_diff d;

	(void)state;
	compare(PROC(LIB("libcudart.so.13", "/t/libcudart.so.13", "13.0.96", "ld.so.cache") ","
		     LIB("libcublas.so.13", "/t/libcublas.so.13", "13.1", "ld.so.cache"),
		     "", "{\"path\":\"/d/libcuda.so.1\",\"version\":13000,\"devices\":[{\"name\":\"G\",\"cc\":\"9.0\"}]}", "",
		     "\"LD_LIBRARY_PATH\":\"/x\"") END,
		doctor, &a, &b, &d);
	assert_int_equal(b.kind, CT_SIDE_DOCTOR);
	assert_int_equal(d.n, 0);
	assert_true(d.nnot_compared > 0);
	done(&a, &b, &d);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"", "garbage", "[1,2]", "{\"no\":\"schema\"}",
		"{\"schema\":\"cudatrace.scan/1\",\"files\":[]}",
		"{\"schema\":\"cudatrace.report/2\",\"processes\":[]}",
		"{\"schema\":\"cudatrace.report/1\",\"processes\":[],\"findings\":[],\"error\":\"no trace\"}",
		"{\"schema\":\"cudatrace.report/1\",\"processes\":[",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ct_side s;
		char why[256];

		if (ct_side_load(&s, ct_xstrdup(bad[i]), strlen(bad[i]), why, sizeof(why)) == 0)
			fail_msg("'%s' was compared", bad[i]);
		assert_true(why[0] != '\0');
		ct_side_release(&s);
	}
}

/* Members of the wrong type are read as absent, never trusted. */
static void test_wrong_types(void **state)
{
	static const char doc[] =
		"{\"schema\":\"cudatrace.report/1\",\"processes\":[7,{\"libraries\":{},\"not_found\":[1],"
		"\"driver\":[],\"device_code\":[{\"verdicts\":\"x\"}],\"env\":{\"CUDA_X\":5}}],\"findings\":[3]}";
	struct ct_side s;
	char why[256];

	(void)state;
	assert_int_equal(ct_side_load(&s, ct_xstrdup(doc), strlen(doc), why, sizeof(why)), 0);
	assert_int_equal(s.nprocs, 1);
	assert_int_equal(s.nlibs, 0);
	assert_int_equal(s.nfindings, 0);
	assert_false(s.has_driver);
	ct_side_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_library_by_role),
		cmocka_unit_test(test_renamed_and_versions),
		cmocka_unit_test(test_only_one_side),
		cmocka_unit_test(test_driver_gpus_code),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_doctor),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_wrong_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

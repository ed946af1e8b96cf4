/*
 * The diagnosis engine (cli/diagnose/diagnose.c, diag_libs.c): made-up
 * traces, written as .jsonl files into a temporary directory, judged on a
 * made-up machine: a loader model whose default directories are two
 * folders of the test, with no ld.so.cache, no LD_LIBRARY_PATH and no
 * LD_PRELOAD. Every finding code of findings.def at least once, with its
 * severity, message, evidence and fix; the false alarms that are easy to
 * raise; the same finding of several processes grouped into one; the GPUs
 * judged, from the trace or given (--arch).
 *
 * What the rules read of files (device code, RUNPATH, symbol versions) is
 * real: the committed fixtures, and tiny shared objects built here with cc
 * (a test that needs them is skipped without it), as the
 * examples/findings/ scripts build them. Copies elsewhere on the live
 * machine (python, conda, /usr/local/cuda) are searched by the engine too;
 * no assertion rests on those lines, and the library names used where
 * they could matter are the test's own.
 *
 * Records and expected texts are written with @R for the test's directory
 * and @F for the committed fixtures; records also with ' for ".
 */
#include <ftw.h>
#include <limits.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "world.h"

#include "demangle.h"
#include "diagnose.h"
#include "findings.h"
#include "findings_out.h"
#include "procs.h"
#include "resolve.h"
#include "trace.h"

/* ---- files ------------------------------------------------------------------ */

/* mkdir -p of path's directory (path relative to the root). */
static void make_parent(const struct world *w, const char *rel)
{
	char path[PATH_MAX], *s;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	for (s = path + strlen(w->root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			fail_msg("cannot create '%s': %s", path, strerror(errno));
		*s = '/';
	}
}

static void write_file(const struct world *w, const char *rel, const char *text, bool quotes)
{
	char path[PATH_MAX], *body = expand(w, text, quotes);
	FILE *fp;

	make_parent(w, rel);
	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(body, fp);
	assert_int_equal(fclose(fp), 0);
	free(body);
}

/* An empty file (a library whose name is all the rule reads). */
static void touch(const struct world *w, const char *rel)
{
	write_file(w, rel, "", false);
}

/* rel -> target (a relative target, as sonames are linked). */
static void link_to(const struct world *w, const char *target, const char *rel)
{
	char path[PATH_MAX];

	make_parent(w, rel);
	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void copy_fixture(const struct world *w, const char *name, const char *rel)
{
	size_t len;
	unsigned char *buf = read_fixture(name, &len);
	char path[PATH_MAX];
	FILE *fp;

	make_parent(w, rel);
	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(buf);
}

static bool have_cc(void)
{
	static int have = -1;

	if (have < 0)
		have = system("cc --version >/dev/null 2>&1") == 0;
	return have;
}

#define NEED_CC()                                                              \
	do {                                                                   \
		if (!have_cc()) {                                              \
			print_message("no cc: cannot build test libraries\n"); \
			skip();                                                \
		}                                                              \
	} while (0)

/* A shared object at rel from source src, with cc's flags (@R expanded). */
static void cc_so(struct world *w, const char *rel, const char *src, const char *flags)
{
	char name[64], *cmd, *line;

	snprintf(name, sizeof(name), "src/%d.c", w->nsources++);
	write_file(w, name, src, false);
	make_parent(w, rel);
	assert_true(asprintf(&cmd, "cc -shared -fPIC -w -o '@R/%s' '@R/%s' %s", rel, name,
			     flags) > 0);
	line = expand(w, cmd, false);
	if (system(line) != 0)
		fail_msg("failed: %s", line);
	free(line);
	free(cmd);
}

/* ---- the made-up machine and the trace ----------------------------------------- */

static int world_setup(void **state)
{
	return (*state = world_open("diagnose", 2)) ? 0 : -1;
}

/* Forget the trace and its findings (the files the trace names stay). */
static void reset(struct world *w)
{
	char dir[PATH_MAX];

	if (w->judged) {
		ct_diagnosis_release(&w->d);
		ct_trace_release(&w->t);
		w->judged = false;
	}
	snprintf(dir, sizeof(dir), "%s/trace", w->root);
	nftw(dir, world_remove_one, 8, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(mkdir(dir, 0755), 0);
}

/*
 * One process image: its start record (auditor running, command line
 * "app --run" of @R/bin/app, rank and environment as given: env is the
 * inside of a JSON object, or NULL), then records (one a line).
 */
static void write_proc(struct world *w, const char *host, int pid, const char *rank,
		       const char *env, const char *records)
{
	char name[128], *text;
	int n = w->nfiles++;

	snprintf(name, sizeof(name), "trace/%s-%d-%016x.jsonl", host, pid, n + 1);
	assert_true(asprintf(&text,
			     "{'ev':'start','t':%d,'tid':%d,'v':1,'shim':'0.1.0','pid':%d,'ppid':1,"
			     "'host':'%s','image':'%016x','auditor':true,'exe':'@R/bin/app',"
			     "'cwd':'@R','uid':1000,'euid':1000,'secure':false,"
			     "'argv':['@R/bin/app','--run'],'ranks':{%s%s%s},'env':{%s}}\n%s",
			     1000 + n, pid, pid, host, n + 1, rank ? "'RANK':'" : "",
			     rank ? rank : "", rank ? "'" : "", env ? env : "", records) > 0);
	write_file(w, name, text, true);
	free(text);
}

static void print_findings(const struct world *w)
{
	print_message("findings (%zu):\n", w->d.findings.n);
	ct_findings_print(stdout, &w->d.findings, false, true);
	fflush(stdout);
}

/* ---- what came out -------------------------------------------------------------- */

static bool contains(const struct world *w, const char *hay, const char *needle)
{
	char *n = expand(w, needle, false);
	bool yes = hay && strstr(hay, n);

	free(n);
	return yes;
}

static size_t count_code(const struct world *w, enum ct_finding_code code)
{
	size_t i, n = 0;

	for (i = 0; i < w->d.findings.n; i++)
		n += w->d.findings.f[i].code == code;
	return n;
}

/* The finding with this code whose message says msg; fails when none. */
static const struct ct_finding *expect_finding(const struct world *w, enum ct_finding_code code,
						enum ct_severity severity, const char *msg)
{
	size_t i;

	for (i = 0; i < w->d.findings.n; i++) {
		const struct ct_finding *f = &w->d.findings.f[i];

		if (f->code != code || !contains(w, f->message, msg))
			continue;
		if (f->severity != severity) {
			print_findings(w);
			fail_msg("%s '%s': severity %s, expected %s", ct_finding_id(code), f->message,
				 ct_severity_name(f->severity), ct_severity_name(severity));
		}
		return f;
	}
	print_findings(w);
	fail_msg("no %s finding saying \"%s\"", ct_finding_id(code), msg);
	return NULL;
}

static void expect_evidence(const struct world *w, const struct ct_finding *f, const char *text)
{
	size_t i;

	for (i = 0; i < f->nevidence; i++)
		if (contains(w, f->evidence[i], text))
			return;
	print_findings(w);
	fail_msg("%s '%s': no evidence line saying \"%s\"", ct_finding_id(f->code), f->message, text);
}

static void expect_fix(const struct world *w, const struct ct_finding *f, const char *text)
{
	if (contains(w, f->fix, text))
		return;
	print_findings(w);
	fail_msg("%s '%s': the fix \"%s\" does not say \"%s\"", ct_finding_id(f->code), f->message,
		 f->fix ? f->fix : "(none)", text);
}

static void expect_object(const struct world *w, const struct ct_finding *f, const char *path)
{
	char *p = path ? expand(w, path, false) : NULL;

	if (p)
		assert_non_null(f->object);
	if (p)
		assert_string_equal(f->object, p);
	else
		assert_null(f->object);
	free(p);
}

static void expect_count(const struct world *w, enum ct_finding_code code, size_t n)
{
	if (count_code(w, code) == n)
		return;
	print_findings(w);
	fail_msg("%zu %s findings, expected %zu", count_code(w, code), ct_finding_id(code), n);
}

static void expect_total(const struct world *w, size_t n)
{
	if (w->d.findings.n == n)
		return;
	print_findings(w);
	fail_msg("%zu findings, expected %zu", w->d.findings.n, n);
}

/* Was any finding seen in process pid? */
static void expect_clean(const struct world *w, int64_t pid)
{
	size_t i, k;

	for (i = 0; i < w->d.findings.n; i++)
		for (k = 0; k < w->d.findings.f[i].nwhere; k++)
			if (w->d.findings.f[i].where[k].pid == pid) {
				print_findings(w);
				fail_msg("process %lld has a finding: %s", (long long)pid,
					 w->d.findings.f[i].message);
			}
}

static void expect_where(const struct ct_finding *f, const char *words)
{
	char buf[256];

	assert_string_equal(ct_where_words(f, buf, sizeof(buf)), words);
}

/* ---- a process that never touched CUDA ------------------------------------------ */

static void test_no_cuda(void **state)
{
	struct world *w = *state;

	copy_fixture(w, "nodevice.so", "sys1/libplain.so.1");
	write_proc(w, "h", 100, NULL, "'PATH':'/usr/bin:/bin'",
		   "{'ev':'open','path':'@R/bin/app','main':true,'lmid':0,'soname':null}\n"
		   "{'ev':'search','id':1,'name':'libplain.so.1','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libplain.so.1','via':'default'}\n"
		   "{'ev':'open','path':'@R/sys1/libplain.so.1','lmid':0,'soname':'libplain.so.1',"
		   "'search':1,'name':'libplain.so.1','by':'@R/bin/app','via':'default'}\n"
		   /* A plugin that is not there: the program's own business. */
		   "{'ev':'dlopen','api':'dlopen','name':'libctest-plugin.so','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':2,'name':'libctest-plugin.so','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libctest-plugin.so','via':'default'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys2/libctest-plugin.so','via':'default'}\n"
		   "{'ev':'dlerror','text':'libctest-plugin.so: cannot open shared object file: "
		   "No such file or directory'}\n"
		   "{'ev':'main'}\n{'ev':'fini'}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 0);
	assert_int_equal(w->d.ntargets, 0);
	assert_false(w->d.targets_from_trace);
	assert_false(ct_diagnosis_has_code(&w->d));
}

/* ---- the driver -------------------------------------------------------------- */

/* The runtime app loaded by path (a made-up libcudart.so.13). */
#define RUNTIME_13                                                             \
	"{'ev':'dlopen','api':'dlopen','name':'@R/cuda/libcudart.so.13','flags':2,"    \
	"'caller':'@R/bin/app'}\n"                                                     \
	"{'ev':'search','id':1,'name':'@R/cuda/libcudart.so.13','by':'@R/bin/app'}\n"  \
	"{'ev':'open','path':'@R/cuda/libcudart.so.13','lmid':0,"                      \
	"'soname':'libcudart.so.13','search':1,'name':'@R/cuda/libcudart.so.13',"      \
	"'by':'@R/bin/app','via':'direct'}\n"

static void test_driver_missing(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':1,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':2,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcuda.so.1','via':'default'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys2/libcuda.so.1','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcuda.so.1: cannot open shared object file: No such "
		   "file or directory'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_ERROR,
			   "no NVIDIA driver: 'libcuda.so.1' could not be loaded");
	expect_object(w, f, NULL);
	expect_evidence(w, f, "dlopen by libcudart.so.13");
	expect_evidence(w, f, "the program got: libcuda.so.1: cannot open shared object file");
	expect_evidence(w, f, "tried, in order:");
	expect_evidence(w, f, "@R/sys2");
	expect_fix(w, f, "install the NVIDIA driver (it provides libcuda.so.1)");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	expect_where(f, "process 100: app --run");
	/* The driver has its own code: not also a library not found. */
	expect_count(w, CT_F_LIB_NOT_FOUND, 0);
	expect_total(w, 1);
}

static void test_driver_missing_not_raised(void **state)
{
	struct world *w = *state;

	/* A probe with RTLD_NOLOAD: asks whether it is loaded, nothing more. */
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':5,'noload':true,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':2,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcuda.so.1','via':'default'}\n");
	/* A first try that missed, then the driver from a path given. */
	write_proc(w, "h", 101, NULL, NULL,
		   RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':1,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':2,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcuda.so.1','via':'default'}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'@R/drv/libcuda.so.1','flags':1,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':3,'name':'@R/drv/libcuda.so.1',"
		   "'by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'open','path':'@R/drv/libcuda.so.1','lmid':0,'soname':'libcuda.so.1',"
		   "'search':3,'name':'@R/drv/libcuda.so.1','by':'@R/cuda/libcudart.so.13',"
		   "'via':'direct'}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 0);
}

/* cuBLASLt 12 as it loads in a CPU-only `import torch` (Debian's PyTorch 2.6). */
#define LT_PROBE(id)                                                           \
	"{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':1,"               \
	"'caller':'@R/lib/libcublasLt.so.12'}\n"                                        \
	"{'ev':'search','id':" #id ",'name':'libcuda.so.1','by':'@R/lib/libcublasLt.so.12'}\n" \
	"{'ev':'try','search':" #id ",'path':'@R/sys1/libcuda.so.1','via':'runpath'}\n"

static void test_driver_missing_library_probe(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	/* Only cuBLASLt asked, and the process exited 0: nothing started CUDA, a note. */
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'open','path':'@R/lib/libcublasLt.so.12','lmid':0,"
		   "'soname':'libcublasLt.so.12','name':'libcublasLt.so.12',"
		   "'by':'@R/bin/app','via':'runpath','search':1}\n"
		   LT_PROBE(2) LT_PROBE(3)
		   "{'ev':'exit','api':'exit','status':0}\n");
	/*
	 * Only cuBLAS's own runtime asked (cublasCreate; libcuda.so here, so
	 * that it is a finding apart), and the program failed: the error,
	 * since a call cannot be told from a load.
	 */
	write_proc(w, "h", 103, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so','flags':1,"
		   "'caller':'@R/lib/libcublas.so.13'}\n"
		   "{'ev':'search','id':1,'name':'libcuda.so','by':'@R/lib/libcublas.so.13'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys3/libcuda.so','via':'default'}\n"
		   "{'ev':'exit','api':'exit','status':1}\n");
	/* Then the runtime asked too (torch.zeros(1).cuda()): the error, named by it. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'open','path':'@R/lib/libcublasLt.so.12','lmid':0,"
		   "'soname':'libcublasLt.so.12','name':'libcublasLt.so.12',"
		   "'by':'@R/bin/app','via':'runpath','search':1}\n"
		   LT_PROBE(2) RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':2,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':4,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':4,'path':'@R/sys2/libcuda.so.1','via':'default'}\n");
	/* A runtime linked into the program itself (nvcc's default): its own dlopen. */
	write_proc(w, "h", 102, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'libcuda.so.1','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys2/libcuda.so.1','via':'default'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_INFO,
			   "no NVIDIA driver, and nothing started CUDA: only libcublasLt.so.12 "
			   "looked for 'libcuda.so.1'");
	expect_evidence(w, f, "dlopen by libcublasLt.so.12 (2 times): a CUDA library looks "
			      "for the driver itself");
	expect_evidence(w, f, "no CUDA runtime and no code of the program asked for it, and "
			      "the process went on to a clean end");
	expect_evidence(w, f, "@R/sys1");
	expect_fix(w, f, "nothing, if this process is meant to run without a GPU; for one, "
			 "install the NVIDIA driver (it provides libcuda.so.1)");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_ERROR,
			   "no NVIDIA driver: 'libcuda.so.1' could not be loaded");
	expect_fix(w, f, "install the NVIDIA driver (it provides libcuda.so.1)");
	/* The search that failed the program is the one shown. */
	expect_evidence(w, f, "@R/sys2");
	expect_evidence(w, f, "dlopen by libcudart.so.13");
	expect_evidence(w, f, "dlopen by libcublasLt.so.12 too");
	assert_int_equal(f->nwhere, 2);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_ERROR,
			   "no NVIDIA driver: 'libcuda.so' could not be loaded");
	expect_evidence(w, f, "dlopen by libcublas.so.13");
	expect_evidence(w, f, "@R/sys3");
	expect_fix(w, f, "install the NVIDIA driver (it provides libcuda.so.1)");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 103);
	expect_count(w, CT_F_DRIVER_MISSING, 3);
	expect_count(w, CT_F_LIB_NOT_FOUND, 0);
}

/* NVML (libnvidia-ml.so.1) comes with the driver: torch.cuda.device_count() asks it first. */
#define NVML_MISS(id, caller)                                                  \
	"{'ev':'dlopen','api':'dlopen','name':'libnvidia-ml.so.1','flags':2,"          \
	"'caller':'" caller "'}\n"                                                     \
	"{'ev':'search','id':" #id ",'name':'libnvidia-ml.so.1','by':'" caller "'}\n"  \
	"{'ev':'try','search':" #id ",'path':'@R/sys1/libnvidia-ml.so.1','via':'default'}\n"

static void test_driver_missing_nvml(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	/* Both missing: one finding, the driver's, with NVML in its evidence. */
	write_proc(w, "h", 100, NULL, NULL,
		   NVML_MISS(1, "@R/bin/app") RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':1,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':3,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':3,'path':'@R/sys2/libcuda.so.1','via':'default'}\n");
	/* Only NVML asked (a monitoring tool): still the driver. */
	write_proc(w, "h", 101, NULL, NULL, NVML_MISS(1, "@R/bin/mon"));
	/* The driver loaded, NVML missing: a library of its own not found. */
	write_proc(w, "h", 102, NULL, NULL,
		   "{'ev':'open','path':'@R/drv/libcuda.so.1','lmid':0,'soname':'libcuda.so.1',"
		   "'name':'libcuda.so.1','by':'@R/bin/app','via':'default','search':2}\n"
		   NVML_MISS(1, "@R/bin/app"));
	/* The same, and the process went on to exit 0 (torch falls back): a note. */
	write_proc(w, "h", 104, NULL, NULL,
		   "{'ev':'open','path':'@R/drv/libcuda.so.1','lmid':0,'soname':'libcuda.so.1',"
		   "'name':'libcuda.so.1','by':'@R/bin/app2','via':'default','search':2}\n"
		   NVML_MISS(1, "@R/bin/app2")
		   "{'ev':'exit','api':'exit','status':0}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_ERROR,
			   "no NVIDIA driver: 'libcuda.so.1' could not be loaded");
	expect_evidence(w, f, "dlopen by libcudart.so.13");
	expect_evidence(w, f, "'libnvidia-ml.so.1' (NVML, which comes with the driver) was not "
			      "found either: dlopen by app");
	expect_evidence(w, f, "@R/sys2");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_ERROR,
			   "no NVIDIA driver: 'libnvidia-ml.so.1' could not be loaded");
	expect_evidence(w, f, "dlopen by mon");
	expect_fix(w, f, "install the NVIDIA driver (it provides libnvidia-ml.so.1)");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 101);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libnvidia-ml.so.1' was not found (dlopen by app)");
	expect_evidence(w, f, "the driver's libcuda.so.1 loaded without its NVML");
	expect_fix(w, f, "in a container: add utility to NVIDIA_DRIVER_CAPABILITIES");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 102);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_INFO,
			   "'libnvidia-ml.so.1' was not found (dlopen by app2)");
	expect_evidence(w, f, "the process went on to a clean end");
	assert_int_equal(f->where[0].pid, 104);
	expect_count(w, CT_F_DRIVER_MISSING, 2);
	expect_count(w, CT_F_LIB_NOT_FOUND, 2);
}

static void test_driver_too_old(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	touch(w, "cuda/libcudart.so.13.0.96");
	link_to(w, "libcudart.so.13.0.96", "cuda/libcudart.so.13");
	touch(w, "drv/libcuda.so.550.163.01");
	link_to(w, "libcuda.so.550.163.01", "drv/libcuda.so.1");
	touch(w, "cuda12/libcudart.so.12.4.127");
	link_to(w, "libcudart.so.12.4.127", "cuda12/libcudart.so.12");
	/* The CUDA 13 runtime on a driver for CUDA 12.4. */
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_13
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':-1}\n");
	/* cuInit itself said 35, with a runtime the driver's version covers. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'open','path':'@R/cuda12/libcudart.so.12','lmid':0,"
		   "'soname':'libcudart.so.12','name':'libcudart.so.12','by':'@R/bin/app',"
		   "'via':'runpath'}\n"
		   "{'ev':'cuinit','result':35,'caller':'@R/cuda12/libcudart.so.12'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':35}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
			   "the driver supports CUDA 12.4, the CUDA runtime needs 13.0: "
			   "\"CUDA driver version is insufficient for CUDA runtime version\"");
	expect_object(w, f, "@R/drv/libcuda.so.1");
	expect_evidence(w, f, "driver: @R/drv/libcuda.so.1 (550.163.01), supports CUDA 12.4");
	expect_evidence(w, f, "runtime: @R/cuda/libcudart.so.13 (13.0.96), dlopen by app");
	expect_fix(w, f, "update the driver to 580.65.06 or newer");
	/* A C program (a Node one alike): no pip wheel helps it. */
	expect_fix(w, f, "or use a CUDA 12 runtime: builds of the program's CUDA libraries for "
			 "CUDA 12");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
			   "cuInit: \"CUDA driver version is insufficient for CUDA runtime version\" "
			   "(35)");
	expect_evidence(w, f, "driver: @R/drv/libcuda.so.1, supports CUDA 12.4");
	expect_fix(w, f, "update the driver");
	assert_int_equal(f->where[0].pid, 101);
	/* 35 is not "no device". */
	expect_count(w, CT_F_NO_DEVICE, 0);
	expect_total(w, 2);
	/* A Python process (a package's extension mapped): its framework's wheels. */
	reset(w);
	touch(w, "site-packages/torch/_C.cpython-311-x86_64-linux-gnu.so");
	write_proc(w, "h", 102, NULL, NULL,
		   "{'ev':'open','path':'@R/site-packages/torch/_C.cpython-311-x86_64-linux-gnu.so',"
		   "'lmid':0,'soname':null,'name':'@R/site-packages/torch/_C.cpython-311-x86_64-"
		   "linux-gnu.so','by':'@R/bin/app','via':'direct'}\n"
		   RUNTIME_13
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':-1}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
			   "the driver supports CUDA 12.4, the CUDA runtime needs 13.0");
	expect_fix(w, f, "or use a CUDA 12 runtime: a build of your framework for CUDA 12 (pip: "
			 "the -cu12 wheels)");
	expect_total(w, 1);
}

/* Minor-version compatibility: a 12.8 runtime on a 12.4 driver is fine. */
static void test_driver_minor_compatible(void **state)
{
	struct world *w = *state;

	touch(w, "cuda/libcudart.so.12.8.90");
	link_to(w, "libcudart.so.12.8.90", "cuda/libcudart.so.12");
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'open','path':'@R/cuda/libcudart.so.12','lmid':0,"
		   "'soname':'libcudart.so.12','name':'libcudart.so.12','by':'@R/bin/app',"
		   "'via':'runpath'}\n"
		   "{'ev':'cuinit','result':0,'caller':'@R/cuda/libcudart.so.12'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':0,"
		   "'devices':[{'index':0,'name':'NVIDIA A100','cc':'8.0','uuid':'x'}]}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 0);
	/* The GPU of the trace is what is judged. */
	assert_int_equal(w->d.ntargets, 1);
	assert_true(w->d.targets_from_trace);
	assert_string_equal(w->d.target_names[0], "sm_80 (NVIDIA A100)");
}

static void test_no_device(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	/* cuInit failed with 100, CUDA_VISIBLE_DEVICES naming a GPU that is not there. */
	write_proc(w, "h", 100, NULL, "'CUDA_VISIBLE_DEVICES':'GPU-deadbeef'",
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000}\n"
		   "{'ev':'cuinit','result':100,'caller':'@R/bin/app'}\n");
	/* cuInit succeeded and reported no GPU. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'cuinit','result':0,'caller':'@R/bin/app'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000,'init':0,"
		   "'devices':[]}\n");
	/* A forward-compatibility driver on a GPU that does not allow it. */
	write_proc(w, "h", 102, NULL, NULL,
		   "{'ev':'driver','path':'@R/compat/libcuda.so.1','version':13000}\n"
		   "{'ev':'cuinit','result':804,'caller':'@R/bin/app'}\n");
	/* A GPU, working. */
	write_proc(w, "h", 103, NULL, NULL,
		   "{'ev':'cuinit','result':0,'caller':'@R/bin/app'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000,'init':0,"
		   "'devices':[{'index':0,'name':'NVIDIA A100','cc':'8.0','uuid':'x'}]}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_NO_DEVICE, CT_SEV_ERROR,
			   "the driver found no usable GPU: cuInit returned 100 "
			   "(CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)");
	expect_object(w, f, "@R/drv/libcuda.so.1");
	expect_evidence(w, f, "driver: @R/drv/libcuda.so.1, supports CUDA 13.0");
	expect_evidence(w, f, "CUDA_VISIBLE_DEVICES=GPU-deadbeef");
	expect_fix(w, f, "CUDA_VISIBLE_DEVICES=GPU-deadbeef hides GPUs from the process");
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_NO_DEVICE, CT_SEV_ERROR,
			   "the driver initialised but reports no GPU");
	expect_fix(w, f, "nvidia-smi");
	assert_int_equal(f->where[0].pid, 101);
	f = expect_finding(w, CT_F_NO_DEVICE, CT_SEV_ERROR, "cuInit returned 804");
	expect_object(w, f, "@R/compat/libcuda.so.1");
	expect_fix(w, f, "forward-compatibility libcuda");
	expect_clean(w, 103);
	expect_total(w, 3);
}

/* CUDA_VISIBLE_DEVICES hiding every GPU on purpose: a note when the process went on. */
static void test_no_device_hidden(void **state)
{
	struct world *w = *state;
	const struct ct_finding *note = NULL, *err = NULL, *dm;
	size_t i;

	write_proc(w, "h", 200, NULL, "'CUDA_VISIBLE_DEVICES':''",
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000}\n"
		   "{'ev':'cuinit','result':100,'caller':'@R/bin/app'}\n"
		   "{'ev':'exit','api':'exit','status':0}\n");
	/* The same with -1, but the program then failed: the error, and its fix. */
	write_proc(w, "h", 201, NULL, "'CUDA_VISIBLE_DEVICES':'-1'",
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':13000}\n"
		   "{'ev':'cuinit','result':100,'caller':'@R/bin/app'}\n"
		   "{'ev':'exit','api':'exit','status':1}\n");
	/* No driver at all, the runtime asked, GPUs hidden, exit 0: driver-missing is a note too. */
	write_proc(w, "h", 202, NULL, "'CUDA_VISIBLE_DEVICES':'NoDevFiles'",
		   RUNTIME_13
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':1,"
		   "'caller':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'search','id':2,'name':'libcuda.so.1','by':'@R/cuda/libcudart.so.13'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcuda.so.1','via':'default'}\n"
		   "{'ev':'exit','api':'exit','status':0}\n");
	world_judge(w, NULL, 0);
	dm = expect_finding(w, CT_F_DRIVER_MISSING, CT_SEV_INFO,
			    "no NVIDIA driver: 'libcuda.so.1' could not be loaded");
	expect_evidence(w, dm, "dlopen by libcudart.so.13");
	expect_evidence(w, dm, "CUDA_VISIBLE_DEVICES=NoDevFiles hides every GPU: it asks to run "
			       "without one, and the process went on to a clean end");
	expect_fix(w, dm, "nothing, if this process is meant to run without a GPU");
	assert_int_equal(dm->where[0].pid, 202);
	for (i = 0; i < w->d.findings.n; i++) {
		const struct ct_finding *f = &w->d.findings.f[i];

		if (f->code != CT_F_NO_DEVICE)
			continue;
		if (f->severity == CT_SEV_INFO)
			note = f;
		else if (f->severity == CT_SEV_ERROR)
			err = f;
	}
	assert_non_null(note);
	assert_non_null(err);
	assert_int_equal(note->where[0].pid, 200);
	expect_evidence(w, note, "that value hides every GPU: it asks to run without one, and the "
				 "process went on to a clean end");
	expect_fix(w, note, "nothing, if this process is meant to run without a GPU");
	assert_int_equal(err->where[0].pid, 201);
	expect_fix(w, err, "CUDA_VISIBLE_DEVICES=-1 hides GPUs from the process");
	expect_total(w, 3);
}

/* ---- libraries not found ----------------------------------------------------- */

/* A DT_NEEDED search of app for name that found nothing. */
#define NEEDED_MISS(id, name)                                                  \
	"{'ev':'search','id':" #id ",'name':'" name "','by':'@R/bin/app'}\n"           \
	"{'ev':'try','search':" #id ",'path':'@R/bin/gone/" name "','via':'runpath'}\n" \
	"{'ev':'try','search':" #id ",'path':'@R/sys1/" name "','via':'default'}\n"

static void test_lib_not_found_needed(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'open','path':'@R/bin/app','main':true,'lmid':0,'soname':null}\n"
		   NEEDED_MISS(1, "libctest-gone.so")
		   "{'ev':'try','search':1,'path':'@R/sys2/libctest-gone.so','via':'default'}\n"
		   "{'ev':'exit','api':'_exit','status':127}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-gone.so' was not found (needed by app)");
	expect_object(w, f, "@R/bin/app");
	expect_evidence(w, f, "the loader stops the program: \"error while loading shared "
			      "libraries: libctest-gone.so: cannot open shared object file\"");
	expect_evidence(w, f, "tried, in order:");
	expect_evidence(w, f, "RUNPATH");
	expect_evidence(w, f, "@R/bin/gone");
	expect_evidence(w, f, "default directory");
	expect_fix(w, f, "install the package that ships libctest-gone.so, or put its directory on "
			 "LD_LIBRARY_PATH");
	expect_total(w, 1);
}

/* Copies on the machine judged on, outside the paths tried: the fix names them. */
static void test_lib_not_found_copies(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	copy_fixture(w, "nodevice.so", "sys2/libctest-gone.so");
	copy_fixture(w, "nodevice.so", "sys2/libctest-major.so.3");
	write_proc(w, "h", 100, NULL, NULL,
		   NEEDED_MISS(1, "libctest-gone.so")
		   NEEDED_MISS(2, "libctest-major.so.2"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-gone.so' was not found (needed by app)");
	expect_evidence(w, f, "elsewhere: @R/sys2/libctest-gone.so (default directory)");
	expect_fix(w, f, "the file is in @R/sys2: add that directory to LD_LIBRARY_PATH, or to the "
			 "RUNPATH of app");
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-major.so.2' was not found (needed by app)");
	expect_evidence(w, f, "elsewhere: @R/sys2/libctest-major.so.3 (another major, default "
			      "directory)");
	expect_fix(w, f, "app was built for libctest-major.so.2 and only libctest-major.so.3 is "
			 "here: install libctest-major.so.2");
	expect_total(w, 2);
}

/*
 * Issue 36 point 8: a dlopen by name through Python's ctypes is the
 * program's request (ctypes.CDLL("libcublas.so.12")): no build of
 * _ctypes asked for it, and none is to be used instead.
 */
static void test_lib_not_found_ctypes(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	copy_fixture(w, "nodevice.so", "sys2/libcublas.so.13");
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'open','path':'@R/bin/python3','main':true,'lmid':0,'soname':null}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'libcublas.so.12','flags':2,"
		   "'caller':'@R/lib/_ctypes.cpython-313-x86_64-linux-gnu.so'}\n"
		   "{'ev':'search','id':1,'name':'libcublas.so.12',"
		   "'by':'@R/lib/_ctypes.cpython-313-x86_64-linux-gnu.so'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libcublas.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcublas.so.12: cannot open shared object file: "
		   "No such file or directory'}\n"
		   "{'ev':'exit','api':'exit','status':1}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libcublas.so.12' was not found (dlopen by "
			   "_ctypes.cpython-313-x86_64-linux-gnu.so)");
	expect_fix(w, f, "the program asked for libcublas.so.12 by name (through ctypes), and only "
			 "libcublas.so.13 is here: install libcublas.so.12");
	assert_null(strstr(f->fix, "was built for"));
	assert_null(strstr(f->fix, "a build of"));
}

/* A DT_NEEDED search of one object for name that found nothing. */
#define NEEDED_MISS_BY(id, name, by)                                           \
	"{'ev':'search','id':" #id ",'name':'" name "','by':'@R/lib/" by "'}\n"     \
	"{'ev':'try','search':" #id ",'path':'@R/sys1/" name "','via':'default'}\n"

/*
 * One cause, one finding: a library three objects need, missing in two
 * processes, is one finding with the three askers and the two places; its
 * message counts them and its fix names them.
 */
static void test_lib_not_found_one_cause(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	char who[256];
	int pid;

	copy_fixture(w, "nodevice.so", "sys2/libctest-major.so.3");
	for (pid = 100; pid <= 101; pid++)
		write_proc(w, "h", pid, NULL, NULL,
			   NEEDED_MISS_BY(1, "libctest-major.so.2", "a.so")
			   NEEDED_MISS_BY(2, "libctest-major.so.2", "b.so")
			   NEEDED_MISS_BY(3, "libctest-major.so.2", "c.so")
			   NEEDED_MISS_BY(4, "libctest-major.so.2", "a.so"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-major.so.2' was not found (needed by 3 objects)");
	assert_int_equal(f->nneeded_by, 3);
	assert_int_equal(ct_finding_askers(f), 3);
	assert_non_null(strstr(f->needed_by[1].object, "/lib/b.so"));
	assert_string_equal(f->needed_by[2].how, "DT_NEEDED");
	assert_int_equal(f->nwhere, 2);
	expect_fix(w, f, "a.so, b.so and c.so were built for libctest-major.so.2 and only "
			 "libctest-major.so.3 is here: install libctest-major.so.2");
	expect_fix(w, f, "use builds of them made for the one present");
	assert_string_equal(ct_finding_askers_words(f, who, sizeof(who)), "a.so, b.so and c.so");
	expect_total(w, 1);
}

/*
 * An extension needing libctest-a.so.1, libctest-b.so.1 and libcuda.so.1,
 * none of them left: built against stubs, which are then removed.
 */
static void build_ext_missing_three(struct world *w)
{
	static const char *const stubs[] = { "libctest-a.so.1", "libctest-b.so.1", "libcuda.so.1" };
	char flags[256], rel[64];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(flags, sizeof(flags), "-Wl,-soname,%s", stubs[i]);
		snprintf(rel, sizeof(rel), "stub/%s", stubs[i]);
		cc_so(w, rel, "int stub(void) { return 0; }", flags);
	}
	cc_so(w, "lib/ext.so", "int ext(void) { return 0; }",
	      "-Wl,--no-as-needed @R/stub/libctest-a.so.1 @R/stub/libctest-b.so.1 "
	      "@R/stub/libcuda.so.1");
	for (i = 0; i < 3; i++) {
		char *at = NULL, *path;

		assert_true(asprintf(&at, "@R/stub/%s", stubs[i]) > 0);
		path = expand(w, at, false);
		assert_int_equal(unlink(path), 0);
		free(path);
		free(at);
	}
}

/*
 * app, with its C library, dlopens ext.so; the loader stops at its first
 * DT_NEEDED.
 */
#define LOAD_EXT_MISSING                                                       \
	"{'ev':'open','path':'@R/sys1/libc.so.6','lmid':0,'soname':'libc.so.6'}\n"         \
	"{'ev':'dlopen','api':'dlopen','name':'@R/lib/ext.so','flags':2,"                  \
	"'caller':'@R/bin/app','error':'libctest-a.so.1: cannot open shared object file: " \
	"No such file or directory'}\n"                                                   \
	"{'ev':'search','id':1,'name':'@R/lib/ext.so','by':'@R/bin/app'}\n"               \
	"{'ev':'open','path':'@R/lib/ext.so','lmid':0,'soname':null,'search':1,"          \
	"'name':'@R/lib/ext.so','by':'@R/bin/app','via':'direct'}\n"                      \
	NEEDED_MISS_BY(2, "libctest-a.so.1", "ext.so")

/*
 * The loader names the first library it misses and stops: the finding
 * names the others too (the driver's as the driver's), one fix for all,
 * and no driver-missing of its own: nothing searched for libcuda.so.1.
 */
static void test_lib_not_found_every_missing(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_ext_missing_three(w);
	write_proc(w, "h", 100, NULL, NULL, LOAD_EXT_MISSING);
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-a.so.1' was not found (needed by ext.so); 'libctest-b.so.1' "
			   "and the NVIDIA driver's 'libcuda.so.1' are missing too");
	assert_int_equal(f->nmissing, 3);
	assert_string_equal(f->missing[1].name, "libctest-b.so.1");
	assert_non_null(strstr(f->missing[2].needed_by, "/lib/ext.so"));
	expect_evidence(w, f, "'libctest-b.so.1' (needed by ext.so) is missing too");
	expect_fix(w, f, "install them: libctest-a.so.1: the package that ships it; "
			 "libctest-b.so.1: the package that ships it");
	expect_fix(w, f, "libcuda.so.1 is the NVIDIA driver's");
	expect_count(w, CT_F_DRIVER_MISSING, 0);
	expect_total(w, 1);
}

/*
 * Two extensions that miss the same three: one finding, each library
 * named once, both askers.
 */
static void test_lib_not_found_every_missing_two_askers(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	char *from, *to;

	NEED_CC();
	build_ext_missing_three(w);
	from = expand(w, "@R/lib/ext.so", false);
	to = expand(w, "@R/lib/ext2.so", false);
	assert_int_equal(link(from, to), 0);
	free(from);
	free(to);
	write_proc(w, "h", 100, NULL, NULL, LOAD_EXT_MISSING);
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'open','path':'@R/sys1/libc.so.6','lmid':0,'soname':'libc.so.6'}\n"
		   NEEDED_MISS_BY(2, "libctest-a.so.1", "ext2.so"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-a.so.1' was not found (needed by 2 objects); 'libctest-b.so.1' "
			   "and the NVIDIA driver's 'libcuda.so.1' are missing too");
	assert_int_equal(f->nmissing, 6);
	expect_fix(w, f, "install them: libctest-a.so.1: the package that ships it; "
			 "libctest-b.so.1: the package that ships it\n");
	expect_total(w, 1);
}

/*
 * The program searched libcuda.so.1 itself: driver-missing is that
 * finding, and lib-not-found names the rest without it.
 */
static void test_lib_not_found_every_missing_driver_searched(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_ext_missing_three(w);
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcuda.so.1','flags':257,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':9,'name':'libcuda.so.1','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':9,'path':'@R/sys1/libcuda.so.1','via':'default'}\n"
		   LOAD_EXT_MISSING);
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-a.so.1' was not found (needed by ext.so); 'libctest-b.so.1' "
			   "is missing too");
	assert_int_equal(f->nmissing, 2);
	expect_count(w, CT_F_DRIVER_MISSING, 1);
}

/*
 * cuDNN's probe: libcudnn_graph.so.9.19.0, then .9.19, then .9, which
 * loads. The failed tries are part of that load, not findings.
 */
static void test_lib_not_found_probe_same_major(void **state)
{
	struct world *w = *state;
	static const char *const names[] = { "libcudnn_graph.so.9.19.0", "libcudnn_graph.so.9.19" };
	char trace[4096];
	size_t i, n = 0;

	for (i = 0; i < 2; i++)
		n += (size_t)snprintf(trace + n, sizeof(trace) - n,
				      "{'ev':'dlopen','api':'dlopen','name':'%s','flags':2,"
				      "'caller':'@R/lib/libcudnn.so.9'}\n"
				      "{'ev':'search','id':%zu,'name':'%s','by':'@R/lib/libcudnn.so.9'}\n"
				      "{'ev':'try','search':%zu,'path':'@R/lib/%s','via':'runpath'}\n"
				      "{'ev':'dlerror','text':'%s: cannot open shared object file: No "
				      "such file or directory'}\n",
				      names[i], i + 1, names[i], i + 1, names[i], names[i]);
	snprintf(trace + n, sizeof(trace) - n,
		 "{'ev':'dlopen','api':'dlopen','name':'libcudnn_graph.so.9','flags':2,"
		 "'caller':'@R/lib/libcudnn.so.9'}\n"
		 "{'ev':'search','id':3,'name':'libcudnn_graph.so.9','by':'@R/lib/libcudnn.so.9'}\n"
		 "{'ev':'try','search':3,'path':'@R/lib/libcudnn_graph.so.9','via':'runpath'}\n"
		 "{'ev':'open','path':'@R/lib/libcudnn_graph.so.9','lmid':0,"
		 "'soname':'libcudnn_graph.so.9','search':3,'name':'libcudnn_graph.so.9',"
		 "'by':'@R/lib/libcudnn.so.9','via':'runpath'}\n");
	write_proc(w, "h", 100, NULL, NULL, trace);
	world_judge(w, NULL, 0);
	expect_total(w, 0);
}

static void test_lib_not_found_dlopen(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	/* A CUDA library by name, missed twice: one finding. */
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcublas.so.12','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'libcublas.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libcublas.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcublas.so.12: cannot open shared object file: No such "
		   "file or directory'}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'libcublas.so.12','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':2,'name':'libcublas.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcublas.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcublas.so.12: cannot open shared object file: No such "
		   "file or directory'}\n");
	/* A framework's probe for CUDA 12 before it loads CUDA 13: a note. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcudart.so.12','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'libcudart.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libcudart.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcudart.so.12: cannot open shared object file: No such "
		   "file or directory'}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'libcudart.so.13','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':2,'name':'libcudart.so.13','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcudart.so.13','via':'default'}\n"
		   "{'ev':'open','path':'@R/sys1/libcudart.so.13','lmid':0,"
		   "'soname':'libcudart.so.13','search':2,'name':'libcudart.so.13',"
		   "'by':'@R/bin/app','via':'default'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libcublas.so.12' was not found (dlopen by app)");
	expect_object(w, f, "@R/bin/app");
	expect_evidence(w, f, "the program got: libcublas.so.12: cannot open shared object file");
	expect_evidence(w, f, "tried, in order:");
	assert_non_null(f->fix);
	assert_non_null(strstr(f->fix, "libcublas.so.12"));
	assert_int_equal(f->nwhere, 1);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_INFO,
			   "'libcudart.so.12' was not found (dlopen by app)");
	expect_evidence(w, f, "it then loaded @R/sys1/libcudart.so.13");
	expect_fix(w, f, "nothing to do if app works with libcudart.so.13, which it loaded instead");
	expect_total(w, 2);
	/* Errors before notes. */
	assert_int_equal(w->d.findings.f[0].severity, CT_SEV_ERROR);
	assert_int_equal(w->d.findings.f[1].severity, CT_SEV_INFO);
}

static void test_lib_not_found_not_raised(void **state)
{
	struct world *w = *state;

	touch(w, "sys1/libcudart.so.13");
	write_proc(w, "h", 100, NULL, NULL,
		   /* A non-CUDA plugin that is not there. */
		   "{'ev':'dlopen','api':'dlopen','name':'libctest-plugin.so','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'libctest-plugin.so','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libctest-plugin.so','via':'default'}\n"
		   "{'ev':'dlerror','text':'libctest-plugin.so: cannot open shared object file: No "
		   "such file or directory'}\n"
		   /* A CUDA library probed with RTLD_NOLOAD. */
		   "{'ev':'dlopen','api':'dlopen','name':'libcudart.so.12','flags':6,'noload':true,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':2,'name':'libcudart.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcudart.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcudart.so.12: cannot open shared object file: No "
		   "such file or directory'}\n"
		   /* Loaded, then asked for again: the candidate is the file already mapped. */
		   "{'ev':'search','id':3,'name':'libcudart.so.13','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':3,'path':'@R/sys1/libcudart.so.13','via':'default'}\n"
		   "{'ev':'open','path':'@R/sys1/libcudart.so.13','lmid':0,"
		   "'soname':'libcudart.so.13','search':3,'name':'libcudart.so.13',"
		   "'by':'@R/bin/app','via':'default'}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'libcudart.so.13','flags':2,"
		   "'caller':'@R/lib/libother.so'}\n"
		   "{'ev':'search','id':4,'name':'libcudart.so.13','by':'@R/lib/libother.so'}\n"
		   "{'ev':'try','search':4,'path':'@R/sys1/libcudart.so.13','via':'default'}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 0);
}

/* ---- libraries shadowed -------------------------------------------------------- */

/*
 * As examples/findings/lib-shadowed builds them: a wheel's extension
 * with its cuDNN 9.5.1 on its RUNPATH, and a cuDNN 9.1.0 elsewhere.
 */
static void build_cudnn_pair(struct world *w)
{
	cc_so(w, "site/nvidia/cudnn/lib/libcudnn.so.9.5.1", "int cudnn_new(void) { return 0; }",
	      "-Wl,-soname,libcudnn.so.9");
	link_to(w, "libcudnn.so.9.5.1", "site/nvidia/cudnn/lib/libcudnn.so.9");
	cc_so(w, "opt/cudnn-9.1/lib/libcudnn.so.9.1.0", "int cudnn_old(void) { return 0; }",
	      "-Wl,-soname,libcudnn.so.9");
	link_to(w, "libcudnn.so.9.1.0", "opt/cudnn-9.1/lib/libcudnn.so.9");
	cc_so(w, "site/ext/libext_cuda.so", "int ext(void) { return 0; }",
	      "-Wl,--no-as-needed @R/site/nvidia/cudnn/lib/libcudnn.so.9 "
	      "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../nvidia/cudnn/lib'");
}

/* app dlopens the extension by path. */
#define LOAD_EXT                                                               \
	"{'ev':'dlopen','api':'dlopen','name':'@R/site/ext/libext_cuda.so','flags':2,"    \
	"'caller':'@R/bin/app'}\n"                                                       \
	"{'ev':'search','id':1,'name':'@R/site/ext/libext_cuda.so','by':'@R/bin/app'}\n" \
	"{'ev':'open','path':'@R/site/ext/libext_cuda.so','lmid':0,'soname':null,"       \
	"'search':1,'name':'@R/site/ext/libext_cuda.so','by':'@R/bin/app',"              \
	"'via':'direct'}\n"

/* The extension's cuDNN found at path by rule via. */
#define EXT_CUDNN(path, via)                                                   \
	"{'ev':'search','id':2,'name':'libcudnn.so.9','by':'@R/site/ext/libext_cuda.so'}\n" \
	"{'ev':'try','search':2,'path':'" path "','via':'" via "'}\n"                       \
	"{'ev':'open','path':'" path "','lmid':0,'soname':'libcudnn.so.9','search':2,"      \
	"'name':'libcudnn.so.9','by':'@R/site/ext/libext_cuda.so','via':'" via "'}\n"

static void test_lib_shadowed(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_cudnn_pair(w);
	/* LD_LIBRARY_PATH=@R/opt/cudnn-9.1/lib, searched before every RUNPATH. */
	write_proc(w, "h", 100, NULL, "'LD_LIBRARY_PATH':'@R/opt/cudnn-9.1/lib'",
		   LOAD_EXT EXT_CUDNN("@R/opt/cudnn-9.1/lib/libcudnn.so.9", "ld_library_path"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_SHADOWED, CT_SEV_WARNING,
			   "'libcudnn.so.9' came from LD_LIBRARY_PATH, while the RPATH or RUNPATH "
			   "of libext_cuda.so names another copy");
	expect_object(w, f, "@R/opt/cudnn-9.1/lib/libcudnn.so.9");
	expect_evidence(w, f, "taken:    @R/opt/cudnn-9.1/lib/libcudnn.so.9 (9.1.0, "
			      "LD_LIBRARY_PATH)");
	expect_evidence(w, f, "its own:  @R/site/ext/../nvidia/cudnn/lib/libcudnn.so.9 (9.5.1, "
			      "RUNPATH");
	expect_fix(w, f, "take @R/opt/cudnn-9.1/lib off LD_LIBRARY_PATH (or unset it) so that "
			 "libext_cuda.so gets the copy it ships with");
	/* One cuDNN in the process: nothing mixed. */
	expect_total(w, 1);
}

static void test_lib_shadowed_already_loaded(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_cudnn_pair(w);
	/*
	 * The older cuDNN loaded by path first; the extension's DT_NEEDED is
	 * then answered by its soname, with no search at all.
	 */
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9',"
		   "'flags':2,'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':7,'name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9',"
		   "'by':'@R/bin/app'}\n"
		   "{'ev':'open','path':'@R/opt/cudnn-9.1/lib/libcudnn.so.9','lmid':0,"
		   "'soname':'libcudnn.so.9','search':7,"
		   "'name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9','by':'@R/bin/app',"
		   "'via':'direct'}\n" LOAD_EXT);
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_SHADOWED, CT_SEV_WARNING,
			   "'libcudnn.so.9' was already loaded when libext_cuda.so needed it, while "
			   "the RPATH or RUNPATH of libext_cuda.so names another copy");
	expect_object(w, f, "@R/opt/cudnn-9.1/lib/libcudnn.so.9");
	expect_evidence(w, f, "taken:    @R/opt/cudnn-9.1/lib/libcudnn.so.9 (9.1.0, dlopen by app, "
			      "found via path given)");
	expect_evidence(w, f, "its own:  @R/site/ext/../nvidia/cudnn/lib/libcudnn.so.9 (9.5.1");
	expect_fix(w, f, "load libext_cuda.so (or what brings it) first, or make both use one copy");
	expect_total(w, 1);
}

/* One old cuDNN loaded first, two extensions whose RUNPATH names the wheel's: one finding. */
static void test_lib_shadowed_one_cause(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_cudnn_pair(w);
	cc_so(w, "site/ext/libext2_cuda.so", "int ext2(void) { return 0; }",
	      "-Wl,--no-as-needed @R/site/nvidia/cudnn/lib/libcudnn.so.9 "
	      "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../nvidia/cudnn/lib'");
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9',"
		   "'flags':2,'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':7,'name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9',"
		   "'by':'@R/bin/app'}\n"
		   "{'ev':'open','path':'@R/opt/cudnn-9.1/lib/libcudnn.so.9','lmid':0,"
		   "'soname':'libcudnn.so.9','search':7,"
		   "'name':'@R/opt/cudnn-9.1/lib/libcudnn.so.9','by':'@R/bin/app',"
		   "'via':'direct'}\n" LOAD_EXT
		   "{'ev':'open','path':'@R/site/ext/libext2_cuda.so','lmid':0,'soname':null,"
		   "'name':'@R/site/ext/libext2_cuda.so','by':'@R/bin/app','via':'direct'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_SHADOWED, CT_SEV_WARNING,
			   "'libcudnn.so.9' was already loaded when 2 objects needed it, while their "
			   "RPATH or RUNPATH names another copy");
	assert_int_equal(f->nneeded_by, 2);
	expect_fix(w, f, "load libext_cuda.so and libext2_cuda.so (or what brings them) first");
	expect_total(w, 1);
}

static void test_lib_shadowed_not_raised(void **state)
{
	struct world *w = *state;

	NEED_CC();
	build_cudnn_pair(w);
	cc_so(w, "site/nvidia/cudnn/lib/libctest-z.so.1", "int z_new(void) { return 0; }",
	      "-Wl,-soname,libctest-z.so.1");
	cc_so(w, "opt/cudnn-9.1/lib/libctest-z.so.1", "int z_old(void) { return 0; }",
	      "-Wl,-soname,libctest-z.so.1");
	/* Found through its own RUNPATH. */
	write_proc(w, "h", 100, NULL, NULL,
		   LOAD_EXT EXT_CUDNN("@R/site/ext/../nvidia/cudnn/lib/libcudnn.so.9", "runpath"));
	/* Through LD_LIBRARY_PATH, but the very file its RUNPATH names. */
	write_proc(w, "h", 101, NULL, "'LD_LIBRARY_PATH':'@R/site/nvidia/cudnn/lib'",
		   LOAD_EXT EXT_CUDNN("@R/site/nvidia/cudnn/lib/libcudnn.so.9", "ld_library_path"));
	/* Not a CUDA library: another copy through LD_LIBRARY_PATH is not judged. */
	write_proc(w, "h", 102, NULL, "'LD_LIBRARY_PATH':'@R/opt/cudnn-9.1/lib'",
		   LOAD_EXT
		   "{'ev':'search','id':2,'name':'libctest-z.so.1',"
		   "'by':'@R/site/ext/libext_cuda.so'}\n"
		   "{'ev':'try','search':2,'path':'@R/opt/cudnn-9.1/lib/libctest-z.so.1',"
		   "'via':'ld_library_path'}\n"
		   "{'ev':'open','path':'@R/opt/cudnn-9.1/lib/libctest-z.so.1','lmid':0,"
		   "'soname':'libctest-z.so.1','search':2,'name':'libctest-z.so.1',"
		   "'by':'@R/site/ext/libext_cuda.so','via':'ld_library_path'}\n"
		   EXT_CUDNN("@R/site/ext/../nvidia/cudnn/lib/libcudnn.so.9", "runpath"));
	world_judge(w, NULL, 0);
	expect_total(w, 0);
}

/* ---- two versions of one family ------------------------------------------------ */

/* An object needed by by, found via runpath (or as given). */
#define OPENED(path, soname, by, via)                                          \
	"{'ev':'open','path':'" path "','lmid':0,'soname':'" soname "','name':'" soname \
	"','by':'" by "','via':'" via "'}\n"

static void test_lib_mixed_versions(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	static const char *const files[][2] = {
		{ "fw/lib/libcudart.so.13.0.96", "fw/lib/libcudart.so.13" },
		{ "ext/lib/libcudart.so.12.4.127", "ext/lib/libcudart.so.12" },
		{ "a/libcudnn.so.9.1.0", "a/libcudnn.so.9" },
		{ "b/libcudnn_graph.so.9.5.1", "b/libcudnn_graph.so.9" },
		{ "a/libcudnn_graph.so.9.1.0", "a/libcudnn_graph.so.9" },
		{ "fw/lib/libcublas.so.13.0.2", "fw/lib/libcublas.so.13" },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(files); i++) {
		touch(w, files[i][0]);
		link_to(w, strrchr(files[i][0], '/') + 1, files[i][1]);
	}
	/* A framework for CUDA 13 and an extension for CUDA 12. */
	write_proc(w, "h", 100, NULL, NULL,
		   OPENED("@R/fw/libframework.so", "libframework.so", "@R/bin/app", "direct")
		   OPENED("@R/fw/lib/libcudart.so.13", "libcudart.so.13", "@R/fw/libframework.so",
			  "runpath")
		   OPENED("@R/ext/libext12.so", "libext12.so", "@R/bin/app", "direct")
		   OPENED("@R/ext/lib/libcudart.so.12", "libcudart.so.12", "@R/ext/libext12.so",
			  "runpath"));
	/* cuDNN's core 9.1.0 with a 9.5.1 sub-library from LD_LIBRARY_PATH. */
	write_proc(w, "h", 101, NULL, NULL,
		   OPENED("@R/a/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app", "runpath")
		   OPENED("@R/b/libcudnn_graph.so.9", "libcudnn_graph.so.9", "@R/a/libcudnn.so.9",
			  "ld_library_path"));
	/* One release of cuDNN; and libcublas is another family than libcudart. */
	write_proc(w, "h", 102, NULL, NULL,
		   OPENED("@R/a/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app", "runpath")
		   OPENED("@R/a/libcudnn_graph.so.9", "libcudnn_graph.so.9", "@R/a/libcudnn.so.9",
			  "runpath")
		   OPENED("@R/fw/lib/libcudart.so.13", "libcudart.so.13", "@R/bin/app", "runpath")
		   OPENED("@R/fw/lib/libcublas.so.13", "libcublas.so.13", "@R/bin/app",
			  "runpath"));
	touch(w, "m11/libcudart.so.11.8.89");
	link_to(w, "libcudart.so.11.8.89", "m11/libcudart.so.11.0");
	/*
	 * A MAGMA for CUDA 11 from LD_LIBRARY_PATH and a llama.cpp for CUDA
	 * 12: each major asked for under its own soname. Taking a folder off
	 * the path would fail one of them: one finding for the three
	 * families, whose fix is a build of one of them for the other's CUDA.
	 */
	write_proc(w, "h", 103, NULL, NULL,
		   OPENED("@R/m11/libmagma.so.2", "libmagma.so.2", "@R/bin/app", "direct")
		   OPENED("@R/m11/libcudart.so.11.0", "libcudart.so.11.0", "@R/m11/libmagma.so.2",
			  "ld_library_path")
		   OPENED("@R/m11/libcublas.so.11", "libcublas.so.11", "@R/m11/libmagma.so.2",
			  "ld_library_path")
		   OPENED("@R/m11/libcublasLt.so.11", "libcublasLt.so.11",
			  "@R/m11/libcublas.so.11", "ld_library_path")
		   OPENED("@R/ll/libggml-cuda.so", "libggml-cuda.so", "@R/bin/app", "direct")
		   OPENED("@R/ext/lib/libcudart.so.12", "libcudart.so.12", "@R/ll/libggml-cuda.so",
			  "runpath")
		   OPENED("@R/ll/libcublas.so.12", "libcublas.so.12", "@R/ll/libggml-cuda.so",
			  "runpath")
		   OPENED("@R/ll/libcublasLt.so.12", "libcublasLt.so.12", "@R/ll/libcublas.so.12",
			  "runpath"));
	/* Two files of one soname, pip's wheel and a toolkit: the search path's. */
	write_proc(w, "h", 104, NULL, NULL,
		   OPENED("@R/site-packages/nvidia/cublas/lib/libcublas.so.12", "libcublas.so.12",
			  "@R/bin/app", "runpath")
		   OPENED("@R/ll/libcublas.so.12", "libcublas.so.12", "@R/bin/app",
			  "ld_library_path"));
	/* Two sonames of one CUDA (NVRTC 11.1 and 11.2): the sides are the sonames. */
	touch(w, "n1/libnvrtc.so.11.1.105");
	link_to(w, "libnvrtc.so.11.1.105", "n1/libnvrtc.so.11.1");
	touch(w, "n2/libnvrtc.so.11.8.89");
	link_to(w, "libnvrtc.so.11.8.89", "n2/libnvrtc.so.11.2");
	write_proc(w, "h", 105, NULL, NULL,
		   OPENED("@R/n1/liba.so", "liba.so", "@R/bin/app", "direct")
		   OPENED("@R/n1/libnvrtc.so.11.1", "libnvrtc.so.11.1", "@R/n1/liba.so", "runpath")
		   OPENED("@R/n2/libb.so", "libb.so", "@R/bin/app", "direct")
		   OPENED("@R/n2/libnvrtc.so.11.2", "libnvrtc.so.11.2", "@R/n2/libb.so", "runpath"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "two majors in one process, each needed by a build for it: libnvrtc "
			   "11.1.105 and 11.8.89");
	expect_fix(w, f, "for one major in the process, use a build of libb.so for "
			 "libnvrtc.so.11.1, or of liba.so for libnvrtc.so.11.2");
	assert_int_equal(f->where[0].pid, 105);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "libraries of CUDA 13 and CUDA 12 in one process, each needed by a build "
			   "for its CUDA: libcudart 13.0.96 and 12.4.127");
	expect_object(w, f, "@R/fw/lib/libcudart.so.13");
	expect_evidence(w, f, "@R/fw/lib/libcudart.so.13, needed by libframework.so, found via "
			      "RUNPATH");
	expect_evidence(w, f, "@R/ext/lib/libcudart.so.12, needed by libext12.so, found via "
			      "RUNPATH");
	expect_fix(w, f, "each copy is the one its asker was built for, and taking one off the "
			 "library path makes that asker fail to load; for one CUDA in the process, "
			 "use a build of libext12.so for CUDA 13, or of libframework.so for CUDA 12");
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "libraries of CUDA 11 and CUDA 12 in one process, each needed by a build "
			   "for its CUDA: libcudart 11.8.89 and 12.4.127, libcublas 11 and 12, "
			   "libcublasLt 11 and 12");
	expect_evidence(w, f, "@R/m11/libcudart.so.11.0, needed by libmagma.so.2, found via "
			      "LD_LIBRARY_PATH");
	expect_evidence(w, f, "@R/ll/libcublasLt.so.12, needed by libcublas.so.12, found via "
			      "RUNPATH");
	expect_fix(w, f, "use a build of libggml-cuda.so for CUDA 11, or of libmagma.so.2 for "
			 "CUDA 12");
	if (contains(w, f->fix, "LD_LIBRARY_PATH") || contains(w, f->fix, "pip")) {
		print_findings(w);
		fail_msg("two majors under their own sonames: a fix of the search path or pip");
	}
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 103);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "two versions of libcublas in one process");
	expect_fix(w, f, "let one installation provide libcublas: take the other off "
			 "LD_LIBRARY_PATH, or align the packages that bring the copies (pip list | "
			 "grep nvidia)");
	assert_int_equal(f->where[0].pid, 104);
	/* cuDNN's pieces of two releases fail outright: an error. */
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_ERROR,
			   "two versions of cuDNN in one process: 9.1.0 and 9.5.1");
	expect_object(w, f, "@R/a/libcudnn.so.9");
	expect_evidence(w, f, "@R/b/libcudnn_graph.so.9, needed by libcudnn.so.9, found via "
			      "LD_LIBRARY_PATH");
	expect_fix(w, f, "let one installation provide every cuDNN library: take the other off "
			 "LD_LIBRARY_PATH, or align the packages that bring the copies");
	/* pip's list shows only what pip installed. */
	if (contains(w, f->fix, "pip")) {
		print_findings(w);
		fail_msg("pip list for copies that pip did not install");
	}
	expect_clean(w, 102);
	expect_total(w, 5);
}

/*
 * cuDNN's sub-libraries from another folder than the core that loaded
 * them: a warning even of one release (two installations); the same
 * folder by another path is one.
 */
static void test_lib_mixed_cudnn_folders(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	static const char *const files[][2] = {
		{ "c1/libcudnn.so.9.19.0", "c1/libcudnn.so.9" },
		{ "c1/libcudnn_graph.so.9.19.0", "c1/libcudnn_graph.so.9" },
		{ "c2/libcudnn_graph.so.9.19.0", "c2/libcudnn_graph.so.9" },
		{ "c2/libcudnn_ops.so.9.19.0", "c2/libcudnn_ops.so.9" },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(files); i++) {
		touch(w, files[i][0]);
		link_to(w, strrchr(files[i][0], '/') + 1, files[i][1]);
	}
	link_to(w, "c1", "c1link");
	write_proc(w, "h", 100, NULL, NULL,
		   OPENED("@R/c1/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app", "runpath")
		   OPENED("@R/c2/libcudnn_graph.so.9", "libcudnn_graph.so.9", "@R/c1/libcudnn.so.9",
			  "ld_library_path")
		   OPENED("@R/c2/libcudnn_ops.so.9", "libcudnn_ops.so.9", "@R/c1/libcudnn.so.9",
			  "ld_library_path"));
	write_proc(w, "h", 101, NULL, NULL,
		   OPENED("@R/c1/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app", "runpath")
		   OPENED("@R/c1link/libcudnn_graph.so.9", "libcudnn_graph.so.9",
			  "@R/c1/libcudnn.so.9", "runpath"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "cuDNN from two folders in one process: libcudnn.so.9 and "
			   "libcudnn_graph.so.9, both 9.19.0");
	expect_object(w, f, "@R/c1/libcudnn.so.9");
	expect_evidence(w, f, "@R/c1/libcudnn.so.9, needed by app, found via RUNPATH");
	expect_evidence(w, f, "@R/c2/libcudnn_graph.so.9, needed by libcudnn.so.9, found via "
			      "LD_LIBRARY_PATH");
	expect_evidence(w, f, "@R/c2/libcudnn_ops.so.9, needed by libcudnn.so.9");
	expect_fix(w, f, "let one installation provide every cuDNN library: take the other off "
			 "LD_LIBRARY_PATH");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	expect_clean(w, 101);
	expect_total(w, 1);
}

/* ---- mixed CUDA builds (builds.c) ----------------------------------------------- */

/* Findings of code whose message says msg. */
static size_t count_saying(const struct world *w, enum ct_finding_code code, const char *msg)
{
	size_t i, n = 0;

	for (i = 0; i < w->d.findings.n; i++)
		n += w->d.findings.f[i].code == code && contains(w, w->d.findings.f[i].message, msg);
	return n;
}

/* A shared object named by its soname at dir/soname. */
static void stub_so(struct world *w, const char *dir, const char *soname, const char *src,
		    const char *flags)
{
	char rel[256], fl[512];

	snprintf(rel, sizeof(rel), "%s/%s", dir, soname);
	snprintf(fl, sizeof(fl), "-Wl,-soname,%s %s", soname, flags);
	cc_so(w, rel, src, fl);
}

/*
 * Source of a library whose .nv_fatbin holds one uncompressed PTX image of
 * ISA isa that names the release that compiled it, as nvcc's PTX does
 * (the container and entry layout of reference/fatbin.md).
 */
#define FATBIN_RELEASE(r, isa_major, isa_minor)                                               \
	"struct fb { unsigned magic; unsigned short ver, hsize; unsigned long long body;"      \
	" unsigned short kind, hver; unsigned ehs; unsigned long long padded;"                \
	" unsigned csize, opts; unsigned short minor, major; unsigned arch, ioff, ilen;"      \
	" unsigned long long flags, r1, usize; char ptx[256]; };"                             \
	"__attribute__((section(\".nv_fatbin\"), used, aligned(8))) const struct fb fatbin = {" \
	" 0xBA55ED50u, 1, 16, 64 + 256, 1, 0x0101, 64, 256, 0, 0, " #isa_minor ", " #isa_major  \
	", 90, 0, 0, 0, 0, 0, \"//\\n// Cuda compilation tools, release " r ", V" r ".80\\n"  \
	".version " #isa_major "." #isa_minor "\\n.target sm_90\\n.address_size 64\\n\" };"

/* The CUDA 12 runtime a framework ships, needed by it. */
#define RUNTIME_12                                                             \
	OPENED("@R/fw/libframework.so", "libframework.so", "@R/bin/app", "direct")  \
	OPENED("@R/fw/lib/libcudart.so.12", "libcudart.so.12", "@R/fw/libframework.so", \
	       "runpath")

static void build_runtime_12(struct world *w)
{
	touch(w, "fw/libframework.so");
	touch(w, "fw/lib/libcudart.so.12.4.127");
	link_to(w, "libcudart.so.12.4.127", "fw/lib/libcudart.so.12");
}

static void test_builds_mixed_major(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_runtime_12(w);
	stub_so(w, "cuda13", "libcublasLt.so.13", "int lt(void) { return 0; }", "");
	stub_so(w, "cuda13", "libnvrtc.so.13", "int rtc(void) { return 0; }", "");
	cc_so(w, "ext/libuses_lt.so", "int a(void) { return 0; }",
	      "-Wl,--no-as-needed @R/cuda13/libcublasLt.so.13");
	cc_so(w, "ext/libuses_rtc.so", "int b(void) { return 0; }",
	      "-Wl,--no-as-needed @R/cuda13/libnvrtc.so.13");
	/* Two libraries of one folder needing CUDA 13's sonames: one finding. */
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_12
		   OPENED("@R/ext/libuses_lt.so", "libuses_lt.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libcublasLt.so.13", "libcublasLt.so.13",
			  "@R/ext/libuses_lt.so", "default")
		   OPENED("@R/ext/libuses_rtc.so", "libuses_rtc.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libnvrtc.so.13", "libnvrtc.so.13", "@R/ext/libuses_rtc.so",
			  "default"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 12: libuses_lt.so, "
			   "libuses_rtc.so from @R/ext");
	expect_object(w, f, "@R/ext/libuses_lt.so");
	expect_evidence(w, f, "@R/ext/libuses_lt.so: built for CUDA 13 (needs libcublasLt.so.13); "
			      "needed by app");
	expect_evidence(w, f, "@R/ext/libuses_rtc.so: built for CUDA 13 (needs libnvrtc.so.13)");
	expect_evidence(w, f, "the process's CUDA 12: @R/fw/lib/libcudart.so.12, needed by "
			      "libframework.so");
	/* A C program: no pip package helps it. */
	expect_fix(w, f, "use builds of these libraries for CUDA 12\n");
	expect_fix(w, f, "or move the whole process to CUDA 13: builds of all its libraries for it");
	/* No driver known: nothing about it. */
	expect_count(w, CT_F_DRIVER_TOO_OLD, 0);
	expect_total(w, 1);
	/* The same with a Python package's extension mapped: pip's packages. */
	reset(w);
	touch(w, "site-packages/ext/_C.cpython-311-x86_64-linux-gnu.so");
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_12
		   OPENED("@R/site-packages/ext/_C.cpython-311-x86_64-linux-gnu.so",
			  "_C.cpython-311-x86_64-linux-gnu.so", "@R/bin/app", "direct")
		   OPENED("@R/ext/libuses_lt.so", "libuses_lt.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libcublasLt.so.13", "libcublasLt.so.13",
			  "@R/ext/libuses_lt.so", "default"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 12: libuses_lt.so from "
			   "@R/ext");
	expect_fix(w, f, "use builds of these libraries for CUDA 12 (pip: the -cu12 packages");
	expect_fix(w, f, "or move the whole process to CUDA 13: a framework built for it");
	expect_total(w, 1);
}

/*
 * cuDNN's core and graph library hold no device code: their folder's
 * libcudnn_cnn.so.9 says the release's CUDA, by its compiler's line or
 * by the CUDA 13 sonames it needs.
 */
static void test_builds_cudnn_release(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_runtime_12(w);
	stub_so(w, "cudnn13", "libcudnn.so.9", "int core(void) { return 0; }", "");
	stub_so(w, "cudnn13", "libcudnn_graph.so.9", "int graph(void) { return 0; }", "");
	stub_so(w, "cudnn13", "libcudnn_cnn.so.9", FATBIN_RELEASE("13.1", 9, 1), "");
	stub_so(w, "cuda13", "libcublasLt.so.13", "int lt(void) { return 0; }", "");
	stub_so(w, "cudnn13b", "libcudnn.so.9", "int core(void) { return 0; }", "");
	stub_so(w, "cudnn13b", "libcudnn_cnn.so.9", "int cnn(void) { return 0; }",
		"-Wl,--no-as-needed @R/cuda13/libcublasLt.so.13");
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_12
		   OPENED("@R/cudnn13/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app",
			  "ld_library_path")
		   OPENED("@R/cudnn13/libcudnn_graph.so.9", "libcudnn_graph.so.9",
			  "@R/cudnn13/libcudnn.so.9", "ld_library_path"));
	/* The driver known, for CUDA 12.4: the CUDA 13 cuDNN cannot run on it. */
	write_proc(w, "h", 101, NULL, NULL,
		   RUNTIME_12
		   OPENED("@R/cudnn13b/libcudnn.so.9", "libcudnn.so.9", "@R/bin/app", "runpath")
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':0}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 12: libcudnn.so.9, "
			   "libcudnn_graph.so.9 from @R/cudnn13");
	expect_evidence(w, f, "@R/cudnn13/libcudnn.so.9: built for CUDA 13 (its release's "
			      "libcudnn_cnn.so.9: device code compiled by CUDA 13.1)");
	expect_evidence(w, f, "@R/cudnn13/libcudnn_graph.so.9: built for CUDA 13");
	expect_fix(w, f, "or take their folder off LD_LIBRARY_PATH");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 12: libcudnn.so.9 from "
			   "@R/cudnn13b");
	expect_evidence(w, f, "@R/cudnn13b/libcudnn.so.9: built for CUDA 13 (its release's "
			      "libcudnn_cnn.so.9: needs libcublasLt.so.13)");
	assert_int_equal(f->where[0].pid, 101);
	f = expect_finding(w, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
			   "the driver supports CUDA 12.4, libcudnn.so.9 from @R/cudnn13b built for "
			   "CUDA 13: their kernels fail with");
	expect_evidence(w, f, "built for CUDA 13: its release's libcudnn_cnn.so.9: needs "
			      "libcublasLt.so.13");
	expect_fix(w, f, "update the driver to 580.65.06 or newer");
	/* A C program: builds, not pip's packages. */
	expect_fix(w, f, "or use builds of those libraries for CUDA 12");
	if (contains(w, f->fix, "pip")) {
		print_findings(w);
		fail_msg("pip offered to a process without Python");
	}
	if (contains(w, f->fix, "framework")) {
		print_findings(w);
		fail_msg("the fix of libraries built for CUDA 13 speaks of the framework's runtime");
	}
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 101);
	expect_total(w, 3);
}

static void test_builds_not_raised(void **state)
{
	struct world *w = *state;

	NEED_CC();
	build_runtime_12(w);
	touch(w, "fw/lib/libcudart.so.13.0.96");
	link_to(w, "libcudart.so.13.0.96", "fw/lib/libcudart.so.13");
	stub_so(w, "cuda13", "libcublasLt.so.13", "int lt(void) { return 0; }", "");
	stub_so(w, "cuda12", "libnvrtc.so.12", "int rtc(void) { return 0; }", "");
	cc_so(w, "ext/libuses_lt.so", "int a(void) { return 0; }",
	      "-Wl,--no-as-needed @R/cuda13/libcublasLt.so.13");
	/* Another minor of the process's major, by sonames and by device code. */
	cc_so(w, "ext/libuses_rtc12.so", "int b(void) { return 0; }",
	      "-Wl,--no-as-needed @R/cuda12/libnvrtc.so.12");
	stub_so(w, "cuda12", "libcufft.so.11", FATBIN_RELEASE("12.8", 8, 7), "");
	/* The driver, NVML and NVTX have no CUDA of their own, whatever they hold. */
	stub_so(w, "drv", "libcuda.so.1", FATBIN_RELEASE("13.0", 9, 0), "");
	stub_so(w, "drv", "libnvidia-ml.so.1", FATBIN_RELEASE("13.0", 9, 0), "");
	stub_so(w, "cuda12", "libnvToolsExt.so.1", "int nvtx(void) { return 0; }", "");
	/* An extension with its own static cudart: its device code is judged elsewhere. */
	cc_so(w, "ext/libflash_ext.so", FATBIN_RELEASE("13.0", 9, 0), "");
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_12
		   OPENED("@R/ext/libuses_rtc12.so", "libuses_rtc12.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda12/libnvrtc.so.12", "libnvrtc.so.12", "@R/ext/libuses_rtc12.so",
			  "default")
		   OPENED("@R/cuda12/libcufft.so.11", "libcufft.so.11", "@R/bin/app", "default")
		   OPENED("@R/drv/libcuda.so.1", "libcuda.so.1", "@R/fw/lib/libcudart.so.12",
			  "default")
		   OPENED("@R/drv/libnvidia-ml.so.1", "libnvidia-ml.so.1", "@R/bin/app", "default")
		   OPENED("@R/cuda12/libnvToolsExt.so.1", "libnvToolsExt.so.1", "@R/bin/app",
			  "default")
		   OPENED("@R/ext/libflash_ext.so", "libflash_ext.so", "@R/bin/app", "direct")
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':0}\n");
	/* No CUDA runtime: no process CUDA to compare with. */
	write_proc(w, "h", 101, NULL, NULL,
		   OPENED("@R/ext/libuses_lt.so", "libuses_lt.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libcublasLt.so.13", "libcublasLt.so.13",
			  "@R/ext/libuses_lt.so", "default"));
	/* Two runtimes: the family rule speaks, this one is silent. */
	write_proc(w, "h", 102, NULL, NULL,
		   OPENED("@R/fw/lib/libcudart.so.13", "libcudart.so.13", "@R/bin/app", "runpath")
		   RUNTIME_12
		   OPENED("@R/ext/libuses_lt.so", "libuses_lt.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libcublasLt.so.13", "libcublasLt.so.13",
			  "@R/ext/libuses_lt.so", "default"));
	world_judge(w, NULL, 0);
	expect_clean(w, 100);
	expect_clean(w, 101);
	expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
		       "libraries of CUDA 13 and CUDA 12 in one process, each needed by a build for "
		       "its CUDA: libcudart 13.0.96 and 12.4.127");
	if (count_saying(w, CT_F_LIB_MIXED_VERSIONS, "builds for CUDA") != 0) {
		print_findings(w);
		fail_msg("a finding about builds, expected none");
	}
	expect_total(w, 1);
}

/*
 * cuBLASLt 11 dlopens "libnvrtc.so", a name without a major; ld.so.cache
 * gives it whatever that link names: CUDA 13's libnvrtc.so.13 in a
 * process of CUDA 11. Its own soname says its CUDA: a finding of its own,
 * whose fix makes the name find CUDA 11's (a folder of this machine that
 * already holds that link: sys1). The same library asked for by a build
 * for CUDA 13 is that build's finding, and with CUDA 11's NVRTC mapped too
 * it is the family's (two versions): neither is said twice.
 */
static void test_builds_unversioned_name(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	touch(w, "c11/lib/libcudart.so.11.8.89");
	link_to(w, "libcudart.so.11.8.89", "c11/lib/libcudart.so.11.0");
	stub_so(w, "c11/lib", "libcublasLt.so.11", "int lt(void) { return 0; }", "");
	stub_so(w, "cuda13", "libnvrtc.so.13", "int rtc(void) { return 0; }", "");
	link_to(w, "libnvrtc.so.13", "cuda13/libnvrtc.so");
	stub_so(w, "sys1", "libnvrtc.so.11.2", "int rtc(void) { return 0; }", "");
	link_to(w, "libnvrtc.so.11.2", "sys1/libnvrtc.so");
	cc_so(w, "ext/libuses_rtc.so", "int b(void) { return 0; }",
	      "-Wl,--no-as-needed @R/cuda13/libnvrtc.so.13");
#define RUNTIME_11                                                                          \
	OPENED("@R/c11/libsolver.so", "libsolver.so", "@R/bin/app", "direct")                \
	OPENED("@R/c11/lib/libcudart.so.11.0", "libcudart.so.11.0", "@R/c11/libsolver.so",   \
	       "runpath")                                                                    \
	OPENED("@R/c11/lib/libcublasLt.so.11", "libcublasLt.so.11", "@R/c11/libsolver.so",   \
	       "runpath")
	touch(w, "c11/libsolver.so");
	write_proc(w, "h", 100, NULL, NULL,
		   RUNTIME_11
		   "{'ev':'dlopen','api':'dlopen','name':'libnvrtc.so','flags':2,"
		   "'caller':'@R/c11/lib/libcublasLt.so.11'}\n"
		   "{'ev':'search','id':1,'name':'libnvrtc.so','by':'@R/c11/lib/libcublasLt.so.11'}\n"
		   "{'ev':'try','search':1,'path':'@R/cuda13/libnvrtc.so','via':'ld.so.cache'}\n"
		   "{'ev':'open','path':'@R/cuda13/libnvrtc.so','lmid':0,'soname':'libnvrtc.so.13',"
		   "'search':1,'name':'libnvrtc.so','by':'@R/c11/lib/libcublasLt.so.11',"
		   "'via':'ld.so.cache'}\n");
	/* Asked for by a build for CUDA 13: that build's finding names it. */
	write_proc(w, "h", 101, NULL, NULL,
		   RUNTIME_11
		   OPENED("@R/ext/libuses_rtc.so", "libuses_rtc.so", "@R/bin/app", "direct")
		   OPENED("@R/cuda13/libnvrtc.so.13", "libnvrtc.so.13", "@R/ext/libuses_rtc.so",
			  "default"));
	/* CUDA 11's NVRTC mapped too: the family's two versions. */
	write_proc(w, "h", 102, NULL, NULL,
		   RUNTIME_11
		   OPENED("@R/sys1/libnvrtc.so.11.2", "libnvrtc.so.11.2", "@R/bin/app", "default")
		   OPENED("@R/cuda13/libnvrtc.so.13", "libnvrtc.so.13", "@R/bin/app", "default"));
#undef RUNTIME_11
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 11: libnvrtc.so "
			   "(libnvrtc.so.13) from @R/cuda13");
	expect_evidence(w, f, "@R/cuda13/libnvrtc.so: built for CUDA 13 (its soname is "
			      "libnvrtc.so.13); dlopen by libcublasLt.so.11, found via ld.so.cache");
	expect_evidence(w, f, "'libnvrtc.so' says no major: ld.so.cache gives whichever library "
			      "that name links to, here CUDA 13's");
	expect_evidence(w, f, "the process's CUDA 11: @R/c11/lib/libcudart.so.11.0");
	expect_fix(w, f, "libcublasLt.so.11 asks for 'libnvrtc.so', a name without a major: put "
			 "@R/sys1 first on LD_LIBRARY_PATH, where that name is CUDA 11's "
			 "libnvrtc.so.11.2");
	if (contains(w, f->fix, "pip")) {
		print_findings(w);
		fail_msg("pip offered to a process without Python");
	}
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 100);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "builds for CUDA 13 in a process built for CUDA 11: libuses_rtc.so from "
			   "@R/ext");
	assert_int_equal(f->where[0].pid, 101);
	expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING, "libnvrtc 11 and 13");
	assert_int_equal(count_saying(w, CT_F_LIB_MIXED_VERSIONS, "libnvrtc.so.13) from"), 1);
	expect_total(w, 3);
}

/* ---- symbol versions ------------------------------------------------------------ */

static void test_symbol_version_missing(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	/* As examples/findings/symbol-version-missing: NVIDIA's versioning. */
	write_file(w, "jit.map", "libnvJitLink.so.12 { global: *; };\n", false);
	cc_so(w, "cuda-12.1/lib64/libnvJitLink.so.12", "int __nvJitLinkCreate_12_0(void) { return 0; }",
	      "-Wl,-soname,libnvJitLink.so.12 -Wl,--version-script,@R/jit.map");
	cc_so(w, "site/nvjitlink/lib/libnvJitLink.so.12",
	      "int __nvJitLinkCreate_12_0(void) { return 0; }\n"
	      "int __nvJitLinkAddData_12_1(void) { return 0; }\n",
	      "-Wl,-soname,libnvJitLink.so.12 -Wl,--version-script,@R/jit.map");
	cc_so(w, "site/cusparse/lib/libcusparse.so.12",
	      "int __nvJitLinkAddData_12_1(void);\n"
	      "int cusparse_go(void) { return __nvJitLinkAddData_12_1(); }\n",
	      "-Wl,-soname,libcusparse.so.12 @R/site/nvjitlink/lib/libnvJitLink.so.12 "
	      "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../../nvjitlink/lib'");
	write_proc(w, "h", 100, NULL, "'LD_LIBRARY_PATH':'@R/cuda-12.1/lib64'",
		   "{'ev':'dlopen','api':'dlopen','name':'@R/site/cusparse/lib/libcusparse.so.12',"
		   "'flags':2,'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'@R/site/cusparse/lib/libcusparse.so.12',"
		   "'by':'@R/bin/app'}\n"
		   "{'ev':'open','path':'@R/site/cusparse/lib/libcusparse.so.12','lmid':0,"
		   "'soname':'libcusparse.so.12','search':1,"
		   "'name':'@R/site/cusparse/lib/libcusparse.so.12','by':'@R/bin/app',"
		   "'via':'direct'}\n"
		   "{'ev':'search','id':2,'name':'libnvJitLink.so.12',"
		   "'by':'@R/site/cusparse/lib/libcusparse.so.12'}\n"
		   "{'ev':'try','search':2,'path':'@R/cuda-12.1/lib64/libnvJitLink.so.12',"
		   "'via':'ld_library_path'}\n"
		   "{'ev':'open','path':'@R/cuda-12.1/lib64/libnvJitLink.so.12','lmid':0,"
		   "'soname':'libnvJitLink.so.12','search':2,'name':'libnvJitLink.so.12',"
		   "'by':'@R/site/cusparse/lib/libcusparse.so.12','via':'ld_library_path'}\n"
		   "{'ev':'close','path':'@R/cuda-12.1/lib64/libnvJitLink.so.12'}\n"
		   "{'ev':'close','path':'@R/site/cusparse/lib/libcusparse.so.12'}\n"
		   "{'ev':'dlerror','text':'@R/site/cusparse/lib/libcusparse.so.12: undefined "
		   "symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12'}\n");
	/* The same program with the copy the RUNPATH names: nothing missing. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'open','path':'@R/site/cusparse/lib/libcusparse.so.12','lmid':0,"
		   "'soname':'libcusparse.so.12','name':'@R/site/cusparse/lib/libcusparse.so.12',"
		   "'by':'@R/bin/app','via':'direct'}\n"
		   "{'ev':'open','path':'@R/site/cusparse/lib/../../nvjitlink/lib/"
		   "libnvJitLink.so.12','lmid':0,'soname':'libnvJitLink.so.12',"
		   "'name':'libnvJitLink.so.12','by':'@R/site/cusparse/lib/libcusparse.so.12',"
		   "'via':'runpath'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'libcusparse.so.12' needs __nvJitLinkAddData_12_1 (version "
			   "libnvJitLink.so.12), which @R/cuda-12.1/lib64/libnvJitLink.so.12 does not "
			   "define");
	expect_object(w, f, "@R/cuda-12.1/lib64/libnvJitLink.so.12");
	expect_evidence(w, f, "the loader says: undefined symbol: __nvJitLinkAddData_12_1, version "
			      "libnvJitLink.so.12");
	expect_evidence(w, f, "the program got: @R/site/cusparse/lib/libcusparse.so.12: undefined "
			      "symbol");
	expect_evidence(w, f, "@R/cuda-12.1/lib64/libnvJitLink.so.12: needed by libcusparse.so.12, "
			      "found via LD_LIBRARY_PATH");
	expect_fix(w, f, "take @R/cuda-12.1/lib64 off LD_LIBRARY_PATH, so that libcusparse.so.12 "
			 "gets @R/site/cusparse/lib/../../nvjitlink/lib/libnvJitLink.so.12 (RUNPATH");
	/* It comes with the shadowing that explains it, in process 100 only. */
	f = expect_finding(w, CT_F_LIB_SHADOWED, CT_SEV_WARNING,
			   "'libnvJitLink.so.12' came from LD_LIBRARY_PATH");
	expect_clean(w, 101);
	expect_total(w, 2);
}

/*
 * One old libnvJitLink on LD_LIBRARY_PATH that two pip libraries need a
 * newer version of: one cause, one finding, both askers in it, and a fix
 * that names them both.
 */
static void test_symbol_version_one_cause(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	const char *lib;
	size_t i;

	NEED_CC();
	write_file(w, "jit.map", "libnvJitLink.so.12 { global: *; };\n", false);
	cc_so(w, "cuda-12.1/lib64/libnvJitLink.so.12", "int __nvJitLinkCreate_12_0(void) { return 0; }",
	      "-Wl,-soname,libnvJitLink.so.12 -Wl,--version-script,@R/jit.map");
	cc_so(w, "site/nvjitlink/lib/libnvJitLink.so.12",
	      "int __nvJitLinkCreate_12_0(void) { return 0; }\n"
	      "int __nvJitLinkAddData_12_1(void) { return 0; }\n",
	      "-Wl,-soname,libnvJitLink.so.12 -Wl,--version-script,@R/jit.map");
	cc_so(w, "site/cusparse/lib/libcusparse.so.12",
	      "int __nvJitLinkAddData_12_1(void);\n"
	      "int cusparse_go(void) { return __nvJitLinkAddData_12_1(); }\n",
	      "-Wl,-soname,libcusparse.so.12 @R/site/nvjitlink/lib/libnvJitLink.so.12 "
	      "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../../nvjitlink/lib'");
	cc_so(w, "site/cusolver/lib/libcusolver.so.11",
	      "int __nvJitLinkAddData_12_1(void);\n"
	      "int cusolver_go(void) { return __nvJitLinkAddData_12_1(); }\n",
	      "-Wl,-soname,libcusolver.so.11 @R/site/nvjitlink/lib/libnvJitLink.so.12 "
	      "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../../nvjitlink/lib'");
	write_proc(w, "h", 100, NULL, "'LD_LIBRARY_PATH':'@R/cuda-12.1/lib64'",
		   "{'ev':'open','path':'@R/site/cusparse/lib/libcusparse.so.12','lmid':0,"
		   "'soname':'libcusparse.so.12','name':'@R/site/cusparse/lib/libcusparse.so.12',"
		   "'by':'@R/bin/app','via':'direct'}\n"
		   "{'ev':'search','id':2,'name':'libnvJitLink.so.12',"
		   "'by':'@R/site/cusparse/lib/libcusparse.so.12'}\n"
		   "{'ev':'try','search':2,'path':'@R/cuda-12.1/lib64/libnvJitLink.so.12',"
		   "'via':'ld_library_path'}\n"
		   "{'ev':'open','path':'@R/cuda-12.1/lib64/libnvJitLink.so.12','lmid':0,"
		   "'soname':'libnvJitLink.so.12','search':2,'name':'libnvJitLink.so.12',"
		   "'by':'@R/site/cusparse/lib/libcusparse.so.12','via':'ld_library_path'}\n"
		   "{'ev':'open','path':'@R/site/cusolver/lib/libcusolver.so.11','lmid':0,"
		   "'soname':'libcusolver.so.11','name':'@R/site/cusolver/lib/libcusolver.so.11',"
		   "'by':'@R/bin/app','via':'direct'}\n");
	world_judge(w, NULL, 0);
	lib = "@R/cuda-12.1/lib64/libnvJitLink.so.12";
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "@R/cuda-12.1/lib64/libnvJitLink.so.12 lacks symbol versions that 2 "
			   "libraries need");
	expect_object(w, f, lib);
	assert_int_equal(f->nneeded_by, 2);
	for (i = 0; i < 2; i++)
		assert_string_equal(f->needed_by[i].how,
				    "__nvJitLinkAddData_12_1, version libnvJitLink.so.12");
	expect_fix(w, f, "take @R/cuda-12.1/lib64 off LD_LIBRARY_PATH, so that libcusparse.so.12 "
			 "and libcusolver.so.11 get @R/site/");
	for (i = 0; i < w->d.findings.n; i++)
		assert_false(w->d.findings.f[i].code == CT_F_SYMBOL_VERSION_MISSING &&
			     &w->d.findings.f[i] != f);
}

/*
 * As examples/findings/symbol-missing, in C (a C name may be a mangled
 * one): PyTorch's libc10_cuda.so in a pip layout with torch/version.py,
 * whose SetDevice takes a signed char, and an extension built against an
 * older one whose SetDevice took an int.
 */
static void build_torch_and_ext(struct world *w)
{
	cc_so(w, "site/torch/lib/libc10_cuda.so",
	      "int _ZN3c104cuda9SetDeviceEa(signed char d) { return d; }\n"
	      "int _ZN3c104cuda12device_countEv(void) { return 1; }\n",
	      "-Wl,-soname,libc10_cuda.so");
	write_file(w, "site/torch/version.py",
		   "__version__ = '2.6.0+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n", false);
	cc_so(w, "old/libc10_cuda.so", "int _ZN3c104cuda9SetDeviceEi(int d) { return d; }\n",
	      "-Wl,-soname,libc10_cuda.so");
	cc_so(w, "ext/fused_ext.so",
	      "int _ZN3c104cuda9SetDeviceEi(int);\n"
	      "int PyInit_fused_ext(void) { return _ZN3c104cuda9SetDeviceEi(0); }\n",
	      "@R/old/libc10_cuda.so");
	/* A program whose symbols can be read (the scope of a lazy lookup holds it). */
	cc_so(w, "bin/app", "int app_main(void) { return 0; }\n", "");
}

/* torch's libc10_cuda.so loaded first, as `import torch` does. */
#define TORCH_LOADED                                                            \
	"{'ev':'open','path':'@R/bin/app','main':true,'lmid':0,'soname':null}\n"   \
	"{'ev':'dlopen','api':'dlopen','name':'@R/site/torch/lib/libc10_cuda.so',"  \
	"'flags':258,'caller':'@R/bin/app'}\n"                                      \
	"{'ev':'search','id':1,'name':'@R/site/torch/lib/libc10_cuda.so',"          \
	"'by':'@R/bin/app'}\n"                                                      \
	"{'ev':'open','path':'@R/site/torch/lib/libc10_cuda.so','lmid':0,"          \
	"'soname':'libc10_cuda.so','search':1,"                                     \
	"'name':'@R/site/torch/lib/libc10_cuda.so','by':'@R/bin/app','via':'direct'}\n"

/* The extension dlopened with flags (2: RTLD_NOW, 1: RTLD_LAZY). */
#define EXT_OPENED(flags)                                                       \
	"{'ev':'dlopen','api':'dlopen','name':'@R/ext/fused_ext.so','flags':" #flags "," \
	"'caller':'@R/bin/app'}\n"                                                  \
	"{'ev':'search','id':2,'name':'@R/ext/fused_ext.so','by':'@R/bin/app'}\n"  \
	"{'ev':'open','path':'@R/ext/fused_ext.so','lmid':0,'soname':null,"         \
	"'search':2,'name':'@R/ext/fused_ext.so','by':'@R/bin/app','via':'direct'}\n"

static bool demangler_here(void)
{
	char *d = ct_demangle("_ZN3c104cuda9SetDeviceEi");
	bool ok = d && strcmp(d, "c10::cuda::SetDevice(int)") == 0;

	free(d);
	return ok;
}

static void expect_symbol_missing_cause(struct world *w, const struct ct_finding *f)
{
	expect_object(w, f, "@R/ext/fused_ext.so");
	expect_evidence(w, f, "expected from: @R/site/torch/lib/libc10_cuda.so: it defines 2 other "
			      "symbols of c10::cuda");
	expect_evidence(w, f, "it defines instead: _ZN3c104cuda9SetDeviceEa");
	expect_evidence(w, f, "PyTorch loaded: 2.6.0+cu124, CUDA 12.4 (@R/site/torch/version.py)");
	expect_fix(w, f, "rebuild fused_ext.so against the PyTorch in use (2.6.0+cu124)");
	expect_fix(w, f, "or install the build of fused_ext.so made for PyTorch 2.6.0+cu124");
}

/* At import: the dlopen fails with the loader's text. */
static void test_symbol_missing_at_load(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_torch_and_ext(w);
	write_proc(w, "h", 100, NULL, NULL,
		   TORCH_LOADED EXT_OPENED(2)
		   "{'ev':'close','path':'@R/ext/fused_ext.so'}\n"
		   "{'ev':'dlerror','text':'@R/ext/fused_ext.so: undefined symbol: "
		   "_ZN3c104cuda9SetDeviceEi'}\n"
		   "{'ev':'fini'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_MISSING, CT_SEV_ERROR,
			   demangler_here()
				   ? "'fused_ext.so' needs _ZN3c104cuda9SetDeviceEi "
				     "(c10::cuda::SetDevice(int)), which libc10_cuda.so does not define"
				   : "'fused_ext.so' needs _ZN3c104cuda9SetDeviceEi, which "
				     "libc10_cuda.so does not define");
	expect_evidence(w, f, "the program got: @R/ext/fused_ext.so: undefined symbol: "
			      "_ZN3c104cuda9SetDeviceEi");
	expect_symbol_missing_cause(w, f);
	expect_total(w, 1);
}

/* Lazily: the load succeeds, the loader ends the process at the first call (127, no exit record). */
static void test_symbol_missing_lazy(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_torch_and_ext(w);
	write_proc(w, "h", 100, NULL, NULL, TORCH_LOADED EXT_OPENED(1));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_MISSING, CT_SEV_ERROR,
			   "'fused_ext.so' needs _ZN3c104cuda9SetDeviceEi");
	expect_evidence(w, f, "the process ended without exiting: under lazy binding the loader "
			      "stops it at the first call (\"symbol lookup error: @R/ext/fused_ext.so: "
			      "undefined symbol: _ZN3c104cuda9SetDeviceEi\", exit status 127)");
	expect_symbol_missing_cause(w, f);
	expect_total(w, 1);
}

/*
 * No false alarm: a process that ended normally with a missing symbol it
 * never called; a process that died whose only missing symbol is weak; an
 * object bound at load (RTLD_NOW) that stayed loaded; an object unread in
 * the scope (it could define anything).
 */
static void test_symbol_missing_not_raised(void **state)
{
	struct world *w = *state;

	NEED_CC();
	build_torch_and_ext(w);
	cc_so(w, "ext/weak_ext.so",
	      "__attribute__((weak)) int fw_optional(void);\n"
	      "int PyInit_weak_ext(void) { return fw_optional ? fw_optional() : 0; }\n", "");
	write_proc(w, "h", 100, NULL, NULL, TORCH_LOADED EXT_OPENED(1) "{'ev':'fini'}\n");
	write_proc(w, "h", 101, NULL, NULL,
		   TORCH_LOADED
		   "{'ev':'dlopen','api':'dlopen','name':'@R/ext/weak_ext.so','flags':1,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'open','path':'@R/ext/weak_ext.so','lmid':0,'soname':null,"
		   "'name':'@R/ext/weak_ext.so','by':'@R/bin/app','via':'direct'}\n");
	write_proc(w, "h", 102, NULL, NULL, TORCH_LOADED EXT_OPENED(2));
	write_proc(w, "h", 103, NULL, NULL,
		   TORCH_LOADED EXT_OPENED(1)
		   "{'ev':'open','path':'@R/lib/gone.so','lmid':0,'soname':'gone.so',"
		   "'name':'gone.so','by':'@R/bin/app','via':'default'}\n");
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_SYMBOL_MISSING, 0);
	expect_total(w, 0);
}

/*
 * A renamed major (libcudart.so.13 copied as libcudart.so.12) fails every
 * library built for 12: one finding, naming the file as what it is, with
 * every requester; a fix that says a renamed major never works.
 */
static void test_symbol_version_renamed(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	write_file(w, "rt13.map", "libcudart.so.13 { global: *; };\n", false);
	cc_so(w, "copy/libcudart.so.12", "int cudaMalloc(void) { return 0; }",
	      "-Wl,-soname,libcudart.so.13 -Wl,--version-script,@R/rt13.map");
	write_file(w, "rt12.map", "libcudart.so.12 { global: *; };\n", false);
	cc_so(w, "cuda-12/libcudart.so.12", "int cudaMalloc(void) { return 0; }",
	      "-Wl,-soname,libcudart.so.12 -Wl,--version-script,@R/rt12.map");
	cc_so(w, "lib/libops.so", "int cudaMalloc(void); int ops(void) { return cudaMalloc(); }",
	      "-Wl,-soname,libops.so @R/cuda-12/libcudart.so.12");
	cc_so(w, "lib/libext.so", "int cudaMalloc(void); int ext(void) { return cudaMalloc(); }",
	      "-Wl,-soname,libext.so @R/cuda-12/libcudart.so.12");
	write_proc(w, "h", 100, NULL, "'LD_LIBRARY_PATH':'@R/copy'",
		   OPENED("@R/lib/libext.so", "libext.so", "@R/bin/app", "direct")
		   "{'ev':'open','path':'@R/copy/libcudart.so.12','lmid':0,'soname':'libcudart.so.13',"
		   "'name':'libcudart.so.12','by':'@R/lib/libext.so','via':'ld_library_path'}\n"
		   OPENED("@R/lib/libops.so", "libops.so", "@R/lib/libext.so", "direct"));
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_SYMBOL_VERSION_MISSING, 1);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'@R/copy/libcudart.so.12' is libcudart.so.13, CUDA 13, renamed: 2 "
			   "libraries built for libcudart.so.12 cannot use it");
	expect_object(w, f, "@R/copy/libcudart.so.12");
	expect_evidence(w, f, "its DT_SONAME is libcudart.so.13, version 13; it was loaded as "
			      "libcudart.so.12");
	expect_evidence(w, f, "libext.so needs libcudart.so.12 with version 'libcudart.so.12' "
			      "(symbol cudaMalloc)");
	expect_evidence(w, f, "libops.so needs libcudart.so.12 with version 'libcudart.so.12' "
			      "(symbol cudaMalloc)");
	expect_fix(w, f, "'@R/copy/libcudart.so.12' is a renamed libcudart.so.13, and a renamed "
			 "major never works");
	expect_fix(w, f, "take @R/copy off LD_LIBRARY_PATH");
}

/* Libraries with a version node per release, as glibc's. */
static void test_symbol_version_node_missing(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	write_file(w, "bar1.map", "FOO_1 { global: bar1; local: *; };\n", false);
	write_file(w, "bar2.map", "FOO_1 { global: bar1; local: *; };\n"
				  "FOO_2 { global: bar2; } FOO_1;\n", false);
	cc_so(w, "old/libctest-bar.so.1", "int bar1(void) { return 1; }",
	      "-Wl,-soname,libctest-bar.so.1 -Wl,--version-script,@R/bar1.map");
	cc_so(w, "sys2/libctest-bar.so.1",
	      "int bar1(void) { return 1; }\nint bar2(void) { return 2; }\n",
	      "-Wl,-soname,libctest-bar.so.1 -Wl,--version-script,@R/bar2.map");
	cc_so(w, "plain/libctest-bar.so.1",
	      "int bar1(void) { return 1; }\nint bar2(void) { return 2; }\n",
	      "-Wl,-soname,libctest-bar.so.1");
	cc_so(w, "lib/libctest-foo.so", "int bar2(void);\nint foo(void) { return bar2(); }\n",
	      "-Wl,-soname,libctest-foo.so @R/sys2/libctest-bar.so.1");
	/* The old copy, through LD_LIBRARY_PATH: FOO_2 is not there at all. */
	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'@R/lib/libctest-foo.so','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   OPENED("@R/lib/libctest-foo.so", "libctest-foo.so", "@R/bin/app", "direct")
		   OPENED("@R/old/libctest-bar.so.1", "libctest-bar.so.1", "@R/lib/libctest-foo.so",
			  "ld_library_path")
		   "{'ev':'dlerror','text':'@R/old/libctest-bar.so.1: version `FOO_2\\u0027 not "
		   "found "
		   "(required by @R/lib/libctest-foo.so)'}\n");
	/* The copy that has it. */
	write_proc(w, "h", 101, NULL, NULL,
		   OPENED("@R/lib/libctest-foo.so", "libctest-foo.so", "@R/bin/app", "direct")
		   OPENED("@R/sys2/libctest-bar.so.1", "libctest-bar.so.1", "@R/lib/libctest-foo.so",
			  "default"));
	/* A copy without version definitions: the loader only warns. */
	write_proc(w, "h", 102, NULL, NULL,
		   OPENED("@R/lib/libctest-foo.so", "libctest-foo.so", "@R/bin/app", "direct")
		   OPENED("@R/plain/libctest-bar.so.1", "libctest-bar.so.1",
			  "@R/lib/libctest-foo.so", "ld_library_path"));
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'libctest-foo.so' needs libctest-bar.so.1 with version 'FOO_2'");
	assert_non_null(strstr(f->message, "which "));
	expect_object(w, f, "@R/old/libctest-bar.so.1");
	assert_true(contains(w, f->message, "@R/old/libctest-bar.so.1 lacks"));
	expect_evidence(w, f, "the loader says: version `FOO_2' not found (required by "
			      "@R/lib/libctest-foo.so)");
	expect_evidence(w, f, "the program got: @R/old/libctest-bar.so.1: version `FOO_2' not found");
	/* The copy in a default directory of the machine has it. */
	expect_fix(w, f, "take @R/old off LD_LIBRARY_PATH, so that libctest-foo.so gets "
			 "@R/sys2/libctest-bar.so.1 (default directory, later in the order)");
	assert_int_equal(f->where[0].pid, 100);
	expect_clean(w, 101);
	expect_clean(w, 102);
	expect_total(w, 1);
}

/*
 * A version of glibc's that the C library the process has lacks (NCCL
 * 2.22 from Debian 13 needs GLIBC_2.38; Debian 12 has 2.36): the fix is a
 * build of the requester for this glibc, never another libc.so.6, not
 * even one that has it (a C library apart from the loader's breaks every
 * program).
 */
static void test_symbol_version_glibc(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	write_file(w, "libc36.map", "GLIBC_2.2.5 { global: f225; local: *; };\n"
				     "GLIBC_2.36 { global: f236; } GLIBC_2.2.5;\n"
				     "GLIBC_PRIVATE { global: fpriv; } GLIBC_2.36;\n", false);
	write_file(w, "libc38.map", "GLIBC_2.2.5 { global: f225; local: *; };\n"
				     "GLIBC_2.38 { global: f238; } GLIBC_2.2.5;\n", false);
	cc_so(w, "sys1/libc.so.6", "int f225(void) { return 0; }\nint f236(void) { return 0; }\n"
				   "int fpriv(void) { return 0; }\n",
	      "-nostdlib -Wl,-soname,libc.so.6 -Wl,--version-script,@R/libc36.map");
	cc_so(w, "sys2/libc.so.6", "int f225(void) { return 0; }\nint f238(void) { return 0; }\n",
	      "-nostdlib -Wl,-soname,libc.so.6 -Wl,--version-script,@R/libc38.map");
	cc_so(w, "nccl/libnccl.so.2", "int f238(void);\nint nccl(void) { return f238(); }\n",
	      "-Wl,-soname,libnccl.so.2 @R/sys2/libc.so.6");
	write_proc(w, "h", 100, NULL, NULL,
		   OPENED("@R/sys1/libc.so.6", "libc.so.6", "@R/bin/app", "default")
		   "{'ev':'dlopen','api':'dlopen','name':'@R/nccl/libnccl.so.2','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   OPENED("@R/nccl/libnccl.so.2", "libnccl.so.2", "@R/bin/app", "direct")
		   "{'ev':'dlerror','text':'@R/sys1/libc.so.6: version `GLIBC_2.38\\u0027 not found "
		   "(required by @R/nccl/libnccl.so.2)'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'libnccl.so.2' needs libc.so.6 with version 'GLIBC_2.38' (symbol f238), "
			   "which @R/sys1/libc.so.6 lacks");
	expect_fix(w, f, "libnccl.so.2 needs GLIBC_2.38 of the C library, which comes with the "
			 "distribution and is not replaced for one program (this system's libc.so.6 "
			 "defines up to GLIBC_2.36): use a build of libnccl.so.2 made for glibc 2.36 "
			 "or older: your distribution's own package of it, or a manylinux wheel "
			 "tagged manylinux_2_36 or lower");
	if (contains(w, f->fix, "@R/sys2") || contains(w, f->fix, "install a libc")) {
		print_findings(w);
		fail_msg("another libc.so.6 offered as the fix");
	}
	expect_total(w, 1);
}

/* ---- device code ------------------------------------------------------------ */

/*
 * Two libraries loaded: one with sm_80 SASS and compute_80 PTX (of ISA 9.0:
 * generate.sh builds it with CUDA 13), one with no device code.
 */
#define LOAD_CODE                                                              \
	OPENED("@F/sm80-ptx80.so", "sm80-ptx80.so", "@R/bin/app", "direct")            \
	OPENED("@F/nodevice.so", "nodevice.so", "@R/bin/app", "direct")

/* A driver for CUDA version with one GPU of compute capability cc. */
static void gpu_proc(struct world *w, int pid, int version, const char *cc, const char *name)
{
	char *records;

	assert_true(asprintf(&records,
			     LOAD_CODE "{'ev':'cuinit','result':0,'caller':'@R/bin/app'}\n"
				       "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':%d,"
				       "'init':0,'devices':[{'index':0,'name':'%s','cc':'%s',"
				       "'uuid':'GPU-0'}]}\n",
			     version, name, cc) > 0);
	write_proc(w, "h", pid, NULL, NULL, records);
	free(records);
}

static void test_device_code_from_trace(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	char *path = expand(w, "@F/sm80-ptx80.so", false), *none = expand(w, "@F/nodevice.so", false);

	/* A T4 (7.5): neither sm_80 SASS nor compute_80 PTX runs there. */
	gpu_proc(w, 100, 13000, "7.5", "Tesla T4");
	world_judge(w, NULL, 0);
	assert_true(w->d.targets_from_trace);
	assert_int_equal(w->d.ntargets, 1);
	assert_string_equal(w->d.target_names[0], "sm_75 (Tesla T4)");
	assert_non_null(ct_diagnosis_code(&w->d, path));
	assert_null(ct_diagnosis_code(&w->d, none));
	f = expect_finding(w, CT_F_NO_KERNEL_IMAGE, CT_SEV_ERROR,
			   "'sm80-ptx80.so' has no kernel image for sm_75 (Tesla T4)");
	expect_object(w, f, "@F/sm80-ptx80.so");
	expect_evidence(w, f, "@F/sm80-ptx80.so holds: sass sm_80, ptx compute_80");
	expect_evidence(w, f, "kernel launches fail with \"no kernel image is available");
	expect_fix(w, f, "rebuild sm80-ptx80.so with -gencode arch=compute_75,code=sm_75 "
			 "(CMake: CMAKE_CUDA_ARCHITECTURES=75)");
	expect_total(w, 1);

	/* An H100 (9.0) with a driver for CUDA 13.0: the PTX runs, JIT-compiled. */
	reset(w);
	gpu_proc(w, 101, 13000, "9.0", "NVIDIA H100 80GB HBM3");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_PTX_JIT_ONLY, CT_SEV_WARNING,
			   "'sm80-ptx80.so' runs on sm_90 (NVIDIA H100 80GB HBM3) only by "
			   "JIT-compiling compute_80 PTX at first launch");
	expect_object(w, f, "@F/sm80-ptx80.so");
	expect_evidence(w, f, "@F/sm80-ptx80.so holds: sass sm_80, ptx compute_80");
	expect_evidence(w, f, "~/.nv/ComputeCache");
	expect_fix(w, f, "add SASS for 9.0 with -gencode arch=compute_90,code=sm_90");
	expect_total(w, 1);

	/*
	 * The same H100 with a driver for CUDA 12.4: PTX ISA 9.0 is too new
	 * for its JIT (minor-version compatibility stops at PTX).
	 */
	reset(w);
	gpu_proc(w, 102, 12040, "9.0", "NVIDIA H100 80GB HBM3");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_PTX_TOO_NEW, CT_SEV_ERROR,
			   "'sm80-ptx80.so' can run on sm_90 (NVIDIA H100 80GB HBM3) only through "
			   "compute_80 PTX of ISA 9.0, newer than the driver (CUDA 12.4) compiles");
	expect_object(w, f, "@F/sm80-ptx80.so");
	expect_evidence(w, f, "@F/sm80-ptx80.so holds: sass sm_80, ptx compute_80");
	expect_evidence(w, f, "PTX ISA 9.0 needs a driver for CUDA 13.0 (Linux 580.65.06 or newer)");
	expect_evidence(w, f, "(222)");
	expect_fix(w, f, "upgrade the driver (to CUDA 13.0 or later), or rebuild sm80-ptx80.so "
			 "with SASS for 9.0");
	expect_count(w, CT_F_PTX_JIT_ONLY, 0);
	expect_total(w, 1);

	/* An A100 (8.0) and an 8.6 runs the sm_80 SASS: nothing to say. */
	reset(w);
	gpu_proc(w, 103, 11080, "8.0", "NVIDIA A100");
	gpu_proc(w, 104, 11080, "8.6", "NVIDIA A10");
	world_judge(w, NULL, 0);
	assert_int_equal(w->d.ntargets, 2);
	expect_total(w, 0);

	/* No GPU recorded and none given: device code is not judged. */
	reset(w);
	write_proc(w, "h", 105, NULL, NULL, LOAD_CODE);
	world_judge(w, NULL, 0);
	assert_int_equal(w->d.ntargets, 0);
	assert_false(w->d.targets_from_trace);
	assert_true(ct_diagnosis_has_code(&w->d));
	expect_total(w, 0);
	free(path);
	free(none);
}

static void test_device_code_targets_given(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	struct elfscan_target tg[2];

	/* The trace's A100 runs it; --arch sm_75 is judged instead. */
	gpu_proc(w, 100, 13000, "8.0", "NVIDIA A100");
	assert_int_equal(elfscan_target_parse("sm_75", &tg[0]), 0);
	world_judge(w, tg, 1);
	assert_false(w->d.targets_from_trace);
	assert_int_equal(w->d.ntargets, 1);
	assert_string_equal(w->d.target_names[0], "sm_75");
	f = expect_finding(w, CT_F_NO_KERNEL_IMAGE, CT_SEV_ERROR,
			   "'sm80-ptx80.so' has no kernel image for sm_75");
	expect_fix(w, f, "-gencode arch=compute_75,code=sm_75");
	expect_total(w, 1);

	/* sm_90 and sm_86 given, no GPU and no driver in the trace: JIT, no version to judge. */
	reset(w);
	write_proc(w, "h", 101, NULL, NULL, LOAD_CODE);
	assert_int_equal(elfscan_target_parse("sm_90", &tg[0]), 0);
	assert_int_equal(elfscan_target_parse("8.6", &tg[1]), 0);
	world_judge(w, tg, 2);
	assert_int_equal(w->d.ntargets, 2);
	f = expect_finding(w, CT_F_PTX_JIT_ONLY, CT_SEV_WARNING,
			   "'sm80-ptx80.so' runs on sm_90 only by JIT-compiling compute_80 PTX");
	expect_total(w, 1);

	/* A Volta (7.0): CUDA 13's nvcc cannot build for it; the fix names the last that can. */
	reset(w);
	write_proc(w, "h", 102, NULL, NULL, LOAD_CODE);
	assert_int_equal(elfscan_target_parse("sm_70", &tg[0]), 0);
	world_judge(w, tg, 1);
	f = expect_finding(w, CT_F_NO_KERNEL_IMAGE, CT_SEV_ERROR,
			   "'sm80-ptx80.so' has no kernel image for sm_70");
	expect_fix(w, f, "rebuild sm80-ptx80.so with CUDA 12.9 or older (CUDA 13.0 and later "
			 "cannot build for 7.0): -gencode arch=compute_70,code=sm_70 "
			 "(CMake: CMAKE_CUDA_ARCHITECTURES=70)");
	expect_total(w, 1);
}

static void test_module_loads(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'cuinit','result':0,'caller':'@R/bin/drvplt'}\n"
		   "{'ev':'driver','path':'@R/drv/libcuda.so.1','version':12040,'init':0,"
		   "'devices':[{'index':0,'name':'Tesla T4','cc':'7.5','uuid':'GPU-0'}]}\n"
		   "{'ev':'module','api':'cuModuleLoadData','result':209,'caller':'@R/bin/drvplt',"
		   "'image_count':1,'images':[{'kind':'sass','arch':'sm_90a'}]}\n"
		   "{'ev':'module','api':'cuModuleLoadData','result':222,'caller':'@R/bin/drvplt',"
		   "'image_count':1,'images':[{'kind':'ptx','arch':'compute_89',"
		   "'ptx_version':'9.0'}]}\n"
		   "{'ev':'module','api':'cuModuleLoad','result':223,'caller':'@R/bin/drvplt',"
		   "'file':'@R/k.ptx'}\n"
		   "{'ev':'module','api':'cuModuleLoadData','result':0,'caller':'@R/bin/drvplt',"
		   "'images':[{'kind':'sass','arch':'sm_75'}]}\n"
		   "{'ev':'module','api':'cuModuleLoadData','result':1,'caller':'@R/bin/drvplt'}\n"
		   "{'ev':'register','caller':'@R/bin/drvplt','wrapper_version':1,"
		   "'images':[{'kind':'sass','arch':'sm_90a'}]}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_NO_KERNEL_IMAGE, CT_SEV_ERROR,
			   "cuModuleLoadData by 'drvplt' failed: no kernel image is available for "
			   "execution on the device (209)");
	expect_object(w, f, "@R/bin/drvplt");
	expect_evidence(w, f, "the image holds: sm_90a");
	expect_evidence(w, f, "driver: @R/drv/libcuda.so.1, supports CUDA 12.4");
	expect_fix(w, f, "rebuild the code drvplt loads for sm_75 (Tesla T4) with "
			 "-gencode arch=compute_75,code=sm_75");
	f = expect_finding(w, CT_F_PTX_TOO_NEW, CT_SEV_ERROR,
			   "cuModuleLoadData by 'drvplt' failed: the provided PTX was compiled with "
			   "an unsupported toolchain (222)");
	expect_evidence(w, f, "the image holds: compute_89");
	expect_fix(w, f, "upgrade the driver, or ship SASS for the GPU");
	f = expect_finding(w, CT_F_NO_KERNEL_IMAGE, CT_SEV_ERROR, "cuModuleLoad by 'drvplt' failed");
	expect_evidence(w, f, "file: @R/k.ptx");
	expect_evidence(w, f, "the image holds: (not read)");
	expect_fix(w, f, "PTX JIT is disabled");
	/* Success, other errors and registrations say nothing. */
	expect_total(w, 3);
}

/* ---- trace-incomplete ------------------------------------------------------- */

static void test_trace_incomplete(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_proc(w, "h", 300, NULL, NULL,
		   "{'ev':'exec','api':'execve','path':'@R/bin/hello-static','traced':false,"
		   "'untraced':'static'}\n"
		   "{'ev':'exec','api':'execvp','path':'@R/bin/hello','traced':false,"
		   "'untraced':'environment'}\n"
		   "{'ev':'exec','api':'execve','path':'@R/bin/su','traced':false,"
		   "'untraced':'setuid'}\n"
		   "{'ev':'dropped','records':3}\n"
		   "{'ev':'exec','api':'execve','path':'@R/bin/next','traced':true,'auditor':false}\n");
	/* What that last exec started: the parent's finding says it already. */
	write_file(w, "trace/h-300-00000000000000ff.jsonl",
		   "{'ev':'start','t':5000,'tid':300,'v':1,'pid':300,'ppid':1,'host':'h',"
		   "'image':'00000000000000ff','auditor':false,'secure':false,"
		   "'exe':'@R/bin/next','argv':['next'],'ranks':{},'env':{}}\n",
		   true);
	/* A process without the auditor, on its own. */
	write_file(w, "trace/h-301-0000000000000a01.jsonl",
		   "{'ev':'start','t':900,'tid':301,'v':1,'pid':301,'ppid':1,'host':'h',"
		   "'image':'0000000000000a01','auditor':false,'secure':false,"
		   "'exe':'@R/bin/own-audit','argv':['own-audit'],'ranks':{},'env':{}}\n",
		   true);
	/* A set-user-ID process: the loader drops the auditor by design. */
	write_file(w, "trace/h-302-0000000000000a02.jsonl",
		   "{'ev':'start','t':901,'tid':302,'v':1,'pid':302,'ppid':1,'host':'h',"
		   "'image':'0000000000000a02','auditor':false,'secure':true,"
		   "'exe':'@R/bin/suid','argv':['suid'],'ranks':{},'env':{}}\n",
		   true);
	/* A damaged file: a junk line, and a last line cut short. */
	write_file(w, "trace/h-303-0000000000000a03.jsonl",
		   "{'ev':'start','t':902,'tid':303,'v':1,'pid':303,'ppid':1,'host':'h',"
		   "'image':'0000000000000a03','auditor':true,'secure':false,"
		   "'exe':'@R/bin/app','argv':['app'],'ranks':{},'env':{}}\n"
		   "this is no record\n"
		   "{'ev':'open','path':'@R/bin/ap",
		   true);
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "'hello-static' is statically linked: no loader runs, nothing to trace");
	expect_object(w, f, "@R/bin/hello-static");
	expect_evidence(w, f, "execve of @R/bin/hello-static by app --run");
	expect_fix(w, f, "cudatrace check --arch ARCH @R/bin/hello-static");
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "'hello' was started with an environment that drops the cudatrace shim, "
			   "so it was not traced");
	expect_evidence(w, f, "execvp of @R/bin/hello by app --run");
	expect_fix(w, f, "keep LD_AUDIT, LD_PRELOAD, CUDATRACE_DIR and CUDATRACE_RUN in the environment");
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "'su' runs set-user-ID: the loader ignores LD_AUDIT and LD_PRELOAD");
	expect_fix(w, f, "cudatrace ldd @R/bin/su");
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "3 trace records could not be written");
	expect_fix(w, f, "ulimit -n");
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "'next' was started without cudatrace's auditor in LD_AUDIT");
	assert_int_equal(f->where[0].pid, 300);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "the loader did not run cudatrace's auditor (LD_AUDIT)");
	/* Only process 301's: 300's exec said it, 302 is set-user-ID. */
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 301);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "the trace file 'h-303-0000000000000a03.jsonl' is damaged: 1 unreadable "
			   "line, the last one cut short");
	expect_object(w, f, "@R/trace/h-303-0000000000000a03.jsonl");
	expect_clean(w, 302);
	expect_count(w, CT_F_TRACE_INCOMPLETE, 7);
	expect_total(w, 7);
}

/*
 * A search the trace holds no answer to is no miss (issue 25, points 6
 * and 7): a process whose trace ends between the loader's candidates and
 * its answer after main (killed while loading, or its trace stopped), and
 * one whose records were lost after the search (the disk filled). Said as
 * trace-incomplete instead; the loader's own failure at start-up (the
 * trace ends with the search, before main) stays a miss.
 */
static void test_search_without_answer(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	/* After main: a dlopen whose search never got its answer. */
	write_proc(w, "h", 400, NULL, NULL,
		   "{'ev':'main','tid':0}\n"
		   "{'ev':'dlopen','tid':0,'api':'dlopen','name':'libctest-gone.so','flags':2,"
		   "'caller':'@R/bin/app'}\n" NEEDED_MISS(1, "libctest-gone.so"));
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_LIB_NOT_FOUND, 0);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "the trace ends during the loader's search for 'libctest-gone.so': "
			   "whether it was found is not known");
	expect_evidence(w, f, "the trace stops here without an exit record");
	expect_evidence(w, f, "dlopen by app; candidates tried before the end: 2");
	expect_fix(w, f, "cudatrace why libctest-gone.so --from @R/bin/app");
	expect_total(w, 1);

	/* The same, then another thread exits: the dlopen returned, the miss is known. */
	reset(w);
	write_proc(w, "h", 401, NULL, NULL,
		   "{'ev':'main','tid':0}\n" NEEDED_MISS(1, "libctest-gone.so")
		   "{'ev':'exit','tid':7,'api':'exit','status':1}\n");
	world_judge(w, NULL, 0);
	expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR, "'libctest-gone.so' was not found");
	expect_count(w, CT_F_TRACE_INCOMPLETE, 0);

	/* Before main, the trace ending with the search: the loader gave up. */
	reset(w);
	write_proc(w, "h", 402, NULL, NULL, NEEDED_MISS(1, "libctest-gone.so"));
	world_judge(w, NULL, 0);
	expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR, "'libctest-gone.so' was not found");

	/* Records lost after the search (tracing stopped: disk full): its open may be among them. */
	reset(w);
	write_proc(w, "h", 403, NULL, NULL,
		   NEEDED_MISS(1, "libctest-gone.so")
		   "{'ev':'dropped','tid':0,'records':1,'stopped':true,'errno':28}\n");
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_LIB_NOT_FOUND, 0);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "tracing stopped before the process ended: the disk of the trace folder "
			   "is full (No space left on device)");
	expect_evidence(w, f, "the answer to 1 library search may be among the lost records: "
			      "'libctest-gone.so'; no lib-not-found or driver-missing is made of it");
	expect_total(w, 1);

	/* Records lost before the search say nothing of it: still a miss. */
	reset(w);
	write_proc(w, "h", 404, NULL, NULL,
		   "{'ev':'dropped','tid':0,'records':2}\n" NEEDED_MISS(1, "libctest-gone.so"));
	world_judge(w, NULL, 0);
	expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR, "'libctest-gone.so' was not found");
	expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
		       "2 trace records could not be written");

	/* The driver's search, lost the same way: no driver-missing either. */
	reset(w);
	write_proc(w, "h", 405, NULL, NULL,
		   "{'ev':'main','tid':0}\n" NEEDED_MISS(1, "libcuda.so.1")
		   "{'ev':'dropped','tid':3,'records':4}\n");
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_DRIVER_MISSING, 0);
	expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
		       "4 trace records could not be written");
}

/*
 * cudatrace run started a static program: no trace file, only the run
 * record, which stands for the process; the same finding, message and fix
 * as when a traced process starts it.
 */
static void test_trace_incomplete_static_run(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_file(w, "trace/h-4000.run.json",
		   "{'ev':'run','run':'00112233aabbccdd','host':'h','command':'@R/bin/hello-static',"
		   "'argv':['./hello-static','-x'],'shim':'/x/libcudatrace.so','pid':4001,"
		   "'t':700,'exit':3,'untraced':'static','seconds':0.001}",
		   true);
	/* An older cudatrace's run record: nothing to make a process of. */
	write_file(w, "trace/h-4100.run.json",
		   "{'ev':'run','run':'00112233aabbccee','host':'h','command':'/bin/true',"
		   "'argv':['true'],'exit':0,'seconds':0.001}",
		   true);
	/* And one that is no run record at all. */
	write_file(w, "trace/h-4200.run.json", "{'ev':'start','pid':4201}", true);
	world_judge(w, NULL, 0);
	assert_int_equal(w->t.nprocs, 1);
	assert_int_equal(w->t.procs[0].pid, 4001);
	assert_string_equal(w->t.procs[0].untraced, "static");
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "'hello-static' is statically linked: no loader runs, nothing to trace");
	expect_object(w, f, "@R/bin/hello-static");
	expect_evidence(w, f, "started by cudatrace run: @R/bin/hello-static");
	expect_fix(w, f, "it loads no library at run time: see the CUDA it carries with: "
			 "cudatrace scan @R/bin/hello-static");
	expect_fix(w, f, "cudatrace check --arch ARCH @R/bin/hello-static");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 4001);
	assert_string_equal(f->where[0].program, "hello-static -x");
	expect_total(w, 1);
}

/* ---- grouping ------------------------------------------------------------- */

static void test_grouping(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	const char *hosts[] = { "node-a", "node-a", "node-b", "node-b" };
	const int pids[] = { 500, 501, 500, 501 };
	bool rank_seen[4] = { false };
	size_t i;

	/*
	 * Four ranks on two hosts (the same pids on both) miss the same
	 * library; rank 3 misses another one too; rank 0 lost records first.
	 */
	for (i = 0; i < 4; i++) {
		char rank[4];

		snprintf(rank, sizeof(rank), "%zu", i);
		write_proc(w, hosts[i], pids[i], rank, NULL,
			   i == 0 ? "{'ev':'dropped','records':1}\n" NEEDED_MISS(1, "libctest-gone.so")
			   : i == 3 ? NEEDED_MISS(1, "libctest-gone.so") NEEDED_MISS(2, "libctest-other.so")
				    : NEEDED_MISS(1, "libctest-gone.so"));
	}
	world_judge(w, NULL, 0);
	assert_int_equal(w->t.nprocs, 4);
	expect_total(w, 3);
	/* Errors first, in the order first seen; then the warning. */
	f = &w->d.findings.f[0];
	assert_int_equal(f->code, CT_F_LIB_NOT_FOUND);
	assert_true(contains(w, f->message, "'libctest-gone.so' was not found"));
	assert_int_equal(f->nwhere, 4);
	for (i = 0; i < f->nwhere; i++) {
		int r = atoi(f->where[i].rank);

		assert_non_null(f->where[i].rank);
		assert_in_range(r, 0, 3);
		assert_false(rank_seen[r]);
		rank_seen[r] = true;
		assert_string_equal(f->where[i].host, hosts[r]);
		assert_int_equal(f->where[i].pid, pids[r]);
		assert_string_equal(f->where[i].program, "app --run");
	}
	expect_where(f, "4 ranks on 2 hosts");
	/* Its evidence is that of the first, once. */
	expect_evidence(w, f, "tried, in order:");
	assert_true(f->nevidence <= 6);
	f = &w->d.findings.f[1];
	assert_int_equal(f->code, CT_F_LIB_NOT_FOUND);
	assert_true(contains(w, f->message, "'libctest-other.so' was not found"));
	/* On two hosts a pid (and a rank number) is on both: the host said (issue 36 point 2). */
	expect_where(f, "rank 3 on node-b (process 501)");
	f = &w->d.findings.f[2];
	assert_int_equal(f->code, CT_F_TRACE_INCOMPLETE);
	expect_where(f, "rank 0 on node-a (process 500)");
	assert_string_equal(f->where[0].host, "node-a");

	/* Without ranks: processes, on one host (named: the trace spans three) or on two. */
	reset(w);
	write_proc(w, "node-a", 600, NULL, NULL, NEEDED_MISS(1, "libctest-gone.so"));
	write_proc(w, "node-a", 601, NULL, NULL, NEEDED_MISS(1, "libctest-gone.so"));
	write_proc(w, "node-b", 602, NULL, NULL, "{'ev':'dropped','records':2}\n");
	write_proc(w, "node-c", 603, NULL, NULL, "{'ev':'dropped','records':2}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 2);
	expect_where(expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR, "libctest-gone.so"),
		     "2 processes on node-a");
	expect_where(expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
				    "2 trace records could not be written"),
		     "2 processes on 2 hosts");

	/* The same name missed by two objects in two processes: one cause, one finding. */
	reset(w);
	write_proc(w, "h", 700, NULL, NULL, NEEDED_MISS(1, "libctest-gone.so"));
	write_proc(w, "h", 701, NULL, NULL,
		   "{'ev':'search','id':1,'name':'libctest-gone.so','by':'@R/bin/other'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libctest-gone.so','via':'default'}\n");
	world_judge(w, NULL, 0);
	expect_total(w, 1);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-gone.so' was not found (needed by 2 objects)");
	assert_int_equal(f->nneeded_by, 2);
	expect_where(f, "2 processes");
}

/* ---- regressions ------------------------------------------------------------------ */

/* A failed RTLD_NOLOAD probe must not hide the real dlopen's failure of the same name. */
static void test_probe_then_real_miss(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'libcublas.so.12','flags':6,'noload':true,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':1,'name':'libcublas.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':1,'path':'@R/sys1/libcublas.so.12','via':'default'}\n"
		   "{'ev':'dlopen','api':'dlopen','name':'libcublas.so.12','flags':2,"
		   "'caller':'@R/bin/app'}\n"
		   "{'ev':'search','id':2,'name':'libcublas.so.12','by':'@R/bin/app'}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libcublas.so.12','via':'default'}\n"
		   "{'ev':'dlerror','text':'libcublas.so.12: cannot open shared object file: No "
		   "such file or directory'}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR, "'libcublas.so.12' was not found");
	expect_evidence(w, f, "the program got: libcublas.so.12: cannot open shared object file");
	expect_total(w, 1);
}

/*
 * A trace judged on another machine, where its files are not: one
 * library opened, closed and opened again (same path), or under two names
 * of one file (the trace's dev/ino), is one copy, not two versions.
 */
static void test_same_library_elsewhere(void **state)
{
	struct world *w = *state;

	write_proc(w, "h", 100, NULL, NULL,
		   "{'ev':'open','path':'/gone/lib/libcudart.so.13','lmid':0,'soname':'libcudart.so.13',"
		   "'name':'libcudart.so.13','by':'@R/bin/app','via':'runpath','dev':64769,'ino':77}\n"
		   "{'ev':'close','path':'/gone/lib/libcudart.so.13','lmid':0}\n"
		   "{'ev':'open','path':'/gone/lib/libcudart.so.13','lmid':0,'soname':'libcudart.so.13',"
		   "'name':'libcudart.so.13','by':'@R/bin/app','via':'runpath','dev':64769,'ino':77}\n"
		   "{'ev':'open','path':'/gone/lib64/libcudart.so.13','lmid':0,"
		   "'soname':'libcudart.so.13','name':'/gone/lib64/libcudart.so.13',"
		   "'by':'@R/bin/app','via':'direct','dev':64769,'ino':77}\n");
	/* Two files of one major: two copies, whatever stat says here. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'open','path':'/gone/a/libcudart.so.13','lmid':0,'soname':'libcudart.so.13',"
		   "'name':'libcudart.so.13','by':'@R/bin/app','via':'runpath','dev':64769,'ino':77}\n"
		   "{'ev':'open','path':'/gone/b/libcudart.so.13','lmid':0,"
		   "'soname':'libcudart.so.13','name':'/gone/b/libcudart.so.13',"
		   "'by':'@R/bin/app','via':'direct','dev':64769,'ino':78}\n");
	world_judge(w, NULL, 0);
	expect_clean(w, 100);
	expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING, "two versions of libcudart");
	expect_total(w, 1);
}

/* ---- searches that cannot stop a program (issue 9, point 5) ------------------------ */

/* A search of name by by, tried in sys1 only, that found nothing. */
#define MISS(id, name, by)                                                     \
	"{'ev':'search','id':" #id ",'name':'" name "','by':'" by "'}\n"               \
	"{'ev':'try','search':" #id ",'path':'@R/sys1/" name "','via':'default'}\n"

/*
 * What glibc 2.36 does with each kind of search that misses (checked with
 * these same libraries by tests/hostile/diag-search-kinds): a DT_AUXILIARY
 * entry is skipped, a DT_FILTER entry fails the load as a DT_NEEDED one
 * does, an LD_PRELOAD entry is skipped with a warning, and the C library's
 * own dlopen calls (no dynamic section names them) are its business.
 */
static void test_lib_not_found_search_kinds(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	/* libnvtx3interop.so.1 of CUDA 13 has DT_AUXILIARY 'visibility=hidden'. */
	cc_so(w, "lib/libctest-aux.so", "int aux(void) { return 0; }",
	      "-Wl,-soname,libctest-aux.so -Wl,-f,visibility=hidden -Wl,-f,libcuda.so.1");
	cc_so(w, "lib/libctest-filt.so", "int filt(void) { return 0; }",
	      "-Wl,-soname,libctest-filt.so -Wl,-F,libctest-filtee.so");
	cc_so(w, "lib/libctest-dep.so", "int dep(void) { return 0; }",
	      "-Wl,-soname,libctest-dep.so");
	cc_so(w, "lib/libctest-top.so", "int top(void) { return 0; }",
	      "-Wl,-soname,libctest-top.so -Wl,--no-as-needed @R/lib/libctest-dep.so");
	write_proc(w, "h", 100, NULL,
		   "'LD_PRELOAD':'/x/libcudatrace.so:libctest-pre.so libcublas.so.11'",
		   "{'ev':'open','path':'@R/bin/app','lmid':0,'soname':null,'main':true}\n"
		   /* Two preloads the loader skipped: only the CUDA one is worth a note. */
		   MISS(1, "libctest-pre.so", "@R/bin/app")
		   MISS(2, "libcublas.so.11", "@R/bin/app")
		   /* Optional: nothing, and no driver-missing for its libcuda.so.1. */
		   OPENED("@R/lib/libctest-aux.so", "libctest-aux.so", "@R/bin/app", "runpath")
		   MISS(3, "visibility=hidden", "@R/lib/libctest-aux.so")
		   MISS(4, "libcuda.so.1", "@R/lib/libctest-aux.so")
		   /* The C library's own dlopen (NSS): not the program's loss. */
		   MISS(5, "libnss_ctest.so.2", "@R/lib/libctest-aux.so")
		   /* Required: the filter's filtee. */
		   OPENED("@R/lib/libctest-filt.so", "libctest-filt.so", "@R/bin/app", "runpath")
		   MISS(6, "libctest-filtee.so", "@R/lib/libctest-filt.so"));
	/* A DT_NEEDED entry of a library that a dlopen brought: the dlopen fails. */
	write_proc(w, "h", 101, NULL, NULL,
		   "{'ev':'dlopen','api':'dlopen','name':'@R/lib/libctest-top.so','flags':2,"
		   "'caller':'@R/bin/app','t':5,'tid':101}\n"
		   "{'ev':'search','id':1,'name':'@R/lib/libctest-top.so','by':'@R/bin/app',"
		   "'t':6,'tid':101}\n"
		   "{'ev':'open','path':'@R/lib/libctest-top.so','lmid':0,'soname':'libctest-top.so',"
		   "'search':1,'name':'@R/lib/libctest-top.so','by':'@R/bin/app','via':'direct',"
		   "'t':7,'tid':101}\n"
		   "{'ev':'search','id':2,'name':'libctest-dep.so','by':'@R/lib/libctest-top.so',"
		   "'t':8,'tid':101}\n"
		   "{'ev':'try','search':2,'path':'@R/sys1/libctest-dep.so','via':'default',"
		   "'t':9,'tid':101}\n"
		   "{'ev':'close','path':'@R/lib/libctest-top.so','t':10,'tid':101}\n"
		   "{'ev':'dlerror','text':'libctest-dep.so: cannot open shared object file: No such "
		   "file or directory','t':11,'tid':101}\n");
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-filtee.so' was not found (filter library of libctest-filt.so)");
	expect_object(w, f, "@R/lib/libctest-filt.so");
	expect_evidence(w, f, "libctest-filt.so is a filter (DT_FILTER) for libctest-filtee.so");
	expect_evidence(w, f, "the loader stops the program: \"error while loading shared "
			      "libraries: libctest-filtee.so: cannot open shared object file\"");
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_INFO,
			   "'libcublas.so.11' from LD_PRELOAD was not found: the loader ignored it");
	expect_object(w, f, "@R/bin/app");
	expect_evidence(w, f, "the loader said: \"ERROR: ld.so: object 'libcublas.so.11' from "
			      "LD_PRELOAD cannot be preloaded (cannot open shared object file): "
			      "ignored.\"");
	expect_fix(w, f, "LD_PRELOAD");
	f = expect_finding(w, CT_F_LIB_NOT_FOUND, CT_SEV_ERROR,
			   "'libctest-dep.so' was not found (needed by libctest-top.so)");
	expect_evidence(w, f, "the dlopen of @R/lib/libctest-top.so by app fails with it");
	expect_evidence(w, f, "the program got: libctest-dep.so: cannot open shared object file");
	for (size_t i = 0; i < f->nevidence; i++)
		assert_null(strstr(f->evidence[i], "stops the program"));
	expect_count(w, CT_F_DRIVER_MISSING, 0);
	expect_total(w, 3);
}

/* ---- a fork's inherited link map (issue 9, point 6) -------------------------------- */

/*
 * One process image's start record: pid, its parent, the image id (a
 * fork shares its parent's) and the start time t.
 */
static void write_image(struct world *w, int pid, int ppid, const char *image, int t,
			const char *records)
{
	char name[128], *text;

	snprintf(name, sizeof(name), "trace/h-%d-%s.jsonl", pid, image);
	w->nfiles++;
	assert_true(asprintf(&text,
			     "{'ev':'start','t':%d,'tid':%d,'v':1,'shim':'0.1.0','pid':%d,'ppid':%d,"
			     "'host':'h','image':'%s','auditor':true,'exe':'@R/bin/app',"
			     "'cwd':'@R','uid':1000,'euid':1000,'secure':false,"
			     "'argv':['@R/bin/app','--run'],'ranks':{},'env':{}}\n%s",
			     t, pid, pid, ppid, image, records) > 0);
	write_file(w, name, text, true);
	free(text);
}

/* An object opened at time t. */
#define OPEN_AT(path, soname, t)                                               \
	"{'ev':'open','t':" #t ",'path':'" path "','lmid':0,'soname':'" soname "',"    \
	"'name':'" soname "','by':'@R/bin/app','via':'default'}\n"

/*
 * As glibc 2.34 and later are made: a library whose version a program
 * needs (libdl.so.2, libpthread.so.0: the version node, no function) and
 * the C library that defines the function under it. The child of a fork
 * dlopens the program; the C library came before the fork.
 */
static void build_stub_and_libc(struct world *w)
{
	write_file(w, "foo.map", "FOO_1 { global: *; };\n", false);
	/* What the user was linked against: bar under FOO_1 in the stub's soname. */
	cc_so(w, "linkstub/libctest-stub.so.1", "int bar(void) { return 1; }",
	      "-Wl,-soname,libctest-stub.so.1 -Wl,--version-script,@R/foo.map");
	cc_so(w, "lib/libctest-stub.so.1", "int stub_only(void) { return 1; }",
	      "-Wl,-soname,libctest-stub.so.1 -Wl,--version-script,@R/foo.map");
	cc_so(w, "lib/libctest-libc.so.6", "int bar(void) { return 1; }",
	      "-Wl,-soname,libctest-libc.so.6 -Wl,--version-script,@R/foo.map");
	cc_so(w, "lib/libctest-user.so", "int bar(void);\nint user(void) { return bar(); }",
	      "-Wl,-soname,libctest-user.so -Wl,--no-as-needed @R/linkstub/libctest-stub.so.1");
}

/* The child's part: the dlopen, the program and its stub. */
#define CHILD_LOADS                                                            \
	"{'ev':'dlopen','t':3000,'api':'dlopen','name':'@R/lib/libctest-user.so','flags':2," \
	"'caller':'@R/bin/app'}\n"                                                           \
	OPEN_AT("@R/lib/libctest-user.so", "libctest-user.so", 3001)                         \
	OPEN_AT("@R/lib/libctest-stub.so.1", "libctest-stub.so.1", 3002)

static void test_fork_inherits_link_map(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_stub_and_libc(w);
	/* The parent maps the C library, then forks 201, which dlopens the user. */
	write_image(w, 200, 1, "00000000000000aa", 1000,
		    "{'ev':'open','t':1001,'path':'@R/bin/app','lmid':0,'soname':null,'main':true}\n"
		    OPEN_AT("@R/lib/libctest-libc.so.6", "libctest-libc.so.6", 1002));
	write_image(w, 201, 200, "00000000000000aa", 2000, CHILD_LOADS);
	/* A fork of the fork inherits it too, through its parent. */
	write_image(w, 202, 201, "00000000000000aa", 4000, CHILD_LOADS);
	/* Another image (exec'd, not forked) inherits nothing: the symbol is missing there. */
	write_image(w, 203, 200, "00000000000000bb", 2000, CHILD_LOADS);
	world_judge(w, NULL, 0);
	expect_clean(w, 200);
	expect_clean(w, 201);
	expect_clean(w, 202);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'libctest-user.so' needs bar (version FOO_1)");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 203);
	expect_total(w, 1);
}

/* Mind the times: what the parent loaded after the fork, or closed, is not the child's. */
static void test_fork_inherits_only_earlier(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	NEED_CC();
	build_stub_and_libc(w);
	write_image(w, 300, 1, "00000000000000cc", 1000,
		    "{'ev':'open','t':1001,'path':'@R/bin/app','lmid':0,'soname':null,'main':true}\n"
		    OPEN_AT("@R/lib/libctest-libc.so.6", "libctest-libc.so.6", 2500));
	write_image(w, 301, 300, "00000000000000cc", 2000, CHILD_LOADS);
	world_judge(w, NULL, 0);
	f = expect_finding(w, CT_F_SYMBOL_VERSION_MISSING, CT_SEV_ERROR,
			   "'libctest-user.so' needs bar (version FOO_1)");
	assert_int_equal(f->where[0].pid, 301);
	expect_total(w, 1);
}

/*
 * The other rules that look a library up in the process: a candidate that
 * is a file the parent mapped ends a search (no lib-not-found); a copy of
 * another major next to an inherited one is two versions in the child; the
 * parent's own pair is not repeated in each child.
 */
static void test_fork_other_rules(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;

	touch(w, "sys1/libcudart.so.13.0.96");
	link_to(w, "libcudart.so.13.0.96", "sys1/libcudart.so.13");
	link_to(w, "libcudart.so.13.0.96", "sys1/libcudart.so");
	touch(w, "sys2/libcudart.so.12.4.127");
	link_to(w, "libcudart.so.12.4.127", "sys2/libcudart.so.12");
	touch(w, "sys2/libcublas.so.13");
	touch(w, "sys1/libcublas.so.13");
	write_image(w, 400, 1, "00000000000000dd", 1000,
		    "{'ev':'open','t':1001,'path':'@R/bin/app','lmid':0,'soname':null,'main':true}\n"
		    OPEN_AT("@R/sys1/libcudart.so.13", "libcudart.so.13", 1002)
		    OPEN_AT("@R/sys1/libcublas.so.13", "libcublas.so.13", 1003)
		    OPEN_AT("@R/sys2/libcublas.so.13", "libcublas.so.13", 1004));
	write_image(w, 401, 400, "00000000000000dd", 2000,
		    /* libcudart.so is the file mapped as libcudart.so.13: no open record. */
		    "{'ev':'dlopen','t':3000,'api':'dlopen','name':'libcudart.so','flags':2,"
		    "'caller':'@R/bin/app'}\n"
		    "{'ev':'search','t':3001,'id':1,'name':'libcudart.so','by':'@R/bin/app'}\n"
		    "{'ev':'try','t':3002,'search':1,'path':'@R/sys1/libcudart.so','via':'default'}\n"
		    /* The same by its path: a search with no candidate. */
		    "{'ev':'dlopen','t':3003,'api':'dlopen','name':'@R/sys1/libcudart.so','flags':2,"
		    "'caller':'@R/bin/app'}\n"
		    "{'ev':'search','t':3004,'id':2,'name':'@R/sys1/libcudart.so','by':'@R/bin/app'}\n"
		    OPEN_AT("@R/sys2/libcudart.so.12", "libcudart.so.12", 3005));
	world_judge(w, NULL, 0);
	expect_count(w, CT_F_LIB_NOT_FOUND, 0);
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING,
			   "libraries of CUDA 13 and CUDA 12 in one process, each needed by a build "
			   "for its CUDA: libcudart 13.0.96 and 12.4.127");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 401);
	/* The parent's two libcublas copies: its finding only. */
	f = expect_finding(w, CT_F_LIB_MIXED_VERSIONS, CT_SEV_WARNING, "two versions of libcublas");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 400);
	expect_total(w, 2);
}

/* ---- a running process read from /proc (ps) ------------------------------------- */

/* A maps line for rel (under the root) as mapped: its device and inode, or ino_delta off. */
static size_t proc_maps_line(const struct world *w, char *buf, size_t size, unsigned long start,
			     const char *rel, long ino_delta)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	assert_int_equal(stat(path, &st), 0);
	return (size_t)snprintf(buf, size, "%lx-%lx r-xp 00000000 %x:%x %llu   %s\n", start,
				start + 0x1000, major(st.st_dev), minor(st.st_dev),
				(unsigned long long)((long)st.st_ino + ino_delta), path);
}

/*
 * What ps could not read of a process is never a clean bill (issue 31,
 * points 5 and 6): a mapped file replaced since, one in another mount
 * namespace (a container), and a maps past the limit on files kept, each
 * a trace-incomplete with what to do; a process read whole has none.
 */
static void test_proc_read(void **state)
{
	struct world *w = *state;
	const struct ct_finding *f;
	char root[PATH_MAX], why[256], line[PATH_MAX + 128], *big;
	size_t n, cap = 70000 * 80, i;

	snprintf(root, sizeof(root), "%s/proc", w->root);
	touch(w, "lib/libcudart.so.13");
	touch(w, "proc/self/ns/mnt");
	/* 42: cudart replaced since it was mapped. */
	n = proc_maps_line(w, line, sizeof(line), 0x1000, "lib/libcudart.so.13", 1000);
	line[n] = '\0';
	write_file(w, "proc/42/maps", line, false);
	/* 43: the same, in another mount namespace. */
	write_file(w, "proc/43/maps", line, false);
	touch(w, "proc/43/ns/mnt");
	/* 44: past the limit on files kept, then cudart. */
	big = malloc(cap);
	assert_non_null(big);
	for (i = 0, n = 0; i < 65536 + 4; i++)
		n += (size_t)snprintf(big + n, cap - n, "7f%010zx-7f%010zx r-xp 00000000 00:1a %zu "
				      "/nowhere/lib%zu.so\n", i * 16, i * 16 + 16, 1000000 + i, i);
	n += proc_maps_line(w, big + n, cap - n, 0x7ff000000000ul, "lib/libcudart.so.13", 0);
	write_file(w, "proc/44/maps", big, false);
	free(big);
	/* 45: cudart, read whole. */
	n = proc_maps_line(w, line, sizeof(line), 0x1000, "lib/libcudart.so.13", 0);
	line[n] = '\0';
	write_file(w, "proc/45/maps", line, false);

	ct_trace_init(&w->t);
	assert_int_equal(ct_trace_read_pid(&w->t, root, 42, false, why, sizeof(why)), 0);
	assert_int_equal(ct_trace_read_pid(&w->t, root, 43, false, why, sizeof(why)), 0);
	assert_int_equal(ct_trace_read_pid(&w->t, root, 44, false, why, sizeof(why)), 0);
	assert_int_equal(ct_trace_read_pid(&w->t, root, 45, false, why, sizeof(why)), 0);
	ct_diagnose(&w->d, &w->t, NULL, 0, &w->machine);
	w->judged = true;

	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "1 mapped file left out: the file at its path now is not the one the "
			   "process mapped");
	expect_evidence(w, f, "left out: @R/lib/libcudart.so.13");
	expect_fix(w, f, "restart it");
	assert_int_equal(f->nwhere, 1);
	assert_int_equal(f->where[0].pid, 42);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "the process runs in another mount namespace (a container): 1 mapped file "
			   "left out, not the file at its path here");
	expect_evidence(w, f, "left out: @R/lib/libcudart.so.13");
	expect_fix(w, f, "run cudatrace ps inside the container");
	assert_int_equal(f->where[0].pid, 43);
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING,
			   "the process's maps was not read in full: more than 65536 mapped files "
			   "with code");
	expect_evidence(w, f, "5 mappings left out");
	assert_int_equal(f->where[0].pid, 44);
	/* 44's files kept are not there either: left out, named, counted. */
	f = expect_finding(w, CT_F_TRACE_INCOMPLETE, CT_SEV_WARNING, "65536 mapped files left out");
	expect_evidence(w, f, "left out: /nowhere/lib0.so");
	expect_evidence(w, f, "and 65532 more");
	expect_clean(w, 45);
	expect_count(w, CT_F_TRACE_INCOMPLETE, 4);
}

#define T(f) cmocka_unit_test_setup_teardown(f, world_setup, world_close)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_no_cuda),
		T(test_driver_missing),
		T(test_driver_missing_not_raised),
		T(test_driver_missing_library_probe),
		T(test_driver_missing_nvml),
		T(test_driver_too_old),
		T(test_driver_minor_compatible),
		T(test_no_device),
		T(test_no_device_hidden),
		T(test_lib_not_found_needed),
		T(test_lib_not_found_every_missing),
		T(test_lib_not_found_every_missing_driver_searched),
		T(test_lib_not_found_every_missing_two_askers),
		T(test_lib_not_found_copies),
		T(test_lib_not_found_ctypes),
		T(test_lib_not_found_one_cause),
		T(test_lib_not_found_probe_same_major),
		T(test_lib_not_found_dlopen),
		T(test_lib_not_found_not_raised),
		T(test_lib_shadowed),
		T(test_lib_shadowed_already_loaded),
		T(test_lib_shadowed_one_cause),
		T(test_lib_shadowed_not_raised),
		T(test_lib_mixed_versions),
		T(test_lib_mixed_cudnn_folders),
		T(test_builds_mixed_major),
		T(test_builds_cudnn_release),
		T(test_builds_not_raised),
		T(test_builds_unversioned_name),
		T(test_symbol_version_missing),
		T(test_symbol_version_one_cause),
		T(test_symbol_version_renamed),
		T(test_symbol_version_node_missing),
		T(test_symbol_version_glibc),
		T(test_symbol_missing_at_load),
		T(test_symbol_missing_lazy),
		T(test_symbol_missing_not_raised),
		T(test_device_code_from_trace),
		T(test_device_code_targets_given),
		T(test_module_loads),
		T(test_trace_incomplete),
		T(test_search_without_answer),
		T(test_trace_incomplete_static_run),
		T(test_grouping),
		T(test_probe_then_real_miss),
		T(test_same_library_elsewhere),
		T(test_lib_not_found_search_kinds),
		T(test_fork_inherits_link_map),
		T(test_fork_inherits_only_earlier),
		T(test_fork_other_rules),
		T(test_proc_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

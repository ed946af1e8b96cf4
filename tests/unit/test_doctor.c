/*
 * doctor's rules (cli/diagnose/doctor_rules.c) on made-up machines: a
 * struct ct_doctor filled in by hand, as doctor.c would from a machine
 * that does not exist, and the findings ct_doctor_findings makes of it:
 * driver-missing (not found, found but not loadable, loaded but not
 * usable) with the search as evidence, no-device and the first cause that
 * fits it, driver-too-old per major of the machine's runtimes (error or
 * warning, the forward-compatibility way out), the minor-version note,
 * lib-shadowed, and a healthy machine with nothing to say. The wording of
 * driver-too-old's own finding is test_driver_rule's; here only what
 * doctor gives it. The driver's search is the loader model's, on a
 * made-up platform (one default directory, an empty ld.so.cache, one
 * glibc-hwcaps subdirectory) with a libcuda.so.1 built here by cc.
 * ct_doctor_examine reads the live machine: one smoke test, with a
 * stand-in /proc/driver/nvidia.
 *
 * Every struct ct_doctor here is built as doctor.c builds one (the loader
 * in d->L, strings and arrays malloc'd, static words borrowed), so
 * ct_doctor_release frees exactly what the test allocated.
 */
#include "helpers.h"
#include "machine.h"

#include <ftw.h>
#include <unistd.h>

#include "doctor.h"
#include "findings.h"
#include "util.h"

#define PROC "/made-up/proc"
#define LIBCUDA "/usr/lib/x86_64-linux-gnu/libcuda.so.1"

static char top[256];   /* the test's folder */
static bool have_cc;    /* top/drv/libcuda.so.1 was built */


/* An ld.so.cache of the new format with no entry: every name is a miss. */
static int write_empty_cache(const char *path)
{
	unsigned char h[48] = { 0 };
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/*
 * top/sys/               the machine's one default directory (empty)
 * top/empty/             an LD_LIBRARY_PATH entry without libcuda.so.1
 * top/{sys,empty}/glibc-hwcaps/x86-64-v2/   searched first, also empty
 * top/drv/libcuda.so.1   a stand-in driver (soname libcuda.so.1)
 * top/ld.so.cache        an empty cache
 */
static int setup(void **state)
{
	char path[512];

	(void)state;
	snprintf(top, sizeof(top), "%s/ct-doctor-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top))
		return -1;
	snprintf(path, sizeof(path), "%s/ld.so.cache", top);
	if (write_empty_cache(path) != 0)
		return -1;
	if (system("command -v cc >/dev/null 2>&1") != 0)
		return 0;
	sh("cd %s && mkdir -p sys/glibc-hwcaps/x86-64-v2 empty/glibc-hwcaps/x86-64-v2 drv && "
	   "echo 'int cuInit(int f) { return f; }' > l.c && "
	   "cc -shared -fPIC -o drv/libcuda.so.1 l.c -Wl,-soname,libcuda.so.1",
	   top);
	have_cc = true;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	if (top[0])
		nftw(top, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* What ct_driver_probe leaves when it could ask nothing; no module. */
static void facts_init(struct ct_doctor *d)
{
	memset(d, 0, sizeof(*d));
	d->drv.probe.version = d->drv.probe.init_result = d->drv.probe.count = -1;
	d->drv.module_gpus = -1;
	d->drv.proc = PROC;
}

/*
 * The loader model of a made-up machine in d->L (so ct_doctor_release
 * frees it) and its search for libcuda.so.1 as doctor.c makes it, with
 * LD_LIBRARY_PATH made of folders under top ("empty:nowhere").
 */
static void machine(struct ct_doctor *d, const char *ld_dirs)
{
	static char sysdir[300], cache[300], sub[] = "glibc-hwcaps/x86-64-v2";
	static char *dirs[] = { sysdir }, *subdirs[] = { sub };
	char ldpath[1024] = "", *save = NULL, *tok, copy[256];
	struct ct_loader_env env = { ldpath, "" };
	struct ct_loader like;
	int err = 0;

	if (!have_cc)
		skip();
	snprintf(copy, sizeof(copy), "%s", ld_dirs);
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		snprintf(ldpath + strlen(ldpath), sizeof(ldpath) - strlen(ldpath), "%s%s/%s",
			 ldpath[0] ? ":" : "", top, tok);
	snprintf(sysdir, sizeof(sysdir), "%s/sys", top);
	snprintf(cache, sizeof(cache), "%s/ld.so.cache", top);
	made_up_platform(&like, dirs, 1, subdirs, 1, cache);
	ct_loader_init_like(&d->L, &like, &env);
	d->loader_ok = true;
	assert_true(d->L.cache_ok);
	assert_non_null(ct_loader_start(&d->L, NULL, &err));
	d->drv.search = ct_loader_search(&d->L, d->L.main, "libcuda.so.1", false);
	d->drv.path = d->drv.search->path;
}

/* s with every '@' replaced by top (eight results live at once). */
static const char *at_top(const char *s)
{
	static char buf[8][1024];
	static int n;
	char *out = buf[n = (n + 1) % 8];
	size_t len = 0;

	for (; *s && len + strlen(top) + 1 < sizeof(buf[0]); s++)
		if (*s == '@')
			len += (size_t)sprintf(out + len, "%s", top);
		else
			out[len++] = *s;
	out[len] = '\0';
	return out;
}

static void add_copy(struct ct_doctor *d, const char *path, const char *where, bool same_name)
{
	struct ct_copies *c = &d->drv.copies;

	c->c = ct_xrealloc(c->c, (c->n + 1) * sizeof(*c->c));
	c->c[c->n].path = ct_xstrdup(path);
	c->c[c->n].where = where;
	c->c[c->n].version = ct_xstrdup("");
	c->c[c->n++].same_name = same_name;
}

static void add_compat(struct ct_doctor *d, const char *path, const char *version, bool taken)
{
	struct ct_doctor_compat *c;

	d->drv.compat_libs = ct_xrealloc(d->drv.compat_libs,
					 (d->drv.ncompat + 1) * sizeof(*c));
	c = &d->drv.compat_libs[d->drv.ncompat++];
	memset(c, 0, sizeof(*c));
	c->path = ct_xstrdup(path);
	snprintf(c->version, sizeof(c->version), "%s", version);
	c->taken = taken;
}

/*
 * A runtime: its version "13.0.96" or the major alone ("13"), so cuda is
 * known or -1; taken: found_via is the rule the loader took it by.
 */
static void add_runtime(struct ct_doctor *d, const char *path, const char *where,
			const char *soname, const char *version, bool taken, enum ct_rule via,
			enum ct_runtime_verdict verdict)
{
	struct ct_doctor_runtime *r;
	const char *dot = strchr(version, '.');

	d->rt = ct_xrealloc(d->rt, (d->nrt + 1) * sizeof(*r));
	r = &d->rt[d->nrt++];
	memset(r, 0, sizeof(*r));
	r->path = ct_xstrdup(path);
	r->where = where;
	snprintf(r->soname, sizeof(r->soname), "%s", soname);
	r->major = atoi(version);
	snprintf(r->version, sizeof(r->version), "%s", version);
	r->version_from = dot ? "file name" : NULL;
	r->cuda = dot ? r->major * 1000 + atoi(dot + 1) * 10 : -1;
	r->taken = taken;
	r->found_via = taken ? via : CT_RULE_UNKNOWN;
	r->verdict = verdict;
}

static struct ct_doctor_ldentry *add_entry(struct ct_doctor *d, const char *dir)
{
	struct ct_doctor_ldentry *en;

	d->ld = ct_xrealloc(d->ld, (d->nld + 1) * sizeof(*en));
	en = &d->ld[d->nld++];
	memset(en, 0, sizeof(*en));
	en->dir = ct_xstrdup(dir);
	en->exists = true;
	return en;
}

/* A library of en taken before other (versions "" when unknown). */
static void add_shadow(struct ct_doctor_ldentry *en, const char *soname, const char *version,
		       const char *other, const char *other_where, const char *other_version)
{
	struct ct_doctor_shadow *s;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", en->dir, soname);
	en->libs = ct_xrealloc(en->libs, (en->nlibs + 1) * sizeof(*en->libs));
	en->libs[en->nlibs++] = ct_xstrdup(soname);
	en->shadows = ct_xrealloc(en->shadows, (en->nshadows + 1) * sizeof(*s));
	s = &en->shadows[en->nshadows++];
	memset(s, 0, sizeof(*s));
	s->soname = ct_xstrdup(soname);
	s->path = ct_xstrdup(path);
	snprintf(s->version, sizeof(s->version), "%s", version);
	s->other = ct_xstrdup(other);
	s->other_where = other_where;
	snprintf(s->other_version, sizeof(s->other_version), "%s", other_version);
	s->differ = !version[0] || strcmp(version, other_version) != 0; /* as doctor.c */
}

/* A driver that loads, knows its version and answers cuInit(0) with 0. */
static void working_driver(struct ct_doctor *d, const char *path, const char *release,
			   int cuda)
{
	d->drv.path = path;
	snprintf(d->drv.version, sizeof(d->drv.version), "%s", release);
	d->drv.probe.opened = true;
	snprintf(d->drv.probe.path, sizeof(d->drv.probe.path), "%s", path);
	d->drv.probe.version = cuda;
	d->drv.probe.init_result = 0;
	d->drv.probe.count = d->drv.probe.ngpus = 1;
	d->drv.probe.gpus[0].major = 9;
	d->drv.probe.gpus[0].minor = 0;
	snprintf(d->drv.probe.gpus[0].name, sizeof(d->drv.probe.gpus[0].name),
		 "NVIDIA H100 80GB HBM3");
}

static void module(struct ct_doctor *d, const char *version, int gpus)
{
	snprintf(d->drv.module_version, sizeof(d->drv.module_version), "%s", version);
	d->drv.module_gpus = gpus;
}

/* ---- checking findings ------------------------------------------------------ */

static void print_findings(const struct ct_findings *fs)
{
	size_t i, k;

	for (i = 0; i < fs->n; i++) {
		const struct ct_finding *f = &fs->f[i];

		print_message("  %s %s: %s [%s]\n", ct_severity_name(f->severity),
			      ct_finding_id(f->code), f->message, f->object ? f->object : "-");
		for (k = 0; k < f->nevidence; k++)
			print_message("      %s\n", f->evidence[k]);
		print_message("    fix: %s\n", f->fix ? f->fix : "(none)");
	}
}

/* The findings of d, judged; exactly n of them. */
static void judge(const struct ct_doctor *d, struct ct_findings *fs, size_t n)
{
	ct_findings_init(fs);
	ct_doctor_findings(d, fs);
	if (fs->n != n) {
		print_findings(fs);
		fail_msg("%zu findings, expected %zu", fs->n, n);
	}
}

/* fs->f[i] has this code, severity, object (NULL: none) and message (NULL: any). */
static const struct ct_finding *expect(const struct ct_findings *fs, size_t i,
				       enum ct_finding_code code, enum ct_severity sev,
				       const char *object, const char *message)
{
	const struct ct_finding *f = &fs->f[i];

	assert_true(i < fs->n);
	if (f->code != code || f->severity != sev ||
	    (message && strcmp(f->message, message) != 0) ||
	    (object ? !f->object || strcmp(f->object, object) != 0 : f->object != NULL)) {
		print_findings(fs);
		fail_msg("finding %zu is not %s %s: %s [%s]", i, ct_severity_name(sev),
			 ct_finding_id(code), message ? message : "...", object ? object : "-");
	}
	return f;
}

/* Exactly these lines of evidence, in this order. */
static void expect_evidence(const struct ct_finding *f, const char *const *lines, size_t n)
{
	size_t i;

	for (i = 0; i < f->nevidence || i < n; i++)
		if (i >= f->nevidence || i >= n || strcmp(f->evidence[i], lines[i]) != 0) {
			for (i = 0; i < f->nevidence; i++)
				print_message("      got      %s\n", f->evidence[i]);
			for (i = 0; i < n; i++)
				print_message("      expected %s\n", lines[i]);
			fail_msg("the evidence of '%s' differs", f->message);
		}
}

#define EXPECT_EVIDENCE(f, ...)                                               \
	do {                                                                  \
		const char *const lines_[] = { __VA_ARGS__ };                 \
		expect_evidence((f), lines_, ARRAY_LEN(lines_));              \
	} while (0)

static void expect_fix(const struct ct_finding *f, const char *fix)
{
	assert_non_null(f->fix);
	assert_string_equal(f->fix, fix);
}

static void expect_fix_has(const struct ct_finding *f, const char *part)
{
	assert_non_null(f->fix);
	if (!strstr(f->fix, part))
		fail_msg("the fix '%s' does not say '%s'", f->fix, part);
}

static void expect_fix_lacks(const struct ct_finding *f, const char *part)
{
	assert_non_null(f->fix);
	if (strstr(f->fix, part))
		fail_msg("the fix '%s' says '%s'", f->fix, part);
}

/* Judge again after changing the facts. */
static void rejudge(const struct ct_doctor *d, struct ct_findings *fs, size_t n)
{
	ct_findings_release(fs);
	judge(d, fs, n);
}

/* ---- driver-missing --------------------------------------------------------- */

/* No libcuda.so.1 anywhere the loader looks: the search is the evidence. */
static void test_missing_not_found(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;
	size_t i, subdirs = 0;

	(void)state;
	facts_init(&d);
	machine(&d, "empty:nowhere");
	assert_null(d.drv.path);
	/* The search tried a subdirectory too, which the evidence leaves out. */
	for (i = 0; i < d.drv.search->ncands; i++)
		subdirs += d.drv.search->cands[i].subdir;
	assert_true(subdirs > 0);
	snprintf(d.drv.probe.error, sizeof(d.drv.probe.error),
		 "libcuda.so.1: cannot open shared object file: No such file or directory");
	/* Another major first: the fix names the first copy of libcuda.so.1 itself. */
	add_copy(&d, "/opt/other/libcuda.so.2", "ld.so.cache", false);
	add_copy(&d, "/opt/conda/lib/libcuda.so.1", "conda", true);
	add_copy(&d, "/usr/lib/wsl/lib/libcuda.so.1", "default directory", true);

	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, NULL,
		   "no NVIDIA driver: 'libcuda.so.1' is not found");
	EXPECT_EVIDENCE(f,
		at_top("searched @/empty/libcuda.so.1 (LD_LIBRARY_PATH): no such file"),
		at_top("searched @/nowhere/libcuda.so.1 (LD_LIBRARY_PATH): directory missing"),
		"searched ld.so.cache: no entry",
		at_top("searched @/sys/libcuda.so.1 (default directory): no such file"),
		"a copy not on the path: /opt/conda/lib/libcuda.so.1 (conda)",
		"a copy not on the path: /usr/lib/wsl/lib/libcuda.so.1 (default directory)",
		"no NVIDIA kernel module: " PROC "/version does not exist");
	expect_fix(f, "put '/opt/conda/lib' on LD_LIBRARY_PATH (or into /etc/ld.so.conf.d and "
		      "run ldconfig) if it is the driver of this machine's kernel module");

	/* Only another major elsewhere, no module: install the driver. */
	ct_copies_release(&d.drv.copies);
	add_copy(&d, "/opt/other/libcuda.so.2", "ld.so.cache", false);
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, NULL,
		   "no NVIDIA driver: 'libcuda.so.1' is not found");
	assert_int_equal(f->nevidence, 5);
	assert_string_equal(f->evidence[4],
			    "no NVIDIA kernel module: " PROC "/version does not exist");
	expect_fix(f, "install the NVIDIA driver (nvidia-smi must list the GPU), or start the "
		      "container with GPU support (docker run --gpus all, with "
		      "nvidia-container-toolkit);\n"
		      "on WSL the driver is in /usr/lib/wsl/lib: put it on LD_LIBRARY_PATH");

	/* The kernel module is loaded: its library was not mounted. */
	module(&d, "550.54.15", 1);
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, NULL,
		   "no NVIDIA driver: 'libcuda.so.1' is not found");
	assert_int_equal(f->nevidence, 5);
	assert_string_equal(f->evidence[4], "the NVIDIA kernel module 550.54.15 is loaded ("
					    PROC "/version), 1 GPU");
	expect_fix(f, "the kernel module is there but not its library: in a container, start it "
		      "with GPU support (docker run --gpus all, with nvidia-container-toolkit) so "
		      "the host's libcuda.so.1 is mounted;\n"
		      "on the host, install the driver's libraries of version 550.54.15");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* The loader finds libcuda.so.1 but dlopen fails: the search up to it. */
static void test_missing_cannot_load(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	facts_init(&d);
	machine(&d, "empty:drv");
	assert_non_null(d.drv.path);
	assert_string_equal(d.drv.path, at_top("@/drv/libcuda.so.1"));
	snprintf(d.drv.probe.error, sizeof(d.drv.probe.error),
		 "libnvidia-ptxjitcompiler.so.1: cannot open shared object file: No such file "
		 "or directory");
	module(&d, "550.54.15", -1);

	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, at_top("@/drv/libcuda.so.1"),
		   "'libcuda.so.1' cannot be loaded: libnvidia-ptxjitcompiler.so.1: cannot open "
		   "shared object file: No such file or directory");
	EXPECT_EVIDENCE(f,
		at_top("searched @/empty/libcuda.so.1 (LD_LIBRARY_PATH): no such file"),
		at_top("searched @/drv/libcuda.so.1 (LD_LIBRARY_PATH): found"),
		"the NVIDIA kernel module 550.54.15 is loaded (" PROC "/version)");
	expect_fix_has(f, "reinstall the driver's libraries of version 550.54.15");
	expect_fix_has(f, "take its folder off the library path");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* dlopen works but the file lacks the device queries: it names the file opened. */
static void test_missing_unusable(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	facts_init(&d);
	machine(&d, "drv");
	d.drv.probe.opened = true;
	d.drv.probe.version = 12040;
	snprintf(d.drv.probe.path, sizeof(d.drv.probe.path), "%s", at_top("@/drv/libcuda.so.1"));
	/* ct_driver_probe's words; cuInit is not called (init_result stays -1). */
	snprintf(d.drv.probe.error, sizeof(d.drv.probe.error),
		 "libcuda.so.1 lacks cuInit or the device queries");

	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, at_top("@/drv/libcuda.so.1"),
		   at_top("'@/drv/libcuda.so.1' is not a usable driver: libcuda.so.1 lacks "
			  "cuInit or the device queries"));
	EXPECT_EVIDENCE(f,
		at_top("searched @/drv/libcuda.so.1 (LD_LIBRARY_PATH): found"),
		"no NVIDIA kernel module: " PROC "/version does not exist");
	expect_fix_has(f, at_top("'@/drv/libcuda.so.1' is there but is not a working driver"));
	expect_fix_has(f, "reinstall the driver's libraries (in a container");

	/* Without cuInit the probe cannot say which file it opened: the loader's answer. */
	d.drv.probe.path[0] = '\0';
	d.drv.path = d.drv.search->path;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_MISSING, CT_SEV_ERROR, at_top("@/drv/libcuda.so.1"),
		   at_top("'@/drv/libcuda.so.1' is not a usable driver: libcuda.so.1 lacks "
			  "cuInit or the device queries"));
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- no-device -------------------------------------------------------------- */

/* A driver that loads: cuInit answers result; a kernel module 550.54.15, 1 GPU. */
static void device_facts(struct ct_doctor *d, int result)
{
	facts_init(d);
	working_driver(d, LIBCUDA, "550.54.15", 12040);
	d->drv.probe.init_result = result;
	d->drv.probe.count = result == 0 ? 0 : -1;
	d->drv.probe.ngpus = 0;
	module(d, "550.54.15", 1);
}

#define NO_DEVICE_100 "the driver cannot be used: cuInit returned 100 (CUDA_ERROR_NO_DEVICE: " \
		      "no CUDA-capable device is detected)"
#define MODULE_LINE "the NVIDIA kernel module 550.54.15 is loaded (" PROC "/version), 1 GPU"
#define DEVICE_FILES_FIX "check that /dev/nvidia* exist and can be opened (container " \
			 "device rules, permissions) and that nvidia-smi lists the GPU"

/* CUDA_VISIBLE_DEVICES is blamed for error 100 and for 0 GPUs, not for others. */
static void test_no_device_visible_devices(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	device_facts(&d, 100);
	d.drv.visible_devices = "7";
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NO_DEVICE_100);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.54.15", MODULE_LINE,
			"CUDA_VISIBLE_DEVICES='7'");
	expect_fix(f, "CUDA_VISIBLE_DEVICES='7' may hide every GPU: unset it, or list GPUs that "
		      "exist (indices from 0, or UUIDs from nvidia-smi -L)");

	/* cuInit works and counts 0 GPUs. */
	d.drv.probe.init_result = 0;
	d.drv.probe.count = 0;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, "the driver reports no GPU");
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.54.15", MODULE_LINE,
			"CUDA_VISIBLE_DEVICES='7'");
	expect_fix_has(f, "CUDA_VISIBLE_DEVICES='7' may hide every GPU");

	/* Another error: shown, not blamed. */
	d.drv.probe.init_result = 999;
	d.drv.probe.count = -1;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA,
		   "the driver cannot be used: cuInit returned 999 (CUDA_ERROR_UNKNOWN: unknown "
		   "error)");
	assert_int_equal(f->nevidence, 3);
	expect_fix(f, DEVICE_FILES_FIX);
	ct_findings_release(&fs);

	/* GPUs visible: nothing to say. */
	d.drv.probe.init_result = 0;
	d.drv.probe.count = 1;
	judge(&d, &fs, 0);
	ct_findings_release(&fs);

	/* cuInit worked but the count is unknown (cuDeviceGetCount failed): not "0 GPUs". */
	d.drv.probe.count = -1;
	judge(&d, &fs, 0);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* No kernel module, a module that knows its GPUs, one that does not say. */
static void test_no_device_module(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	device_facts(&d, 100);
	module(&d, "", -1);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NO_DEVICE_100);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.54.15",
			"no NVIDIA kernel module: " PROC "/version does not exist");
	expect_fix(f, "no NVIDIA kernel module is loaded here: on a host, install or load the "
		      "driver (nvidia-smi must list the GPU);\n"
		      "in a container, start it with GPU support (docker run --gpus all, with "
		      "nvidia-container-toolkit; on Kubernetes a nvidia.com/gpu request)");

	/* The module of the library's own release: the device files. */
	module(&d, "550.54.15", 2);
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NO_DEVICE_100);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.54.15",
			"the NVIDIA kernel module 550.54.15 is loaded (" PROC "/version), 2 GPUs");
	expect_fix(f, DEVICE_FILES_FIX);

	module(&d, "550.54.15", -1);
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NO_DEVICE_100);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.54.15",
			"the NVIDIA kernel module 550.54.15 is loaded (" PROC "/version)");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* A module of another release than the library: a reboot, unless that is by design. */
static void test_no_device_mismatch(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	device_facts(&d, 803);
	snprintf(d.drv.version, sizeof(d.drv.version), "550.163.01");
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA,
		   "the driver cannot be used: cuInit returned 803 "
		   "(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / "
		   "cuda driver combination)");
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.163.01", MODULE_LINE,
			"the kernel module is 550.54.15 but libcuda.so.1 is 550.163.01: the two "
			"come from different driver releases");
	expect_fix(f, "after a driver update the old module stays loaded: reboot (or reload the "
		      "nvidia modules);\n"
		      "in a container, do not install the driver's libraries in the image: "
		      "nvidia-container-toolkit mounts the host's");

	/* A forward-compatibility copy is newer than the module by design. */
	d.drv.compat = true;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NULL);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA ", version 550.163.01", MODULE_LINE);
	expect_fix(f, DEVICE_FILES_FIX);

	/* A library whose file name says no release: nothing to compare. */
	d.drv.compat = false;
	d.drv.version[0] = '\0';
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, LIBCUDA, NULL);
	EXPECT_EVIDENCE(f, "libcuda.so.1: " LIBCUDA, MODULE_LINE);
	expect_fix(f, DEVICE_FILES_FIX);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* Error 34: the toolkit's stub was taken, even with CUDA_VISIBLE_DEVICES set. */
static void test_no_device_stub(void **state)
{
	static const char stub[] = "/usr/local/cuda-12.4/lib64/stubs/libcuda.so.1";
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	device_facts(&d, 34);
	d.drv.visible_devices = "0";
	d.drv.version[0] = '\0';
	/* What dlopen opened, which the loader model did not find. */
	d.drv.path = NULL;
	snprintf(d.drv.probe.path, sizeof(d.drv.probe.path), "%s", stub);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, NULL,
		   "the driver cannot be used: cuInit returned 34 (CUDA_ERROR_STUB_LIBRARY: "
		   "CUDA driver is a stub library)");
	EXPECT_EVIDENCE(f, "libcuda.so.1: /usr/local/cuda-12.4/lib64/stubs/libcuda.so.1",
			MODULE_LINE, "CUDA_VISIBLE_DEVICES='0'");
	expect_fix(f, "'/usr/local/cuda-12.4/lib64/stubs/libcuda.so.1' is the CUDA toolkit's "
		      "stub, for linking only: take '/usr/local/cuda-12.4/lib64/stubs' off "
		      "LD_LIBRARY_PATH so the real driver is found");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* A forward-compatibility libcuda.so.1 on a GPU that does not allow it. */
static void test_no_device_forward_compat(void **state)
{
	static const char compat[] = "/usr/local/cuda-13.0/compat/libcuda.so.1";
	static const char line[] = "forward compatibility: this libcuda.so.1 is newer than the "
				   "kernel module, which only data-center GPUs allow";
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	device_facts(&d, 804);
	working_driver(&d, compat, "580.65.06", 13000);
	d.drv.probe.init_result = 804;
	d.drv.probe.count = -1;
	d.drv.compat = true;
	add_compat(&d, "/usr/local/cuda-12.8/compat/libcuda.so.1", "570.124.06", false);
	add_compat(&d, compat, "580.65.06", true);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, compat,
		   "the driver cannot be used: cuInit returned 804 "
		   "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was "
		   "attempted on non supported HW)");
	EXPECT_EVIDENCE(f, "libcuda.so.1: /usr/local/cuda-13.0/compat/libcuda.so.1, version "
			   "580.65.06",
			MODULE_LINE, line);
	expect_fix(f, "take '/usr/local/cuda-13.0/compat' off LD_LIBRARY_PATH to use the "
		      "installed driver, or update the driver itself");

	/* A taken compat copy explains error 100 too; the copy's folder is named. */
	d.drv.probe.init_result = 100;
	d.drv.path = "/opt/x/lib/libcuda.so.1"; /* a link into the compat folder */
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, "/opt/x/lib/libcuda.so.1", NO_DEVICE_100);
	assert_int_equal(f->nevidence, 3);
	/* The file the loader takes, not the one dlopen mapped. */
	assert_string_equal(f->evidence[0],
			    "libcuda.so.1: /opt/x/lib/libcuda.so.1, version 580.65.06");
	assert_string_equal(f->evidence[2], line);
	expect_fix_has(f, "take '/usr/local/cuda-13.0/compat' off LD_LIBRARY_PATH");

	/* Error 804 with no compat copy known: the taken file's folder. */
	d.drv.probe.init_result = 804;
	d.drv.compat_libs[1].taken = false;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, "/opt/x/lib/libcuda.so.1",
		   NULL);
	expect_fix_has(f, "take '/opt/x/lib' off LD_LIBRARY_PATH");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- a healthy machine ------------------------------------------------------- */

static void test_healthy(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	struct ct_doctor_ldentry *en;

	(void)state;
	facts_init(&d);
	machine(&d, "drv");
	working_driver(&d, d.drv.path, "", 12040);
	d.drv.probe.count = d.drv.probe.ngpus = 2;
	d.drv.probe.gpus[1] = d.drv.probe.gpus[0];
	d.drv.probe.gpus[1].index = 1;
	module(&d, "550.54.15", 2);
	d.drv.visible_devices = "0,1";
	add_compat(&d, "/usr/local/cuda-13.0/compat/libcuda.so.1", "580.65.06", false);
	add_runtime(&d, "/usr/local/cuda-12.4/lib64/libcudart.so.12", "CUDA toolkit",
		    "libcudart.so.12", "12.4.127", true, CT_RULE_LD_SO_CACHE, CT_RT_OK);
	add_runtime(&d, "/venv/nvidia/cuda_runtime/lib/libcudart.so.12", "pip wheel",
		    "libcudart.so.12", "12.1.105", false, CT_RULE_UNKNOWN, CT_RT_OK);
	add_runtime(&d, "/opt/conda/lib/libcudart.so.11.0", "conda", "libcudart.so.11.0", "11",
		    false, CT_RULE_UNKNOWN, CT_RT_OK);
	en = add_entry(&d, at_top("@/drv"));
	en->libs = ct_xcalloc(1, sizeof(*en->libs));
	en->libs[en->nlibs++] = ct_xstrdup("libcuda.so.1");
	/* The same release under two paths hides nothing. */
	en = add_entry(&d, "/opt/cuda-12.4/lib64");
	add_shadow(en, "libcudart.so.12", "12.4.127", "/usr/local/cuda-12.4/lib64/libcudart.so.12",
		   "ld.so.cache", "12.4.127");
	assert_false(en->shadows[0].differ);

	judge(&d, &fs, 0);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- driver-too-old ---------------------------------------------------------- */

#define CUDART13 "/usr/local/cuda-13.0/lib64/libcudart.so.13"
#define WHEEL13 "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13"
#define CONDA13 "/opt/conda/lib/libcudart.so.13"
#define RUNS_35 "programs using it fail with \"CUDA driver version is insufficient for CUDA " \
		"runtime version\" (cudaErrorInsufficientDriver, 35)"
#define DRIVER_550 "the driver: " LIBCUDA ", version 550.163.01, CUDA 12.4 (cuDriverGetVersion)"

/* A CUDA 12.4 driver, 550.163.01, that works, with a CUDA 12 runtime it runs. */
static void driver_550(struct ct_doctor *d)
{
	facts_init(d);
	working_driver(d, LIBCUDA, "550.163.01", 12040);
	module(d, "550.163.01", 1);
	add_runtime(d, "/usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127", "ld.so.cache",
		    "libcudart.so.12", "12.4.127", true, CT_RULE_LD_SO_CACHE, CT_RT_OK);
}

/* The copy the loader takes is too new: an error, its rule in the evidence. */
static void test_too_old_taken(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	driver_550(&d);
	add_runtime(&d, CUDART13, "CUDA toolkit", "libcudart.so.13", "13.0.96", true,
		    CT_RULE_LD_SO_CACHE, CT_RT_TOO_NEW);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR, CUDART13,
		   "the CUDA 13.0 runtime '" CUDART13 "' needs a newer driver than libcuda.so.1 "
		   "550.163.01, which supports CUDA 12.4");
	EXPECT_EVIDENCE(f, CUDART13 " (13.0.96, CUDA toolkit): the loader takes it for "
			"libcudart.so.13 [ld.so.cache]",
			DRIVER_550, RUNS_35);
	expect_fix(f, "update the driver to 580.65.06 or newer (any driver of that branch runs "
		      "every CUDA 13 release);\n"
		      "or use a CUDA 12 runtime: a build of your framework for CUDA 12 (pip: the "
		      "-cu12 wheels)");

	/* The driver is the file the loader takes; what dlopen mapped when it finds none. */
	snprintf(d.drv.probe.path, sizeof(d.drv.probe.path), "/run/nvidia/libcuda.so.1");
	rejudge(&d, &fs, 1);
	assert_int_equal(fs.f[0].nevidence, 3);
	assert_string_equal(fs.f[0].evidence[1], DRIVER_550);
	d.drv.path = NULL;
	rejudge(&d, &fs, 1);
	assert_int_equal(fs.f[0].nevidence, 3);
	assert_string_equal(fs.f[0].evidence[1], "the driver: /run/nvidia/libcuda.so.1, version "
						 "550.163.01, CUDA 12.4 (cuDriverGetVersion)");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* Every copy of one major in one finding, led by the copy the loader takes. */
static void test_too_old_one_per_major(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	driver_550(&d);
	add_runtime(&d, WHEEL13, "pip wheel", "libcudart.so.13", "13.0.96", false,
		    CT_RULE_UNKNOWN, CT_RT_TOO_NEW);
	add_runtime(&d, "/usr/local/cuda-13.1/lib64/libcudart.so.13", "CUDA toolkit",
		    "libcudart.so.13", "13.1.80", true, CT_RULE_LD_LIBRARY_PATH, CT_RT_TOO_NEW);
	add_runtime(&d, CONDA13, "conda", "libcudart.so.13", "13", false, CT_RULE_UNKNOWN,
		    CT_RT_TOO_NEW);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
		   "/usr/local/cuda-13.1/lib64/libcudart.so.13",
		   "the CUDA 13.1 runtime '/usr/local/cuda-13.1/lib64/libcudart.so.13' needs a "
		   "newer driver than libcuda.so.1 550.163.01, which supports CUDA 12.4");
	EXPECT_EVIDENCE(f, WHEEL13 " (13.0.96, pip wheel)",
			"/usr/local/cuda-13.1/lib64/libcudart.so.13 (13.1.80, CUDA toolkit): the "
			"loader takes it for libcudart.so.13 [LD_LIBRARY_PATH]",
			CONDA13 " (13, conda)", DRIVER_550, RUNS_35);
	expect_fix_has(f, "update the driver to 580.65.06 or newer");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/*
 * Copies the loader does not take fail only for programs pointed at them: a
 * warning. A version known by its major alone is said so.
 */
static void test_too_old_not_taken(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	driver_550(&d);
	add_runtime(&d, CONDA13, "conda", "libcudart.so.13", "13", false, CT_RULE_UNKNOWN,
		    CT_RT_TOO_NEW);
	add_runtime(&d, WHEEL13, "pip wheel", "libcudart.so.13", "13.0.96", false,
		    CT_RULE_UNKNOWN, CT_RT_TOO_NEW);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_WARNING, CONDA13,
		   "the CUDA 13 runtime '" CONDA13 "' needs a newer driver than libcuda.so.1 "
		   "550.163.01, which supports CUDA 12.4");
	EXPECT_EVIDENCE(f, CONDA13 " (13, conda)", WHEEL13 " (13.0.96, pip wheel)", DRIVER_550,
			RUNS_35);
	expect_fix_has(f, "update the driver to 580.65.06 or newer");

	/* A driver whose file name says no release. */
	d.drv.version[0] = '\0';
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_WARNING, CONDA13,
		   "the CUDA 13 runtime '" CONDA13 "' needs a newer driver than this one, which "
		   "supports CUDA 12.4");
	assert_int_equal(f->nevidence, 4);
	assert_string_equal(f->evidence[2],
			    "the driver: " LIBCUDA ", CUDA 12.4 (cuDriverGetVersion)");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* Two majors too new for a CUDA 11.8 driver: one finding each, errors first. */
static void test_too_old_two_majors(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	facts_init(&d);
	working_driver(&d, LIBCUDA, "520.61.05", 11080);
	add_runtime(&d, WHEEL13, "pip wheel", "libcudart.so.13", "13.0.96", false,
		    CT_RULE_UNKNOWN, CT_RT_TOO_NEW);
	add_runtime(&d, "/usr/local/cuda-11.8/lib64/libcudart.so.11.0", "CUDA toolkit",
		    "libcudart.so.11.0", "11.8.89", true, CT_RULE_LD_SO_CACHE, CT_RT_OK);
	add_runtime(&d, "/usr/local/cuda-12.4/lib64/libcudart.so.12", "CUDA toolkit",
		    "libcudart.so.12", "12.4.127", true, CT_RULE_LD_SO_CACHE, CT_RT_TOO_NEW);
	judge(&d, &fs, 2);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR,
		   "/usr/local/cuda-12.4/lib64/libcudart.so.12",
		   "the CUDA 12.4 runtime '/usr/local/cuda-12.4/lib64/libcudart.so.12' needs a "
		   "newer driver than libcuda.so.1 520.61.05, which supports CUDA 11.8");
	assert_int_equal(f->nevidence, 3);
	expect_fix(f, "update the driver to 525.60.13 or newer (any driver of that branch runs "
		      "every CUDA 12 release);\n"
		      "or use a CUDA 11 runtime: a build of your framework for CUDA 11 (pip: the "
		      "-cu11 wheels)");
	f = expect(&fs, 1, CT_F_DRIVER_TOO_OLD, CT_SEV_WARNING, WHEEL13,
		   "the CUDA 13.0 runtime '" WHEEL13 "' needs a newer driver than libcuda.so.1 "
		   "520.61.05, which supports CUDA 11.8");
	EXPECT_EVIDENCE(f, WHEEL13 " (13.0.96, pip wheel)",
			"the driver: " LIBCUDA ", version 520.61.05, CUDA 11.8 "
			"(cuDriverGetVersion)",
			RUNS_35);
	expect_fix_has(f, "update the driver to 580.65.06 or newer");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* A forward-compatibility copy of a new enough branch, not taken, is a way out. */
static void test_too_old_forward_compat(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	driver_550(&d);
	add_runtime(&d, CUDART13, "CUDA toolkit", "libcudart.so.13", "13.0.96", true,
		    CT_RULE_LD_SO_CACHE, CT_RT_TOO_NEW);
	/* Too old a branch for CUDA 13 (580 on): never suggested. */
	add_compat(&d, "/usr/local/cuda-12.8/compat/libcuda.so.1", "570.124.06", false);
	add_compat(&d, "/usr/local/cuda-13.0/compat/libcuda.so.1", "580.65.06", false);
	add_compat(&d, "/usr/local/cuda-13.1/compat/libcuda.so.1", "590.44.01", false);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR, CUDART13, NULL);
	assert_int_equal(f->nevidence, 3);
	expect_fix(f, "update the driver to 580.65.06 or newer (any driver of that branch runs "
		      "every CUDA 13 release);\n"
		      "or use a CUDA 12 runtime: a build of your framework for CUDA 12 (pip: the "
		      "-cu12 wheels);\n"
		      "or, on a data-center GPU, put '/usr/local/cuda-13.0/compat' first on "
		      "LD_LIBRARY_PATH (forward compatibility, libcuda 580.65.06)");

	/* The copy already taken is not offered again; the next one is. */
	d.drv.compat_libs[1].taken = true;
	rejudge(&d, &fs, 1);
	expect_fix_has(&fs.f[0], "put '/usr/local/cuda-13.1/compat' first on LD_LIBRARY_PATH "
				 "(forward compatibility, libcuda 590.44.01)");

	/* Only a copy of an older branch: no such clause. */
	d.drv.compat_libs[2].taken = true;
	rejudge(&d, &fs, 1);
	expect_fix_lacks(&fs.f[0], "forward compatibility");
	expect_fix_lacks(&fs.f[0], "compat");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* Verdicts other than too new draw no driver-too-old error or warning. */
static void test_too_old_other_verdicts(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;

	(void)state;
	driver_550(&d);
	add_runtime(&d, CUDART13, "CUDA toolkit", "libcudart.so.13", "13.0.96", true,
		    CT_RULE_LD_SO_CACHE, CT_RT_UNKNOWN);
	add_runtime(&d, "/usr/local/cuda-11.8/lib64/libcudart.so.11.0", "CUDA toolkit",
		    "libcudart.so.11.0", "11.8.89", true, CT_RULE_LD_SO_CACHE, CT_RT_OK);
	/* The rules follow doctor.c's verdict, which the facts show, not the numbers. */
	add_runtime(&d, WHEEL13, "pip wheel", "libcudart.so.13", "13.0.96", false,
		    CT_RULE_UNKNOWN, CT_RT_OK);
	judge(&d, &fs, 0);
	ct_findings_release(&fs);

	/* Too new but no driver version to judge by (facts doctor.c never makes). */
	d.rt[0].verdict = CT_RT_TOO_NEW;
	d.drv.probe.version = -1;
	judge(&d, &fs, 0);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- minor-version compatibility ------------------------------------------- */

#define FAKECUDA "/tmp/ex/fakecuda/libcuda.so.1"
#define WHEEL12 "/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12"
#define PTX_222 "features newer than CUDA 12.2 fail, and so does PTX the driver's JIT cannot " \
		"read (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)"

/* docs/doctor.md's example: a 12.4 wheel on a 12.2 driver, a 12.1 copy it runs. */
static void test_minor_compat(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	facts_init(&d);
	working_driver(&d, FAKECUDA, "", 12020);
	add_runtime(&d, "/tmp/ex/opt/cuda-12.1/lib/libcudart.so.12", "LD_LIBRARY_PATH",
		    "libcudart.so.12", "12.1.105", true, CT_RULE_LD_LIBRARY_PATH, CT_RT_OK);
	add_runtime(&d, WHEEL12, "pip wheel", "libcudart.so.12", "12.4.127", false,
		    CT_RULE_UNKNOWN, CT_RT_MINOR_COMPAT);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_INFO, WHEEL12,
		   "the CUDA 12.4 runtime '" WHEEL12 "' runs on the CUDA 12.2 driver through "
		   "minor-version compatibility");
	EXPECT_EVIDENCE(f, WHEEL12 " (12.4.127, pip wheel)",
			"the driver: " FAKECUDA ", CUDA 12.2 (cuDriverGetVersion)", PTX_222);
	expect_fix(f, "nothing to do for programs that carry SASS for the GPU; for PTX or newer "
		      "features, update the driver to 550.54.14, the one shipped with CUDA 12.4");

	ct_findings_release(&fs);
	ct_doctor_release(&d);

	/* The copy the loader takes leads (a note even then), every copy in the evidence. */
	facts_init(&d);
	working_driver(&d, FAKECUDA, "535.54.03", 12020);
	add_runtime(&d, WHEEL12, "pip wheel", "libcudart.so.12", "12.3.101", false,
		    CT_RULE_UNKNOWN, CT_RT_MINOR_COMPAT);
	add_runtime(&d, "/opt/cuda-12.4/lib/libcudart.so.12", "LD_LIBRARY_PATH",
		    "libcudart.so.12", "12.4.99", true, CT_RULE_LD_LIBRARY_PATH,
		    CT_RT_MINOR_COMPAT);
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_INFO, "/opt/cuda-12.4/lib/libcudart.so.12",
		   "the CUDA 12.4 runtime '/opt/cuda-12.4/lib/libcudart.so.12' runs on the CUDA "
		   "12.2 driver through minor-version compatibility");
	EXPECT_EVIDENCE(f, WHEEL12 " (12.3.101, pip wheel)",
			"/opt/cuda-12.4/lib/libcudart.so.12 (12.4.99, LD_LIBRARY_PATH): the loader "
			"takes it for libcudart.so.12 [LD_LIBRARY_PATH]",
			"the driver: " FAKECUDA ", version 535.54.03, CUDA 12.2 "
			"(cuDriverGetVersion)",
			PTX_222);
	expect_fix_has(f, "update the driver to 550.54.14, the one shipped with CUDA 12.4");

	/* None taken: the first leads, still one note. */
	d.rt[1].taken = false;
	rejudge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_INFO, WHEEL12, NULL);
	assert_int_equal(f->nevidence, 4);
	assert_string_equal(f->evidence[1], "/opt/cuda-12.4/lib/libcudart.so.12 (12.4.99, "
					    "LD_LIBRARY_PATH)");
	/* The message names the lead copy with its own version, not the newest's. */
	assert_string_equal(f->message, "the CUDA 12.3 runtime '" WHEEL12 "' runs on the CUDA "
					"12.2 driver through minor-version compatibility");
	expect_fix_has(f, "update the driver to 550.54.14, the one shipped with CUDA 12.4");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* A minor newer than every toolkit cudatrace knows: no driver to name. */
static void test_minor_compat_unknown_toolkit(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	const struct ct_finding *f;

	(void)state;
	facts_init(&d);
	working_driver(&d, LIBCUDA, "580.65.06", 13000);
	add_runtime(&d, "/usr/local/cuda-13.9/lib64/libcudart.so.13", "CUDA toolkit",
		    "libcudart.so.13", "13.9.10", true, CT_RULE_LD_SO_CACHE, CT_RT_MINOR_COMPAT);
	/* The driver is the file the loader takes, not the one dlopen mapped... */
	snprintf(d.drv.probe.path, sizeof(d.drv.probe.path), "/run/nvidia/libcuda.so.1");
	judge(&d, &fs, 1);
	assert_int_equal(fs.f[0].nevidence, 3);
	assert_string_equal(fs.f[0].evidence[1], "the driver: " LIBCUDA ", version 580.65.06, "
						 "CUDA 13.0 (cuDriverGetVersion)");
	ct_findings_release(&fs);
	/* ...unless the model found none. */
	d.drv.path = NULL;
	judge(&d, &fs, 1);
	f = expect(&fs, 0, CT_F_DRIVER_TOO_OLD, CT_SEV_INFO,
		   "/usr/local/cuda-13.9/lib64/libcudart.so.13",
		   "the CUDA 13.9 runtime '/usr/local/cuda-13.9/lib64/libcudart.so.13' runs on the "
		   "CUDA 13.0 driver through minor-version compatibility");
	assert_int_equal(f->nevidence, 3);
	assert_string_equal(f->evidence[1], "the driver: /run/nvidia/libcuda.so.1, version "
					    "580.65.06, CUDA 13.0 (cuDriverGetVersion)");
	expect_fix(f, "nothing to do for programs that carry SASS for the GPU; for PTX or newer "
		      "features, update the driver to a newer release");
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- lib-shadowed ------------------------------------------------------------ */

static void test_shadowed(void **state)
{
	static const char fix[] = "LD_LIBRARY_PATH is searched before every RUNPATH and "
				  "ld.so.cache: take '%s' off it so programs and wheels find the "
				  "copies they were built with;\n"
				  "or, if it is meant to win, give it the versions the others have";
	struct ct_doctor d;
	struct ct_findings fs;
	struct ct_doctor_ldentry *en;
	const struct ct_finding *f;
	char want[1024];

	(void)state;
	facts_init(&d);
	working_driver(&d, LIBCUDA, "550.54.15", 12040);
	/* docs/doctor.md's example: an old toolkit's folder before a wheel. */
	en = add_entry(&d, "/tmp/ex/opt/cuda-12.1/lib");
	add_shadow(en, "libcudart.so.12", "12.1.105", WHEEL12, "pip wheel", "12.4.127");
	/* Same release elsewhere (listed, raises nothing), then two that differ. */
	en = add_entry(&d, "/opt/mix/lib");
	add_shadow(en, "libcublas.so.12", "12.4.5.8", "/usr/local/cuda/lib64/libcublas.so.12",
		   "ld.so.cache", "12.4.5.8");
	add_shadow(en, "libcudart.so.12", "", "/usr/local/cuda/lib64/libcudart.so.12",
		   "ld.so.cache", "12.4.127");
	add_shadow(en, "libnvJitLink.so.12", "12.4.127",
		   "/opt/conda/lib/libnvJitLink.so.12", "conda", "");
	/* Only copies of the same release: nothing. */
	en = add_entry(&d, "/opt/same/lib");
	add_shadow(en, "libcudart.so.12", "12.4.127", "/usr/local/cuda/lib64/libcudart.so.12",
		   "ld.so.cache", "12.4.127");
	/* No CUDA library, or one that hides nothing. */
	add_entry(&d, "");
	en = add_entry(&d, "/opt/alone/lib");
	en->libs = ct_xcalloc(1, sizeof(*en->libs));
	en->libs[en->nlibs++] = ct_xstrdup("libcufft.so.11");

	judge(&d, &fs, 2);
	f = expect(&fs, 0, CT_F_LIB_SHADOWED, CT_SEV_WARNING, "/tmp/ex/opt/cuda-12.1/lib",
		   "LD_LIBRARY_PATH puts '/tmp/ex/opt/cuda-12.1/lib/libcudart.so.12' before '"
		   WHEEL12 "'");
	EXPECT_EVIDENCE(f, "libcudart.so.12: /tmp/ex/opt/cuda-12.1/lib/libcudart.so.12 (12.1.105) "
			"is taken before " WHEEL12 " (12.4.127, pip wheel)");
	snprintf(want, sizeof(want), fix, "/tmp/ex/opt/cuda-12.1/lib");
	expect_fix(f, want);

	f = expect(&fs, 1, CT_F_LIB_SHADOWED, CT_SEV_WARNING, "/opt/mix/lib",
		   "LD_LIBRARY_PATH puts '/opt/mix/lib/libcudart.so.12' before "
		   "'/usr/local/cuda/lib64/libcudart.so.12', and other CUDA libraries before "
		   "their copies");
	EXPECT_EVIDENCE(f, "libcudart.so.12: /opt/mix/lib/libcudart.so.12 (version unknown) is "
			"taken before /usr/local/cuda/lib64/libcudart.so.12 (12.4.127, "
			"ld.so.cache)",
			"libnvJitLink.so.12: /opt/mix/lib/libnvJitLink.so.12 (12.4.127) is taken "
			"before /opt/conda/lib/libnvJitLink.so.12 (version unknown, conda)");
	snprintf(want, sizeof(want), fix, "/opt/mix/lib");
	expect_fix(f, want);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- everything at once ------------------------------------------------------ */

/* Each rule once, ordered errors, warnings, notes (first seen within each). */
static void test_order(void **state)
{
	struct ct_doctor d;
	struct ct_findings fs;
	struct ct_doctor_ldentry *en;

	(void)state;
	facts_init(&d);
	working_driver(&d, FAKECUDA, "", 12020);
	d.drv.probe.init_result = 100;
	d.drv.probe.count = -1;
	add_runtime(&d, WHEEL12, "pip wheel", "libcudart.so.12", "12.4.127", false,
		    CT_RULE_UNKNOWN, CT_RT_MINOR_COMPAT);
	en = add_entry(&d, "/tmp/ex/opt/cuda-12.1/lib");
	add_shadow(en, "libcudart.so.12", "12.1.105", WHEEL12, "pip wheel", "12.4.127");
	add_runtime(&d, WHEEL13, "pip wheel", "libcudart.so.13", "13.0.96", false,
		    CT_RULE_UNKNOWN, CT_RT_TOO_NEW);
	add_runtime(&d, CUDART13, "CUDA toolkit", "libcudart.so.13", "13.0.96", true,
		    CT_RULE_LD_SO_CACHE, CT_RT_TOO_NEW);
	judge(&d, &fs, 4);
	expect(&fs, 0, CT_F_NO_DEVICE, CT_SEV_ERROR, FAKECUDA, NO_DEVICE_100);
	expect(&fs, 1, CT_F_DRIVER_TOO_OLD, CT_SEV_ERROR, CUDART13,
	       "the CUDA 13.0 runtime '" CUDART13 "' needs a newer driver than this one, which "
	       "supports CUDA 12.2");
	assert_int_equal(fs.f[1].nevidence, 4);
	expect(&fs, 2, CT_F_LIB_SHADOWED, CT_SEV_WARNING, "/tmp/ex/opt/cuda-12.1/lib",
	       NULL);
	expect(&fs, 3, CT_F_DRIVER_TOO_OLD, CT_SEV_INFO, WHEEL12, NULL);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
}

/* ---- the live machine -------------------------------------------------------- */

/*
 * ct_doctor_examine on this machine, whatever it has, with a stand-in
 * /proc/driver/nvidia: the module's facts are read from it, and the rules
 * take whatever the machine gave.
 */
static void test_examine_smoke(void **state)
{
	static const char line[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
				   "Tue Mar  5 22:23:56 UTC 2024";
	char proc[512], path[600];
	struct ct_doctor d;
	struct ct_findings fs;
	const char *why = NULL;
	size_t i;
	FILE *f;

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", top);
	snprintf(path, sizeof(path), "%s/gpus", proc);
	assert_int_equal(mkdir(proc, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/gpus/0000:01:00.0", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/gpus/0000:41:00.0", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/version", proc);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\nGCC version:  gcc version 12.2.0\n", line);
	fclose(f);
	setenv("CUDATRACE_NVIDIA_PROC", proc, 1);
	setenv("CUDA_VISIBLE_DEVICES", "GPU-none", 1);

	if (ct_doctor_examine(&d, &why) < 0) {
		unsetenv("CUDATRACE_NVIDIA_PROC");
		unsetenv("CUDA_VISIBLE_DEVICES");
		print_message("the loader model cannot start here: %s\n", why);
		skip();
	}
	assert_string_equal(d.drv.proc, proc);
	assert_string_equal(d.drv.module_version, "550.54.15");
	assert_non_null(d.drv.module_line);
	assert_string_equal(d.drv.module_line, line);
	assert_int_equal(d.drv.module_gpus, 2);
	assert_non_null(d.drv.visible_devices);
	assert_string_equal(d.drv.visible_devices, "GPU-none");
	assert_non_null(d.drv.search);
	assert_ptr_equal(d.drv.path, d.drv.search->path);
	ct_findings_init(&fs);
	ct_doctor_findings(&d, &fs);
	for (i = 0; i < fs.n; i++) {
		assert_true(fs.f[i].code < CT_F_COUNT);
		assert_non_null(fs.f[i].message);
		assert_non_null(fs.f[i].fix);
	}
	/* The driver is either missing or examined further: never both. */
	for (i = 0; i < fs.n; i++)
		if (fs.f[i].code == CT_F_DRIVER_MISSING)
			assert_false(d.drv.probe.opened && d.drv.probe.init_result >= 0);
	ct_findings_release(&fs);
	ct_doctor_release(&d);
	unsetenv("CUDATRACE_NVIDIA_PROC");
	unsetenv("CUDA_VISIBLE_DEVICES");
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_missing_not_found),
		T(test_missing_cannot_load),
		T(test_missing_unusable),
		T(test_no_device_visible_devices),
		T(test_no_device_module),
		T(test_no_device_mismatch),
		T(test_no_device_stub),
		T(test_no_device_forward_compat),
		T(test_healthy),
		T(test_too_old_taken),
		T(test_too_old_one_per_major),
		T(test_too_old_not_taken),
		T(test_too_old_two_majors),
		T(test_too_old_forward_compat),
		T(test_too_old_other_verdicts),
		T(test_minor_compat),
		T(test_minor_compat_unknown_toolkit),
		T(test_shadowed),
		T(test_order),
		T(test_examine_smoke),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

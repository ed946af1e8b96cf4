/*
 * The loader model (cli/loader/resolve.c) on a made-up machine: its
 * platform facts filled in by hand (one default directory of the test's
 * own, no ld.so.cache), tiny shared objects built here with cc. The
 * order of the rules (RPATH, LD_LIBRARY_PATH, RUNPATH, default), the
 * loader's stop at a file that is not ELF, names already loaded, $ORIGIN;
 * the one symbol-version analysis (cli/loader/symvers.c) with its fix; the
 * loader rules' vocabulary (cli/common/rules.c). The differential test
 * against glibc itself is tests/e2e/ldd-oracle; this one needs no loader.
 */
#include "helpers.h"
#include "machine.h"

#include <unistd.h>

#include "describe.h"
#include "libfacts.h"
#include "platform.h"
#include "libnames.h"
#include "resolve.h"
#include "rules.h"
#include "symvers.h"

static char top[256];


/*
 * top/a/libdep.so.1   defines dep_a@DEP_1 only (an old copy)
 * top/b/libdep.so.1   defines dep_a@DEP_1 and dep_b@DEP_2
 * top/c/libdep.so.1   not an ELF file
 * top/req/librunpath.so   needs libdep.so.1 (DEP_2), RUNPATH $ORIGIN/../b
 * top/req/librpath.so     the same with DT_RPATH
 * top/req/libplain.so     needs libdep.so.1, no paths of its own
 * top/sys/                the machine's one default directory
 * top/one/{old,new}/libone.so.1   every symbol under one version named
 *                         after the soname; the old copy lacks one_b
 * top/req/libone_user.so  needs one_b from libone.so.1, RUNPATH $ORIGIN/../one/new
 */
static int setup(void **state)
{
	(void)state;
	if (system("command -v cc >/dev/null 2>&1") != 0)
		return 0;
	snprintf(top, sizeof(top), "%s/ct-resolve-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top))
		return -1;
	sh("cd %s && mkdir a b c req sys one one/old one/new && "
	   "printf 'DEP_1 { global: dep_a; local: *; };\\n' > old.map && "
	   "printf 'DEP_1 { global: dep_a; local: *; };\\nDEP_2 { global: dep_b; } DEP_1;\\n' > new.map && "
	   "printf 'int dep_a(void){return 1;}\\n#ifdef NEW\\nint dep_b(void){return 2;}\\n#endif\\n' > dep.c && "
	   "cc -shared -fPIC -o a/libdep.so.1 dep.c -Wl,-soname,libdep.so.1 -Wl,--version-script,old.map && "
	   "cc -shared -fPIC -DNEW -o b/libdep.so.1 dep.c -Wl,-soname,libdep.so.1 -Wl,--version-script,new.map && "
	   "echo 'not a library' > c/libdep.so.1 && "
	   "printf 'int dep_b(void);\\nint req(void){return dep_b();}\\n' > req.c && "
	   "cc -shared -fPIC -o req/librunpath.so req.c b/libdep.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../b' && "
	   "cc -shared -fPIC -o req/librpath.so req.c b/libdep.so.1 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../b' && "
	   "cc -shared -fPIC -o req/libplain.so req.c b/libdep.so.1 && "
	   "printf 'libone.so.1 { global: *; };\\n' > one.map && "
	   "printf 'int one_a(void){return 1;}\\n#ifdef NEW\\nint one_b(void){return 2;}\\n#endif\\n' > one.c && "
	   "cc -shared -fPIC -o one/old/libone.so.1 one.c -Wl,-soname,libone.so.1 -Wl,--version-script,one.map && "
	   "cc -shared -fPIC -DNEW -o one/new/libone.so.1 one.c -Wl,-soname,libone.so.1 -Wl,--version-script,one.map && "
	   "printf 'int one_b(void);\\nint use(void){return one_b();}\\n' > use.c && "
	   "cc -shared -fPIC -o req/libone_user.so use.c one/new/libone.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../one/new'",
	   top);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (top[0])
		sh("rm -rf %s", top);
	return 0;
}

static void need_cc(void)
{
	if (!top[0])
		skip();
}

/* The made-up machine: x86-64, $LIB "lib", one default directory, no cache. */
static void machine(struct ct_loader *L, const char *library_path)
{
	static char sysdir[300], cache[300];
	static char *dirs[] = { sysdir };
	struct ct_loader like;
	struct ct_loader_env env = { library_path ? library_path : "", "" };

	snprintf(sysdir, sizeof(sysdir), "%s/sys", top);
	snprintf(cache, sizeof(cache), "%s/no-ld.so.cache", top);
	made_up_platform(&like, dirs, 1, NULL, 0, cache);
	ct_loader_init_like(L, &like, &env);
	assert_false(L->cache_ok);
}

static struct ct_lobj *start(struct ct_loader *L, const char *rel)
{
	char path[512];
	struct ct_lobj *o;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	o = ct_loader_start(L, path, &err);
	if (!o)
		fail_msg("cannot start %s: %d", path, err);
	return o;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

static void test_runpath(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k;
	char rule[128];

	(void)state;
	need_cc();
	machine(&L, NULL);
	k = ct_loader_lookup(&L, start(&L, "req/librunpath.so"), "libdep.so.1");
	assert_int_equal(k->found_via, CT_RULE_RUNPATH);
	assert_non_null(k->object);
	assert_true(ends_with(k->object->path, "/b/libdep.so.1"));
	assert_ptr_equal(k->via_owner, L.main);
	assert_string_equal(ct_rule_text(k->found_via, k->via_owner, rule, sizeof(rule)),
			    "RUNPATH of librunpath.so");
	ct_loader_release(&L);
}

/* LD_LIBRARY_PATH comes before RUNPATH: the old copy wins. */
static void test_ld_library_path_before_runpath(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k;
	char dir[300];

	(void)state;
	need_cc();
	snprintf(dir, sizeof(dir), "%s/a", top);
	machine(&L, dir);
	k = ct_loader_lookup(&L, start(&L, "req/librunpath.so"), "libdep.so.1");
	assert_int_equal(k->found_via, CT_RULE_LD_LIBRARY_PATH);
	assert_true(ends_with(k->object->path, "/a/libdep.so.1"));
	assert_int_equal(k->cands[0].via, CT_RULE_LD_LIBRARY_PATH);
	assert_int_equal(k->cands[0].outcome, CT_FOUND);
	ct_loader_release(&L);
}

/* DT_RPATH comes before LD_LIBRARY_PATH. */
static void test_rpath_before_ld_library_path(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k;
	char dir[300];

	(void)state;
	need_cc();
	snprintf(dir, sizeof(dir), "%s/a", top);
	machine(&L, dir);
	k = ct_loader_lookup(&L, start(&L, "req/librpath.so"), "libdep.so.1");
	assert_int_equal(k->found_via, CT_RULE_RPATH);
	assert_true(ends_with(k->object->path, "/b/libdep.so.1"));
	ct_loader_release(&L);
}

/* Nowhere: every rule tried in order, the default directory last. */
static void test_not_found(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k;
	const struct ct_cand *last;

	(void)state;
	need_cc();
	machine(&L, NULL);
	k = ct_loader_lookup(&L, start(&L, "req/libplain.so"), "libnothere.so.3");
	assert_int_equal(k->found_via, CT_RULE_NOT_FOUND);
	assert_null(k->object);
	assert_non_null(k->error);
	/* No ld.so.cache on this machine, no paths of its own: the default directory alone. */
	assert_int_equal(k->ncands, 1);
	last = &k->cands[0];
	assert_int_equal(last->via, CT_RULE_DEFAULT);
	assert_int_equal(last->outcome, CT_FILE_MISSING);
	ct_loader_release(&L);
}

/* A file that is not ELF stops the loader there: no later candidate is tried. */
static void test_not_elf_stops(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k;
	char dir[300];

	(void)state;
	need_cc();
	snprintf(dir, sizeof(dir), "%s/c", top);
	machine(&L, dir);
	k = ct_loader_lookup(&L, start(&L, "req/librunpath.so"), "libdep.so.1");
	assert_null(k->object);
	assert_true(k->fatal);
	assert_int_equal(k->cands[k->ncands - 1].outcome, CT_NOT_ELF);
	assert_int_equal(k->cands[k->ncands - 1].via, CT_RULE_LD_LIBRARY_PATH);
	ct_loader_release(&L);
}

/* A second request for a soname gets the object already mapped. */
static void test_already_loaded(void **state)
{
	struct ct_loader L;
	struct ct_lookup *k1, *k2;
	struct ct_lobj *main_obj;

	(void)state;
	need_cc();
	machine(&L, NULL);
	main_obj = start(&L, "req/librunpath.so");
	k1 = ct_loader_lookup(&L, main_obj, "libdep.so.1");
	k2 = ct_loader_lookup(&L, main_obj, "libdep.so.1");
	assert_int_equal(k2->found_via, CT_RULE_ALREADY_LOADED);
	assert_ptr_equal(k1->object, k2->object);
	assert_false(k2->new_object);
	ct_loader_release(&L);
}

/* The whole start-up, then the gaps: the old copy lacks DEP_2. */
static void test_version_gap(void **state)
{
	struct ct_loader L;
	struct ct_version_gap *g;
	char dir[300], want[400];
	size_t n;

	(void)state;
	need_cc();
	snprintf(dir, sizeof(dir), "%s/a", top);
	machine(&L, dir);
	start(&L, "req/librunpath.so");
	ct_loader_load_all(&L);
	g = ct_version_gaps(&L, &n);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].need->version, "DEP_2");
	assert_null(g[0].missing_symbol);
	assert_true(ends_with(g[0].lacking->path, "/a/libdep.so.1"));
	assert_non_null(g[0].having);
	assert_true(ends_with(g[0].having, "/b/libdep.so.1"));
	assert_string_equal(g[0].having_where, "RUNPATH of librunpath.so, later in the order");
	snprintf(want, sizeof(want), "take %s off LD_LIBRARY_PATH, so that librunpath.so gets ", dir);
	assert_true(strncmp(g[0].fix, want, strlen(want)) == 0);
	ct_version_gaps_free(g, n);
	ct_loader_release(&L);

	/* Its own copy: nothing missing. */
	machine(&L, NULL);
	start(&L, "req/librunpath.so");
	ct_loader_load_all(&L);
	g = ct_version_gaps(&L, &n);
	assert_int_equal(n, 0);
	ct_version_gaps_free(g, n);
	ct_loader_release(&L);
}

/* NVIDIA's shape: one version, a symbol missing under it. */
static void test_symbol_under_one_version(void **state)
{
	struct ct_symscope scope;
	struct ct_symcache *cache;
	struct ct_elfinfo e;
	char user[400], old_copy[400], new_copy[400];
	const char *paths[1], *missing = NULL;
	const struct ct_verneed *need = NULL;
	size_t i, nmissing = 0;

	(void)state;
	need_cc();
	snprintf(user, sizeof(user), "%s/req/libone_user.so", top);
	snprintf(old_copy, sizeof(old_copy), "%s/one/old/libone.so.1", top);
	snprintf(new_copy, sizeof(new_copy), "%s/one/new/libone.so.1", top);
	ct_elfinfo_init(&e);
	assert_int_equal(ct_elfinfo_read(&e, user), 0);
	for (i = 0; i < e.nverneed; i++)
		if (e.verneed[i].file && strcmp(e.verneed[i].file, "libone.so.1") == 0)
			need = &e.verneed[i];
	assert_non_null(need);
	cache = ct_symcache_new();
	paths[0] = old_copy;
	ct_symscope_init(&scope, paths, 1, cache);
	assert_int_equal(ct_symver_check(&scope, old_copy, need, &missing, &nmissing),
			 CT_SYMVER_NO_SYMBOL);
	assert_string_equal(missing, "one_b");
	assert_int_equal(nmissing, 1);
	ct_symscope_release(&scope);
	paths[0] = new_copy;
	ct_symscope_init(&scope, paths, 1, cache);
	assert_int_equal(ct_symver_check(&scope, new_copy, need, &missing, &nmissing), CT_SYMVER_OK);
	ct_symscope_release(&scope);
	/* Asked again, from the cache: the same answers. */
	assert_true(ct_symcache_satisfies(cache, new_copy, "libone.so.1", "one_b"));
	assert_false(ct_symcache_satisfies(cache, old_copy, "libone.so.1", "one_b"));
	assert_true(ct_symcache_satisfies(cache, old_copy, "libone.so.1", NULL));
	assert_false(ct_symcache_satisfies(cache, "/nonexistent/libone.so.1", "libone.so.1", NULL));
	ct_symcache_free(cache);
	ct_elfinfo_release(&e);
}

/* One wording of the fix, by the rule that took the lacking copy. */
static void test_symver_fix_wording(void **state)
{
	struct ct_symver_ctx python = { .python = true }, sys = { .python = false };
	struct ct_verneed need;
	char buf[1024];

	(void)state;
	memset(&need, 0, sizeof(need));
	need.file = "libnvJitLink.so.12";
	need.version = "libnvJitLink.so.12";
	ct_symver_fix(buf, sizeof(buf), "libcusparse.so.12", false, "/opt/cuda-12.1/lib64/libnvJitLink.so.12",
		      NULL, CT_RULE_LD_LIBRARY_PATH, &need, "__nvJitLinkAddData_12_1",
		      "/w/nvjitlink/lib/libnvJitLink.so.12", "pip wheel", NULL);
	assert_string_equal(buf, "take /opt/cuda-12.1/lib64 off LD_LIBRARY_PATH, so that "
				 "libcusparse.so.12 gets /w/nvjitlink/lib/libnvJitLink.so.12 (pip wheel)");
	ct_symver_fix(buf, sizeof(buf), "libcusparse.so.12", false, "/p/libnvJitLink.so.12", NULL, CT_RULE_PRELOAD,
		      &need, NULL, "/w/libnvJitLink.so.12", "pip wheel", NULL);
	assert_string_equal(buf, "drop /p/libnvJitLink.so.12 from LD_PRELOAD, so that "
				 "libcusparse.so.12 gets /w/libnvJitLink.so.12 (pip wheel)");
	ct_symver_fix(buf, sizeof(buf), "libcusparse.so.12", false, "/usr/lib/libnvJitLink.so.12",
		      NULL, CT_RULE_LD_SO_CACHE, &need, "__nvJitLinkAddData_12_1", NULL, NULL, NULL);
	assert_string_equal(buf, "install a libnvJitLink.so.12 that defines __nvJitLinkAddData_12_1 "
				 "under libnvJitLink.so.12 (a newer release of its package)");
	/* A renamed major: no release of it ever works; the real one is named. */
	need.file = "libcudart.so.12";
	need.version = "libcudart.so.12";
	ct_symver_fix(buf, sizeof(buf), "libtorch_cuda.so", false, "/opt/x/libcudart.so.12",
		      "libcudart.so.13", CT_RULE_LD_LIBRARY_PATH, &need, NULL, NULL, NULL, &python);
	assert_string_equal(buf, "'/opt/x/libcudart.so.12' is a renamed libcudart.so.13, and a "
				 "renamed major never works (a build for libcudart.so.12 needs "
				 "that major's symbols): delete that copy or link, or take /opt/x "
				 "off LD_LIBRARY_PATH; then install the real libcudart.so.12: pip "
				 "install nvidia-cuda-runtime-cu12, or the distribution's package");
	/* A Node or C program: no pip wheel helps it. */
	ct_symver_fix(buf, sizeof(buf), "onnxruntime_binding.node", false, "/opt/x/libcudart.so.12",
		      "libcudart.so.13", CT_RULE_LD_LIBRARY_PATH, &need, NULL, NULL, NULL, NULL);
	assert_string_equal(buf, "'/opt/x/libcudart.so.12' is a renamed libcudart.so.13, and a "
				 "renamed major never works (a build for libcudart.so.12 needs "
				 "that major's symbols): delete that copy or link, or take /opt/x "
				 "off LD_LIBRARY_PATH; then install the real libcudart.so.12: the "
				 "CUDA 12 toolkit, or the distribution's package");
	/* glibc's own version: a build of the requester for this glibc, never a libc.so.6. */
	need.file = "libc.so.6";
	need.version = "GLIBC_2.38";
	snprintf(sys.newest, sizeof(sys.newest), "GLIBC_2.36");
	snprintf(sys.glibc, sizeof(sys.glibc), "2.36");
	ct_symver_fix(buf, sizeof(buf), "libnccl.so.2", false, "/lib/x86_64-linux-gnu/libc.so.6",
		      NULL, CT_RULE_LD_SO_CACHE, &need, "__isoc23_sscanf", NULL, NULL, &sys);
	assert_string_equal(buf, "libnccl.so.2 needs GLIBC_2.38 of the C library, which comes with "
				 "the distribution and is not replaced for one program (this "
				 "system's libc.so.6 defines up to GLIBC_2.36): use a build of "
				 "libnccl.so.2 made for glibc 2.36 or older: your distribution's own "
				 "package of it, or a manylinux wheel tagged manylinux_2_36 or lower");
	/* Several requesters, nothing known of the system. */
	ct_symver_fix(buf, sizeof(buf), "a.so and b.so", true, "/lib/x86_64-linux-gnu/libc.so.6",
		      NULL, CT_RULE_LD_SO_CACHE, &need, NULL, NULL, NULL, NULL);
	assert_string_equal(buf, "a.so and b.so need GLIBC_2.38 of the C library, which comes "
				 "with the distribution and is not replaced for one program: use "
				 "builds of them made for this system's glibc or older: your "
				 "distribution's own packages of them, or a manylinux wheel");
}

/* What a library is, against the name it was loaded by. */
static void test_library_renamed(void **state)
{
	char v[64];
	int minor;

	(void)state;
	assert_true(ct_library_renamed("/opt/x/libcudart.so.12", "libcudart.so.13"));
	assert_false(ct_library_renamed("/opt/x/libcudart.so.13", "libcudart.so.13"));
	assert_false(ct_library_renamed("/opt/x/libcudart.so.13.0.96", "libcudart.so.13"));
	assert_false(ct_library_renamed("/opt/x/libcudart.so", "libcudart.so.13"));
	assert_false(ct_library_renamed("/opt/x/libcublas.so.12", "libcublasLt.so.13"));
	assert_false(ct_library_renamed("/opt/x/libcudart.so.12", NULL));
	/* The driver's real files, as a process's maps name them. */
	assert_false(ct_library_renamed("/usr/lib/libnvidia-ml.so.580.159.04", "libnvidia-ml.so.1"));
	assert_false(ct_library_renamed("/usr/lib/libcuda.so.580.159.04", "libcuda.so.1"));
	/* A name that does not exist: the soname's major, never the name's. */
	assert_string_equal(ct_library_version_read("/nonexistent/libcudart.so.12", "libcudart.so.13",
						    v, sizeof(v)), "soname");
	assert_string_equal(v, "13");
	assert_string_equal(ct_library_version_read("/nonexistent/libcudart.so.13.0.96",
						    "libcudart.so.13", v, sizeof(v)), "file name");
	assert_string_equal(v, "13.0.96");
	/* Every CUDA 11.1 to 11.8 runtime is libcudart.so.11.0: its "11.0" is no version. */
	ct_library_version_read("/nonexistent/libcudart.so.11.8.89", "libcudart.so.11.0", v,
				sizeof(v));
	assert_string_equal(v, "11.8.89");
	ct_library_version_read("/nonexistent/libcudart.so.11.0", "libcudart.so.11.0", v, sizeof(v));
	assert_string_equal(v, "11");
	/* A release of another major than the soname's is a copy renamed: it lies. */
	ct_library_version_read("/nonexistent/libcudart.so.12.4.127", "libcudart.so.13", v,
				sizeof(v));
	assert_string_equal(v, "13");
	/* The driver's files are named by the driver's version. */
	ct_library_version_read("/nonexistent/libcuda.so.550.163.01", "libcuda.so.1", v, sizeof(v));
	assert_string_equal(v, "550.163.01");
	/* No DT_SONAME: the name, whatever it says. */
	ct_library_version_read("/nonexistent/libfoo.so.2.1", "", v, sizeof(v));
	assert_string_equal(v, "2.1");
	/* Nor a soname read (ps's list): the real file's release (ps-torch said "12"). */
	assert_string_equal(ct_library_version_read("/nonexistent/libcudart.so.12.4.127", NULL, v,
						    sizeof(v)), "file name");
	assert_string_equal(v, "12.4.127");
	ct_library_version_read("/nonexistent/libcudart.so.12", NULL, v, sizeof(v));
	assert_string_equal(v, "12");
	assert_int_equal(ct_library_cuda("libcudart.so.13", "13.0.96", &minor), 13);
	assert_int_equal(minor, 0);
	assert_int_equal(ct_library_cuda("libcublas.so.13", "13.1.0.3", &minor), 0);
	assert_string_equal(ct_renamed_words("/opt/x/libcudart.so.12", "libcudart.so.13", 13, 0, v,
					     sizeof(v)),
			    "'/opt/x/libcudart.so.12' is libcudart.so.13, CUDA 13.0, renamed");
}

/* The vocabulary: every rule's id parses back to it; unknown ids stay unknown. */
static void test_rules_vocabulary(void **state)
{
	enum ct_rule r;

	(void)state;
	for (r = CT_RULE_RPATH; r <= CT_RULE_SECURE; r++) {
		assert_int_equal(ct_rule_parse(ct_rule_id(r)), r);
		assert_string_not_equal(ct_rule_words(r), "?");
	}
	assert_string_equal(ct_rule_id(CT_RULE_LD_SO_CACHE), "ld.so.cache");
	assert_string_equal(ct_rule_words(CT_RULE_LD_LIBRARY_PATH), "LD_LIBRARY_PATH");
	assert_string_equal(ct_rule_words(CT_RULE_DEFAULT), "default directory");
	assert_int_equal(ct_rule_parse("bogus\033[2J"), CT_RULE_UNKNOWN);
	assert_int_equal(ct_rule_parse(NULL), CT_RULE_UNKNOWN);
	assert_string_equal(ct_rule_words(CT_RULE_UNKNOWN), "?");
	assert_string_equal(ct_rule_words((enum ct_rule)999), "?");
	assert_true(ct_rule_is_own_path(CT_RULE_RUNPATH) && ct_rule_is_own_path(CT_RULE_RPATH));
	assert_false(ct_rule_is_own_path(CT_RULE_LD_LIBRARY_PATH));
}

static void same_strings(const char *what, char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		fail_msg("%s: %zu against %zu", what, na, nb);
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			fail_msg("%s[%zu]: '%s' against '%s'", what, i, a[i], b[i]);
}

/*
 * What glibc 2.37 and later are asked (the LD_DEBUG probe alone) says what
 * --list-diagnostics says, on this machine's loader: $LIB, $PLATFORM, the
 * system directories, the cache, the active glibc-hwcaps, the version.
 * (tests/real/loader-facts checks the same in the trixie root, where the
 * probe alone is what cudatrace asks.)
 */
static void test_platform_probed(void **state)
{
	struct ct_platform d, p;

	(void)state;
	ct_platform_load(&d);
	if (!d.from_loader) {
		ct_platform_release(&d);
		skip();
	}
	assert_true(ct_platform_load_probed(&p));
	assert_true(p.from_loader);
	assert_string_equal(p.lib, d.lib);
	assert_string_equal(p.platform, d.platform);
	assert_string_equal(p.cache, d.cache);
	assert_string_equal(p.version, d.version);
	same_strings("system_dirs", p.system_dirs, p.nsystem_dirs, d.system_dirs, d.nsystem_dirs);
	same_strings("hwcaps", p.hwcaps, p.nhwcaps, d.hwcaps, d.nhwcaps);
	same_strings("subdirs", p.subdirs, p.nsubdirs, d.subdirs, d.nsubdirs);
	ct_platform_release(&p);
	ct_platform_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runpath),
		cmocka_unit_test(test_platform_probed),
		cmocka_unit_test(test_ld_library_path_before_runpath),
		cmocka_unit_test(test_rpath_before_ld_library_path),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_elf_stops),
		cmocka_unit_test(test_already_loaded),
		cmocka_unit_test(test_version_gap),
		cmocka_unit_test(test_symbol_under_one_version),
		cmocka_unit_test(test_symver_fix_wording),
		cmocka_unit_test(test_library_renamed),
		cmocka_unit_test(test_rules_vocabulary),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

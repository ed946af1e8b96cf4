/*
 * Python installations as files (cli/loader/python.c), on trees made in
 * a temporary folder: the site folders an interpreter lists (a prefix, a
 * venv with and without the base's, the user's site first outside venvs,
 * a version from the program's name or pyvenv.cfg, every pythonX.Y
 * folder when nothing says); the distributions of a site folder (name and
 * version from METADATA / PKG-INFO or the folder's name, shared objects
 * from RECORD with its quoting and ../ entries, from installed-files.txt,
 * from top_level.txt, from the name alone, and the unclaimed ones grouped
 * by their top-level folder); names of shared objects; PEP 503 names;
 * bad input (no such program, a folder, metadata without a name).
 */
#include "helpers.h"
#include "scratch.h"

#include <fcntl.h>
#include <unistd.h>

#include "python.h"

static int setup(void **state)
{
	(void)state;
	if (scratch_make("python") != 0)
		return -1;
	setenv("HOME", top, 1);
	unsetenv("PYTHONNOUSERSITE");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	scratch_remove();
	return 0;
}

/* top/rel with text (folders made), mode. */
static void put(const char *rel, const char *text, mode_t mode)
{
	char path[1024], dir[1024], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	if ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		scratch_mkdirs(dir);
	}
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void test_shared_object_names(void **state)
{
	(void)state;
	assert_true(ct_python_shared_object("x.so"));
	assert_true(ct_python_shared_object("_C.cpython-313-x86_64-linux-gnu.so"));
	assert_true(ct_python_shared_object("libcudnn.so.9"));
	assert_true(ct_python_shared_object("libcublas.so.12.4.5.8"));
	assert_false(ct_python_shared_object("x.so.py"));
	assert_false(ct_python_shared_object("libx.so.9a"));
	assert_false(ct_python_shared_object("solver.py"));
	assert_false(ct_python_shared_object("x.sorted"));
}

static void test_normal_name(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(ct_python_normal_name("nvidia_cudnn_cu12", buf, sizeof(buf)),
			    "nvidia-cudnn-cu12");
	assert_string_equal(ct_python_normal_name("Flash.Attn", buf, sizeof(buf)), "flash-attn");
	assert_string_equal(ct_python_normal_name("a--__b", buf, sizeof(buf)), "a-b");
}

static void test_prefix(void **state)
{
	struct ct_python py;

	(void)state;
	put("p/bin/python3.12", "#!/bin/sh\n", 0755);
	scratch_mkdirs("p/lib/python3.12/site-packages");
	scratch_mkdirs("p/lib/python3.11/site-packages"); /* another version's: not listed */
	scratch_mkdirs(".local/lib/python3.12/site-packages");
	assert_int_equal(ct_python_open(&py, scratch_at("p/bin/python3.12"), "PATH"), 0);
	assert_string_equal(py.version, "3.12");
	assert_string_equal(py.prefix, scratch_at("p"));
	assert_false(py.venv);
	assert_int_equal(py.nsites, 2);
	/* The user's site first, as site.py puts it. */
	assert_string_equal(py.sites[0], scratch_at(".local/lib/python3.12/site-packages"));
	assert_string_equal(py.sites[1], scratch_at("p/lib/python3.12/site-packages"));
	ct_python_release(&py);

	/* PYTHONNOUSERSITE drops it. */
	setenv("PYTHONNOUSERSITE", "1", 1);
	assert_int_equal(ct_python_open(&py, scratch_at("p/bin/python3.12"), "PATH"), 0);
	assert_int_equal(py.nsites, 1);
	ct_python_release(&py);
	unsetenv("PYTHONNOUSERSITE");
}

static void test_version_unknown(void **state)
{
	struct ct_python py;

	(void)state;
	/* A program named python3 (a wrapper): every pythonX.Y of its prefix. */
	put("w/bin/python3", "#!/bin/sh\n", 0755);
	scratch_mkdirs("w/lib/python3.10/site-packages");
	scratch_mkdirs("w/lib/python3.13/site-packages");
	scratch_mkdirs("w/home/.local/lib/python3.13/site-packages");
	setenv("HOME", scratch_at("w/home"), 1);
	assert_int_equal(ct_python_open(&py, scratch_at("w/bin/python3"), "PATH"), 0);
	assert_string_equal(py.version, "");
	assert_int_equal(py.nsites, 3);
	assert_string_equal(py.sites[0], scratch_at("w/home/.local/lib/python3.13/site-packages"));
	assert_string_equal(py.sites[1], scratch_at("w/lib/python3.10/site-packages"));
	assert_string_equal(py.sites[2], scratch_at("w/lib/python3.13/site-packages"));
	ct_python_release(&py);
	setenv("HOME", top, 1);
}

static void test_venv(void **state)
{
	struct ct_python py;
	char cfg[1024];

	(void)state;
	put("base/bin/python3.11", "#!/bin/sh\n", 0755);
	scratch_mkdirs("base/lib/python3.11/site-packages");
	scratch_mkdirs(".local/lib/python3.11/site-packages");
	scratch_mkdirs("venv/bin");
	scratch_mkdirs("venv/lib/python3.11/site-packages");
	assert_int_equal(symlink(scratch_at("base/bin/python3.11"), scratch_at("venv/bin/python3")), 0);
	snprintf(cfg, sizeof(cfg), "home = %s/base/bin/\ninclude-system-site-packages = false\n"
				   "version = 3.11.9\n", top);
	put("venv/pyvenv.cfg", cfg, 0644);
	assert_int_equal(ct_python_open(&py, scratch_at("venv/bin/python3"), "VIRTUAL_ENV"), 0);
	assert_true(py.venv);
	assert_string_equal(py.from, "VIRTUAL_ENV");
	assert_string_equal(py.real, scratch_at("base/bin/python3.11"));
	assert_string_equal(py.version, "3.11");
	assert_string_equal(py.prefix, scratch_at("venv"));
	assert_int_equal(py.nsites, 1);
	assert_string_equal(py.sites[0], scratch_at("venv/lib/python3.11/site-packages"));
	ct_python_release(&py);

	/* With the base's: the venv's, the user's, the base's. */
	snprintf(cfg, sizeof(cfg), "home = %s/base/bin\ninclude-system-site-packages = True\n", top);
	put("venv/pyvenv.cfg", cfg, 0644);
	assert_int_equal(ct_python_open(&py, scratch_at("venv/bin/python3"), "PATH"), 0);
	assert_int_equal(py.nsites, 3);
	assert_string_equal(py.sites[0], scratch_at("venv/lib/python3.11/site-packages"));
	assert_string_equal(py.sites[1], scratch_at(".local/lib/python3.11/site-packages"));
	assert_string_equal(py.sites[2], scratch_at("base/lib/python3.11/site-packages"));
	ct_python_release(&py);
}

static void test_bad_program(void **state)
{
	struct ct_python py;

	(void)state;
	assert_int_equal(ct_python_open(&py, scratch_at("nothing/python3"), "--python"), -ENOENT);
	scratch_mkdirs("adir");
	assert_int_equal(ct_python_open(&py, scratch_at("adir"), "--python"), -EISDIR);
	put("noexec/python3", "", 0644);
	/* root may run anything with an x bit; none here. */
	assert_int_equal(ct_python_open(&py, scratch_at("noexec/python3"), "--python"), -EACCES);
}

static void test_find(void **state)
{
	struct ct_python *v;
	size_t n, i;

	(void)state;
	put("conda/bin/python3.12", "#!/bin/sh\n", 0755);
	assert_int_equal(symlink("python3.12", scratch_at("conda/bin/python3")), 0);
	scratch_mkdirs("conda/lib/python3.12/site-packages");
	put("onpath/python3", "#!/bin/sh\n", 0755);
	scratch_mkdirs("lib/python3.9/site-packages"); /* onpath's prefix is top */
	{
		char path[2048];

		snprintf(path, sizeof(path), "%s:%s", scratch_at("nothing"), scratch_at("onpath"));
		setenv("PATH", path, 1);
	}
	setenv("CONDA_PREFIX", scratch_at("conda"), 1);
	setenv("VIRTUAL_ENV", scratch_at("conda"), 1); /* the same interpreter: listed once */
	assert_int_equal(ct_pythons_find(NULL, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].exe, scratch_at("onpath/python3"));
	assert_string_equal(v[0].from, "PATH");
	assert_string_equal(v[1].exe, scratch_at("conda/bin/python3"));
	assert_string_equal(v[1].from, "VIRTUAL_ENV");
	assert_string_equal(v[1].real, scratch_at("conda/bin/python3.12"));
	assert_string_equal(v[1].sites[v[1].nsites - 1], scratch_at("conda/lib/python3.12/site-packages"));
	for (i = 0; i < n; i++)
		ct_python_release(&v[i]);
	free(v);

	/* --python alone, whatever the environment says. */
	assert_int_equal(ct_pythons_find(scratch_at("conda/bin/python3.12"), &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].from, "--python");
	ct_python_release(&v[0]);
	free(v);
	assert_int_equal(ct_pythons_find(scratch_at("conda/bin/none"), &v, &n), -ENOENT);
	assert_int_equal(n, 0);
	assert_null(v);
	unsetenv("CONDA_PREFIX");
	unsetenv("VIRTUAL_ENV");
}

static const struct ct_dist *dist(const struct ct_site *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ndists; i++)
		if (strcmp(s->dists[i].name, name) == 0)
			return &s->dists[i];
	fail_msg("no distribution '%s'", name);
	return NULL;
}

static void test_site(void **state)
{
	struct ct_site s;
	const struct ct_dist *d;
	char record[2048];

	(void)state;
	/* RECORD: quoted names, ../ entries, files that are gone. */
	put("s/torch-2.6.0.dist-info/METADATA",
	    "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0\n\nName: not-this\n", 0644);
	put("s/torch/_C.cpython-311-x86_64-linux-gnu.so", "x", 0644);
	put("s/torch/lib/libc10.so", "x", 0644);
	put("s/torch/lib/lib,odd.so", "x", 0644);
	put("s/torch/__init__.py", "", 0644);
	snprintf(record, sizeof(record),
		 "torch/__init__.py,sha256=x,0\n"
		 "torch/_C.cpython-311-x86_64-linux-gnu.so,sha256=x,1\n"
		 "torch/lib/libc10.so,sha256=x,1\n"
		 "\"torch/lib/lib,odd.so\",sha256=x,1\n"
		 "torch/lib/gone.so,sha256=x,1\n"
		 "../../../bin/torchrun.so,,\n"
		 "/abs/x.so,,\n");
	put("s/torch-2.6.0.dist-info/RECORD", record, 0644);
	/* An egg with installed-files.txt, relative to the egg-info folder. */
	put("s/egg-1.0.egg-info/PKG-INFO", "Name: egg\nVersion: 1.0\n", 0644);
	put("s/egg-1.0.egg-info/installed-files.txt", "../egg/_e.so\n../egg/__init__.py\n", 0644);
	put("s/egg/_e.so", "x", 0644);
	/* top_level.txt, nested folders walked, __pycache__ not. */
	put("s/multi-0.3.dist-info/METADATA", "Name: multi\nVersion: 0.3\n", 0644);
	put("s/multi-0.3.dist-info/top_level.txt", "mA\nmB\n", 0644);
	put("s/mA/deep/er/k.so", "x", 0644);
	put("s/mB/__pycache__/x.so", "x", 0644);
	/* No metadata to read: the folder's name says it; files by the name. */
	scratch_mkdirs("s/by_name-2.0.dist-info");
	put("s/by_name/_b.so", "x", 0644);
	/* An NVIDIA wheel without RECORD: nvidia/<component>. */
	scratch_mkdirs("s/nvidia_cublas_cu12-12.4.5.8.dist-info");
	put("s/nvidia/cublas/lib/libcublas.so.12", "x", 0644);
	/* Nobody's: grouped by top-level name, a module file by its stem. */
	put("s/loose/sub/_l.so", "x", 0644);
	put("s/single.cpython-311-x86_64-linux-gnu.so", "x", 0644);
	put("s/nothing/readme.txt", "", 0644);

	assert_int_equal(ct_site_read(&s, scratch_at("s")), 0);
	d = dist(&s, "torch");
	assert_string_equal(d->version, "2.6.0");
	assert_true(d->from_record);
	assert_int_equal(d->nfiles, 3);
	assert_string_equal(d->files[0], scratch_at("s/torch/_C.cpython-311-x86_64-linux-gnu.so"));
	assert_string_equal(d->files[1], scratch_at("s/torch/lib/lib,odd.so"));
	assert_string_equal(d->files[2], scratch_at("s/torch/lib/libc10.so"));
	d = dist(&s, "egg");
	assert_int_equal(d->nfiles, 1);
	assert_string_equal(d->files[0], scratch_at("s/egg/_e.so"));
	d = dist(&s, "multi");
	assert_int_equal(d->nfiles, 1);
	assert_string_equal(d->files[0], scratch_at("s/mA/deep/er/k.so"));
	d = dist(&s, "by_name");
	assert_string_equal(d->version, "2.0");
	assert_int_equal(d->nfiles, 1);
	d = dist(&s, "loose");
	assert_null(d->meta);
	assert_string_equal(d->version, "");
	assert_int_equal(d->nfiles, 1);
	d = dist(&s, "single");
	assert_int_equal(d->nfiles, 1);
	d = dist(&s, "nvidia_cublas_cu12");
	assert_string_equal(d->version, "12.4.5.8");
	assert_int_equal(d->nfiles, 1);
	assert_string_equal(d->files[0], scratch_at("s/nvidia/cublas/lib/libcublas.so.12"));
	/* Claimed folders are nobody else's; a folder without .so is nothing. */
	assert_int_equal(s.ndists, 7);
	ct_site_release(&s);

	assert_int_equal(ct_site_read(&s, scratch_at("no-such-site")), -ENOENT);
}


static void test_requirement(void **state)
{
	struct ct_requirement r;

	(void)state;
	assert_true(ct_requirement_parse("nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"", &r));
	assert_string_equal(r.name, "nvidia-cudnn-cu13");
	assert_string_equal(r.spec, "==9.26.0.51");
	assert_string_equal(r.extras, "");
	assert_string_equal(r.extra, "");
	assert_true(ct_requirement_parse(
		"cuda-toolkit[cublas,cudart,cufft]==12.*; extra == \"ctk\"", &r));
	assert_string_equal(r.name, "cuda-toolkit");
	assert_string_equal(r.extras, "cublas,cudart,cufft");
	assert_string_equal(r.spec, "==12.*");
	assert_string_equal(r.extra, "ctk");
	/* The old way, (spec), and single quotes in the marker. */
	assert_true(ct_requirement_parse("torch (>=2.4,<3) ; extra == 'gpu'", &r));
	assert_string_equal(r.name, "torch");
	assert_string_equal(r.spec, ">=2.4,<3");
	assert_string_equal(r.extra, "gpu");
	assert_true(ct_requirement_parse("numpy", &r));
	assert_string_equal(r.spec, "");
	assert_false(ct_requirement_parse("  ; extra == \"x\"", &r));
}

/*
 * Two distributions listing one file (nvidia-cudnn-cu12 and -cu13 both
 * install nvidia/cudnn/lib/libcudnn.so.9): the one whose RECORD gives the
 * file's size wrote it last; the other's entry says so.
 */
static void test_replaced(void **state)
{
	struct ct_site s;
	const struct ct_dist *a, *b;

	(void)state;
	put("r/nvidia/cudnn/lib/libcudnn.so.9", "twelve", 0644); /* 6 bytes: cu12's */
	put("r/nvidia/cudnn/lib/libcudnn_ops.so.9", "xx", 0644);
	put("r/nvidia_cudnn_cu13-9.26.dist-info/METADATA",
	    "Name: nvidia-cudnn-cu13\nVersion: 9.26\nRequires-Dist: nvidia-cublas\n", 0644);
	put("r/nvidia_cudnn_cu13-9.26.dist-info/RECORD",
	    "nvidia/cudnn/lib/libcudnn.so.9,sha256=a,9\n"
	    "nvidia/cudnn/lib/libcudnn_ops.so.9,sha256=a,2\n", 0644);
	put("r/nvidia_cudnn_cu12-9.28.dist-info/METADATA", "Name: nvidia-cudnn-cu12\nVersion: 9.28\n",
	    0644);
	put("r/nvidia_cudnn_cu12-9.28.dist-info/RECORD", "nvidia/cudnn/lib/libcudnn.so.9,sha256=b,6\n",
	    0644);
	assert_int_equal(ct_site_read(&s, scratch_at("r")), 0);
	a = dist(&s, "nvidia-cudnn-cu13");
	b = dist(&s, "nvidia-cudnn-cu12");
	assert_int_equal(a->nfiles, 2);
	assert_non_null(a->replaced_by);
	assert_string_equal(a->files[0], scratch_at("r/nvidia/cudnn/lib/libcudnn.so.9"));
	assert_string_equal(a->replaced_by[0], "nvidia-cudnn-cu12 9.28");
	assert_null(a->replaced_by[1]);
	assert_int_equal(a->size_ok[1], 1);
	assert_null(b->replaced_by);
	assert_int_equal(a->nreqs, 1);
	assert_string_equal(a->reqs[0].name, "nvidia-cublas");
	ct_site_release(&s);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_shared_object_names), T(test_normal_name), T(test_prefix),
		T(test_version_unknown),     T(test_venv),	   T(test_bad_program),
		T(test_find),		     T(test_site),	   T(test_requirement),
		T(test_replaced),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

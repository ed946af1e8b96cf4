/*
 * A site folder's file, its distribution and its pins (cli/loader/
 * distinfo.c), on a site folder made in a temporary folder: the owner by
 * RECORD (the one named like the top-level folder, another one, through a
 * symlink, none), name and version from METADATA or the folder's name;
 * the pins (markers, extras, ranges, wildcards, names in other spellings,
 * the description after the headers left out).
 */
#include "helpers.h"
#include "scratch.h"

#include <fcntl.h>
#include <unistd.h>

#include "distinfo.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("distinfo");
}

static int teardown(void **state)
{
	(void)state;
	scratch_remove();
	return 0;
}

/* top/rel with text, its folders made. */
static void put(const char *rel, const char *text)
{
	char path[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

#define SITE "v/lib/python3.11/site-packages/"

static void make_site(void)
{
	put(SITE "torch/lib/libtorch_python.so", "elf");
	put(SITE "torch/lib/unlisted.so", "elf");
	put(SITE "torch-2.15.0.dist-info/RECORD",
	    "torch/__init__.py,sha256=x,10\n"
	    "torch/lib/libtorch_python.so,sha256=y,3\n");
	put(SITE "torch-2.15.0.dist-info/METADATA",
	    "Metadata-Version: 2.1\n"
	    "Name: torch\n"
	    "Version: 2.15.0+cu132\n"
	    "Requires-Dist: filelock\n"
	    "Requires-Dist: cuda-toolkit[cublas,cudart]==13.2.2; platform_system == \"Linux\"\n"
	    "Requires-Dist: nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"\n"
	    "Requires-Dist: triton~=3.9.0; platform_system == \"Linux\"\n"
	    "Requires-Dist: nvidia-nccl-cu13 (==2.30.7)\n"
	    "Requires-Dist: sympy>=1.13.3,==1.13.3\n"
	    "Requires-Dist: numpy==2.*\n"
	    "Requires-Dist: optree==0.13.0; extra == \"optree\"\n"
	    "Requires-Dist: Jinja2===3.1\n"
	    "\n"
	    "Requires-Dist: fsspec==9.9 (the description, not a header)\n");
	/* A file of one distribution under another's top-level folder (nvidia/). */
	put(SITE "nvidia/cudnn/lib/libcudnn.so.9", "elf");
	put(SITE "nvidia_cudnn_cu13-9.26.0.51.dist-info/RECORD",
	    "nvidia/cudnn/lib/libcudnn.so.9,sha256=z,3\n");
	/* No METADATA: the folder's name says. */
	put(SITE "xformers/_C.so", "elf");
	put(SITE "xformers-0.0.29.post3.dist-info/RECORD", "xformers/_C.so,,\n");
}

static void test_owner(void **state)
{
	struct ct_dist_info d;
	char link[1024];

	(void)state;
	make_site();
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "torch/lib/libtorch_python.so"), &d), 0);
	assert_string_equal(d.name, "torch");
	assert_string_equal(d.version, "2.15.0+cu132");
	assert_string_equal(d.meta, scratch_at(SITE "torch-2.15.0.dist-info"));
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "nvidia/cudnn/lib/libcudnn.so.9"), &d), 0);
	assert_string_equal(d.name, "nvidia_cudnn_cu13");
	assert_string_equal(d.version, "9.26.0.51");
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "xformers/_C.so"), &d), 0);
	assert_string_equal(d.name, "xformers");
	assert_string_equal(d.version, "0.0.29.post3");
	/* A path through a symlink and ../ is the file's. */
	snprintf(link, sizeof(link), "%s/alias", top);
	assert_int_equal(symlink(scratch_at(SITE "torch"), link), 0);
	assert_int_equal(ct_dist_info_of(scratch_at("alias/lib/../lib/libtorch_python.so"), &d), 0);
	assert_string_equal(d.name, "torch");
	/* Listed by no RECORD, outside any site folder, not there: none. */
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "torch/lib/unlisted.so"), &d), -ENOENT);
	assert_string_equal(d.name, "");
	put("elsewhere/libx.so", "elf");
	assert_int_equal(ct_dist_info_of(scratch_at("elsewhere/libx.so"), &d), -ENOENT);
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "torch/lib/gone.so"), &d), -ENOENT);
	assert_int_equal(ct_dist_info_of(NULL, &d), -ENOENT);
}

static void test_pins(void **state)
{
	struct ct_dist_info d;
	char v[64];

	(void)state;
	make_site();
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "torch/lib/libtorch_python.so"), &d), 0);
	assert_true(ct_dist_info_pin(&d, "nvidia-cudnn-cu13", v, sizeof(v)));
	assert_string_equal(v, "9.26.0.51");
	/* Names in any spelling; extras in brackets; a version in parentheses. */
	assert_true(ct_dist_info_pin(&d, "nvidia_cudnn_cu13", v, sizeof(v)));
	assert_string_equal(v, "9.26.0.51");
	assert_true(ct_dist_info_pin(&d, "cuda-toolkit", v, sizeof(v)));
	assert_string_equal(v, "13.2.2");
	assert_true(ct_dist_info_pin(&d, "NVIDIA.NCCL-cu13", v, sizeof(v)));
	assert_string_equal(v, "2.30.7");
	/* No pin: none, "~=", a range, a wildcard, "===", an extra's, the description's. */
	assert_false(ct_dist_info_pin(&d, "filelock", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "triton", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "sympy", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "numpy", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "jinja2", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "optree", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "fsspec", v, sizeof(v)));
	assert_false(ct_dist_info_pin(&d, "nvidia-cudnn", v, sizeof(v)));
	/* No METADATA: no pin. */
	assert_int_equal(ct_dist_info_of(scratch_at(SITE "xformers/_C.so"), &d), 0);
	assert_false(ct_dist_info_pin(&d, "torch", v, sizeof(v)));
}

/*
 * Where pip would put a package's library, and whose file lies there:
 * nvidia-cudnn-cu12 over nvidia-cudnn-cu13's nvidia/cudnn/lib (one folder
 * for both), never over its own; -cu12 toolkit wheels into their own
 * folders, CUDA 13's into nvidia/cu13/lib.
 */
static void test_would_replace(void **state)
{
	struct ct_dist_info o;
	char path[PATH_MAX];
	const char *near;

	(void)state;
	make_site();
	put(SITE "nvidia/cu13/lib/libcusparse.so.12", "elf");
	put(SITE "nvidia_cusparse-12.7.10.12.dist-info/RECORD",
	    "nvidia/cu13/lib/libcusparse.so.12,sha256=a,3\n");
	put(SITE "onnxruntime/capi/libonnxruntime_providers_cuda.so", "elf");
	near = scratch_at(SITE "onnxruntime/capi/libonnxruntime_providers_cuda.so");
	assert_true(ct_pip_would_replace(near, "nvidia-cudnn-cu12", "libcudnn.so.9", &o, path));
	assert_string_equal(o.name, "nvidia_cudnn_cu13");
	assert_string_equal(o.version, "9.26.0.51");
	assert_non_null(strstr(path, "/site-packages/nvidia/cudnn/lib/libcudnn.so.9"));
	/* Its own file: reinstalling it replaces nothing of another's. */
	assert_false(ct_pip_would_replace(near, "nvidia-cudnn-cu13", "libcudnn.so.9", &o, path));
	assert_string_equal(path, "");
	/* CUDA 12's cuSPARSE goes to nvidia/cusparse/lib, not CUDA 13's nvidia/cu13/lib. */
	assert_false(ct_pip_would_replace(near, "nvidia-cusparse-cu12", "libcusparse.so.12", &o,
					  path));
	/* CUDA 13's own package (no suffix) into nvidia/cu13/lib: its own file. */
	assert_false(ct_pip_would_replace(near, "nvidia-cusparse", "libcusparse.so.12", &o, path));
	/* Nothing there, not NVIDIA's, outside a site folder. */
	assert_false(ct_pip_would_replace(near, "nvidia-curand-cu12", "libcurand.so.10", &o, path));
	assert_false(ct_pip_would_replace(near, "cudnn", "libcudnn.so.9", &o, path));
	put("elsewhere/libx.so", "elf");
	assert_false(ct_pip_would_replace(scratch_at("elsewhere/libx.so"), "nvidia-cudnn-cu12",
					  "libcudnn.so.9", &o, path));
}

/*
 * One file two RECORDs list (nvidia-cudnn-cu12 installed over -cu13's):
 * both claim it, the one whose RECORD gives its size owns it; who
 * requires each (an extra's requirement after a plain one); the CUDA a
 * distribution's name says.
 */
static void test_claims(void **state)
{
	struct ct_dist_info c[4], r;
	size_t owner, n;

	(void)state;
	make_site();
	put(SITE "nvidia_cudnn_cu12-9.28.0.42.dist-info/RECORD",
	    "nvidia/cudnn/lib/libcudnn.so.9,sha256=q,3\n");
	put(SITE "nvidia_cudnn_cu13-9.26.0.51.dist-info/RECORD",
	    "nvidia/cudnn/lib/libcudnn.so.9,sha256=z,99\n");
	put(SITE "tensorflow-2.21.0.dist-info/METADATA",
	    "Name: tensorflow\nVersion: 2.21.0\n"
	    "Requires-Dist: nvidia-cudnn-cu12<10,>=9.3; extra == \"and-cuda\"\n");
	n = ct_dist_claims(scratch_at(SITE "nvidia/cudnn/lib/libcudnn.so.9"), c, 4, &owner);
	assert_int_equal(n, 2);
	assert_true(owner < n);
	assert_string_equal(c[owner].name, "nvidia_cudnn_cu12");
	assert_string_equal(c[owner].version, "9.28.0.42");
	assert_int_equal(ct_dist_claims(scratch_at(SITE "torch/lib/libtorch_python.so"), c, 4, &owner), 1);
	assert_int_equal(owner, 0);
	assert_int_equal(ct_dist_claims(scratch_at("nowhere.so"), c, 4, &owner), 0);
	assert_true(ct_dist_requirer(scratch_at(SITE "torch/lib/libtorch_python.so"), "nvidia_cudnn_cu13", &r));
	assert_string_equal(r.name, "torch");
	assert_true(ct_dist_requirer(scratch_at(SITE "torch/lib/libtorch_python.so"), "nvidia-cudnn-cu12", &r));
	assert_string_equal(r.name, "tensorflow");
	assert_false(ct_dist_requirer(scratch_at(SITE "torch/lib/libtorch_python.so"), "jax", &r));
	assert_int_equal(ct_dist_cuda("nvidia-cudnn-cu12"), 12);
	assert_int_equal(ct_dist_cuda("nvidia_nccl_cu13"), 13);
	assert_int_equal(ct_dist_cuda("nvidia-cublas"), 0);
	/* CuPy's names (the CUDA of a miss's fix: tests/pip/cupy-cuda12-in-cuda13). */
	assert_int_equal(ct_dist_cuda("cupy-cuda12x"), 12);
	assert_int_equal(ct_dist_cuda("cupy_cuda11x"), 11);
	assert_int_equal(ct_dist_cuda("cupy-cuda12"), 0);
	assert_int_equal(ct_dist_cuda("cupy-cuda117"), 0);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_owner),
		T(test_pins),
		T(test_would_replace),
		T(test_claims),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

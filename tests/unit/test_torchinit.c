/*
 * torch/__init__.py's preloading read from its text (cli/loader/torchinit.c),
 * on files written here: 2.15's words (_preload_cuda_deps with its list,
 * _load_global_deps calling it with required=False, _get_cuda_dep_paths
 * with nvidia/cu{major}/lib and <folder>/lib), 2.6's (the list inside
 * _load_global_deps, preloaded on failure only), a file that says nothing
 * (2.6's list, from nvidia/<folder>/lib), and no file at all; which
 * missing library names the preload answers.
 */
#include "helpers.h"
#include "scratch.h"

#include <unistd.h>

#include "torchinit.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("torchinit");
}

static int teardown(void **state)
{
	(void)state;
	scratch_remove();
	return 0;
}

static const char *write_init(const char *name, const char *text)
{
	static char dir[512];
	char path[600];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/%s", top, name);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/__init__.py", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	return dir;
}

static const char torch_2_15[] =
	"def _get_cuda_dep_paths(path: str, lib_folder: str, lib_name: str) -> list[str]:\n"
	"    nvidia_lib_paths = glob.glob(\n"
	"        os.path.join(path, \"nvidia\", lib_folder, \"lib\", lib_name)\n"
	"    )\n"
	"    if cuda_version is not None:\n"
	"        nvidia_lib_paths += glob.glob(\n"
	"            os.path.join(path, \"nvidia\", f\"cu{maj_cuda_version}\", \"lib\", lib_name)\n"
	"        )\n"
	"    lib_paths = glob.glob(os.path.join(path, lib_folder, \"lib\", lib_name))\n"
	"    return nvidia_lib_paths + lib_paths\n"
	"\n"
	"\n"
	"def _preload_cuda_deps(err: OSError | None = None, required: bool = True) -> None:\n"
	"    cuda_libs: list[tuple[str, str]] = [\n"
	"        # NOTE: Order matters! (\"not\", \"libnot.so\") in a comment\n"
	"        (\"cublas\", \"libcublasLt.so.*[0-9]\"),\n"
	"        (\"cublas\", \"libcublas.so.*[0-9]\"),\n"
	"        (\"cudnn\", \"libcudnn.so.*[0-9]\"),\n"
	"    ]\n"
	"    for lib_folder, lib_name in cuda_libs:\n"
	"        _preload_cuda_lib(lib_folder, lib_name, required=required)\n"
	"    _preload_cuda_lib(\"nvtx\", \"libnvToolsExt.so.*[0-9]\", required=False)\n"
	"\n"
	"\n"
	"def _load_global_deps() -> None:\n"
	"    try:\n"
	"        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)\n"
	"        _preload_cuda_deps(required=False)\n"
	"    except OSError as err:\n"
	"        _preload_cuda_deps(err)\n"
	"\n"
	"x = 1\n";

static const char torch_2_6[] =
	"def _load_global_deps() -> None:\n"
	"    cuda_libs: Dict[str, str] = {\n"
	"        \"cublas\": \"libcublas.so.*[0-9]\",\n"
	"        \"cudnn\": \"libcudnn.so.*[0-9]\",\n"
	"    }\n"
	"    try:\n"
	"        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)\n"
	"    except OSError as err:\n"
	"        _preload_cuda_deps(lib_folder, lib_name)\n";

static void test_2_15(void **state)
{
	struct ct_torch_init t;

	(void)state;
	ct_torch_init_read(write_init("t215", torch_2_15), &t);
	assert_true(t.from_file);
	assert_true(t.always);
	assert_true(t.cuda_folder);
	assert_true(t.plain_folder);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.list[0].folder, "cublas");
	assert_string_equal(t.list[0].pattern, "libcublasLt.so.*[0-9]");
	assert_string_equal(t.list[1].pattern, "libcublas.so.*[0-9]");
	assert_string_equal(t.list[3].folder, "nvtx");
	assert_true(ct_torch_init_preloads(&t, "libcudnn.so.9"));
	assert_true(ct_torch_init_preloads(&t, "libcublasLt.so.13"));
	assert_false(ct_torch_init_preloads(&t, "libcudnn_ops.so.9"));
	assert_false(ct_torch_init_preloads(&t, "libnot.so"));
	ct_torch_init_release(&t);
}

static void test_2_6(void **state)
{
	struct ct_torch_init t;

	(void)state;
	ct_torch_init_read(write_init("t26", torch_2_6), &t);
	assert_true(t.from_file);
	assert_false(t.always);
	assert_false(t.cuda_folder);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.list[1].folder, "cudnn");
	ct_torch_init_release(&t);
}

static void test_fallback(void **state)
{
	struct ct_torch_init t;
	char none[600];

	(void)state;
	ct_torch_init_read(write_init("stand-in", "import os\n"), &t);
	assert_false(t.from_file);
	assert_false(t.always);
	assert_true(t.n > 10);
	assert_true(ct_torch_init_preloads(&t, "libnccl.so.2"));
	ct_torch_init_release(&t);
	snprintf(none, sizeof(none), "%s/no-such-torch", top);
	ct_torch_init_read(none, &t);
	assert_false(t.from_file);
	assert_true(t.n > 10);
	ct_torch_init_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2_15),
		cmocka_unit_test(test_2_6),
		cmocka_unit_test(test_fallback),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * The soname table (cli/common/sonames.def): every library soname of the
 * CUDA 11, 12 and 13 toolkits, its CUDA majors and its pip package. The
 * lists below are what the real toolkits ship: CUDA 13.0 (readelf -d of
 * /usr/local/cuda's libraries, wheels 13.0.x), CUDA 12.4 and 11.8
 * (Debian trixie's and bookworm's packages, dpkg-deb -c), and the
 * sonames of every release 11.0.3 to 13.0.0 (NVIDIA's cuda-python
 * pathfinder, from the .run installers).
 */
#include "helpers.h"
#include "compat.h"

struct case_ {
	const char *soname;
	unsigned cuda;
};

static const struct case_ cuda13[] = {
	{ "libcheckpoint.so", CT_CU13 }, { "libcublas.so.13", CT_CU13 },
	{ "libcublasLt.so.13", CT_CU13 }, { "libcudart.so.13", CT_CU13 },
	{ "libcudnn.so.9", CT_CU13 }, { "libcudnn_adv.so.9", CT_CU13 },
	{ "libcudnn_cnn.so.9", CT_CU13 }, { "libcudnn_engines_precompiled.so.9", CT_CU13 },
	{ "libcudnn_engines_runtime_compiled.so.9", CT_CU13 }, { "libcudnn_graph.so.9", CT_CU13 },
	{ "libcudnn_heuristic.so.9", CT_CU13 }, { "libcudnn_ops.so.9", CT_CU13 },
	{ "libcufft.so.12", CT_CU13 }, { "libcufftw.so.12", CT_CU13 },
	{ "libcupti.so.13", CT_CU13 }, { "libcurand.so.10", CT_CU13 },
	{ "libcusolver.so.12", CT_CU13 }, { "libcusolverMg.so.12", CT_CU13 },
	{ "libcusparse.so.12", CT_CU13 }, { "libnccl.so.2", CT_CU13 },
	{ "libnvJitLink.so.13", CT_CU13 }, { "libnvblas.so.13", CT_CU13 },
	{ "libnvperf_host.so", CT_CU13 }, { "libnvperf_target.so", CT_CU13 },
	{ "libnvrtc-builtins.alt.so.13.0", CT_CU13 }, { "libnvrtc-builtins.so.13.0", CT_CU13 },
	{ "libnvrtc.alt.so.13", CT_CU13 }, { "libnvrtc.so.13", CT_CU13 },
	{ "libnvtx3interop.so.1", CT_CU13 }, { "libnvvm.so.4", CT_CU13 },
	{ "libpcsamplingutil.so", CT_CU13 },
	/* pathfinder's CUDA 13.0 names beyond the wheels installed here */
	{ "libnppc.so.13", CT_CU13 }, { "libnppial.so.13", CT_CU13 },
	{ "libnppicc.so.13", CT_CU13 }, { "libnppidei.so.13", CT_CU13 },
	{ "libnppif.so.13", CT_CU13 }, { "libnppig.so.13", CT_CU13 },
	{ "libnppim.so.13", CT_CU13 }, { "libnppist.so.13", CT_CU13 },
	{ "libnppisu.so.13", CT_CU13 }, { "libnppitc.so.13", CT_CU13 },
	{ "libnpps.so.13", CT_CU13 }, { "libnvjpeg.so.13", CT_CU13 },
	{ "libnvfatbin.so.13", CT_CU13 }, { "libcufile.so.0", CT_CU13 },
};

static const struct case_ cuda12[] = {
	{ "libaccinj64.so.12.4", CT_CU12 }, { "libcublas.so.12", CT_CU12 },
	{ "libcublasLt.so.12", CT_CU12 }, { "libcudart.so.12", CT_CU12 },
	{ "libcufft.so.11", CT_CU12 }, { "libcufftw.so.11", CT_CU12 },
	{ "libcufile_rdma.so.1", CT_CU12 }, { "libcufile.so.0", CT_CU12 },
	{ "libcuinj64.so.12.4", CT_CU12 }, { "libcheckpoint.so", CT_CU12 },
	{ "libnvperf_host.so", CT_CU12 }, { "libnvperf_target.so", CT_CU12 },
	{ "libpcsamplingutil.so", CT_CU12 }, { "libcupti.so.12", CT_CU12 },
	{ "libcurand.so.10", CT_CU12 }, { "libcusolver.so.11", CT_CU12 },
	{ "libcusolverMg.so.11", CT_CU12 }, { "libcusparse.so.12", CT_CU12 },
	{ "libnppc.so.12", CT_CU12 }, { "libnppial.so.12", CT_CU12 },
	{ "libnppicc.so.12", CT_CU12 }, { "libnppidei.so.12", CT_CU12 },
	{ "libnppif.so.12", CT_CU12 }, { "libnppig.so.12", CT_CU12 },
	{ "libnppim.so.12", CT_CU12 }, { "libnppist.so.12", CT_CU12 },
	{ "libnppisu.so.12", CT_CU12 }, { "libnppitc.so.12", CT_CU12 },
	{ "libnpps.so.12", CT_CU12 }, { "libnvblas.so.12", CT_CU12 },
	{ "libnvfatbin.so.12", CT_CU12 }, { "libnvJitLink.so.12", CT_CU12 },
	{ "libnvjpeg.so.12", CT_CU12 }, { "libnvrtc-builtins.so.12.4", CT_CU12 },
	{ "libnvrtc.so.12", CT_CU12 }, { "libnvToolsExt.so.1", CT_CU12 },
	{ "libnvvm.so.4", CT_CU12 }, { "libnccl.so.2", CT_CU12 },
	{ "libcudnn.so.9", CT_CU12 }, { "libcudnn.so.8", CT_CU12 },
};

static const struct case_ cuda11[] = {
	{ "libaccinj64.so.11.8", CT_CU11 }, { "libcublas.so.11", CT_CU11 },
	{ "libcublasLt.so.11", CT_CU11 }, { "libcudart.so.11.0", CT_CU11 },
	{ "libcufft.so.10", CT_CU11 }, { "libcufftw.so.10", CT_CU11 },
	{ "libcuinj64.so.11.8", CT_CU11 }, { "libcupti.so.11.8", CT_CU11 },
	{ "libcurand.so.10", CT_CU11 }, { "libcusolver.so.11", CT_CU11 },
	{ "libcusolverMg.so.11", CT_CU11 }, { "libcusparse.so.11", CT_CU11 },
	{ "libnppc.so.11", CT_CU11 }, { "libnppial.so.11", CT_CU11 },
	{ "libnppicc.so.11", CT_CU11 }, { "libnppidei.so.11", CT_CU11 },
	{ "libnppif.so.11", CT_CU11 }, { "libnppig.so.11", CT_CU11 },
	{ "libnppim.so.11", CT_CU11 }, { "libnppist.so.11", CT_CU11 },
	{ "libnppisu.so.11", CT_CU11 }, { "libnppitc.so.11", CT_CU11 },
	{ "libnpps.so.11", CT_CU11 }, { "libnvblas.so.11", CT_CU11 },
	{ "libnvjpeg.so.11", CT_CU11 }, { "libnvrtc-builtins.so.11.8", CT_CU11 },
	{ "libnvrtc.so.11.2", CT_CU11 }, { "libnvToolsExt.so.1", CT_CU11 },
	{ "libnvvm.so.4", CT_CU11 }, { "libnccl.so.2", CT_CU11 },
	/* CUDA 11.0 and 11.1 (pathfinder) */
	{ "libcusolver.so.10", CT_CU11 }, { "libcusolverMg.so.10", CT_CU11 },
	{ "libnvrtc.so.11.0", CT_CU11 }, { "libnvrtc.so.11.1", CT_CU11 },
	{ "libnvvm.so.3", CT_CU11 }, { "libcudnn.so.8", CT_CU11 },
	{ "libcudnn_cnn_infer.so.8", CT_CU11 },
};

/* Each soname of a toolkit is in the table, for that CUDA major. */
static void check(const struct case_ *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned got = ct_soname_cuda(c[i].soname, NULL);

		if (!(got & c[i].cuda))
			fail_msg("'%s' not known as CUDA %d's (mask %#x)", c[i].soname,
				 c[i].cuda == CT_CU11 ? 11 : c[i].cuda == CT_CU12 ? 12 : 13, got);
	}
}

static void test_toolkits(void **state)
{
	(void)state;
	check(cuda13, ARRAY_LEN(cuda13));
	check(cuda12, ARRAY_LEN(cuda12));
	check(cuda11, ARRAY_LEN(cuda11));
}

/* A library's own major is not CUDA's: the packages that ship each one. */
static void test_packages(void **state)
{
	static const struct {
		const char *soname;
		int cuda;
		const char *pkg;
	} pkgs[] = {
		{ "libcufft.so.11", 12, "nvidia-cufft-cu12" },
		{ "libcufft.so.10", 11, "nvidia-cufft-cu11" },
		{ "libcufft.so.12", 13, "nvidia-cufft" },
		{ "libcufftw.so.11", 12, "nvidia-cufft-cu12" },
		{ "libcublas.so.12", 12, "nvidia-cublas-cu12" },
		{ "libcublasLt.so.12", 12, "nvidia-cublas-cu12" },
		{ "libcusolver.so.11", 12, "nvidia-cusolver-cu12" },
		{ "libcusolver.so.11", 11, "nvidia-cusolver-cu11" },
		{ "libcusolver.so.12", 13, "nvidia-cusolver" },
		{ "libcusparse.so.12", 12, "nvidia-cusparse-cu12" },
		{ "libcusparse.so.12", 13, "nvidia-cusparse" },
		{ "libcurand.so.10", 12, "nvidia-curand-cu12" },
		{ "libnvrtc.so.12", 12, "nvidia-cuda-nvrtc-cu12" },
		{ "libnvrtc.so.11.2", 11, "nvidia-cuda-nvrtc-cu11" },
		{ "libnvJitLink.so.12", 12, "nvidia-nvjitlink-cu12" },
		{ "libcudart.so.11.0", 11, "nvidia-cuda-runtime-cu11" },
		{ "libcudart.so.13", 13, "nvidia-cuda-runtime" },
		{ "libcudnn_graph.so.9", 12, "nvidia-cudnn-cu12" },
		{ "libcudnn.so.9", 13, "nvidia-cudnn-cu13" },
		{ "libnccl.so.2", 12, "nvidia-nccl-cu12" },
		{ "libnccl.so.2", 13, "nvidia-nccl-cu13" },
		{ "libnvvm.so.4", 12, "nvidia-cuda-nvcc-cu12" },
		{ "libnvvm.so.4", 13, "nvidia-nvvm" },
		{ "libnvToolsExt.so.1", 12, "nvidia-nvtx-cu12" },
		{ "libnvtx3interop.so.1", 13, "nvidia-nvtx" },
		{ "libcupti.so.12", 12, "nvidia-cuda-cupti-cu12" },
		/* cuTENSOR: no toolkit's, and no nvidia- prefix. */
		{ "libcutensor.so.2", 12, "cutensor-cu12" },
		{ "libcutensor.so.2", 13, "cutensor-cu13" },
		{ "libcutensorMg.so.2", 11, "cutensor-cu11" },
		/* Another major's build of the same library (a fix that swaps builds). */
		{ "libcublas.so.13", 12, "nvidia-cublas-cu12" },
	};
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(pkgs); i++) {
		const char *got = ct_pip_package(pkgs[i].soname, pkgs[i].cuda, buf, sizeof(buf));

		if (!got || strcmp(got, pkgs[i].pkg) != 0)
			fail_msg("'%s' for CUDA %d: %s, not %s", pkgs[i].soname, pkgs[i].cuda,
				 got ? got : "(none)", pkgs[i].pkg);
	}
	/* No pip package: the injection libraries; cuFile for CUDA 11; unknown names. */
	assert_null(ct_pip_package("libaccinj64.so.12.4", 12, buf, sizeof(buf)));
	assert_null(ct_pip_package("libcufile.so.0", 11, buf, sizeof(buf)));
	assert_null(ct_pip_package("libfoo.so.1", 12, buf, sizeof(buf)));
	assert_null(ct_pip_package("libcufft.so.11", 10, buf, sizeof(buf)));
}

/* Sonames two majors share: the context's major, else each one named. */
static void test_shared(void **state)
{
	const char *release;
	char buf[256];

	(void)state;
	assert_int_equal(ct_soname_cuda("libcurand.so.10", &release), CT_CU11 | CT_CU12 | CT_CU13);
	assert_null(release);
	assert_int_equal(ct_soname_cuda("/x/libcusolver.so.11", NULL), CT_CU11 | CT_CU12);
	assert_int_equal(ct_soname_cuda("libcufft.so.11", NULL), CT_CU12);
	assert_int_equal(ct_soname_cuda("libcuda.so.1", NULL), 0);
	assert_int_equal(ct_soname_cuda("libcudnn_ops.so.9", &release), CT_CU11 | CT_CU12 | CT_CU13);
	assert_string_equal(release, "cuDNN 9");
	assert_int_equal(ct_cuda_mask_major(CT_CU12), 12);
	assert_int_equal(ct_cuda_mask_major(CT_CU11 | CT_CU12), 0);
	assert_string_equal(ct_cuda_mask_words(CT_CU11 | CT_CU12, buf, sizeof(buf)),
			    "CUDA 11 and 12");
	assert_string_equal(ct_cuda_mask_words(CT_CU11 | CT_CU12 | CT_CU13, buf, sizeof(buf)),
			    "CUDA 11, 12 and 13");
	assert_string_equal(ct_pip_words("libcurand.so.10", 12, buf, sizeof(buf)),
			    "nvidia-curand-cu12");
	assert_string_equal(ct_pip_words("libcurand.so.10", 0, buf, sizeof(buf)),
			    "nvidia-curand-cu11 (CUDA 11), nvidia-curand-cu12 (CUDA 12) or "
			    "nvidia-curand (CUDA 13)");
	assert_string_equal(ct_pip_words("libcusparse.so.12", 0, buf, sizeof(buf)),
			    "nvidia-cusparse-cu12 (CUDA 12) or nvidia-cusparse (CUDA 13)");
	/* The context's major does not ship it: the soname's own. */
	assert_string_equal(ct_pip_words("libcufft.so.11", 13, buf, sizeof(buf)),
			    "nvidia-cufft-cu12");
	assert_string_equal(ct_pip_words("libcufile.so.0", 0, buf, sizeof(buf)),
			    "nvidia-cufile-cu12 (CUDA 12) or nvidia-cufile (CUDA 13)");
	assert_string_equal(ct_pip_words("libfoo.so.1", 12, buf, sizeof(buf)), "");
}

/* A library's CUDA from its soname, else from the folder that chooses among its majors. */
static void test_soname_folder(void **state)
{
	bool folder = true;

	(void)state;
	assert_int_equal(ct_soname_folder_cuda("libcufft.so.12", "/x/libcufft.so.12", &folder), 13);
	assert_false(folder);
	assert_int_equal(ct_soname_folder_cuda("libcufile.so.0", "/s/nvidia/cu13/lib/libcufile.so.0",
					       &folder), 13);
	assert_true(folder);
	assert_int_equal(ct_soname_folder_cuda("libcufile.so.0",
					       "w.whl!nvidia/cu13/lib/libcufile.so.0", NULL), 13);
	assert_int_equal(ct_soname_folder_cuda("libcufile.so.0",
					       "/usr/local/cuda-12.4/lib64/libcufile.so.0", NULL), 12);
	/* A folder of no major, a major that does not ship it, no path: nothing. */
	assert_int_equal(ct_soname_folder_cuda("libcufile.so.0", "/s/nvidia/cufile/lib/libcufile.so.0",
					       &folder), 0);
	assert_false(folder);
	assert_int_equal(ct_soname_folder_cuda("libcufft.so.11", "/s/nvidia/cu13/lib/libcufft.so.11",
					       NULL), 12);
	assert_int_equal(ct_soname_folder_cuda("libcurand.so.10", "/s/nvidia/cu14/lib/libcurand.so.10",
					       NULL), 0);
	assert_int_equal(ct_soname_folder_cuda("libcurand.so.10", NULL, NULL), 0);
	assert_int_equal(ct_soname_folder_cuda("libmine.so.1", "/s/nvidia/cu13/lib/libmine.so.1",
					       NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toolkits),
		cmocka_unit_test(test_packages),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_soname_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

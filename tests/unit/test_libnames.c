/*
 * What a library's file name says (cli/common/libnames.c): CUDA's own
 * libraries, those of them that pick their kernels per GPU, and the
 * driver's own.
 */
#include "helpers.h"
#include "libnames.h"

static void test_per_gpu(void **state)
{
	static const char *const per_gpu[] = {
		"libcublas.so.13", "libcublasLt.so.13", "/usr/local/cuda/lib64/libcufft.so.12",
		"libcufftw.so.12", "libcudnn_engines_precompiled.so.9", "libcudnn_cnn.so.9",
		"libcurand.so.10", "libcusolver.so.12", "libcusolverMg.so.12",
		"libcusparse.so.12", "libcusparseLt.so.0", "libnccl.so.2",
		"libnvrtc-builtins.so.13.0", "libnvjpeg.so.13", "libnppc.so.13",
		"libnppif.so.12", "libcudss.so.0",
	};
	static const char *const not_per_gpu[] = {
		"libcudart.so.13", "libcuda.so.1", "libnvrtc.so.13", "libnvJitLink.so.13",
		"libcupti.so.13", "libtorch_cuda.so", "flash_attn_2_cuda.so",
		"/usr/local/cuda/lib64/", "", "cublas.so", "libcublas_ext.so",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(per_gpu); i++) {
		if (!ct_cuda_library_per_gpu(per_gpu[i]))
			fail_msg("'%s' not known to pick kernels per GPU", per_gpu[i]);
		if (!ct_cuda_library(per_gpu[i]))
			fail_msg("'%s' not one of CUDA's libraries", per_gpu[i]);
	}
	for (i = 0; i < ARRAY_LEN(not_per_gpu); i++)
		if (ct_cuda_library_per_gpu(not_per_gpu[i]))
			fail_msg("'%s' taken for a per-GPU library", not_per_gpu[i]);
	/* cuTENSOR picks kernels per GPU, for check; the loader's diagnoses leave it be. */
	assert_true(ct_cuda_library_per_gpu("libcutensor.so.2"));
	assert_true(ct_cuda_library_per_gpu("/w/cutensor/lib/libcutensorMp.so.2"));
	assert_true(ct_cuda_library_per_gpu("libcutensor-0a1b2c3d.so.2"));
	assert_false(ct_cuda_library("libcutensor.so.2"));
	assert_true(ct_cuda_library("libcudart.so.13"));
	assert_true(ct_cuda_library("libnvrtc.so.13"));
	assert_false(ct_cuda_library("libtorch_cuda.so"));
	/* auditwheel's renamed copies in wheels. */
	assert_true(ct_cuda_library("/w/torch/lib/libcudart-9335f6a2.so.12"));
	assert_true(ct_cuda_library("libcublasLt-a1b2c3d4.so.12"));
	assert_false(ct_cuda_library("libcudart-9335f6a.so.12"));
	assert_false(ct_cuda_library("libcudart-extra.so.12"));
}

static void test_driver_library(void **state)
{
	(void)state;
	assert_int_equal(ct_driver_library("libcuda.so.1"), CT_DRIVER_LIB_CUDA);
	assert_int_equal(ct_driver_library("/usr/lib/x86_64-linux-gnu/libcuda.so"),
			 CT_DRIVER_LIB_CUDA);
	assert_int_equal(ct_driver_library("/usr/lib/wsl/lib/libnvidia-ml.so.1"),
			 CT_DRIVER_LIB_NVML);
	/* The real file and CUDA's own libraries are not asked by these names. */
	assert_int_equal(ct_driver_library("libcuda.so.550.163.01"), CT_DRIVER_LIB_NONE);
	assert_int_equal(ct_driver_library("libcudart.so.13"), CT_DRIVER_LIB_NONE);
	assert_int_equal(ct_driver_library("/x/libcuda.so.1/libz.so.1"), CT_DRIVER_LIB_NONE);
	assert_string_equal(ct_driver_soname(CT_DRIVER_LIB_CUDA), "libcuda.so.1");
	assert_string_equal(ct_driver_soname(CT_DRIVER_LIB_NVML), "libnvidia-ml.so.1");
	assert_null(ct_driver_soname(CT_DRIVER_LIB_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_gpu),
		cmocka_unit_test(test_driver_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

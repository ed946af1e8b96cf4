/* What a library's file name says; see libnames.h. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnames.h"

/*
 * NVIDIA's libraries, by the start of their file name. per_gpu: it ships
 * kernels for several GPUs in separate fatbin modules and loads the ones
 * for the GPU it runs on, so a module without code for one GPU is by
 * design. Measured on the CUDA 13.0 and Debian's 12.4 libraries: at sm_90,
 * cuBLASLt 13 has 1568 of 3165 modules without a 9.0 image, cuFFT 12 2732
 * of 11256, cuDNN's precompiled engines 919 of 1501 (docs/scan-and-check.md).
 * CHECK_ONLY: per_gpu too, and known to check alone, not a CUDA library
 * to the loader's diagnoses (CuPy probes cuTENSOR with ctypes and does
 * without it): cuTENSOR, in no toolkit (PyPI's cutensor-cu12 2.8.1: 910
 * of libcutensor.so.2's 1331 fatbins hold code for GPUs other than 9.0
 * only; tests/pip/cutensor-check).
 */
#define CHECK_ONLY 2

static const struct {
	const char *prefix;
	unsigned char per_gpu;
} families[] = {
	{ "libcuda.so", false },       { "libcudart.so", false },
	{ "libcublas.so", true },      { "libcublasLt.so", true },
	{ "libcudnn", true },          { "libcufft", true },
	{ "libcurand.so", true },      { "libcusolver", true },
	{ "libcusparse", true },       { "libnccl.so", true },
	{ "libnvrtc-builtins", true }, { "libnvrtc", false },
	{ "libnvJitLink.so", false },  { "libnvToolsExt.so", false },
	{ "libnvtx", false },          { "libcupti.so", false },
	{ "libnvidia-ml.so", false },  { "libnvjpeg.so", true },
	{ "libnpp", true },            { "libcudss", true },
	{ "libcufile", false },        { "libnvshmem", false },
	{ "libnvvm.so", false },       { "libnvblas.so", false },
	{ "libnvidia-ptxjitcompiler.so", false },
	{ "libcudla", false },         { "libnvperf", false },
	{ "libcheckpoint.so", false },
	{ "libcutensor", CHECK_ONLY },
};

/*
 * The first family whose prefix starts the file name of path, or -1.
 * Every prefix starts with "lib" and the letter after it tells most apart:
 * a report asks this of every object of every process.
 */
static long family_of(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	if (strncmp(b, "lib", 3) != 0)
		return -1;
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const char *pre = families[i].prefix;
		size_t n = strlen(pre), h;

		if (pre[3] != b[3])
			continue;
		if (strncmp(b, pre, n) == 0)
			return (long)i;
		/*
		 * auditwheel's copy in a wheel: the stem, "-", a hash of 8 hex
		 * digits, then the rest (libcudart-9335f6a2.so.12).
		 */
		if (n > 3 && strcmp(pre + n - 3, ".so") == 0 && strncmp(b, pre, n - 3) == 0 &&
		    b[n - 3] == '-') {
			for (h = 0; h < 8 && isxdigit((unsigned char)b[n - 2 + h]); h++)
				;
			if (h == 8 && strncmp(b + n + 6, ".so", 3) == 0)
				return (long)i;
		}
	}
	return -1;
}

enum ct_driver_lib ct_driver_library(const char *name)
{
	const char *b = strrchr(name, '/');

	b = b ? b + 1 : name;
	if (strcmp(b, "libcuda.so.1") == 0 || strcmp(b, "libcuda.so") == 0)
		return CT_DRIVER_LIB_CUDA;
	if (strcmp(b, "libnvidia-ml.so.1") == 0 || strcmp(b, "libnvidia-ml.so") == 0)
		return CT_DRIVER_LIB_NVML;
	return CT_DRIVER_LIB_NONE;
}

bool ct_driver_file(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return strncmp(b, "libcuda.so", 10) == 0 && (b[10] == '\0' || b[10] == '.');
}

const char *ct_driver_soname(enum ct_driver_lib lib)
{
	return lib == CT_DRIVER_LIB_CUDA   ? "libcuda.so.1"
	       : lib == CT_DRIVER_LIB_NVML ? "libnvidia-ml.so.1"
					   : NULL;
}

bool ct_cuda_library(const char *path)
{
	long i = family_of(path);

	return i >= 0 && families[i].per_gpu != CHECK_ONLY;
}

bool ct_cuda_library_per_gpu(const char *name)
{
	long i = family_of(name);

	return i >= 0 && families[i].per_gpu != 0;
}

const char *ct_library_version(const char *path, char *buf, size_t size)
{
	char real[PATH_MAX];
	const char *b, *v;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	b = strrchr(real, '/');
	b = b ? b + 1 : real;
	v = strstr(b, ".so.");
	if (v)
		snprintf(buf, size, "%s", v + 4);
	return buf;
}

const char *ct_library_release(const char *path, char *buf, size_t size)
{
	ct_library_version(path, buf, size);
	if (size && !strchr(buf, '.'))
		buf[0] = '\0';
	return buf;
}

/* The major of "libx.so.13.0.96" (13); -1 when the name has none. */
static int name_major(const char *name)
{
	const char *b = strrchr(name, '/'), *v;

	b = b ? b + 1 : name;
	v = strstr(b, ".so.");
	return v && v[4] >= '0' && v[4] <= '9' ? atoi(v + 4) : -1;
}

/* The length of "libcudart" in "libcudart.so.13". */
static size_t stem_len(const char *b)
{
	const char *so = strstr(b, ".so");

	return so ? (size_t)(so - b) : strlen(b);
}

bool ct_library_renamed(const char *name, const char *soname)
{
	const char *b;
	int a, s;

	if (!name || !soname)
		return false;
	/*
	 * The driver's files are named by the driver's version: its
	 * libnvidia-ml.so.580.159.04 is libnvidia-ml.so.1 (what ps reads in
	 * a process's maps, where the link is resolved).
	 */
	if (ct_driver_library(soname) != CT_DRIVER_LIB_NONE)
		return false;
	b = strrchr(name, '/');
	b = b ? b + 1 : name;
	a = name_major(b);
	s = name_major(soname);
	return a >= 0 && s >= 0 && a != s && stem_len(b) == stem_len(soname) &&
	       strncmp(b, soname, stem_len(b)) == 0;
}

int ct_library_cuda(const char *soname, const char *version, int *minor)
{
	static const char *const as_cuda[] = { "libcudart", "libnvrtc", "libnvJitLink" };
	const char *b = soname ? strrchr(soname, '/') : NULL;
	int major = 0, mi = -1;
	size_t i;

	if (minor)
		*minor = -1;
	if (!soname || !version)
		return 0;
	b = b ? b + 1 : soname;
	for (i = 0; i < sizeof(as_cuda) / sizeof(as_cuda[0]); i++)
		if (stem_len(b) == strlen(as_cuda[i]) && strncmp(b, as_cuda[i], stem_len(b)) == 0)
			break;
	if (i == sizeof(as_cuda) / sizeof(as_cuda[0]) || sscanf(version, "%d.%d", &major, &mi) < 1 ||
	    major <= 0)
		return 0;
	if (minor)
		*minor = mi;
	return major;
}

const char *ct_renamed_words(const char *name, const char *soname, int cuda, int minor,
			     char *buf, size_t size)
{
	char cw[32] = "";

	if (cuda > 0 && minor >= 0)
		snprintf(cw, sizeof(cw), ", CUDA %d.%d", cuda, minor);
	else if (cuda > 0)
		snprintf(cw, sizeof(cw), ", CUDA %d", cuda);
	snprintf(buf, size, "'%s' is %s%s, renamed", name, soname, cw);
	return buf;
}

bool ct_python_shipped(const char *path)
{
	const char *b;

	if (!path)
		return false;
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	/* A wheel's member, a site folder's file, or a Python extension wherever it was built. */
	return strchr(path, '!') || strstr(path, "/site-packages/") || strstr(path, "/dist-packages/") ||
	       strstr(b, ".cpython-") || strstr(b, ".abi3.so") || strstr(b, ".pypy");
}

bool ct_pip_installed(const char *path)
{
	if (!path)
		return false;
	return strchr(path, '!') || strstr(path, "/site-packages/") ||
	       (strstr(path, "/dist-packages/") && strncmp(path, "/usr/lib/python3", 16) != 0);
}

bool ct_library_torch(const char *name)
{
	const char *b = name ? strrchr(name, '/') : NULL;

	if (!name)
		return false;
	b = b ? b + 1 : name;
	/* libtorch.so, libtorch_cuda.so, libtorch_python.so, libc10.so, libc10_cuda.so (Debian: .so.2.6). */
	return (strncmp(b, "libtorch", 8) == 0 && (b[8] == '.' || b[8] == '_')) ||
	       (strncmp(b, "libc10", 6) == 0 && (b[6] == '.' || b[6] == '_'));
}

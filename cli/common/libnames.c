/* What a library's file name says; see libnames.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnames.h"

bool ct_cuda_library(const char *path)
{
	static const char *const prefixes[] = {
		"libcuda.so", "libcudart.so", "libcublas.so", "libcublasLt.so",
		"libcudnn", "libcufft", "libcurand.so", "libcusolver",
		"libcusparse", "libnccl.so", "libnvrtc", "libnvJitLink.so",
		"libnvToolsExt.so", "libnvtx", "libcupti.so", "libnvidia-ml.so",
		"libnvjpeg.so", "libcufile", "libnvshmem", "libnvvm.so",
		"libnvblas.so", "libnvidia-ptxjitcompiler.so", "libcudla",
		"libnvperf", "libcheckpoint.so",
	};
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(b, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
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

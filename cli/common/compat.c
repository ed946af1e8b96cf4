/* The data tables; see compat.h. The releases and their sources are
   cuda_releases.def. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* Every CUDA release from 11.0: its PTX ISA, Linux branch and driver. */
static const struct release {
	int cuda;
	unsigned isa, branch;
	const char *driver;
} releases[] = {
#define CT_CUDA_RELEASE(cuda, isa, branch, driver) { cuda, isa, branch, driver },
#include "cuda_releases.def"
#undef CT_CUDA_RELEASE
};

#define NRELEASES (sizeof(releases) / sizeof(releases[0]))

const char *ct_toolkit_driver(int cuda, int *newer)
{
	size_t i;

	*newer = cuda > releases[NRELEASES - 1].cuda;
	for (i = NRELEASES; i-- > 0;)
		if (releases[i].cuda <= cuda)
			return *newer ? NULL : releases[i].driver;
	return NULL;
}

const char *ct_family_driver(int cuda_major)
{
	/* Minor-version compatibility: any driver of the family's branch on. */
	switch (cuda_major) {
	case 11:
		return "450.80.02";
	case 12:
		return "525.60.13";
	case 13:
		return "580.65.06";
	default:
		return NULL;
	}
}

int ct_ptx_isa_cuda(unsigned major, unsigned minor)
{
	size_t i;

	if (major < 7)
		return 10000; /* older than CUDA 11: any driver in use reads it */
	/*
	 * The first release whose ISA is at least this one: an ISA no nvcc
	 * wrote (8.9, or a minor past 9 from a damaged header) needs the
	 * release of the next real one, never an older driver.
	 */
	for (i = 0; i < NRELEASES; i++)
		if (releases[i].isa / 10 > major ||
		    (releases[i].isa / 10 == major && releases[i].isa % 10 >= minor))
			return releases[i].cuda;
	return -1;
}

bool ct_ptx_driver_reads(unsigned major, unsigned minor, int driver)
{
	int need = ct_ptx_isa_cuda(major, minor);

	/*
	 * An ISA newer than the table: no driver in the table reads it; a
	 * driver newer than the table may, and nothing here says it cannot,
	 * so no alarm.
	 */
	if (need < 0)
		return driver > releases[NRELEASES - 1].cuda;
	return need <= driver;
}

int ct_driver_parse(const char *s, int *cuda)
{
	unsigned long part[3] = { 0, 0, 0 };
	const char *p = s;
	size_t n = 0, i;

	for (;;) {
		char *end;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		part[n++] = strtoul(p, &end, 10);
		if (end - p > 6)
			return -EINVAL;
		p = end;
		if (!*p)
			break;
		if (*p != '.' || n == 3)
			return -EINVAL;
		p++;
	}
	if (part[0] < 100) {
		/* A CUDA version: 12.4, 13, or 12.4.1 (an update of 12.4). */
		if (part[0] == 0 || part[1] > 99)
			return -EINVAL;
		*cuda = (int)(part[0] * 1000 + part[1] * 10);
		return 0;
	}
	/*
	 * A Linux driver: its branch says its CUDA (every driver of the 550
	 * branch reports 12.4, 550.40.07 as well as 550.54.15). A branch past
	 * the table reads every ISA in it: one past the newest CUDA stands for
	 * it.
	 */
	for (i = NRELEASES; i-- > 0;)
		if (releases[i].branch <= part[0]) {
			*cuda = releases[i].cuda + (part[0] > releases[NRELEASES - 1].branch);
			return 0;
		}
	return -ERANGE;
}

char *ct_cuda_version_words(int cuda, char *buf, unsigned long size)
{
	snprintf(buf, size, "%d.%d", cuda / 1000, cuda % 1000 / 10);
	return buf;
}

const char *ct_pip_package(const char *soname, int cuda_major, char *buf, unsigned long size)
{
	/* Library stem -> the component's package name (CUDA 11 and 12). */
	static const struct {
		const char *stem, *component;
	} pkgs[] = {
		{ "libcudart.so", "cuda-runtime" }, { "libcublasLt.so", "cublas" },
		{ "libcublas.so", "cublas" },	     { "libcudnn", "cudnn" },
		{ "libcufft.so", "cufft" },	     { "libcufftw.so", "cufft" },
		{ "libcurand.so", "curand" },	     { "libcusolver", "cusolver" },
		{ "libcusparse.so", "cusparse" },   { "libnccl.so", "nccl" },
		{ "libnvJitLink.so", "nvjitlink" }, { "libnvrtc", "cuda-nvrtc" },
		{ "libcupti.so", "cuda-cupti" },    { "libnvToolsExt.so", "nvtx" },
	};
	const char *base = strrchr(soname, '/');
	size_t i;

	base = base ? base + 1 : soname;
	if (cuda_major < 11)
		return NULL;
	for (i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
		if (strncmp(base, pkgs[i].stem, strlen(pkgs[i].stem)) != 0)
			continue;
		/*
		 * CUDA 13 wheels merge the toolkit's libraries into one
		 * package per component without the -cuNN suffix; cuDNN and
		 * NCCL keep it.
		 */
		if (cuda_major >= 13 && strcmp(pkgs[i].component, "cudnn") != 0 &&
		    strcmp(pkgs[i].component, "nccl") != 0)
			snprintf(buf, size, "nvidia-%s", pkgs[i].component);
		else
			snprintf(buf, size, "nvidia-%s-cu%d", pkgs[i].component, cuda_major);
		return buf;
	}
	return NULL;
}

int ct_runtime_major(const char *soname)
{
	const char *base = strrchr(soname, '/'), *v;

	base = base ? base + 1 : soname;
	if (strncmp(base, "libcudart.so.", 13) != 0)
		return 0;
	v = base + 13;
	return atoi(v);
}

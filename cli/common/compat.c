/* The data tables; see compat.h. Sources in reference/resolution.md 4.2
   (CUDA 13.1 release notes, Table 3) and reference/fatbin.md 4.1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* The first release of each CUDA minor and the Linux driver it ships with. */
static const struct {
	int cuda;
	const char *driver;
} toolkits[] = {
	{ 11000, "450.36.06" }, { 11010, "455.23" },	 { 11020, "460.27.03" },
	{ 11030, "465.19.01" }, { 11040, "470.42.01" }, { 11050, "495.29.05" },
	{ 11060, "510.39.01" }, { 11070, "515.43.04" }, { 11080, "520.61.05" },
	{ 12000, "525.60.13" }, { 12010, "530.30.02" }, { 12020, "535.54.03" },
	{ 12030, "545.23.06" }, { 12040, "550.54.14" }, { 12050, "555.42.02" },
	{ 12060, "560.28.03" }, { 12080, "570.26" },	 { 12090, "575.51.03" },
	{ 13000, "580.65.06" }, { 13010, "590.44.01" },
};

const char *ct_toolkit_driver(int cuda, int *newer)
{
	size_t i, n = sizeof(toolkits) / sizeof(toolkits[0]);

	*newer = cuda > toolkits[n - 1].cuda;
	for (i = n; i-- > 0;)
		if (toolkits[i].cuda <= cuda)
			return *newer ? NULL : toolkits[i].driver;
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
	static const struct {
		unsigned isa;
		int cuda;
	} isas[] = {
		{ 70, 11000 }, { 71, 11010 }, { 72, 11020 }, { 73, 11030 }, { 74, 11040 },
		{ 75, 11050 }, { 76, 11060 }, { 77, 11070 }, { 78, 11080 }, { 80, 12000 },
		{ 81, 12010 }, { 82, 12020 }, { 83, 12030 }, { 84, 12040 }, { 85, 12050 },
		{ 86, 12070 }, { 87, 12080 }, { 88, 12090 }, { 90, 13000 }, { 91, 13010 },
	};
	unsigned isa = major * 10 + minor;
	size_t i;

	if (isa < 70)
		return 10000; /* older than CUDA 11: any driver in use reads it */
	for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++)
		if (isas[i].isa == isa)
			return isas[i].cuda;
	return -1;
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

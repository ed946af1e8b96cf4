/*
 * The archs nvcc no longer builds; see archs.h. From the CUDA release
 * notes: 9.0 removed Fermi (sm_20, sm_21), 11.0 sm_30 and sm_32, 12.0
 * sm_35 and sm_37, 13.0 Maxwell, Pascal and Volta (sm_50 to sm_72; its
 * nvcc --list-gpu-arch starts at compute_75) and renamed sm_101 to sm_110.
 */
#include <stdbool.h>
#include <stdio.h>

#include "archs.h"
#include "compat.h"

static const struct {
	unsigned sm;      /* 10 * major + minor */
	int last;         /* the last toolkit that builds it */
	int dropped;      /* the first that does not */
	unsigned renamed; /* what that one calls it instead, or 0 */
} gone[] = {
	{ 20, 8000, 9000, 0 },   { 21, 8000, 9000, 0 },
	{ 30, 10020, 11000, 0 }, { 32, 10020, 11000, 0 },
	{ 35, 11080, 12000, 0 }, { 37, 11080, 12000, 0 },
	{ 50, 12090, 13000, 0 }, { 52, 12090, 13000, 0 }, { 53, 12090, 13000, 0 },
	{ 60, 12090, 13000, 0 }, { 61, 12090, 13000, 0 }, { 62, 12090, 13000, 0 },
	{ 70, 12090, 13000, 0 }, { 72, 12090, 13000, 0 },
	{ 101, 12090, 13000, 110 },
};

static long find(unsigned major, unsigned minor)
{
	size_t i;

	if (minor > 9)
		return -1;
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (gone[i].sm == major * 10 + minor)
			return (long)i;
	return -1;
}

int ct_arch_last_toolkit(unsigned major, unsigned minor, int *dropped)
{
	long i = find(major, minor);

	if (dropped)
		*dropped = i < 0 ? 0 : gone[i].dropped;
	return i < 0 ? 0 : gone[i].last;
}

unsigned ct_arch_renamed(unsigned major, unsigned minor)
{
	long i = find(major, minor);

	return i < 0 ? 0 : gone[i].renamed;
}

/*
 * Does no driver of the newest CUDA major in the table drive major.minor
 * GPUs any more (Kepler: R470 was their last branch, CUDA 13 starts at
 * 580)? *branch: that last branch. Maxwell to Volta, whose last branch
 * (580) is CUDA 13's first, are not yet.
 */
static bool out_of_support(unsigned major, unsigned minor, unsigned *branch)
{
	unsigned first;

	*branch = 0;
	ct_branch_gpu(0, major, minor, &first, branch);
	return *branch && *branch < ct_cuda_branch(ct_newest_cuda() / 1000 * 1000);
}

char *ct_arch_toolkit_words(unsigned major, unsigned minor, char *buf, size_t size)
{
	char last[16], dropped[16];
	unsigned branch;
	int d, l = ct_arch_last_toolkit(major, minor, &d);
	unsigned renamed = ct_arch_renamed(major, minor);

	if (!size)
		return buf;
	buf[0] = '\0';
	if (!l)
		return buf;
	ct_cuda_version_words(l, last, sizeof(last));
	ct_cuda_version_words(d, dropped, sizeof(dropped));
	if (renamed)
		snprintf(buf, size, "CUDA %s or older (CUDA %s renamed sm_%u%u to sm_%u)", last,
			 dropped, major, minor, renamed);
	else if (out_of_support(major, minor, &branch))
		snprintf(buf, size, "CUDA %s or older (CUDA %s and later cannot build for %u.%u; "
			 "%u.%u GPUs are out of support: R%u was the last driver branch for them)",
			 last, dropped, major, minor, major, minor, branch);
	else
		snprintf(buf, size, "CUDA %s or older (CUDA %s and later cannot build for %u.%u)",
			 last, dropped, major, minor);
	return buf;
}

char *ct_arch_gencode_words(unsigned major, unsigned minor, char *buf, size_t size)
{
	char toolkit[256];

	ct_arch_toolkit_words(major, minor, toolkit, sizeof(toolkit));
	snprintf(buf, size, "%s%s-gencode arch=compute_%u%u,code=sm_%u%u", toolkit,
		 toolkit[0] ? ": " : "", major, minor, major, minor);
	return buf;
}

char *ct_arch_build_words(unsigned major, unsigned minor, int torch, char *buf, size_t size)
{
	char gencode[384];

	ct_arch_gencode_words(major, minor, gencode, sizeof(gencode));
	/* Nothing in an object says CMake built it: its setting is named beside nvcc's flag. */
	if (torch > 0)
		snprintf(buf, size, "%s (TORCH_CUDA_ARCH_LIST=\"%u.%u\")", gencode, major, minor);
	else if (torch == 0)
		snprintf(buf, size, "%s (CMake: CMAKE_CUDA_ARCHITECTURES=%u%u)", gencode, major,
			 minor);
	else
		snprintf(buf, size, "%s (CMake: CMAKE_CUDA_ARCHITECTURES=%u%u; a PyTorch extension: "
				    "TORCH_CUDA_ARCH_LIST=\"%u.%u\")",
			 gencode, major, minor, major, minor);
	return buf;
}

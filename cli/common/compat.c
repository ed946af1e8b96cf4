/* The data tables; see compat.h. Sources in reference/resolution.md 4.2
   (CUDA 13.1 release notes, Table 3) and reference/fatbin.md 4.1; the
   sonames' in sonames.def. */
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

/* The table (sonames.def), in its order. */
static const struct soname_row {
	const char *soname;
	unsigned cuda;
	const char *component, *release;
} sonames[] = {
#define CT_SONAME(soname, cuda, component, release) { soname, cuda, component, release },
#include "sonames.def"
#undef CT_SONAME
};

#define NSONAMES (sizeof(sonames) / sizeof(sonames[0]))

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The length of "libcublas" in "libcublas.so.13": the family of a soname. */
static size_t stem_len(const char *b)
{
	const char *so = strstr(b, ".so");

	return so ? (size_t)(so - b) : strlen(b);
}

static unsigned major_bit(int cuda_major)
{
	return cuda_major >= 11 && cuda_major <= 13 ? CT_CU11 << (cuda_major - 11) : 0;
}

unsigned ct_soname_cuda(const char *soname, const char **release)
{
	const char *b = base_of(soname);
	unsigned mask = 0;
	size_t i;

	if (release)
		*release = NULL;
	for (i = 0; i < NSONAMES; i++) {
		if (strcmp(sonames[i].soname, b) != 0)
			continue;
		mask |= sonames[i].cuda;
		if (release && sonames[i].release)
			*release = sonames[i].release;
	}
	return mask;
}

int ct_cuda_mask_major(unsigned mask)
{
	int m, found = 0;

	for (m = 11; m <= 13; m++) {
		if (!(mask & major_bit(m)))
			continue;
		if (found)
			return 0;
		found = m;
	}
	return found;
}

char *ct_cuda_mask_words(unsigned mask, char *buf, size_t size)
{
	int m, n = 0, total = 0;
	size_t len;

	for (m = 11; m <= 13; m++)
		total += (mask & major_bit(m)) != 0;
	len = (size_t)snprintf(buf, size, "CUDA");
	for (m = 11; m <= 13 && len < size; m++) {
		if (!(mask & major_bit(m)))
			continue;
		n++;
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
					n == 1 ? " " : n == total ? " and " : ", ", m);
	}
	return buf;
}

/* The package of row r for CUDA cuda_major into buf. */
static const char *package_of(const struct soname_row *r, int cuda_major, char *buf,
			      unsigned long size)
{
	if (!r->component)
		return NULL;
	/* CUDA 13's toolkit wheels dropped the -cuNN suffix; cuDNN's and NCCL's kept it. */
	if (cuda_major >= 13 && !r->release)
		snprintf(buf, size, "nvidia-%s", r->component);
	else
		snprintf(buf, size, "nvidia-%s-cu%d", r->component, cuda_major);
	return buf;
}

const char *ct_pip_package(const char *soname, int cuda_major, char *buf, unsigned long size)
{
	const char *b = base_of(soname);
	unsigned bit = major_bit(cuda_major);
	size_t i, stem = stem_len(b);

	if (!bit)
		return NULL;
	/* The soname itself, in that CUDA. */
	for (i = 0; i < NSONAMES; i++)
		if (strcmp(sonames[i].soname, b) == 0 && (sonames[i].cuda & bit))
			return package_of(&sonames[i], cuda_major, buf, size);
	/* The same library's build for that CUDA (libcublas.so.13 asked for 12). */
	for (i = 0; i < NSONAMES; i++)
		if ((sonames[i].cuda & bit) && stem_len(sonames[i].soname) == stem &&
		    strncmp(sonames[i].soname, b, stem) == 0)
			return package_of(&sonames[i], cuda_major, buf, size);
	return NULL;
}

char *ct_pip_words(const char *soname, int cuda_major, char *buf, size_t size)
{
	unsigned mask = ct_soname_cuda(soname, NULL);
	char pkg[96];
	int m, n = 0, total = 0;
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	if (cuda_major && (mask & major_bit(cuda_major)))
		mask = major_bit(cuda_major);
	for (m = 11; m <= 13; m++)
		total += (mask & major_bit(m)) && ct_pip_package(soname, m, pkg, sizeof(pkg));
	for (m = 11; m <= 13 && len < size; m++) {
		if (!(mask & major_bit(m)) || !ct_pip_package(soname, m, pkg, sizeof(pkg)))
			continue;
		n++;
		if (total == 1)
			len += (size_t)snprintf(buf + len, size - len, "%s", pkg);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%s (CUDA %d)",
						n == 1 ? "" : n == total ? " or " : ", ", pkg, m);
	}
	return buf;
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

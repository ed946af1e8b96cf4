/* The data tables; see compat.h. The releases and their sources are
   cuda_releases.def; the sonames' are in sonames.def. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/*
 * Every CUDA release from 11.0: its PTX ISA, Linux branch and driver, and
 * the GPU archs its branch is the first to support, or no longer supports.
 */
static const struct release {
	int cuda;
	unsigned isa, branch;
	const char *driver;
	const char *gpus_new, *gpus_gone, *gpus_later, *gpus_known;
} releases[] = {
#define CT_CUDA_RELEASE(cuda, isa, branch, driver, gpus_new, gpus_gone, gpus_later, gpus_known) \
	{ cuda, isa, branch, driver, gpus_new, gpus_gone, gpus_later, gpus_known },
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

int ct_newest_cuda(void)
{
	return releases[NRELEASES - 1].cuda;
}

unsigned ct_cuda_branch(int cuda)
{
	size_t i;

	if (cuda > releases[NRELEASES - 1].cuda)
		return releases[NRELEASES - 1].branch + 1;
	for (i = NRELEASES; i-- > 0;)
		if (releases[i].cuda <= cuda)
			return releases[i].branch;
	return 0;
}

const char *ct_branch_driver(unsigned branch)
{
	size_t i;

	for (i = 0; i < NRELEASES; i++)
		if (releases[i].branch == branch)
			return releases[i].driver;
	return NULL;
}

/* Is the arch sm (10 * major + minor) in list, space-separated numbers? */
static bool listed(const char *list, unsigned sm)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (v == sm)
			return true;
		p = end;
		while (*p == ' ')
			p++;
	}
	return false;
}

int ct_branch_gpu(unsigned branch, unsigned major, unsigned minor, unsigned *first,
		  unsigned *last)
{
	unsigned sm = major * 10 + minor, f = 0, l = 0;
	size_t i;

	for (i = 0; minor < 10 && i < NRELEASES; i++) {
		if (!f && listed(releases[i].gpus_new, sm))
			f = releases[i].branch;
		/* The row before holds the last branch; the table starts after Kepler's first. */
		if (!l && i > 0 && listed(releases[i].gpus_gone, sm))
			l = releases[i - 1].branch;
	}
	if (first)
		*first = f;
	if (last)
		*last = l;
	if (!f && !l) {
		unsigned known, later = ct_branch_gpu_later(major, minor, &known);

		return later && branch <= later ? 0 : known && branch >= known ? 1 : -1;
	}
	return (!f || branch >= f) && (!l || branch <= l);
}

unsigned ct_branch_gpu_later(unsigned major, unsigned minor, unsigned *known)
{
	unsigned sm = major * 10 + minor, later = 0;
	size_t i;

	*known = 0;
	for (i = 0; minor < 10 && i < NRELEASES; i++) {
		if (listed(releases[i].gpus_later, sm))
			later = releases[i].branch;
		if (!*known && listed(releases[i].gpus_known, sm))
			*known = releases[i].branch;
	}
	return later;
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

/*
 * The CUDA major a folder of path names: ".../cu13/lib/x" (CUDA 13's
 * wheels share nvidia/cu13/lib) or ".../cuda-12.4/..." (a toolkit); 0 when
 * none does.
 */
static int path_folder_cuda(const char *path)
{
	const char *p;
	int major = 0;

	for (p = path; p && *p; p++) {
		const char *c = p + 1;

		if (*p != '/' && *p != '!')
			continue;
		if (strncmp(c, "cu", 2) == 0 && isdigit((unsigned char)c[2]) &&
		    isdigit((unsigned char)c[3]) && strncmp(c + 4, "/lib/", 5) == 0)
			major = atoi(c + 2);
		else if (strncmp(c, "cuda-", 5) == 0 && isdigit((unsigned char)c[5]))
			major = atoi(c + 5);
	}
	return major;
}

int ct_soname_folder_cuda(const char *soname, const char *path, bool *folder)
{
	unsigned mask = ct_soname_cuda(soname, NULL);
	int major = ct_cuda_mask_major(mask), f;

	if (folder)
		*folder = false;
	if (major || !mask || !path)
		return major;
	f = path_folder_cuda(path);
	if (f >= 11 && f <= 13 && (mask & major_bit(f))) {
		if (folder)
			*folder = true;
		return f;
	}
	return 0;
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
	if (r->component[0] == '=') /* not NVIDIA's nvidia-* family (cuTENSOR) */
		snprintf(buf, size, "%s-cu%d", r->component + 1, cuda_major);
	/* CUDA 13's toolkit wheels dropped the -cuNN suffix; cuDNN's and NCCL's kept it. */
	else if (cuda_major >= 13 && !r->release)
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

const char *ct_soname_in_cuda(const char *name, int cuda_major)
{
	const char *b = base_of(name), *last = NULL;
	unsigned bit = major_bit(cuda_major);
	size_t i, stem = stem_len(b);

	/* The table lists a library's sonames oldest first: the last is the newest. */
	for (i = 0; bit && i < NSONAMES; i++)
		if ((sonames[i].cuda & bit) && stem_len(sonames[i].soname) == stem &&
		    strncmp(sonames[i].soname, b, stem) == 0 && sonames[i].soname[stem] == '.')
			last = sonames[i].soname;
	return last;
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

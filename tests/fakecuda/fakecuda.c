/*
 * A test double for the CUDA driver, libcuda.so.1, so that the shim's
 * hooks are exercised as cudart and PLT-linked programs use the real one:
 * cuGetProcAddress(_v2) with its version semantics, cuInit, the device
 * queries and the module loaders.
 *
 * Configured by the environment:
 *   FAKECUDA_DRIVER_VERSION  cuDriverGetVersion's answer (default 13000)
 *   FAKECUDA_DEVICES         "9.0:NVIDIA H200,8.0:NVIDIA A100" (default one
 *                            H200); empty: no device, cuInit returns 100
 *   FAKECUDA_INIT_RESULT     cuInit's result, overriding the above
 *   FAKECUDA_LOAD_RESULT     every module load's result; by default a load
 *                            succeeds when the image has code for device 0
 *                            (209 otherwise, 222 for PTX newer than the
 *                            driver's ISA), as the real driver decides
 *   FAKECUDA_COUNTS          a file the calls of each entry point are
 *                            appended to at exit
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "elfscan.h"

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
enum {
	OK = 0,
	INVALID_VALUE = 1,
	NOT_INITIALIZED = 3,
	NO_DEVICE = 100,
	INVALID_DEVICE = 101,
	INVALID_IMAGE = 200,
	NO_BINARY_FOR_GPU = 209,
	UNSUPPORTED_PTX_VERSION = 222,
	FILE_NOT_FOUND = 301,
	NOT_FOUND = 500,
	NOT_SUPPORTED = 801,
};

struct device {
	int major, minor;
	char name[128];
};

/*
 * Calls counted, for bench/trace: with FAKECUDA_COUNTS=FILE, each entry
 * point's calls are written there at exit ("NAME N" lines, appended), so a
 * bench can say how many calls went through the shim's wrappers.
 */
#define FAKE_ENTRIES(X) \
	X(cuDeviceGet) \
	X(cuDeviceGetAttribute) \
	X(cuDeviceGetCount) \
	X(cuDeviceGetName) \
	X(cuDeviceGetUuid) \
	X(cuDeviceGetUuid_v2) \
	X(cuDriverGetVersion) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuGetExportTable) \
	X(cuGetProcAddress) \
	X(cuGetProcAddress_v2) \
	X(cuInit) \
	X(cuLibraryLoadData) \
	X(cuLibraryLoadFromFile) \
	X(cuLibraryUnload) \
	X(cuLinkAddData_v2) \
	X(cuLinkAddFile_v2) \
	X(cuLinkComplete) \
	X(cuLinkCreate_v2) \
	X(cuLinkDestroy) \
	X(cuModuleLoad) \
	X(cuModuleLoadData) \
	X(cuModuleLoadDataEx) \
	X(cuModuleLoadFatBinary) \
	X(cuModuleUnload)

enum {
#define FAKE_ENUM(n) C_##n,
	FAKE_ENTRIES(FAKE_ENUM)
#undef FAKE_ENUM
	C_COUNT
};
static unsigned long calls[C_COUNT];
static const char *const call_names[] = {
#define FAKE_NAME(n) #n,
	FAKE_ENTRIES(FAKE_NAME)
#undef FAKE_NAME
};
#define COUNT(n) __atomic_add_fetch(&calls[C_##n], 1, __ATOMIC_RELAXED)

__attribute__((destructor)) static void write_counts(void)
{
	const char *path = getenv("FAKECUDA_COUNTS");
	FILE *f;
	int i;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	for (i = 0; i < C_COUNT; i++)
		if (calls[i])
			fprintf(f, "%s %lu\n", call_names[i], calls[i]);
	fclose(f);
}

static struct device devices[8];
static int ndevices = -1;
static int initialised;

static int env_int(const char *name, int fallback)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : fallback;
}

static void load_devices(void)
{
	const char *spec = getenv("FAKECUDA_DEVICES");
	char buf[1024];
	char *tok, *save = NULL;

	if (ndevices >= 0)
		return;
	ndevices = 0;
	if (!spec)
		spec = "9.0:NVIDIA H200";
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok && ndevices < 8;
	     tok = strtok_r(NULL, ",", &save)) {
		struct device *d = &devices[ndevices];
		char *colon = strchr(tok, ':');

		if (sscanf(tok, "%d.%d", &d->major, &d->minor) != 2)
			continue;
		snprintf(d->name, sizeof(d->name), "%s",
			 colon ? colon + 1 : "Fake GPU");
		ndevices++;
	}
}

EXPORT CUresult cuInit(unsigned flags)
{
	COUNT(cuInit);
	(void)flags;
	load_devices();
	initialised = 1;
	return env_int("FAKECUDA_INIT_RESULT", ndevices > 0 ? OK : NO_DEVICE);
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
	COUNT(cuDriverGetVersion);
	if (!v)
		return INVALID_VALUE;
	*v = env_int("FAKECUDA_DRIVER_VERSION", 13000);
	return OK;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
	COUNT(cuDeviceGetCount);
	if (!initialised)
		return NOT_INITIALIZED;
	*n = ndevices;
	return OK;
}

EXPORT CUresult cuDeviceGet(int *dev, int ordinal)
{
	COUNT(cuDeviceGet);
	if (!initialised)
		return NOT_INITIALIZED;
	if (ordinal < 0 || ordinal >= ndevices)
		return INVALID_DEVICE;
	*dev = ordinal;
	return OK;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, int dev)
{
	COUNT(cuDeviceGetName);
	if (dev < 0 || dev >= ndevices || len <= 0)
		return INVALID_DEVICE;
	snprintf(name, (size_t)len, "%s", devices[dev].name);
	return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	COUNT(cuDeviceGetAttribute);
	if (dev < 0 || dev >= ndevices)
		return INVALID_DEVICE;
	if (attr == 75)
		*v = devices[dev].major;
	else if (attr == 76)
		*v = devices[dev].minor;
	else
		*v = 0;
	return OK;
}

EXPORT CUresult cuDeviceGetUuid_v2(unsigned char *uuid, int dev)
{
	COUNT(cuDeviceGetUuid_v2);
	int i;

	if (dev < 0 || dev >= ndevices)
		return INVALID_DEVICE;
	for (i = 0; i < 16; i++)
		uuid[i] = (unsigned char)(0x10 * dev + i);
	return OK;
}

EXPORT CUresult cuDeviceGetUuid(unsigned char *uuid, int dev)
{
	COUNT(cuDeviceGetUuid);
	return cuDeviceGetUuid_v2(uuid, dev);
}

/* The driver's ISA: CUDA 12.4 knows PTX 8.4, 13.0 knows 9.0 (fatbin.md 4.1). */
static unsigned max_ptx(void)
{
	int v = env_int("FAKECUDA_DRIVER_VERSION", 13000);
	int major = v / 1000, minor = (v % 1000) / 10;

	if (major >= 13)
		return 90 + (unsigned)minor;
	if (major == 12)
		return minor >= 7 ? 86 + (unsigned)(minor - 7) : 80 + (unsigned)minor;
	return 70 + (unsigned)minor;
}

/* What the real driver answers for this image on device 0. */
static CUresult judge(const void *image, size_t maxlen)
{
	struct elfscan_image img[64];
	struct elfscan_target t = { 0 };
	long n, pick;

	if (getenv("FAKECUDA_LOAD_RESULT"))
		return env_int("FAKECUDA_LOAD_RESULT", OK);
	if (!initialised)
		return NOT_INITIALIZED;
	if (!image)
		return INVALID_VALUE;
	n = elfscan_module_describe(image, maxlen, img, 64);
	if (n <= 0)
		return INVALID_IMAGE;
	if (ndevices <= 0)
		return NO_DEVICE;
	t.major = (unsigned)devices[0].major;
	t.minor = (unsigned)devices[0].minor;
	pick = elfscan_pick_image(img, n < 64 ? (size_t)n : 64, &t);
	if (pick < 0)
		return NO_BINARY_FOR_GPU;
	if (img[pick].kind == ELFSCAN_KIND_PTX &&
	    img[pick].version_major * 10 + img[pick].version_minor > max_ptx())
		return UNSUPPORTED_PTX_VERSION;
	return OK;
}

static const void *unwrap(const void *p)
{
	const unsigned char *b = p;

	if (b && b[0] == 0xB1 && b[1] == 0x43 && b[2] == 0x62 && b[3] == 0x46)
		return *(const void *const *)(b + 8);
	return p;
}

static int handles;

static CUresult loaded(void **out, CUresult rc)
{
	if (out)
		*out = rc == OK ? (void *)(long)++handles : NULL;
	return rc;
}

/* Reads a module file whole, as cuModuleLoad does. */
static CUresult load_file(void **out, const char *path)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	static char buf[1 << 22];
	size_t n;

	if (!f)
		return loaded(out, FILE_NOT_FOUND);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return loaded(out, judge(buf, n + 1));
}

EXPORT CUresult cuModuleLoad(void **mod, const char *fname)
{
	COUNT(cuModuleLoad);
	return load_file(mod, fname);
}

EXPORT CUresult cuModuleLoadData(void **mod, const void *image)
{
	COUNT(cuModuleLoadData);
	return loaded(mod, judge(unwrap(image), (size_t)1 << 40));
}

EXPORT CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n,
				   int *opts, void **vals)
{
	COUNT(cuModuleLoadDataEx);
	(void)n, (void)opts, (void)vals;
	return loaded(mod, judge(unwrap(image), (size_t)1 << 40));
}

EXPORT CUresult cuModuleLoadFatBinary(void **mod, const void *fat)
{
	COUNT(cuModuleLoadFatBinary);
	return loaded(mod, judge(unwrap(fat), (size_t)1 << 40));
}

EXPORT CUresult cuModuleUnload(void *mod)
{
	COUNT(cuModuleUnload);
	return mod ? OK : INVALID_VALUE;
}

EXPORT CUresult cuLibraryLoadData(void **lib, const void *code, int *jo,
				  void **jv, unsigned nj, int *lo, void **lv,
				  unsigned nl)
{
	COUNT(cuLibraryLoadData);
	(void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
	return loaded(lib, judge(unwrap(code), (size_t)1 << 40));
}

EXPORT CUresult cuLibraryLoadFromFile(void **lib, const char *file, int *jo,
				      void **jv, unsigned nj, int *lo,
				      void **lv, unsigned nl)
{
	COUNT(cuLibraryLoadFromFile);
	(void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
	return load_file(lib, file);
}

EXPORT CUresult cuLibraryUnload(void *lib)
{
	COUNT(cuLibraryUnload);
	return lib ? OK : INVALID_VALUE;
}

EXPORT CUresult cuLinkCreate_v2(unsigned n, int *opts, void **vals, void **state)
{
	COUNT(cuLinkCreate_v2);
	(void)n, (void)opts, (void)vals;
	*state = (void *)(long)++handles;
	return OK;
}

EXPORT CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size,
				 const char *name, unsigned n, int *opts,
				 void **vals)
{
	COUNT(cuLinkAddData_v2);
	(void)state, (void)type, (void)name, (void)n, (void)opts, (void)vals;
	return data && size ? OK : INVALID_VALUE;
}

EXPORT CUresult cuLinkAddFile_v2(void *state, int type, const char *path,
				 unsigned n, int *opts, void **vals)
{
	COUNT(cuLinkAddFile_v2);
	(void)state, (void)type, (void)n, (void)opts, (void)vals;
	return path ? OK : INVALID_VALUE;
}

EXPORT CUresult cuLinkComplete(void *state, void **cubin, size_t *size)
{
	COUNT(cuLinkComplete);
	(void)state;
	*cubin = NULL;
	*size = 0;
	return NOT_SUPPORTED;
}

EXPORT CUresult cuLinkDestroy(void *state)
{
	COUNT(cuLinkDestroy);
	return state ? OK : INVALID_VALUE;
}

EXPORT CUresult cuGetExportTable(const void **table, const void *uuid)
{
	COUNT(cuGetExportTable);
	(void)uuid;
	*table = NULL;
	return NOT_SUPPORTED;
}

EXPORT CUresult cuGetErrorString(CUresult rc, const char **s)
{
	COUNT(cuGetErrorString);
	*s = rc == OK ? "no error" : "fake driver error";
	return OK;
}

EXPORT CUresult cuGetErrorName(CUresult rc, const char **s)
{
	COUNT(cuGetErrorName);
	*s = rc == OK ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
	return OK;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int ver,
				 unsigned long long flags);
EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver,
				    unsigned long long flags, int *status);

/* The entry points by base name, with the version that introduced them. */
static const struct {
	const char *name;
	int since;
	void *fn;
} table[] = {
	{ "cuInit", 2000, (void *)cuInit },
	{ "cuDriverGetVersion", 2020, (void *)cuDriverGetVersion },
	{ "cuDeviceGetCount", 2000, (void *)cuDeviceGetCount },
	{ "cuDeviceGet", 2000, (void *)cuDeviceGet },
	{ "cuDeviceGetName", 2000, (void *)cuDeviceGetName },
	{ "cuDeviceGetAttribute", 2000, (void *)cuDeviceGetAttribute },
	{ "cuDeviceGetUuid", 9020, (void *)cuDeviceGetUuid },
	{ "cuModuleLoad", 2000, (void *)cuModuleLoad },
	{ "cuModuleLoadData", 2000, (void *)cuModuleLoadData },
	{ "cuModuleLoadDataEx", 2010, (void *)cuModuleLoadDataEx },
	{ "cuModuleLoadFatBinary", 2000, (void *)cuModuleLoadFatBinary },
	{ "cuModuleUnload", 2000, (void *)cuModuleUnload },
	{ "cuLibraryLoadData", 12000, (void *)cuLibraryLoadData },
	{ "cuLibraryLoadFromFile", 12000, (void *)cuLibraryLoadFromFile },
	{ "cuLibraryUnload", 12000, (void *)cuLibraryUnload },
	{ "cuLinkCreate", 5050, (void *)cuLinkCreate_v2 },
	{ "cuLinkAddData", 5050, (void *)cuLinkAddData_v2 },
	{ "cuLinkAddFile", 5050, (void *)cuLinkAddFile_v2 },
	{ "cuLinkComplete", 5050, (void *)cuLinkComplete },
	{ "cuLinkDestroy", 5050, (void *)cuLinkDestroy },
	{ "cuGetExportTable", 3000, (void *)cuGetExportTable },
	{ "cuGetErrorString", 6000, (void *)cuGetErrorString },
	{ "cuGetErrorName", 6000, (void *)cuGetErrorName },
};

static CUresult lookup(const char *symbol, void **pfn, int ver, int *status)
{
	size_t i;

	if (!symbol || !pfn)
		return INVALID_VALUE;
	*pfn = NULL;
	if (strcmp(symbol, "cuGetProcAddress") == 0) {
		/* v2, with symbolStatus, from 12.0 on. */
		*pfn = ver >= 12000 ? (void *)cuGetProcAddress_v2
				    : (void *)cuGetProcAddress;
		if (status)
			*status = 0;
		return OK;
	}
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(symbol, table[i].name) != 0)
			continue;
		if (ver < table[i].since) {
			if (status)
				*status = 2; /* CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT */
			return NOT_FOUND;
		}
		*pfn = table[i].fn;
		if (status)
			*status = 0;
		return OK;
	}
	if (status)
		*status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
	return NOT_FOUND;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int ver,
				 unsigned long long flags)
{
	COUNT(cuGetProcAddress);
	(void)flags;
	return lookup(symbol, pfn, ver, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver,
				    unsigned long long flags, int *status)
{
	COUNT(cuGetProcAddress_v2);
	(void)flags;
	return lookup(symbol, pfn, ver, status);
}

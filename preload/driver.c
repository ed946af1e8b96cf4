/*
 * Wrappers of the CUDA driver's module-load entry points, of
 * cuGetProcAddress (through which cudart obtains all of them), of cuInit
 * and of cudart's __cudaRegisterFatBinary (DESIGN.md decision 2).
 *
 * A wrapper is bound to the real function it replaces. C has no closures,
 * so every entry point gets SLOTS wrappers, each reading its real pointer
 * from its own slot; the same function reached through two libcuda copies
 * or two cudart majors takes two slots. With no slot left, the real
 * pointer is handed out unwrapped and that load goes unrecorded.
 */
#include <errno.h>
#include <string.h>

#include "elfscan.h"
#include "shim.h"

#define SLOTS 4
#define MAX_IMAGES 16

enum {
#define CT_DRIVER(ret, name, params, args) FN_##name,
#include "driver.def"
#undef CT_DRIVER
	FN_COUNT
};

static void *reals[FN_COUNT][SLOTS];

static void *slot_real(int fn, int k)
{
	return __atomic_load_n(&reals[fn][k], __ATOMIC_ACQUIRE);
}

/* --- what each call records ---------------------------------------------- */

/* Image pointers come without a length; the formats carry their own. */
#define NO_LENGTH ((size_t)1 << 40)

static void put_images(struct ct_rec *r, const void *p, size_t maxlen);

/* CUDA result codes that mean the driver parsed the image. */
static bool image_was_read(int rc)
{
	return rc == 0 || rc == 209 /* no binary for GPU */ ||
	       rc == 222 /* unsupported PTX version */ ||
	       rc == 221 /* JIT compiler not found */ ||
	       rc == 223 /* JIT disabled */;
}

/*
 * Where an image is: the file that holds it and its offset there, for the
 * report to read it from the file (DESIGN.md, "the shim records where, not
 * what": walking the entry headers of a big library's fatbins here would
 * fault in pages the program never touches). Only an image in no file is
 * described here, from its headers.
 */
static void put_where(struct ct_rec *r, const void *p, size_t maxlen)
{
	char obj[1024];
	uint64_t off;

	if (p && ct_object_file_offset(p, obj, sizeof(obj), &off)) {
		ct_rec_str(r, "object", obj);
		ct_rec_u64(r, "offset", off);
		if (maxlen != NO_LENGTH)
			ct_rec_u64(r, "size", maxlen);
		return;
	}
	put_images(r, p, maxlen);
}

static void put_images(struct ct_rec *r, const void *p, size_t maxlen)
{
	struct elfscan_image img[MAX_IMAGES];
	long n = p ? elfscan_module_describe(p, maxlen, img, MAX_IMAGES) : -1;
	long i;

	if (n < 0) {
		ct_rec_str(r, "image", "unrecognised");
		return;
	}
	ct_rec_u64(r, "image_count", (uint64_t)n);
	ct_rec_open(r, "images", '[');
	for (i = 0; i < n && i < MAX_IMAGES; i++) {
		char arch[ELFSCAN_ARCH_NAME_MAX];

		ct_rec_open(r, NULL, '{');
		ct_rec_str(r, "kind", elfscan_kind_name(img[i].kind));
		ct_rec_str(r, "arch", elfscan_image_arch_name(&img[i], arch, sizeof(arch)));
		if (img[i].kind == ELFSCAN_KIND_PTX) {
			char v[8] = { (char)('0' + img[i].version_major % 10), '.',
				      (char)('0' + img[i].version_minor % 10), 0 };

			ct_rec_str(r, "ptx_version", v);
		}
		ct_rec_close(r, '}');
	}
	ct_rec_close(r, ']');
}

/*
 * A fatbin wrapper ({magic 0x466243B1, version, data, ...}) as
 * cuModuleLoadFatBinary and __cudaRegisterFatBinary receive it leads to
 * the container; anything else is the image itself.
 */
static const void *unwrap(const void *p, unsigned *version)
{
	const unsigned char *b = p;

	*version = 0;
	if (b && b[0] == 0xB1 && b[1] == 0x43 && b[2] == 0x62 && b[3] == 0x46) {
		const void *const *data = (const void *const *)(b + 8);

		*version = b[4];
		return *data;
	}
	return p;
}

static bool begin(struct ct_rec *r, const char *api, int rc, const void *caller)
{
	char obj[1024];

	if (!ct_rec_begin(r, "module"))
		return false;
	ct_rec_str(r, "api", api);
	ct_rec_i64(r, "result", rc);
	ct_rec_str(r, "caller", ct_object_of(caller, obj, sizeof(obj)));
	return true;
}

static void note_image(const char *api, int rc, const void *caller,
		       const void *image)
{
	struct ct_rec r;
	unsigned wv;

	if (!begin(&r, api, rc, caller))
		return;
	if (image_was_read(rc))
		put_where(&r, unwrap(image, &wv), NO_LENGTH);
	ct_rec_end(&r);
}

static void note_file(const char *api, int rc, const void *caller,
		      const char *path)
{
	struct ct_rec r;

	if (!begin(&r, api, rc, caller))
		return;
	ct_rec_str(&r, "file", path);
	ct_rec_end(&r);
}

/*
 * The driver's version, once, as soon as its entry points are asked for:
 * cudart checks it before cuInit and stops there when it is too old.
 */
static void note_driver_version(const void *real_fn)
{
	static int done;
	typedef int (*get_int)(int *);
	get_int version;
	uintptr_t base;
	const void *dyn;
	struct ct_rec r;
	char path[1024];
	int v = 0;

	/* Asked on every cuGetProcAddress call: a plain load once it is done. */
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	if (!ct_object_dynamic(real_fn, &base, &dyn))
		return;
	*(void **)&version = ct_symbol_in(base, dyn, "cuDriverGetVersion");
	if (!ct_rec_begin(&r, "driver"))
		return;
	ct_rec_str(&r, "path", ct_object_of(real_fn, path, sizeof(path)));
	if (version && version(&v) == 0)
		ct_rec_i64(&r, "version", v);
	ct_rec_end(&r);
}

/* Driver facts, once: version, and the GPUs when cuInit succeeded. */
static void note_driver(int rc, const void *real_init, const void *caller)
{
	static int done;
	typedef int (*get_int)(int *);
	typedef int (*dev_get)(int *, int);
	typedef int (*dev_name)(char *, int, int);
	typedef int (*dev_attr)(int *, int, int);
	typedef int (*dev_uuid)(unsigned char *, int);
	struct ct_rec r;
	uintptr_t base;
	const void *dyn;
	char path[1024];
	get_int version, count;
	dev_get get;
	dev_name name;
	dev_attr attr;
	dev_uuid uuid;
	int v = 0, n = 0, i;

	if (!ct_rec_begin(&r, "cuinit"))
		return;
	ct_rec_i64(&r, "result", rc);
	ct_rec_str(&r, "caller", ct_object_of(caller, path, sizeof(path)));
	ct_rec_end(&r);
	/* Once without devices (a failed cuInit), once more with them. */
	{
		int level = rc == 0 ? 2 : 1, old = __atomic_load_n(&done, __ATOMIC_ACQUIRE);

		do {
			if (old >= level)
				return;
		} while (!__atomic_compare_exchange_n(&done, &old, level, false,
						      __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE));
	}
	if (!ct_object_dynamic(real_init, &base, &dyn))
		return;
	*(void **)&version = ct_symbol_in(base, dyn, "cuDriverGetVersion");
	*(void **)&count = ct_symbol_in(base, dyn, "cuDeviceGetCount");
	*(void **)&get = ct_symbol_in(base, dyn, "cuDeviceGet");
	*(void **)&name = ct_symbol_in(base, dyn, "cuDeviceGetName");
	*(void **)&attr = ct_symbol_in(base, dyn, "cuDeviceGetAttribute");
	*(void **)&uuid = ct_symbol_in(base, dyn, "cuDeviceGetUuid_v2");
	if (!uuid)
		*(void **)&uuid = ct_symbol_in(base, dyn, "cuDeviceGetUuid");
	if (!ct_rec_begin(&r, "driver"))
		return;
	ct_rec_str(&r, "path", ct_object_of(real_init, path, sizeof(path)));
	if (version && version(&v) == 0)
		ct_rec_i64(&r, "version", v);
	ct_rec_i64(&r, "init", rc);
	ct_rec_open(&r, "devices", '[');
	if (rc == 0 && count && get && count(&n) == 0) {
		for (i = 0; i < n && i < 64; i++) {
			char nm[256];
			unsigned char u[16];
			int dev, major = 0, minor = 0;

			if (get(&dev, i) != 0)
				continue;
			ct_rec_open(&r, NULL, '{');
			ct_rec_i64(&r, "index", i);
			if (name && name(nm, sizeof(nm), dev) == 0) {
				nm[sizeof(nm) - 1] = '\0';
				ct_rec_str(&r, "name", nm);
			}
			/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR */
			if (attr && attr(&major, 75, dev) == 0 &&
			    attr(&minor, 76, dev) == 0) {
				char cc[8] = { 0 };
				int k = 0;

				if (major >= 10)
					cc[k++] = (char)('0' + major / 10);
				cc[k++] = (char)('0' + major % 10);
				cc[k++] = '.';
				cc[k++] = (char)('0' + minor % 10);
				ct_rec_str(&r, "cc", cc);
			}
			if (uuid && uuid(u, dev) == 0) {
				static const char hex[] = "0123456789abcdef";
				char s[48];
				int j, k = 0;

				for (j = 0; j < 16; j++) {
					if (j == 4 || j == 6 || j == 8 || j == 10)
						s[k++] = '-';
					s[k++] = hex[u[j] >> 4];
					s[k++] = hex[u[j] & 15];
				}
				s[k] = '\0';
				ct_rec_str(&r, "uuid", s);
			}
			ct_rec_close(&r, '}');
		}
	}
	ct_rec_close(&r, ']');
	ct_rec_end(&r);
}

/* --- after the real call: one function per entry point ------------------- */

static void *wrap(int fn, void *real);
static void after_gpa(int rc, const char *sym, void **pfn, int ver, bool v2);

static void after_cuGetProcAddress(int rc, const void *caller, const char *sym,
				   void **pfn, int ver, unsigned long long flags)
{
	(void)caller;
	(void)flags;
	after_gpa(rc, sym, pfn, ver, false);
}

static void after_cuGetProcAddress_v2(int rc, const void *caller,
				      const char *sym, void **pfn, int ver,
				      unsigned long long flags, int *status)
{
	(void)caller;
	(void)flags;
	(void)status;
	after_gpa(rc, sym, pfn, ver, true);
}

static void after_cuInit(int rc, const void *caller, unsigned flags)
{
	(void)flags;
	/* Any real cuInit leads to the driver library (one, in practice). */
	note_driver(rc, slot_real(FN_cuInit, 0), caller);
}

static void after_cuModuleLoad(int rc, const void *caller, void **mod,
			       const char *fname)
{
	(void)mod;
	note_file("cuModuleLoad", rc, caller, fname);
}

static void after_cuModuleLoadData(int rc, const void *caller, void **mod,
				   const void *image)
{
	(void)mod;
	note_image("cuModuleLoadData", rc, caller, image);
}

static void after_cuModuleLoadDataEx(int rc, const void *caller, void **mod,
				     const void *image, unsigned n, int *opts,
				     void **vals)
{
	(void)mod;
	(void)n;
	(void)opts;
	(void)vals;
	note_image("cuModuleLoadDataEx", rc, caller, image);
}

static void after_cuModuleLoadFatBinary(int rc, const void *caller,
					void **mod, const void *fat)
{
	(void)mod;
	note_image("cuModuleLoadFatBinary", rc, caller, fat);
}

static void after_cuLibraryLoadData(int rc, const void *caller, void **lib,
				    const void *code, int *jo, void **jv,
				    unsigned nj, int *lo, void **lv, unsigned nl)
{
	(void)lib, (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
	note_image("cuLibraryLoadData", rc, caller, code);
}

static void after_cuLibraryLoadFromFile(int rc, const void *caller, void **lib,
					const char *file, int *jo, void **jv,
					unsigned nj, int *lo, void **lv,
					unsigned nl)
{
	(void)lib, (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
	note_file("cuLibraryLoadFromFile", rc, caller, file);
}

/* CUjitInputType: cubin 0, PTX 1, fatbinary 2, object 3, library 4, NVVM 5. */
static const char *const input_types[] = { "cubin", "ptx", "fatbinary",
					   "object", "library", "nvvm" };

static void after_cuLinkAddData(int rc, const void *caller, void *state,
				int type, void *data, size_t size,
				const char *name, unsigned n, int *opts,
				void **vals)
{
	struct ct_rec r;

	(void)state, (void)n, (void)opts, (void)vals;
	if (!begin(&r, "cuLinkAddData", rc, caller))
		return;
	ct_rec_str(&r, "input", type >= 0 && type < 6 ? input_types[type] : "unknown");
	ct_rec_str(&r, "name", name);
	ct_rec_u64(&r, "size", size);
	if (type >= 0 && type <= 2)
		put_where(&r, data, size);
	ct_rec_end(&r);
}

static void after_cuLinkAddFile(int rc, const void *caller, void *state,
				int type, const char *path, unsigned n,
				int *opts, void **vals)
{
	struct ct_rec r;

	(void)state, (void)n, (void)opts, (void)vals;
	if (!begin(&r, "cuLinkAddFile", rc, caller))
		return;
	ct_rec_str(&r, "input", type >= 0 && type < 6 ? input_types[type] : "unknown");
	ct_rec_str(&r, "file", path);
	ct_rec_end(&r);
}

static void after_cuLinkComplete(int rc, const void *caller, void *state,
				 void **cubin, size_t *size)
{
	struct ct_rec r;

	(void)state;
	if (!begin(&r, "cuLinkComplete", rc, caller))
		return;
	if (rc == 0 && cubin && size && *cubin)
		put_images(&r, *cubin, *size);
	ct_rec_end(&r);
}

static void after___cudaRegisterFatBinary(void **rc, const void *caller,
					  void *fat)
{
	struct ct_rec r;
	char obj[1024];
	unsigned wv;
	const void *data = unwrap(fat, &wv);

	(void)rc;
	if (!ct_rec_begin(&r, "register"))
		return;
	ct_rec_str(&r, "caller", ct_object_of(caller, obj, sizeof(obj)));
	ct_rec_u64(&r, "wrapper_version", wv);
	if (wv)
		put_where(&r, data, NO_LENGTH);
	ct_rec_end(&r);
}

/* --- the wrappers ---------------------------------------------------------- */

#define CT_EXPAND(...) __VA_ARGS__

#define CT_WRAPPER(ret, name, params, args, K)                                \
	static ret w_##name##_##K params                                      \
	{                                                                     \
		ret(*real) params;                                            \
		ret rc;                                                       \
		int saved;                                                    \
		*(void **)&real = slot_real(FN_##name, K);                    \
		rc = real args;                                               \
		saved = errno; /* recording must not change what it left */   \
		after_##name(rc, __builtin_return_address(0), CT_EXPAND args); \
		errno = saved;                                                \
		return rc;                                                    \
	}

#define CT_DRIVER(ret, name, params, args)                                    \
	CT_WRAPPER(ret, name, params, args, 0)                                \
	CT_WRAPPER(ret, name, params, args, 1)                                \
	CT_WRAPPER(ret, name, params, args, 2)                                \
	CT_WRAPPER(ret, name, params, args, 3)
#include "driver.def"
#undef CT_DRIVER

static void *const wrappers[FN_COUNT][SLOTS] = {
#define CT_DRIVER(ret, name, params, args)                                    \
	{ (void *)w_##name##_0, (void *)w_##name##_1, (void *)w_##name##_2,   \
	  (void *)w_##name##_3 },
#include "driver.def"
#undef CT_DRIVER
};

static const char *const fn_names[FN_COUNT] = {
#define CT_DRIVER(ret, name, params, args) #name,
#include "driver.def"
#undef CT_DRIVER
};

/* The wrapper bound to real, taking a free slot when there is none yet. */
static void *wrap(int fn, void *real)
{
	int k, f;

	if (!real)
		return real;
	for (f = 0; f < FN_COUNT; f++)
		for (k = 0; k < SLOTS; k++)
			if (wrappers[f][k] == real)
				return real; /* already ours */
	for (k = 0; k < SLOTS; k++) {
		void *expected = NULL;

		if (slot_real(fn, k) == real)
			return wrappers[fn][k];
		if (__atomic_compare_exchange_n(&reals[fn][k], &expected, real,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) ||
		    expected == real)
			return wrappers[fn][k];
	}
	return real;
}

/*
 * The entry point a name stands for: exported names carry version suffixes
 * (cuLinkAddData_v2), cuGetProcAddress queries use base names.
 */
static int fn_of(const char *name)
{
	char base[64];
	size_t n;
	int f;

	/*
	 * Every binding of every object comes here (la_symbind64): turn the
	 * names of no entry point away on their first bytes, as all of
	 * driver.def's start with "cu" or "__cuda".
	 */
	if (!name || !((name[0] == 'c' && name[1] == 'u') ||
		       (name[0] == '_' && name[1] == '_' && name[2] == 'c')))
		return -1;
	n = ct_strlen(name);
	for (f = 0; f < FN_COUNT; f++)
		if (ct_strcmp(name, fn_names[f]) == 0)
			return f;
	if (n > 3 && n < sizeof(base) && name[n - 3] == '_' && name[n - 2] == 'v') {
		memcpy(base, name, n - 3);
		base[n - 3] = '\0';
		for (f = 0; f < FN_COUNT; f++)
			if (f != FN_cuGetProcAddress && ct_strcmp(base, fn_names[f]) == 0)
				return f;
	}
	return -1;
}

static void after_gpa(int rc, const char *sym, void **pfn, int ver, bool v2)
{
	int f, k;

	note_driver_version(slot_real(v2 ? FN_cuGetProcAddress_v2 : FN_cuGetProcAddress, 0));
	if (rc != 0 || !sym || !pfn || !*pfn || !sym[0])
		return;
	if (ct_strcmp(sym, "cuGetProcAddress") == 0) {
		/*
		 * The self-query: cudart then asks everything of the pointer it
		 * gets, so it must be ours, with the ABI of what the driver
		 * returned: v1 (4 arguments) or v2 (5), told apart by the real
		 * pointers already known, else by the version asked for.
		 */
		for (k = 0; k < SLOTS; k++) {
			if (slot_real(FN_cuGetProcAddress_v2, k) == *pfn) {
				*pfn = wrappers[FN_cuGetProcAddress_v2][k];
				return;
			}
			if (slot_real(FN_cuGetProcAddress, k) == *pfn) {
				*pfn = wrappers[FN_cuGetProcAddress][k];
				return;
			}
		}
		*pfn = wrap(ver >= 12000 ? FN_cuGetProcAddress_v2
					 : FN_cuGetProcAddress,
			    *pfn);
		return;
	}
	f = fn_of(sym);
	if (f >= 0 && f != FN___cudaRegisterFatBinary &&
	    f != FN_cuGetProcAddress_v2)
		*pfn = wrap(f, *pfn);
}

uintptr_t ct_driver_bind(const char *name, uintptr_t value)
{
	int f = fn_of(name);

	if (f < 0)
		return value;
	/* cuGetProcAddress_v2 is its own entry point, not a suffix of v1. */
	if (ct_strcmp(name, "cuGetProcAddress_v2") == 0)
		f = FN_cuGetProcAddress_v2;
	return (uintptr_t)wrap(f, (void *)value);
}

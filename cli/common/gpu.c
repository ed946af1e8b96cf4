/*
 * The GPUs of this machine, asked of the CUDA driver. libcuda.so.1 is
 * opened at run time, never linked, so cudatrace runs where there is none.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "cuda_errors.h"
#include "util.h"
#include "gpu.h"
#include "elfscan.h"

/* CUdevice_attribute values from cuda.h. */
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_attr_fn)(int *, int, int);

int ct_gpu_targets(struct elfscan_target *out, int max, char *why, size_t size)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_attr_fn attr;
	int n = 0, i, rc, found = 0;

	if (!h) {
		snprintf(why, size, "no NVIDIA driver: %s", dlerror());
		return -1;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	*(void **)&get = dlsym(h, "cuDeviceGet");
	*(void **)&attr = dlsym(h, "cuDeviceGetAttribute");
	if (!init || !count || !get || !attr) {
		snprintf(why, size, "libcuda.so.1 lacks the device query functions");
		goto fail;
	}
	if ((rc = init(0)) != 0) {
		snprintf(why, size, "cuInit failed: %s (%s, %d)",
			 ct_cu_error_text(rc), ct_cu_error_name(rc), rc);
		goto fail;
	}
	if ((rc = count(&n)) != 0 || n <= 0) {
		snprintf(why, size, "the driver reports no GPU");
		goto fail;
	}
	for (i = 0; i < n && found < max; i++) {
		int dev, major, minor, k, dup = 0;

		if (get(&dev, i) != 0 ||
		    attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
		    attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
			continue;
		for (k = 0; k < found; k++)
			dup |= out[k].major == (unsigned)major &&
			       out[k].minor == (unsigned)minor;
		if (dup)
			continue;
		memset(&out[found], 0, sizeof(out[found]));
		out[found].major = (unsigned)major;
		out[found].minor = (unsigned)minor;
		found++;
	}
	dlclose(h);
	if (!found)
		snprintf(why, size, "the driver gave no compute capability");
	return found ? found : -1;
fail:
	dlclose(h);
	return -1;
}

/* ---- doctor: the driver's own facts and every GPU's ----------------------- */

typedef int (*cu_version_fn)(int *);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_uuid_fn)(unsigned char *, int);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi spells it. */
static void uuid_words(const unsigned char *u, char *buf, size_t size)
{
	static const int dash[] = { 4, 6, 8, 10 };
	size_t n = (size_t)snprintf(buf, size, "GPU-");
	int i, k = 0;

	for (i = 0; i < 16 && n + 3 < size; i++) {
		if (k < 4 && i == dash[k]) {
			buf[n++] = '-';
			k++;
		}
		n += (size_t)snprintf(buf + n, size - n, "%02x", u[i]);
	}
}

void ct_driver_probe(struct ct_driver_probe *p)
{
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_attr_fn attr;
	cu_version_fn version;
	cu_name_fn name;
	cu_uuid_fn uuid;
	Dl_info info;
	void *h;
	int i, n;

	memset(p, 0, sizeof(*p));
	p->version = p->init_result = p->count = -1;
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		snprintf(p->error, sizeof(p->error), "%s", e ? e : "cannot load libcuda.so.1");
		return;
	}
	p->opened = true;
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	*(void **)&get = dlsym(h, "cuDeviceGet");
	*(void **)&attr = dlsym(h, "cuDeviceGetAttribute");
	*(void **)&version = dlsym(h, "cuDriverGetVersion");
	*(void **)&name = dlsym(h, "cuDeviceGetName");
	*(void **)&uuid = dlsym(h, "cuDeviceGetUuid_v2");
	if (!uuid)
		*(void **)&uuid = dlsym(h, "cuDeviceGetUuid");
	/* The file dlopen really mapped, to compare with the loader model. */
	if (init && dladdr(*(void **)&init, &info) && info.dli_fname)
		snprintf(p->path, sizeof(p->path), "%s", info.dli_fname);
	/* cuDriverGetVersion needs no cuInit: it answers even without a GPU. */
	if (version && version(&p->version) != 0)
		p->version = -1;
	if (!init || !count || !get) {
		snprintf(p->error, sizeof(p->error),
			 "libcuda.so.1 lacks cuInit or the device queries");
		goto out;
	}
	p->init_result = init(0);
	if (p->init_result != 0)
		goto out;
	if (count(&n) != 0)
		goto out;
	p->count = n;
	for (i = 0; i < p->count && i < CT_MAX_GPUS; i++) {
		struct ct_gpu_info *g = &p->gpus[p->ngpus++];
		unsigned char u[16];
		int dev;

		g->index = i;
		g->major = g->minor = -1;
		if (get(&dev, i) != 0)
			continue;
		if (attr && (attr(&g->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
			     attr(&g->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
			g->major = g->minor = -1;
		if (name && name(g->name, (int)sizeof(g->name), dev) != 0)
			g->name[0] = '\0';
		g->name[sizeof(g->name) - 1] = '\0';
		if (uuid && uuid(u, dev) == 0)
			uuid_words(u, g->uuid, sizeof(g->uuid));
	}
out:
	dlclose(h);
}

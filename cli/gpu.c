/*
 * The GPUs of this machine, asked of the CUDA driver. libcuda.so.1 is
 * opened at run time, never linked, so cudatrace runs where there is none.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "cuda_errors.h"
#include "cudatrace.h"

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

/*
 * The CUDA runtime an object needs, read from the object itself: the bytes
 * elfscan scanned (struct elfscan_file), so that a wheel's member, read in
 * memory, is judged as a file is, and nothing is opened again by path.
 *
 * A driver runs the runtime of its own CUDA major and every older one;
 * within a major, minor-version compatibility runs any 12.x runtime on a
 * driver for 12.0 or newer (compat.h: ct_family_driver). So what a runtime
 * asks of the driver is its major: libcudart.so.13 needs a driver for CUDA
 * 13.0 (580) or newer, whatever its minor.
 */
#ifndef CT_CUDART_NEED_H
#define CT_CUDART_NEED_H

#include <stdbool.h>

#include "elfscan.h"

enum ct_cudart_link {
	CT_CUDART_UNKNOWN = 0, /* none the object shows (or not an object that links) */
	CT_CUDART_SHARED,      /* DT_NEEDED libcudart.so.N */
	CT_CUDART_STATIC,      /* linked in: nvcc's default (-cudart static) */
};

struct ct_cudart_need {
	enum ct_cudart_link link;
	char soname[64]; /* CT_CUDART_SHARED: "libcudart.so.13"; else "" */
	/*
	 * The CUDA major of that runtime (13), 0 when unknown. For a static
	 * one, the newest compiler release nvcc wrote into the fatbins
	 * ("Cuda compilation tools, release 13.0": nvcc links the cudart of
	 * its own toolkit), else a lower bound from the newest PTX ISA (8.x:
	 * CUDA 12 or newer): never more than the file says.
	 */
	int major;
	int release;     /* static, from the compiler release: 13000 for 13.0; else 0 */
	/*
	 * How it was read: "dt_needed", "compiler_release" (the newest in
	 * .nv_fatbin), "ptx_isa" (a lower bound), "soname" (one of CUDA's
	 * own libraries: its soname's CUDA, ct_cudart_need_named); NULL when
	 * not.
	 */
	const char *why;
	char own_soname[64]; /* the object's own DT_SONAME, or "" */
	bool by_folder;      /* "soname": its folder chose among the majors sharing it */
};

/*
 * What f (an ELF object scanned by elfscan, its buffer still there) needs:
 * the libcudart its dynamic section names, else, for a shared object or
 * executable that registers fatbins (.nvFatBinSegment) without importing
 * __cudaRegisterFatBinary and without DT_NEEDED libcudart, a static
 * cudart. A relocatable object, one built with -cudart none (the
 * registration left for another library to define), a file without
 * section headers, and libcudart itself give CT_CUDART_UNKNOWN. Reads the
 * dynamic section and symbols through libelf on f's buffer; allocates
 * nothing that outlives the call. Thread-safe.
 */
void ct_cudart_need_read(struct ct_cudart_need *need, const struct elfscan_file *f);

/*
 * One of CUDA's own libraries that carries kernels runs them through a
 * runtime linked in, yet often names no compiler release (cuFile 1.17),
 * its newest PTX ISA gives only a lower bound, and its fatbins may sit
 * outside a .nvFatBinSegment registration (cuFFT 12.2 keeps them in
 * .ldata: no link shown at all). Its own soname says more: libcufft.so.12
 * is CUDA 13's alone, and libcufile.so.0 in CUDA 13's wheels'
 * nvidia/cu13/lib is CUDA 13's (ct_soname_folder_cuda). When that major
 * is newer than what need holds (need read from f by ct_cudart_need_read),
 * need takes it: link static, why "soname". path: the object's
 * (ARCHIVE!MEMBER for a wheel's), for its folder. Thread-safe.
 */
void ct_cudart_need_named(struct ct_cudart_need *need, const struct elfscan_file *f,
			  const char *path);

/*
 * The newest "Cuda compilation tools, release X.Y" in f's .nv_fatbin, as
 * CUDA's integer (13000) into *cuda: nvcc 13 leaves it there uncompressed,
 * CUDA 12.4's builds do not. false (and 0) when none; f may be NULL.
 */
bool ct_fatbin_compiler_release(const struct elfscan_file *f, int *cuda);

#endif

/*
 * check's verdict on a file for one target GPU. The driver picks an image
 * per fatbin (each container is loaded as its own module), so the file is
 * judged fatbin by fatbin and the fatbins are counted by what runs in
 * them. Containers that hold only LTO-IR are nvJitLink inputs, never
 * loaded, and are not counted.
 *
 * Ownership: struct ct_verdict owns its arrays; ct_verdict_release frees
 * them. Image indexes point into the struct elfscan_file judged.
 */
#ifndef CT_VERDICT_H
#define CT_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "arch.h"
#include "elfscan.h"

enum ct_verdict_kind {
	CT_VERDICT_SASS,           /* every fatbin runs, as SASS */
	CT_VERDICT_PTX_JIT,        /* every fatbin runs, some only as PTX (JIT) */
	CT_VERDICT_NO_IMAGE,       /* a fatbin (or every one) has no usable image */
	CT_VERDICT_NO_DEVICE_CODE, /* no SASS, PTX or LTO-IR at all */
	CT_VERDICT_PTX_TOO_NEW,    /* a fatbin runs only as PTX the driver cannot JIT */
	/*
	 * check --driver's judgements of the whole object, never made by
	 * ct_verdict_judge (device code only): the driver does not drive the
	 * target GPU at all; the CUDA runtime the object needs is newer than
	 * the driver runs.
	 */
	CT_VERDICT_NO_GPU_SUPPORT,
	CT_VERDICT_DRIVER_TOO_OLD,
};

/*
 * "sass", "ptx-jit", "no-image", "no-device-code", "ptx-too-new",
 * "no-gpu-support", "driver-too-old".
 */
const char *ct_verdict_name(enum ct_verdict_kind v);

/* Fatbins counted by one image (kind, arch, variant). */
struct ct_image_count {
	unsigned kind, arch;
	enum elfscan_variant variant;
	size_t fatbins;
	long image;          /* one such image: an index into the file's images */
};

struct ct_verdict {
	enum ct_verdict_kind verdict;
	size_t modules;      /* fatbins with an image that can be loaded, and
				with a kernel or a usable image */
	size_t sass;         /* ... in which the driver picks SASS */
	size_t ptx_jit;      /* ... in which it can only JIT-compile PTX */
	size_t ptx_too_new;  /* ... in which that PTX is newer than the driver reads */
	/* The newest PTX ISA picked in any fatbin (what the driver must JIT); 0.0: none. */
	unsigned ptx_isa_major, ptx_isa_minor;
	size_t no_image;     /* ... with no usable image: their launches fail */
	size_t other_gpus;   /* ... with none, by design: code for other GPUs only */
	size_t other_specific; /* of other_gpus: holding only 'a'/'f' code */
	size_t other_loaded; /* of other_gpus, the rest: the program's own
				loads, registered by no wrapper */
	size_t other_tuned;  /* of other_gpus, the rest: builds for other GPUs
				of the kernel templates a fatbin running on
				the target builds */
	size_t other_ptx;    /* of other_gpus: a per-GPU library's builds for
				another GPU (SASS and PTX) of kernels its
				build for the target tunes too */
	size_t without_kernels; /* fatbins left out: no usable image, and no
				   kernel that could fail (not counted in
				   modules) */
	size_t link_inputs;  /* -rdc's __nv_relfatbin fatbins beside the linked
				one: JIT-link inputs of it, not modules */
	long image;          /* the image picked in most fatbins, or -1 */
	/* Each list sorted by fatbins, most first. */
	struct ct_image_count *picks;   /* the images picked */
	size_t npicks;
	struct ct_image_count *missing; /* what the no_image fatbins hold */
	size_t nmissing;
	struct ct_image_count *other;   /* what the other_gpus fatbins hold */
	size_t nother;
};

/*
 * Judge every fatbin of f for target t with elfscan_pick_image on its own
 * images. A fatbin without a usable image counts in other_gpus when its
 * code is recognisably for other GPUs: every image in it is 'a' or 'f'
 * code (which runs only on the GPUs it names, so the program must pick
 * it per GPU), or the program loads it itself (found by the magic scan
 * outside the fatbin sections and registered by no wrapper: what it
 * hands cuModuleLoadData it picks per GPU), or its kernels instantiate
 * the same templates, no more and no fewer, as one fatbin running on t
 * (other_tuned: the same source built for other GPUs, which the program
 * picks per GPU; read from the payloads only when asked), or
 * per_gpu_library is set
 * (the file is one of NVIDIA's libraries that load kernels per GPU,
 * ct_cuda_library_per_gpu); otherwise in no_image. In such a library a
 * fatbin that runs on t only by JIT from its PTX, beside SASS of the same
 * arch for another GPU, counts in other_gpus too (other_ptx) when its
 * kernels instantiate the same templates as a build of the library for
 * t (a fatbin of SASS for t and PTX of its arch), read
 * from their payloads: the library's build tuned for another GPU, not
 * what it runs on t (unless kernels_of_other_gpus: then as the driver
 * would load it). When no fatbin runs and all of those are for
 * other GPUs, their kernels are read too (as kernels_of_other_gpus):
 * a file whose only code defines no kernel is no-device-code. A fatbin without a usable image whose images
 * define no kernel (elfscan_container_has_kernel says 0; CUDA 13's
 * wrapper-v2 container of every -shared build) cannot fail a launch: it
 * is left out, counted in without_kernels only. Only those fatbins have
 * their payloads read, so f's buffer must still be there. The verdict:
 * no-device-code without SASS, PTX or LTO-IR, or when every fatbin left
 * is one without kernels; no-image when no fatbin runs, or one has no
 * usable image; else ptx-jit when one runs only as PTX; else sass.
 * Under -rdc, the device link's container (wrapper v2) is the module;
 * the __nv_relfatbin fatbins beside it are what cudart JIT-links when it
 * has no image for t (link_inputs counts them): it runs as ptx-jit when
 * each has an image for t.
 * Aborts on out of memory (ct_xmalloc); v is overwritten,
 * ct_verdict_release frees.
 */
void ct_verdict_judge(struct ct_verdict *v, const struct elfscan_file *f,
		      const struct elfscan_target *t, bool per_gpu_library);
/*
 * The same, judged on a driver of CUDA version driver (12040; 0: any
 * driver): a fatbin whose picked PTX that driver cannot JIT
 * (ct_ptx_driver_reads) counts in ptx_too_new, not ptx_jit, and the
 * verdict is ptx-too-new unless a fatbin has no image at all.
 */
void ct_verdict_judge_driver(struct ct_verdict *v, const struct elfscan_file *f,
			     const struct elfscan_target *t, bool per_gpu_library, int driver);

struct ct_verdict_opts {
	bool per_gpu_library;       /* as for ct_verdict_judge */
	/*
	 * Read the kernels of the fatbins for other GPUs too (--every-module
	 * fails on them); otherwise only of those that would count in
	 * no_image, so that a per-GPU library's thousands of fatbins for
	 * other GPUs cost no decompression.
	 */
	bool kernels_of_other_gpus;
	/*
	 * The CUDA version of the driver judged on (12040; 0: any driver),
	 * as for ct_verdict_judge_driver.
	 */
	int driver;
};
/* ct_verdict_judge with options. */
void ct_verdict_judge_opts(struct ct_verdict *v, const struct elfscan_file *f,
			   const struct elfscan_target *t, const struct ct_verdict_opts *o);
void ct_verdict_release(struct ct_verdict *v);

#endif

#ifndef CT_LIBFACTS_H
#define CT_LIBFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "libnames.h"

/*
 * A file's CUDA facts: what it is (for CUDA libraries: its DT_SONAME, and
 * whether the name it is found by is another major of it, renamed), its
 * version (ct_library_version_read)
 * and device code (every container scan finds, headers only). Filled by
 * ct_cuda_facts_read; ct_cuda_facts_release frees.
 */
struct ct_cuda_facts {
	bool cuda_library;      /* one of NVIDIA's CUDA libraries, by name */
	char name[128];         /* the file name it is found by */
	char soname[128];       /* its DT_SONAME, or "" */
	bool renamed;           /* found as another major of itself (ct_library_renamed) */
	int cuda, cuda_minor;   /* the CUDA its version states (ct_library_cuda), or 0 / -1 */
	char version[64];       /* "13.0.48", or "" */
	/*
	 * The NVIDIA driver's own libraries: libcuda.so.1 and NVML version
	 * as the driver, never by their soname's major ("1").
	 */
	enum ct_driver_lib driver;
	char driver_version[64]; /* "550.163.01" (ct_driver_version), or "" */
	bool driver_stub;       /* none, and it lives in a stubs/ folder: the toolkit's */
	bool scanned;           /* the scan worked */
	size_t nimages;
	char line[512];         /* "sass sm_75 sm_80, ptx compute_90" */
	char sass[512], ptx[256], ltoir[256]; /* space-separated, or "none" */
};

/*
 * The version a library's own files say: the real file's name when it
 * carries more than the soname and the soname's major (libcudart.so.12 ->
 * libcudart.so.12.4.127, libcudart.so.11.0 -> libcudart.so.11.8.89,
 * libcuda.so.1 -> libcuda.so.550.163.01), else the .dist-info of the pip
 * wheel it came with. Into buf ("" when neither says); returns where it
 * was read: "file name", "dist-info", or NULL.
 */
const char *ct_library_file_version(const char *path, const char *soname, char *buf, size_t size);

/*
 * A library's version, the one reading of every command (ldd, why, the
 * trees of run and report, doctor, ps, the findings):
 * ct_library_file_version, else the soname's major alone ("11" for
 * libcudart.so.11.0, never "11.0": every CUDA 11.1 to 11.8 runtime has
 * that soname). soname is the file's DT_SONAME ("" or NULL when it has
 * none: then the real file's name, whatever it says). The driver's banner
 * is not read here (ct_driver_version). Into buf; returns where it was
 * read: "file name", "dist-info", "soname", or NULL (buf ""). Reads link
 * targets and a wheel's folder, never the file.
 */
const char *ct_library_version_read(const char *path, const char *soname, char *buf, size_t size);

/*
 * The driver version of one of its libraries (soname: libcuda.so.1 or
 * libnvidia-ml.so.1): ct_library_file_version, else the banner the
 * driver writes into the file ("Version 550.163.01. Copyright (C) ...
 * NVIDIA Corporation": a plain libcuda.so.1, as WSL's or a copied one).
 * Returns "file name", "dist-info", "file" or NULL (buf "").
 */
const char *ct_driver_version(const char *path, const char *soname, char *buf, size_t size);

/* path: as found (a copy's or a link's own name: what it is asked by). */
void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path);
/* The same, with the DT_SONAME already read ("" for none; NULL: read it). */
void ct_cuda_facts_read_named(struct ct_cuda_facts *c, const char *path, const char *soname);

/*
 * Facts of several files read side by side: threads read the files added,
 * the largest first (the more headers), while the caller does other work;
 * ct_facts_get reads the file itself when no thread has started it, and
 * reads others while a thread finishes it, so the caller helps instead of
 * waiting. With 0 threads everything is read by ct_facts_get.
 */
struct ct_facts_pool;

struct ct_facts_pool *ct_facts_start(size_t threads);
/* Queue path (copied) unless it is queued already; soname as for ct_cuda_facts_read_named. */
void ct_facts_add(struct ct_facts_pool *p, const char *path, const char *soname);
/* path's facts (queued now if it was not), valid until ct_facts_stop. */
const struct ct_cuda_facts *ct_facts_get(struct ct_facts_pool *p, const char *path);
/* Joins the threads (a file not started is left unread) and frees. */
void ct_facts_stop(struct ct_facts_pool *p);

#endif

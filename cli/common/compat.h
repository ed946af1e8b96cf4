/*
 * The data tables diagnoses rest on (reference/resolution.md 4,
 * reference/fatbin.md 4.1): the driver each CUDA toolkit needs, the CUDA
 * version whose driver JIT reads a PTX ISA version, and the pip packages
 * that ship each CUDA library. Versions are CUDA's integers:
 * 1000 * major + 10 * minor (12040 is 12.4), as cuDriverGetVersion gives.
 */
#ifndef CT_COMPAT_H
#define CT_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The first Linux driver for CUDA X.Y (the one its toolkit ships with:
 * full features, and PTX JIT of its ISA), such as "580.65.06" for 13.0,
 * "565.57.01" for 12.7 (a driver-only release); NULL when unknown (a
 * newer CUDA than the table: then *newer is set). One table,
 * cuda_releases.def, for this, the PTX ISAs and the driver branches.
 */
const char *ct_toolkit_driver(int cuda, int *newer);

/* The oldest driver branch of a CUDA major's family ("580" for 13), or NULL. */
const char *ct_family_driver(int cuda_major);

/*
 * The CUDA version whose driver first reads PTX of ISA major.minor
 * (8.5 -> 12050, 8.6 -> 12070); 10000 below ISA 7.0; -1 when the ISA is
 * newer than the table.
 */
int ct_ptx_isa_cuda(unsigned major, unsigned minor);

/*
 * Does a driver of CUDA version driver (cuDriverGetVersion's 12040, or
 * ct_driver_parse's) JIT-compile PTX of ISA major.minor? The one rule of
 * ptx-too-new, for run, report and check. An ISA newer than the table is
 * read only by a driver newer than the table (unknown: not refused).
 */
bool ct_ptx_driver_reads(unsigned major, unsigned minor, int driver);

/*
 * A driver as users name it, into the CUDA version it supports (*cuda):
 * a Linux driver "550.54.15", "550.54" or its branch "550" (12040), or a
 * CUDA version "12.4", "13" (13000) or "12.4.1". A Linux branch newer
 * than the table gives the newest CUDA in it plus one (it reads every ISA
 * the table knows). Returns 0, -EINVAL when s is neither, -ERANGE for a
 * Linux driver older than the table (before 450, CUDA 11.0).
 */
int ct_driver_parse(const char *s, int *cuda);

/* The newest CUDA release in the table (13010). */
int ct_newest_cuda(void);

/*
 * The Linux driver branch of a driver for CUDA version cuda (12040: 550):
 * the branch of the newest release in the table not newer than cuda; 0
 * for one older than every release in it (before 450); the newest branch
 * plus one for one newer than them all (ct_driver_parse's value for a
 * branch past the table).
 */
unsigned ct_cuda_branch(int cuda);

/* The first Linux driver of a branch in the table ("570.26" for 570), or NULL. */
const char *ct_branch_driver(unsigned branch);

/*
 * Does a Linux driver of branch (550; 0: older than the table, from
 * ct_cuda_branch) drive GPUs of compute capability major.minor at all?
 * 1 yes, 0 no, -1 unknown: the table names no branch for that arch
 * (cuda_releases.def's sources name them only for Kepler, Maxwell,
 * Pascal, Volta and Blackwell). *first (may be NULL): the first branch
 * that supports it (570 for 12.0), 0 when the table does not say; *last
 * (may be NULL): the last (470 for 3.5, 580 for 7.0), 0 when none is.
 */
int ct_branch_gpu(unsigned branch, unsigned major, unsigned minor, unsigned *first,
		  unsigned *last);
/*
 * The newest branch known not to drive major.minor GPUs yet, where the
 * first that does is not known (R510 for Hopper and Ada); 0 when the table
 * says nothing of it. *known: the oldest branch known to drive them (R520,
 * CUDA 11.8's), or 0. ct_branch_gpu is 0 at or below the first, 1 from
 * the second, -1 between, with *first and *last 0.
 */
unsigned ct_branch_gpu_later(unsigned major, unsigned minor, unsigned *known);

/* "12.4" from 12040; into buf. */
char *ct_cuda_version_words(int cuda, char *buf, unsigned long size);

/* The CUDA majors, as bits of a mask (sonames.def). */
enum { CT_CU11 = 1u << 0, CT_CU12 = 1u << 1, CT_CU13 = 1u << 2 };

/*
 * The CUDA majors whose toolkit ships the library soname (a path or a
 * file name): a mask of CT_CU11.. bits, several for a soname two majors
 * share (libcurand.so.10: all three); 0 when the table does not know it.
 * *release (may be NULL): "cuDNN 9", "NCCL 2" for a library versioned on
 * its own, else NULL. The soname's own major is never taken for CUDA's:
 * libcufft.so.11 is CUDA 12's.
 */
unsigned ct_soname_cuda(const char *soname, const char **release);

/* The one major of a mask (12 for CT_CU12); 0 when it holds none or several. */
int ct_cuda_mask_major(unsigned mask);

/*
 * The CUDA major of one of CUDA's own libraries, read from its soname and
 * where it lies: the soname's one major (libcufft.so.12 is CUDA 13's
 * alone); of the majors that share a soname, the one its folder names:
 * CUDA 13's wheels' nvidia/cu13/lib, a toolkit's cuda-12.4 (path may be a
 * wheel's ARCHIVE!MEMBER). *folder (may be NULL): whether the folder
 * decided. 0 when neither says (not CUDA's, or a folder of no major).
 */
int ct_soname_folder_cuda(const char *soname, const char *path, bool *folder);

/* "CUDA 12", "CUDA 11 and 12", "CUDA 11, 12 and 13"; into buf; returns buf. */
char *ct_cuda_mask_words(unsigned mask, char *buf, size_t size);

/*
 * The pip package that ships soname for CUDA cuda_major, from the table:
 * "nvidia-cufft-cu12" for libcufft.so.11 and 12, "nvidia-cufft" for CUDA
 * 13's. A soname that CUDA does not ship gives the same library's
 * package for that major (libcublas.so.13 and 12: nvidia-cublas-cu12),
 * for a fix that swaps builds. NULL when none is known. Into buf.
 */
const char *ct_pip_package(const char *soname, int cuda_major, char *buf, unsigned long size);

/*
 * What to pip install for soname, in words: its package for cuda_major
 * when that major ships it, else for the one major that does, else one
 * per major: "nvidia-curand-cu11 (CUDA 11), nvidia-curand-cu12 (CUDA 12)
 * or nvidia-curand (CUDA 13)". "" when no pip package ships it. Into buf;
 * returns buf.
 */
char *ct_pip_words(const char *soname, int cuda_major, char *buf, size_t size);

/*
 * The soname of name's library (its stem: libnvrtc of "libnvrtc.so") that
 * the CUDA cuda_major toolkit ships, the newest when it shipped several
 * (libnvrtc.so.11.2 for 11); NULL when the table knows none. Static.
 */
const char *ct_soname_in_cuda(const char *name, int cuda_major);

/* CUDA's major from a runtime soname: libcudart.so.12 -> 12, .11.0 -> 11; or 0. */
int ct_runtime_major(const char *soname);

#endif

/*
 * The data tables diagnoses rest on (reference/resolution.md 4,
 * reference/fatbin.md 4.1): the driver each CUDA toolkit needs, the CUDA
 * version whose driver JIT reads a PTX ISA version, and the pip packages
 * that ship each CUDA library. Versions are CUDA's integers:
 * 1000 * major + 10 * minor (12040 is 12.4), as cuDriverGetVersion gives.
 */
#ifndef CT_COMPAT_H
#define CT_COMPAT_H

/*
 * The driver a CUDA X.Y toolkit ships with (full features), such as
 * "580.65.06" for 13.0; NULL when unknown (a newer CUDA than the table:
 * then *newer is set).
 */
const char *ct_toolkit_driver(int cuda, int *newer);

/* The oldest driver branch of a CUDA major's family ("580" for 13), or NULL. */
const char *ct_family_driver(int cuda_major);

/*
 * The CUDA version whose driver first reads PTX of ISA major.minor
 * (8.6 -> 12070); -1 when the ISA is newer than the table.
 */
int ct_ptx_isa_cuda(unsigned major, unsigned minor);

/* "12.4" from 12040; into buf. */
char *ct_cuda_version_words(int cuda, char *buf, unsigned long size);

/*
 * The pip package that ships the library (by soname stem) for a CUDA
 * major: "nvidia-cuda-runtime-cu12" for libcudart.so.12 and 12;
 * NULL when none is known.
 */
const char *ct_pip_package(const char *soname, int cuda_major, char *buf, unsigned long size);

/* CUDA's major from a runtime soname: libcudart.so.12 -> 12, .11.0 -> 11; or 0. */
int ct_runtime_major(const char *soname);

#endif

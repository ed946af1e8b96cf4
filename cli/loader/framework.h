/*
 * The framework a library belongs to, and its version, as its install
 * says: PyTorch's libtorch*, libc10* and libshm* with the torch package's
 * version.py (__version__, and cuda: the CUDA it was built for).
 *
 * Two layouts: a pip wheel keeps the libraries in <site-packages>/torch/lib
 * and version.py one folder up; Debian's python3-torch keeps them in
 * /usr/lib/<triplet> and version.py in /usr/lib/python3/dist-packages/torch.
 * Nothing is said that the file system does not: no version.py, no
 * framework.
 */
#ifndef CT_FRAMEWORK_H
#define CT_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

struct ct_framework {
	char name[32];      /* "PyTorch" */
	char version[64];   /* "2.6.0+debian" */
	char cuda[32];      /* "12.4", or "" (a CPU build says None) */
	char source[512];   /* the file it was read from */
};

/* Is path (by its file name) one of a framework's own libraries? */
bool ct_framework_library(const char *path);

/*
 * The framework of the library at path (its real path is tried too), into
 * *fw; false when its file name is no framework's or no version file is
 * readable where its layout keeps one.
 */
bool ct_framework_of(const char *path, struct ct_framework *fw);

#endif

/*
 * The Python distribution a file of a site folder came with, and what its
 * METADATA pins: torch's libtorch_python.so is torch's (its RECORD lists
 * torch/lib/libtorch_python.so), and torch 2.15.0 requires
 * nvidia-cudnn-cu13==9.26.0.51; xformers 0.0.29.post3's _C.so was built
 * for the torch its METADATA pins (torch==2.6.0). The pins are what pip
 * installed with it, so they are the versions a fix should name.
 *
 * Read from the files alone (ct_open_file), nothing run. Nothing is kept
 * between calls. Thread-safe.
 */
#ifndef CT_DISTINFO_H
#define CT_DISTINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct ct_dist_info {
	char meta[PATH_MAX];  /* its .dist-info folder */
	char name[128];       /* METADATA's Name ("torch"), or the folder's */
	char version[64];     /* METADATA's Version ("2.15.0+cu132"), or the folder's */
};

/*
 * The distribution whose RECORD lists path (symlinks resolved, under a
 * site-packages or dist-packages folder): the one named like its
 * top-level folder first, then any. Returns 0, or -ENOENT when path is
 * under no site folder or no RECORD lists it (d is then cleared).
 */
int ct_dist_info_of(const char *path, struct ct_dist_info *d);

/*
 * The one version d's METADATA pins for the distribution dist
 * ("Requires-Dist: nvidia-cudnn-cu13==9.26.0.51; platform_system ==
 * \"Linux\""), names compared in PEP 503's normal form; a requirement of
 * an extra, or one that is not a single "==" pin, is none. Into buf;
 * false when there is none.
 */
bool ct_dist_info_pin(const struct ct_dist_info *d, const char *dist, char *buf, size_t size);

/*
 * Every distribution named like the top-level folder of the file at path
 * (nvidia/...: nvidia_*) whose RECORD lists the file, up to max into
 * out; *owner (may be NULL): the index of the one whose RECORD gives the
 * file's size (the one installed last, whose file it is), or max when
 * none does. Two claims are two packages that install one file
 * (nvidia-cudnn-cu12 and -cu13: nvidia/cudnn/lib/libcudnn.so.9).
 * Returns how many; 0 when path is under no site folder.
 */
size_t ct_dist_claims(const char *path, struct ct_dist_info *out, size_t max, size_t *owner);

/*
 * A distribution of the site folder of near (a file of it) whose METADATA
 * requires dist (any version; one outside an extra first), into *d;
 * false when none does.
 */
bool ct_dist_requirer(const char *near, const char *dist, struct ct_dist_info *d);

/* The CUDA major a distribution's name says ("nvidia-cudnn-cu12", "cupy-cuda12x": 12), or 0. */
int ct_dist_cuda(const char *name);

/*
 * Would `pip install pkg` (the pip package that ships soname) write its
 * soname over a file another installed distribution owns, in the site
 * folder of near (a file of it)? CUDA 12's and older wheels install into
 * nvidia/COMP/lib (COMP: pkg without "nvidia-" and its "-cuNN", '-' as
 * '_'; nvidia-cudnn-cu12: nvidia/cudnn/lib), CUDA 13's toolkit wheels
 * (no suffix) into nvidia/cu13/lib, and cuDNN, NCCL and the like for CUDA
 * 13 (-cu13) into nvidia/COMP/lib as well: nvidia-cudnn-cu12 and -cu13
 * both install nvidia/cudnn/lib/libcudnn.so.9, and the last one installed
 * wins. The file's owner into *owner, and where into path (at least
 * PATH_MAX bytes); false when it would not, or nothing says.
 */
bool ct_pip_would_replace(const char *near, const char *pkg, const char *soname,
			  struct ct_dist_info *owner, char *path);

#endif

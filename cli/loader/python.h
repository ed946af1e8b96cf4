/*
 * A Python installation as files, with nothing run: the interpreters a
 * user would run (the python3 on PATH, $VIRTUAL_ENV's, $CONDA_PREFIX's,
 * or one given), the site folders each lists on sys.path (in its order),
 * and the distributions installed there with their versions and files.
 *
 * The site folders are worked out the way the interpreter's site module
 * does it: a venv (a pyvenv.cfg next to the program or one folder up) has
 * its own lib/pythonX.Y/site-packages, plus the base's when
 * include-system-site-packages is true; Debian's Python in /usr lists
 * /usr/local/lib/pythonX.Y/dist-packages, /usr/lib/python3/dist-packages
 * and /usr/lib/pythonX.Y/dist-packages; any other prefix
 * lib/pythonX.Y/site-packages (and lib64's). The user's site folder
 * (~/.local/lib/pythonX.Y/site-packages) comes first outside venvs.
 * Only folders that exist are kept.
 *
 * A distribution is a .dist-info or .egg-info folder: its name and
 * version from METADATA / PKG-INFO (else from the folder's name), its
 * shared objects from RECORD (installed-files.txt for eggs), else from
 * the top-level names top_level.txt (or its own name) gives, walked.
 *
 * Ownership: struct ct_python and struct ct_site own everything in them;
 * their _release functions free it. Not thread-safe.
 */
#ifndef CT_PYTHON_H
#define CT_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

struct ct_python {
	char *exe;          /* as found ("/usr/bin/python3") */
	char *real;         /* symlinks resolved, or a copy of exe */
	const char *from;   /* "PATH", "PATH (pyenv)", "VIRTUAL_ENV", "CONDA_PREFIX",
			       "--python" */
	char version[16];   /* "3.13", or "" when nothing says */
	char *prefix;       /* sys.prefix (the venv's, for a venv) */
	char *base;         /* sys.base_prefix: the installation (a venv's home's) */
	char cfg_version[32]; /* a venv's pyvenv.cfg version ("3.11.7"), or "" */
	bool venv;          /* a pyvenv.cfg was found */
	char **sites;       /* the site folders, in sys.path's order */
	size_t nsites;
};

/*
 * The interpreter at exe (found via from: a static string), its version
 * and site folders. Returns 0, or -errno when exe is not an executable
 * file (nothing to release then).
 */
int ct_python_open(struct ct_python *py, const char *exe, const char *from);
void ct_python_release(struct ct_python *py);

/*
 * The interpreters to judge: given (--python) alone when not NULL; else
 * the python3 first on PATH (through a pyenv shim: the version it runs,
 * from $PYENV_VERSION, .python-version or ROOT/version; "system": the
 * next python3 on PATH), $VIRTUAL_ENV/bin/python3 and
 * $CONDA_PREFIX/bin/python3, those whose site folders differ. *n of them,
 * each to release, the array to free; a given one that cannot be opened
 * is -errno with *n 0.
 */
int ct_pythons_find(const char *given, struct ct_python **out, size_t *n);

/*
 * How the interpreter was built, read from its files (pybuild.c), with
 * nothing run: its full version ("3.11.7": a venv's pyvenv.cfg, the
 * installation's include/pythonX.Y/patchlevel.h, else the version string
 * compiled into the program or its libpython), the compiler that built it
 * ("GCC 12.2.0", compiled in as sys.version shows it), its SOABI
 * ("cpython-311-x86_64-linux-gnu") and what sets a build apart ("free-
 * threaded", "debug") from its _sysconfigdata. "" for what no file says.
 */
struct ct_python_build {
	char version[32];
	const char *version_from; /* "pyvenv.cfg", "patchlevel.h", "the program", or NULL */
	char compiler[64];
	char soabi[64];
	char flags[64];           /* "free-threaded, debug", or "" */
};
void ct_python_build_read(const struct ct_python *py, struct ct_python_build *b);

/*
 * A requirement of a distribution (a Requires-Dist line of its METADATA,
 * PEP 508): "cuda-toolkit[cublas,cudart]==12.*; extra == \"ctk\"". Of the
 * markers only the extra is kept; the others (platform_system, the
 * Python version) are taken as met on this Linux machine.
 */
struct ct_requirement {
	char name[128];     /* "nvidia-cudnn-cu13", "cuda-toolkit", "torch" */
	char extras[256];   /* the extras it asks of it: "cublas,cudart", or "" */
	char spec[128];     /* "==9.26.0.51", ">=2.0,<2.6", or "" */
	char extra[64];     /* the distribution's own extra that asks for it
			       ("ctk"), or "" when it always does */
};

/* Parse the value of a Requires-Dist header into *r; false when it names nothing. */
bool ct_requirement_parse(const char *text, struct ct_requirement *r);

/* One installed distribution. */
struct ct_dist {
	char *name;         /* "torch", "nvidia-cudnn-cu12" (as METADATA says) */
	char *version;      /* "2.6.0+debian", or "" */
	char *meta;         /* its .dist-info / .egg-info folder; NULL for the
			       shared objects no distribution lists */
	char **files;       /* its shared objects, absolute paths, sorted */
	size_t nfiles;
	bool from_record;   /* files listed by RECORD / installed-files.txt */
	/*
	 * Per file when from_record (else NULL): 1 when the file's size is
	 * the one RECORD gives, 0 when it is not, -1 when RECORD gives none.
	 */
	signed char *size_ok;
	/*
	 * Per file (NULL when no file is): "nvidia-cudnn-cu12 9.28.0.42", the
	 * other distribution of the site folder whose RECORD lists the same
	 * file with the size it has, while this one's does not: installed
	 * later, it wrote its own file over this one's (both RECORDs still
	 * list it); else a NULL entry.
	 */
	char **replaced_by;
	struct ct_requirement *reqs; /* Requires-Dist, in METADATA's order */
	size_t nreqs;
	bool built_here;    /* built from a folder or a VCS checkout on this
			       machine (direct_url.json: dir_info, vcs_info),
			       not a wheel taken from an index */
};

/* d's requirement of the distribution name (any spelling), outside its extras; or NULL. */
const struct ct_requirement *ct_dist_requirement(const struct ct_dist *d, const char *name);

/*
 * d's extra that brings soname's library through cuda-toolkit's own
 * extras ("ctk": cuda-toolkit[cublas,cudart,...]==12.*), for the CUDA
 * major its spec names (any, when major <= 0); NULL when none does. d may
 * be NULL.
 */
const struct ct_requirement *ct_dist_toolkit_extra(const struct ct_dist *d, const char *soname,
						   int major);

/* A site folder and what is installed in it. */
struct ct_site {
	char *dir;
	struct ct_dist *dists;   /* sorted by name; with the shared objects no
				    distribution lists, by top-level folder */
	size_t ndists;
};

/*
 * Read the distributions of dir. Shared objects under the site folder
 * that no distribution lists become distributions of their own, named by
 * their top-level folder with meta NULL. Returns 0 or -errno (dir
 * unreadable; nothing to release).
 */
int ct_site_read(struct ct_site *s, const char *dir);
void ct_site_release(struct ct_site *s);

/* Is a file name a shared object's ("x.so", "x.cpython-313-x86_64-linux-gnu.so", "libx.so.12")? */
bool ct_python_shared_object(const char *name);

/* "nvidia_cudnn_cu12" and "nvidia-cudnn-cu12" alike: PEP 503's normal form into buf. */
char *ct_python_normal_name(const char *name, char *buf, size_t size);

#endif

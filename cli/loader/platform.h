/*
 * The facts the dynamic loader works from on this system, asked of the
 * loader itself (ld.so --list-diagnostics, glibc 2.33 and later) rather
 * than assumed: what $LIB and $PLATFORM expand to, the default
 * directories, the glibc-hwcaps and legacy hardware subdirectories tried
 * in each directory, the glibc version and the ld.so.cache to read.
 *
 * Ownership: struct ct_platform owns its strings; ct_platform_release
 * frees them.
 */
#ifndef CT_PLATFORM_H
#define CT_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "util.h"

struct ct_platform {
	char *rtld;          /* the loader asked: cudatrace's own (its PT_INTERP), or NULL */
	char *lib;           /* $LIB: "lib/x86_64-linux-gnu" */
	char *platform;      /* $PLATFORM: "haswell", "x86_64" */
	char *version;       /* "2.36" */
	int major, minor;
	char **system_dirs;  /* default directories, no trailing slash */
	size_t nsystem_dirs;
	char **subdirs;      /* tried in every directory before it, in order:
				"glibc-hwcaps/x86-64-v3", "tls/haswell", ... */
	size_t nsubdirs;
	char **hwcaps;       /* active glibc-hwcaps names, best first */
	size_t nhwcaps;
	char *cache;         /* "/etc/ld.so.cache" */
	uint64_t hwcap;      /* AT_HWCAP as the loader keeps it (dl_hwcap) */
	uint64_t hwcap_mask; /* the bits of it that select legacy subdirectories */
	unsigned machine;    /* ELF machine of the loader (EM_X86_64) */
	int elf_class;       /* 32 or 64 (not ELFCLASS32/ELFCLASS64) */
	bool from_loader;    /* false: the loader could not be asked; defaults */
};

/*
 * Ask the system's loader for the facts: the one that runs cudatrace (its
 * own PT_INTERP), run by its real path when that file and every folder
 * above it are root's and writable by no one else; never a loader an
 * inspected file names, which may be any program. ct_platform_ask asks,
 * for files of another ELF machine and class than cudatrace's (machine 0:
 * cudatrace's own), the loader at that ABI's fixed path (/lib/ld-linux.so.2
 * for i386), checked the same way. Never fails: without a
 * usable loader, standard defaults for the machine are filled in and
 * from_loader is false.
 */
void ct_platform_load(struct ct_platform *p);

/*
 * The same in two steps, so that the caller works while the loader
 * answers (the loader's helpers are processes of their own). Up to glibc
 * 2.36 the loader is asked --list-diagnostics and an LD_DEBUG probe of its
 * search path; from 2.37 on the probe alone (--list-diagnostics costs
 * glibc 2.41 0.7 s of CPUID in a virtual machine), and --list-diagnostics
 * only when the probe falls short. ct_platform_ask starts the questions;
 * every question asked must be answered with ct_platform_answer, which
 * waits for the answers, fills p as ct_platform_load does and frees q.
 */
struct ct_platform_question {
	char *rtld;                  /* the name it goes by (PT_INTERP) */
	char *rtld_file;             /* its real path, checked root's: what is run */
	unsigned machine;
	int elf_class;
	struct ct_capture diag;      /* ld.so --list-diagnostics */
	bool asking;
	struct ct_capture probe;     /* ld.so --list, for the subdirectories */
	bool probing;
	bool probe_answered;         /* it printed the search path asked for */
	/*
	 * glibc 2.37 and later: the probe alone answers (see platform.c), and
	 * --list-diagnostics is asked only when it cannot.
	 */
	bool probe_only;
	char *version;               /* read from the loader's file, or NULL */
	char tmp[64];                /* the probe's empty folder */
	/*
	 * The answers kept from an earlier run (cache.h), asked of no
	 * loader then; or, where none was, the key to keep these under.
	 */
	struct ct_platform *kept;
	struct ct_cache_key key;
	bool keyed;
	char machine_id[640];        /* the CPU and kernel the answers hold for */
};

/*
 * For the tests: the facts from the probe alone (probe_only), whatever the
 * loader's version, false when it did not answer them all.
 */
bool ct_platform_load_probed(struct ct_platform *p);

void ct_platform_ask(struct ct_platform_question *q, unsigned machine, int elf_class);

/*
 * Whether the answers are kept between runs and read back (platform.c):
 * off until a command turns it on. ldd and why do, as they keep their
 * device-code summaries; the other commands ask the loader every time
 * and write nothing.
 */
void ct_platform_keep_answers(bool on);
void ct_platform_answer(struct ct_platform *p, struct ct_platform_question *q);
void ct_platform_release(struct ct_platform *p);
/* A deep copy of src into dst, asking nothing of the loader. */
void ct_platform_copy(struct ct_platform *dst, const struct ct_platform *src);

#endif

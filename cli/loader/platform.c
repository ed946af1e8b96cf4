/* The loader's own facts; see platform.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "files.h"
#include "util.h"
#include "elfinfo.h"
#include "platform.h"

static void push(char ***arr, size_t *n, const char *s, size_t len)
{
	char *copy = ct_xmalloc(len + 1);

	memcpy(copy, s, len);
	copy[len] = '\0';
	*arr = ct_xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = copy;
}

/* The value of key="..." in list-diagnostics output, unquoted; or NULL. */
static char *value_of(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n') && p[klen] == '=') {
			const char *v = p + klen + 1, *end;

			if (*v == '"') {
				v++;
				end = strchr(v, '"');
			} else {
				end = strchr(v, '\n');
			}
			if (!end)
				end = v + strlen(v);
			{
				char *out = ct_xmalloc((size_t)(end - v) + 1);

				memcpy(out, v, (size_t)(end - v));
				out[end - v] = '\0';
				return out;
			}
		}
		p += klen;
	}
	return NULL;
}

/*
 * The loader's glibc version, "2.41", as its --version says it
 * ("... stable release version 2.41."), read from its file; or NULL.
 */
static char *file_version(const char *rtld)
{
	static const char tag[] = "release version ";
	int fd = ct_open_file(rtld, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf = NULL, *hit, *out = NULL;
	size_t len = 0;
	ssize_t n;
	int major, minor;

	if (fd < 0)
		return NULL;
	/* A loader is a few hundred kB; anything else is not one to read. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size < (16 << 20)) {
		buf = ct_xmalloc((size_t)st.st_size + 1);
		while (len < (size_t)st.st_size &&
		       (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)n;
		buf[len] = '\0';
		if ((hit = memmem(buf, len, tag, sizeof(tag) - 1)) &&
		    sscanf(hit + sizeof(tag) - 1, "%3d.%3d", &major, &minor) == 2) {
			out = ct_xmalloc(16);
			snprintf(out, 16, "%d.%d", major, minor);
		}
	}
	free(buf);
	close(fd);
	return out;
}

/*
 * Every subdirectory the loader tries in a directory, in its order: let
 * it search an empty directory for our own dependencies with LD_DEBUG=libs
 * in list mode (it maps, it does not run) and read its search path.
 *
 * Asked alone (probe_only), the same question answers the rest: the
 * library path TMP/a:TMP/b/$LIB:TMP/c/$PLATFORM shows what the loader
 * expands $LIB and $PLATFORM to, and a preloaded name found nowhere makes
 * it print its cache and its system search path.
 */
static void probe_start(struct ct_platform_question *q)
{
	char self[PATH_MAX], path[sizeof(q->tmp) * 3 + 32];
	char *argv[8];
	char *envp[] = { (char *)"LD_DEBUG=libs", NULL };
	ssize_t n;
	int k = 0;

	q->probing = false;
	snprintf(q->tmp, sizeof(q->tmp), "/tmp/cudatrace-probe.XXXXXX");
	if (!mkdtemp(q->tmp))
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		rmdir(q->tmp);
		return;
	}
	self[n] = '\0';
	argv[k++] = q->rtld_file;
	argv[k++] = (char *)"--library-path";
	if (q->probe_only) {
		snprintf(path, sizeof(path), "%s/a:%s/b/$LIB:%s/c/$PLATFORM", q->tmp, q->tmp, q->tmp);
		argv[k++] = path;
		argv[k++] = (char *)"--preload";
		argv[k++] = (char *)"cudatrace-probe-missing.so.0";
	} else {
		argv[k++] = q->tmp;
	}
	argv[k++] = (char *)"--list";
	argv[k++] = self;
	argv[k] = NULL;
	if (ct_run_start(argv, envp, true, &q->probe) == 0)
		q->probing = true;
	else
		rmdir(q->tmp);
}

/* The entries of a "search path=" value, from s to end, one by one. */
static const char *next_entry(const char **s, const char *end, size_t *len)
{
	const char *start = *s, *colon;

	if (start >= end)
		return NULL;
	colon = memchr(start, ':', (size_t)(end - start));
	*len = (size_t)((colon ? colon : end) - start);
	*s = colon ? colon + 1 : end;
	return start;
}

/* The value of the first "search path=" line whose label is one of labels. */
static const char *search_line(const char *out, const char *const *labels, const char **end)
{
	const char *line;
	size_t i;

	for (line = strstr(out, "search path="); line; line = strstr(line + 1, "search path=")) {
		const char *s = line + strlen("search path="), *e = strpbrk(s, "\t\n");

		for (i = 0; e && labels[i]; i++)
			if (strncmp(e, labels[i], strlen(labels[i])) == 0) {
				*end = e;
				return s;
			}
	}
	return NULL;
}

static bool ends_with_subdir(const struct ct_platform *p, const char *e, size_t len)
{
	size_t i;

	for (i = 0; i < p->nsubdirs; i++) {
		size_t n = strlen(p->subdirs[i]);

		if (len > n + 1 && e[len - n - 1] == '/' && memcmp(e + len - n, p->subdirs[i], n) == 0)
			return true;
	}
	return false;
}

/*
 * The probe's answers. Returns true when, asked alone, it answered all
 * that --list-diagnostics would have: $LIB, $PLATFORM, the cache and the
 * system directories.
 */
static bool probe_finish(struct ct_platform *p, struct ct_platform_question *q)
{
	/* Older loaders name it LD_LIBRARY_PATH, newer --library-path. */
	static const char *const lp[] = { "\t\t(LD_LIBRARY_PATH)", "\t\t(--library-path)", NULL };
	static const char *const sys[] = { "\t\t(system search path)", NULL };
	const char *tmp = q->tmp, *s, *end, *e, *c;
	char dir[sizeof(q->tmp) + 8];
	char *out, *lib = NULL, *platform = NULL;
	size_t tlen, len;
	int status;

	if (!q->probing)
		return false;
	q->probing = false;
	out = ct_run_wait(&q->probe, &status);
	rmdir(tmp);
	if (!out)
		return false;
	snprintf(dir, sizeof(dir), q->probe_only ? "%s/a" : "%s", tmp);
	tlen = strlen(dir);
	if ((s = search_line(out, lp, &end))) {
		q->probe_answered = true;
		while ((e = next_entry(&s, end, &len))) {
			if (len > tlen + 1 && strncmp(e, dir, tlen) == 0 && e[tlen] == '/')
				push(&p->subdirs, &p->nsubdirs, e + tlen + 1, len - tlen - 1);
			/* A directory comes after its subdirectories: the last one is it. */
			else if (q->probe_only && len > strlen(tmp) + 3 &&
				 strncmp(e, tmp, strlen(tmp)) == 0 && e[strlen(tmp)] == '/' &&
				 (e[strlen(tmp) + 1] == 'b' || e[strlen(tmp) + 1] == 'c') &&
				 e[strlen(tmp) + 2] == '/') {
				char **v = e[strlen(tmp) + 1] == 'b' ? &lib : &platform;

				free(*v);
				*v = ct_xmalloc(len - strlen(tmp) - 3 + 1);
				memcpy(*v, e + strlen(tmp) + 3, len - strlen(tmp) - 3);
				(*v)[len - strlen(tmp) - 3] = '\0';
			}
		}
	}
	if (!q->probe_only) {
		free(out);
		return false;
	}
	if ((s = search_line(out, sys, &end)))
		while ((e = next_entry(&s, end, &len)))
			if (len && !ends_with_subdir(p, e, len))
				push(&p->system_dirs, &p->nsystem_dirs, e,
				     len > 1 && e[len - 1] == '/' ? len - 1 : len);
	if ((c = strstr(out, "search cache=")) && (end = strpbrk(c, "\t\n"))) {
		c += strlen("search cache=");
		p->cache = ct_xmalloc((size_t)(end - c) + 1);
		memcpy(p->cache, c, (size_t)(end - c));
		p->cache[end - c] = '\0';
	}
	free(out);
	if (!lib || !platform || !p->nsystem_dirs || !p->cache) {
		free(lib);
		free(platform);
		return false;
	}
	p->lib = lib;
	p->platform = platform;
	/* The glibc-hwcaps subdirectories it tries are the active ones, best first. */
	for (len = 0; len < p->nsubdirs; len++)
		if (strncmp(p->subdirs[len], "glibc-hwcaps/", 13) == 0)
			push(&p->hwcaps, &p->nhwcaps, p->subdirs[len] + 13,
			     strlen(p->subdirs[len] + 13));
	return true;
}

static void defaults(struct ct_platform *p)
{
	struct utsname u;
	struct stat st;

	if (!p->platform)
		p->platform = ct_xstrdup(uname(&u) == 0 ? u.machine : "x86_64");
	if (!p->lib) {
		char multiarch[64];

		snprintf(multiarch, sizeof(multiarch), "/lib/%s-linux-gnu",
			 strcmp(p->platform, "aarch64") == 0 ? "aarch64" : "x86_64");
		p->lib = ct_xstrdup(stat(multiarch, &st) == 0 ? multiarch + 1 : "lib64");
	}
	if (!p->nsystem_dirs) {
		if (strchr(p->lib, '/')) {
			char d[128];

			snprintf(d, sizeof(d), "/%s", p->lib);
			push(&p->system_dirs, &p->nsystem_dirs, d, strlen(d));
			snprintf(d, sizeof(d), "/usr/%s", p->lib);
			push(&p->system_dirs, &p->nsystem_dirs, d, strlen(d));
			push(&p->system_dirs, &p->nsystem_dirs, "/lib", 4);
			push(&p->system_dirs, &p->nsystem_dirs, "/usr/lib", 8);
		} else {
			push(&p->system_dirs, &p->nsystem_dirs, "/lib64", 6);
			push(&p->system_dirs, &p->nsystem_dirs, "/usr/lib64", 10);
		}
	}
	if (!p->version)
		p->version = ct_xstrdup("0.0");
	if (!p->cache)
		p->cache = ct_xstrdup("/etc/ld.so.cache");
}

/* Ask --list-diagnostics (done at once, or when the probe alone fell short). */
static void diag_start(struct ct_platform_question *q)
{
	char *argv[3];
	char *envp[] = { NULL };

	argv[0] = q->rtld_file;
	argv[1] = (char *)"--list-diagnostics";
	argv[2] = NULL;
	q->asking = ct_run_start(argv, envp, false, &q->diag) == 0;
}

/*
 * Whether path and every folder above it belong to root and no one else
 * may write to them: a loader only root can replace, so that running it
 * runs nothing a user chose.
 */
static bool root_owned(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (strlen(path) >= sizeof(dir) || path[0] != '/')
		return false;
	strcpy(dir, path);
	if (stat(dir, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			return false;
		if (slash == dir)
			break;
	}
	return true;
}

/*
 * The system's loader for files of another machine or ELF class than
 * cudatrace's own, at the fixed path of its platform's ABI (a multiarch
 * install: i386 beside x86_64).
 */
static const char *fixed_rtld(unsigned machine, int elf_class)
{
	static const struct {
		unsigned machine;
		int elf_class;
		const char *path;
	} known[] = {
		{ EM_X86_64, 64, "/lib64/ld-linux-x86-64.so.2" },
		{ EM_X86_64, 32, "/libx32/ld-linux-x32.so.2" },
		{ EM_386, 32, "/lib/ld-linux.so.2" },
		{ EM_AARCH64, 64, "/lib/ld-linux-aarch64.so.1" },
		{ EM_ARM, 32, "/lib/ld-linux-armhf.so.3" },
		{ EM_PPC64, 64, "/lib64/ld64.so.2" },
		{ EM_S390, 64, "/lib/ld64.so.1" },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].machine == machine && known[i].elf_class == elf_class)
			return known[i].path;
	return NULL;
}

/*
 * The loader's answers kept between runs (cache.h): asking takes two
 * loader processes up to glibc 2.36 (2.2 ms of CPU, a quarter of ldd's on
 * cuDNN's engines), the probe from 2.37 on. A record is the loader file's
 * (device, inode, size, mtime, ctime) as written by this very cudatrace
 * binary, and names the machine it holds for: the CPU's features and the
 * kernel, which choose $PLATFORM, the hwcaps and the legacy subdirectories
 * (the questions are asked with an environment of cudatrace's own, so the
 * user's plays no part). Kept only when every question was answered.
 */
#define LOADER_CACHE_KIND "loader-1"

/* This machine, as far as the loader's answers depend on it. */
static void machine_identity(char *buf, size_t size)
{
	const char *plat = (const char *)getauxval(AT_PLATFORM);
	struct utsname u;
	int n;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	n = snprintf(buf, size, "%lx %lx %s %s %s %s", getauxval(AT_HWCAP),
		     getauxval(AT_HWCAP2), plat ? plat : "-", u.machine, u.release, u.version);
#if defined(__x86_64__) || defined(__i386__)
	{
		/* What glibc reads of the CPU: leaves 1 and 7, the extended
		 * leaf 0x80000001, and the state the kernel enables (XCR0).
		 * Not leaf 1's EBX, which holds the core's own APIC id. */
		unsigned a = 0, b = 0, c = 0, d = 0, sig = 0, c1 = 0, d1 = 0;
		unsigned b7 = 0, c7 = 0, d7 = 0, a71 = 0, ce = 0, de = 0;
		unsigned max = (unsigned)__get_cpuid_max(0, NULL);
		unsigned long long xcr0 = 0;

		if (max >= 1 && __get_cpuid(1, &sig, &b, &c1, &d1) && (c1 & (1u << 27))) {
			unsigned lo, hi;

			__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
			xcr0 = ((unsigned long long)hi << 32) | lo;
		}
		if (max >= 7) {
			__cpuid_count(7, 0, a, b7, c7, d7);
			__cpuid_count(7, 1, a71, b, c, d);
		}
		if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000001u)
			__get_cpuid(0x80000001u, &a, &b, &ce, &de);
		if (n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n,
				 " cpu %x %x %x %x %x %x %x %x %x %llx", max, sig, c1, d1, b7,
				 c7, d7, a71, ce, xcr0);
		(void)de;
	}
#else
	(void)n;
#endif
}

static bool one_line(const char *s)
{
	return s && *s && !strchr(s, '\n');
}

/* p as a record: a line each, "NAME VALUE"; -1 when it does not fit. */
static int platform_record(const struct ct_platform *p, const char *machine, char *buf,
			   size_t size)
{
	size_t at = 0, i;
	int n;

#define ADD(...)                                                             \
	do {                                                                 \
		n = snprintf(buf + at, size - at, __VA_ARGS__);              \
		if (n < 0 || (size_t)n >= size - at)                         \
			return -1;                                           \
		at += (size_t)n;                                             \
	} while (0)
	if (!one_line(machine) || !one_line(p->version) || !one_line(p->lib) ||
	    !one_line(p->platform) || !one_line(p->cache))
		return -1;
	ADD("machine %s\nversion %s\nlib %s\nplatform %s\ncache %s\n", machine, p->version,
	    p->lib, p->platform, p->cache);
	ADD("hwcap %llx\nmask %llx\n", (unsigned long long)p->hwcap,
	    (unsigned long long)p->hwcap_mask);
	for (i = 0; i < p->nsystem_dirs; i++) {
		if (!one_line(p->system_dirs[i]))
			return -1;
		ADD("dir %s\n", p->system_dirs[i]);
	}
	for (i = 0; i < p->nsubdirs; i++) {
		if (!one_line(p->subdirs[i]))
			return -1;
		ADD("sub %s\n", p->subdirs[i]);
	}
	for (i = 0; i < p->nhwcaps; i++) {
		if (!one_line(p->hwcaps[i]))
			return -1;
		ADD("hwcaps %s\n", p->hwcaps[i]);
	}
#undef ADD
	return (int)at;
}

/* A string field of a record, once. */
static bool take(char **field, const char *v, size_t len)
{
	if (*field || !len)
		return false;
	*field = ct_xmalloc(len + 1);
	memcpy(*field, v, len);
	(*field)[len] = '\0';
	return true;
}

static bool take_hex(uint64_t *out, const char *v, size_t len)
{
	char num[24], *end;

	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, v, len);
	num[len] = '\0';
	errno = 0;
	*out = strtoull(num, &end, 16);
	return !errno && !*end;
}

/* p from a record platform_record wrote for this machine; false otherwise. */
static bool platform_from_record(struct ct_platform *p, const char *rec, const char *machine)
{
	const char *at = rec;
	bool ok = true, same = false;

	memset(p, 0, sizeof(*p));
	while (ok && *at) {
		const char *nl = strchr(at, '\n'), *v, *sp;
		size_t klen, vlen;

		if (!nl || !(sp = memchr(at, ' ', (size_t)(nl - at))))
			break;
		klen = (size_t)(sp - at);
		v = sp + 1;
		vlen = (size_t)(nl - v);
#define IS(k) (klen == strlen(k) && memcmp(at, k, klen) == 0)
		if (IS("machine"))
			ok = same = !same && vlen == strlen(machine) && memcmp(v, machine, vlen) == 0;
		else if (IS("version"))
			ok = take(&p->version, v, vlen);
		else if (IS("lib"))
			ok = take(&p->lib, v, vlen);
		else if (IS("platform"))
			ok = take(&p->platform, v, vlen);
		else if (IS("cache"))
			ok = take(&p->cache, v, vlen);
		else if (IS("hwcap"))
			ok = take_hex(&p->hwcap, v, vlen);
		else if (IS("mask"))
			ok = take_hex(&p->hwcap_mask, v, vlen);
		else if (IS("dir") && vlen)
			push(&p->system_dirs, &p->nsystem_dirs, v, vlen);
		else if (IS("sub") && vlen)
			push(&p->subdirs, &p->nsubdirs, v, vlen);
		else if (IS("hwcaps") && vlen)
			push(&p->hwcaps, &p->nhwcaps, v, vlen);
		else
			ok = false;
#undef IS
		at = nl + 1;
	}
	if (!ok || *at || !same || !p->version || !p->lib || !p->platform || !p->cache ||
	    !p->nsystem_dirs || sscanf(p->version, "%d.%d", &p->major, &p->minor) != 2) {
		ct_platform_release(p);
		return false;
	}
	p->from_loader = true;
	return true;
}

/* The answers kept for q's loader on this machine, into q->kept; else q's key. */
static bool kept_answers(struct ct_platform_question *q)
{
	struct ct_platform *k;
	struct stat st;
	char rec[3072];

	if (stat(q->rtld_file, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	ct_cache_key_of(&q->key, &st);
	q->keyed = true;
	machine_identity(q->machine_id, sizeof(q->machine_id));
	if (ct_cache_get(LOADER_CACHE_KIND, &q->key, rec, sizeof(rec)) < 0)
		return false;
	k = ct_xcalloc(1, sizeof(*k));
	if (!platform_from_record(k, rec, q->machine_id)) {
		free(k);
		return false;
	}
	q->kept = k;
	return true;
}

static bool keep_answers;

void ct_platform_keep_answers(bool on)
{
	keep_answers = on;
}

static void ask(struct ct_platform_question *q, unsigned machine, int elf_class, bool kept_ok);

void ct_platform_ask(struct ct_platform_question *q, unsigned machine, int elf_class)
{
	ask(q, machine, elf_class, keep_answers);
}

static void ask(struct ct_platform_question *q, unsigned machine, int elf_class, bool kept_ok)
{
	struct ct_elfinfo ei;
	char real[PATH_MAX];
	const char *name = NULL;
	int major = 0, minor = 0;

	memset(q, 0, sizeof(*q));
	/*
	 * The loader that runs cudatrace (or, for another machine, the fixed
	 * one of its ABI), never one an inspected file names: its PT_INTERP
	 * may be any program, and asking it would run it. Run by its real
	 * path, checked to be root's alone.
	 */
	ct_elfinfo_init(&ei);
	if (ct_elfinfo_read(&ei, "/proc/self/exe") == 0 && ei.interp)
		name = ei.interp;
	if (machine && name && (ei.machine != machine || ei.elf_class != elf_class))
		name = fixed_rtld(machine, elf_class);
	if (name && realpath(name, real) && root_owned(real)) {
		q->rtld = ct_xstrdup(name);
		q->rtld_file = ct_xstrdup(real);
	}
	ct_elfinfo_release(&ei);
	if (!q->rtld)
		return;
	ct_elfinfo_init(&ei);
	if (ct_elfinfo_read(&ei, q->rtld_file) == 0) {
		q->machine = ei.machine;
		q->elf_class = ei.elf_class;
	}
	ct_elfinfo_release(&ei);
	if (kept_ok && kept_answers(q))
		return;
	/*
	 * glibc 2.37 dropped the legacy hwcaps (tls/, haswell/, AT_HWCAP
	 * bits), the one thing only --list-diagnostics tells; its x86 CPUID
	 * dump costs 2.41 0.7 s of CPU in a virtual machine, against 1.4 ms
	 * for 2.36. From 2.37 on the probe is asked alone.
	 */
	q->version = file_version(q->rtld_file);
	if (q->version && sscanf(q->version, "%d.%d", &major, &minor) == 2 &&
	    (major > 2 || (major == 2 && minor >= 37)))
		q->probe_only = true;
	/* Both questions to the loader at once. */
	probe_start(q);
	if (!q->probe_only)
		diag_start(q);
}

static void parse_diagnostics(struct ct_platform *p, const char *text)
{
	char key[64], *v;
	size_t i;

	p->from_loader = true;
	p->lib = value_of(text, "dl_dst_lib");
	p->platform = value_of(text, "dl_platform");
	p->version = value_of(text, "version.version");
	for (i = 0;; i++) {
		snprintf(key, sizeof(key), "path.system_dirs[0x%zx]", i);
		if (!(v = value_of(text, key)))
			break;
		/* The loader spells them with a trailing slash. */
		push(&p->system_dirs, &p->nsystem_dirs, v,
		     strlen(v) > 1 && v[strlen(v) - 1] == '/' ? strlen(v) - 1 : strlen(v));
		free(v);
	}
	if ((v = value_of(text, "path.sysconfdir"))) {
		p->cache = ct_xmalloc(strlen(v) + 16);
		sprintf(p->cache, "%s/ld.so.cache", v);
		free(v);
	}
	if ((v = value_of(text, "dl_hwcap"))) {
		p->hwcap = strtoull(v, NULL, 0);
		free(v);
	}
	if ((v = value_of(text, "dl_hwcap_important"))) {
		p->hwcap_mask = strtoull(v, NULL, 0);
		free(v);
	}
	if ((v = value_of(text, "dl_hwcaps_subdirs"))) {
		char *active = value_of(text, "dl_hwcaps_subdirs_active");
		unsigned long mask = active ? strtoul(active, NULL, 0) : ~0UL;
		char *s = v, *tok;
		unsigned bit = 0;

		for (tok = strsep(&s, ":"); tok; tok = strsep(&s, ":"), bit++)
			if (*tok && (mask & (1UL << bit)))
				push(&p->hwcaps, &p->nhwcaps, tok, strlen(tok));
		free(active);
		free(v);
	}
}

static void free_strings(char ***v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

void ct_platform_answer(struct ct_platform *p, struct ct_platform_question *q)
{
	char *text = NULL;
	int status = -1;
	bool complete = false;

	if (q->kept) {
		*p = *q->kept;
		free(q->kept);
		q->kept = NULL;
		p->rtld = q->rtld;
		q->rtld = NULL;
		p->machine = q->machine;
		p->elf_class = q->elf_class;
		free(q->version);
		q->version = NULL;
		free(q->rtld_file);
		q->rtld_file = NULL;
		return;
	}
	memset(p, 0, sizeof(*p));
	p->rtld = q->rtld;
	q->rtld = NULL;
	p->machine = q->machine;
	p->elf_class = q->elf_class;
	if (p->rtld && q->probe_only) {
		if (probe_finish(p, q)) {
			p->from_loader = true;
			p->version = q->version;
			q->version = NULL;
			complete = true;
		} else {
			/* Not all answered: what the probe told of the subdirectories stays. */
			free_strings(&p->system_dirs, &p->nsystem_dirs);
			free_strings(&p->hwcaps, &p->nhwcaps);
			free(p->cache);
			p->cache = NULL;
			diag_start(q);
		}
	}
	if (q->asking) {
		q->asking = false;
		text = ct_run_wait(&q->diag, &status);
	}
	if (p->rtld) {
		bool told = text && status == 0 && strstr(text, "dl_dst_lib=");

		if (told)
			parse_diagnostics(p, text);
		free(text);
		if (!q->probe_only) {
			probe_finish(p, q);
			complete = told && q->probe_answered;
		}
	}
	free(q->version);
	q->version = NULL;
	free(q->rtld_file);
	q->rtld_file = NULL;
	defaults(p);
	if (!p->machine) {
		p->machine = EM_X86_64;
		p->elf_class = 64;
	}
	sscanf(p->version, "%d.%d", &p->major, &p->minor);
	if (complete && q->keyed && p->from_loader) {
		char rec[3072];
		int n = platform_record(p, q->machine_id, rec, sizeof(rec));

		if (n > 0)
			ct_cache_put(LOADER_CACHE_KIND, &q->key, rec, (size_t)n);
	}
	q->keyed = false;
}

bool ct_platform_load_probed(struct ct_platform *p)
{
	struct ct_platform_question q;
	int status;
	bool ok;

	ask(&q, 0, 0, false);
	if (q.asking) {
		char *text = ct_run_wait(&q.diag, &status);

		free(text);
		q.asking = false;
	}
	if (q.probing && !q.probe_only) {
		/* Ask again, the probe's way. */
		char *text = ct_run_wait(&q.probe, &status);

		free(text);
		rmdir(q.tmp);
		q.probing = false;
		q.probe_only = true;
		probe_start(&q);
	}
	q.probe_only = true;
	memset(p, 0, sizeof(*p));
	p->rtld = q.rtld;
	q.rtld = NULL;
	p->machine = q.machine;
	p->elf_class = q.elf_class;
	ok = probe_finish(p, &q);
	if (ok) {
		p->from_loader = true;
		p->version = q.version;
		q.version = NULL;
	}
	free(q.version);
	free(q.rtld_file);
	defaults(p);
	sscanf(p->version, "%d.%d", &p->major, &p->minor);
	return ok;
}

void ct_platform_load(struct ct_platform *p)
{
	struct ct_platform_question q;

	ct_platform_ask(&q, 0, 0);
	ct_platform_answer(p, &q);
}

void ct_platform_release(struct ct_platform *p)
{
	size_t i;

	for (i = 0; i < p->nsystem_dirs; i++)
		free(p->system_dirs[i]);
	for (i = 0; i < p->nsubdirs; i++)
		free(p->subdirs[i]);
	for (i = 0; i < p->nhwcaps; i++)
		free(p->hwcaps[i]);
	free(p->system_dirs);
	free(p->subdirs);
	free(p->hwcaps);
	free(p->rtld);
	free(p->lib);
	free(p->platform);
	free(p->version);
	free(p->cache);
	memset(p, 0, sizeof(*p));
}

static char **copy_strings(char **v, size_t n)
{
	char **out = ct_xcalloc(n + 1, sizeof(char *));
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = ct_xstrdup(v[i]);
	return out;
}

static char *copy_str(const char *s)
{
	return s ? ct_xstrdup(s) : NULL;
}

void ct_platform_copy(struct ct_platform *dst, const struct ct_platform *src)
{
	*dst = *src;
	dst->rtld = copy_str(src->rtld);
	dst->lib = copy_str(src->lib);
	dst->platform = copy_str(src->platform);
	dst->version = copy_str(src->version);
	dst->cache = copy_str(src->cache);
	dst->system_dirs = copy_strings(src->system_dirs, src->nsystem_dirs);
	dst->subdirs = copy_strings(src->subdirs, src->nsubdirs);
	dst->hwcaps = copy_strings(src->hwcaps, src->nhwcaps);
}

/*
 * The preload half: what only a function in the program's namespace sees.
 *
 * dlopen and dlmopen are entered through tailcall.S, which records the
 * request (name, flags, calling object) and then jumps to the real
 * function with the caller's own return address, so glibc still searches
 * the caller's RPATH/RUNPATH and expands $ORIGIN for it (DESIGN.md
 * decision 1). dlerror is passed through and the text the program
 * received is recorded, never consumed. exec and posix_spawn are inspected
 * (is tracing going to survive into the new image?) and passed through;
 * exit records the status; a switch of user or root is said before it
 * happens, since afterwards the trace may be out of reach.
 *
 * Every hook keeps errno as it found it, works before our constructor,
 * and may run in a vfork child (no allocation, no locks of our own).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

extern char **environ;

/*
 * The real functions, found as dlsym(RTLD_NEXT, name) would find them:
 * R_name for each PRELOAD hook of hooks.def.
 */
#define CT_HOOK(name, kind) CT_HOOK_##kind(name)
#define CT_HOOK_AUDIT(name)

enum {
#define CT_HOOK_PRELOAD(name) R_##name,
#include "hooks.def"
#undef CT_HOOK_PRELOAD
	R_COUNT
};

static const char *const real_names[R_COUNT] = {
#define CT_HOOK_PRELOAD(name) [R_##name] = #name,
#include "hooks.def"
#undef CT_HOOK_PRELOAD
};

#undef CT_HOOK_AUDIT
#undef CT_HOOK

static void *reals[R_COUNT];

static void *real(int i)
{
	void *p = __atomic_load_n(&reals[i], __ATOMIC_ACQUIRE);

	if (!p) {
		p = ct_next_symbol(real_names[i]);
		__atomic_store_n(&reals[i], p, __ATOMIC_RELEASE);
	}
	return p;
}

/* Resolve everything while it is safe, before any vfork child needs it. */
__attribute__((constructor)) static void resolve_all(void)
{
	int e = errno, i;

	for (i = 0; i < R_COUNT; i++)
		real(i);
	errno = e;
}

/* --- dlopen, dlmopen, dlerror ---------------------------------------------- */

static void note_dlopen(const char *api, long lmid, const char *file,
			int mode, const void *ret)
{
	struct ct_rec r;
	char obj[1024];

	if (!ct_rec_begin(&r, "dlopen"))
		return;
	ct_rec_str(&r, "api", api);
	ct_rec_str(&r, "name", file);
	ct_rec_i64(&r, "flags", mode);
	if (mode & RTLD_NOLOAD)
		ct_rec_bool(&r, "noload", true);
	if (lmid != 0)
		ct_rec_i64(&r, "lmid", lmid);
	ct_rec_str(&r, "caller", ct_object_of(ret, obj, sizeof(obj)));
	ct_rec_end(&r);
}

/* Called by the stubs in tailcall.S; returns what they jump to. */
void *ct_dlopen_enter(const char *file, int mode, const void *ret);
void *ct_dlmopen_enter(long lmid, const char *file, int mode, const void *ret);

void *ct_dlopen_enter(const char *file, int mode, const void *ret)
{
	int e = errno;

	note_dlopen("dlopen", 0, file, mode, ret);
	errno = e;
	return real(R_dlopen);
}

void *ct_dlmopen_enter(long lmid, const char *file, int mode, const void *ret)
{
	int e = errno;

	note_dlopen("dlmopen", lmid, file, mode, ret);
	errno = e;
	return real(R_dlmopen);
}

CT_EXPORT char *dlerror(void)
{
	char *(*fn)(void);
	char *msg;
	int e = errno;
	struct ct_rec r;

	*(void **)&fn = real(R_dlerror);
	if (!fn)
		return NULL;
	msg = fn();
	if (msg && ct_rec_begin(&r, "dlerror")) {
		ct_rec_str(&r, "text", msg);
		ct_rec_end(&r);
	}
	errno = e;
	return msg;
}

/* --- exec ------------------------------------------------------------------ */

static const char *env_in(char *const envp[], const char *name)
{
	size_t n = ct_strlen(name);

	for (; envp && *envp; envp++)
		if (ct_strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* Does the colon/space list hold our own path? */
static bool lists_shim(const char *list, const char *shim)
{
	size_t n = ct_strlen(shim);

	while (list && *list) {
		size_t len = 0;

		while (list[len] && list[len] != ':' && list[len] != ' ')
			len++;
		if (len == n && ct_strncmp(list, shim, n) == 0)
			return true;
		list += len;
		while (*list == ':' || *list == ' ')
			list++;
	}
	return false;
}

/*
 * Reads the ELF header and program headers: static when no PT_INTERP. Only
 * a regular file is read (ct_open_regular): the program may exec a path a
 * link makes a device's.
 */
static bool static_elf(const char *path)
{
	unsigned char h[64];
	unsigned char ph[56];
	int fd = ct_open_regular(path);
	uint64_t phoff;
	unsigned phnum, phentsize, i;
	bool dynamic = false;

	if (fd < 0)
		return false;
	if (read(fd, h, sizeof(h)) != (ssize_t)sizeof(h) || h[0] != 0x7f ||
	    h[1] != 'E' || h[2] != 'L' || h[3] != 'F' || h[4] != 2) {
		close(fd);
		return false;
	}
	phoff = (uint64_t)h[32] | (uint64_t)h[33] << 8 | (uint64_t)h[34] << 16 |
		(uint64_t)h[35] << 24;
	phentsize = h[54] | h[55] << 8;
	phnum = h[56] | h[57] << 8;
	for (i = 0; i < phnum && i < 64 && phentsize >= 4; i++) {
		if (pread(fd, ph, 4, (off_t)(phoff + (uint64_t)i * phentsize)) != 4)
			break;
		if ((ph[0] | ph[1] << 8 | ph[2] << 16 | (unsigned)ph[3] << 24) ==
		    PT_INTERP)
			dynamic = true;
	}
	close(fd);
	return !dynamic;
}

/* A command name without a slash, found in PATH as execvp would. */
static const char *search_path(const char *file, char *buf, size_t size)
{
	const char *p = env_in(environ, "PATH");

	if (!file || !*file)
		return file;
	for (const char *f = file; *f; f++)
		if (*f == '/')
			return file;
	if (!p)
		p = "/bin:/usr/bin";
	while (*p) {
		size_t len = 0, fl = ct_strlen(file), k;
		struct stat st;

		while (p[len] && p[len] != ':')
			len++;
		if (len + fl + 2 <= size) {
			for (k = 0; k < len; k++)
				buf[k] = p[k];
			buf[len] = '/';
			for (k = 0; k <= fl; k++)
				buf[len + 1 + k] = file[k];
			if (syscall(SYS_newfstatat, AT_FDCWD, buf, &st, 0) == 0 &&
			    S_ISREG(st.st_mode))
				return buf;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return file;
}

/*
 * Record an exec and whether tracing can follow it: there must be a loader
 * at all (not a static executable: said first, since no environment would
 * change it, and a static helper started with an explicit environment,
 * ctypes.util's ldconfig -p, is then known for what it is), the
 * environment must still name the shim, and the loader must honour it
 * (not set-user-ID).
 */
static void note_exec(const char *api, const char *file, char *const envp[],
		      bool search)
{
	struct ct_rec r;
	char shim[1024], found[2048];
	const char *path = search ? search_path(file, found, sizeof(found)) : file;
	const char *why = NULL;
	struct stat st;

	if (!ct_rec_begin(&r, "exec"))
		return;
	ct_object_of((const void *)note_exec, shim, sizeof(shim));
	if (path && static_elf(path))
		why = "static";
	else if (!env_in(envp, "CUDATRACE_DIR") ||
		 !(lists_shim(env_in(envp, "LD_AUDIT"), shim) ||
		   lists_shim(env_in(envp, "LD_PRELOAD"), shim)))
		why = "environment";
	else if (path && syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 &&
		 (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
		  ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
		why = "setuid";
	ct_rec_str(&r, "api", api);
	ct_rec_str(&r, "path", path);
	ct_rec_bool(&r, "traced", why == NULL);
	/* Traced through LD_PRELOAD alone: no searches, maybe no file at all. */
	if (!why && !lists_shim(env_in(envp, "LD_AUDIT"), shim))
		ct_rec_bool(&r, "auditor", false);
	if (why)
		ct_rec_str(&r, "untraced", why);
	/*
	 * Traced into another folder (a cudatrace run inside this one): this
	 * trace will not hold the new image, and says where it went.
	 */
	if (!why && env_in(envp, "CUDATRACE_DIR")) {
		char mine[512];
		long n = ct_initial_env("CUDATRACE_DIR", mine, sizeof(mine));
		const char *theirs = env_in(envp, "CUDATRACE_DIR");

		if (n >= 0 && (ct_strlen(theirs) != (size_t)n || ct_strncmp(theirs, mine, (size_t)n) != 0))
			ct_rec_str(&r, "dir", theirs);
	}
	ct_rec_end(&r);
}

static void note_exec_failed(const char *api, int err)
{
	struct ct_rec r;

	if (ct_rec_begin(&r, "exec_failed")) {
		ct_rec_str(&r, "api", api);
		ct_rec_i64(&r, "errno", err);
		ct_rec_end(&r);
	}
}

CT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int (*fn)(const char *, char *const[], char *const[]);
	int e = errno, rc;

	*(void **)&fn = real(R_execve);
	note_exec("execve", path, envp, false);
	errno = e;
	rc = fn(path, argv, envp);
	e = errno;
	note_exec_failed("execve", e);
	errno = e;
	return rc;
}

CT_EXPORT int execv(const char *path, char *const argv[])
{
	int (*fn)(const char *, char *const[]);
	int e = errno, rc;

	*(void **)&fn = real(R_execv);
	note_exec("execv", path, environ, false);
	errno = e;
	rc = fn(path, argv);
	e = errno;
	note_exec_failed("execv", e);
	errno = e;
	return rc;
}

CT_EXPORT int execvp(const char *file, char *const argv[])
{
	int (*fn)(const char *, char *const[]);
	int e = errno, rc;

	*(void **)&fn = real(R_execvp);
	note_exec("execvp", file, environ, true);
	errno = e;
	rc = fn(file, argv);
	e = errno;
	note_exec_failed("execvp", e);
	errno = e;
	return rc;
}

CT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*fn)(const char *, char *const[], char *const[]);
	int e = errno, rc;

	*(void **)&fn = real(R_execvpe);
	note_exec("execvpe", file, envp, true);
	errno = e;
	rc = fn(file, argv, envp);
	e = errno;
	note_exec_failed("execvpe", e);
	errno = e;
	return rc;
}

CT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*fn)(int, char *const[], char *const[]);
	int e = errno, rc;
	char fdpath[40];

	ct_fd_path(fd, fdpath);
	*(void **)&fn = real(R_fexecve);
	note_exec("fexecve", fdpath, envp, false);
	errno = e;
	rc = fn(fd, argv, envp);
	e = errno;
	note_exec_failed("fexecve", e);
	errno = e;
	return rc;
}

CT_EXPORT int posix_spawn(pid_t *pid, const char *path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[])
{
	int (*fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		  const posix_spawnattr_t *, char *const[], char *const[]);
	int e = errno;

	*(void **)&fn = real(R_posix_spawn);
	note_exec("posix_spawn", path, envp, false);
	errno = e;
	return fn(pid, path, fa, attr, argv, envp);
}

CT_EXPORT int posix_spawnp(pid_t *pid, const char *file,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	int (*fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		  const posix_spawnattr_t *, char *const[], char *const[]);
	int e = errno;

	*(void **)&fn = real(R_posix_spawnp);
	note_exec("posix_spawnp", file, envp, true);
	errno = e;
	return fn(pid, file, fa, attr, argv, envp);
}

/* --- exit ------------------------------------------------------------------ */

static void note_exit(const char *api, int status)
{
	struct ct_rec r;

	if (ct_rec_begin(&r, "exit")) {
		ct_rec_str(&r, "api", api);
		ct_rec_i64(&r, "status", status);
		ct_rec_end(&r);
	}
}

/* Record the exit, then leave through the real function (or the kernel). */
__attribute__((noreturn)) static void leave(int which, const char *api, int status)
{
	void (*fn)(int);

	*(void **)&fn = real(which);
	note_exit(api, status);
	if (fn)
		fn(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

CT_EXPORT void exit(int status)
{
	leave(R_exit, "exit", status);
}

CT_EXPORT void _exit(int status)
{
	leave(R__exit, "_exit", status);
}

CT_EXPORT void _Exit(int status)
{
	leave(R__Exit, "_Exit", status);
}

/* --- switching user or root ------------------------------------------------ */

/*
 * A process that becomes another user (the gosu or setpriv step of a
 * container's entrypoint, a daemon's setuid) can no longer open its trace
 * file (mode 0600, in a folder private to whoever ran cudatrace), nor can
 * one that changed its root directory: tracing then stops quietly. The
 * switch is said before the call, the only moment it still can be; the
 * call is the real one, with its own result and errno. A call that keeps
 * the effective user says nothing.
 */
static void note_switch(const char *api, uid_t uid, const char *path)
{
	struct ct_rec r;

	if (!ct_rec_begin(&r, "switch"))
		return;
	ct_rec_str(&r, "api", api);
	if (ct_strncmp(api, "chroot", 7) == 0)
		ct_rec_str(&r, "path", path);
	else
		ct_rec_u64(&r, "uid", (uint64_t)uid);
	ct_rec_end(&r);
}

/* Does uid ((uid_t)-1: unchanged) make another effective user? */
static bool other_user(uid_t uid)
{
	return uid != (uid_t)-1 && uid != geteuid();
}

CT_EXPORT int setuid(uid_t uid)
{
	int (*fn)(uid_t);
	int e = errno;

	*(void **)&fn = real(R_setuid);
	if (other_user(uid))
		note_switch("setuid", uid, NULL);
	errno = e;
	return fn(uid);
}

CT_EXPORT int seteuid(uid_t euid)
{
	int (*fn)(uid_t);
	int e = errno;

	*(void **)&fn = real(R_seteuid);
	if (other_user(euid))
		note_switch("seteuid", euid, NULL);
	errno = e;
	return fn(euid);
}

CT_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	int (*fn)(uid_t, uid_t);
	int e = errno;

	*(void **)&fn = real(R_setreuid);
	if (other_user(euid))
		note_switch("setreuid", euid, NULL);
	errno = e;
	return fn(ruid, euid);
}

CT_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	int (*fn)(uid_t, uid_t, uid_t);
	int e = errno;

	*(void **)&fn = real(R_setresuid);
	if (other_user(euid))
		note_switch("setresuid", euid, NULL);
	errno = e;
	return fn(ruid, euid, suid);
}

CT_EXPORT int chroot(const char *path)
{
	int (*fn)(const char *);
	int e = errno;

	*(void **)&fn = real(R_chroot);
	note_switch("chroot", 0, path);
	errno = e;
	return fn(path);
}

/*
 * nowrite seccomp|nofile LIB: after main begins, the program takes from
 * itself the means to write a file, then dlopens LIB (a library that is
 * not there) and exits 0, as a program that falls back would (issue 31,
 * point 4):
 *   seccomp  a filter makes open/openat for writing or creating return
 *            EPERM (the way a sandbox forbids writes);
 *   nofile   RLIMIT_NOFILE is lowered to 6 and the program's own files
 *            are dup2ed over the free descriptors 3 to 5.
 * It prints what it saw (its own open refused, dlopen's failure), the same
 * traced or not: the shim must not change the program.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))

/* open/openat with O_WRONLY, O_RDWR or O_CREAT (in the flags' low word): EPERM. */
static int forbid_writes(void)
{
	const unsigned wr = O_WRONLY | O_RDWR | O_CREAT;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 3, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, wr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Every descriptor up to the limit (6) taken by the program's own files. */
static int use_all_descriptors(void)
{
	struct rlimit r = { 6, 6 };
	int fd;

	if (setrlimit(RLIMIT_NOFILE, &r) != 0)
		return -1;
	for (fd = 3; fd < 6; fd++)
		if (dup2(STDERR_FILENO, fd) != fd)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int fd, err;
	void *h;

	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "seccomp") == 0 ? forbid_writes() != 0
	    : strcmp(argv[1], "nofile") == 0 ? use_all_descriptors() != 0
					     : 1) {
		fprintf(stderr, "nowrite: cannot set up '%s': %s\n", argv[1], strerror(errno));
		return 3;
	}
	fd = open("/dev/null", O_WRONLY);
	err = errno;
	printf("open for writing: %s\n", fd >= 0 ? "ok" : strerror(err));
	h = dlopen(argv[2], RTLD_NOW);
	err = errno;
	printf("dlopen %s: %s\n", argv[2], h ? "loaded" : "failed");
	/* The shim's own failed writes leave the program's errno as dlopen left it. */
	printf("errno after dlopen: %d\n", err);
	fflush(stdout);
	return 0;
}

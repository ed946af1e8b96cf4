/*
 * The machine as collect_env and bug templates ask for it: the OS and its
 * release (/etc/os-release, else /usr/lib/os-release), the kernel
 * (uname), and the C library's release (gnu_get_libc_version: the glibc
 * cudatrace runs with, the system's). Nothing is run. Fields are "" when
 * nothing says. Not thread-safe (one call, one struct the caller owns).
 */
#ifndef CT_SYSTEM_H
#define CT_SYSTEM_H

struct ct_system {
	char os[128];          /* PRETTY_NAME: "Debian GNU/Linux 12 (bookworm)" */
	char os_id[32];        /* ID: "debian" */
	char os_version[64];   /* VERSION_ID: "12" */
	char kernel[128];      /* "Linux 6.1.0-18-amd64" (sysname, release) */
	char machine[32];      /* "x86_64" */
	char glibc[32];        /* "2.36" */
	const char *os_from;   /* the os-release file read, or NULL */
};

void ct_system_read(struct ct_system *s);

#endif

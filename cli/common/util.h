/*
 * Utilities every layer of the CLI uses: exit codes, the one error
 * printer (for the commands: nothing below them prints), aborting
 * allocators, running a helper program and reading small files.
 */
#ifndef CT_UTIL_H
#define CT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef CUDATRACE_VERSION
#define CUDATRACE_VERSION "0.0.0"
#endif

/* Exit codes shared by the commands. */
enum {
	CT_EXIT_OK = 0,
	CT_EXIT_FINDING = 1, /* check: an object cannot run on a target */
	CT_EXIT_BAD_INPUT = 2, /* usage error, unreadable or damaged input */
};

/*
 * "cudatrace: out of memory" on stderr, and exit 2: the one message that
 * does not go up to the commands, since there is nothing to return to.
 */
void ct_out_of_memory(void) __attribute__((noreturn));
/* "12.3 MB" style sizes; returns buf. */
char *ct_human_size(uint64_t bytes, char *buf, size_t size);
/* Aborting allocators: the CLI has nothing sensible to do without memory. */
void *ct_xmalloc(size_t n) __attribute__((returns_nonnull));
void *ct_xcalloc(size_t n, size_t size) __attribute__((returns_nonnull));
void *ct_xrealloc(void *p, size_t n) __attribute__((returns_nonnull));
char *ct_xstrdup(const char *s) __attribute__((returns_nonnull));
/*
 * Run argv[0] (an absolute path) with envp, stdin from /dev/null, and
 * return what it wrote to stdout (or stderr), NUL-terminated, to free; the
 * exit status goes to *status (-1: killed). NULL when it cannot start.
 */
char *ct_run_capture(char *const argv[], char *const envp[], bool want_stderr,
		     int *status);
/* The same in two steps, so that several programs can run at once. */
struct ct_capture {
	pid_t pid;
	int fd;
};
int ct_run_start(char *const argv[], char *const envp[], bool want_stderr,
		 struct ct_capture *c);
char *ct_run_wait(struct ct_capture *c, int *status);
/* The file name in path: what follows its last '/' (path itself without one); a view into path. */
const char *ct_path_base(const char *path);
/* The folder of path into buf: "" for a bare name, "/" for a file in /; returns buf. */
char *ct_path_dir(const char *path, char *buf, size_t size);
/* The n-byte little-endian number at p (an ELF field). */
uint64_t ct_le(const unsigned char *p, unsigned n);
/* Is word one of the space-separated words of list? */
bool ct_word_in(const char *list, const char *word);

/*
 * How many threads a command may keep busy: CUDATRACE_THREADS (1 to 64)
 * when set, else the processors this process may run on, at most max.
 */
size_t ct_threads(size_t max);

#endif

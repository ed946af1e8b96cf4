/*
 * bench/scan_pages: which pages of a file the scanner reads, counted
 * exactly; for bench/scan, never a test, not installed.
 *
 *   build/bench/scan_pages [--known-sections] FILE...
 *
 * Each file is mapped with no access rights; a SIGSEGV handler grants read
 * access to one page at a time as the scanner first touches it, and counts
 * it. That is what the scan itself reads, apart from what the kernel adds
 * to a real run: fault-around maps the cached pages next to each one
 * touched, and readahead reads more from disk (bench/scan shows a real
 * run's peak RSS next to this count).
 *
 * One line per file:
 *   touched=N pages=N scanned=BYTES hops=N containers=N images=N exact=0|1 PATH
 * scanned and hops are the magic scan's counters (elfscan.h). exact=0
 * when the kernel refused to split the mapping any further (the
 * vm.max_map_count limit): the count is then a lower bound. Exit status
 * 0, 1 when a file could not be read, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfscan.h"

static unsigned char *map_base;
static size_t map_len, page_size;
static volatile size_t touched;
static volatile int exact;

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr, base = (uintptr_t)map_base;

	(void)ctx;
	if (a < base || a - base >= map_len) {
		/* Not ours: fault again, and die of it. */
		signal(sig, SIG_DFL);
		return;
	}
	if (mprotect((void *)(a & ~(uintptr_t)(page_size - 1)), page_size,
		     PROT_READ) == 0) {
		touched++;
		return;
	}
	/* Too many mappings: open everything, count no further. */
	exact = 0;
	if (mprotect(map_base, map_len, PROT_READ) != 0)
		signal(sig, SIG_DFL);
}

static int count_file(const char *path, const struct elfscan_options *opt)
{
	struct elfscan_file f;
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size == 0) {
		fprintf(stderr, "scan_pages: cannot read '%s': %s\n", path,
			fd < 0 ? strerror(errno) : "not a non-empty file");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	map_len = (size_t)st.st_size;
	map_base = mmap(NULL, map_len, PROT_NONE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map_base == MAP_FAILED) {
		fprintf(stderr, "scan_pages: cannot map '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	touched = 0;
	exact = 1;
	elfscan_file_init(&f);
	rc = elfscan_scan_buffer(&f, map_base, map_len, opt);
	if (rc == 0 || rc == -EINVAL)
		printf("touched=%zu pages=%zu scanned=%llu hops=%zu containers=%zu "
		       "images=%zu exact=%d %s\n",
		       (size_t)touched, (map_len + page_size - 1) / page_size,
		       (unsigned long long)f.magic_scanned, f.magic_hops,
		       f.ncontainers, f.nimages, exact, path);
	else
		fprintf(stderr, "scan_pages: cannot scan '%s': %s\n", path,
			strerror(-rc));
	elfscan_file_release(&f);
	munmap(map_base, map_len);
	return rc == 0 || rc == -EINVAL ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct elfscan_options opt = { 0 };
	struct sigaction sa;
	int i = 1, status = 0;

	if (i < argc && strcmp(argv[i], "--known-sections") == 0) {
		opt.no_magic_scan = true;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: scan_pages [--known-sections] FILE...\n");
		return 2;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	for (; i < argc; i++)
		status |= count_file(argv[i], &opt);
	return status;
}

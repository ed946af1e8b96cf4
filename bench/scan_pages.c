/*
 * bench/scan_pages: which pages of a file the scanner reads, counted
 * exactly; for bench/scan, never a test, not installed.
 *
 *   build/bench/scan_pages [--known-sections] [--ranges OUT] FILE...
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
 *
 * --ranges OUT (one FILE) writes the touched pages to OUT as runs of
 * adjacent pages, each two native uint64_t (offset, length in bytes,
 * clipped to the file's size): what build/bench/cat_pages reads, the I/O
 * floor under the scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfscan.h"

static unsigned char *map_base;
static size_t map_len, page_size;
static volatile size_t touched;
static volatile int exact;
/* One byte per page, set as it is touched (--ranges). */
static unsigned char *volatile seen;

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
		if (seen)
			seen[(a - base) / page_size] = 1;
		return;
	}
	/* Too many mappings: open everything, count no further. */
	exact = 0;
	if (mprotect(map_base, map_len, PROT_READ) != 0)
		signal(sig, SIG_DFL);
}

/* The touched pages as runs (offset, length), for bench/cat_pages. */
static int write_ranges(const char *out, size_t npages)
{
	FILE *fp = fopen(out, "wb");
	size_t i = 0;
	int bad = !fp;

	while (fp && i < npages) {
		uint64_t run[2];
		size_t j = i;

		if (!seen[i]) {
			i++;
			continue;
		}
		while (j < npages && seen[j])
			j++;
		run[0] = (uint64_t)i * page_size;
		run[1] = (uint64_t)(j - i) * page_size;
		if (run[0] + run[1] > map_len)
			run[1] = map_len - run[0];
		bad |= fwrite(run, sizeof(run), 1, fp) != 1;
		i = j;
	}
	if (fp)
		bad |= fclose(fp) != 0;
	if (bad)
		fprintf(stderr, "scan_pages: cannot write '%s': %s\n", out,
			strerror(errno));
	return bad;
}

static int count_file(const char *path, const struct elfscan_options *opt,
		      const char *ranges)
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
	if (ranges && !(seen = calloc((map_len + page_size - 1) / page_size, 1))) {
		munmap(map_base, map_len);
		return 1;
	}
	elfscan_file_init(&f);
	rc = elfscan_scan_buffer(&f, map_base, map_len, opt);
	if (ranges && (rc == 0 || rc == -EINVAL) &&
	    write_ranges(ranges, (map_len + page_size - 1) / page_size))
		rc = -EIO;
	if (rc == 0 || rc == -EINVAL)
		printf("touched=%zu pages=%zu scanned=%llu hops=%zu containers=%zu "
		       "images=%zu exact=%d %s\n",
		       (size_t)touched, (map_len + page_size - 1) / page_size,
		       (unsigned long long)f.magic_scanned, f.magic_hops,
		       f.ncontainers, f.nimages, exact, path);
	else if (rc != -EIO)
		fprintf(stderr, "scan_pages: cannot scan '%s': %s\n", path,
			strerror(-rc));
	elfscan_file_release(&f);
	munmap(map_base, map_len);
	free(seen);
	seen = NULL;
	return rc == 0 || rc == -EINVAL ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct elfscan_options opt = { 0 };
	struct sigaction sa;
	const char *ranges = NULL;
	int i = 1, status = 0;

	for (; i < argc; i++) {
		if (strcmp(argv[i], "--known-sections") == 0)
			opt.no_magic_scan = true;
		else if (strcmp(argv[i], "--ranges") == 0 && i + 1 < argc)
			ranges = argv[++i];
		else
			break;
	}
	if (i >= argc || (ranges && i + 1 != argc)) {
		fprintf(stderr, "usage: scan_pages [--known-sections] [--ranges OUT] FILE...\n");
		return 2;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	for (; i < argc; i++)
		status |= count_file(argv[i], &opt, ranges);
	return status;
}

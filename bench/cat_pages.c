/*
 * bench/cat_pages: cat of the pages a scan touches, the I/O floor under
 * `cudatrace scan`; for bench/scan, never a test, not installed.
 *
 *   build/bench/cat_pages RANGES FILE
 *
 * RANGES is what `scan_pages --ranges` wrote: runs of touched pages as
 * native uint64_t pairs (offset, length). Each run is read from FILE with
 * pread(2) in pieces of at most 128 KiB (cat's own buffer size) into one
 * buffer, and thrown away, as `cat FILE >/dev/null` does for the whole
 * file. Timed as a whole command, as the scan is, it is what reading
 * exactly those bytes once costs. Prints nothing; exit status 0, 1 when
 * a read fails, 2 on usage.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE (128u << 10)

int main(int argc, char **argv)
{
	static unsigned char buf[PIECE];
	uint64_t (*runs)[2] = NULL;
	struct stat st;
	size_t n, i;
	int rfd, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: cat_pages RANGES FILE\n");
		return 2;
	}
	rfd = open(argv[1], O_RDONLY | O_CLOEXEC);
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (rfd < 0 || fd < 0 || fstat(rfd, &st) != 0 ||
	    st.st_size % (off_t)sizeof(*runs) != 0 ||
	    !(runs = malloc((size_t)st.st_size + 1)) ||
	    read(rfd, runs, (size_t)st.st_size) != st.st_size) {
		perror("cat_pages");
		return 1;
	}
	n = (size_t)st.st_size / sizeof(*runs);
	for (i = 0; i < n; i++) {
		uint64_t off = runs[i][0], left = runs[i][1];

		while (left) {
			size_t want = left < PIECE ? (size_t)left : PIECE;
			ssize_t got = pread(fd, buf, want, (off_t)off);

			if (got <= 0)
				return 1;
			off += (uint64_t)got;
			left -= (uint64_t)got;
		}
	}
	return 0;
}

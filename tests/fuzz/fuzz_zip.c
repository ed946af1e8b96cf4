/*
 * libFuzzer target for cudatrace's zip reader (cli/common/zip.c): any bytes
 * are opened as an archive, and every member is read to its end in pieces
 * whose sizes the input's own bytes pick, into a fixed buffer (the reader
 * bounds what it yields by the declared size; this harness bounds what it
 * keeps). ASan and UBSan find the overreads; the checks turn a broken
 * contract into a crash libFuzzer reports: a read yields no more than
 * asked, the member no more than declared, and a member read to its end
 * yielded exactly its declared size.
 *
 *   make fuzz-zip FUZZ_SECONDS=60   (seeds: tests/fuzz/seeds zip)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char buf[1 << 16];
	struct ct_zip z;
	char why[256];
	size_t i;

	why[0] = '\0';
	if (ct_zip_open_buffer(&z, data, size, why, sizeof(why)) != 0) {
		if (!why[0] || z.members || z.n)
			__builtin_trap();
		return 0;
	}
	for (i = 0; i < z.n; i++) {
		struct ct_zip_file f;
		uint64_t total = 0;
		size_t k = 0;
		ssize_t got;

		if (!z.members[i].name)
			__builtin_trap();
		why[0] = '\0';
		if (ct_zip_file_open(&f, &z, i, why, sizeof(why)) != 0) {
			if (!why[0])
				__builtin_trap();
			continue;
		}
		for (;;) {
			/* Piece sizes from the input: 1 to 64 KiB, changing as it goes. */
			size_t want = size ? (size_t)data[k++ % size] * 256 + 1 : sizeof(buf);

			got = ct_zip_file_read(&f, buf, want, why, sizeof(why));
			if (got <= 0)
				break;
			if ((size_t)got > want)
				__builtin_trap();
			total += (uint64_t)got;
			if (total > z.members[i].size)
				__builtin_trap();
		}
		if (got == 0 && total != z.members[i].size)
			__builtin_trap();
		/* After the end or an error, reads stay where they are. */
		if (ct_zip_file_read(&f, buf, 1, why, sizeof(why)) > 0)
			__builtin_trap();
		ct_zip_file_close(&f);
	}
	ct_zip_close(&z);
	return 0;
}

/*
 * Kernels in device code (elfscan/kernels.c): a cubin's entry functions
 * and PTX's .entry, in the committed fixtures, and the same files with
 * one field changed so that they define none. A fatbin without kernels
 * cannot fail a launch, so check leaves it out.
 */
#include "helpers.h"

#define STO_CUDA_ENTRY 0x10u

/*
 * Clear STO_CUDA_ENTRY in every symbol of the device ELF at b: its
 * functions stay, none is a kernel any more. Returns how many it cleared.
 */
static size_t unmark_entries(unsigned char *b)
{
	uint64_t shoff = get_le(b + 0x28, 8);
	unsigned shnum = (unsigned)get_le(b + 0x3c, 2), i;
	size_t n = 0;

	for (i = 0; i < shnum; i++) {
		unsigned char *sh = b + shoff + 64 * (uint64_t)i;
		uint64_t off = get_le(sh + 0x18, 8), size = get_le(sh + 0x20, 8), k;

		if (get_le(sh + 4, 4) != 2) /* SHT_SYMTAB */
			continue;
		for (k = 0; k + 24 <= size; k += 24)
			if (b[off + k + 5] & STO_CUDA_ENTRY) {
				b[off + k + 5] &= (unsigned char)~STO_CUDA_ENTRY;
				n++;
			}
	}
	return n;
}

static int cubin_kernel(const unsigned char *b, size_t len)
{
	unsigned char *copy = copy_exact(b, len);
	int rc = elfscan_cubin_has_kernel(copy, len);

	free(copy);
	return rc;
}

static void test_cubin(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("vecadd-sm90a.cubin", &len);

	(void)state;
	assert_int_equal(cubin_kernel(b, len), 1);
	/* Cut short: no section header table to read. */
	assert_int_equal(cubin_kernel(b, len / 2), -EBADMSG);
	assert_int_equal(cubin_kernel(b, 40), -EBADMSG);
	/* vec_add and vec_scale: two kernels; unmarked, none. */
	assert_int_equal(unmark_entries(b), 2);
	assert_int_equal(cubin_kernel(b, len), 0);
	free(b);
}

static void test_ptx(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("vecadd-sm89.ptx", &len);
	char *p;
	size_t n = 0;

	(void)state;
	assert_int_equal(elfscan_ptx_has_kernel((const char *)b, len), 1);
	/* ".entry" becomes ".func ": device functions only. */
	while ((p = memmem(b, len, ".entry", 6))) {
		memcpy(p, ".func ", 6);
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(elfscan_ptx_has_kernel((const char *)b, len), 0);
	assert_int_equal(elfscan_ptx_has_kernel("// .entry x\n.func y", 19), 0);
	assert_int_equal(elfscan_ptx_has_kernel(".visible .entry k(", 18), 1);
	assert_int_equal(elfscan_ptx_has_kernel(".entryx", 7), 0);
	free(b);
}

/*
 * A fatbin's kernels, through its payloads: an uncompressed cubin read
 * first, a zstd PTX otherwise. Unmarked cubin and PTX without .entry: no
 * kernel in the container.
 */
static void test_container(void **state)
{
	size_t len, i;
	unsigned char *b = read_fixture("sm80-ptx80.so", &len);
	struct scanned s;
	uint64_t cubin = 0;

	(void)state;
	scanned_open(&s, b, len, NULL);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.f.ncontainers, 1);
	assert_int_equal(elfscan_container_has_kernel(&s.f, 0), 1);
	for (i = 0; i < s.f.nimages; i++) {
		int want = s.f.images[i].kind == ELFSCAN_KIND_SASS ||
			   s.f.images[i].kind == ELFSCAN_KIND_PTX;

		assert_int_equal(elfscan_image_has_kernel(&s.f, i), want ? 1 : -ENODATA);
		if (s.f.images[i].kind == ELFSCAN_KIND_SASS)
			cubin = s.f.images[i].offset + s.f.images[i].header_size;
	}
	assert_int_equal(elfscan_image_has_kernel(&s.f, s.f.nimages), -EINVAL);
	assert_int_equal(elfscan_container_has_kernel(&s.f, 1), -EINVAL);
	scanned_close(&s);
	assert_true(cubin != 0);
	assert_int_equal(unmark_entries(b + cubin), 2);
	scanned_open(&s, b, len, NULL);
	/* The PTX (zstd) still declares its kernels. */
	assert_int_equal(elfscan_container_has_kernel(&s.f, 0), 1);
	scanned_close(&s);
	free(b);
}

/* A compressed payload that does not decompress: cannot be told. */
static void test_unreadable(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("zstd.so", &len);
	struct scanned s;
	uint64_t at;

	(void)state;
	scanned_open(&s, b, len, NULL);
	assert_int_equal(elfscan_container_has_kernel(&s.f, 0), 1);
	at = s.f.images[0].offset + s.f.images[0].header_size;
	scanned_close(&s);
	b[at] ^= 0xff; /* the zstd frame magic */
	scanned_open(&s, b, len, NULL);
	assert_int_equal(elfscan_image_has_kernel(&s.f, 0), -ENODATA);
	/* The other cubin still says: one readable image with kernels. */
	assert_int_equal(elfscan_container_has_kernel(&s.f, 0), 1);
	scanned_close(&s);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cubin),
		cmocka_unit_test(test_ptx),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

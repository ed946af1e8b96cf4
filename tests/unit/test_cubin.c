/*
 * Cubin header facts (elfscan/cubin.c): the SM number from e_flags by ABI
 * layout, 'a' from .nv.compat and 'f' from the ptxas command line in a
 * note. Real cubins come from the committed fixtures; the layouts and the
 * malformed cases are small ELF files built here.
 */
#include "helpers.h"
#include "internal.h"

#define SHT_NOTE_ 7u
#define SHT_NOBITS_ 8u
#define SHT_CUDA_COMPAT 0x70000086u
#define MINI_MAX 512

/*
 * A 64-bit little-endian EM_CUDA ELF: the header, one section's n bytes
 * at 0x40, then the section header table (the null entry and that
 * section). Returns the file's length.
 */
static size_t mini_cubin(unsigned char *b, unsigned abi, uint32_t eflags,
			 uint32_t type, const void *data, size_t n)
{
	size_t shoff = 64 + ((n + 7) & ~(size_t)7);
	unsigned char *sh = b + shoff + 64;

	assert_true(shoff + 128 <= MINI_MAX);
	memset(b, 0, shoff + 128);
	memcpy(b, "\177ELF", 4);
	b[4] = 2; /* ELFCLASS64 */
	b[5] = 1; /* little-endian */
	b[6] = 1;
	b[7] = abi >= 8 ? 0x41 : 0x33;
	b[8] = (unsigned char)abi;
	put16(b + 16, 2); /* ET_EXEC */
	put16(b + 18, EM_CUDA);
	put32(b + 20, 1);
	put64(b + 0x28, shoff);
	put32(b + 0x30, eflags);
	put16(b + 0x34, 64);
	put16(b + 0x3a, 64);
	put16(b + 0x3c, 2);
	put32(sh + 4, type);
	put64(sh + 0x18, 64);
	put64(sh + 0x20, n);
	if (n)
		memcpy(b + 64, data, n);
	return shoff + 128;
}

/* Parse through an exact-size copy so ASan sees reads past the end. */
static int parse(const unsigned char *b, size_t len, struct es_cubin *c)
{
	unsigned char *copy = copy_exact(b, len);
	int rc = es_cubin_parse(copy, len, c);

	free(copy);
	return rc;
}

static void test_committed_cubin(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("vecadd-sm90a.cubin", &len);
	struct es_cubin c;

	(void)state;
	assert_int_equal(parse(b, len, &c), 0);
	assert_int_equal(c.abi_version, 8);
	assert_int_equal(c.osabi, 0x41);
	assert_int_equal(c.sm, 90); /* e_flags 0x06005a04: v8 layout */
	assert_int_equal(c.elf_type, 2);
	assert_int_equal(c.arch_specific, 1);
	assert_int_equal(c.family_specific, 0);
	assert_int_equal(c.size, len);
	free(b);
}

/* The cubins inside the committed fatbin: plain sm_80 and sm_100f. */
static void test_fatbin_cubins(void **state)
{
	size_t len;
	unsigned char *b = read_fixture("vecadd.fatbin", &len);
	struct es_cubin c;

	(void)state;
	assert_int_equal(parse(b + 0x50, 0x12e8, &c), 0);
	assert_int_equal(c.sm, 80);
	assert_int_equal(c.arch_specific, -1); /* no .nv.compat before sm_90 */
	assert_int_equal(c.family_specific, 0);
	assert_int_equal(c.size, 0x12e8);

	assert_int_equal(parse(b + 0x13a8, 0x21d8, &c), 0);
	assert_int_equal(c.sm, 100);
	assert_int_equal(c.arch_specific, 0);
	assert_int_equal(c.family_specific, 1);
	free(b);
}

/* The same e_flags mean different SMs under ABI v7 and v8. */
static void test_abi_layouts(void **state)
{
	unsigned char b[MINI_MAX];
	struct es_cubin c;
	size_t n;

	(void)state;
	n = mini_cubin(b, 7, 0x00500550, SHT_NOBITS_, NULL, 0);
	assert_int_equal(parse(b, n, &c), 0);
	assert_int_equal(c.abi_version, 7);
	assert_int_equal(c.osabi, 0x33);
	assert_int_equal(c.sm, 0x50);

	n = mini_cubin(b, 8, 0x06005004, SHT_NOBITS_, NULL, 0);
	assert_int_equal(parse(b, n, &c), 0);
	assert_int_equal(c.sm, 0x50);
	assert_int_equal(c.size, n);

	n = mini_cubin(b, 7, 0x06005004, SHT_NOBITS_, NULL, 0);
	assert_int_equal(parse(b, n, &c), 0);
	assert_int_equal(c.sm, 4);
	/* Neither a compat section nor a note: both facts unknown. */
	assert_int_equal(c.arch_specific, -1);
	assert_int_equal(c.family_specific, -1);
}

struct compat_case {
	const char *what;
	unsigned char bytes[20];
	size_t n;
	int want;
};

static const struct compat_case compat_cases[] = {
	{ "attr 9 set", { 2, 9, 1, 0 }, 4, 1 },
	{ "attr 9 clear", { 2, 9, 0, 0 }, 4, 0 },
	{ "after a u16 record", { 3, 7, 1, 1, 2, 9, 1, 0 }, 8, 1 },
	{ "after a sized record", { 4, 0x0b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 9, 1, 0 }, 16, 1 },
	{ "absent", { 2, 2, 1, 0, 2, 5, 5, 0 }, 8, 0 },
	{ "cut short", { 2, 2, 1, 0, 2, 9 }, 6, 0 },
	{ "sized record runs off", { 4, 0x0b, 0xff, 0xff, 2, 9, 1, 0 }, 8, 0 },
	{ "unknown record format", { 7, 9, 1, 0 }, 4, -1 },
};

static void test_compat_section(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(compat_cases); i++) {
		const struct compat_case *k = &compat_cases[i];
		unsigned char b[MINI_MAX];
		struct es_cubin c;
		size_t n = mini_cubin(b, 8, 0x06005a04, SHT_CUDA_COMPAT,
				      k->bytes, k->n);

		assert_int_equal(parse(b, n, &c), 0);
		if (c.arch_specific != k->want)
			fail_msg("%s: arch_specific %d, want %d", k->what,
				 c.arch_specific, k->want);
	}
}

static void test_note_family(void **state)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{ "-arch sm_100f -m 64 ", 1 },
		{ "-arch sm_100 -m 64 ", 0 },
		{ "-arch sm_100a -m 64 ", 0 },
		{ "sm_f", 0 },
		{ "x sm_9f", 1 },
		{ "-arch sm_100", 0 }, /* digits run to the end */
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		unsigned char b[MINI_MAX];
		struct es_cubin c;
		size_t n = mini_cubin(b, 8, 0x06006402, SHT_NOTE_, cases[i].text,
				      strlen(cases[i].text));

		assert_int_equal(parse(b, n, &c), 0);
		if (c.family_specific != cases[i].want)
			fail_msg("'%s': family_specific %d", cases[i].text,
				 c.family_specific);
	}
}

static void test_rejects(void **state)
{
	unsigned char b[MINI_MAX], bad[MINI_MAX];
	struct es_cubin c;
	size_t n;

	(void)state;
	n = mini_cubin(b, 8, 0x06005004, SHT_NOBITS_, NULL, 0);
	assert_int_equal(parse(b, 63, &c), -EBADMSG);
	memcpy(bad, b, n);
	bad[1] = 'X';
	assert_int_equal(parse(bad, n, &c), -EBADMSG);
	memcpy(bad, b, n);
	bad[4] = 1; /* ELFCLASS32 */
	assert_int_equal(parse(bad, n, &c), -EBADMSG);
	memcpy(bad, b, n);
	bad[5] = 2; /* big-endian */
	assert_int_equal(parse(bad, n, &c), -EBADMSG);
	memcpy(bad, b, n);
	put16(bad + 18, 62); /* EM_X86_64 */
	assert_int_equal(parse(bad, n, &c), -EBADMSG);
}

/* Offsets from the header that point anywhere are skipped, not followed. */
static void test_wild_offsets(void **state)
{
	static const unsigned char compat[4] = { 2, 9, 1, 0 };
	unsigned char b[MINI_MAX], bad[MINI_MAX];
	struct es_cubin c;
	size_t n;

	(void)state;
	n = mini_cubin(b, 8, 0x06005a04, SHT_CUDA_COMPAT, compat, 4);
	memcpy(bad, b, n);
	put64(bad + 0x28, n); /* section table just past the end */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.sm, 90);
	assert_int_equal(c.arch_specific, -1);
	put64(bad + 0x28, 0xffffffffffffffc0ull); /* offset + size wraps */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
	memcpy(bad, b, n);
	put16(bad + 0x3c, 0xffff); /* too many sections */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
	memcpy(bad, b, n);
	put16(bad + 0x3a, 32); /* section headers too small to read */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
	memcpy(bad, b, n);
	put64(bad + n - 64 + 0x18, 0xfffffffffffffffcull); /* data wraps */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
	memcpy(bad, b, n);
	put64(bad + n - 64 + 0x20, 0x10000); /* data runs off */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
	memcpy(bad, b, n);
	put32(bad + n - 64 + 4, SHT_NOBITS_); /* no bytes in the file */
	assert_int_equal(parse(bad, n, &c), 0);
	assert_int_equal(c.arch_specific, -1);
}

/* Every prefix of a real cubin parses or is refused, without overreads. */
static void test_truncations(void **state)
{
	size_t len, n;
	unsigned char *b = read_fixture("vecadd-sm90a.cubin", &len);

	(void)state;
	for (n = 0; n <= len; n++) {
		struct es_cubin c;
		int rc = parse(b, n, &c);

		if (n < 64)
			assert_int_equal(rc, -EBADMSG);
		else if (rc != 0 || c.sm != 90)
			fail_msg("cut at %zu: rc %d sm %u", n, rc, c.sm);
	}
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_committed_cubin),
		cmocka_unit_test(test_fatbin_cubins),
		cmocka_unit_test(test_abi_layouts),
		cmocka_unit_test(test_compat_section),
		cmocka_unit_test(test_note_family),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_wild_offsets),
		cmocka_unit_test(test_truncations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

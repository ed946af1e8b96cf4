/*
 * Shared by the unit tests: reading committed fixtures, little-endian
 * pokes for corrupting one field of a good file, exact-size copies (so
 * that a sanitizer build sees any read past the end of the input),
 * problem look-ups and builders for crafted fatbin headers. Everything is static inline so that each test uses
 * what it needs without unused-function warnings.
 *
 * Tests run from the repository root; CUDATRACE_SRCDIR overrides that.
 */
#ifndef CT_TEST_HELPERS_H
#define CT_TEST_HELPERS_H

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfscan.h"
#include "internal.h"

#define FIXTURE_DIR "tests/fixtures/committed"
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static inline const char *srcdir(void)
{
	const char *d = getenv("CUDATRACE_SRCDIR");

	return d && *d ? d : ".";
}

/* The path of a committed fixture, malloc'd. */
static inline char *fixture_path(const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s/%s", srcdir(), FIXTURE_DIR, name) > 0);
	return p;
}

/* A whole committed fixture in a buffer of exactly its size; free() it. */
static inline unsigned char *read_fixture(const char *name, size_t *len)
{
	char *path = fixture_path(name);
	FILE *fp = fopen(path, "rb");
	struct stat st;
	unsigned char *buf;

	if (!fp)
		fail_msg("cannot open '%s': %s (set CUDATRACE_SRCDIR?)", path,
			 strerror(errno));
	assert_int_equal(fstat(fileno(fp), &st), 0);
	assert_true(st.st_size > 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, fp), *len);
	fclose(fp);
	free(path);
	return buf;
}

/* A malloc'd copy of exactly len bytes: ASan flags a read one past it. */
static inline unsigned char *copy_exact(const void *buf, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);

	assert_non_null(p);
	if (len)
		memcpy(p, buf, len);
	return p;
}

static inline void put16(unsigned char *p, uint64_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void put32(unsigned char *p, uint64_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static inline void put_le(unsigned char *p, unsigned width, uint64_t v)
{
	if (width == 2)
		put16(p, v);
	else if (width == 4)
		put32(p, v);
	else
		put64(p, v);
}

static inline uint64_t get_le(const unsigned char *p, unsigned width)
{
	uint64_t v = 0;

	while (width--)
		v = (v << 8) | p[width];
	return v;
}

/*
 * A scan of a private exact-size copy of some bytes. The copy must outlive
 * the elfscan_file (images point into it), so both travel together.
 */
struct scanned {
	struct elfscan_file f;
	unsigned char *copy;
	int rc;
};

static inline void scanned_open(struct scanned *s, const void *buf, size_t len,
				const struct elfscan_options *opt)
{
	s->copy = copy_exact(buf, len);
	elfscan_file_init(&s->f);
	s->rc = elfscan_scan_buffer(&s->f, s->copy, len, opt);
}

static inline void scanned_close(struct scanned *s)
{
	elfscan_file_release(&s->f);
	free(s->copy);
	s->copy = NULL;
}

static inline size_t count_problems(const struct elfscan_file *f,
				    enum elfscan_problem_code code)
{
	size_t i, n = 0;

	for (i = 0; i < f->nproblems; i++)
		n += f->problems[i].code == code;
	return n;
}

/* The first problem with this code, or NULL. */
static inline const struct elfscan_problem *
find_problem(const struct elfscan_file *f, enum elfscan_problem_code code)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++)
		if (f->problems[i].code == code)
			return &f->problems[i];
	return NULL;
}

/* Print what the scanner said, so that a failing assertion has context. */
static inline void print_problems(const struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++) {
		char text[256];

		print_message("  problem %s: %s\n",
			      elfscan_problem_id(f->problems[i].code),
			      elfscan_problem_describe(f, &f->problems[i], text,
						       sizeof(text)));
	}
}

static inline void assert_has_problem(const struct elfscan_file *f,
				      enum elfscan_problem_code code)
{
	if (!find_problem(f, code)) {
		print_problems(f);
		fail_msg("expected problem %s", elfscan_problem_id(code));
	}
}

/* Entry header fields (reference/fatbin.md 2.2). */
enum {
	E_KIND = 0x00, E_HVER = 0x02, E_HSIZE = 0x04, E_PADDED = 0x08,
	E_CSIZE = 0x10, E_OPTS = 0x14, E_MINOR = 0x18, E_MAJOR = 0x1a,
	E_ARCH = 0x1c, E_IDENT_OFF = 0x20, E_IDENT_LEN = 0x24, E_FLAGS = 0x28,
	E_USIZE = 0x38,
};

/* A valid uncompressed SASS sm_80 entry header of hs bytes. */
static inline void entry_init(unsigned char *e, unsigned hs, uint64_t padded)
{
	memset(e, 0, hs);
	put16(e + E_KIND, ELFSCAN_KIND_SASS);
	put16(e + E_HVER, 0x0101);
	put32(e + E_HSIZE, hs);
	put64(e + E_PADDED, padded);
	put16(e + E_MINOR, 8);
	put16(e + E_MAJOR, 1);
	put32(e + E_ARCH, 80);
	put64(e + E_FLAGS, ELFSCAN_FLAG_64BIT | ELFSCAN_FLAG_HOST_LINUX);
}

/* A container header for body bytes of entries. */
static inline void container_init(unsigned char *c, uint64_t body)
{
	put32(c, FATBIN_MAGIC);
	put16(c + 4, 1);
	put16(c + 6, FATBIN_CONTAINER_HEADER);
	put64(c + 8, body);
}

#endif

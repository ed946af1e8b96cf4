/*
 * cudatrace's zip reader (cli/common/zip.c). Good archives are built here
 * byte by byte (stored, deflated, ZIP64, data descriptors, empty, a
 * comment at the end) and by Python's zipfile when python3 is there; bad
 * ones by changing one field of a good one at a time, by cutting one
 * short at every length and by flipping every byte: the archive is refused
 * as a whole, or the member alone with its reason while the others read.
 * Offsets past 4 GiB come from a sparse file, a member of more than 4 GiB
 * unpacked from a deflate stream made of repeated blocks.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "helpers.h"
#include "zip.h"

#define MAXM 4

struct spec {
	const char *name;
	const unsigned char *data; /* unpacked */
	size_t len;
	int method;       /* 0 stored, 8 deflated */
	bool zip64;       /* sizes and offset in zip64 extra fields */
	bool descriptor;  /* flag bit 3: a data descriptor after the data */
	/* Already packed (method 8), with its unpacked size and CRC-32. */
	const unsigned char *packed;
	size_t packed_len;
	uint64_t size;
	uint32_t crc;
};

/* An archive and where its records are, to change one field at a time. */
struct built {
	unsigned char *p;
	size_t len, cap;
	size_t n;
	size_t local[MAXM], data[MAXM], cdir[MAXM], end, end64, locator;
	bool has64;
};

static void grow(struct built *b, size_t more)
{
	if (b->len + more > b->cap) {
		b->cap = (b->len + more) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
}

static void add(struct built *b, const void *p, size_t n)
{
	grow(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void add_le(struct built *b, uint64_t v, unsigned width)
{
	grow(b, width);
	put_le(b->p + b->len, width, v);
	b->len += width;
}

/* Raw deflate, as zip has it; to free. */
static unsigned char *deflate_raw(const unsigned char *in, size_t len, size_t *out_len)
{
	z_stream s;
	unsigned char *out;
	size_t cap;

	memset(&s, 0, sizeof(s));
	assert_int_equal(deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	cap = deflateBound(&s, len) + 16;
	out = malloc(cap);
	assert_non_null(out);
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)len;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
	*out_len = s.total_out;
	deflateEnd(&s);
	return out;
}

static void build(struct built *b, const struct spec *m, size_t n, bool end64,
		  const char *comment)
{
	unsigned char *packed[MAXM] = { 0 };
	size_t plen[MAXM], cd_start, cd_len, k;
	uint64_t size[MAXM];
	uint32_t crc[MAXM];

	assert_true(n <= MAXM);
	memset(b, 0, sizeof(*b));
	b->n = n;
	for (k = 0; k < n; k++) {
		const struct spec *s = &m[k];
		const unsigned char *data;
		unsigned flags = s->descriptor ? 8 : 0;
		uint64_t usize, csize;

		if (s->packed) {
			data = s->packed;
			plen[k] = s->packed_len;
			size[k] = s->size;
			crc[k] = s->crc;
		} else {
			if (s->method == 8)
				packed[k] = deflate_raw(s->data, s->len, &plen[k]);
			else
				plen[k] = s->len;
			data = packed[k] ? packed[k] : s->data;
			size[k] = s->len;
			crc[k] = (uint32_t)crc32(0, s->data, (uInt)s->len);
		}
		usize = s->zip64 ? 0xffffffff : size[k];
		csize = s->zip64 ? 0xffffffff : plen[k];
		b->local[k] = b->len;
		add_le(b, 0x04034b50, 4);
		add_le(b, s->zip64 ? 45 : 20, 2);
		add_le(b, flags, 2);
		add_le(b, (unsigned)s->method, 2);
		add_le(b, 0, 4); /* time, date */
		add_le(b, s->descriptor ? 0 : crc[k], 4);
		add_le(b, s->descriptor ? 0 : csize, 4);
		add_le(b, s->descriptor ? 0 : usize, 4);
		add_le(b, strlen(s->name), 2);
		add_le(b, s->zip64 ? 20 : 0, 2);
		add(b, s->name, strlen(s->name));
		if (s->zip64) {
			add_le(b, 1, 2);
			add_le(b, 16, 2);
			add_le(b, size[k], 8);
			add_le(b, plen[k], 8);
		}
		b->data[k] = b->len;
		add(b, data, plen[k]);
		if (s->descriptor) {
			add_le(b, 0x08074b50, 4);
			add_le(b, crc[k], 4);
			add_le(b, plen[k], s->zip64 ? 8 : 4);
			add_le(b, size[k], s->zip64 ? 8 : 4);
		}
	}
	cd_start = b->len;
	for (k = 0; k < n; k++) {
		const struct spec *s = &m[k];

		b->cdir[k] = b->len;
		add_le(b, 0x02014b50, 4);
		add_le(b, 0x031e, 2);
		add_le(b, s->zip64 ? 45 : 20, 2);
		add_le(b, s->descriptor ? 8 : 0, 2);
		add_le(b, (unsigned)s->method, 2);
		add_le(b, 0, 4);
		add_le(b, crc[k], 4);
		add_le(b, s->zip64 ? 0xffffffff : plen[k], 4);
		add_le(b, s->zip64 ? 0xffffffff : size[k], 4);
		add_le(b, strlen(s->name), 2);
		add_le(b, s->zip64 ? 28 : 0, 2);
		add_le(b, 0, 2); /* comment */
		add_le(b, 0, 2); /* disk */
		add_le(b, 0, 2);
		add_le(b, 0, 4);
		add_le(b, s->zip64 ? 0xffffffff : b->local[k], 4);
		add(b, s->name, strlen(s->name));
		if (s->zip64) {
			add_le(b, 1, 2);
			add_le(b, 24, 2);
			add_le(b, size[k], 8);
			add_le(b, plen[k], 8);
			add_le(b, b->local[k], 8);
		}
		free(packed[k]);
	}
	cd_len = b->len - cd_start;
	b->has64 = end64;
	if (end64) {
		b->end64 = b->len;
		add_le(b, 0x06064b50, 4);
		add_le(b, 44, 8);
		add_le(b, 45, 2);
		add_le(b, 45, 2);
		add_le(b, 0, 4);
		add_le(b, 0, 4);
		add_le(b, n, 8);
		add_le(b, n, 8);
		add_le(b, cd_len, 8);
		add_le(b, cd_start, 8);
		b->locator = b->len;
		add_le(b, 0x07064b50, 4);
		add_le(b, 0, 4);
		add_le(b, b->end64, 8);
		add_le(b, 1, 4);
	}
	b->end = b->len;
	add_le(b, 0x06054b50, 4);
	add_le(b, 0, 2);
	add_le(b, 0, 2);
	add_le(b, end64 ? 0xffff : n, 2);
	add_le(b, end64 ? 0xffff : n, 2);
	add_le(b, end64 ? 0xffffffff : cd_len, 4);
	add_le(b, end64 ? 0xffffffff : cd_start, 4);
	add_le(b, comment ? strlen(comment) : 0, 2);
	if (comment)
		add(b, comment, strlen(comment));
}

/* Text-like bytes, as Python writes them in test_python_made: deflate has work. */
static unsigned char *pattern(size_t n)
{
	unsigned char *p = malloc(n ? n : 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 31 + (i >> 7)) & 0xff);
	return p;
}

/* Member i whole, in pieces of step bytes: 0, or the error with why. */
static int read_whole(const struct ct_zip *z, size_t i, unsigned char **out, size_t step,
		      char *why, size_t size)
{
	struct ct_zip_file f;
	unsigned char *buf;
	uint64_t total = z->members[i].size, at = 0;
	int rc;

	*out = NULL;
	if ((rc = ct_zip_file_open(&f, z, i, why, size)) < 0)
		return rc;
	buf = malloc(total ? (size_t)total : 1);
	assert_non_null(buf);
	while (at < total) {
		ssize_t got = ct_zip_file_read(&f, buf + at, step, why, size);

		if (got < 0) {
			ct_zip_file_close(&f);
			free(buf);
			return (int)got;
		}
		assert_true(got > 0);
		at += (uint64_t)got;
	}
	/* At the end: nothing more. */
	assert_int_equal(ct_zip_file_read(&f, buf, 1, why, size), 0);
	ct_zip_file_close(&f);
	*out = buf;
	return 0;
}

static void assert_reads(const struct ct_zip *z, size_t i, const void *want, size_t len)
{
	static const size_t steps[] = { 1 << 30, 7, 4096 };
	char why[256] = "";
	size_t k;

	assert_int_equal(z->members[i].size, len);
	for (k = 0; k < ARRAY_LEN(steps); k++) {
		unsigned char *got;
		int rc = read_whole(z, i, &got, steps[k], why, sizeof(why));

		if (rc)
			fail_msg("member %zu: %s", i, why);
		assert_memory_equal(got, want, len);
		free(got);
	}
}

/* The archive's members: alpha.txt stored, beta.bin deflated, gamma.so deflated. */
struct good {
	unsigned char *a, *g;
	struct spec s[3];
};

static void good_specs(struct good *g, bool zip64, bool descriptor)
{
	static const char beta[] = "\177ELF beta, deflated, short";

	g->a = pattern(3000);
	g->g = pattern(100000);
	g->s[0] = (struct spec){ "alpha.txt", g->a, 3000, 0, zip64, descriptor, 0, 0, 0, 0 };
	g->s[1] = (struct spec){ "pkg/beta.bin", (const unsigned char *)beta, sizeof(beta), 8,
				 zip64, descriptor, 0, 0, 0, 0 };
	g->s[2] = (struct spec){ "pkg/gamma.so", g->g, 100000, 8, zip64, descriptor, 0, 0, 0, 0 };
}

static void good_free(struct good *g)
{
	free(g->a);
	free(g->g);
}

static void assert_good(const unsigned char *p, size_t len, const struct good *g)
{
	struct ct_zip z;
	char why[256] = "";
	size_t k;

	if (ct_zip_open_buffer(&z, p, len, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	assert_int_equal(z.n, 3);
	for (k = 0; k < 3; k++) {
		assert_string_equal(z.members[k].name, g->s[k].name);
		assert_reads(&z, k, g->s[k].data, g->s[k].len);
	}
	ct_zip_close(&z);
}

static void test_stored_and_deflated(void **state)
{
	struct good g;
	struct built b;
	unsigned char *exact;

	(void)state;
	good_specs(&g, false, false);
	build(&b, g.s, 3, false, NULL);
	exact = copy_exact(b.p, b.len);
	assert_good(exact, b.len, &g);
	free(exact);
	free(b.p);
	good_free(&g);
}

static void test_zip64(void **state)
{
	struct good g;
	struct built b;
	struct ct_zip z;
	char why[256];

	(void)state;
	good_specs(&g, true, false);
	build(&b, g.s, 3, true, NULL);
	assert_good(b.p, b.len, &g);
	/* The zip64 end record governs: the 0xffff count is not taken. */
	assert_int_equal(ct_zip_open_buffer(&z, b.p, b.len, why, sizeof(why)), 0);
	assert_int_equal(z.n, 3);
	assert_int_equal(z.members[2].stored, b.cdir[0] - b.data[2]);
	ct_zip_close(&z);
	free(b.p);
	good_free(&g);
}

static void test_descriptors(void **state)
{
	struct good g;
	struct built b;
	int zip64;

	(void)state;
	for (zip64 = 0; zip64 <= 1; zip64++) {
		good_specs(&g, zip64, true);
		build(&b, g.s, 3, zip64, NULL);
		assert_good(b.p, b.len, &g);
		free(b.p);
		good_free(&g);
	}
	/* Without the descriptor's signature, as the format allows. */
	good_specs(&g, false, true);
	build(&b, g.s, 1, false, NULL);
	memmove(b.p + b.data[0] + 3000, b.p + b.data[0] + 3004, b.len - b.data[0] - 3004);
	b.len -= 4;
	/* The directory moved 4 bytes nearer. */
	put32(b.p + b.len - 22 + 16, b.cdir[0] - 4);
	{
		struct ct_zip z;
		char why[256];

		assert_int_equal(ct_zip_open_buffer(&z, b.p, b.len, why, sizeof(why)), 0);
		assert_reads(&z, 0, g.a, 3000);
		ct_zip_close(&z);
	}
	free(b.p);
	good_free(&g);
}

static void test_empty_and_comment(void **state)
{
	static const unsigned char empty[22] = { 'P', 'K', 5, 6 };
	struct ct_zip z;
	struct good g;
	struct built b;
	char why[256];
	unsigned char *p;

	(void)state;
	assert_int_equal(ct_zip_open_buffer(&z, empty, sizeof(empty), why, sizeof(why)), 0);
	assert_int_equal(z.n, 0);
	ct_zip_close(&z);

	/* A comment holding an end record's signature: the real one is found. */
	good_specs(&g, false, false);
	build(&b, g.s, 3, false, "a comment: PK\005\006 and more");
	assert_good(b.p, b.len, &g);
	/* Bytes after the comment, as some tools leave: still read. */
	p = malloc(b.len + 5);
	assert_non_null(p);
	memcpy(p, b.p, b.len);
	memcpy(p + b.len, "junk!", 5);
	assert_good(p, b.len + 5, &g);
	free(p);
	/* The longest comment there can be. */
	{
		char *c = malloc(0xffff + 1);

		assert_non_null(c);
		memset(c, 'c', 0xffff);
		c[0xffff] = '\0';
		free(b.p);
		build(&b, g.s, 3, false, c);
		assert_good(b.p, b.len, &g);
		free(c);
	}
	free(b.p);
	good_free(&g);
}

/* One field changed: what opening or reading says. */
struct change {
	const char *what;
	int record;     /* L local header, C directory entry, D data, E end record,
			   6 zip64 end record, l zip64 locator */
	int member;
	size_t at;      /* offset in that record */
	unsigned width;
	int op;         /* '=' set, '^' xor, '+' add */
	int64_t value;
	const char *open_error;   /* the archive refused, saying this */
	const char *member_error; /* else the member refused or failing, saying this */
	int also;       /* another member (index + 1) failing the same way */
};

static size_t where(const struct built *b, const struct change *c)
{
	switch (c->record) {
	case 'L': return b->local[c->member] + c->at;
	case 'C': return b->cdir[c->member] + c->at;
	case 'D': return b->data[c->member] + c->at;
	case 'E': return b->end + c->at;
	case '6': return b->end64 + c->at;
	case 'l': return b->locator + c->at;
	}
	fail_msg("record '%c'", c->record);
	return 0;
}

static void apply(struct built *b, const struct change *c)
{
	unsigned char *p = b->p + where(b, c);
	uint64_t v = get_le(p, c->width);

	if (c->op == '^')
		v ^= (uint64_t)c->value;
	else if (c->op == '+')
		v += (uint64_t)c->value;
	else
		v = (uint64_t)c->value;
	put_le(p, c->width, v);
}

static void check_change(const struct change *c, bool zip64, bool descriptor)
{
	struct good g;
	struct built b;
	struct ct_zip z;
	char why[256] = "";
	unsigned char *exact, *got;
	size_t k;
	int rc;

	good_specs(&g, zip64, descriptor);
	build(&b, g.s, 3, zip64, NULL);
	apply(&b, c);
	exact = copy_exact(b.p, b.len);
	rc = ct_zip_open_buffer(&z, exact, b.len, why, sizeof(why));
	if (c->open_error) {
		if (rc == 0)
			fail_msg("%s: opened", c->what);
		if (!strstr(why, c->open_error))
			fail_msg("%s: '%s', not '%s'", c->what, why, c->open_error);
		goto out;
	}
	if (rc != 0)
		fail_msg("%s: not opened: %s", c->what, why);
	for (k = 0; k < z.n; k++) {
		rc = read_whole(&z, k, &got, 1 << 20, why, sizeof(why));
		if (c->member_error && ((int)k == c->member || (int)k + 1 == c->also)) {
			if (rc == 0)
				fail_msg("%s: member %zu read", c->what, k);
			if (!strstr(why, c->member_error))
				fail_msg("%s: '%s', not '%s'", c->what, why, c->member_error);
			continue;
		}
		/* The others are still read, whole and right. */
		if (rc != 0)
			fail_msg("%s: member %zu: %s", c->what, k, why);
		assert_memory_equal(got, g.s[k].data, g.s[k].len);
		free(got);
	}
	ct_zip_close(&z);
out:
	free(exact);
	free(b.p);
	good_free(&g);
}

#define OPEN(w, r, m, a, wd, o, v, e) \
	{ .what = w, .record = r, .member = m, .at = a, .width = wd, .op = o, .value = v, .open_error = e }
#define MEMBER(w, r, m, a, wd, o, v, e) \
	{ .what = w, .record = r, .member = m, .at = a, .width = wd, .op = o, .value = v, .member_error = e }

static const struct change changes[] = {
	OPEN("end record's signature", 'E', 0, 0, 4, '^', 1, "no end of central directory record"),
	OPEN("end record: disk 1", 'E', 0, 4, 2, '=', 1, "split over several disks"),
	OPEN("end record: the directory's disk", 'E', 0, 6, 2, '=', 1, "split over several disks"),
	OPEN("end record: members on this disk", 'E', 0, 8, 2, '=', 2, "split over several disks"),
	OPEN("end record: a member more", 'E', 0, 8, 4, '=', 0x00040004, "more than its central directory"),
	OPEN("end record: directory past the end", 'E', 0, 12, 4, '=', 0x7fffffff, "is not inside the archive"),
	OPEN("end record: directory offset", 'E', 0, 16, 4, '+', -1, "central directory entry 1 of 3 is damaged"),
	OPEN("end record: comment longer than the file", 'E', 0, 20, 2, '=', 100, "no end of central directory record"),
	OPEN("directory entry's signature", 'C', 1, 0, 4, '^', 1, "central directory entry 2 of 3 is damaged"),
	OPEN("directory: name length past the directory", 'C', 2, 28, 2, '=', 0xfff0, "runs past the directory"),
	MEMBER("directory: encrypted", 'C', 0, 8, 2, '=', 1, "encrypted"),
	MEMBER("directory: strong encryption", 'C', 1, 8, 2, '=', 0x40, "encrypted"),
	MEMBER("directory: AES (method 99)", 'C', 1, 10, 2, '=', 99, "encrypted"),
	MEMBER("directory: bzip2", 'C', 1, 10, 2, '=', 12, "compressed with bzip2 (method 12)"),
	MEMBER("directory: method 77", 'C', 2, 10, 2, '=', 77, "an unknown method (method 77)"),
	MEMBER("directory: patch data", 'C', 2, 8, 2, '=', 0x20, "patch data"),
	MEMBER("directory: CRC-32", 'C', 2, 16, 4, '^', 1, "disagree on its CRC-32 or sizes"),
	MEMBER("directory: stored sizes differ", 'C', 0, 24, 4, '=', 2999, "stored, yet its sizes differ"),
	MEMBER("directory: packed size", 'C', 1, 20, 4, '+', 1, "disagree on its CRC-32 or sizes"),
	MEMBER("directory: unpacked size", 'C', 2, 24, 4, '+', 1, "disagree on its CRC-32 or sizes"),
	MEMBER("directory: local header in the directory", 'C', 2, 42, 4, '=', 0x7ffffff0,
	       "not before the central directory"),
	MEMBER("directory: disk 1", 'C', 1, 34, 2, '=', 1, "another disk"),
	MEMBER("directory: a name with a NUL", 'C', 1, 46 + 3, 1, '=', 0, "holds a NUL byte"),
	MEMBER("local header's signature", 'L', 1, 0, 4, '^', 1, "no local header at offset"),
	MEMBER("local header: another name", 'L', 2, 30 + 4, 1, '=', 'X', "names another file"),
	MEMBER("local header: a longer name", 'L', 2, 26, 2, '=', 13, "names another file"),
	MEMBER("local header: another method", 'L', 1, 8, 2, '=', 0, "disagree on its compression method"),
	MEMBER("local header: encrypted", 'L', 0, 6, 2, '=', 1, "encrypted"),
	MEMBER("local header: CRC-32", 'L', 2, 14, 4, '^', 1, "disagree on its CRC-32 or sizes"),
	MEMBER("local header: packed size", 'L', 2, 18, 4, '^', 1, "disagree on its CRC-32 or sizes"),
	MEMBER("local header: extra field into the next member", 'L', 1, 28, 2, '=', 0xffff,
	       "runs into the next member"),
	MEMBER("local header: extra field past the data", 'L', 2, 28, 2, '=', 0xffff,
	       "runs past the archive's data"),
	MEMBER("stored data changed", 'D', 0, 100, 1, '^', 1, "CRC-32 mismatch"),
	MEMBER("deflate data changed", 'D', 2, 0, 1, '^', 0x06, "damaged"),
	MEMBER("deflate block type reserved", 'D', 1, 0, 1, '=', 0x06, "bad deflate data"),
	/* Two members at one offset: neither is read (a zip bomb's trick). */
	{ .what = "directory: a shared local header", .record = 'C', .member = 2, .at = 42, .width = 4,
	  .op = '=', .value = 0, .member_error = "another member's too", .also = 1 },
	/* A member fewer counted: the others are read. */
	OPEN("end record: a member fewer", 'E', 0, 8, 4, '=', 0x00020002, NULL),
};

static void test_one_field(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_LEN(changes); k++)
		check_change(&changes[k], false, false);
}

/* The same record fields of a ZIP64 archive, and its own records. */
static const struct change changes64[] = {
	OPEN("zip64 end record's signature", '6', 0, 0, 4, '^', 1, "no zip64 end record at offset"),
	OPEN("zip64 end record: disk 1", '6', 0, 16, 4, '=', 1, "split over several disks"),
	OPEN("zip64 end record: a member more", '6', 0, 32, 8, '=', 4, "split over several disks"),
	OPEN("zip64 end record: directory size", '6', 0, 40, 8, '=', INT64_C(1) << 62,
	     "is not inside the archive"),
	OPEN("zip64 end record: directory offset", '6', 0, 48, 8, '+', -1, "is damaged"),
	OPEN("zip64 locator: offset past it", 'l', 0, 8, 8, '=', INT64_C(1) << 40, "is past its locator"),
	OPEN("zip64 locator: offset", 'l', 0, 8, 8, '+', -1, "no zip64 end record at offset"),
	OPEN("zip64 locator: disks", 'l', 0, 16, 4, '=', 2, "split over several disks"),
	MEMBER("zip64 extra: another id", 'C', 1, 46 + 12, 2, '=', 0x5455, "zip64 extra field it lacks"),
	MEMBER("zip64 extra: too short", 'C', 2, 46 + 12 + 2, 2, '=', 16, "zip64 extra field it lacks"),
	MEMBER("zip64 extra: unpacked size larger", 'C', 2, 46 + 12 + 4, 8, '=', 100001,
	       "inflates to 100000 bytes, fewer than the 100001 declared"),
	MEMBER("zip64 extra: unpacked size smaller", 'C', 2, 46 + 12 + 4, 8, '=', 99999,
	       "more than its declared 99999 bytes"),
	MEMBER("zip64 extra: packed size into the next member", 'C', 1, 46 + 12 + 12, 8, '=', 100000,
	       "runs into the next member"),
	MEMBER("zip64 extra: packed size past the data", 'C', 2, 46 + 12 + 12, 8, '=', INT64_C(1) << 40,
	       "runs past the archive's data"),
	MEMBER("zip64 extra: offset", 'C', 1, 46 + 12 + 20, 8, '=', INT64_C(1) << 40,
	       "not before the central directory"),
	{ .what = "zip64 extra: a shared offset", .record = 'C', .member = 1, .at = 46 + 12 + 20,
	  .width = 8, .op = '=', .value = 0, .member_error = "another member's too", .also = 1 },
};

static void test_one_field_zip64(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_LEN(changes64); k++)
		check_change(&changes64[k], true, false);
}

/* Data descriptors must agree with the directory. */
static void test_descriptor_disagrees(void **state)
{
	static const struct change c[] = {
		MEMBER("descriptor's CRC-32", 'D', 0, 3000 + 4, 4, '^', 1,
		       "data descriptor is missing or disagrees"),
		MEMBER("descriptor's size", 'D', 0, 3000 + 12, 4, '^', 1,
		       "data descriptor is missing or disagrees"),
		MEMBER("descriptor's signature", 'D', 0, 3000, 4, '^', 1,
		       "data descriptor is missing or disagrees"),
		MEMBER("directory's CRC-32", 'C', 2, 16, 4, '^', 1,
		       "data descriptor is missing or disagrees"),
		/* With a descriptor, the local header's values are not the directory's. */
		OPEN("local header's CRC-32", 'L', 2, 14, 4, '^', 1, NULL),
	};
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_LEN(c); k++)
		check_change(&c[k], false, true);
}

/*
 * Every length cut short and every byte flipped: no crash, no read past
 * the input (a sanitizer build sees one), and whatever opens reads to an
 * answer.
 */
static void test_every_byte(void **state)
{
	struct good g;
	struct built b;
	unsigned char *p;
	size_t len, k, i;
	int zip64;

	(void)state;
	for (zip64 = 0; zip64 <= 1; zip64++) {
		unsigned char small[64];

		good_specs(&g, zip64, zip64);
		/* Small members, so that every byte is a header's or near one. */
		memcpy(small, "\177ELF small member, deflated", 28);
		g.s[1].data = small;
		g.s[1].len = 28;
		g.s[2].data = g.a;
		g.s[2].len = 200;
		g.s[0].len = 100;
		build(&b, g.s, 3, zip64, "c");
		for (len = 0; len <= b.len * 2; len++) {
			struct ct_zip z;
			char why[256];
			bool cut = len <= b.len;

			p = copy_exact(b.p, cut ? len : b.len);
			if (!cut)
				p[len - b.len - 1] ^= 0xff;
			if (ct_zip_open_buffer(&z, p, cut ? len : b.len, why, sizeof(why)) == 0) {
				for (k = 0; k < z.n; k++) {
					unsigned char *got;

					/* Bounded by the declared size: a flipped size is not read. */
					if (z.members[k].size > (1 << 20))
						continue;
					if (read_whole(&z, k, &got, 13, why, sizeof(why)) == 0)
						free(got);
				}
				ct_zip_close(&z);
			} else {
				assert_true(why[0] != '\0');
			}
			free(p);
		}
		/* Cut short anywhere but in the comment: refused whole, or members fail. */
		for (i = 0; i < b.end; i++) {
			struct ct_zip z;
			char why[256];

			assert_int_not_equal(ct_zip_open_buffer(&z, b.p, i, why, sizeof(why)), 0);
		}
		free(b.p);
		good_free(&g);
	}
}

/* A temporary file holding len bytes at each offset given; its descriptor. */
static int temp_file(char *path, size_t size)
{
	int fd;

	snprintf(path, size, "/tmp/ct-zip.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	return fd;
}

static void pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	assert_int_equal(pwrite(fd, p, n, (off_t)off), (ssize_t)n);
}

/*
 * Offsets past 4 GiB, as in torch's wheels: the last member's local header
 * and the directory 5 GiB into a sparse file, read through a descriptor.
 */
static void test_beyond_4gib(void **state)
{
	const uint64_t gap = (uint64_t)5 << 30;
	struct good g;
	struct built b;
	struct ct_zip z;
	char path[64], why[256];
	size_t k;
	int fd;

	(void)state;
	good_specs(&g, true, false);
	build(&b, g.s, 3, true, NULL);
	/* The zip64 fields that count from the start, moved by the gap. */
	put64(b.p + b.cdir[2] + 46 + 12 + 4 + 16, b.local[2] + gap);
	put64(b.p + b.end64 + 48, get_le(b.p + b.end64 + 48, 8) + gap);
	put64(b.p + b.locator + 8, b.end64 + gap);
	fd = temp_file(path, sizeof(path));
	pwrite_all(fd, b.p, b.local[2], 0);
	pwrite_all(fd, b.p + b.local[2], b.len - b.local[2], b.local[2] + gap);
	if (ct_zip_open_fd(&z, fd, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	assert_int_equal(z.n, 3);
	assert_int_equal(z.members[2].offset, b.local[2] + gap);
	for (k = 0; k < 3; k++)
		assert_reads(&z, k, g.s[k].data, g.s[k].len);
	ct_zip_close(&z);
	close(fd);
	unlink(path);
	free(b.p);
	good_free(&g);
}

/*
 * A member of more than 4 GiB unpacked (NVIDIA's wheels hold such): zeros,
 * as one deflate block sequence repeated, read in pieces, its CRC-32
 * checked at the end. (One byte more or less declared: changes64.)
 */
static void test_member_over_4gib(void **state)
{
	const size_t mib = 1 << 20, reps = 4097; /* 4 GiB and 1 MiB */
	unsigned char *zeros = calloc(1, mib), *seg, *packed, *buf;
	z_stream s;
	size_t seg_len, seg_cap, total, k;
	uint32_t crc1, crc = 0;
	struct spec sp[1];
	struct built b;
	struct ct_zip z;
	struct ct_zip_file f;
	char why[256] = "";
	uint64_t at = 0;
	ssize_t got;

	(void)state;
	assert_non_null(zeros);
	/* One MiB of zeros, then a full flush: the next block starts afresh. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(deflateInit2(&s, 1, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	seg_cap = deflateBound(&s, mib) + 64;
	seg = malloc(seg_cap);
	assert_non_null(seg);
	s.next_in = zeros;
	s.avail_in = (uInt)mib;
	s.next_out = seg;
	s.avail_out = (uInt)seg_cap;
	assert_int_equal(deflate(&s, Z_FULL_FLUSH), Z_OK);
	assert_int_equal(s.avail_in, 0);
	seg_len = s.total_out;
	deflateEnd(&s);
	/* reps segments, then an empty final block (fixed Huffman: 03 00). */
	total = seg_len * reps + 2;
	packed = malloc(total);
	assert_non_null(packed);
	for (k = 0; k < reps; k++)
		memcpy(packed + k * seg_len, seg, seg_len);
	packed[total - 2] = 0x03;
	packed[total - 1] = 0x00;
	crc1 = (uint32_t)crc32(0, zeros, (uInt)mib);
	for (k = 0; k < reps; k++)
		crc = (uint32_t)crc32_combine(crc, crc1, (z_off_t)mib);
	sp[0] = (struct spec){ "nvidia/big.so", NULL, 0, 8, true, false, packed, total,
			       (uint64_t)reps * mib, crc };
	build(&b, sp, 1, true, NULL);
	assert_int_equal(ct_zip_open_buffer(&z, b.p, b.len, why, sizeof(why)), 0);
	assert_int_equal(z.members[0].size, (uint64_t)reps * mib);
	assert_int_equal(ct_zip_file_open(&f, &z, 0, why, sizeof(why)), 0);
	buf = malloc(64 * mib);
	assert_non_null(buf);
	while ((got = ct_zip_file_read(&f, buf, 64 * mib, why, sizeof(why))) > 0) {
		assert_int_equal(buf[got - 1], 0);
		at += (uint64_t)got;
	}
	if (got < 0)
		fail_msg("%s", why);
	assert_int_equal(at, (uint64_t)reps * mib);
	free(buf);
	ct_zip_file_close(&f);
	ct_zip_close(&z);
	free(b.p);
	free(packed);
	free(seg);
	free(zeros);
}

/* A wheel cut short while it is read: the member's error, no crash. */
static void test_cut_short(void **state)
{
	struct good g;
	struct built b;
	struct ct_zip z;
	unsigned char *got;
	char path[64], why[256];
	int fd;

	(void)state;
	good_specs(&g, false, false);
	build(&b, g.s, 3, false, NULL);
	fd = temp_file(path, sizeof(path));
	pwrite_all(fd, b.p, b.len, 0);
	assert_int_equal(ct_zip_open_fd(&z, fd, why, sizeof(why)), 0);
	assert_int_equal(ftruncate(fd, (off_t)b.data[2] + 10), 0);
	assert_int_equal(read_whole(&z, 0, &got, 1 << 20, why, sizeof(why)), 0);
	free(got);
	assert_int_equal(read_whole(&z, 2, &got, 1 << 20, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "cut short"));
	ct_zip_close(&z);
	/* Not a regular file: refused before any read. */
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(ct_zip_open_fd(&z, fd, why, sizeof(why)), -ENODEV);
	close(fd);
	unlink(path);
	free(b.p);
	good_free(&g);
}

/*
 * Archives as Python's zipfile writes them: deflated and stored members,
 * an empty one, a folder, a comment; force_zip64; data descriptors (when
 * it writes to a pipe); 70,000 members (a zip64 end record for the count);
 * bzip2 and LZMA members, refused alone.
 */
static const char python_made[] =
	"import io, sys, zipfile\n"
	"d = sys.argv[1]\n"
	"def pat(n): return bytes(((i * 31 + (i >> 7)) & 0xff) for i in range(n))\n"
	"with zipfile.ZipFile(d + '/a.zip', 'w', zipfile.ZIP_DEFLATED) as z:\n"
	"    z.writestr('pkg/', b'')\n"
	"    z.writestr('pkg/empty', b'')\n"
	"    z.writestr('pkg/big.so', pat(200000))\n"
	"    z.writestr(zipfile.ZipInfo('pkg/stored.so'), pat(5000), zipfile.ZIP_STORED)\n"
	"    z.comment = b'made by test_zip'\n"
	"with zipfile.ZipFile(d + '/b.zip', 'w', zipfile.ZIP_DEFLATED) as z:\n"
	"    with z.open('pkg/big.so', 'w', force_zip64=True) as m:\n"
	"        m.write(pat(200000))\n"
	"    z.writestr('pkg/bz.so', pat(5000), zipfile.ZIP_BZIP2)\n"
	"    z.writestr('pkg/xz.so', pat(5000), zipfile.ZIP_LZMA)\n"
	"    z.writestr('pkg/after.so', pat(5000))\n"
	"class Pipe(io.RawIOBase):\n"
	"    def __init__(self, f): self.f = f\n"
	"    def writable(self): return True\n"
	"    def seekable(self): return False\n"
	"    def write(self, b): return self.f.write(b)\n"
	"with open(d + '/c.zip', 'wb') as f:\n"
	"    with zipfile.ZipFile(Pipe(f), 'w', zipfile.ZIP_DEFLATED) as z:\n"
	"        with z.open('pkg/big.so', 'w') as m:\n"
	"            m.write(pat(200000))\n"
	"        with z.open('pkg/stored.so', 'w') as m:\n"
	"            m.write(pat(5000))\n"
	"with zipfile.ZipFile(d + '/d.zip', 'w', zipfile.ZIP_STORED) as z:\n"
	"    for i in range(70000):\n"
	"        z.writestr('f%d' % i, b'x')\n"
	"    z.writestr('last.so', pat(5000))\n";

static struct ct_zip open_file(const char *dir, const char *name, int *fd)
{
	struct ct_zip z;
	char path[256], why[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*fd = open(path, O_RDONLY);
	assert_true(*fd >= 0);
	if (ct_zip_open_fd(&z, *fd, why, sizeof(why)) != 0)
		fail_msg("%s: %s", name, why);
	return z;
}

static size_t member(const struct ct_zip *z, const char *name)
{
	size_t k;

	for (k = 0; k < z->n; k++)
		if (strcmp(z->members[k].name, name) == 0)
			return k;
	fail_msg("no member %s", name);
	return 0;
}

static void test_python_made(void **state)
{
	char dir[] = "/tmp/ct-zip-py.XXXXXX", cmd[512], why[256];
	unsigned char *p200 = pattern(200000), *got;
	struct ct_zip z;
	int fd, status;
	FILE *py;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "python3 - '%s' 2>&1", dir);
	py = popen(cmd, "w");
	assert_non_null(py);
	fputs(python_made, py);
	status = pclose(py);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
		free(p200);
		skip();
	}

	z = open_file(dir, "a.zip", &fd);
	assert_int_equal(z.n, 4);
	assert_string_equal(z.members[0].name, "pkg/");
	assert_int_equal(z.members[member(&z, "pkg/empty")].size, 0);
	assert_int_equal(read_whole(&z, member(&z, "pkg/empty"), &got, 1, why, sizeof(why)), 0);
	free(got);
	assert_reads(&z, member(&z, "pkg/big.so"), p200, 200000);
	assert_reads(&z, member(&z, "pkg/stored.so"), p200, 5000);
	ct_zip_close(&z);
	close(fd);

	z = open_file(dir, "b.zip", &fd);
	assert_reads(&z, member(&z, "pkg/big.so"), p200, 200000);
	assert_reads(&z, member(&z, "pkg/after.so"), p200, 5000);
	assert_int_equal(read_whole(&z, member(&z, "pkg/bz.so"), &got, 1, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "compressed with bzip2 (method 12)"));
	assert_int_equal(read_whole(&z, member(&z, "pkg/xz.so"), &got, 1, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "compressed with LZMA (method 14)"));
	ct_zip_close(&z);
	close(fd);

	z = open_file(dir, "c.zip", &fd);
	assert_true(z.members[0].flags & 8);
	assert_reads(&z, member(&z, "pkg/big.so"), p200, 200000);
	assert_reads(&z, member(&z, "pkg/stored.so"), p200, 5000);
	ct_zip_close(&z);
	close(fd);

	z = open_file(dir, "d.zip", &fd);
	assert_int_equal(z.n, 70001);
	assert_reads(&z, 69999, "x", 1);
	assert_reads(&z, member(&z, "last.so"), p200, 5000);
	ct_zip_close(&z);
	close(fd);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(p200);
}

/* The directory's size is bounded before anything is allocated. */
static void test_directory_limit(void **state)
{
	unsigned char e[22] = { 'P', 'K', 5, 6 };
	struct ct_zip z;
	char path[64], why[256];
	uint64_t big = CT_ZIP_MAX_DIRECTORY + 1;
	int fd;

	(void)state;
	/* A sparse file: a directory of 64 MiB and 1 byte before the end record. */
	put16(e + 8, 1);
	put16(e + 10, 1);
	put32(e + 12, big);
	put32(e + 16, 0);
	fd = temp_file(path, sizeof(path));
	pwrite_all(fd, e, sizeof(e), big);
	assert_int_equal(ct_zip_open_fd(&z, fd, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "over cudatrace's limit of 64 MiB"));
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stored_and_deflated),
		cmocka_unit_test(test_zip64),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_empty_and_comment),
		cmocka_unit_test(test_one_field),
		cmocka_unit_test(test_one_field_zip64),
		cmocka_unit_test(test_descriptor_disagrees),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_beyond_4gib),
		cmocka_unit_test(test_member_over_4gib),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_python_made),
		cmocka_unit_test(test_directory_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The zip reader of zip.h. The layout (APPNOTE.TXT): members, each a local
 * header and its data (and, with flag bit 3, a data descriptor after it);
 * then the central directory, one entry per member; then, for ZIP64, the
 * zip64 end record and its locator; then the end of central directory
 * record and the archive's comment.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "zip.h"

/* Records and their fixed sizes. */
#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define SIG_DESCRIPTOR 0x08074b50u
#define LOCAL_LEN 30
#define CENTRAL_LEN 46
#define END_LEN 22
#define END64_LEN 56
#define LOCATOR64_LEN 20
/* The end record is in the last bytes: the record and a comment of 64 KiB at most. */
#define END_SEARCH (END_LEN + 0xffff)

#define MAX16 0xffffu
#define MAX32 0xffffffffu

/* General purpose flags. */
#define F_ENCRYPTED 0x0001u
#define F_DESCRIPTOR 0x0008u
#define F_PATCHED 0x0020u
#define F_STRONG 0x0040u
#define F_DIR_ENCRYPTED 0x2000u

#define M_STORED 0
#define M_DEFLATED 8

/* Packed bytes read per pread while inflating. */
#define CHUNK ((size_t)256 << 10)

/* Why a member is refused from its directory entry alone. */
enum {
	R_NONE,
	R_ENCRYPTED,
	R_PATCHED,
	R_METHOD,
	R_ZIP64,
	R_DISK,
	R_NAME,
	R_STORED_SIZES,
	R_SHARED,
	R_PAST,
};

enum { READING, DONE, FAILED };

static int say(char *why, size_t size, int rc, const char *fmt, ...)
	__attribute__((__format__(__printf__, 4, 5)));

/* Sets why; returns rc, so that an error is one statement. */
static int say(char *why, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why && size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* The one range check: len bytes at off lie inside the first total bytes. */
static bool fits(uint64_t total, uint64_t off, uint64_t len)
{
	return off <= total && len <= total - off;
}

/*
 * len bytes of the archive at off into dst; every read of the archive is
 * this one, after the range check. 0 or a negative errno.
 */
static int get(const struct ct_zip *z, uint64_t off, void *dst, size_t len)
{
	unsigned char *p = dst;

	if (!fits(z->size, off, len))
		return -EINVAL;
	if (z->buf) {
		memcpy(dst, z->buf + off, len);
		return 0;
	}
	while (len) {
		ssize_t got = pread(z->fd, p, len, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		/* Shorter than fstat said: cut short while read. */
		if (got == 0)
			return -EIO;
		p += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return 0;
}

static int read_error(char *why, size_t size, int rc, uint64_t off)
{
	if (rc == -EIO)
		return say(why, size, rc, "cannot read at offset %llu: %s (was it cut short "
			   "while cudatrace read it?)", (unsigned long long)off, strerror(EIO));
	return say(why, size, rc, "cannot read at offset %llu: %s", (unsigned long long)off,
		   strerror(-rc));
}

static uint32_t le16(const unsigned char *p)
{
	return (uint32_t)ct_le(p, 2);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)ct_le(p, 4);
}

static uint64_t le64(const unsigned char *p)
{
	return ct_le(p, 8);
}

/* The directory's extent and size, from the end records. */
struct end {
	uint64_t entries, dir_off, dir_size;
	uint64_t dir_end; /* where the directory must end: the first end record */
};

/* The zip64 end record its locator (at loc) points to, into e. */
static int read_end64(const struct ct_zip *z, uint64_t loc, struct end *e, char *why,
		      size_t size)
{
	unsigned char l[LOCATOR64_LEN], r[END64_LEN];
	uint64_t off;
	int rc;

	if ((rc = get(z, loc, l, sizeof(l))) < 0)
		return read_error(why, size, rc, loc);
	off = le64(l + 8);
	if (le32(l + 4) != 0 || le32(l + 16) > 1)
		return say(why, size, -ENOTSUP, "split over several disks: not read");
	/* The record lies before its locator. */
	if (!fits(loc, off, END64_LEN))
		return say(why, size, -EINVAL, "the zip64 end record's offset (%llu) is past "
			   "its locator", (unsigned long long)off);
	if ((rc = get(z, off, r, sizeof(r))) < 0)
		return read_error(why, size, rc, off);
	if (le32(r) != SIG_END64)
		return say(why, size, -EINVAL, "no zip64 end record at offset %llu, where "
			   "its locator points", (unsigned long long)off);
	if (le32(r + 16) != 0 || le32(r + 20) != 0 || le64(r + 24) != le64(r + 32))
		return say(why, size, -ENOTSUP, "split over several disks: not read");
	e->entries = le64(r + 32);
	e->dir_size = le64(r + 40);
	e->dir_off = le64(r + 48);
	e->dir_end = off;
	return 0;
}

/*
 * The end of central directory record: the last one in the last
 * END_SEARCH bytes whose comment ends the file, else the last whose
 * comment fits in it (bytes after the comment tolerated, as zip tools do).
 */
static int read_end(const struct ct_zip *z, struct end *e, char *why, size_t size)
{
	uint64_t tail_len = z->size < END_SEARCH ? z->size : END_SEARCH;
	uint64_t tail_off = z->size - tail_len, at;
	unsigned char *tail = NULL;
	size_t p;
	long found = -1, loose = -1;
	int rc;

	if (tail_len < END_LEN)
		return say(why, size, -EINVAL, "too short to be a zip archive (%llu bytes)",
			   (unsigned long long)z->size);
	if (!(tail = malloc((size_t)tail_len)))
		return say(why, size, -ENOMEM, "out of memory");
	if ((rc = get(z, tail_off, tail, (size_t)tail_len)) < 0) {
		rc = read_error(why, size, rc, tail_off);
		goto out;
	}
	for (p = (size_t)tail_len - END_LEN + 1; p-- > 0 && found < 0;) {
		uint64_t comment;

		if (le32(tail + p) != SIG_END)
			continue;
		comment = le16(tail + p + 20);
		if (p + END_LEN + comment == tail_len)
			found = (long)p;
		else if (loose < 0 && p + END_LEN + comment <= tail_len)
			loose = (long)p;
	}
	if (found < 0)
		found = loose;
	if (found < 0) {
		rc = say(why, size, -EINVAL, "no end of central directory record: not a zip "
			 "archive, or one cut short");
		goto out;
	}
	p = (size_t)found;
	at = tail_off + p;
	e->entries = le16(tail + p + 10);
	e->dir_size = le32(tail + p + 12);
	e->dir_off = le32(tail + p + 16);
	e->dir_end = at;
	/* A zip64 locator right before the end record: its values govern. */
	if (at >= LOCATOR64_LEN) {
		unsigned char sig[4];

		if ((rc = get(z, at - LOCATOR64_LEN, sig, sizeof(sig))) < 0) {
			rc = read_error(why, size, rc, at - LOCATOR64_LEN);
			goto out;
		}
		if (le32(sig) == SIG_LOCATOR64) {
			rc = read_end64(z, at - LOCATOR64_LEN, e, why, size);
			goto out;
		}
	}
	rc = 0;
	if (le16(tail + p + 4) != 0 || le16(tail + p + 6) != 0 ||
	    le16(tail + p + 8) != le16(tail + p + 10))
		rc = say(why, size, -ENOTSUP, "split over several disks: not read");
out:
	free(tail);
	return rc;
}

/*
 * The zip64 extra field (0x0001) of an entry: each value whose 32-bit
 * field is all ones is there, in this order. false when one is missing.
 */
static bool zip64_values(const unsigned char *extra, size_t len, uint64_t *size,
			 uint64_t *stored, uint64_t *offset, uint32_t *disk)
{
	size_t p = 0;

	while (len - p >= 4) {
		uint32_t id = le16(extra + p), n = le16(extra + p + 2);
		const unsigned char *v = extra + p + 4;
		size_t k = 0;

		if (n > len - p - 4)
			break;
		if (id != 0x0001) {
			p += 4 + n;
			continue;
		}
		if (*size == MAX32) {
			if (n - k < 8)
				return false;
			*size = le64(v + k);
			k += 8;
		}
		if (*stored == MAX32) {
			if (n - k < 8)
				return false;
			*stored = le64(v + k);
			k += 8;
		}
		if (*offset == MAX32) {
			if (n - k < 8)
				return false;
			*offset = le64(v + k);
			k += 8;
		}
		if (*disk == MAX16) {
			if (n - k < 4)
				return false;
			*disk = le32(v + k);
		}
		return true;
	}
	return *size != MAX32 && *stored != MAX32 && *offset != MAX32 && *disk != MAX16;
}

static int refusal(unsigned flags, unsigned method)
{
	if (flags & (F_ENCRYPTED | F_STRONG | F_DIR_ENCRYPTED) || method == 99)
		return R_ENCRYPTED;
	if (flags & F_PATCHED)
		return R_PATCHED;
	if (method != M_STORED && method != M_DEFLATED)
		return R_METHOD;
	return R_NONE;
}

/* One directory entry (at p, fits checked by the caller) into m and its name. */
static void read_entry(const unsigned char *e, struct ct_zip_member *m, char *name)
{
	uint32_t nlen = le16(e + 28), xlen = le16(e + 30), disk = le16(e + 34);

	m->flags = (uint16_t)le16(e + 8);
	m->method = (uint16_t)le16(e + 10);
	m->crc = le32(e + 16);
	m->stored = le32(e + 20);
	m->size = le32(e + 24);
	m->offset = le32(e + 42);
	memcpy(name, e + CENTRAL_LEN, nlen);
	name[nlen] = '\0';
	m->name = name;
	m->refused = refusal(m->flags, m->method);
	if (!zip64_values(e + CENTRAL_LEN + nlen, xlen, &m->size, &m->stored, &m->offset,
			  &disk))
		m->refused = R_ZIP64;
	else if (disk != 0)
		m->refused = R_DISK;
	else if (memchr(name, '\0', nlen))
		m->refused = R_NAME;
	else if (m->refused == R_NONE && m->method == M_STORED && m->size != m->stored)
		m->refused = R_STORED_SIZES;
}

struct by_offset {
	uint64_t offset;
	size_t i;
};

static int cmp_offset(const void *a, const void *b)
{
	const struct by_offset *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Each member's end: where the next member's local header or the
 * directory starts. Its data must end there (checked when it is opened),
 * so no two members share a byte, and no member is read past the archive's
 * data: a member can cost no more than its own bytes. Members sharing an
 * offset, or starting in or after the directory, are refused here; one
 * refused already keeps its reason, and one whose offset is unknown (no
 * zip64 field, another disk) bounds no other.
 */
static int set_ends(struct ct_zip *z, char *why, size_t size)
{
	struct by_offset *o;
	size_t k, n = 0;

	if (!z->n)
		return 0;
	if (!(o = malloc(z->n * sizeof(*o))))
		return say(why, size, -ENOMEM, "out of memory");
	for (k = 0; k < z->n; k++) {
		z->members[k].end = z->data_end;
		if (z->members[k].refused == R_ZIP64 || z->members[k].refused == R_DISK)
			continue;
		o[n].offset = z->members[k].offset;
		o[n++].i = k;
	}
	qsort(o, n, sizeof(*o), cmp_offset);
	for (k = 0; k < n; k++) {
		struct ct_zip_member *m = &z->members[o[k].i];
		size_t next = k + 1;
		int why_not = R_NONE;

		while (next < n && o[next].offset == m->offset)
			next++;
		if (next < n && o[next].offset < z->data_end)
			m->end = o[next].offset;
		if (m->offset >= z->data_end)
			why_not = R_PAST;
		else if (next > k + 1 || (k > 0 && o[k - 1].offset == m->offset))
			why_not = R_SHARED;
		if (m->refused == R_NONE)
			m->refused = why_not;
	}
	free(o);
	return 0;
}

/* The directory at e->dir_off into z's members. */
static int read_directory(struct ct_zip *z, const struct end *e, char *why, size_t size)
{
	unsigned char *dir = NULL;
	size_t len, p = 0, k, used = 0;
	int rc;

	if (!fits(e->dir_end, e->dir_off, e->dir_size))
		return say(why, size, -EINVAL, "the central directory (%llu bytes at offset %llu) "
			   "is not inside the archive", (unsigned long long)e->dir_size,
			   (unsigned long long)e->dir_off);
	if (e->dir_size > CT_ZIP_MAX_DIRECTORY)
		return say(why, size, -EFBIG, "its central directory (%llu MiB) is over "
			   "cudatrace's limit of %llu MiB", (unsigned long long)(e->dir_size >> 20),
			   (unsigned long long)(CT_ZIP_MAX_DIRECTORY >> 20));
	/* Each entry takes CENTRAL_LEN bytes at least: the count is bounded by the size. */
	if (e->entries > e->dir_size / CENTRAL_LEN)
		return say(why, size, -EINVAL, "its end record counts %llu members, more than "
			   "its central directory of %llu bytes can hold",
			   (unsigned long long)e->entries, (unsigned long long)e->dir_size);
	len = (size_t)e->dir_size;
	z->data_end = e->dir_off;
	if (!(dir = malloc(len ? len : 1)) ||
	    !(z->members = calloc(e->entries ? (size_t)e->entries : 1, sizeof(*z->members))) ||
	    !(z->names = malloc(len + (size_t)e->entries + 1))) {
		rc = say(why, size, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = get(z, e->dir_off, dir, len)) < 0) {
		rc = read_error(why, size, rc, e->dir_off);
		goto out;
	}
	for (k = 0; k < e->entries; k++) {
		const unsigned char *c = dir + p;
		uint64_t whole;

		if (!fits(len, p, CENTRAL_LEN) || le32(c) != SIG_CENTRAL) {
			rc = say(why, size, -EINVAL, "central directory entry %zu of %llu is "
				 "damaged (no entry at offset %llu)", k + 1,
				 (unsigned long long)e->entries,
				 (unsigned long long)(e->dir_off + p));
			goto out;
		}
		whole = (uint64_t)CENTRAL_LEN + le16(c + 28) + le16(c + 30) + le16(c + 32);
		if (!fits(len, p, whole)) {
			rc = say(why, size, -EINVAL, "central directory entry %zu of %llu runs "
				 "past the directory", k + 1, (unsigned long long)e->entries);
			goto out;
		}
		/* Names go one after the other, each with its NUL: no more than the entries' bytes. */
		read_entry(c, &z->members[k], z->names + used);
		used += le16(c + 28) + 1;
		p += (size_t)whole;
	}
	z->n = (size_t)e->entries;
	rc = set_ends(z, why, size);
out:
	free(dir);
	return rc;
}

static int open_common(struct ct_zip *z, char *why, size_t size)
{
	struct end e;
	int rc;

	if ((rc = read_end(z, &e, why, size)) == 0)
		rc = read_directory(z, &e, why, size);
	if (rc < 0)
		ct_zip_close(z);
	return rc;
}

int ct_zip_open_fd(struct ct_zip *z, int fd, char *why, size_t size)
{
	struct stat st;

	memset(z, 0, sizeof(*z));
	z->fd = -1;
	if (fstat(fd, &st) != 0)
		return say(why, size, -errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return say(why, size, -ENODEV, "not a regular file");
	z->fd = fd;
	z->size = (uint64_t)st.st_size;
	return open_common(z, why, size);
}

int ct_zip_open_buffer(struct ct_zip *z, const void *buf, size_t len, char *why,
		       size_t size)
{
	static const unsigned char empty[1];

	memset(z, 0, sizeof(*z));
	z->fd = -1;
	z->buf = buf ? buf : empty;
	z->size = len;
	return open_common(z, why, size);
}

void ct_zip_close(struct ct_zip *z)
{
	free(z->members);
	free(z->names);
	z->members = NULL;
	z->names = NULL;
	z->n = 0;
}

static const char *method_name(unsigned method)
{
	switch (method) {
	case 1: return "shrink";
	case 6: return "implode";
	case 9: return "deflate64";
	case 12: return "bzip2";
	case 14: return "LZMA";
	case 93: return "zstd";
	case 95: return "xz";
	case 98: return "PPMd";
	default: return "an unknown method";
	}
}

static int refused(const struct ct_zip_member *m, char *why, size_t size)
{
	switch (m->refused) {
	case R_ENCRYPTED:
		return say(why, size, -ENOTSUP, "encrypted: cudatrace reads no encrypted member");
	case R_PATCHED:
		return say(why, size, -ENOTSUP, "compressed as patch data (flag bit 5): cudatrace "
			   "reads stored and deflated members only");
	case R_METHOD:
		return say(why, size, -ENOTSUP, "compressed with %s (method %u): cudatrace reads "
			   "stored and deflated members only", method_name(m->method), m->method);
	case R_ZIP64:
		return say(why, size, -EINVAL, "damaged: its size or offset is in a zip64 extra "
			   "field it lacks");
	case R_DISK:
		return say(why, size, -ENOTSUP, "on another disk of a split archive: not read");
	case R_NAME:
		return say(why, size, -EINVAL, "damaged: its name holds a NUL byte");
	case R_STORED_SIZES:
		return say(why, size, -EINVAL, "damaged: stored, yet its sizes differ (%llu "
			   "bytes packed, %llu unpacked)", (unsigned long long)m->stored,
			   (unsigned long long)m->size);
	case R_SHARED:
		return say(why, size, -EINVAL, "refused: its local header is another member's "
			   "too (overlapping members, as zip bombs have)");
	case R_PAST:
		return say(why, size, -EINVAL, "damaged: its local header offset (%llu) is not "
			   "before the central directory", (unsigned long long)m->offset);
	}
	return 0;
}

/*
 * The data descriptor after a member's data (flag bit 3): its CRC-32 and
 * sizes, with or without its signature, 4 or 8 bytes each (ZIP64), must
 * be the directory's and lie before the member's end.
 */
static int check_descriptor(const struct ct_zip_file *f, char *why, size_t size)
{
	const struct ct_zip_member *m = f->m;
	uint64_t at = f->data + m->stored, room = m->end - at;
	unsigned char d[24];
	size_t len = room < sizeof(d) ? (size_t)room : sizeof(d), skip;
	int rc;

	if ((rc = get(f->z, at, d, len)) < 0)
		return read_error(why, size, rc, at);
	for (skip = 0; skip <= 4; skip += 4) {
		if (skip && (len < 4 || le32(d) != SIG_DESCRIPTOR))
			break;
		if (len >= skip + 12 && le32(d + skip) == m->crc &&
		    le32(d + skip + 4) == m->stored && le32(d + skip + 8) == m->size)
			return 0;
		if (len >= skip + 20 && le32(d + skip) == m->crc &&
		    le64(d + skip + 4) == m->stored && le64(d + skip + 12) == m->size)
			return 0;
	}
	return say(why, size, -EINVAL, "damaged: its data descriptor is missing or disagrees "
		   "with the central directory");
}

/* The local header: where the data starts; it must agree with the directory. */
static int check_local(struct ct_zip_file *f, char *why, size_t size)
{
	const struct ct_zip_member *m = f->m;
	unsigned char h[LOCAL_LEN];
	uint32_t nlen, xlen, flags, csize, usize;
	size_t name_len = strlen(m->name), k;
	char name[256];
	int rc;

	if (!fits(m->end, m->offset, LOCAL_LEN))
		return say(why, size, -EINVAL, "damaged: no room for its local header at offset %llu",
			   (unsigned long long)m->offset);
	if ((rc = get(f->z, m->offset, h, sizeof(h))) < 0)
		return read_error(why, size, rc, m->offset);
	if (le32(h) != SIG_LOCAL)
		return say(why, size, -EINVAL, "damaged: no local header at offset %llu",
			   (unsigned long long)m->offset);
	flags = le16(h + 6);
	nlen = le16(h + 26);
	xlen = le16(h + 28);
	if (refusal(flags, le16(h + 8)) == R_ENCRYPTED)
		return say(why, size, -ENOTSUP, "encrypted: cudatrace reads no encrypted member");
	if (le16(h + 8) != m->method)
		return say(why, size, -EINVAL, "damaged: its local header and the central "
			   "directory disagree on its compression method (%u, %u)", le16(h + 8),
			   m->method);
	/* Another name here than the directory's: tools would disagree on what it is. */
	if (nlen != name_len || !fits(m->end, m->offset + LOCAL_LEN, nlen))
		return say(why, size, -EINVAL, "damaged: its local header names another file");
	for (k = 0; k < nlen; k += sizeof(name)) {
		size_t piece = nlen - k < sizeof(name) ? nlen - k : sizeof(name);

		if ((rc = get(f->z, m->offset + LOCAL_LEN + k, name, piece)) < 0)
			return read_error(why, size, rc, m->offset + LOCAL_LEN + k);
		if (memcmp(name, m->name + k, piece) != 0)
			return say(why, size, -EINVAL, "damaged: its local header names another file");
	}
	/* Without a descriptor the local header has the values; 0xffffffff: in its zip64 field. */
	csize = le32(h + 18);
	usize = le32(h + 22);
	if (!(flags & F_DESCRIPTOR) &&
	    (le32(h + 14) != m->crc || (csize != MAX32 && csize != m->stored) ||
	     (usize != MAX32 && usize != m->size)))
		return say(why, size, -EINVAL, "damaged: its local header and the central "
			   "directory disagree on its CRC-32 or sizes");
	f->data = m->offset + LOCAL_LEN + nlen + xlen;
	if (!fits(m->end, f->data, m->stored)) {
		if (m->end == f->z->data_end)
			return say(why, size, -EINVAL, "damaged: its declared size (%llu bytes "
				   "packed) runs past the archive's data",
				   (unsigned long long)m->stored);
		return say(why, size, -EINVAL, "refused: its declared size (%llu bytes packed) "
			   "runs into the next member (overlapping members, as zip bombs have)",
			   (unsigned long long)m->stored);
	}
	if (flags & F_DESCRIPTOR)
		return check_descriptor(f, why, size);
	return 0;
}

int ct_zip_file_open(struct ct_zip_file *f, const struct ct_zip *z, size_t i,
		     char *why, size_t size)
{
	const struct ct_zip_member *m;
	int rc;

	memset(f, 0, sizeof(*f));
	/* Until it is ready: a member that did not open reads nothing. */
	f->state = FAILED;
	if (i >= z->n)
		return say(why, size, -EINVAL, "no member %zu", i);
	m = &z->members[i];
	f->z = z;
	f->m = m;
	if (m->refused)
		return refused(m, why, size);
	if ((rc = check_local(f, why, size)) < 0)
		return rc;
	f->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	if (m->method == M_DEFLATED) {
		f->chunk_size = m->stored < CHUNK ? (size_t)m->stored : CHUNK;
		if (!(f->chunk = malloc(f->chunk_size ? f->chunk_size : 1)))
			return say(why, size, -ENOMEM, "out of memory");
		/* Raw deflate: no zlib header, as zip has it. */
		if (inflateInit2(&f->strm, -MAX_WBITS) != Z_OK) {
			free(f->chunk);
			f->chunk = NULL;
			return say(why, size, -ENOMEM, "cannot start inflating: out of memory");
		}
		f->inflating = 1;
	}
	f->state = READING;
	return 0;
}

static int fail(struct ct_zip_file *f, int rc)
{
	f->state = FAILED;
	return rc;
}

/* More packed bytes for inflate, when it has used up what it had. */
static int refill(struct ct_zip_file *f, char *why, size_t size)
{
	uint64_t left = f->m->stored - f->in_pos;
	size_t n = left < f->chunk_size ? (size_t)left : f->chunk_size;
	int rc;

	if (f->strm.avail_in || !n)
		return 0;
	if ((rc = get(f->z, f->data + f->in_pos, f->chunk, n)) < 0)
		return read_error(why, size, rc, f->data + f->in_pos);
	f->in_pos += n;
	f->strm.next_in = f->chunk;
	f->strm.avail_in = (uInt)n;
	return 0;
}

/*
 * Inflate into out (up to n bytes; n 0: only to the stream's end); *got
 * the bytes it produced. Stops at n bytes or at the stream's end.
 */
static int inflate_into(struct ct_zip_file *f, unsigned char *out, size_t n, size_t *got,
			bool *ended, char *why, size_t size)
{
	unsigned char spare[1];
	bool probe = n == 0;
	int rc;

	*got = 0;
	*ended = false;
	while (probe || *got < n) {
		size_t room = probe ? 1 : n - *got;
		uInt before;

		if ((rc = refill(f, why, size)) < 0)
			return rc;
		/* avail_out is 32 bits wide. */
		f->strm.avail_out = before = room > (1u << 30) ? 1u << 30 : (uInt)room;
		f->strm.next_out = probe ? spare : out + *got;
		rc = inflate(&f->strm, Z_NO_FLUSH);
		if (probe && f->strm.avail_out == 0)
			return say(why, size, -EINVAL, "damaged: it inflates to more than its "
				   "declared %llu bytes", (unsigned long long)f->m->size);
		if (!probe)
			*got += before - f->strm.avail_out;
		if (rc == Z_STREAM_END) {
			*ended = true;
			return 0;
		}
		if (rc == Z_BUF_ERROR && f->strm.avail_in == 0 && f->in_pos == f->m->stored) {
			if (probe)
				return say(why, size, -EINVAL, "damaged: its deflate data is cut "
					   "short (no final block)");
			return say(why, size, -EINVAL, "damaged: its deflate data ends after %llu "
				   "of its declared %llu bytes",
				   (unsigned long long)(f->out_pos + *got),
				   (unsigned long long)f->m->size);
		}
		if (rc == Z_MEM_ERROR)
			return say(why, size, -ENOMEM, "out of memory");
		if (rc != Z_OK)
			return say(why, size, -EINVAL, "damaged: bad deflate data (%s)",
				   f->strm.msg ? f->strm.msg : "zlib error");
	}
	return 0;
}

static void crc_add(struct ct_zip_file *f, const unsigned char *p, size_t n)
{
	while (n) {
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;

		f->crc = (uint32_t)crc32(f->crc, p, k);
		p += k;
		n -= k;
	}
}

/* At the member's end: the stream ends there, the CRC-32 matches. */
static int finish(struct ct_zip_file *f, bool ended, char *why, size_t size)
{
	size_t got;
	int rc;

	if (f->inflating && !ended) {
		if ((rc = inflate_into(f, NULL, 0, &got, &ended, why, size)) < 0)
			return rc;
	}
	if (f->crc != f->m->crc)
		return say(why, size, -EINVAL, "damaged: CRC-32 mismatch (0x%08x, the central "
			   "directory says 0x%08x)", f->crc, f->m->crc);
	f->state = DONE;
	return 0;
}

ssize_t ct_zip_file_read(struct ct_zip_file *f, void *buf, size_t n, char *why,
			 size_t size)
{
	uint64_t left;
	size_t want, got = 0;
	bool ended = false;
	int rc;

	if (f->state == FAILED)
		return say(why, size, -EINVAL, "its reading failed already");
	if (f->state == DONE)
		return 0;
	left = f->m->size - f->out_pos;
	want = left < n ? (size_t)left : n;
	if (want > SSIZE_MAX)
		want = SSIZE_MAX;
	if (want && !f->inflating) {
		if ((rc = get(f->z, f->data + f->out_pos, buf, want)) < 0)
			return fail(f, read_error(why, size, rc, f->data + f->out_pos));
		got = want;
	} else if (want) {
		if ((rc = inflate_into(f, buf, want, &got, &ended, why, size)) < 0)
			return fail(f, rc);
		if (got < want || (ended && f->out_pos + got < f->m->size))
			return fail(f, say(why, size, -EINVAL, "damaged: it inflates to %llu bytes, "
					   "fewer than the %llu declared",
					   (unsigned long long)(f->out_pos + got),
					   (unsigned long long)f->m->size));
	}
	crc_add(f, buf, got);
	f->out_pos += got;
	if (f->out_pos == f->m->size && (rc = finish(f, ended, why, size)) < 0)
		return fail(f, rc);
	return (ssize_t)got;
}

void ct_zip_file_close(struct ct_zip_file *f)
{
	if (f->inflating)
		inflateEnd(&f->strm);
	free(f->chunk);
	memset(f, 0, sizeof(*f));
}

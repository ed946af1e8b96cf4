/*
 * cudatrace's own zip reader, for wheels: their members are read in
 * memory, never extracted. A wheel (PEP 427) holds stored and deflated
 * members; that is what is read, through zlib's inflate (raw deflate), the
 * CRC-32 checked. ZIP64 archives are read too (torch's and NVIDIA's wheels
 * pass 4 GiB unpacked). The archive is hostile: every offset and length it
 * gives goes through one overflow-safe range check before use; memory is
 * the central directory (at most CT_ZIP_MAX_DIRECTORY) and the member table,
 * plus what the caller reads; time is linear in what is read.
 *
 * What the archive as a whole cannot be read without (no end record, a
 * central directory outside the file or damaged, several disks) fails
 * ct_zip_open. What only one member cannot be read without (encrypted,
 * another compression method, sizes that run into the next member or past
 * the archive's data, a local header that disagrees with the directory, a
 * data descriptor that does, a CRC-32 mismatch) fails that member alone,
 * with its reason, in ct_zip_file_open or ct_zip_file_read: the others
 * are still read.
 *
 * Ownership: a struct ct_zip owns its member table and names, freed by
 * ct_zip_close; the descriptor or buffer it reads is the caller's and must
 * outlive it. A struct ct_zip_file borrows its archive. Reasons go into
 * the caller's why buffer: lowercase, no full stop, the member's name
 * never in them (the caller says which member). Not thread-safe: one
 * thread per archive.
 */
#ifndef CT_ZIP_H
#define CT_ZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <zlib.h>

/* A central directory larger than this is refused (a wheel's is a few MiB). */
#define CT_ZIP_MAX_DIRECTORY ((uint64_t)64 << 20)

struct ct_zip_member {
	const char *name; /* NUL-terminated; owned by the archive */
	uint64_t size;    /* unpacked, as the central directory declares */
	uint64_t stored;  /* packed (its bytes in the archive), as declared */
	/* The rest is zip.c's. */
	uint64_t offset;  /* of its local header */
	uint64_t end;     /* where the next member or the directory starts */
	uint32_t crc;
	uint16_t method, flags;
	int refused;      /* why it cannot be read, from the directory alone */
};

struct ct_zip {
	struct ct_zip_member *members; /* in the directory's order */
	size_t n;
	/* zip.c's: the archive read (one of the two), its size, the names. */
	int fd;
	const unsigned char *buf;
	uint64_t size;
	uint64_t data_end; /* the central directory's offset */
	char *names;
};

/*
 * Reads the directory of the archive open at fd (a regular file, read
 * with pread: the descriptor's offset is untouched), or of the len bytes
 * at buf. 0, or a negative errno with why set (-EINVAL: not a zip archive
 * or a damaged one; -ENOTSUP: split over several disks; -EFBIG: the
 * directory is over CT_ZIP_MAX_DIRECTORY; -ENOMEM; -EIO and other read
 * errors). On failure z holds nothing to close.
 */
int ct_zip_open_fd(struct ct_zip *z, int fd, char *why, size_t size);
int ct_zip_open_buffer(struct ct_zip *z, const void *buf, size_t len, char *why,
		       size_t size);
void ct_zip_close(struct ct_zip *z);

/* One member being read; its fields are zip.c's. */
struct ct_zip_file {
	const struct ct_zip *z;
	const struct ct_zip_member *m;
	uint64_t data;     /* offset of its packed bytes */
	uint64_t in_pos;   /* packed bytes read */
	uint64_t out_pos;  /* unpacked bytes handed out */
	uint32_t crc;
	int state;         /* reading, done, failed */
	int inflating;     /* strm is set up */
	z_stream strm;
	unsigned char *chunk;
	size_t chunk_size;
};

/*
 * Starts reading member i: its local header is read and checked against
 * the directory. 0, or a negative errno with why set (-ENOTSUP: encrypted
 * or another method; -EINVAL: damaged or overlapping; -ENOMEM); on
 * failure f holds nothing to close.
 */
int ct_zip_file_open(struct ct_zip_file *f, const struct ct_zip *z, size_t i,
		     char *why, size_t size);
/*
 * The next min(n, bytes left) bytes of the member, unpacked, into buf:
 * that count (0 at its end, or for n 0), or a negative errno with why set
 * (-EINVAL: damaged data, an unpacked size other than declared, a CRC-32
 * mismatch; -EIO and other read errors). The read that reaches the
 * member's end checks it whole (the deflate stream ends there, the CRC-32
 * matches), so a count equal to what was left means the member is good.
 * After an error, or on a member that did not open, every read fails.
 */
ssize_t ct_zip_file_read(struct ct_zip_file *f, void *buf, size_t n, char *why,
			 size_t size);
void ct_zip_file_close(struct ct_zip_file *f);

#endif

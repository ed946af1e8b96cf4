/* Shared by the elfscan sources; not installed. */
#ifndef ELFSCAN_INTERNAL_H
#define ELFSCAN_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "elfscan.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_CONTAINER_HEADER 16u
#define FATBIN_ENTRY_HEADER_MIN 0x40u
#define FATBIN_WRAPPER_SIZE 24u

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

/* Little-endian loads from unaligned bytes; callers range-check first. */
static inline uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/*
 * The one range check: true when [off, off+len) lies inside [0, size),
 * without overflow.
 */
static inline int in_range(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * n bytes at file offset off (in_range(off, n, f->len) checked by the
 * caller). While scan_path has the file open, they come from a small
 * window read with pread: a fatbin header costs a copy of its bytes
 * instead of a page fault that maps (and later unmaps) the pages around
 * it. Otherwise, or when the read fails, they are the mapping's bytes.
 * The pointer is valid until the next call; pointers kept in results
 * must be rebased onto f->buf.
 */
const unsigned char *es_at(struct elfscan_file *f, uint64_t off, size_t n);

/*
 * What the second largest section's scan must weigh (bytes of magic scan)
 * for a thread to be started (elfscan_options.threads); the tests lower it
 * to run threads on small fixtures.
 */
extern uint64_t es_thread_scan_min;
/*
 * The bytes the magic scan searches at a time, and leaves mapped behind
 * it before it unmaps them (a multiple of 64); the fuzzer lowers it.
 */
extern uint64_t es_drop_window;

/* Append helpers; return 0 or -ENOMEM. */
int es_append_container(struct elfscan_file *f, const struct elfscan_container *c);
int es_append_image(struct elfscan_file *f, const struct elfscan_image *img);
int es_add_problem(struct elfscan_file *f, enum elfscan_problem_code code,
		   uint64_t offset, uint64_t value, long image, long container,
		   size_t section);
int es_add_section(struct elfscan_file *f, const char *name, uint64_t offset,
		   uint64_t size, uint64_t addr, size_t *index);

/*
 * Walk the container at f->buf + off (validated or not) whose bytes may
 * run to limit (an absolute file offset), appending images and the
 * container itself. Problems are recorded. Returns 0 or -ENOMEM; *next is
 * set to where the container ends (clamped to limit), *chain_end to where
 * its entry chain broke off, or to *next when the chain reached the end.
 */
int es_add_container(struct elfscan_file *f, uint64_t off, uint64_t limit,
		     size_t section, enum elfscan_found found, uint64_t *next,
		     uint64_t *chain_end);

/*
 * Scan [start, end) of f->buf for containers: validated magic hits at
 * addresses (file offset + addr_delta) that are 8-aligned. From each
 * container found it hops to the next header past the container's end and
 * its zero padding, and searches word by word only where no header is
 * there; f->magic_scanned and f->magic_hops count both. Returns 0 or
 * -ENOMEM.
 */
int es_magic_scan(struct elfscan_file *f, uint64_t start, uint64_t end,
		  uint64_t addr_delta, size_t section);

/*
 * Walk a section known to hold back-to-back containers. A container whose
 * entry chain breaks off before its end has its remaining bytes searched,
 * so that a wrong size field hides no container after it. On junk, record
 * it and resynchronise with a magic scan of the rest.
 */
int es_walk_section(struct elfscan_file *f, uint64_t start, uint64_t end,
		    uint64_t addr_delta, size_t section);

/* Host ELF reading with libelf (elf.c). */
int es_scan_elf(struct elfscan_file *f, const struct elfscan_options *opt);

/* Cubin header facts, from the ELF header and sections of a device ELF. */
struct es_cubin {
	unsigned abi_version; /* EI_ABIVERSION: 7 or 8 (others possible) */
	unsigned osabi;
	unsigned sm;          /* from e_flags, per ABI layout */
	unsigned elf_type;
	int arch_specific;    /* .nv.compat attr 0x09: 1, 0, or -1 unknown */
	int family_specific;  /* "sm_XXf" in .note.nv.tkinfo: 1, 0, -1 */
	int eflags_arch_specific; /* EF_CUDA_ACCELERATORS in e_flags: 1 or 0 */
	uint64_t size;        /* bytes the ELF structure covers */
};
/*
 * EF_CUDA_ACCELERATORS, the 'a' bit of a cubin's e_flags: 0x800 in the
 * ABI v7 layout, 0x8 in v8 (reference/fatbin.md 3.1). Returns 1 or 0.
 */
int es_eflags_arch_specific(unsigned abi_version, uint32_t eflags);
/*
 * Read the ELF header of a plain SASS image of ABI v7 or older (the first
 * bytes of its payload only, es_payload_head) and take the 'a' its
 * e_flags carry (variant_from_cubin). v8 cubins keep 'a' out of e_flags
 * (in .nv.compat), so theirs are not read. Called as each image is
 * walked, while its header's page is still at hand (a pass over every
 * image afterwards touched each page again: cuFFT 10's 22,346 containers
 * cost 14% of its scan that way). Returns 0 or -ENOMEM.
 */
int es_read_cubin_header(struct elfscan_file *f, struct elfscan_image *img);
/* Parse a device ELF in [buf, buf+len). Returns 0 or -EBADMSG. */
int es_cubin_parse(const unsigned char *buf, size_t len, struct es_cubin *c);

/* A payload claiming more than this is treated as corrupt, not allocated. */
#define ES_PAYLOAD_MAX ((uint64_t)1 << 31)

/*
 * img's whole payload: *view points at the stored bytes (uncompressed) or
 * at *owned, a decompressed copy the caller frees; *len is its length.
 * Returns 0, -EBADMSG when it lies outside the file or does not
 * decompress, -EMSGSIZE when it decompresses to *len bytes, not the size
 * its header states (nothing to free), or -ENOMEM. Reads f->buf only.
 */
int es_payload(const struct elfscan_file *f, const struct elfscan_image *img,
	       unsigned char **owned, const unsigned char **view, size_t *len);

/*
 * The first n bytes (at most) of img's payload into dst, decompressing no
 * more than it takes (LZ4: a partial decode; zstd: a stream read of its
 * first block). Returns how many bytes came out, or -EBADMSG / -ENOMEM.
 */
long es_payload_head(struct elfscan_file *f, const struct elfscan_image *img,
		     unsigned char *dst, size_t n);
/* Free what es_payload_head keeps in f between calls (a zstd context). */
void es_payload_release(struct elfscan_file *f);

/*
 * Whether the device ELF in [buf, buf+len) defines a kernel: an STT_FUNC
 * symbol marked STO_CUDA_ENTRY and defined in a section. Without a symbol
 * table, any executable .text.* section counts as one. Returns 1, 0, or
 * -EBADMSG when it is no device ELF.
 */
int es_cubin_has_kernel(const unsigned char *buf, size_t len);
/* Each kernel a cubin defines, by name (elfscan_image_kernels). */
int es_cubin_kernels(const unsigned char *buf, size_t len,
		     int (*each)(const char *name, size_t len, void *arg), void *arg);

/* Whether PTX text declares an .entry; 1 or 0. */
int es_ptx_has_kernel(const char *text, size_t len);

/* PTX header facts. */
struct es_ptx {
	unsigned major, minor; /* .version */
	unsigned arch;         /* .target sm_XX */
	enum elfscan_variant variant;
};
/* Parse .version and .target from PTX text. Returns 0 or -EBADMSG. */
int es_ptx_parse(const char *text, size_t len, struct es_ptx *p);

#endif

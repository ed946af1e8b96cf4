/*
 * elfscan: find the CUDA device code inside ELF files.
 *
 * A file (host ELF, relocatable object, standalone cubin, fatbin or PTX) is
 * described by a struct elfscan_file: its fatbin containers, the images in
 * them (SASS cubins, PTX, LTO-IR) and the problems met on the way.
 *
 * Ownership: a struct elfscan_file owns its arrays; elfscan_file_release()
 * frees them. Strings reached through an image (identifier, options) are
 * borrowed views into the scanned buffer and live only as long as that
 * buffer (for elfscan_scan_path(), as long as the struct elfscan_file,
 * which keeps its mapping until released).
 *
 * Errors: functions return 0 or a negative errno-style code. The library
 * never prints, never exits and keeps no global state; distinct
 * struct elfscan_file objects may be used from different threads.
 */
#ifndef ELFSCAN_H
#define ELFSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSCAN_VERSION "0.1.0"

/* Fatbin entry kinds, as stored in the entry header. */
enum elfscan_kind {
	ELFSCAN_KIND_PTX = 1,
	ELFSCAN_KIND_SASS = 2,
	ELFSCAN_KIND_LTOIR = 8,
};

enum elfscan_variant {
	ELFSCAN_VARIANT_NONE = 0,
	ELFSCAN_VARIANT_A, /* arch-specific, sm_90a: only exactly that arch */
	ELFSCAN_VARIANT_F, /* family-specific, sm_100f: same major, minor >= */
};

enum elfscan_codec {
	ELFSCAN_CODEC_NONE = 0,
	ELFSCAN_CODEC_LZ4,  /* raw LZ4 block */
	ELFSCAN_CODEC_ZSTD, /* zstd frame */
	ELFSCAN_CODEC_UNKNOWN,
};

/* Entry header flag bits (reference/fatbin.md 2.4). */
#define ELFSCAN_FLAG_64BIT 0x1ULL
#define ELFSCAN_FLAG_DEBUG 0x2ULL
#define ELFSCAN_FLAG_PRODUCER_CUDA 0x4ULL
#define ELFSCAN_FLAG_PRODUCER_OPENCL 0x8ULL
#define ELFSCAN_FLAG_HOST_LINUX 0x10ULL
#define ELFSCAN_FLAG_HOST_MAC 0x20ULL
#define ELFSCAN_FLAG_HOST_WINDOWS 0x40ULL
#define ELFSCAN_FLAG_COMPRESSED_OLD 0x1000ULL
#define ELFSCAN_FLAG_LZ4 0x2000ULL
#define ELFSCAN_FLAG_ZSTD 0x8000ULL
#define ELFSCAN_FLAG_OPAQUE 0x10000ULL
#define ELFSCAN_FLAG_ARCH_SPECIFIC 0x100000ULL
#define ELFSCAN_FLAG_FAMILY_SPECIFIC 0x200000ULL
#define ELFSCAN_FLAG_COMPAT_COPY 0x1000000ULL
#define ELFSCAN_FLAGS_KNOWN                                                   \
	(ELFSCAN_FLAG_64BIT | ELFSCAN_FLAG_DEBUG | ELFSCAN_FLAG_PRODUCER_CUDA |  \
	 ELFSCAN_FLAG_PRODUCER_OPENCL | ELFSCAN_FLAG_HOST_LINUX |              \
	 ELFSCAN_FLAG_HOST_MAC | ELFSCAN_FLAG_HOST_WINDOWS |                   \
	 ELFSCAN_FLAG_COMPRESSED_OLD | ELFSCAN_FLAG_LZ4 | ELFSCAN_FLAG_ZSTD |  \
	 ELFSCAN_FLAG_OPAQUE | ELFSCAN_FLAG_ARCH_SPECIFIC |                    \
	 ELFSCAN_FLAG_FAMILY_SPECIFIC | ELFSCAN_FLAG_COMPAT_COPY)

/* Result of --verify for one image. */
enum elfscan_check {
	ELFSCAN_CHECK_NOT_RUN = 0,
	ELFSCAN_CHECK_OK,
	ELFSCAN_CHECK_OPAQUE,   /* payload cannot be read (obfuscated LTO-IR) */
	ELFSCAN_CHECK_MISMATCH, /* payload disagrees with its header */
	ELFSCAN_CHECK_FAILED,   /* payload did not decompress or parse */
};

struct elfscan_image {
	unsigned kind;         /* enum elfscan_kind, or another raw value */
	unsigned arch;         /* base SM number: 75, 90, 100, 121 */
	enum elfscan_variant variant;
	enum elfscan_codec codec;
	unsigned version_major; /* PTX: ISA version; SASS: cubin ABI (1.7/1.8) */
	unsigned version_minor;
	uint64_t flags;
	uint64_t unknown_flags; /* flag bits outside ELFSCAN_FLAGS_KNOWN */
	uint64_t offset;        /* file offset of the entry header */
	uint32_t header_size;
	uint64_t stored_size;   /* payload bytes in the file (compressed size) */
	uint64_t size;          /* payload bytes once decompressed */
	size_t container;       /* index into elfscan_file.containers */
	const char *ident;      /* borrowed; not NUL-terminated; may be NULL */
	size_t ident_len;
	const char *options;    /* borrowed ptxas/cicc options; may be NULL */
	size_t options_len;
	enum elfscan_check check; /* filled by elfscan_verify() */
	/*
	 * variant is the cubin's own: its ELF header's e_flags carry the
	 * arch-specific bit (EF_CUDA_ACCELERATORS) while the entry header
	 * says plain (cuobjdump lists such a cubin as sm_50a). The header's
	 * variant was ELFSCAN_VARIANT_NONE.
	 */
	bool variant_from_cubin;
};

/* How a container was found. */
enum elfscan_found {
	ELFSCAN_FOUND_SECTION = 0, /* walked in .nv_fatbin / __nv_relfatbin */
	ELFSCAN_FOUND_MAGIC,       /* validated magic scan of another section */
	ELFSCAN_FOUND_FILE,        /* the whole file is a fatbin */
};

struct elfscan_container {
	uint64_t offset;      /* file offset of the 16-byte container header */
	uint64_t size;        /* bytes, header included */
	size_t section;       /* index into elfscan_file.sections */
	enum elfscan_found found;
	bool registered;      /* a .nvFatBinSegment wrapper points at it */
	unsigned wrapper_version; /* that wrapper's version (1, or 2 for
				     -rdc linked images); 0 when none */
	size_t first_image;   /* images[first_image .. first_image+nimages) */
	size_t nimages;
};

struct elfscan_section {
	char *name;           /* owned */
	uint64_t offset;      /* file offset */
	uint64_t size;
	uint64_t addr;
	size_t ncontainers;
};

enum elfscan_file_type {
	ELFSCAN_FILE_UNKNOWN = 0,
	ELFSCAN_FILE_ELF,    /* host ELF: executable, shared object, .o */
	ELFSCAN_FILE_CUBIN,  /* standalone device ELF (EM_CUDA) */
	ELFSCAN_FILE_FATBIN, /* standalone fatbin container(s) */
	ELFSCAN_FILE_PTX,    /* PTX text */
};

/* Problem codes, from elfscan/problems.def. */
enum elfscan_problem_code {
#define ELFSCAN_PROBLEM(code, id, severity, text) ELFSCAN_P_##code,
#include "problems.def"
#undef ELFSCAN_PROBLEM
	ELFSCAN_P_COUNT
};

struct elfscan_problem {
	enum elfscan_problem_code code;
	uint64_t offset;   /* file offset the problem is about */
	uint64_t value;    /* code-specific detail (an address, a size, bits) */
	long image;        /* index into images, or -1 */
	long container;    /* index into containers, or -1 */
	size_t section;    /* index into sections, or (size_t)-1 */
};

struct elfscan_file {
	enum elfscan_file_type type;
	int elf_class;      /* 32 or 64 for host ELF files, else 0 */
	unsigned elf_machine;
	unsigned elf_type;  /* ET_REL, ET_EXEC, ET_DYN */
	struct elfscan_section *sections;
	size_t nsections;
	struct elfscan_container *containers;
	size_t ncontainers;
	struct elfscan_image *images;
	size_t nimages;
	struct elfscan_problem *problems;
	size_t nproblems;
	size_t nwrappers;   /* .nvFatBinSegment wrappers seen */
	/*
	 * What the magic scan cost: bytes it read outside containers looking
	 * for a header (gaps, padding, sections without containers), and
	 * containers it reached by hopping from the end of the previous one.
	 */
	uint64_t magic_scanned;
	size_t magic_hops;
	/* Private: the scanned bytes, and a mapping to undo if we made it. */
	const unsigned char *buf;
	size_t len;
	void *map;
	size_t map_len;
	/*
	 * Private: while scan_path scans, the open file (peek_fd - 1; 0 when
	 * none) and a small window of it read with pread, so that walking
	 * headers far apart touches no page of the mapping.
	 */
	int peek_fd;
	unsigned char *peek;
	size_t peek_cap, peek_len;
	uint64_t peek_off;
	/*
	 * Private: the page size when buf is scan_path's own mapping (0
	 * otherwise); the magic scan then unmaps the pages it has left
	 * behind, so its resident set stays bounded (the file's pages stay
	 * in the page cache, and a later read maps them again).
	 */
	size_t drop_page;
	void *zstd; /* Private: es_payload_head's zstd context, or NULL. */
	/*
	 * Private: what the walk does with each image as it appends it, or
	 * NULL (the scan reads a cubin's e_flags there; the shim, which
	 * links the walker without the decompressors, sets nothing).
	 */
	int (*each_image)(struct elfscan_file *f, struct elfscan_image *img);
	size_t cap_sections, cap_containers, cap_images, cap_problems;
};

/* Options for a scan. Zero-initialise, then set what you need. */
struct elfscan_options {
	bool no_magic_scan; /* only the known fatbin sections */
	/*
	 * Skip the .nvFatBinSegment cross-check (registered stays false, no
	 * wrapper problem): for a caller that only lists images. It reads
	 * every dynamic relocation: 9 MB of them in cuBLASLt.
	 */
	bool no_registration;
	/*
	 * Threads that scan sections beside the caller's (0: none). They are
	 * started only when two sections or more have much to search
	 * (cuBLASLt: .ldata, .cask_resource, .rodata); results do not
	 * depend on it.
	 */
	unsigned threads;
};

void elfscan_file_init(struct elfscan_file *f);
/* Frees everything the file owns and unmaps a mapping made by scan_path. */
void elfscan_file_release(struct elfscan_file *f);

/*
 * Scan len bytes at buf. The buffer must stay valid and unchanged while f
 * is used (images point into it). f must be initialised. Returns 0 on
 * success (problems met in the data are recorded in f->problems, and are
 * not failures), -ENOMEM, or -EINVAL when the bytes are no kind of file
 * this library reads (f->type stays ELFSCAN_FILE_UNKNOWN).
 */
int elfscan_scan_buffer(struct elfscan_file *f, const void *buf, size_t len,
			const struct elfscan_options *opt);

/*
 * How elfscan_scan_path opens a path. By default (and with fn NULL) it
 * never opens anything but a regular file: the path is opened O_PATH,
 * checked with fstat, and only a regular file reopened for reading
 * through that descriptor (a device's open is a side effect). A caller
 * sets its own (cudatrace's: files pinned by descriptor, ps) with the
 * same contract: a descriptor that fstat describes, readable only when
 * it is a regular file, or -1 with errno.
 */
void elfscan_set_opener(int (*fn)(const char *path, int flags));

/*
 * Map the file at path read-only and scan it; f keeps the mapping until
 * released. Returns 0, a negative errno from open/fstat/mmap (-EISDIR for a
 * directory), or what elfscan_scan_buffer() returns.
 */
int elfscan_scan_path(struct elfscan_file *f, const char *path,
		      const struct elfscan_options *opt);
/*
 * The same for a file already open for reading (fd stays the caller's:
 * it is not kept, nor closed): for a caller that must know the scanned
 * file is the one it checked with fstat (a cache keyed by it).
 */
int elfscan_scan_fd(struct elfscan_file *f, int fd,
		    const struct elfscan_options *opt);

/*
 * Decompress every image payload and check it against its header: cubin
 * e_flags (ABI v7 and v8 layouts), ELF type and ABI version; PTX .version
 * and .target. Sets each image's check field and records a problem for
 * every disagreement. Returns 0 or -ENOMEM.
 */
int elfscan_verify(struct elfscan_file *f);

/*
 * Kernels: whether device code defines an entry function (a kernel). A
 * fatbin without one cannot fail a launch. These read payloads
 * (decompressing them), so ask only where the answer matters.
 */

/*
 * Image i of f: SASS by its cubin's symbol table (a defined STT_FUNC
 * marked STO_CUDA_ENTRY), PTX by an .entry directive. Returns 1, 0,
 * -ENODATA when it cannot be told (LTO-IR, an opaque or unknown kind, a
 * payload that does not decompress or parse), -EINVAL for a bad index, or
 * -ENOMEM. Reads f only: safe from several threads on one f.
 */
int elfscan_image_has_kernel(const struct elfscan_file *f, size_t i);
/*
 * Container c of f: 1 at the first SASS or PTX image that defines a
 * kernel (uncompressed ones read first), 0 when every one was read and
 * none does, -ENODATA when some could not be told (and none had one) or
 * there is none, -EINVAL, -ENOMEM.
 */
int elfscan_container_has_kernel(const struct elfscan_file *f, size_t c);
/*
 * The kernels SASS image i of f defines: each(name, len, arg) for every
 * defined STT_FUNC marked STO_CUDA_ENTRY in its symbol tables (name is not
 * NUL-terminated past len; a nonzero return stops the walk and is
 * returned). Returns 0, -ENODATA (not SASS, opaque, a payload that does
 * not decompress or parse, or no symbol table), -EINVAL, -ENOMEM. Reads
 * f only.
 */
int elfscan_image_kernels(const struct elfscan_file *f, size_t i,
			  int (*each)(const char *name, size_t len, void *arg), void *arg);
/* The same for a device ELF or PTX text in a buffer (-EBADMSG: no cubin). */
int elfscan_cubin_has_kernel(const void *buf, size_t len);
int elfscan_ptx_has_kernel(const char *text, size_t len);

/* Number of bytes for the arch strings below, with the NUL. */
#define ELFSCAN_ARCH_NAME_MAX 24

/*
 * The image's arch as users spell it: "sm_90a" for SASS, "compute_90a" for
 * PTX, "lto_80" for LTO-IR, "kind7_80" for unknown kinds. Returns buf.
 */
char *elfscan_image_arch_name(const struct elfscan_image *img, char *buf,
			      size_t size);
/* "sass", "ptx", "ltoir", or "unknown". */
const char *elfscan_kind_name(unsigned kind);
/* "none", "lz4", "zstd", "unknown". */
const char *elfscan_codec_name(enum elfscan_codec codec);
/* "section", "magic-scan", "file". */
const char *elfscan_found_name(enum elfscan_found found);

/* A short stable identifier for the problem code: "junk-in-section". */
const char *elfscan_problem_id(enum elfscan_problem_code code);
/* True for problems that mean the file is damaged, false for notes. */
bool elfscan_problem_is_error(enum elfscan_problem_code code);
/* True for problems that mean nothing in the file can be trusted. */
bool elfscan_problem_is_fatal(enum elfscan_problem_code code);
/*
 * Describe a problem in words (lowercase, no full stop) into buf; returns
 * buf. Uses f for section names; f may be NULL.
 */
char *elfscan_problem_describe(const struct elfscan_file *f,
			       const struct elfscan_problem *p, char *buf,
			       size_t size);

/*
 * Low-level walkers that need no libelf, for code that sees a fatbin in
 * memory (the shim). They read only what the given length allows.
 */

/*
 * Check that a valid fatbin container starts at buf (len bytes readable):
 * magic, version, header size, and an entry chain that ends exactly at the
 * container's end with sane entries. On success stores the container's
 * size (header included) in *size and returns 0; otherwise returns
 * -EBADMSG (or -ENODATA when the magic is absent) and stores in
 * *bad_offset the offset, relative to buf, of the first bad field.
 */
int elfscan_container_validate(const void *buf, size_t len, uint64_t *size,
			       uint64_t *bad_offset);

/*
 * Parse the entry header at buf (avail bytes readable, measured to the end
 * of its container) into img; the offset fields are relative to buf. On a
 * malformed entry returns a negative code and sets *problem to the
 * matching problem code; otherwise returns 0 and leaves *problem alone.
 */
int elfscan_entry_parse(const void *buf, size_t avail,
			struct elfscan_image *img,
			enum elfscan_problem_code *problem);

/*
 * Describe a module image handed to the driver (cuModuleLoadData and
 * friends): a fatbin container, a standalone cubin or NUL-terminated PTX.
 * maxlen bounds what may be read. Fills up to nmax images (kind, arch,
 * variant, codec, sizes) and returns the number of images found (which can
 * exceed nmax), or a negative code when the bytes are none of the three.
 */
long elfscan_module_describe(const void *buf, size_t maxlen,
			     struct elfscan_image *out, size_t nmax);

#endif

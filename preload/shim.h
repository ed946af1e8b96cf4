/*
 * libcudatrace.so: the shim injected into traced programs, once through
 * LD_AUDIT (the auditor: library searches, objects opened and closed,
 * symbol bindings into the CUDA driver and runtime) and once through
 * LD_PRELOAD (the preload: dlopen requests with their flags, dlerror text,
 * exec and exit). The two are separate copies of this file in separate
 * namespaces; both append records to the same trace file.
 *
 * Rules for all of it (DESIGN.md decision 6, reference/interpose.md 3):
 * never change what the program sees (arguments, results and errno are
 * passed through untouched); no output, no exit, no helper threads, no
 * TLS, no locks held across calls into the program or the loader; hooks
 * may run before our constructor; when the trace cannot be written,
 * tracing stops quietly. Only libc is used, through symbols no newer than
 * GLIBC_2.17, and nothing but the hooks is exported.
 */
#ifndef CT_SHIM_H
#define CT_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The few functions the shim exports (preload/hooks.def lists them). */
#define CT_EXPORT __attribute__((visibility("default")))

/* Largest record; longer strings are cut and the record says so. */
#define CT_REC_MAX 4096

/* A record under construction, on the caller's stack. */
struct ct_rec {
	size_t n, cap;
	size_t mark;    /* where the field being written started */
	bool truncated; /* something was cut or left out */
	bool frozen;    /* out of room: only closing brackets from now on */
	bool first;     /* no field written yet at this nesting level */
	int skipped;    /* arrays/objects opened after freezing, not written */
	char *buf;      /* small, or a larger buffer the caller provides */
	char small[CT_REC_MAX];
};

/* record.c: the trace file and the JSON Lines writer. */

/* True when this instance runs as the auditor (set by la_version). */
extern bool ct_is_auditor;

/*
 * Starts a record {"ev":EV,"t":...,"pid":...,"tid":...}. Returns false
 * when tracing is off (then the other calls do nothing harmful and
 * ct_rec_end writes nothing).
 */
bool ct_rec_begin(struct ct_rec *r, const char *ev);
/* The same, building the record in buf (cap bytes) instead of r->small. */
bool ct_rec_begin_in(struct ct_rec *r, const char *ev, char *buf, size_t cap);
void ct_rec_str(struct ct_rec *r, const char *key, const char *val);
void ct_rec_strn(struct ct_rec *r, const char *key, const char *val,
		 size_t n);
void ct_rec_u64(struct ct_rec *r, const char *key, uint64_t v);
void ct_rec_i64(struct ct_rec *r, const char *key, int64_t v);
void ct_rec_bool(struct ct_rec *r, const char *key, bool v);
/* Nested arrays and objects: key may be NULL inside an array. */
void ct_rec_open(struct ct_rec *r, const char *key, char bracket);
void ct_rec_close(struct ct_rec *r, char bracket);
/* Closes the record and appends it to the trace in one write(2). */
void ct_rec_end(struct ct_rec *r);

/* The process-start record, once per process image (and per fork). */
void ct_trace_start(void);

/* objects.c: what the loader has mapped, without dlfcn. */

/* The path of the object containing addr ("" when none); into buf. */
const char *ct_object_of(const void *addr, char *buf, size_t size);
/*
 * The address of the default definition of name in the first object after
 * this shim in the link map (what dlsym(RTLD_NEXT) finds), or NULL.
 */
void *ct_next_symbol(const char *name);
/* The default definition of name in the object loaded at base with dyn. */
void *ct_symbol_in(uintptr_t base, const void *dyn, const char *name);
/*
 * The file that holds addr, as the loader mapped it: its path into buf and
 * the offset of addr in it. False when addr is in no object, in a part no
 * file backs (.bss, the heap), or the object's headers cannot be found.
 */
bool ct_object_file_offset(const void *addr, char *buf, size_t size, uint64_t *offset);
/* The load base and dynamic section of the object containing addr. */
bool ct_object_dynamic(const void *addr, uintptr_t *base, const void **dyn);
/* The string of dynamic tag (DT_SONAME, DT_RUNPATH) of an object, or NULL. */
const char *ct_dynamic_string(uintptr_t base, const void *dyn, long tag);

/* driver.c: wrappers of CUDA driver and runtime entry points. */

/*
 * The replacement for a binding of `name` to value in an object the
 * auditor watches (libcuda, libcudart), or value itself.
 */
uintptr_t ct_driver_bind(const char *name, uintptr_t value);

/* util.c: small libc-free helpers. */
size_t ct_strlen(const char *s);
void ct_memcpy(void *dst, const void *src, size_t n);
int ct_strcmp(const char *a, const char *b);
int ct_strncmp(const char *a, const char *b, size_t n);
const char *ct_basename(const char *path);
bool ct_has_prefix(const char *s, const char *prefix);
/*
 * The whole of a file (however large; /proc files included) in a fresh
 * anonymous mapping, NUL-terminated; *len its length, *mapped what to
 * hand ct_unmap. NULL when it cannot be opened or mapped.
 */
char *ct_map_file(const char *path, size_t *len, size_t *mapped);
void ct_unmap(char *buf, size_t mapped);
/* "/proc/self/fd/N" for descriptor fd into out. */
void ct_fd_path(int fd, char out[40]);
/*
 * A file the program names (an exec's target), opened for reading only
 * when it is a regular file: looked at with O_PATH and fstat first, then
 * reopened through /proc/self/fd, so that a link to a device is never
 * opened (opening one is a side effect). -1 otherwise, or without /proc.
 */
int ct_open_regular(const char *path);
/*
 * The process's own environment value of name, as it was at exec, copied
 * into out (size bytes); returns its length, or -1 when it is not set or
 * does not fit.
 */
long ct_initial_env(const char *name, char *out, size_t size);
/* Does s (n bytes) contain word (upper case) in any case? */
bool ct_contains_word(const char *s, size_t n, const char *word);
/* SipHash-2-4 of data under a 16-byte key. */
uint64_t ct_siphash(const unsigned char key[16], const void *data, size_t n);

#endif

/*
 * libzip, loaded on first use. Linking it would load libcrypto (through
 * libzip's encryption support) into every cudatrace process: measured at
 * 1.1 ms per start here, most of the cost of scanning a small library.
 */
#ifndef CT_ZIPLOAD_H
#define CT_ZIPLOAD_H

#include <stddef.h>
#include <zip.h>

/* The libzip functions cudatrace calls, once. */
#define CT_ZIP_FUNCTIONS(X)                                                   \
	X(zip_fdopen) X(zip_discard) X(zip_get_num_entries) X(zip_get_name)     \
	X(zip_stat_index) X(zip_fopen_index) X(zip_fread) X(zip_fclose)       \
	X(zip_strerror) X(zip_file_strerror) X(zip_error_init_with_code)      \
	X(zip_error_strerror) X(zip_error_fini)

struct ct_zip {
#define CT_ZIP_MEMBER(name) __typeof__(&name) name;
	CT_ZIP_FUNCTIONS(CT_ZIP_MEMBER)
#undef CT_ZIP_MEMBER
};

/*
 * The loaded table (kept for the life of the process), or NULL with the
 * reason in why. Not thread-safe; the CLI is single-threaded.
 */
const struct ct_zip *ct_zip_load(char *why, size_t size);

#endif

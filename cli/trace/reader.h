/*
 * The reader of one trace file, shared by its pieces (cli/README, trace/):
 * read_file.c reads a file's lines, records.c turns each record into the
 * process's typed records, decode.c the JSON values they hold, searches.c
 * answers the searches at the end of the file; read_dir.c reads a
 * folder's files with them. Not for other layers or modules: trace.h is
 * the interface.
 *
 * Ownership: a reader's tables live in its own arena and arrays, freed by
 * ct_reader_release; the process it fills and the typed records' strings
 * belong to the sink (the trace's arena, or a reading thread's). One
 * reader is used by one thread.
 */
#ifndef CT_READER_H
#define CT_READER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "jsonparse.h"
#include "trace_internal.h"

/*
 * While a file is read, joins go through hash tables (in the reader's own
 * arena, freed with it) and pointers into arrays that grow are kept as
 * indices, turned into pointers once the process is complete.
 */
struct by_id {                       /* a search id: its latest search */
	int64_t id;
	size_t search;
	UT_hash_handle hh;
};

struct by_tid {                      /* a thread */
	int64_t tid;
	size_t pending;              /* its dlopen waiting for a search: index + 1 */
	size_t last_request;         /* its latest dlopen: index + 1 */
	size_t last_search;          /* that dlopen's own search: index + 1; 0: none yet */
	size_t open_search;          /* its latest search, not yet followed by another
					record of the thread: index + 1 */
	UT_hash_handle hh;
};

struct by_path {                     /* an object's path */
	const char *path;
	size_t first;                /* its first object: index */
	size_t open;                 /* its latest one not closed: index + 1 */
	UT_hash_handle hh;
};

/*
 * Where a file's records go: the trace's arena and strings, or a reading
 * thread's own (adopted by the trace afterwards). The trace itself is read
 * only (its options), but for its table of what the file system said,
 * which lock guards when threads share it.
 */
struct sink {
	struct ct_trace *t;
	struct ct_arena *arena;
	struct ct_intern *strings;
	pthread_mutex_t *lock;       /* t->stats; NULL: one thread */
};

struct reader {
	const struct sink *k;
	struct ct_proc *p;
	struct ct_arena *arena;      /* the sink's: typed records go there */
	struct ct_intern *strings;   /* their strings, each kept once */
	const struct ct_image_rec *last_images; /* the latest module's images */
	size_t nlast_images;
	struct ct_arena own;         /* the tables below */
	struct by_id *ids;
	struct by_tid *tids;
	struct by_path *paths;
	size_t *search_request;      /* per search: request index + 1 */
	size_t *search_found;        /* per search: object index + 1 */
	size_t *object_search;       /* per object: search index + 1 */
	size_t *object_below;        /* per object: the one open before it on its path, + 1 */
	bool program_seen;           /* the program's own open record was read */
	size_t searches_before, objects_before; /* the searches and opens before it */
};

static inline struct by_path *find_path(struct by_path *paths, const char *path)
{
	struct by_path *e;

	HASH_FIND(hh, paths, path, strlen(path), e);
	return e;
}

/*
 * A string kept: the parsed record lives only as long as its line. Once
 * for all the records and processes that repeat it.
 */
static inline const char *keep(struct reader *rd, const char *s)
{
	return s ? ct_intern(rd->strings, s) : NULL;
}

static inline const char *kstr(struct reader *rd, const struct ct_jv *v, const char *key,
			       const char *fallback)
{
	const char *s = ct_jstr(v, key, NULL);

	return s ? keep(rd, s) : fallback;
}

/* ---- records.c: a file's records into the process p ------------------------------ */

/* Start reading into p (its records' strings and arrays in k's). */
void ct_reader_init(struct reader *rd, const struct sink *k, struct ct_proc *p);
/* One record (an object with an "ev", well typed: rectypes.h). */
void ct_reader_record(struct reader *rd, const struct ct_jv *v);
/* The file is read: indices to pointers, and what can only be known at the end. */
void ct_reader_finish(struct reader *rd);
/* Free the reader's tables (not the process). */
void ct_reader_release(struct reader *rd);

/* ---- decode.c: JSON values into typed records, in the reader's arena -------------- */

/* The strings of an array (anything else left out); *n of them. */
const char **ct_decode_strings(struct reader *rd, const struct ct_jv *v, size_t *n);
/* An object's members as names and values (NULL when not a string). */
struct ct_var *ct_decode_vars(struct reader *rd, const struct ct_jv *v, size_t *n);
/* A module record's images, each list kept once (intern.h); *n of them. */
const struct ct_image_rec *ct_decode_images(struct reader *rd, const struct ct_jv *v,
					    size_t *n);
/* A driver record into d; it replaces what an earlier one said. */
void ct_decode_driver(struct reader *rd, struct ct_driver_rec *d, const struct ct_jv *v);
/*
 * A count a record gives: absent is 0; negative, above CT_TRACE_COUNT_MAX
 * or not an integer is refused (counted in the process's bad_values,
 * never wrapped) and reads as 0.
 */
uint64_t ct_decode_count(struct reader *rd, const struct ct_jv *v, const char *key);

/* ---- searches.c ---------------------------------------------------------------------- */

/*
 * At the end of the file, with every pointer set: the searches that
 * opened nothing but found an object already mapped (found,
 * already_loaded). Asks the file system through the sink's table.
 */
void ct_searches_already_loaded(struct reader *rd);

/* ---- read_file.c: one file into a process ------------------------------------------ */

/* What reading one file came to, before it is counted in the trace. */
enum file_outcome {
	FILE_UNREADABLE,             /* could not be opened: a bad file */
	FILE_FOREIGN,                /* another user's, left out unread */
	FILE_OTHER_RUN,              /* another run's (its first record says) */
	FILE_EMPTY,                  /* no record at all: a bad file */
	FILE_NO_START,               /* records, but no start record: no process */
	FILE_PROC,                   /* a process */
};

struct file_result {
	enum file_outcome what;
	struct ct_proc proc;         /* FILE_PROC: the caller's to count or release */
	size_t records;              /* records read, counted in the total */
	uint64_t bytes;              /* bytes read, counted in the total */
	bool done;                   /* read (by a thread) */
};

/* The records in all a trace may read. */
size_t ct_trace_records_max(const struct ct_trace *t);

/*
 * Read the file at path into res, as if records_before records and
 * bytes_before bytes of the trace were read before it (the total
 * limits). The trace is not changed (read_dir.c counts res in it); with
 * k->lock, several threads may read files of one trace at once.
 */
void ct_trace_read_file(const struct sink *k, const char *path, size_t records_before,
			uint64_t bytes_before, struct file_result *res);

#endif

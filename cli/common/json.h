/*
 * A small streaming JSON writer. The writer keeps the comma/colon state;
 * callers emit keys and values in order. Strings are escaped; bytes that
 * are not valid UTF-8 are written as \u00XX (their Latin-1 reading), so
 * any path round-trips into valid JSON.
 */
#ifndef CT_JSON_H
#define CT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CT_JSON_MAX_DEPTH 32

struct ct_json {
	FILE *out;
	int depth;
	bool first[CT_JSON_MAX_DEPTH];
	bool after_key;
};

void ct_json_init(struct ct_json *j, FILE *out);
void ct_json_object_begin(struct ct_json *j);
void ct_json_object_end(struct ct_json *j);
void ct_json_array_begin(struct ct_json *j);
void ct_json_array_end(struct ct_json *j);
void ct_json_key(struct ct_json *j, const char *key);
void ct_json_string(struct ct_json *j, const char *s);
void ct_json_string_n(struct ct_json *j, const char *s, size_t n);
void ct_json_u64(struct ct_json *j, uint64_t v);
void ct_json_i64(struct ct_json *j, int64_t v);
void ct_json_bool(struct ct_json *j, bool v);
void ct_json_null(struct ct_json *j);
/* key + value in one call. A NULL string writes null. */
void ct_json_kv_string(struct ct_json *j, const char *key, const char *s);
void ct_json_kv_u64(struct ct_json *j, const char *key, uint64_t v);
void ct_json_kv_bool(struct ct_json *j, const char *key, bool v);
/* key: an array of the space-separated words ("none": empty). */
void ct_json_words(struct ct_json *j, const char *key, const char *words);
/*
 * Ends the document with a newline. Returns 0, or -1 (errno EIO) when a
 * write to the stream already failed. It does not flush: the stream's
 * owner flushes and checks it once, at the end, and says why it failed
 * (ct_cmd_flush), since a failed flush keeps no cause for a later one.
 */
int ct_json_finish(struct ct_json *j);

#endif

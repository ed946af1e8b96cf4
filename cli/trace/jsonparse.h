/*
 * A small JSON parser for trace records. Values live in an arena that the
 * caller owns and frees in one go; parse errors are reported, never
 * fatal, since traces are untrusted input (a crashed process leaves a
 * half-written last line).
 */
#ifndef CT_JSONPARSE_H
#define CT_JSONPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* CT_J_UINT: an integer above INT64_MAX that fits 64 bits (an inode number). */
enum ct_jtype { CT_J_NULL, CT_J_BOOL, CT_J_INT, CT_J_UINT, CT_J_NUM, CT_J_STR, CT_J_ARR,
		CT_J_OBJ };

struct ct_jv {
	enum ct_jtype type;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		struct {
			const char *s; /* NUL-terminated; may hold NULs (len) */
			size_t len;
		} str;
		struct {
			struct ct_jv **items; /* arrays: values; objects: values */
			const char **keys;    /* objects only */
			size_t n;
			bool dup;             /* an object holding a key twice
						 (ct_json_parse_record only) */
		} c;
	} u;
};

/*
 * Parse one JSON value from text[0..len). Returns the value (allocated in
 * a), or NULL with a short reason in *err (a static string, or one kept in
 * a: "duplicate key 'schema'"). Trailing whitespace is allowed, anything
 * else after the value is an error. Nesting is limited to 64. An object
 * that holds a key twice is refused (readers disagree on which one counts:
 * ct_jget reads the first, Python's json the last), and so is a key that
 * holds a NUL (it would read as the key before the NUL).
 */
struct ct_jv *ct_json_parse(struct ct_arena *a, const char *text, size_t len,
			    const char **err);
/*
 * The same with at most max_values values in all (the outermost one, every
 * member and every item count): past it NULL with *err == ct_json_too_many,
 * so a caller can tell a value over its limit from a broken one. The arena
 * then holds at most about 100 bytes per value on top of the text's length.
 */
struct ct_jv *ct_json_parse_max(struct ct_arena *a, const char *text, size_t len,
				size_t max_values, const char **err);
extern const char ct_json_too_many[];
/*
 * ct_json_parse_max on text the caller lets it write: a string without
 * escapes is a view into text, its closing quote overwritten by a NUL (a
 * trace's records are mostly such strings: no copy of each). text must
 * live as long as the values; what it holds afterwards is not JSON.
 */
struct ct_jv *ct_json_parse_inplace(struct ct_arena *a, char *text, size_t len,
				    size_t max_values, const char **err);
/*
 * ct_json_parse_inplace for a trace record: an object that holds a key
 * twice is not refused but marked (c.dup), and its caller decides (a start
 * record's env and ranks copy the environment, where a name may be set
 * twice; rectypes.h refuses every other). ct_jget reads the first.
 */
struct ct_jv *ct_json_parse_record(struct ct_arena *a, char *text, size_t len,
				   size_t max_values, const char **err);

/* Member lookup; NULL when absent or when v is not an object. */
const struct ct_jv *ct_jget(const struct ct_jv *v, const char *key);
/* Typed getters with a fallback for absent or mistyped members. */
const char *ct_jstr(const struct ct_jv *v, const char *key, const char *fallback);
int64_t ct_jint(const struct ct_jv *v, const char *key, int64_t fallback);
/* A non-negative integer of up to 64 bits (INT or UINT). */
uint64_t ct_ju64(const struct ct_jv *v, const char *key, uint64_t fallback);
bool ct_jbool(const struct ct_jv *v, const char *key, bool fallback);

#endif

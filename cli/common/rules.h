/*
 * The dynamic loader's rules as one vocabulary (include/ct_rules.def),
 * shared by the trace reader, the loader model and the printers: how a
 * library was found, or that it was not.
 */
#ifndef CT_RULES_H
#define CT_RULES_H

#include <stdbool.h>
#include <stddef.h>

enum ct_rule {
	CT_RULE_UNKNOWN, /* "unknown": not said, or spelled in a way this version does not know */
#define CT_RULE(name, id, words) CT_RULE_##name,
#include "ct_rules.def"
#undef CT_RULE
};

/* The rule a trace or JSON names ("runpath"); CT_RULE_UNKNOWN otherwise. NULL-safe. */
enum ct_rule ct_rule_parse(const char *id);
/* Its stable identifier for traces and JSON ("ld_library_path", "unknown"). */
const char *ct_rule_id(enum ct_rule r);
/* As users read it: "LD_LIBRARY_PATH", "RUNPATH", "default directory"; "?" when unknown. */
const char *ct_rule_words(enum ct_rule r);
/*
 * A folder of a search path in words, as the loader tried it (the first len
 * bytes of dir, a candidate's path): an empty entry of RPATH, RUNPATH or
 * LD_LIBRARY_PATH ("" before the file name) is "the working directory (an
 * empty entry)", a relative one "lib (under the working directory)": the
 * loader looks there from wherever the program was started. Into buf.
 */
const char *ct_search_dir_words(const char *dir, size_t len, char *buf, size_t size);
/* Is path relative: a candidate or an object found from the working directory? */
bool ct_path_relative(const char *path);

/* RPATH or RUNPATH: a rule that belongs to an object's own dynamic section. */
static inline bool ct_rule_is_own_path(enum ct_rule r)
{
	return r == CT_RULE_RPATH || r == CT_RULE_RUNPATH;
}

#endif

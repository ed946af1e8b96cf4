/*
 * The type of every field of a trace record, as docs/trace-format.md and
 * docs/schema/trace-record.schema.json give it. A record with a field of
 * another type did not come from cudatrace's shim: the reader counts it as
 * a bad record instead of reading it as "process 0" or a library with an
 * empty name. Fields and record types not listed pass (a reader ignores
 * what it does not know); a count (dropped's records) is checked where it
 * is read, as a bad value. A record with an object that holds a key twice
 * (ct_json_parse_record marks it) is refused too, but for a start record's
 * env and ranks, which copy the environment as it was.
 */
#ifndef CT_RECTYPES_H
#define CT_RECTYPES_H

#include <stdbool.h>

#include "jsonparse.h"

/*
 * Does every field of the record v (an object with an "ev") have its type,
 * and has it the fields its type must have (a start record's pid above 0,
 * a search's name not empty)?
 */
bool ct_record_well_typed(const struct ct_jv *v);

#endif

/*
 * The "schema" member of every --json document, its first: what the
 * document is and the version of its shape, "cudatrace.<kind>/<N>",
 * described by docs/schema/<kind>.schema.json (docs/schema/README.md).
 * N grows when a reader could be misled: a member removed or renamed, or
 * its type or meaning changed. A new member keeps N, and goes into the
 * schema in the same change (the tests validate every document the suite
 * produces, and a schema allows no member it does not name).
 */
#ifndef CT_SCHEMA_H
#define CT_SCHEMA_H

#define CT_SCHEMA_SCAN "cudatrace.scan/1"
#define CT_SCHEMA_CHECK "cudatrace.check/1"
#define CT_SCHEMA_LDD "cudatrace.ldd/1"
#define CT_SCHEMA_WHY "cudatrace.why/1"
#define CT_SCHEMA_DOCTOR "cudatrace.doctor/1"
/* report --json, and run --json FILE: the same document */
#define CT_SCHEMA_REPORT "cudatrace.report/1"
/* ps --json without PIDs (with PIDs: the report's document) */
#define CT_SCHEMA_PS "cudatrace.ps/1"
/* diff --json */
#define CT_SCHEMA_DIFF "cudatrace.diff/1"

#endif

/* The commands of cudatrace (cmd_*.c), called by main.c. */
#ifndef CT_COMMANDS_H
#define CT_COMMANDS_H

#include <stddef.h>

#include "targets.h"

/* shared.c: the commands' messages, "cudatrace: <message>" on stderr. */
extern const char *ct_progname;
void ct_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ct_parse_targets (targets.h), saying why on stderr; 0 or -1. */
int ct_cmd_targets(const char *list, struct elfscan_target *targets,
		   char names[][CT_TARGET_NAME], size_t *n, size_t max);

struct ct_loader;
/*
 * The loader model of this machine (its loader's facts, ld.so.cache and
 * this environment, with a stand-in program) that run and report judge a
 * trace on. ct_loader_release frees it.
 */
void ct_machine_open(struct ct_loader *L);

int ct_cmd_run(int argc, char **argv);
int ct_cmd_scan(int argc, char **argv);
int ct_cmd_check(int argc, char **argv);
int ct_cmd_ldd(int argc, char **argv);
int ct_cmd_why(int argc, char **argv);
int ct_cmd_doctor(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);

#endif

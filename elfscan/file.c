/*
 * The scan's result, struct elfscan_file (elfscan.h): its lifetime, and
 * its problems in words (problems.def). Below every reader of the
 * library, which fill it: nothing here reads a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

void elfscan_file_init(struct elfscan_file *f)
{
	memset(f, 0, sizeof(*f));
}

void elfscan_file_release(struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nsections; i++)
		free(f->sections[i].name);
	free(f->sections);
	free(f->containers);
	free(f->images);
	free(f->problems);
	free(f->peek);
	es_payload_release(f);
	if (f->map)
		munmap(f->map, f->map_len);
	elfscan_file_init(f);
}

static const struct {
	const char *id;
	int error;
	const char *text;
} problem_table[] = {
#define ELFSCAN_PROBLEM(code, id, severity, text) { id, severity, text },
#include "problems.def"
#undef ELFSCAN_PROBLEM
};

const char *elfscan_problem_id(enum elfscan_problem_code code)
{
	return (unsigned)code < ELFSCAN_P_COUNT ? problem_table[code].id
						: "unknown";
}

bool elfscan_problem_is_error(enum elfscan_problem_code code)
{
	return (unsigned)code < ELFSCAN_P_COUNT && problem_table[code].error;
}

bool elfscan_problem_is_fatal(enum elfscan_problem_code code)
{
	return (unsigned)code < ELFSCAN_P_COUNT && problem_table[code].error > 1;
}

char *elfscan_problem_describe(const struct elfscan_file *f,
			       const struct elfscan_problem *p, char *buf,
			       size_t size)
{
	const char *t;
	size_t n = 0;

	if (size == 0)
		return buf;
	t = (unsigned)p->code < ELFSCAN_P_COUNT ? problem_table[p->code].text
						: "unknown problem";
	while (*t && n + 1 < size) {
		char tmp[64];
		const char *ins = NULL;

		if (strncmp(t, "{off}", 5) == 0) {
			snprintf(tmp, sizeof(tmp), "0x%llx",
				 (unsigned long long)p->offset);
			ins = tmp;
			t += 5;
		} else if (strncmp(t, "{val}", 5) == 0) {
			snprintf(tmp, sizeof(tmp), "0x%llx",
				 (unsigned long long)p->value);
			ins = tmp;
			t += 5;
		} else if (strncmp(t, "{dec}", 5) == 0) {
			snprintf(tmp, sizeof(tmp), "%llu",
				 (unsigned long long)p->value);
			ins = tmp;
			t += 5;
		} else if (strncmp(t, "{sec}", 5) == 0) {
			ins = f && p->section < f->nsections
				      ? f->sections[p->section].name
				      : "?";
			t += 5;
		} else {
			buf[n++] = *t++;
			continue;
		}
		while (*ins && n + 1 < size)
			buf[n++] = *ins++;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Building doctor's model (doctor_model.h): the commands' side of it,
 * apart from the model's types so that the views, which include those,
 * see no target type of the scanner's.
 */
#ifndef CT_DOCTOR_BUILD_H
#define CT_DOCTOR_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "doctor_model.h"
#include "targets.h"

struct ct_doctor_options {
	const char *python;        /* --python, or NULL: the interpreters a user runs */
	/* --arch's targets and their names; none: the GPUs the driver reports */
	const struct elfscan_target *targets;
	const char (*target_names)[CT_TARGET_NAME];
	size_t ntargets;
	bool arch_given;           /* --arch was given */
};

/* Why ct_doctor_model_build failed. */
enum ct_doctor_failure {
	CT_DOCTOR_NO_PYTHON = 1,   /* --python cannot be used: the errno returned says why */
	CT_DOCTOR_NO_LOADER,       /* the loader model cannot start: *why says why (may be NULL) */
};

/*
 * Examine this machine, judge its runtimes and Python packages, gather
 * the findings, into m. Returns 0; or a negative errno with *failure set
 * (and *why for CT_DOCTOR_NO_LOADER), m then holding nothing. Runs the
 * driver's own queries and nothing else; reads the loader's folders, the
 * interpreters' files and the packages' objects. m must be released
 * either way.
 */
int ct_doctor_model_build(struct ct_doctor_model *m, const struct ct_doctor_options *o,
			  enum ct_doctor_failure *failure, const char **why);

#endif

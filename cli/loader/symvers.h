#ifndef CT_SYMVERS_H
#define CT_SYMVERS_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

/*
 * A version an object needs (VERNEED) that the object its lookup
 * resolved to does not define (VERDEF): the symbol-version-missing case.
 */
struct ct_version_gap {
	const struct ct_lobj *requester;
	const struct ct_lobj *lacking;   /* the copy that lacks it */
	const struct ct_verneed *need;
	/*
	 * The version is there but not this symbol under it (NVIDIA's
	 * libraries put every symbol under one version, libnvJitLink.so.12):
	 * "undefined symbol: SYMBOL, version VERSION". NULL: the version
	 * itself is missing ("version `VERSION' not found").
	 */
	const char *missing_symbol;
	size_t nmissing;                 /* symbols of that version missing */
	char *having;                    /* a copy that defines it, or NULL */
	char having_where[160];          /* "RUNPATH of libx.so, later in the order",
					    "pip wheel", ... */
};

/* Every gap in the loaded objects; *n of them, to free with ct_version_gaps_free. */
struct ct_version_gap *ct_version_gaps(struct ct_loader *L, size_t *n);
void ct_version_gaps_free(struct ct_version_gap *g, size_t n);

#endif

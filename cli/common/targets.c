/* The --arch option; see targets.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "targets.h"
#include "util.h"

int ct_parse_targets(const char *list, struct elfscan_target *targets,
		     char names[][CT_TARGET_NAME], size_t *n, size_t max, char *why,
		     size_t size)
{
	char *copy = ct_xstrdup(list), *tok, *next;
	int rc = 0;

	/* strsep, not strtok: an empty element is an error, not skipped. */
	for (next = copy; rc == 0 && (tok = strsep(&next, ","));) {
		if (strcmp(tok, "native") == 0) {
			char reason[512];
			int got = ct_gpu_targets(targets + *n, (int)(max - *n), reason,
						 sizeof(reason));
			int k;

			if (got < 0) {
				snprintf(why, size, "--arch native: %s", reason);
				rc = -1;
				break;
			}
			for (k = 0; k < got; k++)
				elfscan_target_name(&targets[*n + (size_t)k], names[*n + (size_t)k],
						    CT_TARGET_NAME);
			*n += (size_t)got;
			continue;
		}
		if (*n == max) {
			snprintf(why, size, "--arch: at most %zu targets", max);
			rc = -1;
			break;
		}
		if (elfscan_target_parse(tok, &targets[*n]) != 0) {
			snprintf(why, size,
				 "--arch: '%s' is not an arch (sm_90, sm_90a, sm_100f, 9.0, 90 or "
				 "native)",
				 tok);
			rc = -1;
			break;
		}
		/* Spell it as users do: sm_90, whatever the input. */
		elfscan_target_name(&targets[*n], names[*n], CT_TARGET_NAME);
		(*n)++;
	}
	free(copy);
	return rc;
}

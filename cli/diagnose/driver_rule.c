/* driver-too-old, the one rule and its one fix; see driver_rule.h. */
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "cuda_errors.h"
#include "driver_rule.h"
#include "findings.h"

bool ct_driver_too_old(int runtime, int driver)
{
	return runtime > 0 && driver > 0 && runtime / 1000 > driver / 1000;
}

/* The fix's first line: the driver runtime's major needs. */
static void fix_update(struct ct_finding *f, int runtime)
{
	const char *family = runtime > 0 ? ct_family_driver(runtime / 1000) : NULL;

	/* From the family's first driver on, minor-version compatibility runs all of it. */
	if (family)
		ct_finding_fix(f, "update the driver to %s or newer (any driver of that branch runs "
				  "every CUDA %d release);",
			       family, runtime / 1000);
	else if (runtime > 0)
		ct_finding_fix(f, "update the driver to one for CUDA %d or newer;", runtime / 1000);
	else
		ct_finding_fix(f, "update the driver;");
}

static void fix_compat(struct ct_finding *f, const char *compat_dir, const char *compat_release)
{
	if (compat_dir)
		ct_finding_fix_line(f, "or, on a data-center GPU, put '%s' first on LD_LIBRARY_PATH "
				       "(forward compatibility, libcuda %s)",
				    compat_dir, compat_release ? compat_release : "of a newer release");
}

/*
 * Libraries built for a newer CUDA than the driver's, in a process of the
 * driver's CUDA: their builds for the driver's CUDA, by pip package when
 * known (ct_pip_package), each once.
 */
static void fix_libraries(struct ct_finding *f, const struct ct_driver_need *n)
{
	int major = n->driver / 1000;
	char pkgs[512] = "", buf[64];
	size_t i, len;

	fix_update(f, n->runtime);
	for (i = 0; i < n->nlibraries; i++) {
		const char *p = ct_pip_package(n->libraries[i], major, buf, sizeof(buf));
		const char *hit = p ? strstr(pkgs, p) : NULL;

		len = p ? strlen(p) : 0;
		/* A whole name already listed: "nvidia-cublas-cu12" is not in "...-cu12x". */
		while (hit && hit[len] != '\0' && hit[len] != ',')
			hit = strstr(hit + 1, p);
		if (!p || hit)
			continue;
		snprintf(pkgs + strlen(pkgs), sizeof(pkgs) - strlen(pkgs), "%s%s", pkgs[0] ? ", " : "",
			 p);
	}
	if (n->no_pip)
		ct_finding_fix_line(f, "or use builds of those libraries for CUDA %d%s", major,
				    n->compat_dir ? ";" : "");
	else if (pkgs[0])
		ct_finding_fix_line(f, "or use builds of those libraries for CUDA %d (pip: %s)%s",
				    major, pkgs, n->compat_dir ? ";" : "");
	else
		ct_finding_fix_line(f, "or use builds of those libraries for CUDA %d (pip: the -cu%d "
				       "packages)%s",
				    major, major, n->compat_dir ? ";" : "");
	fix_compat(f, n->compat_dir, n->compat_release);
}

void ct_driver_fix(struct ct_finding *f, int runtime, int driver, const char *compat_dir,
		   const char *compat_release, bool pip)
{
	const char *more = compat_dir ? ";" : "";

	fix_update(f, runtime);
	if (driver > 0 && !pip)
		ct_finding_fix_line(f, "or use a CUDA %d runtime: builds of the program's CUDA "
				       "libraries for CUDA %d%s",
				    driver / 1000, driver / 1000, more);
	else if (driver > 0)
		ct_finding_fix_line(f, "or use a CUDA %d runtime: a build of your framework for "
				       "CUDA %d (pip: the -cu%d wheels)%s",
				    driver / 1000, driver / 1000, driver / 1000, more);
	else
		ct_finding_fix_line(f, "or use a build of your framework for the CUDA version the "
				       "driver supports%s",
				    more);
	fix_compat(f, compat_dir, compat_release);
}

struct ct_finding *ct_driver_rule(struct ct_findings *fs, const struct ct_driver_need *n)
{
	const char *release = n->driver_release ? n->driver_release : "";
	char need[32], have[32], rw[48];
	struct ct_finding *f;
	size_t i;

	if (!ct_driver_too_old(n->runtime, n->driver))
		return NULL;
	ct_cuda_version_words(n->runtime, need, sizeof(need));
	ct_cuda_version_words(n->driver, have, sizeof(have));
	if (n->seen == CT_DRIVER_SEEN_PROCESS && n->library) {
		f = ct_finding_add(fs, CT_F_DRIVER_TOO_OLD, n->driver_path,
				   "the driver supports CUDA %s, %s built for CUDA %d: their kernels "
				   "fail with \"%s\"",
				   have, n->library, n->runtime / 1000, ct_cu_error_text(35));
		ct_finding_evidence(f, "driver: %s%s%s%s, supports CUDA %s", n->driver_path,
				    release[0] ? " (" : "", release, release[0] ? ")" : "", have);
		for (i = 0; i < n->nruntime_from; i++)
			ct_finding_evidence(f, "built for CUDA %d: %s", n->runtime / 1000,
					    n->runtime_from[i]);
	} else if (n->seen == CT_DRIVER_SEEN_PROCESS) {
		f = ct_finding_add(fs, CT_F_DRIVER_TOO_OLD, n->driver_path,
				   "the driver supports CUDA %s, the CUDA runtime needs %s: \"%s\"",
				   have, need, ct_cu_error_text(35));
		ct_finding_evidence(f, "driver: %s%s%s%s, supports CUDA %s", n->driver_path,
				    release[0] ? " (" : "", release, release[0] ? ")" : "", have);
		for (i = 0; i < n->nruntime_from; i++)
			ct_finding_evidence(f, "runtime: %s", n->runtime_from[i]);
	} else {
		if (n->runtime_minor_known)
			snprintf(rw, sizeof(rw), "CUDA %s", need);
		else
			snprintf(rw, sizeof(rw), "CUDA %d", n->runtime / 1000);
		f = ct_finding_add(fs, CT_F_DRIVER_TOO_OLD, n->runtime_path,
				   "the %s runtime '%s' needs a newer driver than %s%s, which "
				   "supports CUDA %s",
				   rw, n->runtime_path, release[0] ? "libcuda.so.1 " : "this one",
				   release, have);
		for (i = 0; i < n->nruntime_from; i++)
			ct_finding_evidence(f, "%s", n->runtime_from[i]);
		ct_finding_evidence(f, "the driver: %s%s%s, CUDA %s (cuDriverGetVersion)",
				    n->driver_path, release[0] ? ", version " : "", release, have);
		ct_finding_evidence(f, "programs using it fail with \"%s\" (%s, 35)",
				    ct_cu_error_text(35), ct_cu_error_name(35));
	}
	if (n->seen == CT_DRIVER_SEEN_PROCESS && n->library && n->driver > 0)
		fix_libraries(f, n);
	else
		ct_driver_fix(f, n->runtime, n->driver, n->compat_dir, n->compat_release,
			      !n->no_pip);
	return f;
}

/*
 * The rules of cudatrace doctor: the machine's facts (doctor.c) turned into
 * findings (driver-missing, no-device, driver-too-old, lib-shadowed), each
 * with its evidence and fix. docs/doctor.md says when each fires.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "cuda_errors.h"
#include "util.h"
#include "gpu.h"
#include "doctor.h"
#include "driver_rule.h"
#include "describe.h"
#include "libnames.h"
#include "findings.h"

static const char *cuda_words(int cuda, char *buf, size_t size)
{
	char v[32];

	if (cuda <= 0)
		snprintf(buf, size, "an unknown CUDA version");
	else
		snprintf(buf, size, "CUDA %s", ct_cuda_version_words(cuda, v, sizeof(v)));
	return buf;
}

static const char *dir_of(const char *path, char *buf, size_t size)
{
	const char *s = strrchr(path, '/');

	snprintf(buf, size, "%.*s", s ? (int)(s - path) : 0, path);
	return buf;
}

/* ---- rules ------------------------------------------------------------------ */

static void module_evidence(struct ct_finding *f, const struct ct_doctor_driver *drv)
{
	if (!drv->module_version[0])
		ct_finding_evidence(f, "no NVIDIA kernel module: %s/version does not exist",
				    drv->proc);
	else if (drv->module_gpus >= 0)
		ct_finding_evidence(f, "the NVIDIA kernel module %s is loaded (%s/version), "
				       "%d GPU%s", drv->module_version, drv->proc, drv->module_gpus,
				    drv->module_gpus == 1 ? "" : "s");
	else
		ct_finding_evidence(f, "the NVIDIA kernel module %s is loaded (%s/version)",
				    drv->module_version, drv->proc);
}

static void driver_missing(const struct ct_doctor *d, struct ct_findings *fs)
{
	const struct ct_doctor_driver *drv = &d->drv;
	/* The file dlopen mapped; the probe knows it only through cuInit. */
	const char *opened = drv->probe.path[0] ? drv->probe.path
			     : drv->path          ? drv->path
						  : "libcuda.so.1";
	/* The search stopped at a file the loader refuses (empty, cut short, noexec). */
	const struct ct_cand *stop = drv->search && drv->search->fatal && drv->search->ncands
					     ? &drv->search->cands[drv->search->ncands - 1]
					     : NULL;
	struct ct_finding *f;
	char rule[256], dir[4096];
	size_t i;

	if (stop && !drv->probe.opened && !drv->path)
		f = ct_finding_add(fs, CT_F_DRIVER_MISSING, stop->path,
				   "'libcuda.so.1' at %s cannot be loaded: %s", stop->path,
				   ct_cand_words(stop));
	else if (drv->probe.opened)
		f = ct_finding_add(fs, CT_F_DRIVER_MISSING, opened,
				   "'%s' is not a usable driver: %s", opened, drv->probe.error);
	else if (drv->path)
		f = ct_finding_add(fs, CT_F_DRIVER_MISSING, drv->path,
				   "'libcuda.so.1' cannot be loaded: %s", drv->probe.error);
	else
		f = ct_finding_add(fs, CT_F_DRIVER_MISSING, NULL,
				   "no NVIDIA driver: 'libcuda.so.1' is not found");
	for (i = 0; i < drv->search->ncands; i++) {
		const struct ct_cand *c = &drv->search->cands[i];

		if (c->subdir)
			continue;
		if (!c->path[0]) /* the cache, asked by name */
			ct_finding_evidence(f, "searched ld.so.cache: %s", ct_cand_words(c));
		else
			ct_finding_evidence(f, "searched %s (%s): %s", c->path,
					    ct_rule_text(c->via, c->owner, rule, sizeof(rule)),
					    ct_cand_words(c));
	}
	for (i = 0; i < drv->copies.n; i++)
		if (drv->copies.c[i].same_name)
			ct_finding_evidence(f, "a copy not on the path: %s (%s)",
					    drv->copies.c[i].path, drv->copies.c[i].where);
	module_evidence(f, drv);
	for (i = 0; i < drv->copies.n && !drv->copies.c[i].same_name; i++)
		;
	if (stop && !drv->probe.opened && !drv->path) {
		ct_finding_fix(f, "remove %s, or replace it with the driver's own libcuda.so.1: the "
				  "loader stops at it and never reaches a driver later in the order",
			       stop->path);
		if (!drv->module_version[0])
			ct_finding_fix_line(f, "no NVIDIA kernel module is loaded either: install the "
					       "NVIDIA driver, or start the container with GPU support "
					       "(docker run --gpus all)");
	} else if (i < drv->copies.n && !drv->probe.opened && !drv->path)
		ct_finding_fix(f, "put '%s' on LD_LIBRARY_PATH (or into /etc/ld.so.conf.d and run "
				  "ldconfig) if it is the driver of this machine's kernel module",
			       dir_of(drv->copies.c[i].path, dir, sizeof(dir)));
	else if (drv->probe.opened || drv->path) {
		ct_finding_fix(f, "'%s' is there but is not a working driver (a stub, another "
				  "machine's copy, a damaged or partial install): if it is not this "
				  "machine's driver, take its folder off the library path;",
			       drv->probe.opened ? opened : drv->path);
		ct_finding_fix_line(f, "else reinstall the driver's libraries%s%s (in a container: "
				       "start it with GPU support, docker run --gpus all)",
				    drv->module_version[0] ? " of version " : "",
				    drv->module_version);
	} else if (drv->module_version[0]) {
		ct_finding_fix(f, "the kernel module is there but not its library: in a container, "
				  "start it with GPU support (docker run --gpus all, with "
				  "nvidia-container-toolkit) so the host's libcuda.so.1 is "
				  "mounted;");
		ct_finding_fix_line(f, "on the host, install the driver's libraries of version %s",
				    drv->module_version);
	} else {
		ct_finding_fix(f, "install the NVIDIA driver (nvidia-smi must list the GPU), or "
				  "start the container with GPU support (docker run --gpus all, "
				  "with nvidia-container-toolkit);");
		ct_finding_fix_line(f, "on WSL the driver is in /usr/lib/wsl/lib: put it on "
				       "LD_LIBRARY_PATH");
	}
}

/* cuInit failed, or it found no GPU. */
static void no_device(const struct ct_doctor *d, struct ct_findings *fs)
{
	const struct ct_doctor_driver *drv = &d->drv;
	const struct ct_driver_probe *p = &drv->probe;
	bool mismatch = drv->module_version[0] && drv->version[0] && !drv->compat &&
			strcmp(drv->module_version, drv->version) != 0;
	const struct ct_doctor_compat *compat = NULL;
	struct ct_finding *f;
	char dir[4096];
	size_t i;

	for (i = 0; i < drv->ncompat; i++)
		if (drv->compat_libs[i].taken)
			compat = &drv->compat_libs[i];
	if (p->init_result > 0)
		f = ct_finding_add(fs, CT_F_NO_DEVICE, drv->path,
				   "the driver cannot be used: cuInit returned %d (%s: %s)",
				   p->init_result, ct_cu_error_name(p->init_result),
				   ct_cu_error_text(p->init_result));
	else
		f = ct_finding_add(fs, CT_F_NO_DEVICE, drv->path, "the driver reports no GPU");
	ct_finding_evidence(f, "libcuda.so.1: %s%s%s", drv->path ? drv->path : p->path,
			    drv->version[0] ? ", version " : "", drv->version);
	module_evidence(f, drv);
	if (drv->visible_devices)
		ct_finding_evidence(f, "CUDA_VISIBLE_DEVICES='%s'", drv->visible_devices);

	if (drv->visible_devices && (p->init_result == 100 || p->init_result == 0)) {
		ct_finding_fix(f, "CUDA_VISIBLE_DEVICES='%s' may hide every GPU: unset it, or list "
				  "GPUs that exist (indices from 0, or UUIDs from nvidia-smi -L)",
			       drv->visible_devices);
	} else if (p->init_result == 34) {
		ct_finding_fix(f, "'%s' is the CUDA toolkit's stub, for linking only: take '%s' "
				  "off LD_LIBRARY_PATH so the real driver is found",
			       drv->path ? drv->path : p->path,
			       dir_of(drv->path ? drv->path : p->path, dir, sizeof(dir)));
	} else if (compat || p->init_result == 804) {
		ct_finding_evidence(f, "forward compatibility: this libcuda.so.1 is newer than the "
				       "kernel module, which only data-center GPUs allow");
		ct_finding_fix(f, "take '%s' off LD_LIBRARY_PATH to use the installed driver, or "
				  "update the driver itself",
			       dir_of(compat ? compat->path : drv->path, dir, sizeof(dir)));
	} else if (mismatch) {
		ct_finding_evidence(f, "the kernel module is %s but libcuda.so.1 is %s: the two "
				       "come from different driver releases",
				    drv->module_version, drv->version);
		ct_finding_fix(f, "after a driver update the old module stays loaded: reboot (or "
				  "reload the nvidia modules);");
		ct_finding_fix_line(f, "in a container, do not install the driver's libraries in "
				       "the image: nvidia-container-toolkit mounts the host's");
	} else if (!drv->module_version[0]) {
		ct_finding_fix(f, "no NVIDIA kernel module is loaded here: on a host, install or "
				  "load the driver (nvidia-smi must list the GPU);");
		ct_finding_fix_line(f, "in a container, start it with GPU support (docker run "
				       "--gpus all, with nvidia-container-toolkit; on Kubernetes a "
				       "nvidia.com/gpu request)");
	} else {
		ct_finding_fix(f, "check that /dev/nvidia* exist and can be opened (container "
				  "device rules, permissions) and that nvidia-smi lists the GPU");
	}
}

/* The forward-compatibility copy that would run a runtime of this major. */
static const struct ct_doctor_compat *compat_for(const struct ct_doctor *d, int major)
{
	const char *family = ct_family_driver(major);
	size_t i;

	for (i = 0; family && i < d->drv.ncompat; i++)
		if (!d->drv.compat_libs[i].taken &&
		    atoi(d->drv.compat_libs[i].version) >= atoi(family))
			return &d->drv.compat_libs[i];
	return NULL;
}

static void runtime_words(const struct ct_doctor_runtime *r, char *buf, size_t size)
{
	if (r->taken)
		snprintf(buf, size, "%s (%s, %s): the loader takes it for %s [%s]", r->path,
			 r->version, r->where, r->soname, ct_rule_words(r->found_via));
	else
		snprintf(buf, size, "%s (%s, %s)", r->path, r->version, r->where);
}

/* driver-too-old for every copy of the majors the driver cannot run (ct_driver_rule). */
static void too_new_findings(const struct ct_doctor *d, struct ct_findings *fs)
{
	const struct ct_doctor_driver *drv = &d->drv;
	char **words = ct_xcalloc(d->nrt + 1, sizeof(*words)), dir[4096];
	size_t i, k, n;

	for (i = 0; i < d->nrt; i++) {
		const struct ct_doctor_runtime *r = &d->rt[i], *lead = r;
		const struct ct_doctor_compat *compat;
		struct ct_driver_need need = { .seen = CT_DRIVER_SEEN_MACHINE };
		struct ct_finding *f;
		bool taken = false, seen = false;

		if (r->verdict != CT_RT_TOO_NEW)
			continue;
		for (k = 0; k < i; k++)
			seen |= d->rt[k].verdict == CT_RT_TOO_NEW && d->rt[k].major == r->major;
		if (seen)
			continue;
		for (k = i, n = 0; k < d->nrt; k++)
			if (d->rt[k].verdict == CT_RT_TOO_NEW && d->rt[k].major == r->major) {
				if (d->rt[k].taken && !taken)
					lead = &d->rt[k];
				taken |= d->rt[k].taken;
				words[n] = ct_xmalloc(8192);
				runtime_words(&d->rt[k], words[n++], 8192);
			}
		/* A forward-compatibility copy is the way out without a new driver. */
		compat = compat_for(d, r->major);
		if (lead->cuda > 0)
			need.runtime = lead->cuda;
		else
			need.runtime = r->major > INT_MAX / 1000 ? INT_MAX : r->major * 1000;
		need.runtime_minor_known = lead->cuda > 0;
		need.runtime_path = lead->path;
		need.runtime_from = (const char *const *)words;
		need.nruntime_from = n;
		need.driver = drv->probe.version;
		need.driver_path = drv->path ? drv->path : drv->probe.path;
		need.driver_release = drv->version;
		need.compat_dir = compat ? dir_of(compat->path, dir, sizeof(dir)) : NULL;
		need.compat_release = compat ? compat->version : NULL;
		f = ct_driver_rule(fs, &need);
		/*
		 * Every program without RPATH/RUNPATH gets the copy the loader
		 * takes: that one fails for sure. The others fail only for
		 * programs pointed at them.
		 */
		if (f && !taken)
			f->severity = CT_SEV_WARNING;
		for (k = 0; k < n; k++) {
			free(words[k]);
			words[k] = NULL;
		}
	}
	free(words);
}

/* Newer minors of the driver's major: a note, minor-version compatibility runs them. */
static void minor_compat_findings(const struct ct_doctor *d, struct ct_findings *fs)
{
	const struct ct_doctor_driver *drv = &d->drv;
	char dw[64], rw[64], line[8192];
	size_t i, k;

	for (i = 0; i < d->nrt; i++) {
		const struct ct_doctor_runtime *r = &d->rt[i], *lead = r;
		const char *ships;
		struct ct_finding *f;
		bool taken = false, seen = false;
		int newest = r->cuda, newer;

		if (r->verdict != CT_RT_MINOR_COMPAT)
			continue;
		for (k = 0; k < i; k++)
			seen |= d->rt[k].verdict == CT_RT_MINOR_COMPAT && d->rt[k].major == r->major;
		if (seen)
			continue;
		for (k = i; k < d->nrt; k++)
			if (d->rt[k].verdict == CT_RT_MINOR_COMPAT && d->rt[k].major == r->major) {
				if (d->rt[k].taken && !taken)
					lead = &d->rt[k];
				taken |= d->rt[k].taken;
				newest = d->rt[k].cuda > newest ? d->rt[k].cuda : newest;
			}
		cuda_words(drv->probe.version, dw, sizeof(dw));
		f = ct_finding_add(fs, CT_F_DRIVER_TOO_OLD, lead->path,
				   "the %s runtime '%s' runs on the %s driver through "
				   "minor-version compatibility",
				   cuda_words(lead->cuda > 0 ? lead->cuda : newest, rw, sizeof(rw)),
				   lead->path, dw);
		f->severity = CT_SEV_INFO;
		for (k = i; k < d->nrt; k++)
			if (d->rt[k].verdict == CT_RT_MINOR_COMPAT && d->rt[k].major == r->major) {
				runtime_words(&d->rt[k], line, sizeof(line));
				ct_finding_evidence(f, "%s", line);
			}
		ct_finding_evidence(f, "the driver: %s%s%s, %s (cuDriverGetVersion)",
				    drv->path ? drv->path : drv->probe.path,
				    drv->version[0] ? ", version " : "", drv->version, dw);
		ships = ct_toolkit_driver(newest, &newer);
		ct_finding_evidence(f, "features newer than %s fail, and so does PTX the "
				       "driver's JIT cannot read (%s, 222)",
				    dw, ct_cu_error_name(222));
		ct_finding_fix(f, "nothing to do for programs that carry SASS for the GPU; "
				  "for PTX or newer features, update the driver to %s%s%s",
			       ships ? ships : "a newer release",
			       ships ? ", the one shipped with " : "",
			       ships ? cuda_words(newest, rw, sizeof(rw)) : "");
	}
}

static const char *or_unknown(const char *version)
{
	return version[0] ? version : "version unknown";
}

static void shadow_findings(const struct ct_doctor *d, struct ct_findings *fs)
{
	size_t i, k, n;

	for (i = 0; i < d->nld; i++) {
		const struct ct_doctor_ldentry *en = &d->ld[i];
		const struct ct_doctor_shadow *first = NULL;
		struct ct_finding *f;

		for (k = n = 0; k < en->nshadows; k++)
			if (en->shadows[k].differ && !n++)
				first = &en->shadows[k];
		if (!first)
			continue;
		f = ct_finding_add(fs, CT_F_LIB_SHADOWED, en->dir,
				   "LD_LIBRARY_PATH puts '%s' before '%s'%s", first->path,
				   first->other,
				   n > 1 ? ", and other CUDA libraries before their copies" : "");
		for (k = 0; k < en->nshadows; k++) {
			const struct ct_doctor_shadow *s = &en->shadows[k];

			if (s->differ)
				ct_finding_evidence(f, "%s: %s (%s) is taken before %s (%s, %s)",
						    s->soname, s->path, or_unknown(s->version),
						    s->other, or_unknown(s->other_version),
						    s->other_where);
		}
		ct_finding_fix(f, "LD_LIBRARY_PATH is searched before every RUNPATH and "
				  "ld.so.cache: take '%s' off it so programs and wheels find the "
				  "copies they were built with;",
			       en->dir);
		ct_finding_fix_line(f, "or, if it is meant to win, give it the versions the "
				       "others have");
	}
}

void ct_doctor_findings(const struct ct_doctor *d, struct ct_findings *fs)
{
	const struct ct_driver_probe *p = &d->drv.probe;

	if (!p->opened || p->init_result < 0)
		driver_missing(d, fs);
	else if (p->init_result != 0 || p->count == 0)
		no_device(d, fs);
	too_new_findings(d, fs);
	minor_compat_findings(d, fs);
	shadow_findings(d, fs);
	ct_findings_group(fs);
}

/*
 * The driver of a process (diagnose.h): driver-missing, when the driver's
 * libraries were looked for and not found or refused (a note when only
 * CUDA libraries probed for it and nothing needed it); driver-too-old,
 * when the process's CUDA runtime is newer than the driver supports
 * (driver_rule.c, the one rule, doctor's too) or cuInit said so;
 * no-device, when the driver found no GPU the process may use.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "cuda_errors.h"
#include "diag_internal.h"
#include "driver_rule.h"
#include "libnames.h"
#include "resolve.h"

/*
 * A search for the driver that one of NVIDIA's CUDA libraries made, other
 * than a runtime: cuBLASLt 12 dlopens libcuda.so.1 twice while it loads,
 * so a CPU-only `import torch` asks for the driver without using CUDA.
 * Using CUDA goes through a runtime (libcudart, or a static one in the
 * program or its extension: those callers are not NVIDIA's libraries) or
 * the program's own dlopen, and those searches are not probes. cuBLAS's
 * own static runtime asks from cublasCreate, though, which the trace
 * cannot tell from a load: probes alone are a note only when the process
 * went on to a clean end (ct_dx_rule_driver_missing).
 */
static bool library_probe(const struct ct_search *s)
{
	const char *b;

	if (!s->request || !s->request->caller || !s->request->caller[0])
		return false;
	b = ct_dx_base(s->request->caller);
	return ct_cuda_library(b) && strncmp(b, "libcudart", 9) != 0 && !ct_dx_is_driver(b);
}

/*
 * Does a CUDA_VISIBLE_DEVICES value hide every GPU on purpose? Empty, "-1"
 * (the runtime stops at the first entry that is no device, so anything
 * starting with a minus), or Slurm's "NoDevFiles" for a job given none.
 */
static bool hides_every_gpu(const char *cvd)
{
	while (*cvd == ' ' || *cvd == '\t')
		cvd++;
	return *cvd == '\0' || *cvd == '-' || strcasecmp(cvd, "NoDevFiles") == 0;
}

/* The failed searches for one of the driver's libraries, sorted out. */
struct driver_misses {
	const struct ct_search *use;   /* the first by a runtime or the program */
	const struct ct_search *probe; /* the first by a CUDA library (library_probe) */
	size_t nprobes, nprobers;
	const char *probers[4];        /* their callers, one per file name */
	int64_t last_probe_t;          /* when the last of those was made */
};

static void driver_misses(struct ctx *c, bool (*is)(const char *), struct driver_misses *m)
{
	const struct ct_proc *p = c->p;
	size_t i, k;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_kind kind;

		if (!is(s->name) || !ct_dx_search_missed(c, s) || (s->request && s->request->noload))
			continue;
		/* An optional search, or a preload the loader skipped, fails nothing. */
		kind = ct_diagnosis_search_kind(c->d, p, s);
		if (kind == CT_SEARCH_AUXILIARY || kind == CT_SEARCH_PRELOAD)
			continue;
		if (!library_probe(s)) {
			if (!m->use)
				m->use = s;
			continue;
		}
		if (!m->probe)
			m->probe = s;
		if (s->t > m->last_probe_t)
			m->last_probe_t = s->t;
		m->nprobes++;
		for (k = 0; k < m->nprobers; k++)
			if (strcmp(ct_dx_base(m->probers[k]), ct_dx_base(s->request->caller)) == 0)
				break;
		if (k == m->nprobers && m->nprobers < sizeof(m->probers) / sizeof(m->probers[0]))
			m->probers[m->nprobers++] = s->request->caller;
	}
}

/* "libcublasLt.so.12, libcublas.so.12" into who, " (2 times)" into times. */
static void probers_words(const struct driver_misses *m, char *who, size_t wsize, char *times,
			  size_t tsize)
{
	size_t i, n = 0;

	who[0] = times[0] = '\0';
	for (i = 0; i < m->nprobers && n < wsize; i++)
		n += (size_t)snprintf(who + n, wsize - n, "%s%s", i ? ", " : "",
				      ct_dx_base(m->probers[i]));
	if (m->nprobes > 1)
		snprintf(times, tsize, " (%zu times)", m->nprobes);
}

/*
 * The process failed, yet on something else than the driver: the last
 * dlopen whose error the program got, made after every probe, missed a
 * library that is not the driver's (torch's import without cuDNN:
 * "libcudnn.so.9: cannot open shared object file", after cuBLASLt and
 * cuSPARSELt looked for libcuda.so.1 while torch preloaded them). That
 * miss is its own finding; the search for it, or NULL.
 */
static const struct ct_search *failed_on_other(struct ctx *c, int64_t after)
{
	const struct ct_proc *p = c->p;
	const struct ct_request *last = NULL;
	size_t i;

	for (i = p->nrequests; i-- > 0 && !last;)
		if (p->requests[i].error)
			last = &p->requests[i];
	if (!last || last->t < after)
		return NULL;
	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_kind kind;

		if ((s->request ? s->request : ct_dx_within_dlopen(c, s)) != last ||
		    ct_dx_is_driver(s->name) || ct_dx_is_nvml(s->name) || !ct_dx_search_missed(c, s))
			continue;
		kind = ct_diagnosis_search_kind(c->d, p, s);
		if (kind != CT_SEARCH_AUXILIARY && kind != CT_SEARCH_PRELOAD)
			return s;
	}
	return NULL;
}

void ct_dx_rule_driver_missing(struct ctx *c)
{
	struct driver_misses drv, nvml, *m = &drv;
	const struct ct_search *use, *probe, *other = NULL;
	struct ct_finding *f;
	char who[512], times[32];
	const char *cvd = ct_proc_env(c->p, "CUDA_VISIBLE_DEVICES"), *refused, *why = NULL;
	bool failed = false, hidden = false;

	if (ct_dx_driver_mapped(c))
		return;
	driver_misses(c, ct_dx_is_driver, &drv);
	/* NVML comes with the driver: its miss says the same, unless it is all there is. */
	driver_misses(c, ct_dx_is_nvml, &nvml);
	if (!drv.use && !drv.probe)
		m = &nvml;
	use = m->use;
	probe = m->probe;
	if (!use && !probe)
		return;
	/*
	 * Only CUDA libraries asked, and the process went on to a clean end:
	 * a note. A failed end keeps the error: cuBLAS's own runtime asks
	 * from cublasCreate, which then fails the program, and a library's
	 * call cannot be told from its load in the trace; unless the program
	 * failed after them on a library of another name (failed_on_other).
	 */
	if (!use && !ct_dx_clean_end(c) && !(other = failed_on_other(c, m->last_probe_t)))
		failed = true;
	probers_words(m, who, sizeof(who), times, sizeof(times));
	/* An empty or cut-short copy in the way: the driver may well be there. */
	refused = ct_dx_refused_at(c, use ? use : probe, &why);
	if (refused)
		ct_dx_refusal_note(c, use ? use : probe, refused, why);
	if (failed && refused) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "the NVIDIA driver's '%s' at %s cannot be loaded: %s", probe->name,
				   refused, ct_dx_refused_words(why));
		ct_finding_evidence(f, "%s by %s%s", probe->request->api, who, times);
		if (probe->request->error)
			ct_finding_evidence(f, "the program got: %s", probe->request->error);
	} else if (failed) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "no NVIDIA driver: '%s' could not be loaded", probe->name);
		ct_finding_evidence(f, "%s by %s%s", probe->request->api, who, times);
		if (probe->request->error)
			ct_finding_evidence(f, "the program got: %s", probe->request->error);
	} else if (use) {
		if (refused)
			f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
					   "the NVIDIA driver's '%s' at %s cannot be loaded: %s",
					   use->name, refused, ct_dx_refused_words(why));
		else
			f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
					   "no NVIDIA driver: '%s' could not be loaded", use->name);
		ct_finding_evidence(f, "%s by %s", use->request ? use->request->api : "needed",
				    ct_dx_base(use->request ? use->request->caller : use->by));
		if (use->request && use->request->error)
			ct_finding_evidence(f, "the program got: %s", use->request->error);
		if (probe)
			ct_finding_evidence(f, "%s by %s%s too", probe->request->api, who, times);
		if (cvd && hides_every_gpu(cvd) && ct_dx_clean_end(c)) {
			/* No GPU was wanted (as for no-device): worth knowing, not a failure. */
			f->severity = CT_SEV_INFO;
			ct_finding_evidence(f, "CUDA_VISIBLE_DEVICES=%s hides every GPU: it asks to run "
					       "without one, and the process went on to a clean end",
					    cvd);
			hidden = true;
		}
	} else if (refused) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "the NVIDIA driver's '%s' at %s cannot be loaded: %s, and nothing "
				   "started CUDA: only %s looked for it",
				   probe->name, refused, ct_dx_refused_words(why), who);
	} else {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_MISSING, NULL,
				   "no NVIDIA driver, and nothing started CUDA: only %s looked for '%s'",
				   who, probe->name);
	}
	if (!use && !failed) {
		/* Worth knowing, not a failure. */
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "%s by %s%s: %s for the driver %s", probe->request->api,
				    who, times, m->nprobers > 1 ? "CUDA libraries look" :
				    "a CUDA library looks", m->nprobers > 1 ? "themselves" : "itself");
		if (other)
			ct_finding_evidence(f, "no CUDA runtime and no code of the program asked for "
					       "it; the process failed after that on '%s', not found "
					       "(its own finding)",
					    other->name);
		else
			ct_finding_evidence(f, "no CUDA runtime and no code of the program asked for "
					       "it, and the process went on to a clean end");
	}
	if (m == &drv && (nvml.use || nvml.probe)) {
		const struct ct_search *n = nvml.use ? nvml.use : nvml.probe;

		ct_finding_evidence(f, "'%s' (NVML, which comes with the driver) was not found "
				       "either: %s by %s",
				    n->name, n->request ? n->request->api : "needed",
				    ct_dx_base(n->request ? n->request->caller : n->by));
	}
	if (refused)
		ct_finding_evidence(f, "the loader's search stops at %s: it never reaches a driver "
				       "later in the order",
				    refused);
	ct_dx_tries(f, use ? use : probe);
	if (refused && why == ct_noexec_why) {
		ct_finding_fix(f, "the file system of %s is mounted noexec: the loader cannot map "
				  "its code; use the driver from a file system mounted exec",
			       refused);
		ct_dx_where(c, f);
		return;
	}
	if (refused) {
		ct_finding_fix(f, "%sremove %s, or replace it with the driver's own %s: an empty or "
				  "damaged copy on the path hides the real driver",
			       (!use && !failed) || hidden ? "nothing, if this process is meant to run "
							     "without a GPU; for one, "
							   : "",
			       refused, use ? use->name : probe->name);
		ct_finding_fix_line(f, "on WSL: the driver is in /usr/lib/wsl/lib; keep it on the "
				       "library path ahead of any other copy");
		ct_dx_where(c, f);
		return;
	}
	if ((!use && !failed) || hidden)
		ct_finding_fix(f, "nothing, if this process is meant to run without a GPU; for one, "
				  "install the NVIDIA driver (it provides %s)",
			       m == &nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	else
		ct_finding_fix(f, "install the NVIDIA driver (it provides %s)",
			       m == &nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	ct_finding_fix_line(f, "in a container: start it with GPU support (docker run --gpus all, "
			       "with the NVIDIA Container Toolkit)");
	ct_finding_fix_line(f, "on WSL: keep /usr/lib/wsl/lib on the library path");
	ct_dx_where(c, f);
}

/* A library's version from its real file name, as major and minor; 0 when unknown. */
static int version_of(struct ctx *c, const char *path, char *words, size_t size)
{
	char v[64];
	int major = 0, minor = 0;

	ct_dx_version(c, path, v, sizeof(v));
	if (words)
		snprintf(words, size, "%s", v);
	if (sscanf(v, "%d.%d", &major, &minor) < 1)
		return 0;
	return major * 1000 + minor * 10;
}

/* The CUDA runtime the process runs on: version, and where it is from. */
static int runtime_of(struct ctx *c, char *what, size_t size)
{
	size_t i;

	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		char v[64], who[512];
		int ver;

		if (o->shim || !ct_runtime_major(o->soname ? o->soname : ct_dx_base(o->path)))
			continue;
		ver = version_of(c, o->path, v, sizeof(v));
		if (!ver)
			ver = ct_runtime_major(o->soname ? o->soname : ct_dx_base(o->path)) * 1000;
		ct_dx_asker_in(c, o, who, sizeof(who));
		/* A bare major only repeats the soname. */
		if (strchr(v, '.'))
			snprintf(what, size, "%s (%s), %s", o->path, v, who);
		else
			snprintf(what, size, "%s, %s", o->path, who);
		return ver;
	}
	/*
	 * None loaded: a CUDA runtime linked into the program (nvcc's
	 * default). It is as old as the compiler that built the program's
	 * device code, which says so in it.
	 */
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];
		int cv;

		if (!o->main || !ct_diagnosis_code(c->d, o->path))
			continue;
		if (ct_dx_file_release(c, o->path, &cv)) {
			snprintf(what, size,
				 "the CUDA runtime built into %s (its device code was "
				 "compiled by CUDA %d.%d)",
				 ct_dx_base(o->path), cv / 1000, cv % 1000 / 10);
			return cv;
		}
	}
	return 0;
}

void ct_dx_rule_driver(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	const struct ct_driver_rec *drv = &p->driver;
	const char *dpath, *cvd;
	char runtime[1024], dver[64], have[32];
	struct ct_finding *f;
	int64_t version;
	int rt;
	size_t i, ndev = 0;

	if (!drv->present)
		return;
	dpath = drv->path ? drv->path : "libcuda.so.1";
	version = drv->version;
	ct_dx_release(c, dpath, dver, sizeof(dver)); /* "" for libcuda.so.1 as a file */
	runtime[0] = '\0';
	rt = runtime_of(c, runtime, sizeof(runtime));
	/* driver-too-old: a runtime of a newer major, or a 35 the driver gave. */
	{
		const char *from[1] = { runtime };
		struct ct_driver_need need = {
			.seen = CT_DRIVER_SEEN_PROCESS,
			.runtime = rt,
			.runtime_minor_known = true,
			.runtime_from = from,
			.nruntime_from = 1,
			.driver = ct_dx_cuda_of(version),
			.driver_path = dpath,
			.driver_release = dver,
			.no_pip = !ct_dx_python(c),
		};

		f = ct_driver_rule(&c->d->findings, &need);
	}
	if (f) {
		ct_dx_where(c, f);
	} else if (p->ncuinit && p->cuinit == 35) {
		f = ct_finding_add(&c->d->findings, CT_F_DRIVER_TOO_OLD, dpath,
				   "cuInit: \"CUDA driver version is insufficient for CUDA runtime "
				   "version\" (35)");
		ct_finding_evidence(f, "driver: %s, supports CUDA %s", dpath,
				    ct_cuda_version_words((int)version, have, sizeof(have)));
		ct_driver_fix(f, 0, ct_dx_cuda_of(version), NULL, NULL, ct_dx_python(c));
		ct_dx_where(c, f);
	}
	/* no-device: the driver loads but finds no usable GPU. */
	ndev = drv->ngpus;
	cvd = ct_proc_env(p, "CUDA_VISIBLE_DEVICES");
	if (p->ncuinit && p->cuinit != 0 && p->cuinit != 35) {
		f = ct_finding_add(&c->d->findings, CT_F_NO_DEVICE, dpath,
				   "the driver found no usable GPU: cuInit returned %lld (%s: %s)",
				   (long long)p->cuinit, ct_cu_error_name((int)p->cuinit),
				   ct_cu_error_text((int)p->cuinit));
	} else if (p->ncuinit && p->cuinit == 0 && drv->has_devices && ndev == 0) {
		f = ct_finding_add(&c->d->findings, CT_F_NO_DEVICE, dpath,
				   "the driver initialised but reports no GPU");
	} else {
		return;
	}
	ct_finding_evidence(f, "driver: %s%s%s%s, supports CUDA %s", dpath, dver[0] ? " (" : "",
			    dver, dver[0] ? ")" : "",
			    ct_cuda_version_words((int)version, have, sizeof(have)));
	/* ps: /proc does not show the process's cuInit; cudatrace asked the same file. */
	if (p->cuinit_probed)
		ct_finding_evidence(f, "cuInit asked by cudatrace of the driver file the process "
				       "maps, with every GPU visible (/proc does not show the "
				       "process's own)");
	if (cvd)
		ct_finding_evidence(f, "CUDA_VISIBLE_DEVICES=%s", cvd);
	/* Not its CUDA_VISIBLE_DEVICES when cudatrace's cuInit saw every GPU and failed. */
	if (p->cuinit_probed)
		cvd = NULL;
	if (cvd && p->cuinit == 100 && hides_every_gpu(cvd) && ct_dx_clean_end(c)) {
		/* Asked to run without a GPU, and it did: worth knowing, not a failure. */
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "that value hides every GPU: it asks to run without one, and "
				       "the process went on to a clean end");
		ct_finding_fix(f, "nothing, if this process is meant to run without a GPU; to use "
				  "one, unset CUDA_VISIBLE_DEVICES or list devices that exist "
				  "(nvidia-smi -L)");
	} else if (cvd)
		ct_finding_fix(f, "CUDA_VISIBLE_DEVICES=%s hides GPUs from the process: unset it "
				  "or list devices that exist (nvidia-smi -L)",
			       cvd);
	else if (p->cuinit == 804)
		ct_finding_fix(f, "a forward-compatibility libcuda (cuda-compat) runs only on "
				  "data-center GPUs: take its directory off LD_LIBRARY_PATH");
	else if (p->cuinit == 803)
		ct_finding_fix(f, "the driver library and the kernel module are of different "
				  "versions: reinstall the driver, or reboot after an upgrade");
	else
		ct_finding_fix(f, "check that the machine has an NVIDIA GPU and that this process "
				  "may use it: nvidia-smi; in a container, start it with --gpus "
				  "all");
	for (i = 0; i < ndev && i < 8; i++)
		ct_finding_evidence(f, "GPU %zu: %s", i,
				    drv->gpus[i].name ? drv->gpus[i].name : "?");
	ct_dx_where(c, f);
}

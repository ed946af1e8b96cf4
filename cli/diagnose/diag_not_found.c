/*
 * lib-not-found (diagnose.h): a library the loader looked for and did not
 * find, or stopped at a file it refused (cut short, empty, not ELF, on a
 * noexec mount, needing an executable stack), when the program loses by
 * it: what the loss does, the candidates tried, copies elsewhere and the
 * fix. One finding per library, whoever else needs it; the other
 * libraries a failing load misses are diag_missing.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "copies.h"
#include "diag_internal.h"
#include "distinfo.h"
#include "libnames.h"
#include "resolve.h"
#include "util.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

/* Did the process load the family of name (another copy or major)? */
static const struct ct_loaded *loaded_instead(const struct ctx *c, const char *name)
{
	char a[128], b[128];
	size_t i;

	ct_dx_stem(name, a, sizeof(a));
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (!o->shim && strcmp(ct_dx_stem(o->soname ? o->soname : o->path, b, sizeof(b)), a) == 0)
			return o;
	}
	return NULL;
}

/* Is o name's library in name's major (libx.so.9 for libx.so.9.19.0)? */
static bool same_major(const char *name, const struct ct_loaded *o)
{
	const char *other = o->soname ? o->soname : ct_dx_base(o->path);
	const char *a = strstr(ct_dx_base(name), ".so."), *b = strstr(other, ".so.");

	return a && b && atoi(a + 4) == atoi(b + 4);
}

/*
 * The CUDA major of a requester's build, for a library that several
 * majors ship (libcurand.so.10, libcutensor.so.2): the runtime it needs,
 * else the one major of its other CUDA libraries, else the one its pip
 * distribution's name says (cupy-cuda12x), else the runtime the process
 * loaded; 0 when none says.
 */
static int context_cuda(const struct ctx *c, const char *requester)
{
	const struct ct_elfinfo *e = requester ? ct_dx_elfinfo(c, requester) : NULL;
	struct ct_dist_info d;
	size_t i;
	int m;

	for (i = 0; e && i < e->nneeded; i++)
		if ((m = ct_runtime_major(e->needed[i])) > 0)
			return m;
	for (i = 0; e && i < e->nneeded; i++)
		if ((m = ct_cuda_mask_major(ct_soname_cuda(e->needed[i], NULL))) > 0)
			return m;
	/* The pip distribution it came with: cupy-cuda12x's modules link no runtime. */
	if (requester && ct_dist_info_of(requester, &d) == 0 && (m = ct_dist_cuda(d.name)) > 0)
		return m;
	for (i = 0; i < c->nmapped; i++) {
		const struct ct_loaded *o = c->mapped[i];

		if (!o->shim && (m = ct_runtime_major(o->soname ? o->soname : o->path)) > 0)
			return m;
	}
	return 0;
}

/*
 * A CUDA library's dlopen of a name without a major ("libnvrtc.so": how
 * cuBLASLt 11 looks for NVRTC): the CUDA major the asker was built for,
 * its own soname says (libcublasLt.so.11: CUDA 11), when CUDA ships a
 * library of that name for it (libnvrtc.so.11.2); 0 otherwise. The asker
 * goes on without it (its load went on): no error, and the copy of
 * another major is no answer.
 */
static int unversioned_major(const struct ctx *c, const char *name, const char *requester)
{
	const struct ct_elfinfo *e;
	int m;

	if (!requester || strchr(name, '/') || strstr(name, ".so.") ||
	    !ct_cuda_library(requester) || !(e = ct_dx_elfinfo(c, requester)) || !e->soname ||
	    (m = ct_cuda_mask_major(ct_soname_cuda(e->soname, NULL))) <= 0 ||
	    !ct_soname_in_cuda(name, m))
		return 0;
	return m;
}

/*
 * The Python module through which a program's own code calls dlopen
 * ("ctypes" for ctypes.CDLL, "cffi" for ffi.dlopen), from its file name;
 * NULL for any other object. Its dlopen of a name is the program's
 * request: the module was built for no library.
 */
static const char *ffi_module(const char *path)
{
	const char *base = path ? ct_dx_base(path) : "";

	return strncmp(base, "_ctypes.", 8) == 0	? "ctypes"
	       : strncmp(base, "_cffi_backend.", 14) == 0 ? "cffi"
							    : NULL;
}

/*
 * The fix of a miss the program's code asked for by name, through ffi
 * (ffi_module): what it asked, and what is here instead.
 */
static void fix_ffi(struct ct_finding *f, const char *name, const char *ffi,
		    const struct ct_copy *same, const struct ct_copy *other, const char *how)
{
	if (same)
		ct_finding_fix(f, "the program asked for %s by name (through %s); the file is %s: "
				  "add its directory to LD_LIBRARY_PATH, or load it by that path",
			       name, ffi, same->path);
	else if (other)
		ct_finding_fix(f, "the program asked for %s by name (through %s), and only %s is "
				  "here: install %s%s%s%s",
			       name, ffi, ct_dx_base(other->path), name, how[0] ? " (" : "", how,
			       how[0] ? ")" : "");
	else if (how[0])
		ct_finding_fix(f, "the program asked for %s by name (through %s): install it (%s)",
			       name, ffi, how);
	else
		ct_finding_fix(f, "the program asked for %s by name (through %s): install the "
				  "package that ships it, or put its directory on LD_LIBRARY_PATH",
			       name, ffi);
}

/*
 * The fix of a miss, for who asked: one object (its file name; requester
 * its path) or several ("a, b and c"; requester NULL). python: an asker a
 * Python package ships (pip helps); cuda: the CUDA major the askers were
 * built for, or 0. ffi: the one asker is Python's ctypes or cffi
 * (ffi_module), or NULL.
 */
static void fix_not_found(struct ct_finding *f, const char *name, const char *who,
			  const char *requester, enum ct_search_kind kind,
			  const struct ct_copies *cs, bool python, int cuda, const char *ffi)
{
	const struct ct_copy *same = NULL, *other = NULL;
	char how[512];
	size_t i;

	for (i = 0; i < cs->n; i++) {
		if (cs->c[i].same_name && !same)
			same = &cs->c[i];
		if (!cs->c[i].same_name && !other)
			other = &cs->c[i];
	}
	if (kind == CT_SEARCH_PRELOAD) {
		if (same)
			ct_finding_fix(f, "preload it by its path (LD_PRELOAD=%s), or drop it from "
					  "LD_PRELOAD if the program runs as it should without it",
				       same->path);
		else
			ct_finding_fix(f, "drop %s from LD_PRELOAD if the program runs as it should "
					  "without it; else install it and preload it by its path",
				       name);
		return;
	}
	/* A dlopen by the program's own code (ctypes): no build of ctypes to blame. */
	if (ffi && requester && (kind == CT_SEARCH_DLOPEN || kind == CT_SEARCH_OTHER)) {
		ct_dx_install_words(name, cuda, python, requester, how, sizeof(how));
		fix_ffi(f, name, ffi, same, other, how);
		return;
	}
	if (same) {
		char *dir = ct_xstrdup(same->path);

		*strrchr(dir, '/') = '\0';
		/* ldconfig puts what ld.so.conf's folders hold in the cache: it has not run since. */
		if (strcmp(same->where, "ld.so.conf directory") == 0)
			ct_finding_fix(f, "the file is in %s, a folder of /etc/ld.so.conf, but "
					  "ld.so.cache does not list it (ldconfig has not run since it "
					  "was put there): run ldconfig as root",
				       dir);
		else
			ct_finding_fix(f, "the file is in %s: add that directory to LD_LIBRARY_PATH, "
					  "or to the RUNPATH of %s",
				       dir, who);
		free(dir);
		return;
	}
	ct_dx_install_words(name, cuda, python, requester, how, sizeof(how));
	if (other && !requester)
		ct_finding_fix(f, "%s were built for %s and only %s is here: install %s%s%s%s, or "
				  "use builds of them made for the one present",
			       who, name, ct_dx_base(other->path), name, how[0] ? " (" : "", how,
			       how[0] ? ")" : "");
	else if (other)
		ct_finding_fix(f, "%s was built for %s and only %s is here: install %s%s%s%s, or "
				  "use a build of %s made for the one present",
			       who, name, ct_dx_base(other->path), name, how[0] ? " (" : "", how,
			       how[0] ? ")" : "", who);
	else if (how[0])
		ct_finding_fix(f, "install %s: %s", name, how);
	else
		ct_finding_fix(f, "install the package that ships %s, or put its directory on "
				  "LD_LIBRARY_PATH",
			       name);
}

static void evidence_copies(struct ct_finding *f, const struct ct_copies *cs)
{
	size_t i;

	for (i = 0; i < cs->n && i < 4; i++)
		ct_finding_evidence(f, "elsewhere: %s (%s%s)", cs->c[i].path,
				    cs->c[i].same_name ? "" : "another major, ", cs->c[i].where);
}

/* What the loader does with a file it refuses, and what to do about it. */
static void evidence_refused(struct ctx *c, struct ct_finding *f, const struct ct_search *s,
			     const char *path, const char *why)
{
	const struct ct_request *q = ct_dx_within_dlopen(c, s);
	struct stat st;
	char size[32] = "";

	if (why != ct_noexec_why && !ct_dx_execstack(why) && stat(path, &st) == 0)
		snprintf(size, sizeof(size), " (%lld bytes)", (long long)st.st_size);
	if (why == ct_truncated_why)
		ct_finding_evidence(f, "%s%s is cut short: its segments end past the end of the "
				       "file; the loader maps them and the process dies of a bus "
				       "error (SIGBUS) at the first touch",
				    path, size);
	else if (why == ct_noexec_why && !q)
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: %s\": the file system of %s is mounted noexec, "
				       "and the loader cannot map its code",
				    s->name, why, path);
	else if (why == ct_noexec_why)
		ct_finding_evidence(f, "the file system of %s is mounted noexec: the loader cannot "
				       "map its code (%s)",
				    path, why);
	else if (!q)
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: %s\"",
				    path, why);
	else if (!q->error || size[0])
		ct_finding_evidence(f, "%s%s: %s", path, size, why);
	if (q)
		ct_finding_evidence(f, "the %s of %s by %s fails with it", q->api,
				    q->name ? q->name : "?", ct_dx_base(q->caller));
	if (q && q->error)
		ct_finding_evidence(f, "the program got: %s", q->error);
	/* A path asked for is no search: nothing after it to reach. */
	if (s->ntries)
		ct_finding_evidence(f, "the loader's search stops at that file: it never looks "
				       "further");
}

static void fix_refused(struct ct_finding *f, const char *name, const char *path,
			const char *why)
{
	if (ct_dx_execstack(why))
		ct_finding_fix(f, "%s asks for an executable stack (its PT_GNU_STACK is RWE, or it has "
				  "none), which glibc 2.41 and later refuse to a dlopen: clear the "
				  "flag (patchelf --clear-execstack %s), or use a build linked with -z "
				  "noexecstack; GLIBC_TUNABLES=glibc.rtld.execstack=2 allows it again "
				  "where the C library knows that value (Debian's 2.41 does)",
			       path, path);
	else if (why == ct_noexec_why)
		ct_finding_fix(f, "install %s on a file system mounted without noexec (a /tmp or "
				  "/dev/shm mounted noexec is the usual place: point TMPDIR or the "
				  "install or cache folder elsewhere), or remount that one exec",
			       name);
	else
		ct_finding_fix(f, "%s is not a %s the loader can load (cut short, empty or "
				  "damaged): replace it with a whole copy (reinstall what ships it), "
				  "or remove it so that the search goes on past it",
			       path, name);
}

/*
 * The finding of a search that stopped at a file the loader refused: that
 * file named, the loader's words; NULL when it is no finding (a cuDNN-style
 * probe of a name whose major the process then loaded). *alt: what the
 * process loaded instead, for a dlopen.
 */
static struct ct_finding *refused_finding(struct ctx *c, const struct ct_search *s,
					  enum ct_search_kind kind, const char *requester,
					  const char *refused, const char *why,
					  const struct ct_loaded **alt)
{
	const char *how = s->request		  ? s->request->api
			  : kind == CT_SEARCH_FILTER ? "filter library"
						     : "needed";
	struct ct_finding *f;

	if (kind == CT_SEARCH_DLOPEN || kind == CT_SEARCH_OTHER) {
		*alt = loaded_instead(c, s->name);
		if (*alt && same_major(s->name, *alt))
			return NULL;
	}
	/* A path asked for is the file: named once. */
	if (strcmp(s->name, refused) == 0)
		f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
				   "'%s' cannot be loaded: %s (%s by %s)", s->name,
				   ct_dx_refused_words(why), how, ct_dx_base(requester));
	else
		f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
				   "'%s' at %s cannot be loaded: %s (%s by %s)", s->name, refused,
				   ct_dx_refused_words(why), how, ct_dx_base(requester));
	if (*alt) {
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "it then loaded %s", (*alt)->path);
	}
	evidence_refused(c, f, s, refused, why);
	return f;
}

/* What a miss's finding is said again with, once several objects asked. */
struct miss_state {
	char *name;
	enum ct_search_kind kind;
	struct ct_copies cs;
	char *refused;          /* the file the loader stopped at, or NULL */
	const char *refused_why;
	bool unreadable;        /* a candidate the process may not read: its fix stands */
	bool python;            /* an asker a Python package ships: pip helps */
	char *unversioned_fix;  /* a CUDA library's dlopen of a name without a major: its fix */
	int cuda;               /* the askers' CUDA major, or 0 */
};

static void miss_state_free(void *p)
{
	struct miss_state *m = p;

	if (!m)
		return;
	free(m->name);
	free(m->refused);
	free(m->unversioned_fix);
	ct_copies_release(&m->cs);
	free(m);
}

/* One library, several objects that need it: one finding (findings.h). */
static void miss_restate(struct ct_finding *f)
{
	const struct miss_state *m = f->state;
	bool python = m->python;
	char who[512];
	size_t i;

	ct_finding_askers_words(f, who, sizeof(who));
	free(f->message);
	if ((m->refused ? asprintf(&f->message, "'%s' at %s cannot be loaded: %s (needed by %zu "
						"objects)",
				   m->name, m->refused, ct_dx_refused_words(m->refused_why),
				   ct_finding_askers(f))
			: asprintf(&f->message, "'%s' was not found (needed by %zu objects)", m->name,
				   ct_finding_askers(f))) < 0)
		ct_out_of_memory();
	/* pip helps when any of the askers is a Python package's. */
	for (i = 0; i < f->nneeded_by && !python; i++)
		python = ct_python_shipped(f->needed_by[i].object);
	if (f->nmissing)
		ct_dx_say_also(f);
	if (m->unversioned_fix)
		ct_finding_fix(f, "%s", m->unversioned_fix);
	else if (!m->refused && !m->unreadable)
		fix_not_found(f, m->name, who, NULL, m->kind, &m->cs, python, m->cuda, NULL);
	if (!m->refused && !m->unreadable && f->nmissing)
		ct_dx_fix_all_missing(f, &m->cs, who, NULL, false, python, m->cuda);
}

/*
 * Is a miss of s a finding? Only what the program loses: every DT_NEEDED
 * and DT_FILTER entry (the load fails), a dlopen of a CUDA library (not a
 * RTLD_NOLOAD probe; a program's other failed dlopen calls are its own
 * business), and CUDA libraries the loader skipped (preloads) or that no
 * dynamic section names. A DT_AUXILIARY entry is optional: never. The
 * driver's own libraries are driver-missing's (libcuda always, NVML when
 * libcuda is not there either).
 */
static bool counts(const struct ctx *c, const struct ct_search *s, enum ct_search_kind *kind)
{
	if (!ct_dx_search_missed(c, s) || ct_dx_is_driver(s->name))
		return false;
	/* Without the driver, NVML missing is driver-missing's, not a finding apart. */
	if (ct_dx_is_nvml(s->name) && !ct_dx_driver_mapped(c))
		return false;
	*kind = ct_diagnosis_search_kind(c->d, c->p, s);
	switch (*kind) {
	case CT_SEARCH_NEEDED:
	case CT_SEARCH_FILTER:
		return true;
	case CT_SEARCH_DLOPEN:
		return !s->request->noload && ct_cuda_library(s->name);
	case CT_SEARCH_PRELOAD:
	case CT_SEARCH_OTHER:
		return ct_cuda_library(s->name);
	case CT_SEARCH_AUXILIARY:
	default:
		return false;
	}
}

/* What the loss of a required library does: the program stops, or a dlopen fails. */
static void evidence_required(struct ctx *c, struct ct_finding *f, const struct ct_search *s)
{
	const struct ct_request *q = ct_dx_within_dlopen(c, s);

	if (!q) {
		ct_finding_evidence(f, "the loader stops the program: \"error while loading shared "
				       "libraries: %s: cannot open shared object file\"",
				    s->name);
		return;
	}
	ct_finding_evidence(f, "the %s of %s by %s fails with it", q->api,
			    q->name ? q->name : "?", ct_dx_base(q->caller));
	if (q->error)
		ct_finding_evidence(f, "the program got: %s", q->error);
}

/*
 * A Python module's import that failed on s (the dlopen of an extension
 * module by path), after which the program went on: its thread loaded more
 * (the ImportError was caught: CuPy imports its cuTENSOR module and does
 * without it), and the process ended cleanly or failed later on another
 * miss (the driver's, its own finding). The module is optional to it. The
 * import; NULL otherwise (torch's _C: the import failed and the process
 * ended there).
 */
static const struct ct_request *optional_import(struct ctx *c, const struct ct_search *s)
{
	const struct ct_proc *p = c->p;
	const struct ct_request *q = ct_dx_within_dlopen(c, s);
	bool went_on = false, later_miss = false;
	size_t i;

	if (!q || !q->name || !strchr(q->name, '/') ||
	    (!strstr(ct_dx_base(q->name), ".cpython-") && !strstr(ct_dx_base(q->name), ".abi3.")))
		return NULL;
	for (i = 0; i < p->nrequests && !went_on; i++)
		went_on = p->requests[i].tid == q->tid && p->requests[i].t > q->t &&
			  &p->requests[i] != q;
	for (i = 0; i < p->nsearches && !later_miss; i++)
		later_miss = p->searches[i].t > q->t && strcmp(p->searches[i].name, s->name) != 0 &&
			     ct_dx_within_dlopen(c, &p->searches[i]) != q &&
			     ct_dx_search_missed(c, &p->searches[i]);
	return went_on && (later_miss || ct_dx_clean_end(c)) ? q : NULL;
}

/*
 * NVML missed where the driver loaded (counts() leaves the other case to
 * driver-missing): the driver is only partly there, as in a container
 * whose NVIDIA_DRIVER_CAPABILITIES leave out utility. torch counts GPUs
 * through NVML first and falls back to the runtime, so a process that went
 * on to a clean end lost nothing: a note.
 */
static void nvml_without(struct ctx *c, struct ct_finding *f)
{
	ct_finding_evidence(f, "the driver's libcuda.so.1 loaded without its NVML (nvidia-smi "
			       "needs it too)");
	if (ct_dx_clean_end(c)) {
		f->severity = CT_SEV_INFO;
		ct_finding_evidence(f, "the process went on to a clean end (torch, for one, counts "
				       "GPUs through NVML and falls back to the CUDA runtime)");
	}
}

static void nvml_fix(struct ct_finding *f)
{
	ct_finding_fix(f, "in a container: add utility to NVIDIA_DRIVER_CAPABILITIES "
			  "(compute alone leaves NVML and nvidia-smi out); elsewhere install the "
			  "driver's NVML (Debian: libnvidia-ml1), the same version as libcuda.so.1");
}

/* The misses already reported in a process, by name and kind. */
struct said {
	char *key;
	UT_hash_handle hh;
};

/* Was name missed before the same way by the same object? Records it when not. */
static bool seen_before(struct said **set, const char *name, enum ct_search_kind kind,
			const char *by)
{
	struct said *e;
	char *key = NULL;

	if (asprintf(&key, "%d\x1f%s\x1f%s", (int)kind, name, by ? by : "\x1e") < 0)
		ct_out_of_memory();
	HASH_FIND_STR(*set, key, e);
	if (e) {
		free(key);
		return true;
	}
	e = ct_xcalloc(1, sizeof(*e));
	e->key = key;
	HASH_ADD_KEYPTR(hh, *set, e->key, strlen(e->key), e);
	return false;
}

/* How s's requester asked: "dlopen", "DT_NEEDED", "DT_FILTER". */
static const char *how_asked(const struct ct_search *s, enum ct_search_kind kind)
{
	if (s->request && s->request->api)
		return s->request->api;
	return kind == CT_SEARCH_FILTER ? "DT_FILTER" : kind == CT_SEARCH_NEEDED ? "DT_NEEDED" : NULL;
}

void ct_dx_rule_not_found(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	struct said *said = NULL, *e, *tmp;
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		const struct ct_loaded *alt = NULL;
		enum ct_search_kind kind;
		const char *requester, *refused, *unreadable, *why = NULL;
		struct ct_finding *f;
		struct ct_copies cs;
		char *unversioned_fix = NULL;
		const struct ct_request *optional = NULL;
		int um = 0;

		if (!counts(c, s, &kind))
			continue;
		refused = kind == CT_SEARCH_PRELOAD ? NULL : ct_dx_refused_at(c, s, &why);
		if (refused)
			ct_dx_refusal_note(c, s, refused, why);
		requester = s->request ? s->request->caller : s->by;
		/*
		 * The same name missed again by the same object the same way:
		 * said once. Only misses that counted: a failed RTLD_NOLOAD
		 * probe before the real dlopen must not hide it. Other objects
		 * that miss it join this finding (ct_findings_group).
		 */
		if (seen_before(&said, s->name, kind, requester))
			continue;
		if (refused) {
			if (!(f = refused_finding(c, s, kind, requester, refused, why, &alt)))
				continue;
		} else {
			switch (kind) {
			case CT_SEARCH_NEEDED:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (needed by %s)", s->name,
						   ct_dx_base(requester));
				evidence_required(c, f, s);
				if ((optional = optional_import(c, s))) {
					/* The program did without the module: worth knowing. */
					f->severity = CT_SEV_INFO;
					ct_finding_evidence(f, "the program went on after that import "
							       "failed (it caught the ImportError): "
							       "%s is optional to it",
							    ct_dx_base(optional->name));
				}
				break;
			case CT_SEARCH_FILTER:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (filter library of %s)", s->name,
						   ct_dx_base(requester));
				ct_finding_evidence(f, "%s is a filter (DT_FILTER) for %s: the loader "
						       "cannot load it without it",
						    ct_dx_base(requester), s->name);
				evidence_required(c, f, s);
				break;
			case CT_SEARCH_PRELOAD:
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' from LD_PRELOAD was not found: the loader ignored it",
						   s->name);
				/* The program went on without it: worth knowing. */
				f->severity = CT_SEV_INFO;
				ct_finding_evidence(f, "the loader said: \"ERROR: ld.so: object '%s' from "
						       "LD_PRELOAD cannot be preloaded (cannot open shared "
						       "object file): ignored.\"",
						    s->name);
				break;
			case CT_SEARCH_DLOPEN:
			case CT_SEARCH_OTHER:
			default:
				alt = loaded_instead(c, s->name);
				/*
				 * cuDNN asks for libcudnn_graph.so.9.19.0, then .9.19, then
				 * .9: a miss followed by another name of the same major
				 * is part of that load, not a finding.
				 */
				if (alt && same_major(s->name, alt))
					continue;
				f = ct_finding_add(&c->d->findings, CT_F_LIB_NOT_FOUND, requester,
						   "'%s' was not found (%s by %s)", s->name,
						   s->request ? s->request->api : "requested",
						   ct_dx_base(requester));
				if (alt) {
					/* The program tried another: worth knowing, not the failure. */
					f->severity = CT_SEV_INFO;
					ct_finding_evidence(f, "it then loaded %s", alt->path);
				}
				if (s->request && s->request->error)
					ct_finding_evidence(f, "the program got: %s", s->request->error);
				if (ct_dx_is_nvml(s->name) && !alt)
					nvml_without(c, f);
				if (!alt && (um = unversioned_major(c, s->name, requester))) {
					f->severity = CT_SEV_WARNING;
					ct_finding_evidence(f, "'%s' says no major: %s is built for CUDA "
							       "%d, whose is %s; its load went on "
							       "without it",
							    s->name, ct_dx_base(requester), um,
							    ct_soname_in_cuda(s->name, um));
					unversioned_fix = ct_dx_unversioned_fix(c, s->name, requester,
										um);
				}
				break;
			}
		}
		unreadable = refused ? NULL : ct_dx_unreadable(s);
		if (unreadable)
			ct_finding_evidence(f, "%s is there, but the process may not read it "
					       "(Permission denied): the loader skips it as if it were "
					       "missing",
					    unreadable);
		/* A path asked for and refused: no search to show. */
		if (!refused || s->ntries)
			ct_dx_tries(f, s);
		ct_dx_copies(c, s->name, s, &cs);
		evidence_copies(f, &cs);
		if (refused)
			fix_refused(f, s->name, refused, why);
		else if (unversioned_fix)
			ct_finding_fix(f, "%s", unversioned_fix);
		else if (unreadable)
			ct_finding_fix(f, "make %s readable by the job's user (chmod a+r, and a+x on "
					  "the folders above it)",
				       unreadable);
		else
			fix_not_found(f, s->name, ct_dx_base(requester), requester, kind, &cs,
				      ct_python_shipped(requester), context_cuda(c, requester),
				      ffi_module(requester));
		/* The loader names the first library it misses: the others too, one fix for all. */
		if (!refused && !unreadable &&
		    (kind == CT_SEARCH_NEEDED || kind == CT_SEARCH_FILTER) &&
		    ct_dx_also_missing(c, f, s, requester)) {
			ct_dx_say_also(f);
			ct_dx_evidence_also(f);
			const struct ct_elfinfo *ei = ct_dx_elfinfo(c, requester);

			ct_dx_fix_all_missing(f, &cs, ct_dx_base(requester), requester,
					      ei && !ei->rpath && !ei->runpath,
					      ct_python_shipped(requester), context_cuda(c, requester));
		}
		if (optional)
			ct_finding_fix_line(f, "or nothing, if the program does without %s (it went on "
					       "without it)",
					    ct_dx_base(optional->name));
		if (ct_dx_is_nvml(s->name) && !alt && !refused) {
			nvml_fix(f);
			ct_copies_release(&cs);
		} else if (alt) {
			ct_finding_fix(f, "nothing to do if %s works with %s, which it loaded instead",
				       ct_dx_base(requester), ct_dx_base(alt->path));
			ct_copies_release(&cs);
		} else if (kind == CT_SEARCH_PRELOAD) {
			ct_copies_release(&cs);
		} else {
			struct miss_state *m = ct_xcalloc(1, sizeof(*m));

			/* One library missing: one finding, whoever else needs it. */
			ct_finding_cause(f, "not-found\x1f%s", s->name);
			ct_finding_needed_by(f, requester, how_asked(s, kind));
			m->name = ct_xstrdup(s->name);
			m->kind = kind;
			m->cs = cs;
			m->refused = refused ? ct_xstrdup(refused) : NULL;
			m->refused_why = why;
			m->unreadable = unreadable != NULL;
			m->python = ct_python_shipped(requester);
			m->cuda = context_cuda(c, requester);
			m->unversioned_fix = unversioned_fix;
			unversioned_fix = NULL;
			f->state = m;
			f->state_free = miss_state_free;
			f->restate = miss_restate;
		}
		free(unversioned_fix);
		ct_dx_where(c, f);
	}
	HASH_ITER(hh, said, e, tmp) {
		HASH_DEL(said, e);
		free(e->key);
		free(e);
	}
}

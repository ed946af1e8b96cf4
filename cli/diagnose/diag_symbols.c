/*
 * symbol-missing (diagnose.h): "undefined symbol: X" with no version, the
 * common end of an extension built against another release of its
 * framework. Two ways to see it:
 *
 * - at load: the dlerror text the program got names the object and the
 *   symbol (the loader binds every symbol of an RTLD_NOW load, as Python's
 *   import does, and the dlopen fails);
 * - lazily: under lazy binding the load succeeds and the loader stops the
 *   process at the first call ("symbol lookup error", status 127) without
 *   an exit record. Then the undefined symbols of each object bound
 *   lazily are looked up in the process's objects, as the loader would.
 *
 * A process that ended normally is not judged statically: a symbol never
 * called does no harm, and a false alarm costs more than the silence.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "demangle.h"
#include "diag_internal.h"
#include "elfinfo.h"
#include "framework.h"
#include "libnames.h"
#include "symvers.h"
#include "util.h"

#define MAX_PARTS 16

/* The symbol in words: "_ZN3c104cuda9SetDeviceEi (c10::cuda::SetDevice(int))". */
static void symbol_words(const char *sym, char *buf, size_t size)
{
	char *d = ct_demangle(sym);

	if (d)
		snprintf(buf, size, "%s (%s)", sym, d);
	else
		snprintf(buf, size, "%s", sym);
	free(d);
}

/* "c10::cuda" from the parts [0, upto) of sym; into buf. */
static void scope_words(const char *sym, const size_t *ends, size_t upto, char *buf,
			size_t size)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < upto; i++) {
		const char *p = sym + (i ? ends[i - 1] : strncmp(sym, "_ZN", 3) == 0 ? 3 : 2);
		char *end;

		p += strspn(p, "rVKRO");
		if (p[0] == 'S' && p[1] == 't') {
			at += (size_t)snprintf(buf + at, at < size ? size - at : 0, "std");
			p += 2;
		}
		strtoul(p, &end, 10);
		at += (size_t)snprintf(buf + at, at < size ? size - at : 0, "%s%.*s",
				       at ? "::" : "", (int)(sym + ends[i] - end), end);
	}
}

/* A C name's family: "cudnn" of "cudnnCreate", "fw_" of "fw_set_device"; 0 when none. */
static size_t c_prefix(const char *sym)
{
	size_t i = strspn(sym, "_");

	for (; sym[i] && islower((unsigned char)sym[i]); i++)
		;
	if (sym[i] == '_')
		i++;
	return i >= 3 && sym[i] ? i : 0;
}

/* The C and C++ runtime: they define no framework's symbols. */
static bool system_library(const char *name)
{
	static const char *const sys[] = { "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so",
					   "libpthread.so", "libdl.so", "librt.so", "ld-linux",
					   "libc++.so", "libc++abi.so", "libmvec.so", "ld64.so" };
	size_t i;

	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (strncmp(name, sys[i], strlen(sys[i])) == 0)
			return true;
	return false;
}

/* How well a library's file name matches a symbol: its name's words found in it. */
static int name_score(const char *lib, const char *sym, const char *demangled)
{
	char stem[128], *w, *save = NULL;
	int score = 0;

	ct_dx_stem(lib, stem, sizeof(stem));
	for (w = strtok_r(stem + (strncmp(stem, "lib", 3) == 0 ? 3 : 0), "_-.+", &save); w;
	     w = strtok_r(NULL, "_-.+", &save))
		if (strlen(w) >= 2 && (strcasestr(sym, w) || (demangled && strcasestr(demangled, w))))
			score++;
	return score;
}

/*
 * Libraries whose C names say whose they are: the CUDA driver API (cuInit,
 * cuMemCreate), the runtime (cudaMalloc), the CUDA libraries, Python's C
 * API. Longer prefixes first: cublasLt before cublas, cuda before cu.
 */
static const struct family {
	const char *prefix;   /* the name starts so, then a capital (or '_') */
	const char *stem;     /* a DT_NEEDED entry of the family starts so */
	const char *soname;   /* what to link or load, in words (N: its major) */
	const char *words;    /* whose it is */
} families[] = {
	{ "cublasLt", "libcublasLt.so", "libcublasLt.so.N", "cuBLASLt's" },
	{ "cublas", "libcublas.so", "libcublas.so.N", "cuBLAS's" },
	{ "cudnn", "libcudnn", "libcudnn.so.N", "cuDNN's" },
	{ "cufft", "libcufft.so", "libcufft.so.N", "cuFFT's" },
	{ "curand", "libcurand.so", "libcurand.so.N", "cuRAND's" },
	{ "cusparse", "libcusparse.so", "libcusparse.so.N", "cuSPARSE's" },
	{ "cusolver", "libcusolver.so", "libcusolver.so.N", "cuSOLVER's" },
	{ "nvrtc", "libnvrtc.so", "libnvrtc.so.N", "NVRTC's" },
	{ "nvJitLink", "libnvJitLink.so", "libnvJitLink.so.N", "nvJitLink's" },
	{ "nccl", "libnccl.so", "libnccl.so.N", "NCCL's" },
	{ "cuda", "libcudart.so", "libcudart.so.N", "the CUDA runtime's" },
	{ "cu", "libcuda.so", "libcuda.so.1", "the CUDA driver's" },
	{ "Py", "libpython", "libpython3.X", "Python's C API (the interpreter's)" },
	{ "_Py", "libpython", "libpython3.X", "Python's C API (the interpreter's)" },
};

static const struct family *family_of(const char *sym)
{
	size_t i, n;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		n = strlen(families[i].prefix);
		if (strncmp(sym, families[i].prefix, n) == 0 &&
		    (isupper((unsigned char)sym[n]) || sym[n] == '_'))
			return &families[i];
	}
	return NULL;
}

/* The dependency expected to define a symbol, and why it is that one. */
struct expected {
	const struct ct_loaded *o;     /* the loaded copy, or NULL: none named */
	const char *needed;            /* the DT_NEEDED entry */
	const struct ct_symtab *table; /* o's, or NULL when unreadable */
	char why[256];
	/*
	 * The symbol's family, whose library the requester does not need at
	 * all: it was linked without it (xllamacpp's wheel calls cuMemCreate
	 * and names no CUDA library), and no other dependency is to blame.
	 */
	const struct family *unlinked;
};

/*
 * Which DT_NEEDED library of requester should define sym: the one that
 * defines the most other symbols of sym's namespace (c10::cuda ->
 * libc10_cuda), trying the innermost first; else the one whose file name
 * matches the symbol best (libfw -> fw_*); else the only library it needs
 * besides the C and C++ runtime. docs/findings.md, symbol-missing.
 */
static void find_expected(struct ctx *c, const char *requester, const char *sym,
			  struct expected *x)
{
	const struct ct_elfinfo *e = ct_dx_elfinfo(c, requester);
	size_t ends[MAX_PARTS], nparts = ct_mangled_parts(sym, ends, MAX_PARTS), cpre = c_prefix(sym);
	size_t i, level, best = 0, nother = 0;
	char *demangled = ct_demangle(sym);
	const struct ct_loaded *other = NULL;
	const char *other_name = NULL;
	int best_score = 0;

	memset(x, 0, sizeof(*x));
	if (!e)
		goto out;
	if ((x->unlinked = family_of(sym))) {
		for (i = 0; i < e->nneeded && x->unlinked; i++)
			if (strncmp(ct_dx_base(e->needed[i]), x->unlinked->stem,
				    strlen(x->unlinked->stem)) == 0)
				x->unlinked = NULL;
		if (x->unlinked)
			goto out;
	}
	/* The namespaces, innermost first: the parts but the function's own name. */
	for (level = nparts ? nparts - 1 : 0; level > 0 && !x->o; level--) {
		for (i = 0; i < e->nneeded; i++) {
			const struct ct_loaded *o = ct_dx_loaded_named(c, e->needed[i]);
			const struct ct_symtab *t;
			size_t n;

			if (!o || system_library(e->needed[i]) ||
			    !(t = ct_symcache_table(c->d->syms, o->path)))
				continue;
			n = ct_symtab_count_prefix(t, sym, ends[level - 1], NULL);
			if (n > best) {
				best = n;
				x->o = o;
				x->needed = e->needed[i];
				x->table = t;
			}
		}
		if (x->o) {
			char words[128];

			scope_words(sym, ends, level, words, sizeof(words));
			snprintf(x->why, sizeof(x->why), "it defines %zu other symbol%s of %s", best,
				 best == 1 ? "" : "s", words);
		}
	}
	for (i = 0; i < e->nneeded && !x->o && cpre; i++) {
		const struct ct_loaded *o = ct_dx_loaded_named(c, e->needed[i]);
		const struct ct_symtab *t;
		size_t n;

		if (!o || system_library(e->needed[i]) ||
		    !(t = ct_symcache_table(c->d->syms, o->path)) ||
		    !(n = ct_symtab_count_prefix(t, sym, cpre, NULL)))
			continue;
		x->o = o;
		x->needed = e->needed[i];
		x->table = t;
		snprintf(x->why, sizeof(x->why), "it defines %zu other symbol%s named %.*s*", n,
			 n == 1 ? "" : "s", (int)cpre, sym);
	}
	for (i = 0; i < e->nneeded && !x->o; i++) {
		int s;

		if (system_library(e->needed[i]))
			continue;
		nother++;
		other_name = e->needed[i];
		other = ct_dx_loaded_named(c, e->needed[i]);
		if ((s = name_score(e->needed[i], sym, demangled)) > best_score && other) {
			best_score = s;
			x->o = other;
			x->needed = e->needed[i];
		}
	}
	if (x->o && !x->why[0])
		snprintf(x->why, sizeof(x->why), "its name matches the symbol's");
	if (!x->o && nother == 1 && other) {
		x->o = other;
		x->needed = other_name;
		snprintf(x->why, sizeof(x->why), "the one library %s needs besides the C and C++ "
						 "runtime",
			 ct_dx_base(requester));
	}
	if (x->o && !x->table)
		x->table = ct_symcache_table(c->d->syms, x->o->path);
out:
	free(demangled);
}

/* What the expected library defines instead: the same name, another signature. */
static void evidence_instead(struct ct_finding *f, const struct expected *x, const char *sym)
{
	size_t ends[MAX_PARTS], n = ct_mangled_parts(sym, ends, MAX_PARTS), first = 0, count, i;

	if (!n || !x->table)
		return;
	count = ct_symtab_count_prefix(x->table, sym, ends[n - 1], &first);
	for (i = 0; i < count && i < 3; i++) {
		char words[1024];

		symbol_words(ct_symtab_sorted(x->table, first + i)->name, words, sizeof(words));
		ct_finding_evidence(f, "it defines instead: %s", words);
	}
}

/* Copies of the expected library elsewhere that do define sym; how many. */
static size_t evidence_copies(struct ctx *c, struct ct_finding *f, const struct expected *x,
			      const char *sym, char *first, size_t size)
{
	struct ct_copies cs;
	const struct ct_symtab *t;
	size_t i, n = 0;

	first[0] = '\0';
	ct_dx_copies(c, x->o->soname ? x->o->soname : x->needed, x->o->search, &cs);
	for (i = 0; i < cs.n; i++) {
		if (ct_dx_same_file(cs.c[i].path, x->o->path) ||
		    !(t = ct_symcache_table(c->d->syms, cs.c[i].path)) || !ct_symtab_has(t, sym, NULL))
			continue;
		if (!n++)
			snprintf(first, size, "%s", cs.c[i].path);
		if (n <= 4)
			ct_finding_evidence(f, "defined by another copy: %s (%s)", cs.c[i].path,
					    cs.c[i].where);
	}
	if (!n)
		ct_finding_evidence(f, "no other copy of %s on this machine defines it",
				    x->o->soname ? x->o->soname : x->needed);
	ct_copies_release(&cs);
	return n;
}

/*
 * One finding: requester needs sym, which nothing in the process defines.
 * loaded_error: the text the program got at load, or NULL (lazily).
 */
static void report(struct ctx *c, const char *requester, const char *sym, size_t nmore,
		   const char *loaded_error)
{
	char words[1024], ver[64], who[512], copy[4096];
	struct ct_framework fw;
	struct ct_finding *f;
	struct expected x;
	bool have_fw;

	symbol_words(sym, words, sizeof(words));
	find_expected(c, requester, sym, &x);
	if (x.unlinked) {
		f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_MISSING, requester,
				   "'%s' needs %s, %s, and names no library that defines it%s",
				   ct_dx_base(requester), words, x.unlinked->words,
				   nmore ? " (nor others)" : "");
		if (loaded_error)
			ct_finding_evidence(f, "the program got: %s", loaded_error);
		if (nmore)
			ct_finding_evidence(f, "%zu more undefined symbol%s of %s defined nowhere",
					    nmore, nmore == 1 ? "" : "s", ct_dx_base(requester));
		ct_finding_evidence(f, "its DT_NEEDED names no %s: it was linked without it, "
				       "and counts on one loaded before it",
				    x.unlinked->soname);
		if (strcmp(x.unlinked->prefix, "Py") == 0 || strcmp(x.unlinked->prefix, "_Py") == 0)
			ct_finding_fix(f, "%s is a Python extension module: import it from the "
					  "python it was built for, which defines these",
				       ct_dx_base(requester));
		else
			ct_finding_fix(f, "use a build of %s that links %s (its DT_NEEDED); or load "
					  "%s with RTLD_GLOBAL before it",
				       ct_dx_base(requester), x.unlinked->soname, x.unlinked->soname);
		ct_dx_where(c, f);
		return;
	}
	if (x.o)
		f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_MISSING, requester,
				   "'%s' needs %s, which %s does not define%s", ct_dx_base(requester),
				   words, x.o->soname ? x.o->soname : ct_dx_base(x.o->path),
				   nmore ? " (nor others)" : "");
	else
		f = ct_finding_add(&c->d->findings, CT_F_SYMBOL_MISSING, requester,
				   "'%s' needs %s, which no library in the process defines%s",
				   ct_dx_base(requester), words, nmore ? " (nor others)" : "");
	if (loaded_error)
		ct_finding_evidence(f, "the program got: %s", loaded_error);
	else
		ct_finding_evidence(f, "the process ended without exiting: under lazy binding the "
				       "loader stops it at the first call (\"symbol lookup error: "
				       "%s: undefined symbol: %s\", exit status 127)",
				    requester, sym);
	if (nmore)
		ct_finding_evidence(f, "%zu more undefined symbol%s of %s defined nowhere", nmore,
				    nmore == 1 ? "" : "s", ct_dx_base(requester));
	have_fw = x.o && ct_framework_of(x.o->path, &fw);
	if (x.o) {
		ct_dx_asker(x.o, who, sizeof(who));
		ct_dx_version(c, x.o->path, ver, sizeof(ver));
		ct_finding_evidence(f, "expected from: %s%s%s%s: %s", x.o->path,
				    ver[0] ? " (version " : "", ver, ver[0] ? ")" : "", x.why);
		ct_finding_evidence(f, "%s: %s", x.o->path, who);
		evidence_instead(f, &x, sym);
		if (have_fw)
			ct_finding_evidence(f, "%s loaded: %s%s%s (%s); %s was built against "
					       "another release, whose %s defined the symbol",
					    fw.name, fw.version, fw.cuda[0] ? ", CUDA " : "", fw.cuda,
					    fw.source, ct_dx_base(requester),
					    x.o->soname ? x.o->soname : ct_dx_base(x.o->path));
		evidence_copies(c, f, &x, sym, copy, sizeof(copy));
	} else {
		copy[0] = '\0';
	}
	if (have_fw) {
		ct_finding_fix(f, "rebuild %s against the %s in use (%s): pip install "
				  "--no-build-isolation (so that it compiles against the torch "
				  "installed, not a fresh one)",
			       ct_dx_base(requester), fw.name, fw.version);
		ct_finding_fix_line(f, "or install the build of %s made for %s %s", ct_dx_base(requester),
				    fw.name, fw.version);
	} else if (x.o) {
		ct_finding_fix(f, "rebuild %s against the %s in use (%s), or install the build of "
				  "it made for that release",
			       ct_dx_base(requester), x.o->soname ? x.o->soname : ct_dx_base(x.o->path),
			       x.o->path);
	} else {
		ct_finding_fix(f, "rebuild %s against the libraries in use, or install the build "
				  "of it made for them",
			       ct_dx_base(requester));
	}
	if (copy[0])
		ct_finding_fix_line(f, "or run it with the release it was built for: %s defines it",
				    copy);
	ct_dx_where(c, f);
}

/* "PATH: undefined symbol: SYM" (no ", version V") into the two; false otherwise. */
static bool parse_error(const char *text, char *path, size_t psize, char *sym, size_t ssize)
{
	static const char tag[] = ": undefined symbol: ";
	const char *hit = NULL, *s, *end;

	for (s = strstr(text, tag); s; s = strstr(s + 1, tag))
		hit = s;
	if (!hit)
		return false;
	s = hit + sizeof(tag) - 1;
	end = s + strcspn(s, ", \t\n");
	/* ", version V": the symbol-version analysis' (symbol-version-missing). */
	if (end == s || *end == ',' || (size_t)(end - s) >= ssize || (size_t)(hit - text) >= psize)
		return false;
	snprintf(sym, ssize, "%.*s", (int)(end - s), s);
	snprintf(path, psize, "%.*s", (int)(hit - text), text);
	return true;
}

/* Did the process end without an exit: the loader's _exit(127), or a signal? */
static bool died(const struct ct_proc *p)
{
	size_t i;

	if (!p->started || p->fini || p->exited)
		return false;
	/* Its image went on in another program: that one's trace says how it ended. */
	for (i = 0; i < p->nexecs; i++)
		if (p->execs[i].traced)
			return false;
	return true;
}

/*
 * Was o bound at load: brought by an RTLD_NOW dlopen, itself or as a
 * dependency (every symbol bound then, or the load failed)?
 */
static bool bound_now(struct ctx *c, const struct ct_loaded *o)
{
	const struct ct_request *q = o->request;

	if (!q && o->search)
		q = ct_dx_within_dlopen(c, o->search);
	return q && (q->flags & RTLD_NOW);
}

/*
 * Did every library o needs get loaded? When one is missing the process
 * stopped for that (lib-not-found), and what it would define is unknown.
 */
static bool needs_met(struct ctx *c, const struct ct_loaded *o)
{
	const struct ct_elfinfo *e = ct_dx_elfinfo(c, o->path);
	size_t i;

	if (!e)
		return false;
	for (i = 0; i < e->nneeded; i++)
		if (!strchr(e->needed[i], '/') && !ct_dx_loaded_named(c, e->needed[i]))
			return false;
	return true;
}

/*
 * Every undefined symbol of p's objects bound lazily, looked up in its
 * objects. Only when the trace holds the whole scope: the program (whose
 * symbols extensions use, Python's above all) and each object readable.
 */
static void lazily(struct ctx *c, const char *said)
{
	const struct ct_proc *p = c->p;
	const struct ct_symtab **scope = NULL;
	const char *env = ct_proc_env(p, "LD_BIND_NOW");
	size_t i, k, n = 0;
	bool ready = false;

	if (env && env[0])
		return;
	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		const struct ct_undefs *u;
		const char *first = NULL;
		size_t nmissing = 0, s;

		if (o->shim || o->closed || bound_now(c, o) || (said && strcmp(said, o->path) == 0) ||
		    !(u = ct_symcache_undefs(c->d->syms, o->path)) || !u->n || !needs_met(c, o))
			continue;
		/* The scope once, when a symbol is to be looked up: every object mapped. */
		if (!ready) {
			bool program = false;

			ready = true;
			for (k = 0; k < c->nmapped; k++)
				program |= c->mapped[k]->main;
			if (!program)
				goto out;
			scope = ct_xcalloc(c->nmapped + 1, sizeof(*scope));
			for (k = 0; k < c->nmapped; k++) {
				if (c->mapped[k]->closed)
					continue;
				/* An object unread could define anything: judge nothing. */
				if (!(scope[n++] = ct_symcache_table(c->d->syms, c->mapped[k]->path)))
					goto out;
			}
		}
		for (s = 0; s < u->n; s++) {
			for (k = 0; k < n && !ct_symtab_has(scope[k], u->names[s], NULL); k++)
				;
			if (k < n)
				continue;
			first = first ? first : u->names[s];
			nmissing++;
		}
		if (first) {
			report(c, o->path, first, nmissing - 1, NULL);
			c->lazy_stop = true;
		}
	}
out:
	free(scope);
}

void ct_dx_rule_symbol_missing(struct ctx *c)
{
	const struct ct_proc *p = c->p;
	char path[4096], sym[1024];
	const char *said = NULL;
	size_t i;

	for (i = 0; i < p->nrequests; i++) {
		const struct ct_request *q = &p->requests[i];

		if (!q->error || !parse_error(q->error, path, sizeof(path), sym, sizeof(sym)))
			continue;
		report(c, path, sym, 0, q->error);
		said = q->error;
	}
	if (died(p))
		lazily(c, said ? path : NULL);
}

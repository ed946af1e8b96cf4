/*
 * The facts of a trace, readable: per process the CUDA libraries (where,
 * by which rule, for whom, which version), the loads that failed with
 * their candidates, the driver and GPUs, and the module loads with their
 * results. The diagnosis engine builds on these; this only states them.
 */
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "cuda_errors.h"
#include "util.h"
#include "elfscan.h"
#include "diagnose.h"
#include "ending.h"
#include "facts.h"
#include "libnames.h"
#include "roles.h"
#include "text.h"
#include "tree.h"

#define uthash_fatal(msg) ct_out_of_memory()
#include <uthash.h>

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

/* Same program, same objects from the same files, same driver results. */
static bool alike(const struct ct_proc *a, const struct ct_proc *b)
{
	size_t i;

	if ((a->exe && b->exe && strcmp(a->exe, b->exe) != 0) || a->nobjects != b->nobjects ||
	    a->nsearches != b->nsearches || a->nmodules != b->nmodules || a->cuinit != b->cuinit ||
	    a->driver.present != b->driver.present)
		return false;
	for (i = 0; i < a->nobjects; i++)
		if (strcmp(a->objects[i].path, b->objects[i].path) != 0)
			return false;
	for (i = 0; i < a->nmodules; i++)
		if (a->modules[i].result != b->modules[i].result)
			return false;
	return true;
}

/* Each image arch of a file with SASS or PTX, for a column of the matrix. */
struct arch_code {
	unsigned arch;
	bool sass, ptx;
};

/*
 * The matrix's archs: a process keeps the first MATRIX_ARCHS it meets, so
 * a file's first 2 * MATRIX_ARCHS are all it can add (at most
 * MATRIX_ARCHS - 1 of them are there already while there is room).
 */
#define MATRIX_ARCHS 64
#define FILE_ARCHS (2 * MATRIX_ARCHS)

/* A file's device code as the matrix shows it, worked out once for every process. */
struct file_cols {
	const struct elfscan_file *f;
	struct arch_code *code;   /* every arch with SASS or PTX, sorted */
	size_t ncode;
	unsigned order[FILE_ARCHS]; /* those archs as first seen in the file */
	size_t norder;
	long pick[CT_MAX_TARGETS]; /* the image the driver picks for each target */
	UT_hash_handle hh;
};

/*
 * What printing every process asks of the diagnosis, gathered once for
 * the trace: a job's ranks load the same files and share the findings.
 */
struct ctx {
	const struct ct_diagnosis *d;
	struct ct_trees *trees;   /* what every tree asks */
	struct file_cols *files;     /* by elfscan_file */
};

static void ctx_init(struct ctx *c, const struct ct_diagnosis *d)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->trees = ct_trees_new(d);
}

static void ctx_release(struct ctx *c)
{
	struct file_cols *fc, *ftmp;

	ct_trees_free(c->trees);
	HASH_ITER(hh, c->files, fc, ftmp) {
		HASH_DEL(c->files, fc);
		free(fc->code);
		free(fc);
	}
}

static int code_cmp(const void *a, const void *b)
{
	const struct arch_code *x = a, *y = b;

	return x->arch < y->arch ? -1 : x->arch > y->arch;
}

static struct arch_code *code_find(const struct file_cols *fc, unsigned arch)
{
	struct arch_code key = { arch, false, false };

	return fc->ncode ? bsearch(&key, fc->code, fc->ncode, sizeof(key), code_cmp) : NULL;
}

/* f's archs and picks, from the cache or worked out now. */
static const struct file_cols *cols_of(struct ctx *c, const struct elfscan_file *f)
{
	struct file_cols *fc;
	size_t k, n = 0;
	bool *seen;

	HASH_FIND_PTR(c->files, &f, fc);
	if (fc)
		return fc;
	fc = ct_xcalloc(1, sizeof(*fc));
	fc->f = f;
	fc->code = ct_xcalloc(f->nimages + 1, sizeof(*fc->code));
	for (k = 0; k < f->nimages; k++)
		if (f->images[k].kind == ELFSCAN_KIND_SASS || f->images[k].kind == ELFSCAN_KIND_PTX)
			fc->code[n++].arch = f->images[k].arch;
	qsort(fc->code, n, sizeof(*fc->code), code_cmp);
	for (k = 0; k < n; k++)
		if (!fc->ncode || fc->code[fc->ncode - 1].arch != fc->code[k].arch)
			fc->code[fc->ncode++] = fc->code[k];
	seen = ct_xcalloc(fc->ncode + 1, sizeof(*seen));
	for (k = 0; k < f->nimages; k++) {
		const struct elfscan_image *img = &f->images[k];
		struct arch_code *a;

		if (img->kind != ELFSCAN_KIND_SASS && img->kind != ELFSCAN_KIND_PTX)
			continue;
		a = code_find(fc, img->arch);
		a->sass |= img->kind == ELFSCAN_KIND_SASS;
		a->ptx |= img->kind == ELFSCAN_KIND_PTX;
		if (!seen[a - fc->code] && fc->norder < FILE_ARCHS) {
			seen[a - fc->code] = true;
			fc->order[fc->norder++] = img->arch;
		}
	}
	free(seen);
	for (k = 0; c->d && k < c->d->ntargets; k++)
		fc->pick[k] = elfscan_pick_image(f->images, f->nimages, &c->d->targets[k]);
	HASH_ADD_PTR(c->files, f, fc);
	return fc;
}

/* A file already seen, for first_loads. */
struct seen_path {
	const char *path;
	UT_hash_handle hh;
};

/*
 * Which objects are the first load of their file: a file loaded again
 * (dlopen, dlclose, dlopen) is one row. Returns an array of nobjects
 * flags; the caller frees it.
 */
static bool *first_loads(const struct ct_proc *p)
{
	struct seen_path *set = NULL, *e, *tmp;
	bool *first = ct_xcalloc(p->nobjects + 1, sizeof(*first));
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		HASH_FIND_STR(set, p->objects[i].path, e);
		if (e)
			continue;
		first[i] = true;
		e = ct_xcalloc(1, sizeof(*e));
		e->path = p->objects[i].path;
		HASH_ADD_KEYPTR(hh, set, e->path, strlen(e->path), e);
	}
	HASH_ITER(hh, set, e, tmp) {
		HASH_DEL(set, e);
		free(e);
	}
	return first;
}

/* PTX whose ISA the process's driver cannot compile (ptx-too-new). */
static bool ptx_too_new(const struct ct_proc *p, const struct elfscan_image *img)
{
	int64_t driver = p->driver.version;

	return driver > 0 &&
	       !ct_ptx_driver_reads(img->version_major, img->version_minor, (int)driver);
}

/* Does a file run SASS on every target? */
static bool runs_sass(const struct file_cols *fc, const struct ct_diagnosis *d)
{
	size_t t;

	for (t = 0; t < d->ntargets; t++)
		if (fc->pick[t] < 0 || fc->f->images[fc->pick[t]].kind != ELFSCAN_KIND_SASS)
			return false;
	return true;
}

/*
 * The arch coverage matrix, as the default report shows it when it has
 * more rows than a screen can spare: a line that counts, and rows only for
 * the objects that do not run SASS on every target, the first few (-v:
 * every row).
 */
static void matrix_brief(FILE *out, const struct ct_proc *p, struct ctx *c, const bool *first,
			 size_t rows, bool *row)
{
	const struct ct_diagnosis *d = c->d;
	size_t i, good = 0, shown = 0;

	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f;

		row[i] = false;
		if (p->objects[i].shim || !(f = ct_diagnosis_code(d, p->objects[i].path)) ||
		    !first[i])
			continue;
		if (d->ntargets && runs_sass(cols_of(c, f), d)) {
			good++;
		} else if (d->ntargets && shown < CT_FACTS_MATRIX_ROWS) {
			row[i] = true;
			shown++;
		}
	}
	ct_tprintf(out, "  device code: %zu object%s", rows, rows == 1 ? "" : "s");
	if (!d->ntargets)
		ct_tprintf(out, "; no GPU recorded and no --arch: not judged (-v: their archs)\n");
	else if (good == rows)
		ct_tprintf(out, ", SASS for %s in each (-v: the matrix)\n",
			   d->ntargets == 1 ? d->target_names[0] : "every target");
	else
		ct_tprintf(out, ", %zu with SASS for %s; the others%s:\n", good,
			   d->ntargets == 1 ? d->target_names[0] : "every target",
			   rows - good > shown ? " (the first few; -v: all)" : "");
}

/*
 * The arch coverage matrix: a row per loaded object with device code, a
 * column per arch present (S: SASS, P: PTX), then a column per device or
 * target with what the driver would run there.
 */
static void print_matrix(FILE *out, const struct ct_proc *p, struct ctx *c, bool verbose)
{
	const struct ct_diagnosis *d = c->d;
	unsigned archs[MATRIX_ARCHS];
	size_t narchs = 0, i, k, t, rows = 0, width = 12;
	bool *first, *row = NULL;

	if (!d)
		return;
	first = first_loads(p);
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f;
		const struct file_cols *fc;

		if (p->objects[i].shim || !(f = ct_diagnosis_code(d, p->objects[i].path)) ||
		    !first[i])
			continue;
		rows++;
		if (strlen(base(p->objects[i].path)) > width)
			width = strlen(base(p->objects[i].path));
		fc = cols_of(c, f);
		for (k = 0; k < fc->norder; k++) {
			size_t j;

			for (j = 0; j < narchs && archs[j] != fc->order[k]; j++)
				;
			if (j == narchs && narchs < MATRIX_ARCHS) {
				/* Keep them sorted. */
				while (j > 0 && archs[j - 1] > fc->order[k]) {
					archs[j] = archs[j - 1];
					j--;
				}
				archs[j] = fc->order[k];
				narchs++;
			}
		}
	}
	if (!rows) {
		free(first);
		return;
	}
	width = width > 40 ? 40 : width;
	if (!verbose && rows > CT_FACTS_MATRIX_ROWS) {
		row = ct_xcalloc(p->nobjects + 1, sizeof(*row));
		matrix_brief(out, p, c, first, rows, row);
		for (i = 0; i < p->nobjects && !row[i]; i++)
			;
		if (i == p->nobjects)
			goto out;
	} else {
		ct_tprintf(out, "  device code: S SASS, P PTX; ");
		if (d->ntargets)
			ct_tprintf(out, "then what runs on %s\n",
				   d->targets_from_trace ? "the GPUs" : "the targets");
		else
			ct_tprintf(out, "no GPU recorded and no --arch: not judged\n");
	}
	ct_tprintf(out, "    %-*s", (int)width, "");
	for (k = 0; k < narchs; k++)
		ct_tprintf(out, k + 1 < narchs || d->ntargets ? " %-4u" : " %u", archs[k]);
	for (t = 0; t < d->ntargets; t++)
		ct_tprintf(out, " | %s", d->target_names[t]);
	ct_tprintf(out, "\n");
	for (i = 0; i < p->nobjects; i++) {
		const struct elfscan_file *f;
		const struct file_cols *fc;

		if (p->objects[i].shim || !(f = ct_diagnosis_code(d, p->objects[i].path)) ||
		    !first[i] || (row && !row[i]))
			continue;
		fc = cols_of(c, f);
		/* A name longer than the column is never cut: whole on its line, its marks below. */
		if (strlen(base(p->objects[i].path)) > width)
			ct_tprintf(out, "    %s\n    %-*s", base(p->objects[i].path), (int)width, "");
		else
			ct_tprintf(out, "    %-*s", (int)width, base(p->objects[i].path));
		for (k = 0; k < narchs; k++) {
			const struct arch_code *a = code_find(fc, archs[k]);
			bool sass = a && a->sass, ptx = a && a->ptx;

			ct_tprintf(out, k + 1 < narchs || d->ntargets ? " %-4s" : " %s",
				sass && ptx ? "S+P" : sass ? "S" : ptx ? "P" : "-");
		}
		for (t = 0; t < d->ntargets; t++) {
			long pick = fc->pick[t];
			const char *w = pick < 0 ? "none"
					: f->images[pick].kind == ELFSCAN_KIND_SASS ? "SASS"
					: ptx_too_new(p, &f->images[pick]) ? "none (PTX too new for the driver)"
									   : "PTX (JIT)";

			if (t + 1 < d->ntargets)
				ct_tprintf(out, " | %-*s", (int)strlen(d->target_names[t]), w);
			else
				ct_tprintf(out, " | %s", w);
		}
		ct_tprintf(out, "\n");
	}
out:
	free(row);
	free(first);
}

/*
 * The candidates of a search, one line per directory and rule, its
 * glibc-hwcaps and legacy subdirectories folded in (ct_try_runs).
 */
void ct_print_candidates(FILE *out, const struct ct_try *tries, size_t n,
			 const char *indent, bool every_path)
{
	struct ct_try_run *runs;
	size_t i, nruns;

	if (every_path || n == 0) {
		for (i = 0; i < n; i++)
			ct_tprintf(out, "%s%-18s %s\n", indent, ct_rule_words(tries[i].via),
				tries[i].path);
		return;
	}
	runs = ct_try_runs(tries, n, &nruns);
	for (i = 0; i < nruns; i++) {
		char dir[4200];

		ct_tprintf(out, "%s%-18s %s", indent, ct_rule_words(runs[i].via),
			   ct_search_dir_words(runs[i].dir, runs[i].dir_len, dir, sizeof(dir)));
		if (runs[i].nsubdirs)
			ct_tprintf(out, "  (and %zu subdirector%s)", runs[i].nsubdirs,
				runs[i].nsubdirs == 1 ? "y" : "ies");
		ct_tprintf(out, "\n");
	}
	free(runs);
}

/* One way a library was missed: how, by whom, how many times. */
struct miss_way {
	const char *how, *by;
	size_t times;
};

/* The misses of one name, in the order first seen. */
struct miss_group {
	const char *name;
	const struct ct_search *first;
	const char *refused, *words; /* the file the loader refused, or NULL */
	struct miss_way *ways;
	size_t nways;
	UT_hash_handle hh;
};

static const char *miss_how(const struct ct_search *s, enum ct_search_kind kind)
{
	return s->request		? s->request->api
	       : kind == CT_SEARCH_PRELOAD ? "LD_PRELOAD, ignored by the loader, asked"
	       : kind == CT_SEARCH_FILTER  ? "filter needed"
					   : "needed";
}

/*
 * "not found" once per name, with every way it was asked and how many
 * times ("dlopen by libcublasLt.so.12 (2 times); needed by a.so, b.so"):
 * a program that retries a load 50 times gets one line, not 50.
 */
static void print_miss(FILE *out, const struct miss_group *g, bool verbose)
{
	size_t i, k, shown = 0, limit = verbose ? (size_t)-1 : 4;

	ct_tprintf(out, "  %s: %s (", g->refused ? "not loaded" : "not found", g->name);
	for (i = 0; i < g->nways; i++) {
		const struct miss_way *w = &g->ways[i];

		/* Ways with one verb are said together: "needed by a.so, b.so". */
		for (k = 0; k < i && strcmp(g->ways[k].how, w->how) != 0; k++)
			;
		if (k < i)
			continue;
		for (k = i; k < g->nways; k++) {
			const struct miss_way *v = &g->ways[k];

			/* Past the limit, counted only. */
			if (strcmp(v->how, w->how) != 0 || shown++ >= limit)
				continue;
			ct_tprintf(out, "%s%s%s%s", k == i ? (i ? "; " : "") : ", ",
				   k == i ? v->how : "", k == i ? " by " : "", base(v->by));
			if (v->times > 1)
				ct_tprintf(out, " (%zu times)", v->times);
		}
	}
	if (shown > limit)
		ct_tprintf(out, "; %zu more: -v", shown - limit);
	ct_tprintf(out, ")");
	if (g->refused)
		ct_tprintf(out, ": %s: %s", g->refused, g->words);
	ct_tprintf(out, "\n");
}

/*
 * Other auditors in LD_AUDIT (or cudatrace's shim twice: a run inside
 * another): their own loads, made before the program's, are left out.
 */
static void print_auditors(FILE *out, const struct ct_proc *p)
{
	char other[1024];
	const char *b;

	if (!*ct_proc_other_auditors(p, other, sizeof(other)))
		return;
	b = strrchr(other, '/');
	if (!strchr(other, ':') && strcmp(b ? b + 1 : other, "libcudatrace.so") == 0)
		ct_tprintf(out, "  LD_AUDIT names cudatrace's shim twice (cudatrace run inside "
			     "another): the second copy's own loads are left out\n");
	else
		ct_tprintf(out, "  LD_AUDIT also names %s: another auditor; its own loads are "
			     "left out\n", other);
}

static void print_failures(FILE *out, const struct ct_proc *p, const struct ct_diagnosis *d,
			   bool verbose)
{
	struct miss_group *groups = NULL, *g, *tmp, **order = NULL;
	size_t i, k, probes = 0, optional = 0, ngroups = 0, unknown = 0;
	bool brief = d != NULL;

	for (i = 0; i < p->nsearches; i++) {
		const struct ct_search *s = &p->searches[i];
		enum ct_search_kind kind = d ? ct_diagnosis_search_kind(d, p, s) : CT_SEARCH_NEEDED;
		const char *how, *by;

		if (s->found)
			continue;
		if (s->request && s->request->noload) {
			probes++;
			continue;
		}
		/* Another auditor's own load; or its answer was lost or never came (trace-incomplete). */
		if (ct_search_known(p, s) == CT_SEARCH_AUDITOR)
			continue;
		/* Unanswered, but for a search that ended at a file the loader refused. */
		if (ct_search_known(p, s) != CT_SEARCH_KNOWN &&
		    !(d && ct_diagnosis_refused(d, s, NULL))) {
			unknown++;
			continue;
		}
		/* The loader skips a missing DT_AUXILIARY entry without a word. */
		if (kind == CT_SEARCH_AUXILIARY) {
			optional++;
			continue;
		}
		HASH_FIND_STR(groups, s->name, g);
		if (!g) {
			g = ct_xcalloc(1, sizeof(*g));
			g->name = s->name;
			g->first = s;
			HASH_ADD_KEYPTR(hh, groups, g->name, strlen(g->name), g);
			order = ct_xrealloc(order, (ngroups + 1) * sizeof(*order));
			order[ngroups++] = g;
		}
		if (d && !g->refused)
			g->refused = ct_diagnosis_refused(d, s, &g->words);
		how = miss_how(s, kind);
		by = s->request ? s->request->caller : s->by;
		by = by ? by : "?";
		for (k = 0; k < g->nways; k++)
			if (strcmp(g->ways[k].how, how) == 0 && strcmp(g->ways[k].by, by) == 0)
				break;
		if (k == g->nways) {
			g->ways = ct_xrealloc(g->ways, (g->nways + 1) * sizeof(*g->ways));
			g->ways[g->nways].how = how;
			g->ways[g->nways].by = by;
			g->ways[g->nways++].times = 0;
		}
		g->ways[k].times++;
	}
	for (i = 0; i < ngroups; i++) {
		const struct ct_search *s = order[i]->first;

		print_miss(out, order[i], verbose);
		/* With findings above, the candidates are there already. */
		if (brief)
			continue;
		if (s->request && s->request->error)
			ct_tprintf(out, "    the program got: %s\n", s->request->error);
		if (!s->ntries)
			ct_tprintf(out, "    no candidate path was tried\n");
		else
			ct_tprintf(out, "    tried, in order:\n");
		ct_print_candidates(out, s->tries, s->ntries, "      ", false);
	}
	HASH_ITER(hh, groups, g, tmp) {
		HASH_DEL(groups, g);
		free(g->ways);
		free(g);
	}
	free(order);
	if (probes)
		ct_tprintf(out, "  %zu RTLD_NOLOAD probe%s found nothing loaded (not failures)\n",
			probes, probes == 1 ? "" : "s");
	if (optional)
		ct_tprintf(out, "  %zu optional librar%s (DT_AUXILIARY) not found (not failures)\n",
			optional, optional == 1 ? "y" : "ies");
	print_auditors(out, p);
	if (unknown)
		ct_tprintf(out, "  %zu library search%s without an answer in the trace (lost, or cut "
			     "short by the end of the process; not failures)\n",
			unknown, unknown == 1 ? "" : "es");
}

static void print_driver(FILE *out, const struct ct_proc *p)
{
	const struct ct_driver_rec *d = &p->driver;
	int64_t v = d->version;
	size_t i;

	if (!d->present && !p->ncuinit)
		return;
	ct_tprintf(out, "  driver: %s", d->path ? d->path : "?");
	if (v > 0)
		ct_tprintf(out, ", supports CUDA %lld.%lld", (long long)(v / 1000),
			(long long)(v % 1000 / 10));
	if (p->ncuinit)
		ct_tprintf(out, "; cuInit%s: %s (%lld)", p->cuinit_probed ? " (cudatrace's)" : "",
			p->cuinit == 0 ? "ok" : ct_cu_error_text((int)p->cuinit),
			(long long)p->cuinit);
	/* ps: what the process's driver says is known only when cudatrace could ask it. */
	if (p->driver_unasked)
		ct_tprintf(out, " (not asked: cudatrace's own libcuda.so.1 is another file, or none)");
	ct_tprintf(out, "\n");
	for (i = 0; i < d->ngpus; i++) {
		const struct ct_gpu_rec *g = &d->gpus[i];

		ct_tprintf(out, "    GPU %lld: %s, compute capability %s%s%s\n", (long long)g->index,
			g->name ? g->name : "?", g->cc ? g->cc : "?", g->uuid ? ", GPU-" : "",
			g->uuid ? g->uuid : "");
	}
}

static void print_modules(FILE *out, const struct ct_proc *p, const struct ct_diagnosis *d)
{
	size_t i, regs = 0;

	for (i = 0; i < p->nmodules; i++) {
		const struct ct_module *m = &p->modules[i];
		char archs[256];

		if (m->registration) {
			regs++;
			continue;
		}
		ct_module_images_words(d, m, archs, sizeof(archs));
		ct_tprintf(out, "  module load: %s by %s", m->api, base(m->caller));
		if (m->file)
			ct_tprintf(out, " of %s", m->file);
		if (archs[0])
			ct_tprintf(out, " [%s]", archs);
		if (m->result == 0)
			ct_tprintf(out, ": ok\n");
		else
			ct_tprintf(out, ": %s (%s, %lld)\n", ct_cu_error_text((int)m->result),
				ct_cu_error_name((int)m->result), (long long)m->result);
	}
	if (regs)
		ct_tprintf(out, "  %zu fatbin%s registered through the CUDA runtime\n", regs,
			regs == 1 ? "" : "s");
}

/* Why a program was not traced, in an exec record's words ("static"), said. */
static const char *untraced_words(const char *why)
{
	return strcmp(why ? why : "", "setuid") == 0
		       ? "set-user-ID program: the loader ignores LD_AUDIT and LD_PRELOAD"
	       : strcmp(why ? why : "", "static") == 0
		       ? "statically linked: no loader to trace"
		       : "its environment no longer names the cudatrace shim";
}

static void print_ending(FILE *out, const struct ct_proc *p)
{
	size_t i;

	for (i = 0; i < p->nexecs; i++)
		if (!p->execs[i].traced)
			ct_tprintf(out, "  not traced further: %s %s (%s)\n", p->execs[i].api,
				p->execs[i].path ? p->execs[i].path : "?",
				untraced_words(p->execs[i].untraced));
	if (p->dropped)
		ct_tprintf(out, "  %lu trace record%s could not be written\n", p->dropped,
			p->dropped == 1 ? "" : "s");
	if (p->bad_lines || p->cut)
		ct_tprintf(out, "  trace file damaged: %zu unreadable line%s%s\n", p->bad_lines,
			p->bad_lines == 1 ? "" : "s", p->cut ? ", last record cut short" : "");
	ct_ending_print(out, p);
}

/* Did a and b end alike (a crash is never folded into a clean exit)? */
static bool ended_alike(const struct ct_proc *a, const struct ct_proc *b)
{
	struct ct_ending x, y;

	ct_proc_ending(a, &x);
	ct_proc_ending(b, &y);
	return x.kind == y.kind && x.status == y.status && x.signal == y.signal;
}

/* Processes that can fold into one another's (alike, ended alike): one kind. */
struct kind {
	uint64_t key;
	size_t *procs;  /* the trace's indexes, in order */
	size_t n;
	UT_hash_handle hh;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/*
 * What alike and ended_alike compare but the program (a process that
 * names none is like any), and whose trace it is (another user's process
 * never folds into this user's), hashed: equal for processes that fold.
 */
static uint64_t kind_key(const struct ct_proc *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct ct_ending e;
	const char *c;
	size_t i;

	h = mix(h, p->nobjects);
	h = mix(h, p->nsearches);
	h = mix(h, p->nmodules);
	h = mix(h, (uint64_t)p->cuinit);
	h = mix(h, p->driver.present);
	h = mix(h, (uint64_t)p->owner);
	for (i = 0; i < p->nobjects; i++)
		for (h = mix(h, '/'), c = p->objects[i].path; *c; c++)
			h = mix(h, (unsigned char)*c);
	for (i = 0; i < p->nmodules; i++)
		h = mix(h, (uint64_t)p->modules[i].result);
	ct_proc_ending(p, &e);
	h = mix(h, e.kind);
	h = mix(h, (uint64_t)e.status);
	return mix(h, (uint64_t)e.signal);
}

/*
 * Is an earlier process like the trace's i-th (one of kinds)? Adds it to
 * its kind. Ranks of one job are one kind: each is asked of its own kind
 * only, not of every process before it.
 */
static bool folds(struct kind **kinds, const struct ct_trace *t, size_t i)
{
	const struct ct_proc *p = &t->procs[i];
	uint64_t key = kind_key(p);
	struct kind *e;
	size_t k;

	HASH_FIND(hh, *kinds, &key, sizeof(key), e);
	if (!e) {
		e = ct_xcalloc(1, sizeof(*e));
		e->key = key;
		HASH_ADD(hh, *kinds, key, sizeof(e->key), e);
	}
	for (k = 0; k < e->n; k++)
		if (t->procs[e->procs[k]].owner == p->owner && alike(&t->procs[e->procs[k]], p) &&
		    ended_alike(&t->procs[e->procs[k]], p))
			break;
	e->procs = ct_xrealloc(e->procs, (e->n + 1) * sizeof(*e->procs));
	e->procs[e->n++] = i;
	return k < e->n - 1;
}

/*
 * Does the trace span several hosts? A process that names none counts as
 * a host of its own.
 */
static bool many_hosts(const struct ct_trace *t)
{
	const char *first = NULL;
	size_t i, n = 0;

	for (i = 0; i < t->nprocs && n < 2; i++) {
		const char *h = t->procs[i].host;

		if (!h || !first || strcmp(first, h) != 0)
			n++;
		if (h && !first)
			first = h;
	}
	return n > 1;
}

/*
 * Do the trace's files belong to several users (root's report of a shared
 * folder, --trust-owner)? Then each process says whose it is: another
 * user's rank 1 is not this user's.
 */
static bool many_owners(const struct ct_trace *t)
{
	size_t i;

	for (i = 1; i < t->nprocs; i++)
		if (t->procs[i].owner != t->procs[0].owner)
			return true;
	return false;
}

void ct_facts_print(FILE *out, const struct ct_trace *t, const struct ct_diagnosis *d,
		    const struct ct_roles *roles, bool verbose)
{
	size_t i, shown = 0, similar = 0;
	/* Name the host in headings only when the trace spans several. */
	bool hosts = many_hosts(t), owners = many_owners(t);
	struct kind *kinds = NULL, *e, *tmp;
	struct ctx c;

	if (t->nprocs == 0) {
		ct_tprintf(out, "no process was traced%s\n",
			t->bad_files || t->unstarted_files ? " (the trace files are unreadable)" : "");
		return;
	}
	ctx_init(&c, d);
	/* Shown: what did something with CUDA, or ended badly (roles.h). */
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		char cmd[128];

		if (roles->role[i] != CT_ROLE_SHOWN)
			continue;
		ct_proc_command(p, cmd, sizeof(cmd), 72);
		/* Ranks of one job look alike: say so instead of repeating them (-v: all). */
		if (!verbose && folds(&kinds, t, i)) {
			similar++;
			continue;
		}
		if (shown++)
			fputc('\n', out);
		ct_tprintf(out, "process %lld%s%s%s%s", (long long)p->pid,
			hosts && p->host ? " on " : "", hosts && p->host ? p->host : "",
			ct_proc_rank(p) ? ", rank " : "", ct_proc_rank(p) ? ct_proc_rank(p) : "");
		if (owners && p->owner >= 0)
			ct_tprintf(out, ", uid %lld", (long long)p->owner);
		ct_tprintf(out, ": %s", cmd);
		if (p->parent && p->parent->pid == p->pid)
			ct_tprintf(out, " (exec'd by %s)",
				p->parent->exe ? base(p->parent->exe) : "?");
		else if (p->parent && p->fork_by_image)
			ct_tprintf(out, " (descends from %lld by fork)", (long long)p->parent->pid);
		else if (p->parent)
			ct_tprintf(out, " (%s %lld)", p->forked ? "fork of" : "started by",
				(long long)p->parent->pid);
		ct_tprintf(out, "\n");
		/* Made from its run record: nothing of it was seen but how it ended. */
		if (p->untraced) {
			ct_tprintf(out, "  not traced: %s\n", untraced_words(p->untraced));
			ct_ending_print(out, p);
			continue;
		}
		ct_tree_print(out, p, c.trees, verbose);
		print_matrix(out, p, &c, verbose);
		print_failures(out, p, d, verbose);
		print_driver(out, p);
		print_modules(out, p, d);
		print_ending(out, p);
	}
	HASH_ITER(hh, kinds, e, tmp) {
		HASH_DEL(kinds, e);
		free(e->procs);
		free(e);
	}
	ctx_release(&c);
	if (similar)
		ct_tprintf(out, "\n%zu more process%s like %s shown (same program, same "
			     "libraries, same driver results)\n",
			similar, similar == 1 ? "" : "es", shown == 1 ? "the one" : "those");
	if ((roles->nwrappers || roles->nquiet) && shown)
		fputc('\n', out);
	/* pyenv's shims and the helpers they run: one line, by the wrappers' names. */
	if (roles->nwrappers) {
		char names[256];

		ct_tprintf(out, "%zu wrapper process%s: %s\n", roles->nwrappers,
			   roles->nwrappers == 1 ? "" : "es",
			   ct_roles_names(roles, names, sizeof(names)));
	}
	if (roles->nquiet)
		ct_tprintf(out, "%zu process%s without CUDA activity\n", roles->nquiet,
			roles->nquiet == 1 ? "" : "es");
	if (t->bad_files)
		ct_tprintf(out, "%zu trace file%s held no record\n", t->bad_files,
			t->bad_files == 1 ? "" : "s");
	if (t->unstarted_files)
		ct_tprintf(out, "%zu trace file%s without a start record left out (the shim writes "
			     "one first in every file: its records name no process)\n",
			t->unstarted_files, t->unstarted_files == 1 ? "" : "s");
	if (t->foreign_files && !t->foreign_said)
		ct_tprintf(out, "%zu trace file%s of another user left out (not written by this run)\n",
			t->foreign_files, t->foreign_files == 1 ? "" : "s");
	if (t->other_run_files)
		ct_tprintf(out, "%zu trace file%s of other runs in the folder left out\n",
			t->other_run_files, t->other_run_files == 1 ? "" : "s");
	if (t->duplicate_files)
		ct_tprintf(out, "%zu duplicate trace file%s ignored (the same process read twice: "
			     "a folder given twice, or a copy of a file)\n",
			t->duplicate_files, t->duplicate_files == 1 ? "" : "s");
}

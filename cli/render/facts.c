/*
 * The facts of a report, readable: per process the CUDA libraries (where,
 * by which rule, for whom, which version), its device code, the loads
 * that failed, the driver and GPUs, and the module loads with their
 * results. The report model (report_model.h) worked them out; this lays
 * them out in lines.
 */
#include <string.h>

#include "ending.h"
#include "facts.h"
#include "text.h"
#include "tree.h"

/*
 * The arch coverage matrix, as the default report shows it when it has
 * more rows than a screen can spare: a line that counts, and rows only for
 * the objects that do not run SASS on every target, the first few (-v:
 * every row).
 */
static void matrix_brief(FILE *out, const struct ct_report_model *m, const struct ct_rm_matrix *mx)
{
	ct_tprintf(out, "  device code: %zu object%s", mx->nrows, mx->nrows == 1 ? "" : "s");
	if (!m->ntargets)
		ct_tprintf(out, "; no GPU recorded and no --arch: not judged (-v: their archs)\n");
	else if (mx->good == mx->nrows)
		ct_tprintf(out, ", SASS for %s in each (-v: the matrix)\n",
			   m->ntargets == 1 ? m->targets[0] : "every target");
	else
		ct_tprintf(out, ", %zu with SASS for %s; the others%s:\n", mx->good,
			   m->ntargets == 1 ? m->targets[0] : "every target",
			   mx->nrows - mx->good > mx->nbrief ? " (the first few; -v: all)" : "");
}

static const char *const mark_words[] = { "-", "S", "P", "S+P" };
static const char *const runs_words[] = { "none", "SASS", "PTX (JIT)",
					  "none (PTX too new for the driver)" };

/*
 * The arch coverage matrix: a row per loaded object with device code, a
 * column per arch present (S: SASS, P: PTX), then a column per device or
 * target with what the driver would run there.
 */
static void print_matrix(FILE *out, const struct ct_report_model *m, const struct ct_rm_proc *p,
			 bool verbose)
{
	const struct ct_rm_matrix *mx = &p->matrix;
	size_t i, k, t, width = 12;
	bool brief = false;

	if (!p->has_matrix || !mx->nrows)
		return;
	for (i = 0; i < mx->nrows; i++)
		if (strlen(mx->rows[i].name) > width)
			width = strlen(mx->rows[i].name);
	width = width > 40 ? 40 : width;
	if (!verbose && mx->nrows > CT_FACTS_MATRIX_ROWS) {
		brief = true;
		matrix_brief(out, m, mx);
		if (!mx->nbrief)
			return;
	} else {
		ct_tprintf(out, "  device code: S SASS, P PTX; ");
		if (m->ntargets)
			ct_tprintf(out, "then what runs on %s\n",
				   m->targets_from_trace ? "the GPUs" : "the targets");
		else
			ct_tprintf(out, "no GPU recorded and no --arch: not judged\n");
	}
	ct_tprintf(out, "    %-*s", (int)width, "");
	for (k = 0; k < mx->narchs; k++)
		ct_tprintf(out, k + 1 < mx->narchs || m->ntargets ? " %-4u" : " %u", mx->archs[k]);
	for (t = 0; t < m->ntargets; t++)
		ct_tprintf(out, " | %s", m->targets[t]);
	ct_tprintf(out, "\n");
	for (i = 0; i < mx->nrows; i++) {
		const struct ct_rm_row *r = &mx->rows[i];

		if (brief && !r->brief)
			continue;
		/* A name longer than the column is never cut: whole on its line, its marks below. */
		if (strlen(r->name) > width)
			ct_tprintf(out, "    %s\n    %-*s", r->name, (int)width, "");
		else
			ct_tprintf(out, "    %-*s", (int)width, r->name);
		for (k = 0; k < mx->narchs; k++)
			ct_tprintf(out, k + 1 < mx->narchs || m->ntargets ? " %-4s" : " %s",
				   mark_words[r->marks[k]]);
		for (t = 0; t < m->ntargets; t++) {
			const char *w = runs_words[r->runs[t]];

			if (t + 1 < m->ntargets)
				ct_tprintf(out, " | %-*s", (int)strlen(m->targets[t]), w);
			else
				ct_tprintf(out, " | %s", w);
		}
		ct_tprintf(out, "\n");
	}
}

/*
 * "not found" once per name, with every way it was asked and how many
 * times ("dlopen by libcublasLt.so.12 (2 times); needed by a.so, b.so"):
 * a program that retries a load 50 times gets one line, not 50.
 */
static void print_miss(FILE *out, const struct ct_rm_miss *g, bool verbose)
{
	size_t i, k, shown = 0, limit = verbose ? (size_t)-1 : 4;

	ct_tprintf(out, "  %s: %s (", g->refused ? "not loaded" : "not found", g->name);
	for (i = 0; i < g->nways; i++) {
		const struct ct_rm_way *w = &g->ways[i];

		/* Ways with one verb are said together: "needed by a.so, b.so". */
		for (k = 0; k < i && strcmp(g->ways[k].how, w->how) != 0; k++)
			;
		if (k < i)
			continue;
		for (k = i; k < g->nways; k++) {
			const struct ct_rm_way *v = &g->ways[k];

			/* Past the limit, counted only. */
			if (strcmp(v->how, w->how) != 0 || shown++ >= limit)
				continue;
			ct_tprintf(out, "%s%s%s%s", k == i ? (i ? "; " : "") : ", ",
				   k == i ? v->how : "", k == i ? " by " : "", v->by);
			if (v->times > 1)
				ct_tprintf(out, " (%zu times)", v->times);
		}
	}
	if (shown > limit)
		ct_tprintf(out, "; %zu more: -v", shown - limit);
	ct_tprintf(out, ")");
	if (g->refused)
		ct_tprintf(out, ": %s: %s", g->refused, g->refused_words);
	ct_tprintf(out, "\n");
}

static void print_failures(FILE *out, const struct ct_rm_failures *fl, bool verbose)
{
	size_t i;

	/* The candidates of each are in the findings above. */
	for (i = 0; i < fl->nmisses; i++)
		print_miss(out, &fl->misses[i], verbose);
	if (fl->probes)
		ct_tprintf(out, "  %zu RTLD_NOLOAD probe%s found nothing loaded (not failures)\n",
			   fl->probes, fl->probes == 1 ? "" : "s");
	if (fl->optional)
		ct_tprintf(out, "  %zu optional librar%s (DT_AUXILIARY) not found (not failures)\n",
			   fl->optional, fl->optional == 1 ? "y" : "ies");
	/*
	 * Other auditors in LD_AUDIT (or cudatrace's shim twice: a run inside
	 * another): their own loads, made before the program's, are left out.
	 */
	if (fl->auditors == CT_RM_AUDITORS_SHIM_TWICE)
		ct_tprintf(out, "  LD_AUDIT names cudatrace's shim twice (cudatrace run inside "
			     "another): the second copy's own loads are left out\n");
	else if (fl->auditors == CT_RM_AUDITORS_OTHER)
		ct_tprintf(out, "  LD_AUDIT also names %s: another auditor; its own loads are "
			     "left out\n", fl->other_auditors);
	if (fl->unanswered)
		ct_tprintf(out, "  %zu library search%s without an answer in the trace (lost, or cut "
			     "short by the end of the process; not failures)\n",
			   fl->unanswered, fl->unanswered == 1 ? "" : "es");
}

static void print_driver(FILE *out, const struct ct_rm_driver *d)
{
	int64_t v = d->version;
	size_t i;

	if (!d->present && !d->ncuinit)
		return;
	ct_tprintf(out, "  driver: %s", d->path ? d->path : "?");
	if (v > 0)
		ct_tprintf(out, ", supports CUDA %lld.%lld", (long long)(v / 1000),
			   (long long)(v % 1000 / 10));
	if (d->ncuinit)
		ct_tprintf(out, "; cuInit%s: %s (%lld)", d->probed ? " (cudatrace's)" : "",
			   d->cuinit_words, (long long)d->cuinit);
	/* ps: what the process's driver says is known only when cudatrace could ask it. */
	if (d->unasked)
		ct_tprintf(out, " (not asked: cudatrace's own libcuda.so.1 is another file, or none)");
	ct_tprintf(out, "\n");
	for (i = 0; i < d->ngpus; i++) {
		const struct ct_rm_gpu *g = &d->gpus[i];

		ct_tprintf(out, "    GPU %lld: %s, compute capability %s%s%s\n", (long long)g->index,
			   g->name ? g->name : "?", g->cc ? g->cc : "?", g->uuid ? ", GPU-" : "",
			   g->uuid ? g->uuid : "");
	}
}

static void print_modules(FILE *out, const struct ct_rm_proc *p)
{
	size_t i;

	for (i = 0; i < p->nmodules; i++) {
		const struct ct_rm_module *m = &p->modules[i];

		if (m->registration)
			continue;
		ct_tprintf(out, "  module load: %s by %s", m->api, m->caller_name);
		if (m->file)
			ct_tprintf(out, " of %s", m->file);
		if (m->images_text[0])
			ct_tprintf(out, " [%s]", m->images_text);
		if (m->result == 0)
			ct_tprintf(out, ": ok\n");
		else
			ct_tprintf(out, ": %s (%s, %lld)\n", m->result_text, m->result_name,
				   (long long)m->result);
	}
	if (p->nregistrations)
		ct_tprintf(out, "  %zu fatbin%s registered through the CUDA runtime\n",
			   p->nregistrations, p->nregistrations == 1 ? "" : "s");
}

static void print_losses(FILE *out, const struct ct_rm_proc *p)
{
	size_t i;

	for (i = 0; i < p->nuntraced_execs; i++)
		ct_tprintf(out, "  not traced further: %s %s (%s)\n", p->untraced_execs[i].api,
			   p->untraced_execs[i].path, p->untraced_execs[i].why);
	if (p->dropped)
		ct_tprintf(out, "  %lu trace record%s could not be written\n", p->dropped,
			   p->dropped == 1 ? "" : "s");
	if (p->bad_lines || p->cut)
		ct_tprintf(out, "  trace file damaged: %zu unreadable line%s%s\n", p->bad_lines,
			   p->bad_lines == 1 ? "" : "s", p->cut ? ", last record cut short" : "");
	ct_ending_print(out, &p->end);
}

/* "process 12 on node1, rank 3, attempt 1, uid 1000: python3 train.py (fork of 11)" */
static void print_heading(FILE *out, const struct ct_rm_proc *p)
{
	ct_tprintf(out, "process %lld%s%s%s%s", (long long)p->pid, p->heading_host ? " on " : "",
		   p->heading_host ? p->heading_host : "", p->rank ? ", rank " : "",
		   p->rank ? p->rank : "");
	if (p->has_attempt)
		ct_tprintf(out, ", attempt %lld", (long long)p->attempt);
	if (p->heading_uid)
		ct_tprintf(out, ", uid %lld", (long long)p->uid);
	ct_tprintf(out, ": %s", p->command);
	switch (p->relation) {
	case CT_RM_REL_EXEC:
		ct_tprintf(out, " (exec'd by %s)", p->parent_name);
		break;
	case CT_RM_REL_DESCENDS:
		ct_tprintf(out, " (descends from %lld by fork)", (long long)p->parent_pid);
		break;
	case CT_RM_REL_FORK:
	case CT_RM_REL_STARTED:
		ct_tprintf(out, " (%s %lld)", p->relation == CT_RM_REL_FORK ? "fork of" : "started by",
			   (long long)p->parent_pid);
		break;
	case CT_RM_REL_NONE:
		break;
	}
	ct_tprintf(out, "\n");
}

static void print_files_left_out(FILE *out, const struct ct_rm_left_out *f)
{
	if (f->no_record)
		ct_tprintf(out, "%zu trace file%s held no record\n", f->no_record,
			   f->no_record == 1 ? "" : "s");
	if (f->no_start)
		ct_tprintf(out, "%zu trace file%s without a start record left out (the shim writes "
			     "one first in every file: its records name no process)\n",
			   f->no_start, f->no_start == 1 ? "" : "s");
	if (f->other_owner && !f->other_owner_said)
		ct_tprintf(out, "%zu trace file%s of another user left out (not written by this run)\n",
			   f->other_owner, f->other_owner == 1 ? "" : "s");
	if (f->other_run)
		ct_tprintf(out, "%zu trace file%s of other runs in the folder left out\n",
			   f->other_run, f->other_run == 1 ? "" : "s");
	if (f->duplicate)
		ct_tprintf(out, "%zu duplicate trace file%s ignored (the same process read twice: "
			     "a folder given twice, or a copy of a file)\n",
			   f->duplicate, f->duplicate == 1 ? "" : "s");
}

void ct_facts_print(FILE *out, const struct ct_report_model *m, bool verbose)
{
	size_t i, shown = 0;

	if (m->nprocs == 0) {
		ct_tprintf(out, "no process was traced%s\n",
			   m->files.no_record || m->files.no_start ? " (the trace files are unreadable)"
								   : "");
		return;
	}
	/* Shown: what did something with CUDA, or ended badly (roles.h). */
	for (i = 0; i < m->nprocs; i++) {
		const struct ct_rm_proc *p = &m->procs[i];

		if (p->show != CT_RM_SHOWN)
			continue;
		if (shown++)
			fputc('\n', out);
		print_heading(out, p);
		/* Made from its run record: nothing of it was seen but how it ended. */
		if (p->untraced) {
			ct_tprintf(out, "  not traced: %s\n", p->untraced_words);
			ct_ending_print(out, &p->end);
			continue;
		}
		ct_tree_print(out, &p->tree, verbose);
		print_matrix(out, m, p, verbose);
		print_failures(out, &p->failures, verbose);
		print_driver(out, &p->driver);
		print_modules(out, p);
		print_losses(out, p);
	}
	/* Ranks of one job look alike: said so instead of repeating them (-v: all). */
	if (m->folded)
		ct_tprintf(out, "\n%zu more process%s like %s shown (same program, same "
			     "libraries, same driver results)%s%s\n",
			   m->folded, m->folded == 1 ? "" : "es", shown == 1 ? "the one" : "those",
			   m->folded_where ? ": " : "", m->folded_where ? m->folded_where : "");
	if ((m->wrappers || m->quiet) && shown)
		fputc('\n', out);
	/* pyenv's shims and the helpers they run: one line, by the wrappers' names. */
	if (m->wrappers)
		ct_tprintf(out, "%zu wrapper process%s: %s\n", m->wrappers,
			   m->wrappers == 1 ? "" : "es", m->wrapper_words);
	if (m->quiet)
		ct_tprintf(out, "%zu process%s without CUDA activity\n", m->quiet,
			   m->quiet == 1 ? "" : "es");
	print_files_left_out(out, &m->files);
}

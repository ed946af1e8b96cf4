/* The report's text and Markdown views of the report model; see report.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ending.h"
#include "facts.h"
#include "findings_out.h"
#include "markdown.h"
#include "report.h"
#include "text.h"

static enum ct_colour_mode colour_mode = CT_COLOUR_AUTO;

void ct_colour_set(enum ct_colour_mode mode)
{
	colour_mode = mode;
}

bool ct_want_colour(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (colour_mode != CT_COLOUR_AUTO)
		return colour_mode == CT_COLOUR_ALWAYS;
	return isatty(fileno(f)) && !(nc && *nc);
}

/* At most this many lines about ranks claimed twice; --json has them all. */
#define RANK_NOTES_MAX 8

/* "0a0a, 0b0b and 3 more": a note's runs, the first few. */
static void print_runs(FILE *out, const struct ct_rm_job_note *n)
{
	size_t i, shown = n->nruns > 4 ? 3 : n->nruns;

	for (i = 0; i < shown; i++)
		ct_tprintf(out, "%s%s", i == 0 ? "" : i + 1 == n->nruns ? " and " : ", ", n->runs[i]);
	if (shown < n->nruns)
		ct_tprintf(out, " and %zu more", n->nruns - shown);
}

/*
 * A job torchrun's elastic agent restarted: one line, then how each
 * attempt but the last ended (what made the agent restart it).
 */
static void print_restart(FILE *out, const struct ct_rm_job_note *n)
{
	size_t i, k;

	ct_tprintf(out, "job %s (%s) restarted %s by torchrun's elastic agent: %zu attempts of %zu "
			"rank%s\n",
		   n->job, n->from, n->restarted, n->attempts, n->ranks, n->ranks == 1 ? "" : "s");
	for (i = 0; i < n->nends; i++) {
		const struct ct_rm_attempt_end *e = &n->ends[i];

		ct_tprintf(out, "  attempt %zu ended when %s %s\n", e->attempt, e->who, e->how);
		for (k = 0; k < e->nthen; k++)
			ct_tprintf(out, "  attempt %zu's ranks %s: %s\n", e->attempt, e->then[k].how,
				   e->then[k].which);
	}
}

/*
 * What the jobs hold beyond their count: a job id the runs of several
 * users name (anyone who may write to the folder can name a job: each
 * user's runs are a job of their own, never merged silently), a job
 * torchrun's agent restarted, and a rank two runs of one job claim on one
 * host.
 */
static void job_notes(FILE *out, const struct ct_report_model *m)
{
	size_t i, k, ranks = 0;

	for (i = 0; i < m->njob_notes; i++) {
		const struct ct_rm_job_note *n = &m->job_notes[i];

		if (n->kind == CT_RM_NOTE_USERS) {
			ct_tprintf(out, "job %s (%s) is named by the runs of %zu users, a job for "
				     "each: ", n->job, n->from, n->nowners);
			for (k = 0; k < n->nowners; k++)
				ct_tprintf(out, "%suid %lld (%zu run%s)", k ? ", " : "",
					   (long long)n->owners[k], n->owner_runs[k],
					   n->owner_runs[k] == 1 ? "" : "s");
			ct_tprintf(out, "\n");
			continue;
		}
		if (n->kind == CT_RM_NOTE_RESTART) {
			print_restart(out, n);
			continue;
		}
		if (ranks++ >= RANK_NOTES_MAX)
			continue;
		ct_tprintf(out, "rank %s of job %s (%s)%s%s is claimed by %zu runs: ", n->rank,
			   n->job, n->from, n->host ? " on " : "", n->host ? n->host : "", n->nruns);
		print_runs(out, n);
		ct_tprintf(out, "\n");
	}
	if (ranks > RANK_NOTES_MAX)
		ct_tprintf(out, "%zu more ranks claimed by several runs of one job\n",
			   ranks - RANK_NOTES_MAX);
}

static void verdict(FILE *out, const struct ct_report_model *m, bool colour)
{
	size_t i, notes = 0, n = m->nprocs - m->wrappers, runs = m->runs, jobs = m->jobs;

	/*
	 * One run is what a run gives; report says when it merged several, and
	 * counts the ranks of one srun, torchrun or mpirun (their runs) as one job.
	 */
	ct_tprintf(out, "cudatrace: ");
	if (jobs < runs)
		ct_tprintf(out, "%zu job%s (%zu runs), ", jobs, jobs == 1 ? "" : "s", runs);
	else if (runs > 1)
		ct_tprintf(out, "%zu runs, ", runs);
	/*
	 * ps reads running processes from /proc: nothing was traced. The
	 * wrappers (pyenv's shims) are not what the user ran: counted apart.
	 */
	if (m->read_from_proc && m->read_from_proc == m->nprocs)
		ct_tprintf(out, "%zu running process%s read", m->read_from_proc,
			   m->read_from_proc == 1 ? "" : "es");
	else if (m->untraced && m->untraced == n)
		ct_tprintf(out, "%zu process%s not traced", m->untraced, m->untraced == 1 ? "" : "es");
	else if (m->untraced)
		ct_tprintf(out, "%zu process%s traced, %zu not traced", n - m->untraced,
			   n - m->untraced == 1 ? "" : "es", m->untraced);
	else
		ct_tprintf(out, "%zu process%s traced", n, n == 1 ? "" : "es");
	/* A cluster's report: where it ran is the first thing its reader asks. */
	if (m->hosts > 1)
		ct_tprintf(out, " on %zu hosts", m->hosts);
	if (m->wrappers)
		ct_tprintf(out, " (and %zu wrapper process%s: %s)", m->wrappers,
			   m->wrappers == 1 ? "" : "es", m->wrapper_words);
	ct_tprintf(out, ": ");
	/*
	 * A program that crashed (or failed) is not one without a problem: the
	 * first line says how it ended, then what was found about CUDA.
	 */
	if (m->headline)
		ct_tprintf(out, "%s; ", m->headline);
	if (m->headline && m->worst < CT_SEV_WARNING) {
		for (i = 0; i < m->findings.n; i++)
			notes += m->findings.f[i].severity == CT_SEV_INFO;
		ct_tprintf(out, "no CUDA problem found");
		if (notes)
			ct_tprintf(out, " (and %zu note%s)", notes, notes == 1 ? "" : "s");
	} else {
		ct_findings_tally(out, &m->findings, colour);
	}
	ct_tprintf(out, "\n");
	job_notes(out, m);
	ct_endings_print(out, m);
	if (m->ntargets && m->has_code) {
		ct_tprintf(out, "device code judged for ");
		for (i = 0; i < m->ntargets; i++)
			ct_tprintf(out, "%s%s", i ? ", " : "", m->targets[i]);
		ct_tprintf(out, "%s\n", m->targets_from_trace ? " (the GPUs the driver reported)" : "");
	} else if (m->has_code) {
		ct_tprintf(out, "device code not judged: no GPU recorded (pass --arch sm_XY to judge it "
			     "for a GPU)\n");
	}
}

/* The environment the trace kept, one line per variable and value (masked). */
static void print_env(FILE *out, const struct ct_report_model *m)
{
	size_t i;

	for (i = 0; i < m->nenv; i++) {
		const struct ct_rm_env_line *l = &m->env[i];

		ct_tprintf(out, "%s=%s", l->name, l->value);
		if (l->counted)
			ct_tprintf(out, "  (%zu process%s)", l->processes,
				   l->processes == 1 ? "" : "es");
		ct_tprintf(out, "\n");
	}
}

void ct_report_markdown(FILE *out, const struct ct_report_model *m,
			const struct ct_report_view *v)
{
	struct ct_md *md = ct_md_new(v->home, v->verbose);
	char title[128];

	verdict(ct_md_verdict(md), m, false);
	if (!v->findings_only) {
		snprintf(title, sizeof(title), "Processes: CUDA libraries, device code, driver (%zu "
			 "process%s)", m->nprocs, m->nprocs == 1 ? "" : "es");
		ct_facts_print(ct_md_section(md, title), m, v->verbose);
		print_env(ct_md_section(md, "Environment the trace kept"), m);
	}
	ct_md_write(md, out, "cudatrace report", &m->findings);
	ct_md_free(md);
}

void ct_report_text(FILE *out, const struct ct_report_model *m, const struct ct_report_view *v)
{
	if (v->findings_only) {
		ct_findings_print(out, &m->findings, v->colour, v->verbose);
		return;
	}
	verdict(out, m, v->colour);
	if (m->findings.n) {
		fputc('\n', out);
		ct_findings_print(out, &m->findings, v->colour, v->verbose);
	}
	fputc('\n', out);
	ct_facts_print(out, m, v->verbose);
}

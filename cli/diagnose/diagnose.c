/*
 * The diagnosis engine; see diagnose.h. ct_diagnose reads every file of
 * the trace once (dx_files.c), then runs the rules on each process: one
 * function per finding code or group of them (the diag_*.c files), each
 * reading one process's facts and adding findings with the place they
 * were seen; ct_findings_group merges what processes share. The engine
 * calls the rules; the rules, and what they share (dx_files.c, builds.c,
 * dx_helpers.c), never call the engine (diag_internal.h).
 */
#include <stdio.h>
#include <string.h>

#include "diag_internal.h"
#include "diagnose.h"
#include "elfscan.h"
#include "symvers.h"

/* ---- places ---------------------------------------------------------------- */

static void describe_proc(struct ctx *c)
{
	/*
	 * A rank says where in its job a finding was seen; of a job id that
	 * several users' runs name, "rank 1" would pin one user's finding on
	 * another's rank: the process is named instead (trace.h, job_notes).
	 */
	c->rank = c->p->job_shared ? NULL : ct_proc_rank(c->p);
	ct_proc_command(c->p, c->program, sizeof(c->program), 60);
}

/* ---- the GPUs the device code is judged for ------------------------------------ */

static void add_target(struct ct_diagnosis *d, const struct elfscan_target *t, const char *what)
{
	char name[ELFSCAN_ARCH_NAME_MAX];
	size_t i;

	for (i = 0; i < d->ntargets; i++)
		if (d->targets[i].major == t->major && d->targets[i].minor == t->minor &&
		    d->targets[i].variant == t->variant)
			return;
	if (d->ntargets == CT_MAX_TARGETS)
		return;
	elfscan_target_name(t, name, sizeof(name));
	d->targets[d->ntargets] = *t;
	if (what && *what)
		snprintf(d->target_names[d->ntargets], sizeof(d->target_names[0]), "%s (%.32s)",
			 name, what);
	else
		snprintf(d->target_names[d->ntargets], sizeof(d->target_names[0]), "%s", name);
	d->ntargets++;
}

static void trace_targets(struct ct_diagnosis *d, const struct ct_trace *t)
{
	size_t i, k;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_driver_rec *drv = &t->procs[i].driver;

		for (k = 0; k < drv->ngpus; k++) {
			struct elfscan_target tg;

			if (elfscan_target_parse(drv->gpus[k].cc ? drv->gpus[k].cc : "", &tg) == 0)
				add_target(d, &tg, drv->gpus[k].name);
		}
	}
	d->targets_from_trace = d->ntargets > 0;
}

/* ---- the whole trace ------------------------------------------------------------- */

void ct_diagnose(struct ct_diagnosis *d, const struct ct_trace *t,
		 const struct elfscan_target *targets, size_t ntargets,
		 const struct ct_loader *machine)
{
	size_t i, k, hosts;

	memset(d, 0, sizeof(*d));
	ct_findings_init(&d->findings);
	d->syms = ct_symcache_new();
	for (i = 0; i < ntargets; i++)
		add_target(d, &targets[i], NULL);
	if (!ntargets)
		trace_targets(d, t);
	/* The device code of every object, once, for the rules and the printers. */
	for (i = 0; i < t->nprocs; i++)
		for (k = 0; k < t->procs[i].nobjects; k++)
			if (!t->procs[i].objects[k].shim)
				ct_dx_file_read(d, t->procs[i].objects[k].path);
	for (i = 0; i < t->nprocs; i++) {
		struct ctx c;

		memset(&c, 0, sizeof(c));
		c.d = d;
		c.p = &t->procs[i];
		c.L = machine;
		describe_proc(&c);
		ct_dx_mapped_init(&c);
		ct_dx_rule_incomplete(&c);
		ct_dx_rule_proc_read(&c);
		ct_dx_rule_driver_missing(&c);
		ct_dx_rule_driver(&c);
		ct_dx_rule_not_found(&c);
		ct_dx_rule_shadowed(&c);
		ct_dx_rule_mixed(&c);
		ct_dx_rule_symbol_versions(&c);
		ct_dx_rule_symbol_missing(&c);
		ct_dx_rule_stopped(&c);
		ct_dx_rule_builds(&c);
		ct_dx_rule_modules(&c);
		ct_dx_rule_device_code(&c);
		ct_dx_mapped_release(&c);
	}
	ct_findings_group(&d->findings);
	/* On a cluster a pid, or a rank, is on every host: a finding seen on one names it. */
	hosts = ct_trace_hosts(t);
	for (i = 0; i < d->findings.n; i++)
		d->findings.f[i].name_hosts = hosts > 1;
}

void ct_diagnosis_release(struct ct_diagnosis *d)
{
	ct_dx_files_release(d);
	ct_symcache_free(d->syms);
	ct_dx_own_choices_free(d->own_choices);
	ct_dx_unresolved_free(d->unresolved);
	ct_dx_memo_free(d->memo);
	ct_dx_refusals_free(d->refusals);
	ct_findings_release(&d->findings);
	memset(d, 0, sizeof(*d));
}

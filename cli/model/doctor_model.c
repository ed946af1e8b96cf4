/*
 * doctor's model (doctor_model.h, doctor_build.h): the machine examined
 * and judged once (doctor.c, doctor_rules.c, packages.c), and everything
 * its views print laid out as model types pointing into those facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "describe.h"
#include "doctor.h"
#include "doctor_build.h"
#include "packages.h"
#include "python.h"
#include "util.h"
#include "verdict.h"

static const char *verdict_words(enum ct_runtime_verdict v)
{
	switch (v) {
	case CT_RT_OK:
		return "the driver runs it";
	case CT_RT_MINOR_COMPAT:
		return "runs through minor-version compatibility";
	case CT_RT_TOO_NEW:
		return "needs a newer driver";
	default:
		return "no driver to judge by";
	}
}

static void driver(struct ct_doctor_model *m, const struct ct_doctor *d)
{
	const struct ct_doctor_driver *drv = &d->drv;
	const struct ct_lookup *k = drv->search;
	struct ct_dm_driver *out = &m->drv;
	char rule[256];
	size_t i;

	*out = (struct ct_dm_driver){
		.path = drv->path,
		.rule = ct_arena_strdup(&m->arena,
					ct_rule_text(k->found_via, k->via_owner, rule, sizeof(rule))),
		.found_via = ct_rule_id(k->found_via),
		.version = drv->version,
		.compat = drv->compat,
		.probe = &drv->probe,
		.module = { drv->module_version, drv->module_line, drv->module_gpus, drv->proc },
		.visible_devices = drv->visible_devices,
		.ncompat = drv->ncompat,
	};
	ct_answer_cands_from(&out->cands, &m->arena, k, 0, k->ncands);
	out->compat_libs = ct_arena_alloc(&m->arena, (drv->ncompat ? drv->ncompat : 1) *
							     sizeof(*out->compat_libs));
	for (i = 0; i < drv->ncompat; i++) {
		const struct ct_doctor_compat *c = &drv->compat_libs[i];

		out->compat_libs[i] = (struct ct_dm_compat){ c->path, c->version,
							     c->on_ld_library_path, c->taken };
	}
	ct_answer_copies_from(&out->copies, &m->arena, &drv->copies);
}

static void runtimes(struct ct_doctor_model *m, const struct ct_doctor *d)
{
	size_t i;

	m->nrt = d->nrt;
	m->rt = ct_arena_alloc(&m->arena, (d->nrt ? d->nrt : 1) * sizeof(*m->rt));
	for (i = 0; i < d->nrt; i++) {
		const struct ct_doctor_runtime *r = &d->rt[i];

		m->rt[i] = (struct ct_dm_runtime){
			.path = r->path,
			.where = r->where,
			.soname = r->soname,
			.major = r->major,
			.version = r->version,
			.version_from = r->version_from,
			.cuda = r->cuda,
			.taken = r->taken,
			.found_via = r->found_via,
			.verdict = ct_runtime_verdict_id(r->verdict),
			.verdict_words = verdict_words(r->verdict),
		};
	}
}

static void ld_entries(struct ct_doctor_model *m, const struct ct_doctor *d)
{
	size_t i, k;

	m->ld_library_path_set = d->L.ld_library_path != NULL;
	m->nld = d->nld;
	m->ld = ct_arena_alloc(&m->arena, (d->nld ? d->nld : 1) * sizeof(*m->ld));
	for (i = 0; i < d->nld; i++) {
		const struct ct_doctor_ldentry *en = &d->ld[i];
		struct ct_dm_ldentry *out = &m->ld[i];

		out->dir = en->dir;
		out->exists = en->exists;
		out->libs = (const char *const *)en->libs;
		out->nlibs = en->nlibs;
		out->nshadows = en->nshadows;
		out->shadows = ct_arena_alloc(&m->arena, (en->nshadows ? en->nshadows : 1) *
								 sizeof(*out->shadows));
		for (k = 0; k < en->nshadows; k++) {
			const struct ct_doctor_shadow *s = &en->shadows[k];

			out->shadows[k] = (struct ct_dm_shadow){ s->soname, s->path, s->version,
								 s->other, s->other_where,
								 s->other_version, s->differ };
		}
	}
}

static void module(struct ct_doctor_model *m, struct ct_py_module *out,
		   const struct ct_pkg_module *mod)
{
	size_t t;

	*out = (struct ct_py_module){ mod->path, mod->loaded, mod->load_error, mod->note,
				      mod->device_code,
				      mod->archs, NULL, mod->nverdicts };
	out->verdicts = ct_arena_alloc(&m->arena, (mod->nverdicts ? mod->nverdicts : 1) *
							  sizeof(*out->verdicts));
	for (t = 0; t < mod->nverdicts; t++) {
		const struct ct_pkg_verdict *v = &mod->verdicts[t];

		out->verdicts[t] = (struct ct_py_verdict){
			.target = v->target,
			.verdict = ct_verdict_name(v->verdict),
			.no_image = v->verdict == CT_VERDICT_NO_IMAGE,
			.no_device_code = v->verdict == CT_VERDICT_NO_DEVICE_CODE,
			.fatbins = v->fatbins,
			.sass = v->sass,
			.ptx_jit = v->ptx_jit,
			.no_image_fatbins = v->no_image,
			.image = v->image,
		};
	}
}

static const char *from_words(const char *from)
{
	return strcmp(from, "PATH") == 0	   ? "on PATH"
	       : strcmp(from, "PATH (pyenv)") == 0 ? "on PATH, through pyenv's shim"
						   : from;
}

static void pyenv(struct ct_doctor_model *m, struct ct_py_env *out, const struct ct_pyenv *e)
{
	const struct ct_python_build *b = &e->build;
	size_t k, j;

	out->exe = e->py.exe;
	out->real = e->py.real;
	out->from = e->py.from;
	out->from_words = from_words(e->py.from);
	out->version = e->py.version;
	out->prefix = e->py.prefix;
	out->venv = e->py.venv;
	out->sites = (const char *const *)e->py.sites;
	out->nsites = e->py.nsites;
	out->release = b->version;
	out->release_from = b->version_from;
	out->compiler = b->compiler;
	out->soabi = b->soabi;
	out->flags = b->flags;
	out->free_threaded = strstr(b->flags, "free-threaded") != NULL;
	out->debug = strstr(b->flags, "debug") != NULL;
	out->nkeys = CT_PYENV_KEYS;
	out->keys = ct_arena_alloc(&m->arena, CT_PYENV_KEYS * sizeof(*out->keys));
	for (k = 0; k < CT_PYENV_KEYS; k++)
		out->keys[k] = (struct ct_py_key){ e->keys[k].name, e->keys[k].version,
						   e->keys[k].dist, e->keys[k].site };
	out->nscanned = e->nscanned;
	out->npkgs = e->npkgs;
	out->pkgs = ct_arena_alloc(&m->arena, (e->npkgs ? e->npkgs : 1) * sizeof(*out->pkgs));
	for (k = 0; k < e->npkgs; k++) {
		const struct ct_pkg *p = &e->pkgs[k];
		struct ct_py_pkg *q = &out->pkgs[k];

		*q = (struct ct_py_pkg){
			.name = p->name,
			.version = p->version,
			.site = p->site,
			.meta = p->meta,
			.needs_torch = p->needs_torch,
			.cuda = p->cuda,
			.cuda_from = p->cuda_from,
			.nmods = p->nmods,
			.findings = &p->findings,
			.facts = (const char *const *)p->facts,
			.nfacts = p->nfacts,
			.verdict = p->verdict,
			.ok = strcmp(p->verdict, "ok") == 0,
		};
		q->mods = ct_arena_alloc(&m->arena, (p->nmods ? p->nmods : 1) * sizeof(*q->mods));
		for (j = 0; j < p->nmods; j++)
			module(m, &q->mods[j], &p->mods[j]);
		m->py.total++;
		m->py.stopped += !q->ok;
	}
}

/*
 * The machine's findings, then each package's, its name and version
 * before its message: in Markdown the findings come first, before the
 * collapsed sections, so a package's are among them. A finding that
 * several packages share (an extension that needs torch, stopped by what
 * stops import torch) is said once, with every package's name. Shallow
 * copies but for the messages (freed by ct_doctor_model_release).
 */
static void all_findings(struct ct_doctor_model *m)
{
	const struct ct_findings *fs = &m->findings;
	struct ct_findings *all = &m->all;
	size_t i, k, j, x, n = fs->n;
	char **names;

	for (i = 0; i < m->nenvs; i++)
		for (k = 0; k < m->envs[i].npkgs; k++)
			n += m->envs[i].pkgs[k].findings.n;
	all->n = 0;
	all->f = ct_xcalloc(n ? n : 1, sizeof(*all->f));
	names = ct_xcalloc(n ? n : 1, sizeof(*names));
	for (j = 0; j < fs->n; j++)
		all->f[all->n++] = fs->f[j];
	for (i = 0; i < m->nenvs; i++)
		for (k = 0; k < m->envs[i].npkgs; k++) {
			const struct ct_pkg *p = &m->envs[i].pkgs[k];
			char name[512];

			snprintf(name, sizeof(name), "%s%s%s", p->name, *p->version ? " " : "",
				 p->version);
			for (j = 0; j < p->findings.n; j++) {
				const struct ct_finding *g = &p->findings.f[j];

				for (x = fs->n; x < all->n; x++)
					if (all->f[x].code == g->code && all->f[x].severity == g->severity &&
					    strcmp(all->f[x].message, g->message) == 0)
						break;
				if (x < all->n) {
					size_t len = strlen(names[x]) + strlen(name) + 3;
					char *both = ct_xmalloc(len);

					snprintf(both, len, "%s, %s", names[x], name);
					free(names[x]);
					names[x] = both;
					continue;
				}
				all->f[all->n] = *g;
				names[all->n++] = ct_xstrdup(name);
			}
		}
	for (x = fs->n; x < all->n; x++) {
		const char *msg = all->f[x].message;
		size_t len = strlen(names[x]) + strlen(msg) + 3;

		all->f[x].message = ct_xmalloc(len);
		snprintf(all->f[x].message, len, "%s: %s", names[x], msg);
		free(names[x]);
	}
	free(names);
	m->nall_own = fs->n;
}

int ct_doctor_model_build(struct ct_doctor_model *m, const struct ct_doctor_options *o,
			  enum ct_doctor_failure *failure, const char **why)
{
	struct elfscan_target targets[CT_MAX_TARGETS];
	char names[CT_MAX_TARGETS][CT_TARGET_NAME];
	struct ct_pkg_machine machine;
	struct ct_doctor *d;
	size_t ntargets = 0, i;
	const char **shown;
	int rc, g, w;

	memset(m, 0, sizeof(*m));
	ct_arena_init(&m->arena);
	ct_findings_init(&m->findings);
	if (o->python) {
		struct ct_python py;

		if ((rc = ct_python_open(&py, o->python, "--python")) < 0) {
			*failure = CT_DOCTOR_NO_PYTHON;
			return rc;
		}
		ct_python_release(&py);
	}
	d = ct_xcalloc(1, sizeof(*d));
	if ((rc = ct_doctor_examine(d, why)) < 0) {
		free(d);
		*failure = CT_DOCTOR_NO_LOADER;
		return rc;
	}
	m->facts = d;
	ct_doctor_findings(d, &m->findings);
	for (i = 0; i < o->ntargets && ntargets < CT_MAX_TARGETS; i++) {
		targets[ntargets] = o->targets[i];
		snprintf(names[ntargets++], CT_TARGET_NAME, "%s", o->target_names[i]);
	}
	/* Device code is judged for --arch, else for the GPUs the driver reports. */
	for (g = 0; !o->arch_given && g < d->drv.probe.ngpus && ntargets < CT_MAX_TARGETS; g++) {
		const struct ct_gpu_info *gpu = &d->drv.probe.gpus[g];
		size_t k;

		if (gpu->major < 0)
			continue;
		for (k = 0; k < ntargets; k++)
			if (targets[k].major == (unsigned)gpu->major &&
			    targets[k].minor == (unsigned)gpu->minor)
				break;
		if (k < ntargets)
			continue;
		targets[ntargets] = (struct elfscan_target){ .major = (unsigned)gpu->major,
							     .minor = (unsigned)gpu->minor };
		snprintf(names[ntargets], CT_TARGET_NAME, "sm_%d%d", gpu->major, gpu->minor);
		ntargets++;
	}
	machine = (struct ct_pkg_machine){ .L = &d->L, .driver_cuda = d->drv.probe.version,
					   .driver_path = d->drv.path ? d->drv.path : d->drv.probe.path,
					   .driver_release = d->drv.version,
					   .targets = targets,
					   .target_names = (const char (*)[CT_TARGET_NAME])names,
					   .ntargets = ntargets };
	if ((rc = ct_pyenvs_judge(o->python, &machine, &m->envs, &m->nenvs)) < 0) {
		*failure = CT_DOCTOR_NO_PYTHON;
		return rc;
	}
	m->sys = &d->sys;
	driver(m, d);
	runtimes(m, d);
	ld_entries(m, d);
	shown = ct_arena_alloc(&m->arena, (ntargets ? ntargets : 1) * sizeof(*shown));
	for (i = 0; i < ntargets; i++)
		shown[i] = ct_arena_strdup(&m->arena, names[i]);
	m->targets = shown;
	m->ntargets = ntargets;
	m->targets_from = !ntargets ? NULL : o->arch_given ? "--arch" : "gpus";
	m->py.n = m->nenvs;
	m->py.e = ct_arena_alloc(&m->arena, (m->nenvs ? m->nenvs : 1) * sizeof(*m->py.e));
	for (i = 0; i < m->nenvs; i++)
		pyenv(m, &m->py.e[i], &m->envs[i]);
	m->py.worst = ct_pyenvs_worst(m->envs, m->nenvs);
	all_findings(m);
	m->worst = ct_findings_worst(&m->findings);
	if ((w = m->py.worst) > m->worst)
		m->worst = w;
	return 0;
}

void ct_doctor_model_release(struct ct_doctor_model *m)
{
	size_t j;

	for (j = m->nall_own; j < m->all.n; j++)
		free(m->all.f[j].message);
	free(m->all.f);
	ct_pyenvs_free(m->envs, m->nenvs);
	ct_findings_release(&m->findings);
	if (m->facts) {
		ct_doctor_release(m->facts);
		free(m->facts);
	}
	ct_arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

/*
 * The rule behind each object of a running process, where the replay of
 * its start-up proves it (procrules.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfinfo.h"
#include "procrules.h"
#include "resolve.h"

static struct ct_loaded *object_by_file(struct ct_proc *p, uint64_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].dev == dev && p->objects[i].ino == ino)
			return &p->objects[i];
	return NULL;
}

static const struct ct_lobj *model_object(const struct ct_loader *L, const struct ct_loaded *o)
{
	size_t i;

	for (i = 0; i < L->nobjs; i++)
		if ((uint64_t)L->objs[i]->dev == o->dev && (uint64_t)L->objs[i]->ino == o->ino)
			return L->objs[i];
	return NULL;
}

/*
 * Where else the loader would find o: does a dlopen of its soname from
 * the program find o itself? Its rule and path into o (name_via,
 * name_path), else nothing. Not how o was found: /proc does not say.
 */
static void found_by_name(struct ct_trace *t, struct ct_loader *L, struct ct_lobj *program,
			  const char *soname, struct ct_loaded *o)
{
	struct ct_lookup *k;
	struct stat st;

	if (!program || !soname)
		return;
	k = ct_loader_search(L, program, soname, false);
	if (k && k->path && stat(k->path, &st) == 0 && (uint64_t)st.st_dev == o->dev &&
	    (uint64_t)st.st_ino == o->ino) {
		o->name_via = k->found_via;
		o->name_path = ct_intern(&t->strings, k->path);
	}
	if (k)
		ct_lookup_free(k);
}

static void guess_process(struct ct_trace *t, struct ct_proc *p, const struct ct_loader *machine)
{
	const char *lp = ct_proc_env(p, "LD_LIBRARY_PATH"), *pre = ct_proc_env(p, "LD_PRELOAD");
	struct ct_loader_env env = { lp ? lp : "", pre ? pre : "" };
	struct ct_loaded *program = NULL;
	struct ct_lobj *start = NULL;
	struct ct_loader L;
	size_t i;
	int err = 0;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].main)
			program = &p->objects[i];
	ct_loader_init_like(&L, machine, &env);
	if (program) {
		start = ct_loader_start(&L, program->path, &err);
		if (start)
			ct_loader_load_all(&L);
	}
	for (i = 0; i < p->nobjects; i++) {
		struct ct_loaded *o = &p->objects[i];
		const struct ct_lobj *m = o->main ? NULL : model_object(&L, o);
		struct ct_elfinfo info;

		if (o->main)
			continue;
		if (m) {
			const struct ct_loaded *asker =
				m->loader ? object_by_file(p, (uint64_t)m->loader->dev,
							   (uint64_t)m->loader->ino)
					  : NULL;

			o->via = m->found_via;
			o->by = asker ? asker->path : program ? program->path : NULL;
			if (m->info.soname)
				o->soname = ct_intern(&t->strings, m->info.soname);
			continue;
		}
		/* Mapped after start-up: a dlopen's, by a rule no replay proves. */
		ct_elfinfo_init(&info);
		if (ct_elfinfo_read(&info, o->path) == 0 && info.soname)
			o->soname = ct_intern(&t->strings, info.soname);
		o->run_time = true;
		o->via = CT_RULE_UNKNOWN;
		found_by_name(t, &L, start, info.soname, o);
		ct_elfinfo_release(&info);
		/* The asker of a dlopen is not in /proc: the program, most likely. */
		o->by = program ? program->path : NULL;
	}
	ct_loader_release(&L);
}

void ct_trace_guess_rules(struct ct_trace *t, const struct ct_loader *machine)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].running)
			guess_process(t, &t->procs[i], machine);
}

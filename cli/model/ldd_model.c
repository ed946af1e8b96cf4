/*
 * cudatrace ldd's model (ldd_model.h): the loader model set up for one
 * file and asked everything ldd shows, once, into words.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copies.h"
#include "describe.h"
#include "files.h"
#include "ldd_model.h"
#include "libfacts.h"
#include "resolve.h"
#include "symvers.h"
#include "util.h"

/* Whether path starts as an ELF file does: only then is it read early. */
static bool starts_elf(const char *path)
{
	char magic[4];
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool yes;

	if (fd < 0)
		return false;
	yes = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	      memcmp(magic, "\177ELF", 4) == 0;
	close(fd);
	return yes;
}

/*
 * A library (no PT_INTERP, not a PIE) is loaded with dlopen, as Python
 * loads an extension: glibc 2.41 and later refuse a dlopen that brings in
 * an object asking for an executable stack (the start of a program still
 * grants one). The first such object of the tree, or NULL.
 */
static const struct ct_lobj *dlopen_execstack(const struct ct_loader *L)
{
	size_t i;

	if (!ct_loader_refuses_execstack(L) || !L->main || L->main->info.interp ||
	    L->main->info.pie || L->main->info.type != 3 /* ET_DYN */)
		return NULL;
	for (i = 0; i < L->nobjs; i++)
		if (!L->objs[i]->is_rtld && L->objs[i]->info.execstack)
			return L->objs[i];
	return NULL;
}

/* The loader's own words: "/x/libfoo.so.1: invalid ELF header". */
static const char *fatal_text(const struct ct_lookup *k, char *buf, size_t size)
{
	/* A mapping that fails is said of the name asked for, the rest of the file. */
	snprintf(buf, size, "%s: %s",
		 k->ncands && k->error != ct_noexec_why ? k->cands[k->ncands - 1].path : k->name,
		 k->error ? k->error : "?");
	return buf;
}

static const char *const *strings(struct ct_arena *a, char **v, size_t n)
{
	const char **out = ct_arena_alloc(a, (n ? n : 1) * sizeof(*out));
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = ct_arena_strdup(a, v[i]);
	return out;
}

static void loader_facts(struct ct_ldd *m, const struct ct_loader *L)
{
	const struct ct_platform *p = &L->plat;
	struct ct_ldd_loader *l = &m->loader;
	struct ct_arena *a = &m->arena;

	l->rtld = ct_answer_str(a, p->rtld);
	l->glibc = ct_answer_str(a, p->version);
	l->lib = ct_answer_str(a, p->lib);
	l->platform = ct_answer_str(a, p->platform);
	l->hwcaps = strings(a, p->hwcaps, p->nhwcaps);
	l->nhwcaps = p->nhwcaps;
	l->system_dirs = strings(a, p->system_dirs, p->nsystem_dirs);
	l->nsystem_dirs = p->nsystem_dirs;
	l->subdirs = strings(a, p->subdirs, p->nsubdirs);
	l->nsubdirs = p->nsubdirs;
	l->cache = L->cache_ok ? ct_answer_str(a, p->cache) : NULL;
	l->ld_library_path = ct_answer_str(a, L->ld_library_path);
	l->ld_preload = ct_answer_str(a, L->ld_preload);
	l->secure = L->secure;
	l->facts_from_loader = p->from_loader;
}

/* Each lookup's kids: the lookups asked by the object it mapped, in order. */
static void link_tree(struct ct_ldd *m, const struct ct_loader *L)
{
	size_t *count = ct_xcalloc(L->nobjs + 1, sizeof(*count));
	size_t **kids = ct_xcalloc(L->nobjs + 1, sizeof(*kids));
	size_t i, o;

	for (i = 0; i < L->nlookups; i++)
		count[L->lookups[i]->requester->index]++;
	for (o = 0; o <= L->nobjs; o++) {
		kids[o] = ct_arena_alloc(&m->arena, (count[o] ? count[o] : 1) * sizeof(size_t));
		count[o] = 0;
	}
	for (i = 0; i < L->nlookups; i++) {
		o = L->lookups[i]->requester->index;
		kids[o][count[o]++] = i;
	}
	for (i = 0; i < L->nlookups; i++) {
		const struct ct_lookup *k = L->lookups[i];

		if (!k->new_object)
			continue;
		m->libs[i].kids = kids[k->object->index];
		m->libs[i].nkids = count[k->object->index];
	}
	m->top = kids[L->main->index];
	m->ntop = count[L->main->index];
	free(kids);
	free(count);
}

static void one_lib(struct ct_ldd *m, struct ct_loader *L, const struct ct_lookup *k,
		    const struct ct_lookup *rtld, const size_t *depth, const struct ct_ldd_options *o)
{
	struct ct_arena *a = &m->arena;
	struct ct_ldd_lib *l = &m->libs[m->nlibs++];
	char rule[256];

	memset(l, 0, sizeof(*l));
	l->name = ct_arena_strdup(a, k->name);
	if (k->expanded && strcmp(k->expanded, k->name) != 0)
		l->expanded = ct_arena_strdup(a, k->expanded);
	l->path = k->object ? ct_arena_strdup(a, k->object->path) : NULL;
	l->requested_by = ct_arena_strdup(a, k->requester->path);
	l->requester_name = ct_arena_strdup(a, ct_lobj_name(k->requester, false));
	l->found_via = ct_rule_id(k->found_via);
	l->via_object = k->via_owner ? ct_arena_strdup(a, k->via_owner->path) : NULL;
	if (k->new_object)
		l->rule = ct_arena_strdup(
			a, k->preload ? "LD_PRELOAD"
				      : ct_rule_text_at(k->found_via, k->via_owner, k->object->path,
							rule, sizeof(rule)));
	l->soname = k->object ? ct_answer_str(a, k->object->info.soname) : NULL;
	l->error = ct_answer_str(a, k->error);
	if (k->error == ct_noexec_why && k->ncands)
		l->noexec_path = ct_arena_strdup(a, k->cands[k->ncands - 1].path);
	l->depth = depth[k->requester->index] + 1;
	l->preload = k->preload;
	l->new_object = k->new_object;
	l->rtld = k->object && k->object->is_rtld;
	l->fatal = k->fatal;
	l->shown = k->new_object || !k->object || k == rtld;
	if (!k->object || o->verbose)
		ct_answer_cands_from(&l->cands, a, k, 0, k->ncands);
	l->has_copies = !k->object && !strchr(k->name, '/');
	if (l->has_copies && !o->brief) {
		struct ct_copies cs;

		ct_find_copies(L, k, &cs);
		ct_answer_copies_from(&l->copies, a, &cs);
		ct_copies_release(&cs);
	}
	ct_answer_driver_missing_from(&l->driver_missing, a, k->name, k);
}

/* Everything ldd shows of the loader model L set up for file. */
static void model_loader(struct ct_ldd *m, struct ct_loader *L, struct ct_facts_pool *facts,
			 const char *file, const struct ct_ldd_options *o)
{
	const struct ct_lookup *rtld = NULL;
	const struct ct_lobj *execstack;
	struct ct_version_gap *gaps;
	const char *refused;
	size_t i, ngaps, *depth;
	char text[4352]; /* a path, and a sentence */

	ct_loader_load_all(L);
	for (i = 0; i < L->nlookups; i++)
		if (L->lookups[i]->new_object)
			ct_facts_add(facts, L->lookups[i]->object->path,
				     L->lookups[i]->object->info.soname
					     ? L->lookups[i]->object->info.soname
					     : "");

	depth = ct_xcalloc(L->nobjs + 1, sizeof(*depth));
	for (i = 0; i < L->nlookups; i++) {
		const struct ct_lookup *k = L->lookups[i];

		if (k->new_object)
			depth[k->object->index] = depth[k->requester->index] + 1;
		m->not_found += !k->object;
		m->found += k->new_object;
		/* The lookup that first reached the loader itself (shown as a node). */
		if (!rtld && L->rtld && k->object == L->rtld)
			rtld = k;
	}
	gaps = ct_version_gaps(L, &ngaps);
	ct_answer_gaps_from(&m->gaps, &m->arena, gaps, ngaps);
	ct_version_gaps_free(gaps, ngaps);
	if (ct_loader_check_file(L, file, &refused) == CT_NOT_ELF && refused == ct_noexec_why) {
		/* FILE itself on a noexec mount: execve refuses it, the loader cannot map it. */
		snprintf(text, sizeof(text), "%s is on a file system mounted noexec (run: Permission "
			 "denied; loaded: failed to map segment from shared object)", file);
		m->noexec = ct_arena_strdup(&m->arena, text);
	}
	execstack = dlopen_execstack(L);
	if (execstack) {
		snprintf(text, sizeof(text), "%s asks for an executable stack, which glibc %s "
			 "refuses to a dlopen (\"cannot enable executable stack as shared object "
			 "requires\"): patchelf --clear-execstack it, or use a build linked with -z "
			 "noexecstack",
			 execstack->path, L->plat.version);
		m->execstack = ct_arena_strdup(&m->arena, text);
	}
	if (L->fatal) {
		char why[4096]; /* the loader's message, as long as ldd ever showed it */

		m->fatal = ct_arena_strdup(&m->arena, fatal_text(L->fatal, why, sizeof(why)));
		/* A file cut short: no message, the loader dies of SIGBUS. */
		m->fatal_truncated = L->fatal->error == ct_truncated_why;
	}
	loader_facts(m, L);
	ct_answer_interp_from(&m->interp, &m->arena, L);
	ct_answer_cwds_from(&m->cwd, &m->arena, L);
	m->libs = ct_arena_alloc(&m->arena, (L->nlookups ? L->nlookups : 1) * sizeof(*m->libs));
	for (i = 0; i < L->nlookups; i++)
		one_lib(m, L, L->lookups[i], rtld, depth, o);
	link_tree(m, L);
	/* The device code last: the threads read it meanwhile. */
	for (i = 0; !o->brief && i < L->nlookups; i++)
		if (L->lookups[i]->new_object)
			m->libs[i].cuda = ct_answer_facts_from(
				&m->arena, ct_facts_get(facts, L->lookups[i]->object->path));
	m->fails = m->not_found || m->gaps.n || m->fatal || m->noexec || m->execstack;
	free(depth);
}

int ct_ldd_build(struct ct_ldd *m, const char *file, const struct ct_loader_env *env,
		 const struct ct_ldd_options *o)
{
	struct ct_facts_pool *facts;
	struct ct_loader L;
	const char *why;
	int rc;

	memset(m, 0, sizeof(*m));
	ct_arena_init(&m->arena);
	m->file = ct_arena_strdup(&m->arena, file);
	/* The file's own device code is read while the loader is asked. */
	/* Threads beside this one (the headers of cuBLASLt's 5,737 images take ms). */
	facts = ct_facts_start(ct_threads(4) - 1);
	if (starts_elf(file))
		ct_facts_add(facts, file, NULL);
	/* 1: no dynamic section, nothing set up; below 0: L released, why says why. */
	rc = ct_loader_open(&L, file, env, &why);
	m->is_static = rc == 1;
	if (rc < 0)
		m->error = ct_arena_strdup(&m->arena, why);
	if (rc == 0) {
		model_loader(m, &L, facts, file, o);
		if (!o->brief)
			m->cuda = ct_answer_facts_from(&m->arena, ct_facts_get(facts, file));
		ct_loader_release(&L);
	}
	ct_facts_stop(facts);
	return rc < 0 ? -1 : 0;
}

void ct_ldd_release(struct ct_ldd *m)
{
	ct_arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

/*
 * cudatrace ps's list of processes as a model (ps_list.h): what
 * render/ps_out.c prints, worked out here once, so that the view reads no
 * file and walks no trace.
 */
#include <stdlib.h>
#include <string.h>

#include "libfacts.h"
#include "libnames.h"
#include "ps_list.h"
#include "trace.h"
#include "util.h"

/*
 * The four a user asks about first, by the stem of their DT_SONAME or
 * file name: "libcudart" then ".so", or "-" and the hash auditwheel adds
 * (libcudart-9335f6a2.so.12, in wheels that bundle their runtime). A
 * renamed file still has its own soname. cuDNN's sublibraries
 * (libcudnn_ops.so.9) stand for it when the main one is not mapped.
 */
static const struct {
	const char *key, *words, *stem, *part;
} families[CT_PS_FAMILIES] = {
	[CT_PS_CUDART] = { "cudart", "CUDA runtime", "libcudart", NULL },
	[CT_PS_CUBLAS] = { "cublas", "cuBLAS", "libcublas", NULL },
	[CT_PS_CUDNN] = { "cudnn", "cuDNN", "libcudnn", "libcudnn_" },
	[CT_PS_DRIVER] = { "driver", "driver", "libcuda", NULL },
};

const char *ct_ps_family_key(int family)
{
	return family >= 0 && family < CT_PS_FAMILIES ? families[family].key : "?";
}

const char *ct_ps_family_words(int family)
{
	return family >= 0 && family < CT_PS_FAMILIES ? families[family].words : "?";
}

/* A file's version, read once per device and inode. */
struct version_memo {
	uint64_t dev, ino;
	char version[64];
};

struct memo {
	struct version_memo *v;
	size_t n;
};

static const char *version_of(struct memo *m, const struct ct_loaded *o, bool driver)
{
	struct version_memo *v;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].dev == o->dev && m->v[i].ino == o->ino)
			return m->v[i].version;
	m->v = ct_xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
	v = &m->v[m->n++];
	memset(v, 0, sizeof(*v));
	v->dev = o->dev;
	v->ino = o->ino;
	/* The full version where the files say it (a wheel's dist-info), as doctor. */
	if (driver)
		ct_driver_version(o->path, "libcuda.so.1", v->version, sizeof(v->version));
	else
		ct_library_version_read(o->path, o->soname, v->version, sizeof(v->version));
	return v->version;
}

/* name is stem's library: stem, then ".so" or "-HASH" (auditwheel's). */
static bool named(const char *name, const char *stem)
{
	size_t n = strlen(stem);

	return name && strncmp(name, stem, n) == 0 &&
	       (strncmp(name + n, ".so", 3) == 0 || name[n] == '-');
}

/* The object of family f that p maps (the first), or NULL. */
static const struct ct_loaded *family_object(const struct ct_proc *p, size_t f)
{
	const struct ct_loaded *part = NULL;
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		const struct ct_loaded *o = &p->objects[i];
		const char *base = ct_path_base(o->path);

		if (named(o->soname, families[f].stem) ||
		    (!o->soname && named(base, families[f].stem)))
			return o;
		if (!part && families[f].part &&
		    strncmp(o->soname ? o->soname : base, families[f].part,
			    strlen(families[f].part)) == 0)
			part = o;
	}
	return part;
}

static char *dup_or_null(const char *s)
{
	return s ? ct_xstrdup(s) : NULL;
}

void ct_ps_list_build(struct ct_ps_list *l, const struct ct_trace *t, size_t nread,
		      const struct ct_ps_unread *unread, size_t nunread)
{
	struct memo m = { NULL, 0 };
	char cmd[4096];
	size_t i, f;

	memset(l, 0, sizeof(*l));
	l->nread = nread;
	l->unread = unread;
	l->nunread = nunread;
	l->procs = ct_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*l->procs));
	l->nprocs = t->nprocs;
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		struct ct_ps_entry *e = &l->procs[i];

		e->pid = (long long)p->pid;
		/* The text's line is cut at 60 characters, JSON's command whole. */
		ct_proc_command(p, cmd, sizeof(cmd), 60);
		e->command_short = ct_xstrdup(cmd);
		ct_proc_command(p, cmd, sizeof(cmd), sizeof(cmd) - 1);
		e->command = ct_xstrdup(cmd);
		e->exe = dup_or_null(p->exe);
		e->unverified = p->proc_unverified;
		e->other_mount_namespace = p->proc_other_mnt;
		e->maps_limit = dup_or_null(p->proc_limit);
		e->maps_left_out = p->proc_limited;
		for (f = 0; f < CT_PS_FAMILIES; f++) {
			const struct ct_loaded *o = family_object(p, f);

			if (!o)
				continue;
			e->libs[f].path = ct_xstrdup(o->path);
			e->libs[f].version = ct_xstrdup(version_of(&m, o, f == CT_PS_DRIVER));
		}
	}
	free(m.v);
}

void ct_ps_list_release(struct ct_ps_list *l)
{
	size_t i, f;

	for (i = 0; i < l->nprocs; i++) {
		struct ct_ps_entry *e = &l->procs[i];

		free(e->command);
		free(e->command_short);
		free(e->exe);
		free(e->maps_limit);
		for (f = 0; f < CT_PS_FAMILIES; f++) {
			free(e->libs[f].path);
			free(e->libs[f].version);
		}
	}
	free(l->procs);
	memset(l, 0, sizeof(*l));
}

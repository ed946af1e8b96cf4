/*
 * cudatrace ps's list of processes (ps_out.h). Every string from a
 * process (its command line, its files' paths) is escaped where printed:
 * ct_tprintf for text and Markdown (an indented block, which nothing in
 * a line can end), the JSON writer for JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "libfacts.h"
#include "libnames.h"
#include "ps_out.h"
#include "schema.h"
#include "text.h"
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
} families[] = {
	{ "cudart", "CUDA runtime", "libcudart", NULL },
	{ "cublas", "cuBLAS", "libcublas", NULL },
	{ "cudnn", "cuDNN", "libcudnn", "libcudnn_" },
	{ "driver", "driver", "libcuda", NULL },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

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

static void print_text(FILE *out, const char *indent, const struct ct_trace *t, struct memo *m,
		       size_t nread, const struct ct_ps_unread *unread, size_t nunread,
		       bool quiet)
{
	char cmd[256];
	size_t i, f;

	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];
		size_t n = p->proc_unverified;

		ct_proc_command(p, cmd, sizeof(cmd), 60);
		ct_tprintf(out, "%s%lld  %s\n", indent, (long long)p->pid, cmd);
		for (f = 0; f < NFAMILIES; f++) {
			const struct ct_loaded *o = family_object(p, f);
			const char *v = o ? version_of(m, o, f == NFAMILIES - 1) : "";

			if (o)
				ct_tprintf(out, "%s  %-13s %-12s %s\n", indent, families[f].words,
					   v[0] ? v : "?", o->path);
		}
		if (p->proc_unverified && p->proc_other_mnt)
			ct_tprintf(out, "%s  (%zu mapped file%s left out: the process runs in another "
				   "mount namespace, where %s path%s name%s other files than here; run "
				   "cudatrace ps inside the container)\n",
				   indent, n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
				   n == 1 ? "" : "s", n == 1 ? "s" : "");
		else if (p->proc_unverified)
			ct_tprintf(out, "%s  (%zu mapped file%s left out: not the file at %s path now; "
				   "cudatrace ps %lld names %s)\n",
				   indent, n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
				   (long long)p->pid, n == 1 ? "it" : "them");
		if (p->proc_limit)
			ct_tprintf(out, "%s  (its maps was not read in full: %s; %zu mapping%s left out)\n",
				   indent, p->proc_limit, p->proc_limited,
				   p->proc_limited == 1 ? "" : "s");
	}
	for (i = 0; !quiet && i < nunread; i++)
		ct_tprintf(out, "%s%lld  cannot be read: %s\n", indent, unread[i].pid, unread[i].why);
	if (quiet && nunread)
		ct_tprintf(out, "%s%zu process%s cannot be read (ps without -q names them)\n", indent,
			   nunread, nunread == 1 ? "" : "es");
	/*
	 * None found is an answer as long as some process was read; what could
	 * not be read is named above, so the answer says it is about the rest.
	 */
	if (t->nprocs == 0 && nunread == 0)
		ct_tprintf(out, "%sno process maps a CUDA library\n", indent);
	else if (t->nprocs == 0 && nread)
		ct_tprintf(out, "%sno process that could be read maps a CUDA library (%zu read)\n",
			   indent, nread);
}

static void print_json(FILE *out, const struct ct_trace *t, struct memo *m, size_t nread,
		       const struct ct_ps_unread *unread, size_t nunread, struct ct_json *j)
{
	char cmd[4096];
	size_t i, f;

	ct_json_init(j, out);
	ct_json_object_begin(j);
	ct_json_kv_string(j, "schema", CT_SCHEMA_PS);
	ct_json_kv_u64(j, "read", nread);
	ct_json_key(j, "processes");
	ct_json_array_begin(j);
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];

		ct_proc_command(p, cmd, sizeof(cmd), sizeof(cmd) - 1);
		ct_json_object_begin(j);
		ct_json_key(j, "pid");
		ct_json_i64(j, p->pid);
		ct_json_kv_string(j, "command", cmd);
		ct_json_kv_string(j, "exe", p->exe);
		ct_json_kv_u64(j, "unverified", p->proc_unverified);
		ct_json_kv_bool(j, "other_mount_namespace", p->proc_other_mnt);
		ct_json_kv_string(j, "maps_limit", p->proc_limit);
		ct_json_kv_u64(j, "maps_left_out", p->proc_limited);
		for (f = 0; f < NFAMILIES; f++) {
			const struct ct_loaded *o = family_object(p, f);
			const char *v;

			ct_json_key(j, families[f].key);
			if (!o) {
				ct_json_null(j);
				continue;
			}
			v = version_of(m, o, f == NFAMILIES - 1);
			ct_json_object_begin(j);
			ct_json_kv_string(j, "path", o->path);
			ct_json_kv_string(j, "version", v[0] ? v : NULL);
			ct_json_object_end(j);
		}
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "unreadable");
	ct_json_array_begin(j);
	for (i = 0; i < nunread; i++) {
		ct_json_object_begin(j);
		ct_json_key(j, "pid");
		ct_json_i64(j, unread[i].pid);
		ct_json_kv_string(j, "error", unread[i].why);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

int ct_ps_list_print(FILE *out, enum ct_ps_format format, const struct ct_trace *t, size_t nread,
		     const struct ct_ps_unread *unread, size_t nunread, bool quiet)
{
	struct memo m = { NULL, 0 };
	struct ct_json j;
	int ret = 0;

	if (format == CT_PS_JSON) {
		print_json(out, t, &m, nread, unread, nunread, &j);
		ret = ct_json_finish(&j);
	} else if (format == CT_PS_MARKDOWN) {
		ct_tprintf(out, "### CUDA processes\n\n");
		print_text(out, "    ", t, &m, nread, unread, nunread, quiet);
	} else {
		print_text(out, "", t, &m, nread, unread, nunread, quiet);
	}
	free(m.v);
	return ret;
}

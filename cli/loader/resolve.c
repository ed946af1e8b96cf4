/* The loader model; see resolve.h and reference/resolution.md 2.1. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "files.h"
#include "util.h"
#include "resolve.h"

static void init_env(struct ct_loader *L, const struct ct_loader_env *env);

void ct_loader_init(struct ct_loader *L, unsigned machine, int elf_class,
		    const struct ct_loader_env *env)
{
	struct ct_platform_question q;

	ct_platform_ask(&q, machine, elf_class);
	ct_loader_init_asked(L, &q, env);
}

void ct_loader_init_asked(struct ct_loader *L, struct ct_platform_question *q,
			  const struct ct_loader_env *env)
{
	memset(L, 0, sizeof(*L));
	ct_platform_answer(&L->plat, q);
	L->cache_ok = ct_ldcache_read(&L->cache, L->plat.cache) == 0;
	L->memo = ct_xcalloc(1, sizeof(*L->memo));
	init_env(L, env);
}

void ct_loader_init_like(struct ct_loader *L, const struct ct_loader *like,
			 const struct ct_loader_env *env)
{
	memset(L, 0, sizeof(*L));
	ct_platform_copy(&L->plat, &like->plat);
	L->cache_ok = ct_ldcache_read(&L->cache, L->plat.cache) == 0;
	L->memo = ct_xcalloc(1, sizeof(*L->memo));
	init_env(L, env);
}

static void init_env(struct ct_loader *L, const struct ct_loader_env *env)
{
	const char *v;

	/* An empty LD_LIBRARY_PATH is no path at all (not the current directory). */
	v = env && env->library_path ? env->library_path : getenv("LD_LIBRARY_PATH");
	if (v && *v)
		L->ld_library_path = ct_xstrdup(v);
	v = env && env->preload ? env->preload : getenv("LD_PRELOAD");
	if (v && *v)
		L->ld_preload = ct_xstrdup(v);
	if (!getcwd(L->cwd, sizeof(L->cwd)))
		strcpy(L->cwd, "/");
}

static void free_obj(struct ct_lobj *o)
{
	size_t i;

	free(o->path);
	free(o->origin);
	ct_elfinfo_release(&o->info);
	for (i = 0; i < o->nnames; i++)
		free(o->names[i]);
	free(o->names);
	free(o);
}

void ct_lookup_free(struct ct_lookup *k)
{
	size_t j;

	if (!k)
		return;
	for (j = 0; j < k->ncands; j++)
		free(k->cands[j].path);
	free(k->cands);
	free(k->name);
	free(k->expanded);
	free(k->path);
	free(k);
}

void ct_loader_release(struct ct_loader *L)
{
	size_t i;

	for (i = 0; i < L->nobjs; i++)
		free_obj(L->objs[i]);
	free(L->objs);
	for (i = 0; i < L->nlookups; i++)
		ct_lookup_free(L->lookups[i]);
	free(L->lookups);
	free(L->ld_library_path);
	free(L->ld_preload);
	free(L->foreign_interp);
	ct_ldcache_release(&L->cache);
	ct_platform_release(&L->plat);
	if (L->memo && L->memo->free_copies)
		L->memo->free_copies(L->memo->copies);
	free(L->memo);
	memset(L, 0, sizeof(*L));
}

const char ct_noexec_why[] = "failed to map segment from shared object";
const char ct_eacces_why[] = "Permission denied";
const char ct_truncated_why[] = "file truncated: its segments end past the end of the file "
				"(the loader dies of a bus error, SIGBUS, when it maps them)";

const char *ct_outcome_name(enum ct_outcome o)
{
	static const char *const names[] = {
		"directory missing", "no such file", "wrong ELF class", "for another machine",
		"not a loadable ELF file", "in a default directory (NODEFLIB)",
		"not set-user-ID (secure mode)", "no entry", "found",
	};

	return (unsigned)o <= CT_FOUND ? names[o] : "?";
}

bool ct_loader_refuses_execstack(const struct ct_loader *L)
{
	const char *v = L->plat.version, *dot = v ? strchr(v, '.') : NULL;
	int major = v ? atoi(v) : 0, minor = dot ? atoi(dot + 1) : 0;

	return major > 2 || (major == 2 && minor >= 41);
}

const char *ct_cand_words(const struct ct_cand *c)
{
	if (c->why == ct_eacces_why)
		return "not readable (Permission denied): skipped";
	if (c->outcome != CT_NOT_ELF || !c->why)
		return ct_outcome_name(c->outcome);
	if (c->why == ct_noexec_why)
		return "on a file system mounted noexec";
	return c->why == ct_truncated_why ? "file truncated" : c->why;
}

const char *ct_outcome_id(enum ct_outcome o)
{
	static const char *const ids[] = { "dir-missing", "missing", "wrong-class",
					   "wrong-machine",
					   "not-elf", "rejected", "not-setuid", "no-entry",
					   "found" };

	return (unsigned)o <= CT_FOUND ? ids[o] : "?";
}

/* dirname of path, made absolute against cwd; into a new string. */
static char *dir_of(const char *path, const char *cwd)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	char *out;

	if (slash == path)
		return ct_xstrdup("/");
	if (path[0] == '/') {
		out = ct_xmalloc(n + 1);
		memcpy(out, path, n);
		out[n] = '\0';
		return out;
	}
	out = ct_xmalloc(strlen(cwd) + n + 2);
	if (n)
		sprintf(out, "%s/%.*s", cwd, (int)n, path);
	else
		sprintf(out, "%s", cwd);
	return out;
}

/*
 * Is path, with "." and ".." folded, inside a default directory? In secure
 * mode the program's own $ORIGIN paths must be (is_trusted_path_normalize).
 */
static bool trusted(const struct ct_loader *L, const char *path)
{
	char *norm = ct_xmalloc(strlen(path) + 2), *o = norm;
	const char *p = path;
	bool ok = false;
	size_t i;

	if (*p != '/') {
		free(norm);
		return false;
	}
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > norm && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o++ = '/';
	*o = '\0';
	for (i = 0; i < L->plat.nsystem_dirs && !ok; i++) {
		size_t n = strlen(L->plat.system_dirs[i]);

		ok = strncmp(norm, L->plat.system_dirs[i], n) == 0 &&
		     (norm[n] == '/' || L->plat.system_dirs[i][n - 1] == '/');
	}
	free(norm);
	return ok;
}

/*
 * Expand $ORIGIN, $LIB and $PLATFORM (also ${...}) in one path element of
 * object who (its $ORIGIN). Returns a new string, or NULL when a
 * substitution has no value (the loader then drops the element) or secure
 * mode refuses it: there $ORIGIN counts only at the start of an element,
 * and for the program itself only when it leads to a default directory.
 */
static char *expand(const struct ct_loader *L, const char *s, size_t n,
		    const struct ct_lobj *who)
{
	static const struct {
		const char *name;
		int which;
	} dsts[] = { { "ORIGIN", 0 }, { "LIB", 1 }, { "PLATFORM", 2 } };
	char *out = ct_xmalloc(n * 4 + 4096), *o = out;
	const char *origin = who ? who->origin : NULL;
	bool used_origin = false;
	size_t i = 0, k;

	while (i < n) {
		const char *val = NULL;
		size_t used = 0;

		if (s[i] != '$') {
			*o++ = s[i++];
			continue;
		}
		for (k = 0; k < 3 && !used; k++) {
			size_t len = strlen(dsts[k].name);
			bool braced = i + 1 < n && s[i + 1] == '{';
			size_t at = i + 1 + (braced ? 1 : 0);

			if (at + len > n || strncmp(s + at, dsts[k].name, len) != 0)
				continue;
			if (braced) {
				if (at + len >= n || s[at + len] != '}')
					continue;
				used = 2 + len + 1;
			} else {
				/* "$ORIGINX" is not $ORIGIN: the name must end there. */
				char next = at + len < n ? s[at + len] : '\0';

				if ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
				    (next >= '0' && next <= '9') || next == '_')
					continue;
				used = 1 + len;
			}
			val = dsts[k].which == 0 ? origin
			      : dsts[k].which == 1 ? L->plat.lib
						   : L->plat.platform;
			if (dsts[k].which == 0 && L->secure &&
			    (i != 0 || (i + used < n && s[i + used] != '/')))
				val = NULL;
			used_origin |= dsts[k].which == 0;
			if (!val) {
				free(out);
				return NULL;
			}
		}
		if (!used) {
			/* An unknown $NAME stays as it is. */
			*o++ = s[i++];
			continue;
		}
		o += sprintf(o, "%s", val);
		i += used;
	}
	*o = '\0';
	if (L->secure && used_origin && who && who->is_main && !trusted(L, out)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Does s hold a dynamic string token ($ORIGIN, ${LIB}, ...)? */
static bool has_dst(const char *s)
{
	static const char *const names[] = { "ORIGIN", "LIB", "PLATFORM" };
	size_t k, n;

	for (; (s = strchr(s, '$')); s++)
		for (k = 0; k < 3; k++) {
			n = strlen(names[k]);
			if (s[1] == '{' ? strncmp(s + 2, names[k], n) == 0 && s[2 + n] == '}'
					: strncmp(s + 1, names[k], n) == 0 &&
						  !(s[1 + n] == '_' || (s[1 + n] >= '0' && s[1 + n] <= '9') ||
						    ((s[1 + n] | 0x20) >= 'a' && (s[1 + n] | 0x20) <= 'z')))
				return true;
		}
	return false;
}

/* A list of directories from a path string, expanded, deduplicated. */
struct dirs {
	char **d;
	size_t n;
};

static void dirs_free(struct dirs *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		free(ds->d[i]);
	free(ds->d);
	ds->d = NULL;
	ds->n = 0;
}

static void split_dirs(const struct ct_loader *L, const char *list,
		       const char *seps, const struct ct_lobj *who, struct dirs *ds)
{
	const char *p = list;

	ds->d = NULL;
	ds->n = 0;
	if (!list)
		return;
	for (;;) {
		size_t len = strcspn(p, seps), i;
		char *e;

		/*
		 * An empty element is the current directory, spelled as
		 * nothing: the loader tries "libfoo.so.1", "haswell/libfoo.so.1".
		 */
		e = len ? expand(L, p, len, who) : ct_xstrdup("");
		if (e) {
			size_t el = strlen(e);
			bool dup = false;

			while (el > 1 && e[el - 1] == '/')
				e[--el] = '\0';
			for (i = 0; i < ds->n; i++)
				dup |= strcmp(ds->d[i], e) == 0;
			if (dup) {
				free(e);
			} else {
				ds->d = ct_xrealloc(ds->d, (ds->n + 1) * sizeof(char *));
				ds->d[ds->n++] = e;
			}
		}
		p += len;
		if (!*p)
			break;
		p++;
	}
}

/* dir + "/" + name (no doubled slash; "" is the current directory). */
static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	char *out = ct_xmalloc(dl + strlen(name) + 2);

	sprintf(out, "%s%s%s", dir, !dl || dir[dl - 1] == '/' ? "" : "/", name);
	return out;
}

static void add_cand(struct ct_lookup *k, const char *path, enum ct_rule via,
		     const struct ct_lobj *owner, enum ct_outcome out, bool subdir)
{
	struct ct_cand *c;

	k->cands = ct_xrealloc(k->cands, (k->ncands + 1) * sizeof(*c));
	c = &k->cands[k->ncands++];
	c->path = ct_xstrdup(path);
	c->via = via;
	c->owner = owner;
	c->outcome = out;
	c->why = NULL;
	c->subdir = subdir;
}


static bool is_dir(const char *path)
{
	struct stat st;

	return stat(*path ? path : ".", &st) == 0 && S_ISDIR(st.st_mode);
}

/* glibc's open_verify, then what mapping the file would meet; see resolve.h. */
enum ct_outcome ct_loader_check_file(const struct ct_loader *L, const char *path,
				     const char **why)
{
	unsigned char h[64];
	/* Never blocking on a FIFO a trace names: O_NONBLOCK, then the type. */
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	enum ct_outcome o = CT_NOT_ELF;
	unsigned machine, type, phentsize, phnum;
	uint64_t phoff;
	struct statvfs vfs;
	struct stat st;
	bool exec;
	ssize_t n;

	*why = NULL;
	/* Not readable: the loader goes on as if it were not there (and says so). */
	if (fd < 0 && errno == EACCES)
		*why = ct_eacces_why;
	if (fd < 0)
		return CT_FILE_MISSING;
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		*why = "cannot read file data: Is a directory";
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "cannot read file data";
		goto out;
	}
	n = read(fd, h, sizeof(h));
	if (n < 0) {
		*why = "cannot read file data";
		goto out;
	}
	/* The loader reads a header of its own class's size first. */
	if (n < 64) {
		*why = "file too short";
		goto out;
	}
	if (memcmp(h, "\177ELF", 4) != 0) {
		*why = "invalid ELF header";
		goto out;
	}
	if ((h[4] == 2 ? 64 : h[4] == 1 ? 32 : 0) != L->plat.elf_class) {
		o = CT_WRONG_CLASS;
		goto out;
	}
	if (h[5] != 1 /* ELFDATA2LSB: every machine cudatrace knows */) {
		*why = "ELF file data encoding not little-endian";
		goto out;
	}
	machine = (unsigned)ct_le(h + 18, 2);
	type = (unsigned)ct_le(h + 16, 2);
	if (machine != L->plat.machine) {
		o = CT_WRONG_MACHINE;
		goto out;
	}
	if (type != 2 /* ET_EXEC */ && type != 3 /* ET_DYN */) {
		*why = "only ET_DYN and ET_EXEC can be loaded";
		goto out;
	}
	/* Then it reads the program headers, where the header says they are. */
	if (L->plat.elf_class == 64) {
		phoff = ct_le(h + 32, 8);
		phentsize = (unsigned)ct_le(h + 54, 2);
		phnum = (unsigned)ct_le(h + 56, 2);
	} else {
		phoff = ct_le(h + 28, 4);
		phentsize = (unsigned)ct_le(h + 42, 2);
		phnum = (unsigned)ct_le(h + 44, 2);
	}
	if (phentsize != (L->plat.elf_class == 64 ? 56u : 32u)) {
		*why = "ELF file's phentsize not the expected size";
		goto out;
	}
	if (phoff > (uint64_t)st.st_size || (uint64_t)st.st_size - phoff < (uint64_t)phnum * phentsize) {
		*why = "cannot read file data";
		goto out;
	}
	/* Cut short (a copy or download that stopped): the first touch past the end is a SIGBUS. */
	if (ct_elf_loaded_end(fd, (uint64_t)st.st_size, phoff, phnum, L->plat.elf_class, &exec) >
	    (uint64_t)st.st_size) {
		*why = ct_truncated_why;
		goto out;
	}
	/* Its code on a file system mounted noexec: the loader's mmap(PROT_EXEC) fails. */
	if (exec && fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC)) {
		*why = ct_noexec_why;
		goto out;
	}
	o = CT_FOUND;
out:
	close(fd);
	return o;
}

/*
 * Try one candidate: 1 when found, 0 to go on searching, -1 when the
 * loader would give up the load there (k->error says why).
 */
static int try_one(const struct ct_loader *L, struct ct_lookup *k, const char *path,
		   enum ct_rule via, const struct ct_lobj *owner, bool subdir)
{
	const char *why;
	enum ct_outcome o = ct_loader_check_file(L, path, &why);
	struct stat st;

	/* A set-user-ID program preloads only set-user-ID libraries. */
	if (o == CT_FOUND && k->secure_preload &&
	    (stat(path, &st) != 0 || !(st.st_mode & S_ISUID)))
		o = CT_NOT_SUID;
	add_cand(k, path, via, owner, o, subdir);
	k->cands[k->ncands - 1].why = why;
	if (o == CT_FOUND)
		return 1;
	if (o == CT_NOT_ELF) {
		k->error = why;
		k->fatal = true;
		return -1;
	}
	return 0;
}

/*
 * Try name in every directory of ds, each after its subdirectories.
 * Returns the found path (a new string) or NULL; k->fatal when the search
 * ended on a file the loader refuses. An exhaustive lookup goes on past
 * the first file found (and returns that one).
 */
static char *try_dirs(const struct ct_loader *L, struct ct_lookup *k,
		      const struct dirs *ds, enum ct_rule via,
		      const struct ct_lobj *owner)
{
	char *first = NULL;
	size_t i, s;

	for (i = 0; i < ds->n; i++) {
		char *path, *sub;
		int r;

		if (!is_dir(ds->d[i])) {
			path = join(ds->d[i], k->expanded);
			add_cand(k, path, via, owner, CT_DIR_MISSING, false);
			free(path);
			continue;
		}
		for (s = 0; s <= L->plat.nsubdirs; s++) {
			bool plain = s == L->plat.nsubdirs;

			if (plain) {
				path = join(ds->d[i], k->expanded);
			} else {
				sub = join(ds->d[i], L->plat.subdirs[s]);
				if (!is_dir(sub)) {
					free(sub);
					continue; /* not shown: there are many, rarely present */
				}
				path = join(sub, k->expanded);
				free(sub);
			}
			r = try_one(L, k, path, via, owner, !plain);
			if (r > 0 && !first) {
				first = path;
				if (!k->exhaustive)
					return first;
			} else {
				free(path);
			}
			if (r < 0)
				return first;
		}
	}
	return first;
}

static bool in_system_dir(const struct ct_loader *L, const char *path)
{
	size_t i;

	for (i = 0; i < L->plat.nsystem_dirs; i++) {
		size_t n = strlen(L->plat.system_dirs[i]);

		/* A prefix match, as the loader compares: subdirectories too. */
		if (strncmp(path, L->plat.system_dirs[i], n) == 0 &&
		    (path[n] == '/' || (n == 1 && path[0] == '/')))
			return true;
	}
	return false;
}

static void add_name(struct ct_lobj *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nnames; i++)
		if (strcmp(o->names[i], name) == 0)
			return;
	o->names = ct_xrealloc(o->names, (o->nnames + 1) * sizeof(char *));
	o->names[o->nnames++] = ct_xstrdup(name);
}

/* The loaded object answering to name (as asked, or its soname), or NULL. */
static struct ct_lobj *loaded_by_name(const struct ct_loader *L, const char *name)
{
	size_t i, j;

	for (i = 0; i < L->nobjs; i++) {
		struct ct_lobj *o = L->objs[i];

		if (!o->is_main && strcmp(o->path, name) == 0)
			return o;
		for (j = 0; j < o->nnames; j++)
			if (strcmp(o->names[j], name) == 0)
				return o;
	}
	return NULL;
}

/*
 * Map the file at path: read it, refuse what the loader refuses (*why),
 * and add it to the load order.
 */
static struct ct_lobj *map_object(struct ct_loader *L, const char *path,
				  struct ct_lobj *loader, bool is_main, int *err,
				  const char **why)
{
	struct ct_lobj *o = ct_xcalloc(1, sizeof(*o));
	struct stat st;
	int rc;

	*why = NULL;
	ct_elfinfo_init(&o->info);
	if ((rc = ct_elfinfo_read(&o->info, path)) != 0) {
		*err = rc;
		*why = rc == -ENOEXEC ? "invalid ELF header" : "cannot read file data";
		free_obj(o);
		return NULL;
	}
	if (o->info.truncated)
		*why = ct_truncated_why;
	else if (!is_main && o->info.type != 3 /* ET_DYN */)
		*why = "cannot dynamically load executable";
	else if (!is_main && o->info.pie)
		*why = "cannot dynamically load position-independent executable";
	if (*why) {
		*err = -ENOEXEC;
		free_obj(o);
		return NULL;
	}
	o->path = ct_xstrdup(path);
	o->origin = dir_of(path, L->cwd);
	o->loader = loader;
	if (stat(path, &st) == 0) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
	if (o->info.soname)
		add_name(o, o->info.soname);
	o->index = L->nobjs;
	L->objs = ct_xrealloc(L->objs, (L->nobjs + 1) * sizeof(*L->objs));
	L->objs[L->nobjs++] = o;
	return o;
}

struct ct_lobj *ct_loader_start(struct ct_loader *L, const char *path, int *err)
{
	char real[PATH_MAX];
	struct ct_lobj *m;
	struct stat st;
	const char *why;

	*err = 0;
	if (!path) {
		m = ct_xcalloc(1, sizeof(*m));
		ct_elfinfo_init(&m->info);
		m->path = ct_xstrdup("");
		m->origin = ct_xstrdup(L->cwd);
		m->is_main = true;
		m->found_via = CT_RULE_DIRECT;
		L->objs = ct_xrealloc(L->objs, (L->nobjs + 1) * sizeof(*L->objs));
		L->objs[L->nobjs++] = m;
		L->main = m;
		return m;
	}
	m = map_object(L, path, NULL, true, err, &why);
	if (!m)
		return NULL;
	m->is_main = true;
	m->found_via = CT_RULE_DIRECT;
	/*
	 * A program the kernel starts has its $ORIGIN where it really lives
	 * (/proc/self/exe, symlinks resolved); a shared object given in its
	 * place is opened by the loader under the path given, and its $ORIGIN
	 * is that path's directory, as for any library.
	 */
	if (m->info.interp && realpath(path, real)) {
		free(m->origin);
		m->origin = dir_of(real, L->cwd);
	}
	/* A set-user-ID program runs in secure mode. */
	if (stat(path, &st) == 0 &&
	    (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	     ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
		L->secure = true;
	L->main = m;
	/*
	 * The loader itself is mapped from the start, under the name the
	 * program asks for it by (PT_INTERP) and its soname.
	 */
	/*
	 * A shared object given as the program runs under the loader asked
	 * (as with ldd), which is then the one mapped.
	 */
	if (m->info.interp || L->plat.rtld) {
		const char *rtld = m->info.interp ? m->info.interp : L->plat.rtld;
		struct ct_lobj *r = map_object(L, rtld, NULL, false, err, &why);

		*err = 0;
		if (r) {
			r->found_via = CT_RULE_DIRECT;
			add_name(r, rtld);
			r->is_rtld = true;
			L->rtld = r;
		}
	}
	return m;
}

enum { LK_SEARCH_ONLY = 1, LK_EXHAUSTIVE = 2, LK_SECURE_PRELOAD = 4 };

static struct ct_lookup *lookup(struct ct_loader *L, struct ct_lobj *requester,
				const char *name, unsigned flags)
{
	bool search_only = flags & LK_SEARCH_ONLY;
	struct ct_lookup *k = ct_xcalloc(1, sizeof(*k));
	struct ct_lobj *o, *l;
	struct dirs ds;
	char *found = NULL;
	enum ct_rule via = CT_RULE_UNKNOWN;
	const struct ct_lobj *owner = NULL;
	bool main_seen = false;
	int err = 0;

	k->name = ct_xstrdup(name);
	k->requester = requester;
	k->exhaustive = flags & LK_EXHAUSTIVE;
	k->secure_preload = (flags & LK_SECURE_PRELOAD) && L->secure;
	/* A search alone leaves no trace in the load. */
	if (!search_only) {
		L->lookups = ct_xrealloc(L->lookups, (L->nlookups + 1) * sizeof(*L->lookups));
		L->lookups[L->nlookups++] = k;
	}

	/* Dynamic string tokens in the name are expanded before anything else. */
	k->expanded = strchr(name, '$') ? expand(L, name, strlen(name), requester)
					: ct_xstrdup(name);
	if (L->secure && !(flags & LK_SECURE_PRELOAD) && has_dst(name)) {
		/* The loader refuses them outright in a set-user-ID program. */
		k->error = "DST not allowed in SUID/SGID programs";
		k->fatal = true;
		free(k->expanded);
		k->expanded = ct_xstrdup(name);
		goto done;
	}
	if (!k->expanded || !k->expanded[0]) {
		k->error = "empty dynamic string token substitution";
		k->fatal = true;
		goto done;
	}
	name = k->expanded;
	/* 0. A name the process already has answers without a search. */
	if (!search_only && (o = loaded_by_name(L, name))) {
		k->found_via = CT_RULE_ALREADY_LOADED;
		k->object = o;
		return k;
	}
/* Search on while nothing is found (or always, when exhaustive). */
#define GO ((!found || k->exhaustive) && !k->fatal)
/* Keep the first path found, with its rule. */
#define TAKE(expr, rule, who)                                \
	do {                                                 \
		char *p_ = (expr);                           \
		if (p_ && !found) {                          \
			found = p_;                          \
			via = (rule);                        \
			owner = (who);                       \
		} else {                                     \
			free(p_);                            \
		}                                            \
	} while (0)
	if (strchr(name, '/')) {
		if (try_one(L, k, name, CT_RULE_DIRECT, NULL, false) > 0) {
			found = ct_xstrdup(name);
			via = CT_RULE_DIRECT;
		}
		goto done;
	}
	/* 1. The RPATH chain, only when the requester has no RUNPATH. */
	if (!requester->info.runpath) {
		for (l = requester; l && GO; l = l->loader) {
			main_seen |= l == L->main;
			if (!l->info.rpath || l->info.runpath)
				continue;
			split_dirs(L, l->info.rpath, ":", l, &ds);
			TAKE(try_dirs(L, k, &ds, CT_RULE_RPATH, l), CT_RULE_RPATH, l);
			dirs_free(&ds);
		}
		if (GO && !main_seen && L->main && L->main->info.rpath &&
		    !L->main->info.runpath) {
			split_dirs(L, L->main->info.rpath, ":", L->main, &ds);
			TAKE(try_dirs(L, k, &ds, CT_RULE_RPATH, L->main), CT_RULE_RPATH, L->main);
			dirs_free(&ds);
		}
	}
	/* 2. LD_LIBRARY_PATH, expanded as for the program; not in secure mode. */
	if (GO && L->ld_library_path && !L->secure) {
		split_dirs(L, L->ld_library_path, ":;", L->main, &ds);
		TAKE(try_dirs(L, k, &ds, CT_RULE_LD_LIBRARY_PATH, NULL), CT_RULE_LD_LIBRARY_PATH, NULL);
		dirs_free(&ds);
	}
	/* 3. The requester's own RUNPATH (never inherited). */
	if (GO && requester->info.runpath) {
		split_dirs(L, requester->info.runpath, ":", requester, &ds);
		TAKE(try_dirs(L, k, &ds, CT_RULE_RUNPATH, requester), CT_RULE_RUNPATH, requester);
		dirs_free(&ds);
	}
	/* 4. ld.so.cache; with NODEFLIB, not for files in default directories. */
	if (GO && L->cache_ok && !k->secure_preload) {
		const struct ct_ldcache_entry *e = ct_ldcache_lookup(&L->cache, &L->plat, name);

		if (e && requester->info.nodeflib && in_system_dir(L, e->path)) {
			add_cand(k, e->path, CT_RULE_LD_SO_CACHE, NULL, CT_REJECTED, false);
		} else if (e) {
			if (try_one(L, k, e->path, CT_RULE_LD_SO_CACHE, NULL, false) > 0)
				TAKE(ct_xstrdup(e->path), CT_RULE_LD_SO_CACHE, NULL);
		} else {
			k->cache_miss = true;
			add_cand(k, "", CT_RULE_LD_SO_CACHE, NULL, CT_NO_ENTRY, false);
		}
	}
	/* 5. The default directories, unless NODEFLIB. */
	if (GO && !requester->info.nodeflib) {
		size_t i;

		ds.d = ct_xcalloc(L->plat.nsystem_dirs + 1, sizeof(char *));
		ds.n = L->plat.nsystem_dirs;
		for (i = 0; i < ds.n; i++)
			ds.d[i] = ct_xstrdup(L->plat.system_dirs[i]);
		TAKE(try_dirs(L, k, &ds, CT_RULE_DEFAULT, NULL), CT_RULE_DEFAULT, NULL);
		dirs_free(&ds);
	}
#undef GO
#undef TAKE
done:
	if (!found) {
		size_t i;
		bool other_class = false;

		for (i = 0; i < k->ncands; i++)
			other_class |= k->cands[i].outcome == CT_WRONG_CLASS;
		k->found_via = CT_RULE_NOT_FOUND;
		if (k->fatal) {
			if (!search_only)
				L->fatal = k;
		} else if (other_class) {
			k->error = L->plat.elf_class == 64 ? "wrong ELF class: ELFCLASS32"
							   : "wrong ELF class: ELFCLASS64";
		} else {
			k->error = "cannot open shared object file: No such file or directory";
		}
		return k;
	}
	if (search_only) {
		k->found_via = via;
		k->via_owner = owner;
		k->path = found;
		return k;
	}
	/* The same file under another name is the object already mapped. */
	{
		struct stat st;
		size_t i;

		if (stat(found, &st) == 0)
			for (i = 0; i < L->nobjs; i++)
				if (!L->objs[i]->is_main && L->objs[i]->dev == st.st_dev && L->objs[i]->ino == st.st_ino) {
					k->found_via = CT_RULE_ALREADY_LOADED;
					k->object = L->objs[i];
					add_name(L->objs[i], name);
					free(found);
					return k;
				}
	}
	o = map_object(L, found, requester, false, &err, &k->error);
	if (!o) {
		k->found_via = CT_RULE_NOT_FOUND;
		k->fatal = true;
		L->fatal = k;
		free(found);
		return k;
	}
	add_name(o, name);
	o->found_via = via;
	o->via_owner = owner;
	k->found_via = via;
	k->via_owner = owner;
	k->object = o;
	k->new_object = true;
	free(found);
	return k;
}

struct ct_lookup *ct_loader_lookup(struct ct_loader *L, struct ct_lobj *requester,
				   const char *name)
{
	return lookup(L, requester, name, 0);
}

struct ct_lookup *ct_loader_search(struct ct_loader *L, struct ct_lobj *requester,
				   const char *name, bool exhaustive)
{
	return lookup(L, requester, name, LK_SEARCH_ONLY | (exhaustive ? LK_EXHAUSTIVE : 0));
}

/* Preload every name of list (separators seps), as the program asks. */
static void preload_list(struct ct_loader *L, const char *list, const char *seps)
{
	char *copy = ct_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
		struct ct_lookup *k;

		/* Secure mode takes only plain names. */
		if (L->secure && strchr(tok, '/'))
			continue;
		k = lookup(L, L->main, tok, LK_SECURE_PRELOAD);
		k->preload = true;
		if (k->object && k->new_object) {
			k->object->preload = true;
			k->object->found_via = CT_RULE_PRELOAD;
			k->found_via = CT_RULE_PRELOAD;
		}
		/* A preload that fails is reported and ignored, never fatal. */
		L->fatal = NULL;
	}
	free(copy);
}

void ct_loader_load_all(struct ct_loader *L)
{
	size_t i, j;
	char *text;

	if (!L->main)
		return;
	/* LD_PRELOAD, then /etc/ld.so.preload. */
	if (L->ld_preload)
		preload_list(L, L->ld_preload, " :");
	if ((text = ct_read_small_file("/etc/ld.so.preload", 1 << 20))) {
		preload_list(L, text, " \t\n:");
		free(text);
	}
	/* Breadth-first, as _dl_map_object_deps maps them. */
	for (i = 0; i < L->nobjs && !L->fatal; i++) {
		struct ct_lobj *o = L->objs[i];

		for (j = 0; j < o->info.nneeded && !L->fatal; j++)
			ct_loader_lookup(L, o, o->info.needed[j]);
	}
}

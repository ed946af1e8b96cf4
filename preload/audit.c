/*
 * The auditor half (rtld-audit(7); reference/interpose.md 4): every
 * library search with each candidate and the rule that produced it, every
 * object opened and unloaded, and the bindings into libcuda and libcudart
 * that the driver wrappers replace.
 *
 * The loader calls la_objsearch and la_objopen with its lock held, one at
 * a time, so the search in progress can live in plain globals. Candidates
 * are written as they come: after a missing DT_NEEDED the loader exits
 * with status 127 and calls nothing more.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

#ifndef LAV_CURRENT
#define LAV_CURRENT 1
#endif

static char exe[1024];
static struct {
	uint64_t id;           /* searches so far; 0: none in progress */
	bool active;
	unsigned last_flag;    /* rule of the last candidate */
	bool runpath;          /* the requester has DT_RUNPATH */
	char name[1024];       /* as requested */
	char last[2048];       /* the last candidate path */
	char requester[1024];
} search;
static uint64_t searches;
static bool exiting;           /* the main program has been closed */

static void copy(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < size; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

static const char *map_path(const struct link_map *m)
{
	if (!m)
		return "";
	return m->l_name && m->l_name[0] ? m->l_name : exe;
}

static bool has_runpath(const struct link_map *m)
{
	return m && ct_dynamic_string(m->l_addr, m->l_ld, DT_RUNPATH) != NULL;
}

/* The loader's rules by the ids traces carry (include/ct_rules.def). */
enum {
#define CT_RULE(NAME, id, words) RULE_##NAME,
#include "ct_rules.def"
#undef CT_RULE
	RULE_COUNT
};

static const char *const rule_ids[RULE_COUNT] = {
#define CT_RULE(NAME, id, words) [RULE_##NAME] = id,
#include "ct_rules.def"
#undef CT_RULE
};

static const char *rule(unsigned flag, bool runpath)
{
	switch (flag) {
	case LA_SER_LIBPATH:
		return rule_ids[RULE_LD_LIBRARY_PATH];
	case LA_SER_RUNPATH:
		/* One flag for both; RPATH is only used when RUNPATH is absent. */
		return rule_ids[runpath ? RULE_RUNPATH : RULE_RPATH];
	case LA_SER_CONFIG:
		return rule_ids[RULE_LD_SO_CACHE];
	case LA_SER_DEFAULT:
		return rule_ids[RULE_DEFAULT];
	case LA_SER_SECURE:
		return rule_ids[RULE_SECURE];
	default:
		/* A flag this shim does not know: none of the rules. */
		return "unknown";
	}
}

CT_EXPORT unsigned int la_version(unsigned int version)
{
	ssize_t n;

	ct_is_auditor = true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	ct_trace_start();
	/* Our callbacks are those of interface versions 1 and 2. */
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

CT_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	const struct link_map *req = (const struct link_map *)*cookie;
	struct ct_rec r;

	if (flag == LA_SER_ORIG) {
		search.id = ++searches;
		search.active = true;
		search.last[0] = '\0';
		search.last_flag = 0;
		copy(search.name, sizeof(search.name), name);
		copy(search.requester, sizeof(search.requester), map_path(req));
		search.runpath = has_runpath(req);
		if (ct_rec_begin(&r, "search")) {
			ct_rec_u64(&r, "id", search.id);
			ct_rec_str(&r, "name", name);
			ct_rec_str(&r, "by", search.requester);
			ct_rec_end(&r);
		}
		return (char *)name;
	}
	if (search.active) {
		copy(search.last, sizeof(search.last), name);
		search.last_flag = flag;
	}
	if (ct_rec_begin(&r, "try")) {
		ct_rec_u64(&r, "search", search.id);
		ct_rec_str(&r, "path", name);
		ct_rec_str(&r, "via", rule(flag, has_runpath(req)));
		ct_rec_end(&r);
	}
	/* Returning the name unchanged keeps the search exactly as it was. */
	return (char *)name;
}

/*
 * Which bindings reach la_symbind64: into libcuda and libcudart (whose
 * functions the wrappers replace), from everyone but libcuda itself.
 */
static unsigned bind_flags(const char *path)
{
	const char *b = ct_basename(path);

	if (ct_has_prefix(b, "libcuda.so"))
		return LA_FLG_BINDTO;
	if (ct_has_prefix(b, "libcudart.so"))
		return LA_FLG_BINDTO | LA_FLG_BINDFROM;
	return LA_FLG_BINDFROM;
}

CT_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *path = map_path(map);
	struct ct_rec r;
	struct stat st;
	bool from_search;

	(void)cookie;
	/* The vDSO has no file. */
	if (map->l_name && map->l_name[0] && map->l_name[0] != '/' &&
	    !ct_strncmp(map->l_name, "linux-", 6))
		return 0;
	from_search = search.active &&
		      (ct_strcmp(path, search.last) == 0 ||
		       ct_strcmp(path, search.name) == 0);
	if (ct_rec_begin(&r, "open")) {
		ct_rec_str(&r, "path", path);
		ct_rec_i64(&r, "lmid", (int64_t)lmid);
		ct_rec_str(&r, "soname",
			   ct_dynamic_string(map->l_addr, map->l_ld, DT_SONAME));
		if (from_search) {
			ct_rec_u64(&r, "search", search.id);
			ct_rec_str(&r, "name", search.name);
			ct_rec_str(&r, "by", search.requester);
			if (ct_strcmp(path, search.last) == 0 && search.last_flag)
				ct_rec_str(&r, "via", rule(search.last_flag, search.runpath));
			else
				ct_rec_str(&r, "via", rule_ids[RULE_DIRECT]);
		} else if (!map->l_name || !map->l_name[0]) {
			ct_rec_bool(&r, "main", true);
		}
		if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0) {
			ct_rec_u64(&r, "dev", (uint64_t)st.st_dev);
			ct_rec_u64(&r, "ino", (uint64_t)st.st_ino);
			ct_rec_u64(&r, "size", (uint64_t)st.st_size);
			ct_rec_u64(&r, "mtime", (uint64_t)st.st_mtime);
		}
		ct_rec_end(&r);
	}
	if (from_search)
		search.active = false;
	return bind_flags(path);
}

/*
 * At exit the loader closes the main program first, then everything else,
 * which says nothing: one "fini" record stands for all of that. Before
 * it, a close is a dlclose that unloaded the object.
 */
CT_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	const struct link_map *m = (const struct link_map *)*cookie;
	struct ct_rec r;

	if (exiting)
		return 0;
	if (!m->l_name || !m->l_name[0]) {
		exiting = true;
		if (ct_rec_begin(&r, "fini"))
			ct_rec_end(&r);
		return 0;
	}
	if (ct_rec_begin(&r, "close")) {
		ct_rec_str(&r, "path", map_path(m));
		ct_rec_end(&r);
	}
	return 0;
}

CT_EXPORT void la_preinit(uintptr_t *cookie)
{
	struct ct_rec r;

	(void)cookie;
	search.active = false;
	if (ct_rec_begin(&r, "main"))
		ct_rec_end(&r);
}

CT_EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
		       uintptr_t *defcook, unsigned int *flags,
		       const char *symname)
{
	(void)ndx;
	(void)refcook;
	(void)defcook;
	(void)flags;
	return ct_driver_bind(symname, sym->st_value);
}

/* Field types of trace records; see rectypes.h. */
#include <string.h>

#include "rectypes.h"

/* The types a field may have, as bits. */
enum {
	S = 1 << 0, /* string */
	N = 1 << 1, /* null */
	I = 1 << 2, /* integer (of up to 64 bits) */
	B = 1 << 3, /* true or false */
	A = 1 << 4, /* array */
	O = 1 << 5, /* object */
	MUST = 1 << 6, /* present in every record of its type */
	SOME = 1 << 7, /* a string of at least one byte, an integer above 0 */
};

struct field {
	const char *ev;              /* the record type; "" every record */
	const char *key;
	unsigned types;
};

/*
 * One line per field the schema gives (docs/schema/trace-record.schema.json).
 * A start record names its process (pid), and a search the library it
 * looks for: the shim always writes both, and without them a record would
 * read as "process 0" or a library with no name.
 */
static const struct field fields[] = {
	{ "", "ev", S }, { "", "t", I }, { "", "tid", I }, { "", "truncated", B },
	{ "start", "v", I }, { "start", "shim", S | N }, { "start", "pid", I | MUST | SOME },
	{ "start", "ppid", I }, { "start", "host", S | N }, { "start", "image", S | N },
	{ "start", "run", S }, { "start", "auditor", B }, { "start", "exe", S | N },
	{ "start", "cwd", S | N }, { "start", "uid", I }, { "start", "euid", I },
	{ "start", "secure", B }, { "start", "argv", A }, { "start", "argv_cut", B },
	{ "start", "ranks", O }, { "start", "env", O },
	{ "search", "id", I }, { "search", "name", S | MUST | SOME }, { "search", "by", S | N },
	{ "try", "search", I }, { "try", "path", S | N }, { "try", "via", S | N },
	{ "open", "path", S | N }, { "open", "lmid", I }, { "open", "soname", S | N },
	{ "open", "search", I }, { "open", "name", S | N }, { "open", "by", S | N },
	{ "open", "via", S | N }, { "open", "main", B }, { "open", "dev", I },
	{ "open", "ino", I }, { "open", "size", I }, { "open", "mtime", I },
	{ "close", "path", S | N },
	{ "exit", "api", S | N }, { "exit", "status", I },
	{ "dlopen", "api", S | N }, { "dlopen", "name", S | N }, { "dlopen", "flags", I },
	{ "dlopen", "noload", B }, { "dlopen", "lmid", I }, { "dlopen", "caller", S | N },
	{ "dlerror", "text", S | N },
	{ "exec", "api", S | N }, { "exec", "path", S | N }, { "exec", "traced", B },
	{ "exec", "auditor", B }, { "exec", "untraced", S }, { "exec", "dir", S },
	{ "exec_failed", "api", S | N }, { "exec_failed", "errno", I },
	{ "switch", "api", S }, { "switch", "uid", I }, { "switch", "path", S | N },
	{ "driver", "path", S | N }, { "driver", "version", I }, { "driver", "init", I },
	{ "driver", "devices", A },
	{ "cuinit", "result", I }, { "cuinit", "caller", S | N },
	{ "module", "api", S | N }, { "module", "result", I }, { "module", "caller", S | N },
	{ "module", "file", S | N }, { "module", "input", S | N }, { "module", "name", S | N },
	{ "module", "object", S | N }, { "module", "offset", I }, { "module", "size", I },
	{ "module", "image_count", I }, { "module", "images", A },
	{ "register", "caller", S | N }, { "register", "wrapper_version", I },
	{ "register", "object", S | N }, { "register", "offset", I },
	{ "register", "size", I }, { "register", "image_count", I },
	{ "register", "images", A },
	{ "dropped", "stopped", B }, { "dropped", "errno", I },
};

/* The members of a module's images and a driver's devices. */
static const struct field image_fields[] = {
	{ "", "kind", S | N }, { "", "arch", S | N }, { "", "ptx_version", S | N },
};
static const struct field device_fields[] = {
	{ "", "index", I }, { "", "name", S | N }, { "", "cc", S | N }, { "", "uuid", S | N },
};

static unsigned bit(const struct ct_jv *v)
{
	switch (v->type) {
	case CT_J_STR:
		return S;
	case CT_J_NULL:
		return N;
	case CT_J_INT:
	case CT_J_UINT:
		return I;
	case CT_J_BOOL:
		return B;
	case CT_J_ARR:
		return A;
	case CT_J_OBJ:
		return O;
	case CT_J_NUM:
	default:
		return 0; /* a fraction or an exponent: no field is one */
	}
}

/* Is m, of a type its field may have, empty: "", or an integer below 1? */
static bool empty(const struct ct_jv *m)
{
	return (m->type == CT_J_STR && m->u.str.len == 0) || (m->type == CT_J_INT && m->u.i < 1);
}

/*
 * Does each listed member of the object v have its type, and is each one
 * a record must have there, and not empty where it must not be?
 */
static bool members_ok(const struct ct_jv *v, const char *ev, const struct field *list,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ct_jv *m;

		if (list[i].ev[0] && strcmp(list[i].ev, ev) != 0)
			continue;
		m = ct_jget(v, list[i].key);
		if (!m) {
			if (list[i].types & MUST)
				return false;
			continue;
		}
		if (!(bit(m) & list[i].types) || ((list[i].types & SOME) && empty(m)))
			return false;
	}
	return true;
}

/* Is every item of the array v an object whose listed members have their types? */
static bool items_ok(const struct ct_jv *v, const struct field *list, size_t n)
{
	size_t i;

	for (i = 0; v && i < v->u.c.n; i++)
		if (v->u.c.items[i]->type != CT_J_OBJ ||
		    !members_ok(v->u.c.items[i], "", list, n))
			return false;
	return true;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Does no object in v hold a key twice (but skip, whose members may)? A
 * script's JSON reader takes the last of two, cudatrace the first: a
 * record that can be read two ways is read neither way.
 */
static bool keys_once(const struct ct_jv *v, const struct ct_jv *skip1,
		      const struct ct_jv *skip2)
{
	size_t i;

	if (v->type != CT_J_OBJ && v->type != CT_J_ARR)
		return true;
	if (v->type == CT_J_OBJ && v->u.c.dup && v != skip1 && v != skip2)
		return false;
	for (i = 0; i < v->u.c.n; i++)
		if (!keys_once(v->u.c.items[i], skip1, skip2))
			return false;
	return true;
}

bool ct_record_well_typed(const struct ct_jv *v)
{
	const struct ct_jv *ev = ct_jget(v, "ev");
	const char *e;
	size_t i;

	if (!ev || ev->type != CT_J_STR)
		return false;
	e = ev->u.str.s;
	/*
	 * A start record's env and ranks are the environment's strings as the
	 * shim found them, and an environment may set a name twice: read as
	 * the program's getenv reads it, the first (ct_proc_env).
	 */
	if (strcmp(e, "start") == 0 ? !keys_once(v, ct_jget(v, "env"), ct_jget(v, "ranks"))
				    : !keys_once(v, NULL, NULL))
		return false;
	if (!members_ok(v, e, fields, COUNT(fields)))
		return false;
	/* A start record's argv holds strings, its env and ranks string values. */
	if (strcmp(e, "start") == 0) {
		const struct ct_jv *argv = ct_jget(v, "argv"), *o;

		for (i = 0; argv && i < argv->u.c.n; i++)
			if (argv->u.c.items[i]->type != CT_J_STR)
				return false;
		o = ct_jget(v, "env");
		for (i = 0; o && i < o->u.c.n; i++)
			if (!(bit(o->u.c.items[i]) & (S | N)))
				return false;
		o = ct_jget(v, "ranks");
		for (i = 0; o && i < o->u.c.n; i++)
			if (!(bit(o->u.c.items[i]) & (S | N)))
				return false;
	}
	if (strcmp(e, "module") == 0 || strcmp(e, "register") == 0)
		return items_ok(ct_jget(v, "images"), image_fields, COUNT(image_fields));
	if (strcmp(e, "driver") == 0)
		return items_ok(ct_jget(v, "devices"), device_fields, COUNT(device_fields));
	return true;
}

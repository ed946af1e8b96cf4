/*
 * cudatrace ldd: the DT_NEEDED tree as glibc's loader would map it for this
 * file in this shell, each library with the rule that found it, CUDA
 * libraries with their version and device code; what is not found with
 * every candidate tried; symbol versions a dependency lacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copies.h"
#include "files.h"
#include "util.h"
#include "commands.h"
#include "describe.h"
#include "explain.h"
#include "json.h"
#include "libfacts.h"
#include "schema.h"
#include "resolve.h"
#include "text.h"

struct ldd {
	struct ct_loader L;
	bool json, verbose, quiet;
	const char *file;
	size_t *depth;            /* per object index */
	struct ct_version_gap *gaps;
	size_t ngaps;
	size_t not_found;
	bool noexec;              /* FILE's code is on a file system mounted noexec */
	const struct ct_lobj *execstack; /* FILE a library and, on glibc 2.41 or
					    later, this object of its tree asks for
					    an executable stack: a dlopen of FILE
					    fails */
	struct ct_facts_pool *facts; /* device code, read beside the loader model */
};

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

static const char *execstack_text(const struct ldd *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s asks for an executable stack, which glibc %s refuses to a dlopen "
		 "(\"cannot enable executable stack as shared object requires\"): patchelf "
		 "--clear-execstack it, or use a build linked with -z noexecstack",
		 d->execstack->path, d->L.plat.version);
	return buf;
}

/* FILE itself on a noexec mount: execve refuses it, the loader cannot map it. */
static const char *noexec_text(const struct ldd *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s is on a file system mounted noexec (run: Permission denied; "
		 "loaded: failed to map segment from shared object)", d->file);
	return buf;
}

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace ldd [--json] [-q] [-v] [--library-path PATH] [--preload LIST] FILE\n"
		"\n"
		"The shared libraries FILE loads at start, as the dynamic loader would find\n"
		"them in this environment (LD_LIBRARY_PATH, LD_PRELOAD, /etc/ld.so.cache),\n"
		"each with the rule that found it. CUDA libraries show their version and\n"
		"device code; a library not found shows every place the loader tried.\n"
		"Nothing is run.\n"
		"\n"
		"  --json                one JSON document on stdout\n"
		"  -q, --quiet           no tree: the libraries not found and who needs\n"
		"                        each, what else stops it, and the count\n"
		"  -v, --verbose         every candidate of every library, and the libraries\n"
		"                        a requester finds already loaded\n"
		"  --library-path PATH   judge as if LD_LIBRARY_PATH were PATH ('' for unset)\n"
		"  --preload LIST        judge as if LD_PRELOAD were LIST ('' for unset)\n"
		"  --color[=WHEN]        taken by every command; ldd prints no colour\n"
		"\n"
		"exit status: 0 all found, 1 a library or symbol version missing, 2 bad input\n");
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

/* ---- text ---------------------------------------------------------------- */

/* The lookup that first reached the loader itself (shown as a node). */
static const struct ct_lookup *rtld_lookup(const struct ldd *d)
{
	size_t i;

	for (i = 0; d->L.rtld && i < d->L.nlookups; i++)
		if (d->L.lookups[i]->object == d->L.rtld)
			return d->L.lookups[i];
	return NULL;
}

static bool shown(const struct ldd *d, const struct ct_lookup *k)
{
	return k->new_object || !k->object || d->verbose || k == rtld_lookup(d);
}

static void print_info(const char *prefix, const char *text)
{
	ct_tprintf(stdout, "%s%s\n", prefix, text);
}

static void print_node(struct ldd *d, const struct ct_lobj *o, const char *prefix);

static void print_lookup(struct ldd *d, const struct ct_lookup *k, const char *prefix,
			 bool last)
{
	char rule[256], info[4096];
	bool children = false;
	size_t i;

	/* Info lines hang under the node, left of its children's branch. */
	if (k->new_object)
		for (i = 0; i < d->L.nlookups && !children; i++)
			children = d->L.lookups[i]->requester == k->object &&
				   shown(d, d->L.lookups[i]);
	snprintf(info, sizeof(info), "%s%s%s", prefix, last ? "    " : "|   ",
		 children ? "|   " : "    ");

	ct_tprintf(stdout, "%s%s %s => ", prefix, last ? "`--" : "|--", k->name);
	if (!k->object) {
		ct_tprintf(stdout, "not found%s%s\n", k->error ? ": " : "", k->error ? k->error : "");
		if (k->fatal)
			print_info(info, "the loader stops the whole load here");
		if (k->error == ct_noexec_why && k->ncands) {
			snprintf(rule, sizeof(rule), "%s is on a file system mounted noexec: the "
				 "loader cannot map its code", k->cands[k->ncands - 1].path);
			print_info(info, rule);
		}
		ct_print_driver_missing(stdout, k->name, k, info);
		if (!k->ncands)
			print_info(info, "no candidate was tried");
		else
			print_info(info, "tried, in order:");
		ct_print_lookup_candidates(stdout, k, info);
		if (!strchr(k->name, '/')) {
			struct ct_copies cs;

			ct_find_copies(&d->L, k, &cs);
			for (i = 0; i < cs.n && i < 3; i++) {
				bool ver = cs.c[i].version[0] &&
					   (!cs.c[i].same_name || strchr(cs.c[i].version, '.'));

				snprintf(rule, sizeof(rule), "%s %s (%s%s%s%s)",
					 i ? "          " : "elsewhere:", cs.c[i].path,
					 cs.c[i].same_name ? "" : "another major, ",
					 ver ? cs.c[i].version : "", ver ? ", " : "", cs.c[i].where);
				print_info(info, rule);
			}
			if (cs.n > 3)
				ct_tprintf(stdout, "%s           and %zu more\n", info, cs.n - 3);
			snprintf(rule, sizeof(rule), "(cudatrace why %s --from %s: the whole story)",
				 k->name, ct_lobj_name(k->requester, false));
			print_info(info, rule);
			ct_copies_release(&cs);
		}
		return;
	}
	if (!k->new_object) {
		ct_tprintf(stdout, "%s [%s]\n", k->object->path,
		       k->object->is_rtld ? "the program's interpreter (PT_INTERP)"
					   : "already loaded");
		return;
	}
	ct_tprintf(stdout, "%s [%s]\n", k->object->path,
	       k->preload ? "LD_PRELOAD" : ct_rule_text_at(k->found_via, k->via_owner, k->object->path, rule, sizeof(rule)));
	ct_print_cuda_facts(stdout, ct_facts_get(d->facts, k->object->path), info);
	if (d->verbose && k->ncands) {
		print_info(info, "tried, in order:");
		ct_print_lookup_candidates(stdout, k, info);
	}
	snprintf(info, sizeof(info), "%s%s", prefix, last ? "    " : "|   ");
	print_node(d, k->object, info);
}

static void print_node(struct ldd *d, const struct ct_lobj *o, const char *prefix)
{
	const struct ct_lookup *last = NULL;
	size_t i;

	for (i = 0; i < d->L.nlookups; i++)
		if (d->L.lookups[i]->requester == o && shown(d, d->L.lookups[i]))
			last = d->L.lookups[i];
	for (i = 0; i < d->L.nlookups; i++) {
		const struct ct_lookup *k = d->L.lookups[i];

		if (k->requester == o && shown(d, k))
			print_lookup(d, k, prefix, k == last);
	}
}

static void print_gaps(const struct ldd *d)
{
	size_t i;

	for (i = 0; i < d->ngaps; i++) {
		ct_tprintf(stdout, "\n");
		ct_print_gap(stdout, &d->gaps[i]);
	}
}

/*
 * -q: no tree, a line per library not found and who needs it, as
 * ldd | grep 'not found' would give; what follows (the program would not
 * start, symbol versions missing, the count) as without -q.
 */
static void print_missing(const struct ldd *d)
{
	size_t i;

	for (i = 0; i < d->L.nlookups; i++) {
		const struct ct_lookup *k = d->L.lookups[i];

		if (k->object)
			continue;
		ct_tprintf(stdout, "%s => not found%s%s (needed by %s)\n", k->name,
			   k->error ? ": " : "", k->error ? k->error : "",
			   ct_lobj_name(k->requester, false));
	}
}

static void print_text(struct ldd *d)
{
	size_t i, found = 0;

	if (d->quiet) {
		print_missing(d);
	} else {
		ct_tprintf(stdout, "%s\n", d->file);
		ct_print_cuda_facts(stdout, ct_facts_get(d->facts, d->file), "    ");
		ct_print_foreign_interp(stdout, &d->L);
		ct_print_cwd_entries(stdout, &d->L);
		print_node(d, d->L.main, "");
	}
	for (i = 0; i < d->L.nlookups; i++)
		found += d->L.lookups[i]->new_object;
	if (d->noexec) {
		char why[4352]; /* the path, and a sentence */

		ct_tprintf(stdout, "\nthe program would not start: %s\n",
			   noexec_text(d, why, sizeof(why)));
	}
	if (d->execstack) {
		char why[4352];

		ct_tprintf(stdout, "\nloaded with dlopen (as Python loads an extension), it would "
			   "not load: %s\n", execstack_text(d, why, sizeof(why)));
	}
	if (d->L.fatal) {
		char why[4096];

		/* A file cut short: no message, the loader dies of SIGBUS. */
		ct_tprintf(stdout, "\nthe program would not start: %s%s\n",
			   d->L.fatal->error == ct_truncated_why
				   ? ""
				   : "error while loading shared libraries: ",
			   fatal_text(d->L.fatal, why, sizeof(why)));
	}
	print_gaps(d);
	if (!d->quiet || d->not_found || d->ngaps)
		ct_tprintf(stdout, "\n");
	ct_tprintf(stdout, "%zu librar%s found, %zu not found\n", found, found == 1 ? "y" : "ies",
		   d->not_found);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_strings(struct ct_json *j, const char *key, char **v, size_t n)
{
	size_t i;

	ct_json_key(j, key);
	ct_json_array_begin(j);
	for (i = 0; i < n; i++)
		ct_json_string(j, v[i]);
	ct_json_array_end(j);
}

static void json_loader(struct ct_json *j, const struct ct_loader *L)
{
	const struct ct_platform *p = &L->plat;

	ct_json_key(j, "loader");
	ct_json_object_begin(j);
	ct_json_kv_string(j, "rtld", p->rtld);
	ct_json_kv_string(j, "glibc", p->version);
	ct_json_kv_string(j, "lib", p->lib);
	ct_json_kv_string(j, "platform", p->platform);
	json_strings(j, "hwcaps", p->hwcaps, p->nhwcaps);
	json_strings(j, "system_dirs", p->system_dirs, p->nsystem_dirs);
	json_strings(j, "subdirectories", p->subdirs, p->nsubdirs);
	ct_json_kv_string(j, "cache", L->cache_ok ? p->cache : NULL);
	ct_json_kv_string(j, "ld_library_path", L->ld_library_path);
	ct_json_kv_string(j, "ld_preload", L->ld_preload);
	ct_json_kv_bool(j, "secure", L->secure);
	ct_json_kv_bool(j, "facts_from_loader", p->from_loader);
	ct_json_foreign_interp(j, L);
	ct_json_object_end(j);
}

static void json_copies(struct ct_json *j, const struct ct_copies *cs)
{
	size_t i;

	ct_json_array_begin(j);
	for (i = 0; i < cs->n; i++) {
		ct_json_object_begin(j);
		ct_json_kv_string(j, "path", cs->c[i].path);
		ct_json_kv_string(j, "where", cs->c[i].where);
		ct_json_kv_string(j, "version", cs->c[i].version[0] ? cs->c[i].version : NULL);
		ct_json_kv_bool(j, "same_name", cs->c[i].same_name);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
}

static void print_json(struct ldd *d)
{
	struct ct_json j;
	size_t i;

	ct_json_init(&j, stdout);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_LDD);
	ct_json_kv_string(&j, "file", d->file);
	ct_json_kv_string(&j, "error", NULL);
	{
		/* The file's own device code, as the text shows it. */
		const struct ct_cuda_facts *c = ct_facts_get(d->facts, d->file);

		ct_json_key(&j, "cuda");
		if (c->cuda_library || c->nimages)
			ct_json_cuda_facts(&j, c);
		else
			ct_json_null(&j);
	}
	json_loader(&j, &d->L);
	ct_json_key(&j, "libraries");
	ct_json_array_begin(&j);
	for (i = 0; i < d->L.nlookups; i++) {
		const struct ct_lookup *k = d->L.lookups[i];

		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "name", k->name);
		if (k->expanded && strcmp(k->expanded, k->name) != 0)
			ct_json_kv_string(&j, "expanded", k->expanded);
		ct_json_kv_string(&j, "path", k->object ? k->object->path : NULL);
		ct_json_kv_string(&j, "requested_by", k->requester->path);
		ct_json_kv_string(&j, "found_via", ct_rule_id(k->found_via));
		ct_json_kv_string(&j, "via_object", k->via_owner ? k->via_owner->path : NULL);
		ct_json_kv_u64(&j, "depth", d->depth[k->requester->index] + 1);
		ct_json_kv_bool(&j, "preload", k->preload);
		ct_json_kv_string(&j, "soname", k->object ? k->object->info.soname : NULL);
		ct_json_kv_string(&j, "error", k->error);
		if (k->new_object) {
			const struct ct_cuda_facts *c = ct_facts_get(d->facts, k->object->path);

			ct_json_key(&j, "cuda");
			if (c->cuda_library || c->nimages)
				ct_json_cuda_facts(&j, c);
			else
				ct_json_null(&j);
		}
		if (!k->object || d->verbose) {
			ct_json_key(&j, "candidates");
			ct_json_candidates(&j, k);
		}
		if (!k->object && !strchr(k->name, '/')) {
			struct ct_copies cs;

			ct_find_copies(&d->L, k, &cs);
			ct_json_key(&j, "copies");
			json_copies(&j, &cs);
			ct_copies_release(&cs);
		}
		ct_json_object_end(&j);
	}
	ct_json_array_end(&j);
	ct_json_key(&j, "symbol_versions");
	ct_json_gaps(&j, d->gaps, d->ngaps);
	{
		char why[4096];

		ct_json_kv_string(&j, "loader_error",
				  d->noexec    ? noexec_text(d, why, sizeof(why))
				  : d->L.fatal ? fatal_text(d->L.fatal, why, sizeof(why))
					       : NULL);
		ct_json_kv_string(&j, "dlopen_error",
				  d->execstack ? execstack_text(d, why, sizeof(why)) : NULL);
	}
	ct_json_object_end(&j);
	ct_json_finish(&j);
}

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

static int fail(const struct ldd *d, const char *msg)
{
	if (d->json) {
		struct ct_json j;

		ct_json_init(&j, stdout);
		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "schema", CT_SCHEMA_LDD);
		ct_json_kv_string(&j, "file", d->file);
		ct_json_kv_string(&j, "error", msg);
		ct_json_key(&j, "libraries");
		ct_json_array_begin(&j);
		ct_json_array_end(&j);
		ct_json_object_end(&j);
		ct_json_finish(&j);
	}
	ct_error("'%s': %s", d->file, msg);
	return CT_EXIT_BAD_INPUT;
}

int ct_cmd_ldd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		CT_COLOR_OPTION,
		{ "library-path", required_argument, NULL, 'L' },
		{ "preload", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ldd d;
	struct ct_loader_env env = { NULL, NULL };
	const char *why;
	int c, rc;
	size_t i;

	memset(&d, 0, sizeof(d));
	optind = 1;
	while ((c = getopt_long(argc, argv, "+qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			d.json = true;
			break;
		case 'v':
			d.verbose = true;
			break;
		case 'q':
			d.quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'L':
			env.library_path = optarg;
			break;
		case 'P':
			env.preload = optarg;
			break;
		case 'h':
			usage(stdout);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind != 1) {
		ct_error("ldd takes one FILE");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (ct_cmd_no_stdin("ldd", argv + optind, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	d.file = argv[optind];
	/* The file's own device code is read while the loader is asked. */
	/* Threads beside this one (the headers of cuBLASLt's 5,737 images take ms). */
	d.facts = ct_facts_start(ct_threads(4) - 1);
	if (starts_elf(d.file))
		ct_facts_add(d.facts, d.file, NULL);
	rc = ct_loader_open(&d.L, d.file, &env, &why);
	if (rc < 0) {
		ct_facts_stop(d.facts);
		return fail(&d, why);
	}
	if (rc == 1) {
		ct_facts_stop(d.facts);
		if (d.json) {
			struct ct_json j;

			ct_json_init(&j, stdout);
			ct_json_object_begin(&j);
			ct_json_kv_string(&j, "schema", CT_SCHEMA_LDD);
			ct_json_kv_string(&j, "file", d.file);
			ct_json_kv_string(&j, "error", NULL);
			ct_json_kv_bool(&j, "static", true);
			ct_json_key(&j, "libraries");
			ct_json_array_begin(&j);
			ct_json_array_end(&j);
			ct_json_object_end(&j);
			ct_json_finish(&j);
		} else {
			ct_tprintf(stdout, "%s: statically linked, it loads no shared library at start\n",
			       d.file);
		}
		return CT_EXIT_OK;
	}
	ct_loader_load_all(&d.L);
	for (i = 0; i < d.L.nlookups; i++)
		if (d.L.lookups[i]->new_object)
			ct_facts_add(d.facts, d.L.lookups[i]->object->path,
				     d.L.lookups[i]->object->info.soname
					     ? d.L.lookups[i]->object->info.soname
					     : "");

	d.depth = ct_xcalloc(d.L.nobjs + 1, sizeof(*d.depth));
	for (i = 0; i < d.L.nlookups; i++) {
		const struct ct_lookup *k = d.L.lookups[i];

		if (k->new_object)
			d.depth[k->object->index] = d.depth[k->requester->index] + 1;
		d.not_found += !k->object;
	}
	d.gaps = ct_version_gaps(&d.L, &d.ngaps);
	{
		const char *refused;

		d.noexec = ct_loader_check_file(&d.L, d.file, &refused) == CT_NOT_ELF &&
			   refused == ct_noexec_why;
	}
	d.execstack = dlopen_execstack(&d.L);
	if (d.json)
		print_json(&d);
	else
		print_text(&d);
	rc = d.not_found || d.ngaps || d.L.fatal || d.noexec || d.execstack ? CT_EXIT_FINDING
									      : CT_EXIT_OK;
	ct_version_gaps_free(d.gaps, d.ngaps);
	free(d.depth);
	ct_facts_stop(d.facts);
	ct_loader_release(&d.L);
	return rc;
}

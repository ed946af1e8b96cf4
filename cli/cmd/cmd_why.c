/*
 * cudatrace why: how the loader finds one library for one requester, step
 * by step: every candidate with its rule and outcome, the winner, what the
 * winner shadows later in the order, and the copies on this machine that
 * were not on the path (other directories, pip wheels, conda, CUDA
 * toolkits, other majors).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copies.h"
#include "util.h"
#include "commands.h"
#include "describe.h"
#include "explain.h"
#include "json.h"
#include "schema.h"
#include "resolve.h"
#include "text.h"

struct why {
	struct ct_loader L;
	bool json, quiet, verbose;
	const char *from, *name;
	struct ct_lobj *req;
	struct ct_lookup *answer;  /* what the process gets (maybe already loaded) */
	struct ct_lookup *search;  /* the search, exhaustive */
	size_t reached;            /* candidates up to the winner */
	struct ct_copies copies;
	struct ct_version_gap *gaps;
	size_t ngaps;
};

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace why [--from OBJECT] [--json] [-q] [-v] [--library-path PATH]\n"
		"                     [--preload LIST] NAME\n"
		"\n"
		"How the dynamic loader finds NAME (a soname such as libcudart.so.12, or a\n"
		"path) when OBJECT asks for it, in this environment: every candidate in\n"
		"order with its rule and outcome, the file it takes, what that file shadows,\n"
		"and the copies on this machine that were not on the path. Without --from,\n"
		"as a program with no RPATH or RUNPATH of its own would dlopen it.\n"
		"Nothing is run.\n"
		"\n"
		"  --from OBJECT        the program or library that asks (its own\n"
		"                       dependencies are loaded first, as they would be)\n"
		"  --json               one JSON document on stdout\n"
		"  -q, --quiet          the answer alone: the file taken and the rule, or\n"
		"                       not found (and a symbol version it lacks)\n"
		"  -v, --verbose        also every candidate after the one taken, with its\n"
		"                       outcome (else only the files it shadows)\n"
		"  --library-path PATH  judge as if LD_LIBRARY_PATH were PATH ('' for unset)\n"
		"  --preload LIST       judge as if LD_PRELOAD were LIST ('' for unset)\n"
		"  --color[=WHEN]       taken by every command; why prints no colour\n"
		"\n"
		"exit status: 0 found, 1 not found (or the file found lacks a symbol version\n"
		"the requester needs), 2 bad input\n");
}

static const char *winner(const struct why *w)
{
	return w->answer->object ? w->answer->object->path : w->search->path;
}

/* A later candidate that exists and is not the winner under another path. */
static bool shadows(const struct why *w, const struct ct_cand *c)
{
	struct stat a, b;

	if (c->outcome != CT_FOUND && c->outcome != CT_WRONG_CLASS &&
	    c->outcome != CT_WRONG_MACHINE)
		return false;
	return !winner(w) || stat(winner(w), &a) != 0 || stat(c->path, &b) != 0 ||
	       a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

/* ---- text ---------------------------------------------------------------- */

/* -q: the answer alone, "=> PATH [rule]" or "=> not found: NAME: why". */
static void print_answer(const struct why *w)
{
	const struct ct_lookup *a = w->answer;
	char rule[256];

	if (!winner(w)) {
		ct_tprintf(stdout, "=> not found: %s: %s\n", w->name,
			   a->error ? a->error : "cannot open shared object file");
		return;
	}
	ct_tprintf(stdout, "=> %s", winner(w));
	if (!a->object || a->new_object)
		ct_tprintf(stdout, " [%s]", ct_rule_text(a->found_via, a->via_owner, rule, sizeof(rule)));
	else
		ct_tprintf(stdout, " [already loaded]");
	ct_tprintf(stdout, "\n");
}

static void print_text(struct why *w)
{
	const struct ct_lookup *s = w->search, *a = w->answer;
	char rule[256];
	size_t i, later = 0;

	if (w->quiet) {
		print_answer(w);
		for (i = 0; i < w->ngaps; i++) {
			ct_tprintf(stdout, "\n");
			ct_print_gap(stdout, &w->gaps[i]);
		}
		return;
	}
	if (w->from)
		ct_tprintf(stdout, "%s, as %s asks for it", w->name, w->from);
	else
		ct_tprintf(stdout, "%s, as dlopen finds it for a program with no RPATH or RUNPATH", w->name);
	if (w->L.ld_library_path)
		ct_tprintf(stdout, " (LD_LIBRARY_PATH=%s)", w->L.ld_library_path);
	ct_tprintf(stdout, ":\n");
	ct_print_foreign_interp(stdout, &w->L);
	ct_print_cwd_entries(stdout, &w->L);
	if (a->found_via == CT_RULE_ALREADY_LOADED) {
		const struct ct_lobj *o = a->object;

		ct_tprintf(stdout, "  already loaded: %s", o->path);
		if (o->is_rtld)
			ct_tprintf(stdout, " (the dynamic loader)\n");
		else if (o->loader)
			ct_tprintf(stdout, " (loaded for %s, %s)\n", ct_lobj_name(o->loader, true),
			       o->preload ? "LD_PRELOAD"
					  : ct_rule_text(o->found_via, o->via_owner, rule,
							 sizeof(rule)));
		else
			ct_tprintf(stdout, "\n");
		ct_tprintf(stdout, "  the loader takes it without searching; a search of its own would try:\n");
	}
	if (!s->ncands)
		ct_tprintf(stdout, "  no candidate: %s\n", s->error ? s->error : "nothing to try");
	{
		struct ct_lookup reached = *s;

		reached.ncands = w->reached < s->ncands ? w->reached : s->ncands;
		ct_print_lookup_candidates(stdout, &reached, "  ");
	}
	if (winner(w)) {
		struct ct_cuda_facts c;

		ct_cuda_facts_read(&c, winner(w));
		ct_tprintf(stdout, "=> %s", winner(w));
		if (!a->object || a->new_object)
			ct_tprintf(stdout, " [%s]", ct_rule_text_at(a->found_via, a->via_owner, winner(w), rule, sizeof(rule)));
		ct_tprintf(stdout, "\n");
		ct_print_cuda_facts(stdout, &c, "   ");
		if (a->object && a->object->info.execstack && ct_loader_refuses_execstack(&w->L))
			ct_tprintf(stdout, "   it asks for an executable stack: glibc %s refuses it to a "
				   "dlopen (the start of a program still grants one); patchelf "
				   "--clear-execstack it\n",
				   w->L.plat.version);
	} else {
		ct_tprintf(stdout, "=> not found: %s: %s\n", w->name,
		       a->error ? a->error : "cannot open shared object file");
		if (a->error == ct_noexec_why && a->ncands)
			ct_tprintf(stdout, "   %s is on a file system mounted noexec: the loader "
				   "cannot map its code\n", a->cands[a->ncands - 1].path);
		ct_print_driver_missing(stdout, w->name, a, "   ");
	}
	/* -v: every candidate after the winner, each with its outcome, numbered on. */
	for (i = w->reached; w->verbose && winner(w) && i < s->ncands; i++) {
		const struct ct_cand *c = &s->cands[i];

		if (!later++)
			ct_tprintf(stdout, "\nlater in the order, never reached:\n");
		ct_rule_text(c->via, c->owner, rule, sizeof(rule));
		ct_tprintf(stdout, "  %2zu. %s  %s  %s%s\n", i + 1, c->path[0] ? c->path : "ld.so.cache",
			   rule, ct_cand_words(c), shadows(w, c) ? " (shadowed)" : "");
	}
	for (i = w->reached; !w->verbose && i < s->ncands; i++) {
		const struct ct_cand *c = &s->cands[i];

		if (!shadows(w, c))
			continue;
		if (!later++)
			ct_tprintf(stdout, "\nlater in the order, never reached (shadowed):\n");
		ct_rule_text(c->via, c->owner, rule, sizeof(rule));
		ct_tprintf(stdout, "  %s [%s]%s\n", c->path, rule,
		       c->outcome == CT_FOUND ? "" : " (another ELF class or machine: skipped)");
	}
	if (w->copies.n) {
		ct_tprintf(stdout, "\nelsewhere on this machine, not on the path:\n");
		for (i = 0; i < w->copies.n; i++) {
			const struct ct_copy *c = &w->copies.c[i];

			/* The version says more than the name asked only past its major. */
			bool ver = c->version[0] && (!c->same_name || strchr(c->version, '.'));

			ct_tprintf(stdout, "  %s (%s%s%s%s)\n", c->path, c->same_name ? "" : "another major, ",
			       ver ? c->version : "", ver ? ", " : "", c->where);
		}
	} else {
		ct_tprintf(stdout, "\nno copy of %s elsewhere (the cache's directories, pip wheels, conda,\n"
		       "CUDA toolkits), nor another major of it\n", w->name);
	}
	if (!winner(w)) {
		const struct ct_copy *same = NULL;

		for (i = 0; i < w->copies.n && !same; i++)
			if (w->copies.c[i].same_name)
				same = &w->copies.c[i];
		if (same) {
			char *dir = ct_xstrdup(same->path);

			*strrchr(dir, '/') = '\0';
			ct_tprintf(stdout, "\nto use %s: put %s on LD_LIBRARY_PATH,\n"
			       "or into the RUNPATH of %s\n",
			       same->path, dir, w->from ? w->from : "the program");
			free(dir);
		} else if (w->copies.n) {
			ct_tprintf(stdout, "\nonly other majors of it are here: what asks for %s was built against\n"
			       "that major; install it, or rebuild against the one present\n",
			       w->name);
		}
	}
	for (i = 0; i < w->ngaps; i++) {
		ct_tprintf(stdout, "\n");
		ct_print_gap(stdout, &w->gaps[i]);
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static void print_json(struct why *w)
{
	const struct ct_lookup *s = w->search, *a = w->answer;
	struct ct_lookup reached = *s, shadow = *s;
	struct ct_json j;
	size_t i;

	/* The candidates up to the winner, then the ones it shadows. */
	reached.ncands = w->reached < s->ncands ? w->reached : s->ncands;
	shadow.cands = s->cands + reached.ncands;
	shadow.ncands = s->ncands - reached.ncands;
	ct_json_init(&j, stdout);
	ct_json_object_begin(&j);
	ct_json_kv_string(&j, "schema", CT_SCHEMA_WHY);
	ct_json_kv_string(&j, "name", w->name);
	ct_json_kv_string(&j, "error", NULL);
	ct_json_kv_string(&j, "path", winner(w));
	ct_json_kv_string(&j, "requested_by", w->from);
	ct_json_kv_string(&j, "found_via", ct_rule_id(a->found_via));
	ct_json_kv_string(&j, "via_object", a->via_owner ? a->via_owner->path : NULL);
	ct_json_kv_string(&j, "loaded_for",
			  a->object && !a->new_object && a->object->loader
				  ? a->object->loader->path
				  : NULL);
	ct_json_kv_string(&j, "search_found_via", s->path ? ct_rule_id(s->found_via) : NULL);
	ct_json_kv_string(&j, "search_path", s->path);
	ct_json_kv_string(&j, "load_error", winner(w) ? NULL
				 : a->error ? a->error : "cannot open shared object file");
	ct_json_key(&j, "candidates");
	ct_json_candidates(&j, &reached);
	/* Later candidates that exist: what the winner shadows. */
	ct_json_key(&j, "shadowed");
	ct_json_array_begin(&j);
	for (i = 0; i < shadow.ncands; i++) {
		const struct ct_cand *c = &shadow.cands[i];

		if (!shadows(w, c))
			continue;
		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "path", c->path);
		ct_json_kv_string(&j, "via", ct_rule_id(c->via));
		ct_json_kv_string(&j, "via_object", c->owner ? c->owner->path : NULL);
		ct_json_kv_string(&j, "outcome", ct_outcome_id(c->outcome));
		ct_json_object_end(&j);
	}
	ct_json_array_end(&j);
	ct_json_key(&j, "copies");
	ct_json_array_begin(&j);
	for (i = 0; i < w->copies.n; i++) {
		const struct ct_copy *c = &w->copies.c[i];

		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "path", c->path);
		ct_json_kv_string(&j, "where", c->where);
		ct_json_kv_string(&j, "version", c->version[0] ? c->version : NULL);
		ct_json_kv_bool(&j, "same_name", c->same_name);
		ct_json_object_end(&j);
	}
	ct_json_array_end(&j);
	ct_json_key(&j, "cuda");
	if (winner(w)) {
		struct ct_cuda_facts c;

		ct_cuda_facts_read(&c, winner(w));
		if (c.cuda_library || c.nimages)
			ct_json_cuda_facts(&j, &c);
		else
			ct_json_null(&j);
	} else {
		ct_json_null(&j);
	}
	ct_json_key(&j, "symbol_versions");
	ct_json_gaps(&j, w->gaps, w->ngaps);
	ct_json_foreign_interp(&j, &w->L);
	ct_json_object_end(&j);
	ct_json_finish(&j);
}

static int fail(const struct why *w, const char *subject, const char *msg)
{
	if (w->json) {
		struct ct_json j;

		ct_json_init(&j, stdout);
		ct_json_object_begin(&j);
		ct_json_kv_string(&j, "schema", CT_SCHEMA_WHY);
		ct_json_kv_string(&j, "name", w->name);
		ct_json_kv_string(&j, "error", msg);
		ct_json_kv_string(&j, "path", NULL);
		ct_json_kv_string(&j, "requested_by", w->from);
		ct_json_kv_string(&j, "found_via", NULL);
		ct_json_object_end(&j);
		ct_json_finish(&j);
	}
	ct_error("'%s': %s", subject, msg);
	return CT_EXIT_BAD_INPUT;
}

/* Only the gaps between the requester and what it gets for this name. */
static void own_gaps(struct why *w)
{
	struct ct_version_gap *all;
	size_t n, i;

	all = ct_version_gaps(&w->L, &n);
	for (i = 0; i < n; i++) {
		if (all[i].requester == w->req && w->answer->object &&
		    all[i].lacking == w->answer->object) {
			w->gaps = ct_xrealloc(w->gaps, (w->ngaps + 1) * sizeof(*w->gaps));
			w->gaps[w->ngaps++] = all[i];
			all[i].having = NULL;
		}
	}
	ct_version_gaps_free(all, n);
}

int ct_cmd_why(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CT_COLOR_OPTION,
		{ "library-path", required_argument, NULL, 'L' },
		{ "preload", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct why w;
	struct ct_loader_env env = { NULL, NULL };
	const char *why;
	int c, rc;
	size_t i;

	memset(&w, 0, sizeof(w));
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			w.quiet = true;
			break;
		case 'v':
			w.verbose = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'f':
			w.from = optarg;
			break;
		case 'j':
			w.json = true;
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
	if (argc - optind != 1 || !argv[optind][0]) {
		ct_error("why takes one library NAME");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (w.from && ct_cmd_no_stdin("why --from", (char *const *)&w.from, 1) != 0)
		return CT_EXIT_BAD_INPUT;
	w.name = argv[optind];
	rc = ct_loader_open(&w.L, w.from, &env, &why);
	if (rc < 0)
		return fail(&w, w.from, why);
	if (rc == 1)
		return fail(&w, w.from, "statically linked: it loads no shared library");
	w.req = w.L.main;
	/* What the requester brings first: preloads and its own dependencies. */
	ct_loader_load_all(&w.L);
	/* A name the requester itself needs was answered while loading it. */
	for (i = 0; i < w.L.nlookups && !w.answer; i++)
		if (w.L.lookups[i]->requester == w.req && strcmp(w.L.lookups[i]->name, w.name) == 0)
			w.answer = w.L.lookups[i];
	if (!w.answer)
		w.answer = ct_loader_lookup(&w.L, w.req, w.name);
	w.search = ct_loader_search(&w.L, w.req, w.name, true);
	/* The winner of the search, or all of it when nothing was found. */
	w.reached = w.search->ncands;
	for (i = 0; i < w.search->ncands; i++)
		if (w.search->cands[i].outcome == CT_FOUND ||
		    w.search->cands[i].outcome == CT_NOT_ELF) {
			w.reached = i + 1;
			break;
		}
	ct_find_copies(&w.L, w.search, &w.copies);
	own_gaps(&w);
	if (w.json)
		print_json(&w);
	else
		print_text(&w);
	/* Found is not enough when the file lacks a version the requester needs. */
	rc = winner(&w) && !w.ngaps ? CT_EXIT_OK : CT_EXIT_FINDING;
	for (i = 0; i < w.ngaps; i++)
		free(w.gaps[i].having);
	free(w.gaps);
	ct_copies_release(&w.copies);
	ct_lookup_free(w.search);
	ct_loader_release(&w.L);
	return rc;
}

/*
 * libFuzzer target for the trace reader and the report (cli/trace/,
 * cli/diagnose/, cli/model/, cli/render/): the input is a folder of JSONL traces, the
 * files separated by a line holding only the byte 0x1e (ASCII record
 * separator), at most 8 of them. They are written into a private folder,
 * read with ct_trace_read_dir and ct_trace_link, diagnosed on a made-up
 * x86-64 machine (no ld.so.cache, a default directory that does not
 * exist), made a report model and printed as text and as JSON into
 * memory; the JSON read back into a model (model_read.c) and written
 * again, twice, says the same the second time as the first (the first
 * pass may only spell a byte that is not UTF-8 as its character, as JSON
 * reads \u00XX). ASan and UBSan find
 * the overreads; the checks turn broken invariants into crashes.
 *
 *   make fuzz-trace FUZZ_SECONDS=60   (seeds: tests/fuzz/seeds trace)
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonparse.h"
#include "report.h"
#include "report_model.h"
#include "resolve.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 8

static char dir[64];
static struct ct_loader machine;

static void setup(void)
{
	static char sysdir[] = "/nonexistent/cudatrace-fuzz/lib";
	static char *dirs[] = { sysdir };
	struct ct_loader like;
	struct ct_loader_env env = { "", "" };
	int err = 0;

	snprintf(dir, sizeof(dir), "/tmp/fuzz_trace.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	memset(&like, 0, sizeof(like));
	like.plat.rtld = (char *)"/lib64/ld-linux-x86-64.so.2";
	like.plat.lib = (char *)"lib";
	like.plat.platform = (char *)"x86_64";
	like.plat.version = (char *)"2.36";
	like.plat.major = 2;
	like.plat.minor = 36;
	like.plat.system_dirs = dirs;
	like.plat.nsystem_dirs = 1;
	like.plat.cache = (char *)"/nonexistent/cudatrace-fuzz/ld.so.cache";
	like.plat.machine = EM_X86_64;
	like.plat.elf_class = 64;
	like.plat.from_loader = true;
	ct_loader_init_like(&machine, &like, &env);
	if (!ct_loader_start(&machine, NULL, &err))
		abort();
}

static void write_file(int i, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/h-%d-%016x.jsonl", dir, 100 + i, i);
	if (!(f = fopen(path, "wb")) || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		abort();
}

static void remove_files(void)
{
	char path[128];
	int i;

	for (i = 0; i < MAX_FILES; i++) {
		snprintf(path, sizeof(path), "%s/h-%d-%016x.jsonl", dir, 100 + i, i);
		unlink(path);
	}
}

static void check(const struct ct_trace *t)
{
	size_t i, j;

	if (t->nprocs > MAX_FILES || t->nprocs + t->bad_files > MAX_FILES)
		__builtin_trap();
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];

		if (i && t->procs[i - 1].t > p->t)
			__builtin_trap();
		if (p->parent && (p->parent < t->procs || p->parent >= t->procs + t->nprocs ||
				  p->parent == p))
			__builtin_trap();
		for (j = 0; j < p->nsearches; j++) {
			const struct ct_search *s = &p->searches[j];

			if (s->found && (s->found < p->objects || s->found >= p->objects + p->nobjects))
				__builtin_trap();
			if (s->request && s->request->search != s)
				__builtin_trap();
		}
		for (j = 0; j < p->nobjects; j++)
			if (p->objects[j].search && p->objects[j].search->found == NULL)
				__builtin_trap();
		if (p->limited && !p->limit)
			__builtin_trap();
	}
}

/* A report document read back into its model and written again; malloc'd. */
static char *written_back(const char *json, size_t n)
{
	struct ct_report_model m;
	const struct ct_jv *doc;
	struct ct_arena a;
	char why[512], *out = NULL;
	size_t nout = 0;
	FILE *f;

	ct_arena_init(&a);
	doc = ct_json_parse(&a, json, n, NULL);
	if (!doc || ct_report_model_read(&m, doc, why, sizeof(why)) != 0)
		__builtin_trap();
	ct_arena_release(&a);
	f = open_memstream(&out, &nout);
	if (!f)
		abort();
	ct_report_json(f, &m);
	fclose(f);
	ct_report_model_release(&m);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_report_model_options o;
	struct ct_report_model m;
	struct ct_report_view v;
	struct ct_trace t;
	const uint8_t *p = data, *end = data + size;
	char why[512], *text = NULL, *json = NULL;
	size_t ntext = 0, njson = 0;
	FILE *ft, *fj;
	int i;

	if (!dir[0])
		setup();
	remove_files();
	/* The files: the input split at each "\n\x1e\n". */
	for (i = 0; i < MAX_FILES && p <= end; i++) {
		const uint8_t *sep = NULL, *q;

		for (q = p; q + 3 <= end; q++)
			if (q[0] == '\n' && q[1] == 0x1e && q[2] == '\n') {
				sep = q;
				break;
			}
		write_file(i, p, (size_t)((sep ? sep + 1 : end) - p));
		if (!sep)
			break;
		p = sep + 3;
	}
	ct_trace_init(&t);
	if (ct_trace_read_dir(&t, dir, why, sizeof(why)) != 0)
		abort();
	ct_trace_link(&t);
	check(&t);
	memset(&o, 0, sizeof(o));
	o.machine = &machine;
	o.verbose = size % 2;
	o.json = true;
	memset(&v, 0, sizeof(v));
	v.verbose = o.verbose;
	ct_report_model_build(&m, &t, &o);
	ft = open_memstream(&text, &ntext);
	fj = open_memstream(&json, &njson);
	if (!ft || !fj)
		abort();
	ct_report_text(ft, &m, &v);
	ct_report_json(fj, &m);
	fclose(ft);
	fclose(fj);
	ct_report_model_release(&m);
	/* The JSON report is one document, even of a broken trace: our own parser reads it. */
	{
		char *again = written_back(json, njson), *third = written_back(again, strlen(again));

		if (strcmp(again, third) != 0)
			__builtin_trap();
		free(again);
		free(third);
	}
	free(text);
	free(json);
	ct_trace_release(&t);
	return 0;
}

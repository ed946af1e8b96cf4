/*
 * The trace and its processes (trace.h): made and freed, the arrays every
 * piece of the reader grows (trace_internal.h), and what a process's
 * start record says in words (its command, environment, rank, other
 * auditors; a module's archs). Reading is in read_dir.c, read_file.c,
 * records.c, decode.c and searches.c; joining in link.c; runs and jobs in
 * runs.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mask.h"
#include "trace_internal.h"

void ct_trace_init(struct ct_trace *t)
{
	memset(t, 0, sizeof(*t));
	ct_arena_init(&t->arena);
	ct_intern_init(&t->strings, &t->arena);
}

void ct_trace_proc_release(struct ct_proc *p)
{
	size_t i;

	for (i = 0; i < p->nsearches; i++)
		free(p->searches[i].tries);
	free(p->objects);
	free(p->searches);
	free(p->requests);
	free(p->modules);
	free(p->execs);
}

void ct_trace_release(struct ct_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		ct_trace_proc_release(&t->procs[i]);
	free(t->procs);
	free(t->runs); /* their strings are in the arena */
	free(t->job_notes); /* their lists too */
	HASH_CLEAR(hh, t->stats); /* the entries are in the arena */
	ct_intern_release(&t->strings);
	ct_arena_release(&t->arena);
	memset(t, 0, sizeof(*t));
}

void *ct_trace_grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	if (n > SIZE_MAX / 2 / size)
		ct_out_of_memory();
	return ct_xrealloc(arr, (n ? n * 2 : 1) * size);
}

void *ct_trace_fit(void *arr, size_t n, size_t size)
{
	return arr && n ? ct_xrealloc(arr, n * size) : arr;
}

/* The first member of that name, as the JSON reader's lookups took it. */
static const char *var_value(const struct ct_var *vars, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(vars[i].name, name) == 0)
			return vars[i].value;
	return NULL;
}

const char *ct_proc_env(const struct ct_proc *p, const char *name)
{
	return var_value(p->env, p->nenv, name);
}

void ct_proc_command(const struct ct_proc *p, char *buf, size_t size, size_t width)
{
	size_t n = 0, i;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; i < p->argc && n + 1 < size; i++) {
		/* Shown and shared: secrets masked (mask.h). */
		char *m = ct_mask_arg(p->argv, i);
		const char *s = m ? m : p->argv[i];

		if (i == 0 && strrchr(s, '/'))
			s = strrchr(s, '/') + 1;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", s);
		free(m);
	}
	if (!buf[0]) {
		const char *s = p->exe && strrchr(p->exe, '/') ? strrchr(p->exe, '/') + 1 : p->exe;

		snprintf(buf, size, "%s", s ? s : "?");
	}
	if (width >= 4 && width < size && strlen(buf) > width)
		strcpy(buf + width - 3, "...");
}

void ct_images_words(const struct ct_module *m, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < m->nimages; i++) {
		const char *a = m->images[i].arch ? m->images[i].arch : "?";

		if (ct_word_in(buf, a)) /* once each */
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
				      n ? " " : "", a);
		if (n >= size)
			break;
	}
}

const char *ct_proc_other_auditors(const struct ct_proc *p, char *buf, size_t size)
{
	const char *list = ct_proc_env(p, "LD_AUDIT");
	size_t n = 0;
	bool shim_seen = false;

	if (!size)
		return buf;
	buf[0] = '\0';
	while (list && *list) {
		size_t len = strcspn(list, ": ");
		const char *b = memrchr(list, '/', len);
		size_t blen = b ? len - (size_t)(b + 1 - list) : len;

		if (len && blen == strlen("libcudatrace.so") &&
		    strncmp(b ? b + 1 : list, "libcudatrace.so", blen) == 0 && !shim_seen) {
			shim_seen = true;
		} else if (len && n + 1 < size) {
			n += (size_t)snprintf(buf + n, size - n, "%s%.*s", n ? ":" : "", (int)len, list);
			if (n >= size)
				n = size - 1;
		}
		list += len;
		list += strspn(list, ": ");
	}
	return buf;
}

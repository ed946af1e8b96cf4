/*
 * Which processes, in words, by job, host and rank (model_internal.h):
 * "ranks 1 and 2 on node1, rank 3 on node2", "ranks 0-127 on node1",
 * "job 4243.0: ranks 0 and 1; job 4244.0: rank 0". On a cluster a count
 * ("2 more processes") leaves its reader asking where they ran; a pid is
 * on every host, a rank number in every job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

/* Groups (a job on a host) named before the rest are counted. */
#define GROUPS_MAX 8

/* Processes without a rank named by pid up to this many in a group; counted past it. */
#define PIDS_MAX 3

struct entry {
	const char *job, *host, *rank;
	long long num;              /* the rank as a number; -1: none, or not a number */
	int64_t pid;
};

/* The rank as a number (ranks sort as numbers: 2 before 10), or -1. */
static long long rank_number(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end ? -1 : v;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* By job, host, then rank (numbers first, ascending), then pid. */
static int cmp_entries(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c;

	if ((c = cmp_str(a->job, b->job)) || (c = cmp_str(a->host, b->host)))
		return c;
	if ((a->num < 0) != (b->num < 0))
		return a->num < 0 ? 1 : -1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if ((c = cmp_str(a->rank, b->rank)))
		return c;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* Does e[i] start another group (job and host) than e[i - 1]? */
static bool new_group(const struct entry *e, size_t i)
{
	return i == 0 || cmp_str(e[i].job, e[i - 1].job) || cmp_str(e[i].host, e[i - 1].host);
}

/* "a, b and c" of items said one by one: the separator before the k-th of n. */
static const char *sep(size_t k, size_t n)
{
	return k == 0 ? "" : k + 1 == n ? " and " : ", ";
}

/* The longest rank said as it is (a number, or what the launcher wrote). */
#define RANK_WORD 48

/*
 * One group's ranks, each once, ascending: runs of three or more
 * consecutive numbers as "a-b" ("ranks 0-3, 5 and 7"); then its processes
 * without a rank, by pid. e is sorted (cmp_entries).
 */
static void group_words(FILE *out, const struct entry *e, size_t n)
{
	char (*items)[RANK_WORD] = ct_xcalloc(n + 1, sizeof(*items));
	size_t i = 0, j, nitems = 0, ranks = 0, unranked = 0, said = 0;

	while (i < n) {
		if (!e[i].rank) {
			unranked++;
			i++;
			continue;
		}
		j = i + 1;
		if (e[i].num >= 0) {
			long long first = e[i].num, last = first;

			/* The same rank again (a rank's children, a restarted worker) is one. */
			for (;;) {
				while (j < n && e[j].num == last)
					j++;
				if (j >= n || e[j].num != last + 1)
					break;
				last++;
			}
			if (last - first >= 2) {
				snprintf(items[nitems++], RANK_WORD, "%lld-%lld", first, last);
				ranks += (size_t)(last - first + 1);
				i = j;
				continue;
			}
			for (j = i + 1; j < n && e[j].num == first; j++)
				;
		} else {
			while (j < n && e[j].rank && strcmp(e[j].rank, e[i].rank) == 0)
				j++;
		}
		snprintf(items[nitems++], RANK_WORD, "%.40s", e[i].rank);
		ranks++;
		i = j;
	}
	if (nitems)
		fprintf(out, "rank%s ", ranks > 1 ? "s" : "");
	for (i = 0; i < nitems; i++)
		fprintf(out, "%s%s", sep(i, nitems), items[i]);
	free(items);
	if (!unranked)
		return;
	fprintf(out, "%s", nitems ? " and " : "");
	if (unranked > PIDS_MAX) {
		fprintf(out, "%zu processes", unranked);
		return;
	}
	fprintf(out, "process%s ", unranked > 1 ? "es" : "");
	for (i = 0; i < n; i++)
		if (!e[i].rank)
			fprintf(out, "%s%lld", sep(said++, unranked), (long long)e[i].pid);
}

const char *ct_rm_ranks_words(struct ct_rm_build *b, const struct ct_proc *const *procs, size_t n,
			      bool hosts)
{
	struct entry *e = ct_xcalloc(n ? n : 1, sizeof(*e));
	size_t i, k, said = 0;
	bool jobs = false;
	char *text = NULL;
	size_t len = 0;
	const char *kept;
	FILE *out;

	for (i = 0; i < n; i++) {
		e[i].job = ct_proc_job(procs[i], NULL);
		e[i].host = hosts ? procs[i]->host : NULL;
		e[i].rank = ct_proc_rank(procs[i]);
		e[i].num = rank_number(e[i].rank);
		e[i].pid = procs[i]->pid;
		jobs = jobs || cmp_str(e[i].job, e[0].job) != 0;
	}
	qsort(e, n, sizeof(*e), cmp_entries);
	if (!(out = open_memstream(&text, &len)))
		ct_out_of_memory();
	for (i = 0; i < n && said < GROUPS_MAX; i = k, said++) {
		for (k = i + 1; k < n && !new_group(e, k); k++)
			;
		/* Several jobs: each one's groups under its id, "job 4243.0: ...; job 4244.0: ...". */
		if (jobs && (i == 0 || cmp_str(e[i].job, e[i - 1].job)))
			fprintf(out, "%sjob %s: ", i ? "; " : "", e[i].job ? e[i].job : "none");
		else if (i)
			fprintf(out, ", ");
		group_words(out, e + i, k - i);
		if (e[i].host)
			fprintf(out, " on %s", e[i].host);
	}
	if (i < n)
		fprintf(out, "%s%zu more process%s", jobs ? "; and " : " and ", n - i,
			n - i == 1 ? "" : "es");
	if (fclose(out) != 0 || !text)
		ct_out_of_memory();
	kept = ct_rm_keep(b->m, text);
	free(text);
	free(e);
	return kept;
}

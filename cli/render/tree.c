/* The library tree of a process, laid out; see tree.h. */
#include <stdio.h>

#include "facts.h"
#include "text.h"
#include "tree.h"

/*
 * Lines of the tree still to print (the default report stays on one
 * screen; -v prints all), and the libraries left out.
 */
struct budget {
	size_t left, hidden;
};

/* The nodes [from, end) of tr: the children of one node, each with its subtree. */
static void print_nodes(FILE *out, const struct ct_rm_tree *tr, size_t from, size_t end,
			const char *prefix, struct budget *b)
{
	size_t c;

	for (c = from; c < end; c = tr->nodes[c].end) {
		const struct ct_rm_node *n = &tr->nodes[c];
		char next[256], times[48] = "";
		bool last = n->end == end;

		if (n->times > 1)
			snprintf(times, sizeof(times), ", loaded %zu times", n->times);
		/* Past the budget, what a finding is about still shows, with the way to it. */
		if (b->left == 0 && !n->leads) {
			b->hidden++;
			snprintf(next, sizeof(next), "%s", prefix);
			print_nodes(out, tr, c + 1, n->end, next, b);
			continue;
		}
		b->left -= b->left > 0;
		ct_tprintf(out, "%s%s %s [%s%s%s%s%s%s%s%s%s]\n", prefix, last ? "`--" : "|--", n->path,
			   n->how, n->rule, n->what, n->version[0] ? ", version " : "", n->version,
			   n->other_namespace ? ", another namespace" : "", times,
			   n->failed_dlopen ? ", unloaded: the dlopen failed" : "", n->also);
		snprintf(next, sizeof(next), "%s%s", prefix, last ? "    " : "|   ");
		print_nodes(out, tr, c + 1, n->end, next, b);
	}
}

void ct_tree_print(FILE *out, const struct ct_rm_tree *tr, bool verbose)
{
	struct budget b = { verbose ? (size_t)-1 : CT_FACTS_TREE_LINES, 0 };
	size_t i;

	if (tr->state == CT_RM_TREE_PARTIAL) {
		/* ps left files out: none among those read is not none at all. */
		ct_tprintf(out, "  CUDA libraries: none among the mapped files read (%s)\n",
			   tr->partial);
		return;
	}
	if (tr->state == CT_RM_TREE_NONE) {
		ct_tprintf(out, "  CUDA libraries: none loaded\n");
		return;
	}
	ct_tprintf(out, "  %s\n", tr->main);
	print_nodes(out, tr, 0, tr->nnodes, "  ", &b);
	if (b.hidden)
		ct_tprintf(out, "  (%zu more in the tree: -v)\n", b.hidden);
	/* Objects whose asker is not in the trace (another namespace, a preload). */
	for (i = 0; i < tr->nalso; i++) {
		if (!i)
			ct_tprintf(out, "  also loaded:\n");
		ct_tprintf(out, "    %s [%s%s]\n", tr->also[i].path, tr->also[i].rule,
			   tr->also[i].also);
	}
}

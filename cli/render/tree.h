/*
 * A process's library tree, as the report prints it (tree.c), from the
 * report model (struct ct_rm_tree): each object under the object that
 * asked for it, the lines the model worked out laid out with their
 * branches.
 */
#ifndef CT_TREE_H
#define CT_TREE_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

/*
 * The tree under its program, cut at CT_FACTS_TREE_LINES lines unless
 * verbose (what a finding is about still shows, with the way to it), and
 * the objects whose asker is not in the trace ("also loaded").
 */
void ct_tree_print(FILE *out, const struct ct_rm_tree *tree, bool verbose);

#endif

/*
 * A process's library tree, as the report prints it (tree.c): each object
 * under the object that asked for it, the CUDA libraries, objects with
 * device code, objects a finding is about and their askers shown.
 */
#ifndef CT_TREE_H
#define CT_TREE_H

#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

struct ct_diagnosis;

/*
 * What every process's tree asks, kept for the trees of one trace: the
 * objects the findings of d name and those that asked for them, and what
 * a tree's line says of each library (its version, the name it really
 * has: the file's real path, read once). d may be NULL (no findings, no
 * device code). Borrows d and the trace's strings: free it before either
 * is released. Not thread-safe.
 */
struct ct_trees;
struct ct_trees *ct_trees_new(const struct ct_diagnosis *d);
void ct_trees_free(struct ct_trees *trees);

/*
 * p's library tree under its program, cut at CT_FACTS_TREE_LINES lines
 * unless verbose (what a finding is about still shows, with the way to
 * it), and the objects whose asker is not in the trace ("also loaded").
 * Costs what p's objects cost, not their square: a job's -v report prints
 * it for every rank.
 */
void ct_tree_print(FILE *out, const struct ct_proc *p, struct ct_trees *trees, bool verbose);

#endif

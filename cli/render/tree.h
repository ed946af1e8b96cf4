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
 * What the findings of a diagnosis are about (the objects they name and
 * those that asked for them), gathered once for every process of a
 * trace. d may be NULL (no findings, no device code). Borrows d and its
 * strings: free it before d is released.
 */
struct ct_tree_findings;
struct ct_tree_findings *ct_tree_findings_new(const struct ct_diagnosis *d);
void ct_tree_findings_free(struct ct_tree_findings *tf);

/*
 * p's library tree under its program, cut at CT_FACTS_TREE_LINES lines
 * unless verbose (what a finding is about still shows, with the way to
 * it), and the objects whose asker is not in the trace ("also loaded").
 * Costs what p's objects cost, not their square: a job's -v report prints
 * it for every rank.
 */
void ct_tree_print(FILE *out, const struct ct_proc *p, const struct ct_tree_findings *tf,
		   bool verbose);

#endif

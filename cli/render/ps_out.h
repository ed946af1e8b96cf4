/*
 * cudatrace ps without PIDs: one line per running process that maps a
 * CUDA library, with its CUDA runtime, cuBLAS, cuDNN and driver (version
 * and path); as text, Markdown or the JSON document cudatrace.ps/1. A
 * view of the list model (ps_list.h): it reads that and nothing else.
 */
#ifndef CT_PS_OUT_H
#define CT_PS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "ps_list.h"

enum ct_ps_format { CT_PS_TEXT, CT_PS_MARKDOWN, CT_PS_JSON };

/*
 * Print l; quiet: the text counts the processes that could not be read
 * in one line instead of listing them (the JSON lists them always).
 * Returns 0, or -1 when writing failed.
 */
int ct_ps_list_print(FILE *out, enum ct_ps_format format, const struct ct_ps_list *l, bool quiet);

#endif

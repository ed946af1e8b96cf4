/*
 * GitHub Actions workflow commands: annotations, one line each
 * (check --format github). The runner reads them from the step's output
 * and shows each on the file it names and in the run's summary.
 *
 * Every string is escaped twice, here and once: first as terminal text
 * (text.h: no control character, no byte that is not UTF-8, survives), then
 * as GitHub unescapes a workflow command: % as %25, CR as %0D, LF as %0A,
 * and in a property (file=, title=) also ':' as %3A and ',' as %2C. So a
 * hostile file name can neither end the line nor forge a command or a
 * property.
 */
#ifndef CT_GITHUB_H
#define CT_GITHUB_H

#include <stdio.h>

/*
 * "::LEVEL file=FILE,title=TITLE::LINE%0ALINE...\n" to out: one line of
 * output. level is "error", "warning" or "notice" (ours); file and title
 * may be NULL (left out). The message is the nlines strings of lines (the
 * empty ones skipped), each escaped on its own (a newline in one is "\n"),
 * joined by %0A: GitHub shows them as lines of one annotation. Returns 0,
 * or -1 when a write failed (the stream's error flag says so too).
 */
int ct_github_annotation(FILE *out, const char *level, const char *file, const char *title,
			 const char *const *lines, size_t nlines);

#endif

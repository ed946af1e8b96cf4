/*
 * GitHub Actions workflow commands: annotations, one line each
 * (check --format github). The runner reads them from the step's output
 * and shows each on the file it names and in the run's summary.
 *
 * Every string is escaped twice, here and nowhere else: first as GitHub
 * unescapes a workflow command (% as %25, CR as %0D, LF as %0A, and in a
 * property, file= or title=, also ':' as %3A and ',' as %2C), then as text
 * through ct_tprintf (text.h: other control characters and bytes that are
 * not UTF-8 written visibly). So a hostile file name can neither end the
 * line nor forge a command or a property, nor steer a terminal.
 */
#ifndef CT_GITHUB_H
#define CT_GITHUB_H

#include <stdio.h>

/*
 * "::LEVEL file=FILE,title=TITLE::LINE%0ALINE...\n" to out: one line of
 * output. level is "error", "warning" or "notice" (ours); file and title
 * may be NULL (left out). The message is the nlines strings of lines (the
 * empty ones skipped), joined by %0A: GitHub shows them as lines of one
 * annotation (a line break inside one is %0A too). Returns 0,
 * or -1 when a write failed (the stream's error flag says so too).
 */
int ct_github_annotation(FILE *out, const char *level, const char *file, const char *title,
			 const char *const *lines, size_t nlines);

#endif

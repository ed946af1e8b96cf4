/*
 * A report as GitHub-flavoured Markdown, to paste into an issue (report
 * --markdown, doctor --markdown): a heading, the verdict, the findings
 * (severity, code, message, where, fix, evidence), then sections of facts,
 * each collapsed in a <details> block. A section is what a text printer
 * writes (with the text's limits, or everything with -v), captured and
 * set in a fenced code block; so a command adds a section by giving its
 * printer the FILE of ct_md_section.
 *
 * Paths are shortened by one rule across the whole document: each
 * site-packages or dist-packages directory is named once ($SITE, $SITE2,
 * ...: the legend under the verdict says which), then the home directory
 * is written ~. Strings from the outside world are escaped for the
 * terminal first (text.h: one line of visible characters each), then for
 * where they stand: a code span, a fenced block, Markdown text or HTML.
 *
 * Ownership: struct ct_md owns what was written into its streams and
 * every string it keeps; ct_md_free frees them. Not thread-safe.
 */
#ifndef CT_MARKDOWN_H
#define CT_MARKDOWN_H

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"

struct ct_md;

/*
 * A new document. home: the directory written ~ (NULL, "" or "/": none);
 * copied. verbose: every line of a finding's evidence (else the text's
 * limits). Never NULL (out of memory ends the program, util.h).
 */
struct ct_md *ct_md_new(const char *home, bool verbose);

/*
 * The stream the verdict is written to, as text lines: the first becomes
 * the document's bold lead, the others a list under it. Owned by md.
 */
FILE *ct_md_verdict(struct ct_md *md);

/*
 * A new collapsed section titled title (ours, not the outside world's),
 * in the order opened: what is written to the stream, text as a text
 * printer writes it, goes into a fenced block. An empty section is left
 * out. Owned by md.
 */
FILE *ct_md_section(struct ct_md *md, const char *title);

/*
 * Write the document to out: "### <heading>", the verdict, the legend
 * of the names given to paths, each finding of fs (NULL: none), then the
 * sections. Closes md's streams: nothing may be written to them after.
 * Returns 0, or -1 when out is in error (the command's flush says why).
 */
int ct_md_write(struct ct_md *md, FILE *out, const char *heading,
		const struct ct_findings *fs);

void ct_md_free(struct ct_md *md);

#endif

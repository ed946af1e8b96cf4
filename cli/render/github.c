/* GitHub Actions annotations, escaped for GitHub; see github.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "github.h"
#include "text.h"
#include "util.h"

/* n bytes of s: escaped as terminal text, then as GitHub unescapes them. */
static void put(FILE *out, const char *s, size_t n, bool property)
{
	char *seg = ct_xmalloc(n + 1), *t, *c;

	memcpy(seg, s, n);
	seg[n] = '\0';
	t = ct_text_escape(seg);

	for (c = t; *c; c++) {
		switch (*c) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			fputs(property ? "%3A" : ":", out);
			break;
		case ',':
			fputs(property ? "%2C" : ",", out);
			break;
		default:
			fputc(*c, out);
		}
	}
	free(t);
	free(seg);
}

int ct_github_annotation(FILE *out, const char *level, const char *file, const char *title,
			 const char *const *lines, size_t nlines)
{
	bool first = true;
	size_t i;

	fprintf(out, "::%s", level);
	if (file) {
		fputs(" file=", out);
		put(out, file, strlen(file), true);
	}
	if (title) {
		fputs(file ? ",title=" : " title=", out);
		put(out, title, strlen(title), true);
	}
	fputs("::", out);
	for (i = 0; i < nlines; i++) {
		if (!lines[i] || !lines[i][0])
			continue;
		if (!first)
			fputs("%0A", out);
		put(out, lines[i], strlen(lines[i]), false);
		first = false;
	}
	return fputc('\n', out) == EOF || ferror(out) ? -1 : 0;
}

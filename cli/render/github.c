/* GitHub Actions annotations, escaped for GitHub; see github.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "github.h"
#include "text.h"
#include "util.h"

/*
 * s as GitHub unescapes a workflow command's data (or, with property, a
 * property's value), to free: no CR or LF is left in it. The terminal's
 * escaping comes after, in ct_tprintf.
 */
static char *gh_escape(const char *s, bool property)
{
	char *out = ct_xmalloc(strlen(s) * 3 + 1), *o = out;

	for (; *s; s++) {
		const char *rep = *s == '%'		 ? "%25"
				  : *s == '\r'		 ? "%0D"
				  : *s == '\n'		 ? "%0A"
				  : property && *s == ':' ? "%3A"
				  : property && *s == ',' ? "%2C"
							 : NULL;

		if (rep) {
			memcpy(o, rep, 3);
			o += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* key and s escaped as a property, through ct_tprintf. */
static void put_property(FILE *out, const char *key, const char *s)
{
	char *e = gh_escape(s, true);

	ct_tprintf(out, "%s%s", key, e);
	free(e);
}

int ct_github_annotation(FILE *out, const char *level, const char *file, const char *title,
			 const char *const *lines, size_t nlines)
{
	bool first = true;
	size_t i;

	ct_tprintf(out, "::%s", level);
	if (file)
		put_property(out, " file=", file);
	if (title)
		put_property(out, file ? ",title=" : " title=", title);
	ct_tprintf(out, "::");
	for (i = 0; i < nlines; i++) {
		char *e;

		if (!lines[i] || !lines[i][0])
			continue;
		e = gh_escape(lines[i], false);
		ct_tprintf(out, "%s%s", first ? "" : "%0A", e);
		free(e);
		first = false;
	}
	return ct_tprintf(out, "\n") < 0 || ferror(out) ? -1 : 0;
}

/*
 * The .version and .target lines of PTX text (reference/fatbin.md 3.2).
 * Comments and blank lines may come first; .target may carry modifiers
 * ("sm_80, debug").
 */
#include <errno.h>

#include "internal.h"

/* Bytes of PTX text searched for the two directives. */
#define PTX_HEAD_MAX 65536u

struct cursor {
	const char *p, *end;
};

static void skip_space_and_comments(struct cursor *c)
{
	for (;;) {
		while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
					 *c->p == '\n' || *c->p == '\r'))
			c->p++;
		if (c->end - c->p >= 2 && c->p[0] == '/' && c->p[1] == '/') {
			while (c->p < c->end && *c->p != '\n')
				c->p++;
		} else if (c->end - c->p >= 2 && c->p[0] == '/' &&
			   c->p[1] == '*') {
			c->p += 2;
			while (c->end - c->p >= 2 &&
			       !(c->p[0] == '*' && c->p[1] == '/'))
				c->p++;
			c->p = c->end - c->p >= 2 ? c->p + 2 : c->end;
		} else {
			return;
		}
	}
}

static int word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

static int number(struct cursor *c, unsigned *v)
{
	unsigned n = 0;
	const char *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && n < 100000)
		n = n * 10 + (unsigned)(*c->p++ - '0');
	*v = n;
	return c->p > start;
}

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

int es_ptx_parse(const char *text, size_t len, struct es_ptx *out)
{
	struct cursor c = { text, text + (len < PTX_HEAD_MAX ? len : PTX_HEAD_MAX) };
	int have_version = 0, have_target = 0;

	memset(out, 0, sizeof(*out));
	/* Directives before .target: .version comes first by the spec. */
	while (!(have_version && have_target)) {
		skip_space_and_comments(&c);
		if (c.p >= c.end || *c.p == '\0')
			break;
		if (word(&c, ".version")) {
			skip_blanks(&c);
			if (!number(&c, &out->major) || !word(&c, ".") ||
			    !number(&c, &out->minor))
				return -EBADMSG;
			have_version = 1;
		} else if (word(&c, ".target")) {
			skip_blanks(&c);
			if (!word(&c, "sm_") || !number(&c, &out->arch))
				return -EBADMSG;
			if (c.p < c.end && *c.p == 'a') {
				out->variant = ELFSCAN_VARIANT_A;
				c.p++;
			} else if (c.p < c.end && *c.p == 'f') {
				out->variant = ELFSCAN_VARIANT_F;
				c.p++;
			}
			have_target = 1;
		} else if (*c.p == '.') {
			/* Another directive (.address_size): skip its line. */
			while (c.p < c.end && *c.p != '\n')
				c.p++;
		} else {
			return -EBADMSG;
		}
		/* The rest of the line (modifiers such as ", debug"). */
		while (c.p < c.end && *c.p != '\n' && *c.p != '\0')
			c.p++;
	}
	return have_version && have_target ? 0 : -EBADMSG;
}

/*
 * A kernel is declared ".entry name" (after .visible or .weak, or alone):
 * the directive as a word, outside of a line comment. A match inside a
 * block comment counts too, which errs towards "has a kernel".
 */
int es_ptx_has_kernel(const char *text, size_t len)
{
	size_t i;
	bool line_comment = false;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n') {
			line_comment = false;
			continue;
		}
		if (line_comment)
			continue;
		if (c == '/' && i + 1 < len && text[i + 1] == '/') {
			line_comment = true;
			continue;
		}
		if (c != '.' || len - i < 7 || memcmp(text + i, ".entry", 6) != 0)
			continue;
		if (i > 0 && text[i - 1] != ' ' && text[i - 1] != '\t' && text[i - 1] != '\n')
			continue;
		if (text[i + 6] == ' ' || text[i + 6] == '\t' || text[i + 6] == '\n' ||
		    text[i + 6] == '\r')
			return 1;
	}
	return 0;
}

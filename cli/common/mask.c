/* Secrets masked for display; see mask.h. */
#include <ctype.h>
#include <string.h>

#include "mask.h"
#include "util.h"

#define MASK "***"

/* Where a name stands: an option (--name), a variable (NAME=), a header (Name:). */
enum { IN_OPTION = 1, IN_VARIABLE = 2, IN_HEADER = 4 };
/*
 * How a rule's word matches a name: anywhere in it, the whole of it, or a
 * whole part of it between '-' and '_' ("X-Api-Key", not "KeyError").
 */
enum { ANYWHERE, WHOLE, PART };
/* What of the value goes: all of it, or what follows its first ':' (user:pass). */
enum { VALUE_ALL, VALUE_AFTER_COLON };

/*
 * The one list of names that say secret (docs/run.md, "What is masked"),
 * case-insensitive. A short word is matched whole: "pass" would mask
 * "--bypass-cache", "auth" "--author". A header is looked for in any text
 * (a dlerror, a finding), so its words are matched more narrowly.
 */
static const struct secret_rule {
	const char *word;
	unsigned char match;
	unsigned char where;
	unsigned char value;
} rules[] = {
	{ "key", ANYWHERE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	{ "token", ANYWHERE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	{ "secret", ANYWHERE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	{ "password", ANYWHERE, IN_OPTION | IN_VARIABLE | IN_HEADER, VALUE_ALL },
	{ "passwd", ANYWHERE, IN_OPTION | IN_VARIABLE | IN_HEADER, VALUE_ALL },
	{ "credential", ANYWHERE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	{ "authorization", ANYWHERE, IN_OPTION | IN_VARIABLE | IN_HEADER, VALUE_ALL },
	{ "cookie", ANYWHERE, IN_OPTION | IN_HEADER, VALUE_ALL },
	{ "pass", WHOLE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	/* Not a variable: $PWD is the current directory. */
	{ "pwd", WHOLE, IN_OPTION, VALUE_ALL },
	{ "auth", WHOLE, IN_OPTION | IN_VARIABLE, VALUE_ALL },
	/* curl's -u/--user user:pass; "-u" alone is python's unbuffered flag. */
	{ "u", WHOLE, IN_OPTION, VALUE_AFTER_COLON },
	{ "user", WHOLE, IN_OPTION, VALUE_AFTER_COLON },
	{ "proxy-user", WHOLE, IN_OPTION, VALUE_AFTER_COLON },
	/* Headers: X-Api-Key, X-Auth-Token, Private-Token, X-Client-Secret. */
	{ "key", PART, IN_HEADER, VALUE_ALL },
	{ "token", PART, IN_HEADER, VALUE_ALL },
	{ "secret", PART, IN_HEADER, VALUE_ALL },
	{ "auth", PART, IN_HEADER, VALUE_ALL },
};

static bool word_at(const char *name, size_t n, size_t i, const char *word, size_t len)
{
	size_t k;

	if (i + len > n)
		return false;
	for (k = 0; k < len && tolower((unsigned char)name[i + k]) == word[k]; k++)
		;
	return k == len;
}

/* The rule the n bytes of name match where they stand, or NULL. */
static const struct secret_rule *rule_for(const char *name, size_t n, unsigned where)
{
	size_t r, i;

	for (r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		size_t len = strlen(rules[r].word);

		if (!(rules[r].where & where))
			continue;
		if (rules[r].match == WHOLE) {
			if (n == len && word_at(name, n, 0, rules[r].word, len))
				return &rules[r];
			continue;
		}
		for (i = 0; i + len <= n; i++)
			if (word_at(name, n, i, rules[r].word, len) &&
			    (rules[r].match == ANYWHERE ||
			     ((i == 0 || strchr("-_", name[i - 1])) &&
			      (i + len == n || strchr("-_", name[i + len])))))
				return &rules[r];
	}
	return NULL;
}

bool ct_secret_name(const char *name, size_t n)
{
	return rule_for(name, n, IN_VARIABLE) != NULL;
}

/* A string being rebuilt with parts of it masked. */
struct masking {
	const char *s;    /* the input */
	const char *from; /* copied up to here */
	char *out;        /* NULL: nothing masked yet */
	size_t n;
};

/* Copy s up to start, then the mask; go on from end. */
static void mask_range(struct masking *m, const char *start, const char *end)
{
	size_t len = (size_t)(start - m->from);

	m->out = ct_xrealloc(m->out, m->n + len + sizeof(MASK));
	memcpy(m->out + m->n, m->from, len);
	m->n += len;
	memcpy(m->out + m->n, MASK, sizeof(MASK) - 1);
	m->n += sizeof(MASK) - 1;
	m->from = end;
}

static char *masking_end(struct masking *m)
{
	if (!m->out)
		return NULL;
	m->out = ct_xrealloc(m->out, m->n + strlen(m->from) + 1);
	strcpy(m->out + m->n, m->from);
	return m->out;
}

/* The end of the user information of the URL whose "://" is at s, or NULL. */
static const char *userinfo_end(const char *s)
{
	const char *p = s + 3, *at = NULL;

	/* The authority ends at the path, query, fragment or a blank. */
	for (; *p && !strchr("/?#", *p) && !isspace((unsigned char)*p); p++)
		if (*p == '@')
			at = p;
	return at;
}

static bool token_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

static bool boundary(const char *s, const char *p)
{
	return p == s || isspace((unsigned char)p[-1]) || strchr("\"'=,{(", p[-1]);
}

/*
 * The value of a secret header whose ':' is at colon ("Authorization:
 * Bearer x", also as curl's "-HAuthorization: ..." or "--header=..."): its
 * start and end (a quote, a line's end or the string's), or false.
 */
static bool header_value(const char *s, const char *colon, const char **start, const char **end)
{
	const char *b = colon, *v;

	while (b > s && token_char(b[-1]))
		b--;
	if (b + 2 < colon && b[0] == '-' && b[1] == 'H' && boundary(s, b))
		b += 2;
	else if (!boundary(s, b))
		return false;
	if (b == colon || !rule_for(b, (size_t)(colon - b), IN_HEADER))
		return false;
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	*start = v;
	*end = v + strcspn(v, "\"'\n\r");
	return *end > v;
}

/*
 * s with the user information of its URLs, the values of its secret
 * headers and the tokens after "Bearer " masked; NULL: nothing to mask.
 */
static char *mask_text(const char *s)
{
	struct masking m = { s, s, NULL, 0 };
	const char *p = s, *at, *start, *end;

	while ((p = strpbrk(p, ":Bb"))) {
		if (*p != ':') {
			/* A bearer token with no header name before it. */
			if (boundary(s, p) && word_at(p, strlen(p), 0, "bearer ", 7)) {
				for (start = p + 7; *start == ' '; start++)
					;
				end = start + strcspn(start, " \t\"'\n\r");
				if (end > start) {
					mask_range(&m, start, end);
					p = end;
					continue;
				}
			}
			p++;
			continue;
		}
		if (strncmp(p, "://", 3) == 0) {
			if ((at = userinfo_end(p)) && at != p + 3) {
				mask_range(&m, p + 3, at);
				p = at;
			} else {
				p += 3;
			}
			continue;
		}
		if (p >= m.from && header_value(s, p, &start, &end)) {
			mask_range(&m, start, end);
			p = end;
			continue;
		}
		p++;
	}
	return masking_end(&m);
}

char *ct_mask_text(const char *s)
{
	return mask_text(s);
}

/* "prefix***": the first keep bytes of s, then the mask. */
static char *keep_then_mask(const char *s, size_t keep)
{
	char *out = ct_xmalloc(keep + sizeof(MASK));

	memcpy(out, s, keep);
	memcpy(out + keep, MASK, sizeof(MASK));
	return out;
}

/* The value v (at offset off in a) masked as rule r says; NULL: nothing to mask. */
static char *mask_by_rule(const char *a, size_t off, const struct secret_rule *r)
{
	const char *colon;

	if (r->value == VALUE_ALL)
		return keep_then_mask(a, off);
	if (!(colon = strchr(a + off, ':')) || !colon[1])
		return NULL;
	return keep_then_mask(a, (size_t)(colon + 1 - a));
}

/* An option whose name says secret: "--token", "-api_key", "--password=x". */
static const struct secret_rule *secret_option(const char *a, size_t *name_end)
{
	size_t start, end;

	if (a[0] != '-' || a[1] == '\0')
		return NULL;
	start = a[1] == '-' ? 2 : 1;
	end = start + strcspn(a + start, "=");
	*name_end = end;
	return end > start ? rule_for(a + start, end - start, IN_OPTION) : NULL;
}

/* NAME=VALUE with a NAME of a variable (letters, digits, '_', '.', '-'). */
static const struct secret_rule *secret_assignment(const char *a, size_t *eq)
{
	size_t n = strcspn(a, "=");
	size_t i;

	if (!a[n] || n == 0 || a[0] == '-')
		return NULL;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)a[i]) && !strchr("_.-", a[i]))
			return NULL;
	*eq = n;
	return rule_for(a, n, IN_VARIABLE);
}

char *ct_mask_arg(const char *const *argv, size_t i)
{
	const struct secret_rule *r;
	const char *a = argv[i];
	char *out;
	size_t end;

	if (i > 0 && argv[i - 1] && (r = secret_option(argv[i - 1], &end)) && !argv[i - 1][end] &&
	    strncmp(a, "--", 2) != 0 && (out = mask_by_rule(a, 0, r)))
		return out;
	if (((r = secret_option(a, &end)) || (r = secret_assignment(a, &end))) && a[end] == '=' &&
	    (out = mask_by_rule(a, end + 1, r)))
		return out;
	return mask_text(a);
}

char *ct_mask_value(const char *name, const char *value)
{
	if (!value)
		return NULL;
	if (name && ct_secret_name(name, strlen(name)))
		return keep_then_mask(value, 0);
	return mask_text(value);
}

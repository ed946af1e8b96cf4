/* Secrets masked for display; see mask.h. */
#include <ctype.h>
#include <string.h>

#include "mask.h"
#include "util.h"

#define MASK "***"

bool ct_secret_name(const char *name, size_t n)
{
	static const char *const words[] = { "key", "token", "secret", "password", "passwd",
					     "credential" };
	size_t i, k, w;

	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t len = strlen(words[w]);

		for (i = 0; i + len <= n; i++) {
			for (k = 0; k < len && tolower((unsigned char)name[i + k]) == words[w][k]; k++)
				;
			if (k == len)
				return true;
		}
	}
	return false;
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

char *ct_mask_urls(const char *s)
{
	const char *p, *at, *from = s;
	char *out = NULL;
	size_t n = 0;

	for (p = strstr(s, "://"); p; p = strstr(p + 3, "://")) {
		if (!(at = userinfo_end(p)) || at == p + 3)
			continue;
		/* Text up to and with "://", the mask, then on from the '@'. */
		out = ct_xrealloc(out, n + (size_t)(p + 3 - from) + sizeof(MASK));
		memcpy(out + n, from, (size_t)(p + 3 - from));
		n += (size_t)(p + 3 - from);
		memcpy(out + n, MASK, sizeof(MASK) - 1);
		n += sizeof(MASK) - 1;
		from = at;
		p = at - 2; /* the next search starts at the '@' */
	}
	if (!out)
		return NULL;
	out = ct_xrealloc(out, n + strlen(from) + 1);
	strcpy(out + n, from);
	return out;
}

/* "prefix***": the first keep bytes of s, then the mask. */
static char *keep_then_mask(const char *s, size_t keep)
{
	char *out = ct_xmalloc(keep + sizeof(MASK));

	memcpy(out, s, keep);
	memcpy(out + keep, MASK, sizeof(MASK));
	return out;
}

/* An option whose name says secret: "--token", "-api_key", "--password=x". */
static bool secret_option(const char *a, size_t *name_end)
{
	size_t start, end;

	if (a[0] != '-' || a[1] == '\0')
		return false;
	start = a[1] == '-' ? 2 : 1;
	end = start + strcspn(a + start, "=");
	*name_end = end;
	return end > start && ct_secret_name(a + start, end - start);
}

/* NAME=VALUE with a NAME of a variable (letters, digits, '_', '.', '-'). */
static bool secret_assignment(const char *a, size_t *eq)
{
	size_t n = strcspn(a, "=");
	size_t i;

	if (!a[n] || n == 0 || a[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)a[i]) && !strchr("_.-", a[i]))
			return false;
	*eq = n;
	return ct_secret_name(a, n);
}

char *ct_mask_arg(const char *const *argv, size_t i)
{
	const char *a = argv[i];
	size_t end;

	if (i > 0 && argv[i - 1] && secret_option(argv[i - 1], &end) && !argv[i - 1][end] &&
	    strncmp(a, "--", 2) != 0)
		return keep_then_mask(a, 0);
	if ((secret_option(a, &end) || secret_assignment(a, &end)) && a[end] == '=')
		return keep_then_mask(a, end + 1);
	return ct_mask_urls(a);
}

char *ct_mask_value(const char *name, const char *value)
{
	if (!value)
		return NULL;
	if (name && ct_secret_name(name, strlen(name)))
		return keep_then_mask(value, 0);
	return ct_mask_urls(value);
}

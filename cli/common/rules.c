/* The loader rules' names; see rules.h. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

static const struct {
	const char *id, *words;
} rules[] = {
	[CT_RULE_UNKNOWN] = { "unknown", "?" },
#define CT_RULE(name, id, words) [CT_RULE_##name] = { id, words },
#include "ct_rules.def"
#undef CT_RULE
};

enum ct_rule ct_rule_parse(const char *id)
{
	size_t i;

	for (i = 0; id && i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(rules[i].id, id) == 0)
			return (enum ct_rule)i;
	return CT_RULE_UNKNOWN;
}

const char *ct_rule_id(enum ct_rule r)
{
	return (size_t)r < sizeof(rules) / sizeof(rules[0]) ? rules[r].id : "unknown";
}

const char *ct_rule_words(enum ct_rule r)
{
	return (size_t)r < sizeof(rules) / sizeof(rules[0]) ? rules[r].words : "?";
}

const char *ct_search_dir_words(const char *dir, size_t len, char *buf, size_t size)
{
	if (!size)
		return buf;
	if (!dir || (len == 0 && dir[0] != '/'))
		snprintf(buf, size, "the working directory (an empty entry)");
	else if (dir[0] != '/')
		snprintf(buf, size, "%.*s (under the working directory)", (int)len, dir);
	else
		snprintf(buf, size, "%.*s", len ? (int)len : 1, dir);
	return buf;
}

bool ct_path_relative(const char *path)
{
	return path && path[0] && path[0] != '/';
}

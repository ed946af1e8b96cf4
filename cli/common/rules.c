/* The loader rules' names; see rules.h. */
#include <stddef.h>
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

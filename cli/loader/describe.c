/* The loader model's objects and rules in words; see describe.h. */
#include <stdio.h>
#include <string.h>

#include "describe.h"

const char *ct_lobj_name(const struct ct_lobj *o, bool brief)
{
	const char *slash;

	if (!o)
		return "?";
	if (o->is_main && !o->path[0])
		return "the program";
	slash = strrchr(o->path, '/');
	return brief && slash ? slash + 1 : o->path;
}

char *ct_rule_text(enum ct_rule via, const struct ct_lobj *owner, char *buf, size_t size)
{
	if (owner && ct_rule_is_own_path(via))
		snprintf(buf, size, "%s of %s", ct_rule_words(via), ct_lobj_name(owner, true));
	else
		snprintf(buf, size, "%s", ct_rule_words(via));
	return buf;
}

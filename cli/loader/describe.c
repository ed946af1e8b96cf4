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

char *ct_rule_text_at(enum ct_rule via, const struct ct_lobj *owner, const char *path, char *buf,
		      size_t size)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t len;
	char dir[4200];

	ct_rule_text(via, owner, buf, size);
	if (!ct_path_relative(path) ||
	    (!ct_rule_is_own_path(via) && via != CT_RULE_LD_LIBRARY_PATH))
		return buf;
	len = strlen(buf);
	if (len < size)
		snprintf(buf + len, size - len, ", %s",
			 ct_search_dir_words(path, slash ? (size_t)(slash - path) : 0, dir,
					     sizeof(dir)));
	return buf;
}

/* The OS, kernel and C library of this machine; see system.h. */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "files.h"
#include "system.h"

/*
 * KEY="value" (or KEY=value) of an os-release text, unquoted, into out;
 * its escapes (\" \\ \$ \`) undone. False when the key is not there.
 */
static bool os_value(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key), n = 0;
	const char *l, *v;
	char quote = 0;

	for (l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, klen) != 0 || l[klen] != '=')
			continue;
		v = l + klen + 1;
		if (*v == '"' || *v == '\'')
			quote = *v++;
		for (; *v && *v != '\n' && *v != quote && n + 1 < size; v++) {
			if (quote == '"' && *v == '\\' && v[1] && strchr("\"\\$`", v[1]))
				v++;
			out[n++] = *v;
		}
		out[n] = '\0';
		return true;
	}
	return false;
}

void ct_system_read(struct ct_system *s)
{
	static const char *const files[] = { "/etc/os-release", "/usr/lib/os-release" };
	struct utsname u;
	char *text = NULL;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !text; i++)
		if ((text = ct_read_small_file(files[i], 1 << 16)))
			s->os_from = files[i];
	if (text) {
		if (!os_value(text, "PRETTY_NAME", s->os, sizeof(s->os)))
			os_value(text, "NAME", s->os, sizeof(s->os));
		os_value(text, "ID", s->os_id, sizeof(s->os_id));
		os_value(text, "VERSION_ID", s->os_version, sizeof(s->os_version));
		free(text);
	}
	if (uname(&u) == 0) {
		snprintf(s->kernel, sizeof(s->kernel), "%.20s %.100s", u.sysname, u.release);
		snprintf(s->machine, sizeof(s->machine), "%.31s", u.machine);
	}
	snprintf(s->glibc, sizeof(s->glibc), "%s", gnu_get_libc_version());
}

/* The loader's own facts; see platform.h. */
#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util.h"
#include "elfinfo.h"
#include "platform.h"

static void push(char ***arr, size_t *n, const char *s, size_t len)
{
	char *copy = ct_xmalloc(len + 1);

	memcpy(copy, s, len);
	copy[len] = '\0';
	*arr = ct_xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = copy;
}

/* The value of key="..." in list-diagnostics output, unquoted; or NULL. */
static char *value_of(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n') && p[klen] == '=') {
			const char *v = p + klen + 1, *end;

			if (*v == '"') {
				v++;
				end = strchr(v, '"');
			} else {
				end = strchr(v, '\n');
			}
			if (!end)
				end = v + strlen(v);
			{
				char *out = ct_xmalloc((size_t)(end - v) + 1);

				memcpy(out, v, (size_t)(end - v));
				out[end - v] = '\0';
				return out;
			}
		}
		p += klen;
	}
	return NULL;
}

/*
 * Every subdirectory the loader tries in a directory, in its order: let
 * it search an empty directory for our own dependencies with LD_DEBUG=libs
 * in list mode (it maps, it does not run) and read its search path.
 */
static void probe_start(struct ct_platform_question *q)
{
	char self[PATH_MAX];
	char *argv[6];
	char *envp[] = { (char *)"LD_DEBUG=libs", NULL };
	ssize_t n;

	q->probing = false;
	snprintf(q->tmp, sizeof(q->tmp), "/tmp/cudatrace-probe.XXXXXX");
	if (!mkdtemp(q->tmp))
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		rmdir(q->tmp);
		return;
	}
	self[n] = '\0';
	argv[0] = q->rtld;
	argv[1] = (char *)"--library-path";
	argv[2] = q->tmp;
	argv[3] = (char *)"--list";
	argv[4] = self;
	argv[5] = NULL;
	if (ct_run_start(argv, envp, true, &q->probe) == 0)
		q->probing = true;
	else
		rmdir(q->tmp);
}

static void probe_finish(struct ct_platform *p, struct ct_platform_question *q)
{
	const char *tmp = q->tmp;
	char *out, *line;
	int status;

	if (!q->probing)
		return;
	q->probing = false;
	out = ct_run_wait(&q->probe, &status);
	rmdir(tmp);
	if (!out)
		return;
	for (line = strstr(out, "search path="); line; line = strstr(line + 1, "search path=")) {
		const char *s = line + strlen("search path="), *end = strpbrk(s, "\t\n");
		size_t tlen = strlen(tmp);

		/* Older loaders name it LD_LIBRARY_PATH, newer --library-path. */
		if (!end || (strncmp(end, "\t\t(LD_LIBRARY_PATH)", 19) != 0 &&
			     strncmp(end, "\t\t(--library-path)", 18) != 0))
			continue;
		while (s < end) {
			const char *colon = memchr(s, ':', (size_t)(end - s));
			const char *e = colon ? colon : end;

			if ((size_t)(e - s) > tlen + 1 && strncmp(s, tmp, tlen) == 0 &&
			    s[tlen] == '/')
				push(&p->subdirs, &p->nsubdirs, s + tlen + 1,
				     (size_t)(e - s) - tlen - 1);
			s = colon ? colon + 1 : end;
		}
		break;
	}
	free(out);
}

static void defaults(struct ct_platform *p)
{
	struct utsname u;
	struct stat st;

	if (!p->platform)
		p->platform = ct_xstrdup(uname(&u) == 0 ? u.machine : "x86_64");
	if (!p->lib) {
		char multiarch[64];

		snprintf(multiarch, sizeof(multiarch), "/lib/%s-linux-gnu",
			 strcmp(p->platform, "aarch64") == 0 ? "aarch64" : "x86_64");
		p->lib = ct_xstrdup(stat(multiarch, &st) == 0 ? multiarch + 1 : "lib64");
	}
	if (!p->nsystem_dirs) {
		if (strchr(p->lib, '/')) {
			char d[128];

			snprintf(d, sizeof(d), "/%s", p->lib);
			push(&p->system_dirs, &p->nsystem_dirs, d, strlen(d));
			snprintf(d, sizeof(d), "/usr/%s", p->lib);
			push(&p->system_dirs, &p->nsystem_dirs, d, strlen(d));
			push(&p->system_dirs, &p->nsystem_dirs, "/lib", 4);
			push(&p->system_dirs, &p->nsystem_dirs, "/usr/lib", 8);
		} else {
			push(&p->system_dirs, &p->nsystem_dirs, "/lib64", 6);
			push(&p->system_dirs, &p->nsystem_dirs, "/usr/lib64", 10);
		}
	}
	if (!p->version)
		p->version = ct_xstrdup("0.0");
	if (!p->cache)
		p->cache = ct_xstrdup("/etc/ld.so.cache");
}

void ct_platform_ask(struct ct_platform_question *q, const char *rtld)
{
	char *argv[3];
	char *envp[] = { NULL };
	struct ct_elfinfo ei;

	memset(q, 0, sizeof(*q));
	if (rtld) {
		q->rtld = ct_xstrdup(rtld);
	} else {
		/* The loader that runs cudatrace. */
		ct_elfinfo_init(&ei);
		if (ct_elfinfo_read(&ei, "/proc/self/exe") == 0 && ei.interp)
			q->rtld = ct_xstrdup(ei.interp);
		ct_elfinfo_release(&ei);
	}
	if (!q->rtld)
		return;
	ct_elfinfo_init(&ei);
	if (ct_elfinfo_read(&ei, q->rtld) == 0) {
		q->machine = ei.machine;
		q->elf_class = ei.elf_class;
	}
	ct_elfinfo_release(&ei);
	argv[0] = q->rtld;
	argv[1] = "--list-diagnostics";
	argv[2] = NULL;
	/* Both questions to the loader at once. */
	probe_start(q);
	q->asking = ct_run_start(argv, envp, false, &q->diag) == 0;
}

void ct_platform_answer(struct ct_platform *p, struct ct_platform_question *q)
{
	char *text = NULL, *v;
	int status = -1;

	memset(p, 0, sizeof(*p));
	p->rtld = q->rtld;
	q->rtld = NULL;
	p->machine = q->machine;
	p->elf_class = q->elf_class;
	if (q->asking) {
		q->asking = false;
		text = ct_run_wait(&q->diag, &status);
	}
	if (p->rtld) {
		if (text && status == 0 && strstr(text, "dl_dst_lib=")) {
			char key[64];
			size_t i;

			p->from_loader = true;
			p->lib = value_of(text, "dl_dst_lib");
			p->platform = value_of(text, "dl_platform");
			p->version = value_of(text, "version.version");
			for (i = 0;; i++) {
				snprintf(key, sizeof(key), "path.system_dirs[0x%zx]", i);
				if (!(v = value_of(text, key)))
					break;
				/* The loader spells them with a trailing slash. */
				push(&p->system_dirs, &p->nsystem_dirs, v,
				     strlen(v) > 1 && v[strlen(v) - 1] == '/' ? strlen(v) - 1
									      : strlen(v));
				free(v);
			}
			if ((v = value_of(text, "path.sysconfdir"))) {
				p->cache = ct_xmalloc(strlen(v) + 16);
				sprintf(p->cache, "%s/ld.so.cache", v);
				free(v);
			}
			if ((v = value_of(text, "dl_hwcap"))) {
				p->hwcap = strtoull(v, NULL, 0);
				free(v);
			}
			if ((v = value_of(text, "dl_hwcap_important"))) {
				p->hwcap_mask = strtoull(v, NULL, 0);
				free(v);
			}
			if ((v = value_of(text, "dl_hwcaps_subdirs"))) {
				char *active = value_of(text, "dl_hwcaps_subdirs_active");
				unsigned long mask = active ? strtoul(active, NULL, 0) : ~0UL;
				char *s = v, *tok;
				unsigned bit = 0;

				for (tok = strsep(&s, ":"); tok; tok = strsep(&s, ":"), bit++)
					if (*tok && (mask & (1UL << bit)))
						push(&p->hwcaps, &p->nhwcaps, tok, strlen(tok));
				free(active);
				free(v);
			}
		}
		free(text);
		probe_finish(p, q);
	}
	defaults(p);
	if (!p->machine) {
		p->machine = EM_X86_64;
		p->elf_class = 64;
	}
	sscanf(p->version, "%d.%d", &p->major, &p->minor);
}

void ct_platform_load(struct ct_platform *p, const char *rtld)
{
	struct ct_platform_question q;

	ct_platform_ask(&q, rtld);
	ct_platform_answer(p, &q);
}

void ct_platform_release(struct ct_platform *p)
{
	size_t i;

	for (i = 0; i < p->nsystem_dirs; i++)
		free(p->system_dirs[i]);
	for (i = 0; i < p->nsubdirs; i++)
		free(p->subdirs[i]);
	for (i = 0; i < p->nhwcaps; i++)
		free(p->hwcaps[i]);
	free(p->system_dirs);
	free(p->subdirs);
	free(p->hwcaps);
	free(p->rtld);
	free(p->lib);
	free(p->platform);
	free(p->version);
	free(p->cache);
	memset(p, 0, sizeof(*p));
}

static char **copy_strings(char **v, size_t n)
{
	char **out = ct_xcalloc(n + 1, sizeof(char *));
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = ct_xstrdup(v[i]);
	return out;
}

static char *copy_str(const char *s)
{
	return s ? ct_xstrdup(s) : NULL;
}

void ct_platform_copy(struct ct_platform *dst, const struct ct_platform *src)
{
	*dst = *src;
	dst->rtld = copy_str(src->rtld);
	dst->lib = copy_str(src->lib);
	dst->platform = copy_str(src->platform);
	dst->version = copy_str(src->version);
	dst->cache = copy_str(src->cache);
	dst->system_dirs = copy_strings(src->system_dirs, src->nsystem_dirs);
	dst->subdirs = copy_strings(src->subdirs, src->nsubdirs);
	dst->hwcaps = copy_strings(src->hwcaps, src->nhwcaps);
}

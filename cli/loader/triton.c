/* What Triton finds at its first compile, from files; see triton.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "triton.h"
#include "util.h"

enum { PY_MAX = 4 << 20 };

/* The folders the linker searches after -L (x86_64 Debian and the generic ones). */
static const char *const linker_dirs[] = {
	"/usr/local/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/usr/local/lib64", "/lib64", "/usr/lib64", "/usr/local/lib", "/lib", "/usr/lib",
};

/* Is dir/name a regular file (through ct_open_file: nothing else is opened)? */
static bool file_in(const char *dir, const char *name, char *out, size_t size)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;
	bool yes;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	if ((fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return false;
	yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (yes && out)
		snprintf(out, size, "%s", path);
	return yes;
}

static void add_dir(struct ct_triton *t, const char *dir, size_t n)
{
	size_t i;

	for (i = 0; i < t->ndirs; i++)
		if (strlen(t->dirs[i]) == n && strncmp(t->dirs[i], dir, n) == 0)
			return;
	t->dirs = ct_xrealloc(t->dirs, (t->ndirs + 1) * sizeof(*t->dirs));
	t->dirs[t->ndirs] = ct_xcalloc(n + 1, 1);
	memcpy(t->dirs[t->ndirs++], dir, n);
}

int ct_triton_read(struct ct_triton *t, const char *site, const struct ct_loader *L)
{
	char file[PATH_MAX + 64];
	const char *env;
	char *text;
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/triton", site);
	snprintf(file, sizeof(file), "%s/backends/nvidia/driver.py", t->dir);
	if (!(text = ct_read_small_file(file, PY_MAX)))
		return -ENOENT;
	/* libraries = ['libcuda.so.1'] (3.x) or ['cuda'] (-lcuda). */
	t->link_versioned = strstr(text, "'libcuda.so.1']") || strstr(text, "\"libcuda.so.1\"]");
	snprintf(t->link_name, sizeof(t->link_name), "%s",
		 t->link_versioned ? "libcuda.so.1" : "libcuda.so");
	free(text);
	snprintf(file, sizeof(file), "%s/backends/nvidia/compiler.py", t->dir);
	if ((text = ct_read_small_file(file, PY_MAX))) {
		t->blackwell = strstr(text, "ptxas_blackwell") != NULL;
		free(text);
	}

	if ((env = getenv("TRITON_LIBCUDA_PATH")) && *env) {
		/* Taken as it is, unchecked. */
		add_dir(t, env, strlen(env));
		t->dirs_from = "TRITON_LIBCUDA_PATH";
	} else {
		/* `ldconfig -p` prints the cache: every entry whose line holds the name. */
		for (i = 0; L->cache_ok && i < L->cache.n; i++) {
			const struct ct_ldcache_entry *e = &L->cache.entries[i];
			const char *slash = strrchr(e->path, '/');

			if (slash && (strstr(e->key, t->link_name) || strstr(e->path, t->link_name)))
				add_dir(t, e->path, (size_t)(slash - e->path));
		}
		if (t->ndirs)
			t->dirs_from = "ld.so.cache";
		else if (L->ld_library_path) {
			const char *p = L->ld_library_path;

			while (*p) {
				size_t n = strcspn(p, ":");
				char dir[PATH_MAX];

				snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
				if (n && file_in(dir, t->link_name, NULL, 0))
					add_dir(t, p, n);
				p += n + (p[n] == ':');
			}
			if (t->ndirs)
				t->dirs_from = "LD_LIBRARY_PATH";
		}
	}
	for (i = 0; i < t->ndirs && !t->found[0]; i++)
		file_in(t->dirs[i], t->link_name, t->found, sizeof(t->found));
	/* The launcher's link: -L each folder, then the linker's own folders. */
	if (t->found[0])
		snprintf(t->link_file, sizeof(t->link_file), "%s", t->found);
	for (i = 0; t->ndirs && !t->link_file[0] && i < sizeof(linker_dirs) / sizeof(*linker_dirs); i++)
		file_in(linker_dirs[i], t->link_name, t->link_file, sizeof(t->link_file));
	return 0;
}

void ct_triton_release(struct ct_triton *t)
{
	size_t i;

	for (i = 0; i < t->ndirs; i++)
		free(t->dirs[i]);
	free(t->dirs);
	memset(t, 0, sizeof(*t));
}

bool ct_cuda_tool_release(const char *path, char *release, size_t size, bool *runs)
{
	static const char key[] = "Cuda compilation tools, release ";
	enum { CHUNK = 1 << 20, KEEP = sizeof(key) + 16 };
	char *buf = NULL;
	struct stat st;
	size_t have = 0;
	ssize_t n;
	bool found = false;
	int fd;

	release[0] = '\0';
	*runs = false;
	if ((fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto out;
	*runs = (st.st_mode & 0111) != 0;
	buf = ct_xcalloc(CHUNK + KEEP + 1, 1);
	/* Read in chunks, the tail of each kept before the next: the text may straddle two. */
	while (!found && (n = read(fd, buf + have, CHUNK)) > 0) {
		size_t len = have + (size_t)n, i;

		for (i = 0; i + sizeof(key) - 1 + 3 < len; i++) {
			const char *v = buf + i + sizeof(key) - 1;
			size_t d;

			if (buf[i] != 'C' || memcmp(buf + i, key, sizeof(key) - 1) != 0 ||
			    !(v[0] >= '0' && v[0] <= '9'))
				continue;
			d = strspn(v, "0123456789");
			if (v[d] != '.' || !(v[d + 1] >= '0' && v[d + 1] <= '9'))
				continue;
			d += 1 + strspn(v + d + 1, "0123456789");
			if (d < size && v + d < buf + len) {
				memcpy(release, v, d);
				release[d] = '\0';
				found = true;
				break;
			}
		}
		have = len < KEEP ? len : KEEP;
		memmove(buf, buf + len - have, have);
	}
out:
	free(buf);
	close(fd);
	return found;
}

void ct_triton_ptxas(const struct ct_triton *t, unsigned major, unsigned minor, bool env_too,
		     struct ct_triton_ptxas *out)
{
	bool blackwell = t->blackwell && major * 10 + minor >= 90, runs;
	const char *var = blackwell ? "TRITON_PTXAS_BLACKWELL_PATH" : "TRITON_PTXAS_PATH";
	const char *env = env_too ? getenv(var) : NULL;

	memset(out, 0, sizeof(*out));
	if (env && *env) {
		/* knobs.NvidiaTool.from_path runs it for --version: a file that cannot run is passed over. */
		if (ct_cuda_tool_release(env, out->release, sizeof(out->release), &runs) && runs) {
			snprintf(out->path, sizeof(out->path), "%s", env);
			out->variable = var;
			return;
		}
		snprintf(out->refused, sizeof(out->refused), "%s", env);
		out->variable = var;
	}
	if ((size_t)snprintf(out->path, sizeof(out->path), "%s/backends/nvidia/bin/%s", t->dir,
			     blackwell ? "ptxas-blackwell" : "ptxas") >= sizeof(out->path))
		return;
	ct_cuda_tool_release(out->path, out->release, sizeof(out->release), &runs);
}

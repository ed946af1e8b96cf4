/*
 * ps's reading of /proc (cli/trace/procs.c) on a made-up /proc in a
 * temporary folder: a process's mapped files (a path with blanks, one
 * deleted, one whose device and inode no longer match, data mappings),
 * its command line, the variables a trace keeps and no other, its parent
 * from a stat whose command holds ')'; a gone process, maps that cannot
 * be read, garbage and empty maps (a zombie), and the process list; a
 * maps far past 16 MiB (60,000 mappings of data files, then cudart), and
 * one past the limit on files kept, said.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers.h"
#include "procs.h"
#include "files.h"
#include "util.h"

static char root[256];

static void put(const char *rel, const char *text, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void mk(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A maps line for the file rel of root, its device and inode as they are (or ino_delta off). */
static int maps_line(char *buf, size_t size, unsigned long start, const char *perms, const char *rel,
		     long ino_delta)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(stat(path, &st), 0);
	return snprintf(buf, size, "%lx-%lx %s 00000000 %x:%x %llu                     %s\n", start,
			start + 0x1000, perms, major(st.st_dev), minor(st.st_dev),
			(unsigned long long)((long)st.st_ino + ino_delta), path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/ct-procs-XXXXXX");
	assert_non_null(mkdtemp(root));
	mk("files");
	mk("files/lib dir");
	put("files/prog", "ELF", 3);
	put("files/libcudart.so.13", "ELF", 3);
	put("files/lib dir/libx.so", "ELF", 3);
	put("files/locale-archive", "data", 4);
	put("files/swapped.so", "ELF", 3);
	put("files/libcuda.so.550.54.15", "ELF", 3);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Process 42: its files, its command line, its variables, its parent. */
static void make_proc42(void)
{
	char maps[8192], link[512], target[512];
	size_t n = 0;
	static const char env[] = "HOME=/root\0LD_LIBRARY_PATH=/opt/x\0GITHUB_TOKEN=ghp_secret\0"
				  "CUDA_VISIBLE_DEVICES=0";
	static const char cmdline[] = "python3\0-c\0import torch\0";
	static const char stat[] = "42 (a) b) S 7 42 42 0 -1";

	mk("42");
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x1000, "r-xp", "files/prog", 0);
	n += (size_t)snprintf(maps + n, sizeof(maps) - n, "02000000-02100000 rw-p 00000000 00:00 0       [heap]\n");
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x10000, "r--p", "files/libcudart.so.13", 0);
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x11000, "r-xp", "files/libcudart.so.13", 0);
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x20000, "r-xp", "files/lib dir/libx.so", 0);
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x30000, "r--p", "files/locale-archive", 0);
	/* The file at this path now is not the one mapped. */
	n += (size_t)maps_line(maps + n, sizeof(maps) - n, 0x40000, "r-xp", "files/swapped.so", 1000);
	n += (size_t)snprintf(maps + n, sizeof(maps) - n,
			      "50000-51000 r-xp 00000000 08:01 999999 %s/files/gone.so (deleted)\n", root);
	n += (size_t)snprintf(maps + n, sizeof(maps) - n, "7ffd0000-7ffd1000 r-xp 00000000 00:00 0  [vdso]\n");
	put("42/maps", maps, n);
	put("42/environ", env, sizeof(env) - 1); /* no NUL after the last */
	put("42/cmdline", cmdline, sizeof(cmdline) - 1);
	put("42/stat", stat, sizeof(stat) - 1);
	snprintf(link, sizeof(link), "%s/42/exe", root);
	snprintf(target, sizeof(target), "%s/files/prog", root);
	assert_int_equal(symlink(target, link), 0);
}

static const struct ct_loaded *object(const struct ct_proc *p, const char *base)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (strcmp(ct_path_base(p->objects[i].path), base) == 0)
			return &p->objects[i];
	return NULL;
}

static const char *var(const struct ct_proc *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nenv; i++)
		if (strcmp(p->env[i].name, name) == 0)
			return p->env[i].value;
	return NULL;
}

static void test_process(void **state)
{
	struct ct_trace t;
	const struct ct_proc *p;
	const struct ct_loaded *o;
	char why[256];

	(void)state;
	make_proc42();
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_pid(&t, root, 42, true, why, sizeof(why)), 0);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_true(p->running);
	assert_int_equal(p->pid, 42);
	assert_int_equal(p->ppid, 7);
	assert_int_equal(p->argc, 3);
	assert_string_equal(p->argv[2], "import torch");
	assert_non_null(p->exe);
	/* The program, cudart once (two mappings), the path with a blank. */
	assert_int_equal(p->nobjects, 3);
	o = object(p, "prog");
	assert_non_null(o);
	assert_true(o->main);
	assert_non_null(object(p, "libcudart.so.13"));
	o = object(p, "libx.so");
	assert_non_null(o);
	assert_non_null(strstr(o->path, "/lib dir/libx.so"));
	/* Data is no object; the swapped file and the deleted one are left out, counted. */
	assert_null(object(p, "locale-archive"));
	assert_null(object(p, "swapped.so"));
	assert_int_equal(p->proc_unverified, 2);
	/* The variables a trace keeps, and no other. */
	assert_string_equal(var(p, "LD_LIBRARY_PATH"), "/opt/x");
	assert_string_equal(var(p, "CUDA_VISIBLE_DEVICES"), "0");
	assert_null(var(p, "GITHUB_TOKEN"));
	assert_null(var(p, "HOME"));
	assert_false(p->proc_env_unread);
	ct_trace_release(&t);
}

/*
 * A process read whole pins each file it keeps: a file swapped in at the
 * path afterwards is never what is read (root's ps reading a hostile
 * user's process). The list (cuda_only) pins nothing.
 */
static void test_pinned(void **state)
{
	struct ct_trace t;
	char why[256], path[512], tmp[512], buf[8] = { 0 };
	int fd;

	(void)state;
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_pid(&t, root, 42, false, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/files/libcudart.so.13", root);
	snprintf(tmp, sizeof(tmp), "%s/files/new", root);
	put("files/new", "NEW", 3);
	assert_int_equal(rename(tmp, path), 0);
	fd = ct_open_file(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 3);
	close(fd);
	assert_string_equal(buf, "ELF");
	/* A device put at a mapped path is never opened, nor kept. */
	{
		char dev[512];

		snprintf(dev, sizeof(dev), "%s/files/swapped.so", root);
		assert_int_equal(unlink(dev), 0);
		assert_int_equal(symlink("/dev/null", dev), 0);
		assert_int_equal(ct_trace_read_pid(&t, root, 42, false, why, sizeof(why)), 0);
		assert_null(object(&t.procs[t.nprocs - 1], "swapped.so"));
	}
	/* Another process that maps what is at the path now: not the file pinned there. */
	assert_int_equal(ct_trace_read_pid(&t, root, 47, false, why, sizeof(why)), 0);
	assert_int_equal(t.procs[t.nprocs - 1].nobjects, 0);
	assert_int_equal(t.procs[t.nprocs - 1].proc_unverified, 1);
	ct_trace_release(&t);
}

static void test_unreadable(void **state)
{
	struct ct_trace t;
	char why[256], maps[512];
	int n;

	(void)state;
	ct_trace_init(&t);
	/* Gone. */
	assert_int_equal(ct_trace_read_pid(&t, root, 43, false, why, sizeof(why)), -ESRCH);
	assert_non_null(strstr(why, "no such process"));
	/* Maps that cannot be read (a folder where the file should be). */
	mk("44");
	mk("44/maps");
	assert_true(ct_trace_read_pid(&t, root, 44, false, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "process 44"));
	/* Garbage and a line far longer than any path: no object, no crash. */
	mk("45");
	{
		size_t len = 100000;
		char *junk = malloc(len);

		memset(junk, 'x', len);
		memcpy(junk, "garbage\n1-2 r-xp\nzz-yy r-xp 0 0:0 5 /x\n", 39);
		put("45/maps", junk, len);
		free(junk);
	}
	assert_int_equal(ct_trace_read_pid(&t, root, 45, false, why, sizeof(why)), 0);
	assert_int_equal(t.procs[t.nprocs - 1].nobjects, 0);
	/* The line longer than any the kernel writes: left out, said. */
	assert_non_null(t.procs[t.nprocs - 1].proc_limit);
	assert_int_equal(t.procs[t.nprocs - 1].proc_limited, 1);
	/* An environment that cannot be read: said, not fatal. */
	assert_true(t.procs[t.nprocs - 1].proc_env_unread);
	/* A zombie: empty maps. No CUDA: not listed with cuda_only. */
	mk("46");
	put("46/maps", "", 0);
	assert_int_equal(ct_trace_read_pid(&t, root, 46, true, why, sizeof(why)), 1);
	assert_int_equal(ct_trace_read_pid(&t, root, 46, false, why, sizeof(why)), 0);
	assert_int_equal(t.procs[t.nprocs - 1].nobjects, 0);
	/* The driver alone, by its real file's name (maps names no libcuda.so.1): listed. */
	mk("50");
	n = maps_line(maps, sizeof(maps), 0x1000, "r-xp", "files/libcuda.so.550.54.15", 0);
	put("50/maps", maps, (size_t)n);
	assert_int_equal(ct_trace_read_pid(&t, root, 50, true, why, sizeof(why)), 0);
	assert_int_equal(t.procs[t.nprocs - 1].nobjects, 1);
	/* No exe link: no program among the objects, the rest still read. */
	mk("47");
	n = maps_line(maps, sizeof(maps), 0x1000, "r-xp", "files/libcudart.so.13", 0);
	put("47/maps", maps, (size_t)n);
	assert_int_equal(ct_trace_read_pid(&t, root, 47, true, why, sizeof(why)), 0);
	assert_null(t.procs[t.nprocs - 1].exe);
	assert_int_equal(t.procs[t.nprocs - 1].nobjects, 1);
	assert_false(t.procs[t.nprocs - 1].objects[0].main);
	ct_trace_release(&t);
}

/*
 * Process 48: 60,000 mappings of distinct data files (tensors shared
 * between DataLoader workers, memory-mapped shards), their paths long
 * enough that maps holds over 16 MiB, then libcudart's code: read whole,
 * cudart found, the process listed. Each file is found again by a hash
 * (60,000 distinct files once took seconds, compared with every other).
 */
static void test_big_maps(void **state)
{
	const size_t nmaps = 60000;
	size_t cap = nmaps * 400 + 1024, n = 0, i;
	char *maps = malloc(cap), pad[300], why[256];
	const struct ct_proc *p;
	struct ct_trace t;

	(void)state;
	assert_non_null(maps);
	memset(pad, 'd', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (i = 0; i < nmaps; i++)
		n += (size_t)snprintf(maps + n, cap - n,
				      "7f%010zx-7f%010zx rw-s 00000000 00:1a %zu    "
				      "/dev/shm/shard-%06zu-%s\n",
				      i * 0x10, i * 0x10 + 0x10, 1000000 + i, i, pad);
	assert_true(n > ((size_t)16 << 20));
	n += (size_t)maps_line(maps + n, cap - n, 0x7ff000000000ul, "r-xp", "files/libcudart.so.13", 0);
	mk("48");
	put("48/maps", maps, n);
	free(maps);
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_pid(&t, root, 48, true, why, sizeof(why)), 0);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_non_null(object(p, "libcudart.so.13"));
	assert_int_equal(p->nobjects, 1);
	assert_int_equal(p->proc_unverified, 0);
	assert_null(p->proc_limit);
	ct_trace_release(&t);
}

/*
 * Past the limit on files kept (65,536 with code): the rest is left out,
 * counted, and the limit said; cudart past it still makes the process
 * one that maps CUDA (the list).
 */
static void test_maps_limit(void **state)
{
	const size_t nmaps = 65536 + 10;
	size_t cap = nmaps * 80 + 1024, n = 0, i;
	char *maps = malloc(cap), why[256];
	const struct ct_proc *p;
	struct ct_trace t;

	(void)state;
	assert_non_null(maps);
	for (i = 0; i < nmaps; i++)
		n += (size_t)snprintf(maps + n, cap - n,
				      "7f%010zx-7f%010zx r-xp 00000000 00:1a %zu /nowhere/lib%zu.so\n",
				      i * 0x10, i * 0x10 + 0x10, 1000000 + i, i);
	n += (size_t)maps_line(maps + n, cap - n, 0x7ff000000000ul, "r-xp", "files/libcudart.so.13", 0);
	mk("49");
	put("49/maps", maps, n);
	free(maps);
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_pid(&t, root, 49, true, why, sizeof(why)), 0);
	p = &t.procs[0];
	assert_non_null(p->proc_limit);
	assert_non_null(strstr(p->proc_limit, "65536"));
	assert_int_equal(p->proc_limited, 11);
	/* The files kept are not there: left out, counted. */
	assert_int_equal(p->proc_unverified, 65536);
	ct_trace_release(&t);
}

static void test_pids(void **state)
{
	pid_t *pids;
	size_t n;

	(void)state;
	mk("pids");
	snprintf(root + strlen(root), sizeof(root) - strlen(root), "/pids");
	mk("1");
	mk("300");
	mk("42");
	mk("abc");
	mk("007");
	put("12", "not a folder", 12);
	assert_int_equal(ct_proc_pids(root, true, 0, &pids, &n), 0);
	root[strlen(root) - 5] = '\0';
	/* Ascending, numbers only (a file counts: /proc holds folders only). */
	assert_true(n >= 3);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[n - 1], 300);
	free(pids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_big_maps),
		cmocka_unit_test(test_maps_limit),
		cmocka_unit_test(test_pids),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

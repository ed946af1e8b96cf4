/*
 * Reading traces (cli/trace/trace.c, docs/trace-format.md): hand-written .jsonl
 * files in a temporary directory go through ct_trace_read_dir and
 * ct_trace_link, and the joins come out right: searches with their
 * candidates and the object they found (or the one already loaded),
 * dlopen requests with their search and dlerror text, module, driver,
 * exec and exit records, parents of exec'd and forked images. Damaged
 * files (junk, cut last lines, wrong types, huge lines) are counted, never
 * fatal; every prefix of a good file reads cleanly. Also the library-name
 * helpers ct_cuda_library and ct_library_version.
 *
 * Records are written with ' for " so that they stay readable here; no
 * record needs a real '.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "trace.h"

struct tdir {
	char path[64];
};

static int tdir_setup(void **state)
{
	struct tdir *d = malloc(sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/ct-trace-test-XXXXXX");
	if (!mkdtemp(d->path)) {
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

/* The directory, its files and its subdirectories' files (one level). */
static void remove_tree(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char *p;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		assert_true(asprintf(&p, "%s/%s", path, de->d_name) > 0);
		if (unlink(p) != 0 && errno == EISDIR)
			remove_tree(p);
		free(p);
	}
	closedir(dir);
	rmdir(path);
}

static int tdir_teardown(void **state)
{
	struct tdir *d = *state;

	remove_tree(d->path);
	free(d);
	return 0;
}

static char *dir_file(const struct tdir *d, const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", d->path, name) > 0);
	return p;
}

static void write_raw(const struct tdir *d, const char *name, const void *buf,
		      size_t len)
{
	char *path = dir_file(d, name);
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	if (len)
		assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(path);
}

/* Records written with ' for ". */
static void write_records(const struct tdir *d, const char *name, const char *text)
{
	char *copy = strdup(text), *c;

	assert_non_null(copy);
	for (c = copy; *c; c++)
		if (*c == '\'')
			*c = '"';
	write_raw(d, name, copy, strlen(copy));
	free(copy);
}

static void read_trace(const struct tdir *d, struct ct_trace *t)
{
	char why[512] = "";

	ct_trace_init(t);
	if (ct_trace_read_dir(t, d->path, why, sizeof(why)) != 0)
		fail_msg("ct_trace_read_dir: %s", why);
	ct_trace_link(t);
}

/* The process read from this file of the directory. */
static struct ct_proc *proc_of(struct ct_trace *t, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < t->nprocs; i++) {
		const char *f = t->procs[i].file;
		size_t m = strlen(f);

		if (m > n && f[m - n - 1] == '/' && strcmp(f + m - n, name) == 0)
			return &t->procs[i];
	}
	fail_msg("no process from '%s'", name);
	return NULL;
}

static struct ct_loaded *object_at(struct ct_proc *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, path) == 0)
			return &p->objects[i];
	fail_msg("no object '%s'", path);
	return NULL;
}

static struct ct_search *search_id(struct ct_proc *p, int64_t id)
{
	size_t i;

	for (i = 0; i < p->nsearches; i++)
		if (p->searches[i].id == id)
			return &p->searches[i];
	fail_msg("no search %lld", (long long)id);
	return NULL;
}

static struct ct_request *request_named(struct ct_proc *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nrequests; i++)
		if (p->requests[i].name && strcmp(p->requests[i].name, name) == 0)
			return &p->requests[i];
	fail_msg("no request '%s'", name);
	return NULL;
}

#define START(pid, ppid, host, image, t)                                      \
	"{'ev':'start','t':" #t ",'tid':" #pid ",'v':1,'pid':" #pid            \
	",'ppid':" #ppid ",'host':'" host "','image':'" image "'}\n"

static const char normal_trace[] =
	"{'ev':'start','t':1000,'tid':100,'v':1,'shim':'0.1.0','pid':100,'ppid':99,"
	"'host':'vm','image':'286e3cb4163ff35a','auditor':true,'exe':'/opt/app/bin/prog',"
	"'cwd':'/home/u','uid':0,'euid':0,'secure':true,'argv':['prog','-x','a b'],"
	"'ranks':{'RANK':'3'},'env':{'LD_AUDIT':'/lib/libcudatrace.so','PATH':'/bin'}}\n"
	"{'ev':'open','t':1001,'tid':100,'path':'/opt/app/bin/prog','lmid':0,'soname':null,"
	"'main':true,'dev':2049,'ino':11,'size':5000,'mtime':1700000000}\n"
	"{'ev':'open','t':1002,'tid':100,'path':'/lib/libcudatrace.so','lmid':0,"
	"'soname':'libcudatrace.so','dev':2049,'ino':12}\n"
	"{'ev':'search','t':1010,'tid':100,'id':4,'name':'libfoo.so.1','by':'/opt/app/bin/prog'}\n"
	"{'ev':'try','t':1011,'tid':100,'search':4,'path':'/opt/app/lib/libfoo.so.1','via':'runpath'}\n"
	"{'ev':'try','t':1012,'tid':100,'search':4,'path':'/usr/lib/libfoo.so.1','via':'ld.so.cache'}\n"
	"{'ev':'open','t':1013,'tid':100,'path':'/usr/lib/libfoo.so.1','lmid':0,"
	"'soname':'libfoo.so.1','search':4,'name':'libfoo.so.1','by':'/opt/app/bin/prog',"
	"'via':'ld.so.cache','dev':65024,'ino':5316701,'size':15472,'mtime':1796012417}\n"
	"{'ev':'search','t':1020,'tid':100,'id':5,'name':'libns.so','by':'/opt/app/bin/prog'}\n"
	"{'ev':'try','t':1021,'tid':100,'search':5,'path':'/ns/libns.so','via':'rpath'}\n"
	"{'ev':'open','t':1022,'tid':100,'path':'/ns/libns.so','lmid':2,'soname':null,"
	"'search':5,'name':'libns.so','by':'/opt/app/bin/prog','via':'rpath','dev':7,'ino':8}\n"
	"{'ev':'main','t':1030,'tid':100}\n"
	"{'ev':'close','t':1040,'tid':100,'path':'/ns/libns.so'}\n";

static void test_normal_process(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	struct ct_search *s;
	struct ct_loaded *o, *prog, *ns;

	write_records(d, "vm-100-286e3cb4163ff35a.jsonl", normal_trace);
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.bad_files, 0);
	p = proc_of(&t, "vm-100-286e3cb4163ff35a.jsonl");

	/* The start record. */
	assert_true(p->started);
	assert_int_equal(p->pid, 100);
	assert_int_equal(p->ppid, 99);
	assert_int_equal(p->t, 1000);
	assert_string_equal(p->host, "vm");
	assert_string_equal(p->image, "286e3cb4163ff35a");
	assert_string_equal(p->exe, "/opt/app/bin/prog");
	assert_string_equal(p->cwd, "/home/u");
	assert_true(p->auditor);
	assert_true(p->secure);
	assert_int_equal(p->argc, 3);
	assert_string_equal(p->argv[0], "prog");
	assert_string_equal(p->argv[2], "a b");
	assert_int_equal(p->nenv, 2);
	assert_string_equal(p->env[0].name, "LD_AUDIT");
	assert_string_equal(p->env[0].value, "/lib/libcudatrace.so");
	assert_string_equal(ct_proc_env(p, "PATH"), "/bin");
	assert_null(ct_proc_env(p, "CUDA_VISIBLE_DEVICES"));
	assert_int_equal(p->nranks, 1);
	assert_string_equal(p->ranks[0].name, "RANK");
	assert_string_equal(ct_proc_rank(p), "3");
	{
		char cmd[64];

		ct_proc_command(p, cmd, sizeof(cmd), 60);
		assert_string_equal(cmd, "prog -x a b");
		ct_proc_command(p, cmd, sizeof(cmd), 6);
		assert_string_equal(cmd, "pro...");
	}
	assert_true(p->reached_main);
	assert_false(p->fini);
	assert_false(p->exited);
	assert_null(p->parent);
	assert_int_equal(p->bad_lines, 0);
	assert_false(p->cut);
	assert_int_equal(p->dropped, 0);
	assert_int_equal(p->cuinit, -1);
	assert_int_equal(p->ncuinit, 0);
	assert_false(p->driver.present);
	assert_int_equal(p->driver.ngpus, 0);

	/* Objects. */
	assert_int_equal(p->nobjects, 4);
	prog = object_at(p, "/opt/app/bin/prog");
	assert_true(prog->main);
	assert_false(prog->shim);
	assert_null(prog->soname);
	assert_null(prog->search);
	assert_int_equal(prog->size, 5000);
	assert_int_equal(prog->mtime, 1700000000);
	assert_true(object_at(p, "/lib/libcudatrace.so")->shim);
	assert_false(object_at(p, "/lib/libcudatrace.so")->main);

	/* The search, its candidates, and what it found. */
	assert_int_equal(p->nsearches, 2);
	s = search_id(p, 4);
	assert_int_equal(s->t, 1010);
	assert_int_equal(s->tid, 100);
	assert_string_equal(s->name, "libfoo.so.1");
	assert_string_equal(s->by, "/opt/app/bin/prog");
	assert_int_equal(s->ntries, 2);
	assert_string_equal(s->tries[0].path, "/opt/app/lib/libfoo.so.1");
	assert_int_equal(s->tries[0].via, CT_RULE_RUNPATH);
	assert_string_equal(s->tries[1].path, "/usr/lib/libfoo.so.1");
	assert_int_equal(s->tries[1].via, CT_RULE_LD_SO_CACHE);
	o = object_at(p, "/usr/lib/libfoo.so.1");
	assert_ptr_equal(s->found, o);
	assert_ptr_equal(o->search, s);
	assert_false(s->already_loaded);
	assert_null(s->request);
	assert_null(o->request);
	assert_int_equal(o->via, CT_RULE_LD_SO_CACHE);
	assert_string_equal(o->by, "/opt/app/bin/prog");
	assert_string_equal(o->name, "libfoo.so.1");
	assert_string_equal(o->soname, "libfoo.so.1");
	assert_int_equal(o->lmid, 0);
	assert_int_equal(o->dev, 65024);
	assert_int_equal(o->ino, 5316701);
	assert_int_equal(o->size, 15472);
	assert_int_equal(o->mtime, 1796012417);
	assert_int_equal(o->t, 1013);
	assert_false(o->closed);
	assert_false(o->shim);

	/* Another namespace, and unloaded. */
	ns = object_at(p, "/ns/libns.so");
	assert_int_equal(ns->lmid, 2);
	assert_true(ns->closed);
	assert_ptr_equal(search_id(p, 5)->found, ns);
	assert_ptr_equal(ns->search, search_id(p, 5));
	ct_trace_release(&t);
	assert_null(t.procs);
	assert_int_equal(t.nprocs, 0);
}

static void test_dlopen_requests(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	struct ct_request *q;
	struct ct_search *s;

	write_records(d, "h-200-aa.jsonl", START(200, 1, "h", "aa", 100)
		/* Joined: same thread, same name. */
		"{'ev':'dlopen','t':110,'tid':201,'api':'dlopen','name':'libbar.so','flags':2,'caller':'/bin/prog'}\n"
		"{'ev':'search','t':111,'tid':201,'id':1,'name':'libbar.so','by':'/bin/prog'}\n"
		"{'ev':'try','t':112,'tid':201,'search':1,'path':'/l/libbar.so','via':'default'}\n"
		"{'ev':'open','t':113,'tid':201,'path':'/l/libbar.so','search':1,'name':'libbar.so','via':'default'}\n"
		/* A dependency of libbar.so: a search, but not the request's. */
		"{'ev':'search','t':114,'tid':201,'id':2,'name':'libdep.so','by':'/l/libbar.so'}\n"
		/* Another thread's search of the same name is not this request's. */
		"{'ev':'dlopen','t':120,'tid':202,'api':'dlopen','name':'libbaz.so','flags':1}\n"
		"{'ev':'search','t':121,'tid':203,'id':3,'name':'libbaz.so','by':'/bin/prog'}\n"
		/* Same thread, other name: not joined either. */
		"{'ev':'dlopen','t':130,'tid':204,'api':'dlopen','name':'libq.so','flags':1}\n"
		"{'ev':'search','t':131,'tid':204,'id':4,'name':'libother.so','by':'/bin/prog'}\n"
		/* Satisfied by an object already loaded: no search. */
		"{'ev':'dlopen','t':140,'tid':205,'api':'dlopen','name':'libc.so.6','flags':1}\n"
		/* Failed: a search with nothing found, and the program's dlerror text. */
		"{'ev':'dlopen','t':150,'tid':206,'api':'dlmopen','name':'libmissing.so','flags':1,'lmid':-1}\n"
		"{'ev':'search','t':151,'tid':206,'id':5,'name':'libmissing.so','by':'/bin/prog'}\n"
		"{'ev':'try','t':152,'tid':206,'search':5,'path':'/nonexistent-ct/libmissing.so','via':'default'}\n"
		"{'ev':'dlerror','t':153,'tid':206,'text':'libmissing.so: cannot open shared object file'}\n"
		/* Two requests on one thread: the text goes with the latest. */
		"{'ev':'dlopen','t':160,'tid':207,'api':'dlopen','name':'libx1.so','flags':1}\n"
		"{'ev':'dlopen','t':161,'tid':207,'api':'dlopen','name':'libx2.so','flags':1}\n"
		"{'ev':'dlerror','t':162,'tid':207,'text':'libx2.so: nope'}\n"
		/* A dlerror on a thread that asked for nothing goes nowhere. */
		"{'ev':'dlerror','t':170,'tid':999,'text':'stray'}\n"
		/* A dlopen that kept its object, then a dlsym's failure: not the dlopen's. */
		"{'ev':'dlopen','t':180,'tid':208,'api':'dlopen','name':'/l/libkept.so','flags':2}\n"
		"{'ev':'open','t':181,'tid':208,'path':'/l/libkept.so','name':'/l/libkept.so','via':'direct'}\n"
		"{'ev':'dlerror','t':182,'tid':208,'text':'/l/libkept.so: undefined symbol: get_context'}\n"
		/* One that failed on a symbol: mapped, unmapped, its text kept. */
		"{'ev':'dlopen','t':190,'tid':209,'api':'dlopen','name':'/l/libgone.so','flags':2}\n"
		"{'ev':'open','t':191,'tid':209,'path':'/l/libgone.so','name':'/l/libgone.so','via':'direct'}\n"
		"{'ev':'close','t':192,'tid':209,'path':'/l/libgone.so'}\n"
		"{'ev':'dlerror','t':193,'tid':209,'text':'/l/libgone.so: undefined symbol: f'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_int_equal(p->nrequests, 9);
	assert_null(request_named(p, "/l/libkept.so")->error);
	assert_string_equal(request_named(p, "/l/libgone.so")->error, "/l/libgone.so: undefined symbol: f");
	assert_int_equal(p->nsearches, 5);

	q = request_named(p, "libbar.so");
	s = search_id(p, 1);
	assert_ptr_equal(q->search, s);
	assert_ptr_equal(s->request, q);
	assert_ptr_equal(object_at(p, "/l/libbar.so")->request, q);
	assert_ptr_equal(s->found, object_at(p, "/l/libbar.so"));
	assert_string_equal(q->api, "dlopen");
	assert_string_equal(q->caller, "/bin/prog");
	assert_int_equal(q->flags, 2);
	assert_int_equal(q->tid, 201);
	assert_int_equal(q->t, 110);
	assert_false(q->noload);
	assert_null(q->error);
	assert_null(search_id(p, 2)->request);

	q = request_named(p, "libbaz.so");
	assert_null(q->search);
	assert_null(search_id(p, 3)->request);
	assert_null(q->caller);

	assert_null(request_named(p, "libq.so")->search);
	assert_null(search_id(p, 4)->request);

	q = request_named(p, "libc.so.6");
	assert_null(q->search);
	assert_null(q->error);

	q = request_named(p, "libmissing.so");
	s = search_id(p, 5);
	assert_ptr_equal(q->search, s);
	assert_ptr_equal(s->request, q);
	assert_null(s->found);
	assert_false(s->already_loaded);
	assert_string_equal(q->api, "dlmopen");
	assert_int_equal(q->lmid, -1);
	assert_string_equal(q->error, "libmissing.so: cannot open shared object file");

	assert_null(request_named(p, "libx1.so")->error);
	assert_string_equal(request_named(p, "libx2.so")->error, "libx2.so: nope");
	ct_trace_release(&t);
}

/*
 * A dlerror text is a dlopen's only when that dlopen failed: one that
 * opened its object, which is still there, or that an object already
 * loaded satisfied (no search, with the auditor), succeeded, and the text
 * is a later dlsym's (bitsandbytes asks ctypes for a symbol it may lack).
 */
static void test_dlerror_of_failed_dlopen(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "h-300-aa.jsonl",
		"{'ev':'start','t':100,'tid':300,'v':1,'pid':300,'ppid':1,'host':'h','image':'aa','auditor':true}\n"
		/* Opened, still open: the text is a failed dlsym's. */
		"{'ev':'dlopen','t':110,'tid':301,'api':'dlopen','name':'/l/libok.so','flags':2,'caller':'/bin/prog'}\n"
		"{'ev':'search','t':111,'tid':301,'id':1,'name':'/l/libok.so','by':'/bin/prog'}\n"
		"{'ev':'open','t':112,'tid':301,'path':'/l/libok.so','search':1,'name':'/l/libok.so','via':'direct'}\n"
		"{'ev':'dlerror','t':113,'tid':301,'text':'/l/libok.so: undefined symbol: get_context'}\n"
		/* Opened, then its dependency missed and the loader unloaded it: failed. */
		"{'ev':'dlopen','t':120,'tid':302,'api':'dlopen','name':'/l/libdep.so','flags':2,'caller':'/bin/prog'}\n"
		"{'ev':'search','t':121,'tid':302,'id':2,'name':'/l/libdep.so','by':'/bin/prog'}\n"
		"{'ev':'open','t':122,'tid':302,'path':'/l/libdep.so','search':2,'name':'/l/libdep.so','via':'direct'}\n"
		"{'ev':'search','t':123,'tid':302,'id':3,'name':'libgone.so','by':'/l/libdep.so'}\n"
		"{'ev':'close','t':124,'tid':302,'path':'/l/libdep.so'}\n"
		"{'ev':'dlerror','t':125,'tid':302,'text':'libgone.so: cannot open shared object file'}\n"
		/* No search of its own under the auditor: an object already loaded answered. */
		"{'ev':'dlopen','t':130,'tid':303,'api':'dlopen','name':'libc.so.6','flags':2,'caller':'/bin/prog'}\n"
		"{'ev':'dlerror','t':131,'tid':303,'text':'libc.so.6: undefined symbol: nope'}\n"
		/* A search that opened nothing: failed. */
		"{'ev':'dlopen','t':140,'tid':304,'api':'dlopen','name':'libmissing.so','flags':2,'caller':'/bin/prog'}\n"
		"{'ev':'search','t':141,'tid':304,'id':4,'name':'libmissing.so','by':'/bin/prog'}\n"
		"{'ev':'dlerror','t':142,'tid':304,'text':'libmissing.so: cannot open shared object file'}\n"
		/* A later dlsym's text after a dlopen that failed: the first text stays. */
		"{'ev':'dlerror','t':143,'tid':304,'text':'libother.so: undefined symbol: x'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_true(p->auditor);
	assert_null(request_named(p, "/l/libok.so")->error);
	assert_false(object_at(p, "/l/libok.so")->closed);
	assert_string_equal(request_named(p, "/l/libdep.so")->error,
			    "libgone.so: cannot open shared object file");
	assert_null(request_named(p, "libc.so.6")->error);
	assert_string_equal(request_named(p, "libmissing.so")->error,
			    "libmissing.so: cannot open shared object file");
	ct_trace_release(&t);
}

static void test_already_loaded(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	struct ct_search *s;
	struct stat st;
	char *real, *text;

	/* A real file, known to the trace under another path by dev/ino. */
	write_raw(d, "libreal.so.1", "x", 1);
	real = dir_file(d, "libreal.so.1");
	assert_int_equal(stat(real, &st), 0);
	assert_true(asprintf(&text, START(300, 1, "h", "bb", 100)
		"{'ev':'search','t':110,'tid':300,'id':1,'name':'libq.so','by':'/bin/p'}\n"
		"{'ev':'try','t':111,'tid':300,'search':1,'path':'/l/libq.so','via':'default'}\n"
		"{'ev':'open','t':112,'tid':300,'path':'/l/libq.so','search':1,'dev':1,'ino':2}\n"
		"{'ev':'open','t':113,'tid':300,'path':'/elsewhere/libreal.so','dev':%lld,'ino':%lld}\n"
		/* No open: the last candidate is an object loaded earlier. */
		"{'ev':'search','t':120,'tid':300,'id':2,'name':'libq.so','by':'/l/libx.so'}\n"
		"{'ev':'try','t':121,'tid':300,'search':2,'path':'/nonexistent-ct/libq.so','via':'runpath'}\n"
		"{'ev':'try','t':122,'tid':300,'search':2,'path':'/l/libq.so','via':'default'}\n"
		/* No open and nothing loaded there: found nothing. */
		"{'ev':'search','t':130,'tid':300,'id':3,'name':'libnone.so','by':'/bin/p'}\n"
		"{'ev':'try','t':131,'tid':300,'search':3,'path':'/nonexistent-ct/libnone.so','via':'default'}\n"
		/* Loaded only after the search: not already loaded then. */
		"{'ev':'search','t':140,'tid':300,'id':4,'name':'liblate.so','by':'/bin/p'}\n"
		"{'ev':'try','t':141,'tid':300,'search':4,'path':'/l/liblate.so','via':'default'}\n"
		"{'ev':'open','t':150,'tid':300,'path':'/l/liblate.so'}\n"
		/* The same file under another name: matched by dev and ino. */
		"{'ev':'search','t':160,'tid':300,'id':5,'name':'libreal.so.1','by':'/bin/p'}\n"
		"{'ev':'try','t':161,'tid':300,'search':5,'path':'%s','via':'default'}\n"
		/* A name with a slash is opened directly, without candidates. */
		"{'ev':'search','t':170,'tid':300,'id':6,'name':'/l/libq.so','by':'/bin/p'}\n"
		/* No candidates at all. */
		"{'ev':'search','t':180,'tid':300,'id':7,'name':'libzero.so','by':'/bin/p'}\n"
		/*
		 * PyTorch's wheels: an RPATH with ".." mapped cudart, then
		 * ctypes dlopens it by its plain path (the loader answers
		 * with the loaded file, no open record).
		 */
		"{'ev':'open','t':190,'tid':300,'path':'/sp/torch/lib/../../nvidia/cu13/lib/libcudart.so.13','dev':7,'ino':8}\n"
		"{'ev':'search','t':191,'tid':300,'id':8,'name':'/sp/nvidia/cu13/lib/libcudart.so.13','by':'/bin/p'}\n"
		/* The same file here, under a path with a slash. */
		"{'ev':'search','t':192,'tid':300,'id':9,'name':'%s','by':'/bin/p'}\n"
		/* Words that differ: not found. */
		"{'ev':'search','t':193,'tid':300,'id':10,'name':'/sp/nvidia/cu12/lib/libcudart.so.13','by':'/bin/p'}\n",
		(long long)st.st_dev, (long long)st.st_ino, real, real) > 0);
	write_records(d, "h-300-bb.jsonl", text);
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];

	s = search_id(p, 1);
	assert_ptr_equal(s->found, object_at(p, "/l/libq.so"));
	assert_false(s->already_loaded);

	s = search_id(p, 2);
	assert_true(s->already_loaded);
	assert_ptr_equal(s->found, object_at(p, "/l/libq.so"));
	/* The object still belongs to the search that opened it. */
	assert_ptr_equal(object_at(p, "/l/libq.so")->search, search_id(p, 1));

	s = search_id(p, 3);
	assert_null(s->found);
	assert_false(s->already_loaded);

	s = search_id(p, 4);
	assert_null(s->found);
	assert_false(s->already_loaded);

	s = search_id(p, 5);
	assert_true(s->already_loaded);
	assert_ptr_equal(s->found, object_at(p, "/elsewhere/libreal.so"));

	s = search_id(p, 6);
	assert_true(s->already_loaded);
	assert_ptr_equal(s->found, object_at(p, "/l/libq.so"));

	s = search_id(p, 7);
	assert_null(s->found);
	assert_false(s->already_loaded);

	s = search_id(p, 8);
	assert_true(s->already_loaded);
	assert_ptr_equal(s->found,
			 object_at(p, "/sp/torch/lib/../../nvidia/cu13/lib/libcudart.so.13"));
	s = search_id(p, 9);
	assert_true(s->already_loaded);
	assert_ptr_equal(s->found, object_at(p, "/elsewhere/libreal.so"));
	s = search_id(p, 10);
	assert_null(s->found);
	ct_trace_release(&t);
	free(text);
	free(real);
}

static void test_other_records(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p, *quiet;
	struct ct_request *q;
	const struct ct_module *m;

	write_records(d, "h-400-cc.jsonl", START(400, 1, "h", "cc", 100)
		"{'ev':'dropped','records':3}\n"
		"{'ev':'dlopen','t':101,'tid':400,'api':'dlopen','name':'libcudatrace-test-absent.so','flags':6,'noload':true,'caller':'/bin/noload'}\n"
		"{'ev':'cuinit','t':102,'tid':400,'result':100,'caller':'/bin/p'}\n"
		"{'ev':'driver','t':103,'tid':400,'path':'/l/libcuda.so.1','version':12080,'init':0}\n"
		"{'ev':'cuinit','t':104,'tid':400,'result':0,'caller':'/bin/p'}\n"
		"{'ev':'driver','t':105,'tid':400,'path':'/l/libcuda.so.1','version':13000,'init':0,"
		"'devices':[{'index':0,'name':'Tesla T4','cc':'7.5','uuid':'00010203'}]}\n"
		"{'ev':'module','t':106,'tid':400,'api':'cuModuleLoadData','result':209,'caller':'/bin/drvplt',"
		"'image_count':1,'images':[{'kind':'sass','arch':'sm_90a'}]}\n"
		"{'ev':'module','t':107,'tid':400,'api':'cuLinkAddData','result':0,'caller':'/bin/p',"
		"'input':'ptx','name':'k.ptx','size':10}\n"
		"{'ev':'module','t':108,'tid':400,'api':'cuModuleLoad','result':0,'file':'/m/k.cubin'}\n"
		"{'ev':'register','t':109,'tid':400,'caller':'/l/libk.so','wrapper_version':1,"
		"'images':[{'kind':'sass','arch':'sm_80'},{'kind':'ptx','arch':'compute_80','ptx_version':'8.0'}]}\n"
		"{'ev':'dropped','records':4}\n"
		"{'ev':'exec','t':110,'tid':400,'api':'execve','path':'/usr/bin/su','traced':false,'untraced':'setuid'}\n"
		"{'ev':'exec_failed','t':111,'tid':400,'errno':1}\n"
		"{'ev':'exec','t':112,'tid':400,'api':'execvp','path':'/bin/true','traced':true}\n"
		"{'ev':'some_future_record','t':113,'tid':400,'x':[1,2]}\n"
		"{'ev':'fini','t':114,'tid':400}\n"
		"{'ev':'exit','t':115,'tid':400,'api':'_exit','status':3}\n");
	/* A process that did none of it. */
	write_records(d, "h-401-dd.jsonl", START(401, 1, "h", "dd", 200));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 2);
	p = proc_of(&t, "h-400-cc.jsonl");

	q = request_named(p, "libcudatrace-test-absent.so");
	assert_true(q->noload);
	assert_int_equal(q->flags, 6);
	assert_string_equal(q->caller, "/bin/noload");

	assert_int_equal(p->ncuinit, 2);
	assert_int_equal(p->cuinit, 0);
	/* The latest driver record, the one with the devices. */
	assert_true(p->driver.present);
	assert_string_equal(p->driver.path, "/l/libcuda.so.1");
	assert_int_equal(p->driver.version, 13000);
	assert_true(p->driver.has_devices);
	assert_int_equal(p->driver.ngpus, 1);
	assert_int_equal(p->driver.gpus[0].index, 0);
	assert_string_equal(p->driver.gpus[0].name, "Tesla T4");
	assert_string_equal(p->driver.gpus[0].cc, "7.5");
	assert_string_equal(p->driver.gpus[0].uuid, "00010203");

	assert_int_equal(p->nmodules, 4);
	m = &p->modules[0];
	assert_false(m->registration);
	assert_string_equal(m->api, "cuModuleLoadData");
	assert_int_equal(m->result, 209);
	assert_int_equal(m->t, 106);
	assert_string_equal(m->caller, "/bin/drvplt");
	assert_int_equal(m->nimages, 1);
	assert_string_equal(m->images[0].kind, "sass");
	assert_string_equal(m->images[0].arch, "sm_90a");
	assert_null(m->images[0].ptx_version);
	m = &p->modules[1];
	assert_string_equal(m->api, "cuLinkAddData");
	assert_string_equal(m->input, "ptx");
	assert_string_equal(m->name, "k.ptx");
	assert_int_equal(m->nimages, 0);
	assert_null(m->file);
	m = &p->modules[2];
	assert_string_equal(m->file, "/m/k.cubin");
	assert_null(m->caller);
	m = &p->modules[3];
	assert_true(m->registration);
	assert_string_equal(m->api, "__cudaRegisterFatBinary");
	assert_string_equal(m->caller, "/l/libk.so");
	assert_int_equal(m->result, 0);
	assert_int_equal(m->nimages, 2);
	assert_string_equal(m->images[1].kind, "ptx");
	assert_string_equal(m->images[1].arch, "compute_80");
	assert_string_equal(m->images[1].ptx_version, "8.0");
	{
		char words[64];

		ct_images_words(m, words, sizeof(words));
		assert_string_equal(words, "sm_80 compute_80");
	}

	assert_int_equal(p->nexecs, 2);
	assert_string_equal(p->execs[0].api, "execve");
	assert_string_equal(p->execs[0].path, "/usr/bin/su");
	assert_false(p->execs[0].traced);
	assert_string_equal(p->execs[0].untraced, "setuid");
	assert_int_equal(p->execs[0].t, 110);
	assert_string_equal(p->execs[1].api, "execvp");
	assert_true(p->execs[1].traced);
	assert_null(p->execs[1].untraced);

	assert_true(p->fini);
	assert_true(p->exited);
	assert_int_equal(p->exit_status, 3);
	assert_string_equal(p->exit_api, "_exit");
	assert_false(p->reached_main);
	assert_int_equal(p->dropped, 7);
	assert_int_equal(p->bad_lines, 0);

	quiet = proc_of(&t, "h-401-dd.jsonl");
	assert_false(quiet->fini);
	assert_false(quiet->exited);
	assert_false(quiet->reached_main);
	assert_int_equal(quiet->cuinit, -1);
	assert_int_equal(quiet->ncuinit, 0);
	assert_int_equal(quiet->nmodules, 0);
	assert_int_equal(quiet->nexecs, 0);
	assert_int_equal(quiet->dropped, 0);
	ct_trace_release(&t);
}

static void test_junk_files(void **state)
{
	static const unsigned char junk[] = {
		0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0xff, 0xfe, '\n', 0, 0, '{', '\n',
		0x80, 0x81, '"', 'e', 'v', '"', '\n', 0xc3, 0x28,
	};
	struct tdir *d = *state;
	struct ct_trace t;

	write_raw(d, "junk.jsonl", junk, sizeof(junk));
	write_raw(d, "empty.jsonl", "", 0);
	write_raw(d, "blank.jsonl", "\n\n\n", 3);
	write_records(d, "cut.jsonl", "{'ev':'start','t':1,'pid':5");
	write_records(d, "noev.jsonl", "{'t':1,'pid':5}\n[1]\n");
	write_records(d, "good.jsonl", START(7, 1, "h", "ee", 100));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.bad_files, 5);
	assert_int_equal(t.procs[0].pid, 7);
	ct_trace_release(&t);
}

static void test_bad_lines(void **state)
{
	static const char with_nul[] = "{'ev':'main'}\0junk\n";
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	char *text;

	/* A junk line in the middle: counted, and reading goes on. */
	write_records(d, "mid.jsonl", START(10, 1, "h", "ff", 100)
		"\x01\x02 binary \xff\xfe junk\n"
		"{'ev':'main','t':101,'tid':10}\n"
		"{'ev':'exit','t':102,'tid':10,'api':'exit','status':0}\n");
	/* Lines that are JSON but not records. */
	write_records(d, "notrec.jsonl", START(11, 1, "h", "gg", 200)
		"[1,2,3]\n42\n'ev'\nnull\ntrue\n{}\n{'t':5,'tid':11}\n{'EV':'main'}\n"
		"{'ev':'fini','t':201,'tid':11}\n");
	/* The last line cut by a crash: not a bad line, but said. */
	write_records(d, "cut.jsonl", START(12, 1, "h", "hh", 300)
		"{'ev':'main','t':301,'tid':12}\n"
		"{'ev':'exit','t':302,'tid':12,'api':'exit','sta");
	/* A whole last record without its newline is read. */
	write_records(d, "nonl.jsonl", START(13, 1, "h", "ii", 400)
		"{'ev':'fini','t':401,'tid':13}");
	/* A junk line at the end, with its newline: bad, not cut. */
	write_records(d, "junkend.jsonl", START(14, 1, "h", "jj", 500) "{'ev':\n");
	/* CRLF line ends and blank lines. */
	write_records(d, "crlf.jsonl", START(15, 1, "h", "kk", 600)
		"\n{'ev':'main','t':601,'tid':15}\r\n\n");
	/* A NUL inside a line spoils that line only. */
	assert_true(asprintf(&text, "%s", START(16, 1, "h", "ll", 700)) > 0);
	{
		size_t n = strlen(text), i;
		char *all = malloc(n + sizeof(with_nul) - 1 + 40);

		assert_non_null(all);
		memcpy(all, text, n);
		memcpy(all + n, with_nul, sizeof(with_nul) - 1);
		memcpy(all + n + sizeof(with_nul) - 1, "{'ev':'fini'}\n", 14);
		for (i = 0; i < n + sizeof(with_nul) - 1 + 14; i++)
			if (all[i] == '\'')
				all[i] = '"';
		write_raw(d, "nul.jsonl", all, n + sizeof(with_nul) - 1 + 14);
		free(all);
	}
	free(text);
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 7);
	assert_int_equal(t.bad_files, 0);

	p = proc_of(&t, "mid.jsonl");
	assert_int_equal(p->bad_lines, 1);
	assert_false(p->cut);
	assert_int_equal(p->pid, 10);
	assert_true(p->reached_main);
	assert_true(p->exited);

	p = proc_of(&t, "notrec.jsonl");
	assert_int_equal(p->bad_lines, 8);
	assert_false(p->cut);
	assert_true(p->fini);
	assert_false(p->reached_main);

	p = proc_of(&t, "cut.jsonl");
	assert_true(p->cut);
	assert_int_equal(p->bad_lines, 0);
	assert_true(p->reached_main);
	assert_false(p->exited);

	p = proc_of(&t, "nonl.jsonl");
	assert_false(p->cut);
	assert_int_equal(p->bad_lines, 0);
	assert_true(p->fini);

	p = proc_of(&t, "junkend.jsonl");
	assert_false(p->cut);
	assert_int_equal(p->bad_lines, 1);

	p = proc_of(&t, "crlf.jsonl");
	assert_int_equal(p->bad_lines, 0);
	assert_int_equal(p->pid, 15);
	assert_true(p->reached_main);

	p = proc_of(&t, "nul.jsonl");
	assert_int_equal(p->bad_lines, 1);
	assert_false(p->reached_main);
	assert_true(p->fini);
	ct_trace_release(&t);
}

/*
 * A record with a field of the wrong type is not the shim's: counted as a
 * bad line, never read as 0, "" or an empty list ("process 0", a library
 * with an empty name).
 */
static void test_wrong_types(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "types.jsonl",
		"{'ev':'start','t':1,'tid':9,'pid':9,'host':'h','image':'0000000000000009','exe':'/bin/app'}\n"
		"{'ev':'start','t':'late','tid':[],'pid':'x','ppid':{},'host':5,'image':[],"
		"'exe':true,'cwd':null,'argv':'not an array','env':3,'auditor':'yes','secure':1}\n"
		"{'ev':'search','t':1.5,'tid':'a','id':'one','name':7,'by':null}\n"
		"{'ev':'try','search':'one','path':1,'via':2}\n"
		"{'ev':'try','search':null,'path':'/p'}\n"
		"{'ev':'open','path':5,'search':'one','lmid':'a','dev':'x','ino':[],'size':{},'main':'yes','soname':1}\n"
		"{'ev':'close','path':[]}\n"
		"{'ev':'dlopen','name':1,'api':2,'flags':'x','noload':'y','caller':3}\n"
		"{'ev':'dlerror','text':5}\n"
		"{'ev':'module','api':1,'result':'x','images':'none'}\n"
		"{'ev':'register','images':{}}\n"
		"{'ev':'cuinit','result':'bad'}\n"
		"{'ev':'exec','api':1,'path':2,'traced':'no','untraced':3}\n"
		"{'ev':'exit','status':'x','api':4}\n"
		"{'ev':'driver','path':7,'version':'13000','devices':{'0':{'cc':'9.0'}}}\n"
		"{'ev':'switch','api':'setuid','uid':'nobody'}\n"
		"{'ev':5}\n"
		"{'ev':null}\n"
		"{'ev':['start']}\n"
		/* A count is a value, refused on its own (bad_values). */
		"{'ev':'dropped','records':'many'}\n"
		"{'ev':'search','t':2,'tid':9,'id':1,'name':'libx.so','by':null}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_true(p->started);
	assert_int_equal(p->pid, 9);
	assert_string_equal(p->host, "h");
	assert_int_equal(p->bad_lines, 18);
	assert_int_equal(p->bad_values, 1);
	assert_int_equal(p->records, 3);
	/* Only the good search; nothing of the others. */
	assert_int_equal(p->nsearches, 1);
	assert_string_equal(p->searches[0].name, "libx.so");
	assert_int_equal(p->searches[0].ntries, 0);
	assert_int_equal(p->nobjects, 0);
	assert_int_equal(p->nrequests, 0);
	assert_int_equal(p->nmodules, 0);
	assert_false(p->driver.present);
	assert_int_equal(p->ncuinit, 0);
	assert_int_equal(p->nexecs, 0);
	assert_false(p->exited);
	assert_int_equal(p->dropped, 0);
	ct_trace_release(&t);

	/* A file of such records only holds no record. */
	remove_tree(d->path);
	assert_int_equal(mkdir(d->path, 0700), 0);
	write_records(d, "bad.jsonl",
		"{'ev':'start','t':1,'tid':9,'pid':'9','host':'h'}\n"
		"{'ev':'main','t':2,'tid':9,'truncated':'yes'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 0);
	assert_int_equal(t.bad_files, 1);
	ct_trace_release(&t);
}

/* Arrays and objects of the right type holding items of the wrong one: bad records too. */
/*
 * Issue 31, point 9: a record holding a key twice was read by its first
 * one, a script's JSON reader takes the last: refused whole, as a bad
 * line. A start record's env and ranks copy the environment, where a name
 * may be set twice: read as getenv reads it, the first. A run record with
 * a key twice is no run record.
 */
static void test_duplicate_keys(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "h-9-a.jsonl",
		"{'ev':'start','t':1,'tid':9,'v':1,'pid':9,'host':'h','image':'a','run':'0a0a',"
		"'ranks':{'RANK':'0','RANK':'1'},'env':{'PATH':'/bin','PATH':'/usr/bin'}}\n"
		"{'ev':'search','t':2,'tid':9,'id':1,'name':'liba.so','name':'libb.so','by':'/p'}\n"
		"{'ev':'search','t':3,'tid':9,'id':2,'id':3,'name':'libc.so','by':'/p'}\n"
		"{'ev':'driver','t':4,'tid':9,'path':'/l/libcuda.so.1','version':12040,"
		"'devices':[{'index':0,'index':1,'name':'H100','cc':'9.0'}]}\n"
		"{'ev':'exit','t':5,'tid':9,'api':'exit','status':0,'status':1}\n"
		"{'ev':'search','t':6,'tid':9,'id':4,'name':'libd.so','by':'/p','x':{'k':1,'k':2}}\n"
		"{'ev':'search','t':7,'tid':9,'id':5,'name':'libe.so','by':'/p'}\n");
	write_records(d, "h-1.run.json", "{'ev':'run','run':'0a0a','host':'h','pid':9,"
		"'job':'7','job_from':'SLURM_JOB_ID','job':'8'}");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.nruns, 0);
	p = proc_of(&t, "h-9-a.jsonl");
	assert_int_equal(p->bad_lines, 5);
	assert_int_equal(p->nsearches, 1);
	assert_string_equal(p->searches[0].name, "libe.so");
	assert_false(p->driver.present);
	assert_false(p->exited);
	assert_string_equal(ct_proc_rank(p), "0");
	assert_string_equal(ct_proc_env(p, "PATH"), "/bin");
	/* Kept once: report --json never writes a key twice (fuzz_trace found it did). */
	assert_int_equal(p->nenv, 1);
	ct_trace_release(&t);
}

/*
 * Issue 31, point 12: a start record refused (a pid of the wrong type, or
 * twice) left its file's other records a process of their own, "process
 * 0", and a search with a null name a library with an empty name. A start
 * record must name its pid (above 0) and a search its library; a file
 * without a start record (the shim writes one first in every file) is no
 * process: left out, and counted.
 */
static void test_no_start(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	char why[256];

	write_records(d, "h-1-a.jsonl",
		"{'ev':'start','t':5,'tid':5,'v':1,'pid':'1234','ppid':1,'host':'h','image':'a'}\n"
		"{'ev':'open','t':5,'tid':5,'path':'/usr/bin/m','lmid':0,'main':true}\n"
		"{'ev':'search','t':6,'tid':5,'id':1,'name':'libx.so','by':'m'}\n"
		"{'ev':'exit','t':10,'tid':5,'api':'exit','status':1}\n");
	write_records(d, "h-2-b.jsonl",
		"{'ev':'start','t':1,'tid':8,'v':1,'pid':8,'pid':80,'host':'h','image':'b'}\n"
		"{'ev':'main','t':2,'tid':8}\n");
	write_records(d, "h-3-c.jsonl",
		"{'ev':'start','t':1,'tid':8,'v':1,'pid':0,'host':'h','image':'c'}\n"
		"{'ev':'start','t':1,'tid':8,'v':1,'pid':-3,'host':'h','image':'c'}\n"
		"{'ev':'start','t':1,'tid':8,'v':1,'host':'h','image':'c'}\n"
		"{'ev':'main','t':2,'tid':8}\n");
	/* A good start; searches without a name are refused, whole. */
	write_records(d, "h-4-d.jsonl", START(4, 1, "h", "d", 100)
		"{'ev':'search','t':101,'tid':4,'id':1,'name':null,'by':'m'}\n"
		"{'ev':'try','t':101,'tid':4,'search':1,'path':'/x/liby.so','via':'default'}\n"
		"{'ev':'search','t':102,'tid':4,'id':2,'name':'','by':'m'}\n"
		"{'ev':'search','t':103,'tid':4,'id':3,'by':'m'}\n"
		"{'ev':'exit','t':110,'tid':4,'api':'exit','status':0}\n");
	/* The start after another record (a thread that wrote first): still a process. */
	write_records(d, "h-5-e.jsonl",
		"{'ev':'main','t':199,'tid':6}\n"
		"{'ev':'start','t':200,'tid':5,'v':1,'pid':5,'ppid':1,'host':'h','image':'e','run':'0e0e'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 2);
	assert_int_equal(t.unstarted_files, 3);
	assert_int_equal(t.bad_files, 0);
	p = proc_of(&t, "h-4-d.jsonl");
	assert_int_equal(p->pid, 4);
	assert_int_equal(p->nsearches, 0);
	assert_int_equal(p->bad_lines, 3);
	p = proc_of(&t, "h-5-e.jsonl");
	assert_int_equal(p->pid, 5);
	assert_true(p->reached_main);
	ct_trace_release(&t);

	/* One run's files: the one whose start came second is that run's. */
	ct_trace_init(&t);
	t.only_run = "0e0e";
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.procs[0].pid, 5);
	ct_trace_release(&t);
}

static void test_wrong_typed_items(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	char buf[64];

	write_records(d, "items.jsonl",
		"{'ev':'start','t':1,'tid':9,'pid':9,'exe':'/bin/app','argv':['/usr/bin/tool','x'],"
		"'env':{'CUDA_VISIBLE_DEVICES':null,'PATH':'/bin','PATH':'/usr/bin'},"
		"'ranks':{'SLURM_PROCID':'7'}}\n"
		"{'ev':'start','t':1,'tid':9,'pid':9,'argv':[5,'/usr/bin/tool']}\n"
		"{'ev':'start','t':1,'tid':9,'pid':9,'env':{'PATH':1}}\n"
		"{'ev':'start','t':1,'tid':9,'pid':9,'ranks':{'RANK':[]}}\n"
		"{'ev':'driver','t':2,'tid':9,'path':'/l/libcuda.so.1','version':12040,"
		"'devices':[5,{'index':4,'name':'H100','cc':'9.0'}]}\n"
		"{'ev':'driver','t':2,'tid':9,'path':'/l/libcuda.so.1','version':12040,"
		"'devices':[{'index':'x','name':'H100'}]}\n"
		"{'ev':'module','t':3,'tid':9,'api':'cuModuleLoadData','result':209,"
		"'images':[7,{'arch':'sm_90'}]}\n"
		"{'ev':'module','t':3,'tid':9,'api':'cuModuleLoadData','result':209,"
		"'images':[{'kind':1,'arch':'sm_90'}]}\n"
		"{'ev':'driver','t':4,'tid':9,'path':'/l/libcuda.so.1','version':12040,"
		"'devices':[{'index':4,'name':'H100','cc':'9.0','uuid':null}]}\n"
		"{'ev':'module','t':5,'tid':9,'api':'cuModuleLoadData','result':209,"
		"'images':[{'arch':'sm_90'},{'kind':'ptx','arch':'compute_90'}]}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_int_equal(p->bad_lines, 7);
	assert_int_equal(p->argc, 2);
	ct_proc_command(p, buf, sizeof(buf), 60);
	assert_string_equal(buf, "tool x");
	/* env and ranks: every name once; null is none; the first of a name wins. */
	assert_int_equal(p->nenv, 2);
	assert_null(ct_proc_env(p, "CUDA_VISIBLE_DEVICES"));
	assert_string_equal(ct_proc_env(p, "PATH"), "/bin");
	assert_string_equal(ct_proc_rank(p), "7");
	assert_true(p->driver.present);
	assert_int_equal(p->driver.ngpus, 1);
	assert_int_equal(p->driver.gpus[0].index, 4);
	assert_string_equal(p->driver.gpus[0].name, "H100");
	assert_null(p->driver.gpus[0].uuid);
	assert_int_equal(p->nmodules, 1);
	assert_int_equal(p->modules[0].nimages, 2);
	assert_null(p->modules[0].images[0].kind);
	ct_images_words(&p->modules[0], buf, sizeof(buf));
	assert_string_equal(buf, "sm_90 compute_90");
	ct_trace_release(&t);
}

/*
 * Searches and opens before the program's own open record are another
 * auditor's (LD_AUDIT), made in its namespace; a file without that record
 * (a fork child's) has none.
 */
static void test_other_auditor(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	char buf[256];

	write_records(d, "a.jsonl",
		"{'ev':'start','t':1,'tid':9,'pid':9,'image':'0000000000000009',"
		"'env':{'LD_AUDIT':'/b/libcudatrace.so:/x/aud.so'}}\n"
		"{'ev':'open','t':2,'tid':9,'path':'/x/aud.so','lmid':2}\n"
		"{'ev':'search','t':3,'tid':9,'id':1,'name':'ld-linux-x86-64.so.2','by':'/l/libc.so.6'}\n"
		"{'ev':'open','t':4,'tid':9,'path':'/bin/app','lmid':0,'main':true}\n"
		"{'ev':'search','t':5,'tid':9,'id':2,'name':'libgone.so','by':'/bin/app'}\n");
	write_records(d, "b.jsonl",
		"{'ev':'start','t':6,'tid':10,'pid':10,'ppid':9,'image':'0000000000000009'}\n"
		"{'ev':'search','t':7,'tid':10,'id':1,'name':'libgone.so','by':'/bin/app'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 2);
	p = &t.procs[0];
	assert_true(p->objects[0].audit);
	assert_false(p->objects[1].audit);
	assert_true(p->searches[0].audit);
	assert_int_equal(ct_search_known(p, &p->searches[0]), CT_SEARCH_AUDITOR);
	assert_false(p->searches[1].audit);
	assert_string_equal(ct_proc_other_auditors(p, buf, sizeof(buf)), "/x/aud.so");
	assert_false(t.procs[1].searches[0].audit);
	assert_string_equal(ct_proc_other_auditors(&t.procs[1], buf, sizeof(buf)), "");
	ct_trace_release(&t);
}

/* A switch of user or root, and whether the trace ends with it; an exec into another folder. */
static void test_switch(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;

	write_records(d, "a.jsonl",
		"{'ev':'start','t':1,'tid':9,'pid':9,'image':'0000000000000009'}\n"
		"{'ev':'switch','t':2,'tid':9,'api':'chroot','path':'/jail'}\n"
		"{'ev':'main','t':3,'tid':9}\n"
		"{'ev':'switch','t':4,'tid':9,'api':'setresuid','uid':65534}\n");
	write_records(d, "b.jsonl",
		"{'ev':'start','t':5,'tid':10,'pid':10,'image':'0000000000000010'}\n"
		"{'ev':'switch','t':6,'tid':10,'api':'setuid','uid':0}\n"
		"{'ev':'exec','t':7,'tid':10,'api':'execv','path':'/bin/x','traced':true,'dir':'/other'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 2);
	assert_string_equal(t.procs[0].switch_api, "setresuid");
	assert_int_equal(t.procs[0].switch_uid, 65534);
	assert_true(t.procs[0].switch_last);
	assert_string_equal(t.procs[1].switch_api, "setuid");
	assert_false(t.procs[1].switch_last);
	assert_string_equal(t.procs[1].execs[0].dir, "/other");
	ct_trace_release(&t);
}

/* The same process read twice (a folder given twice, a copy of a file) is one. */
static void test_duplicates(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	char why[256];
	static const char start[] =
		"{'ev':'start','t':100,'tid':7,'pid':7,'ppid':1,'host':'h','image':'0000000000000007',"
		"'run':'abc','exe':'/bin/app'}\n";
	char two[512];

	snprintf(two, sizeof(two), "%s{'ev':'main','t':101,'tid':7}\n{'ev':'exit','t':102,'tid':7,'status':0}\n",
		 start);
	write_records(d, "a.jsonl", start);          /* a copy made while it ran */
	write_records(d, "b.jsonl", two);
	write_records(d, "c.jsonl", two);            /* a whole copy */
	/* Another process: same pid, another image (an exec), kept. */
	write_records(d, "d.jsonl",
		"{'ev':'start','t':103,'tid':7,'pid':7,'ppid':1,'host':'h','image':'0000000000000008',"
		"'run':'abc','exe':'/bin/next'}\n");
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 2);
	assert_int_equal(t.duplicate_files, 6);
	/* The fullest copy stays. */
	assert_true(t.procs[0].exited);
	assert_true(t.procs[0].reached_main);
	assert_ptr_equal(t.procs[1].parent, &t.procs[0]);
	assert_ptr_equal(t.procs[0].next_image, &t.procs[1]);
	ct_trace_release(&t);
}

/* A line just under the line limit is read whole; one over it is skipped, said and counted. */
static void test_huge_line(void **state)
{
	static const char head[] = "{\"ev\":\"start\",\"t\":1,\"tid\":20,\"pid\":20,\"exe\":\"";
	size_t n = CT_TRACE_LINE_MAX - 100, i;
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	char *text = malloc(2 * CT_TRACE_LINE_MAX + 512), *w = text;

	assert_non_null(text);
	w += sprintf(w, "%s", head);
	for (i = 0; i < n; i++)
		*w++ = (char)('a' + i % 26);
	w += sprintf(w, "\",\"host\":\"h\"}\n");
	/* One byte over the limit, then a record that must still be read. */
	w += sprintf(w, "{\"ev\":\"exit\",\"api\":\"");
	memset(w, 'x', CT_TRACE_LINE_MAX);
	w += CT_TRACE_LINE_MAX - strlen("{\"ev\":\"exit\",\"api\":\"") - 1;
	w += sprintf(w, "\"}\n{\"ev\":\"main\",\"t\":2,\"tid\":20}\n");
	write_raw(d, "huge.jsonl", text, (size_t)(w - text));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_int_equal(p->bad_lines, 0);
	assert_false(p->cut);
	assert_int_equal(strlen(p->exe), n);
	assert_memory_equal(p->exe, text + strlen(head), n);
	assert_string_equal(p->host, "h");
	assert_true(p->reached_main);
	assert_false(p->exited);
	assert_int_equal(p->limited, 1);
	assert_non_null(p->limit);
	assert_non_null(strstr(p->limit, "longer than 2 MiB"));
	ct_trace_release(&t);
	free(text);
}

/* The other limits: values in a record, records in a file; past them reading goes on or stops, said. */
static void test_limits(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;
	size_t i, len;
	char *text, *w;
	FILE *fp;
	char *path;

	/* A record of CT_TRACE_VALUES_MAX values is read; one more and it is left out. */
	text = malloc(4 * CT_TRACE_VALUES_MAX + 512);
	assert_non_null(text);
	if (!text) /* for the compiler, which cannot see that cmocka's assert ends the test */
		return;
	for (int extra = 0; extra < 2; extra++) {
		w = text + sprintf(text, "%s{\"ev\":\"exec\",\"argv\":[", START(30, 1, "h", "v1", 1));
		/* The object, the value of ev and the array: 3 values besides the items. */
		for (i = 0; i < CT_TRACE_VALUES_MAX - 3 + (size_t)extra; i++)
			w += sprintf(w, "%s0", i ? "," : "");
		w += sprintf(w, "]}\n{\"ev\":\"fini\"}\n");
		for (char *c = text; c < w; c++)
			if (*c == '\'')
				*c = '"';
		write_raw(d, "values.jsonl", text, (size_t)(w - text));
		read_trace(d, &t);
		p = proc_of(&t, "values.jsonl");
		assert_int_equal(p->nexecs, extra ? 0 : 1);
		assert_int_equal(p->limited, extra ? 1 : 0);
		assert_true(p->fini);
		assert_int_equal(p->bad_lines, 0);
		if (extra)
			assert_non_null(strstr(p->limit, "524288 values"));
		else
			assert_null(p->limit);
		ct_trace_release(&t);
	}
	free(text);

	/* Records past CT_TRACE_FILE_RECORDS_MAX are counted, not read. */
	path = dir_file(d, "values.jsonl");
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "{\"ev\":\"start\",\"pid\":31}\n");
	for (i = 1; i < CT_TRACE_FILE_RECORDS_MAX; i++)
		fputs("{\"ev\":\"cuinit\",\"result\":0}\n", fp);
	fputs("{\"ev\":\"main\"}\n{\"ev\":\"fini\"}\n", fp);
	assert_int_equal(fclose(fp), 0);
	free(path);
	read_trace(d, &t);
	p = proc_of(&t, "values.jsonl");
	assert_int_equal(p->pid, 31);
	assert_int_equal(p->ncuinit, CT_TRACE_FILE_RECORDS_MAX - 1);
	assert_false(p->reached_main);
	assert_false(p->fini);
	assert_int_equal(p->limited, 2);
	assert_non_null(strstr(p->limit, "1000000 records"));
	assert_int_equal(t.nrecords, CT_TRACE_FILE_RECORDS_MAX);
	len = t.nrecords;
	ct_trace_release(&t);
	assert_int_equal(len, CT_TRACE_FILE_RECORDS_MAX);
}

/* Counts that cannot be true are refused and counted, never wrapped; good ones add up. */
static void test_bad_counts(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "counts.jsonl", START(40, 1, "h", "c1", 1)
		"{'ev':'dropped','records':-5}\n"
		"{'ev':'dropped','records':18446744073709551611}\n"
		"{'ev':'dropped','records':4294967297}\n"
		"{'ev':'dropped','records':2.5}\n"
		"{'ev':'dropped','records':'7'}\n"
		"{'ev':'dropped','records':null}\n"
		"{'ev':'dropped','records':3}\n"
		"{'ev':'dropped','records':4294967296}\n"
		"{'ev':'dropped'}\n");
	read_trace(d, &t);
	p = proc_of(&t, "counts.jsonl");
	assert_int_equal(p->bad_values, 6);
	assert_int_equal(p->dropped, 4294967299UL);
	assert_int_equal(p->bad_lines, 0);
	ct_trace_release(&t);
}

/* A close unloads the latest object of its path still loaded, however many there are. */
static void test_close_order(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "close.jsonl", START(50, 1, "h", "d1", 1)
		"{'ev':'open','t':2,'path':'/l/a.so'}\n"
		"{'ev':'open','t':3,'path':'/l/b.so'}\n"
		"{'ev':'open','t':4,'path':'/l/a.so'}\n"
		"{'ev':'close','t':5,'path':'/l/a.so'}\n"
		"{'ev':'close','t':6,'path':'/l/c.so'}\n"
		"{'ev':'open','t':7,'path':'/l/a.so'}\n"
		"{'ev':'close','t':8,'path':'/l/a.so'}\n"
		"{'ev':'close','t':9,'path':'/l/a.so'}\n"
		"{'ev':'close','t':10,'path':'/l/a.so'}\n"
		"{'ev':'close','t':11}\n");
	read_trace(d, &t);
	p = proc_of(&t, "close.jsonl");
	assert_int_equal(p->nobjects, 4);
	assert_true(p->objects[0].closed);
	assert_false(p->objects[1].closed);
	assert_true(p->objects[2].closed);
	assert_true(p->objects[3].closed);
	ct_trace_release(&t);
}

/* Forged parents that make a cycle of forks end the walk; the auditor is inherited along chains. */
static void test_fork_cycle(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;

	/* 60 and 61 each the other's parent, same image: a cycle. */
	write_records(d, "a.jsonl", START(60, 61, "h", "cy", 10));
	write_records(d, "b.jsonl", START(61, 60, "h", "cy", 11));
	/* A chain of forks below an audited first process. */
	write_records(d, "c.jsonl",
		      "{'ev':'start','t':20,'pid':70,'ppid':1,'host':'h','image':'ch','auditor':true}\n");
	write_records(d, "d.jsonl", START(71, 70, "h", "ch", 21));
	write_records(d, "e.jsonl", START(72, 71, "h", "ch", 22));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 5);
	assert_true(proc_of(&t, "a.jsonl")->forked);
	assert_true(proc_of(&t, "b.jsonl")->forked);
	assert_false(proc_of(&t, "a.jsonl")->auditor);
	assert_false(proc_of(&t, "b.jsonl")->auditor);
	assert_true(proc_of(&t, "e.jsonl")->forked);
	assert_true(proc_of(&t, "e.jsonl")->auditor);
	assert_true(proc_of(&t, "d.jsonl")->auditor);
	ct_trace_release(&t);
}

static void test_linking(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	struct ct_proc *first, *execd, *forked, *started, *other, *orphan;
	size_t i;

	/* Names sort differently from start times. */
	write_records(d, "a-late.jsonl", START(100, 5, "other", "i4", 400));
	write_records(d, "b-exec.jsonl", START(100, 1, "h", "i2", 200));
	write_records(d, "c-fork.jsonl", START(300, 100, "h", "i2", 300));
	write_records(d, "d-first.jsonl", START(100, 1, "h", "i1", 100));
	write_records(d, "e-child.jsonl", START(400, 100, "h", "i9", 350));
	write_records(d, "f-orphan.jsonl", START(500, 77, "h", "i5", 50));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 6);
	for (i = 1; i < t.nprocs; i++)
		assert_true(t.procs[i - 1].t <= t.procs[i].t);

	first = proc_of(&t, "d-first.jsonl");
	execd = proc_of(&t, "b-exec.jsonl");
	forked = proc_of(&t, "c-fork.jsonl");
	started = proc_of(&t, "e-child.jsonl");
	other = proc_of(&t, "a-late.jsonl");
	orphan = proc_of(&t, "f-orphan.jsonl");
	assert_ptr_equal(&t.procs[0], orphan);
	assert_ptr_equal(&t.procs[1], first);
	assert_ptr_equal(&t.procs[5], other);

	/* The same pid later on the same host: the image it exec'd into. */
	assert_ptr_equal(execd->parent, first);
	assert_false(execd->forked);
	assert_null(first->parent);
	/* A child of the newest image of its parent pid, same image: a fork. */
	assert_ptr_equal(forked->parent, execd);
	assert_true(forked->forked);
	/* Another image: started by it. */
	assert_ptr_equal(started->parent, execd);
	assert_false(started->forked);
	/* The same pid on another host is somebody else. */
	assert_null(other->parent);
	assert_null(orphan->parent);
	ct_trace_release(&t);
}

/* How each process ended, and its last CUDA event (ct_proc_ending). */
static void test_endings(void **state)
{
	struct tdir *d = *state;
	struct ct_ending e;
	struct ct_trace t;
	struct ct_proc *p;

	write_records(d, "h-10-a.jsonl", START(10, 1, "h", "a", 100)
		"{'ev':'fini','t':101,'tid':10}\n"
		"{'ev':'exit','t':102,'tid':10,'api':'exit','status':4}\n");
	write_records(d, "h-11-b.jsonl", START(11, 1, "h", "b", 110)
		"{'ev':'main','t':111,'tid':11}\n"
		"{'ev':'fini','t':112,'tid':11}\n");
	/* Killed after CUDA: the search, the open, cuInit and its driver record. */
	write_records(d, "h-12-c.jsonl", START(12, 1, "h", "c", 120)
		"{'ev':'dlopen','t':121,'tid':12,'api':'dlopen','name':'libcuda.so.1','caller':'/bin/c'}\n"
		"{'ev':'search','t':122,'tid':12,'id':1,'name':'libcuda.so.1','by':'/bin/c'}\n"
		"{'ev':'open','t':123,'tid':12,'path':'/l/libcuda.so.1','search':1}\n"
		"{'ev':'cuinit','t':124,'tid':12,'result':100}\n"
		"{'ev':'driver','t':125,'tid':12,'path':'/l/libcuda.so.1','devices':[]}\n"
		"{'ev':'search','t':126,'tid':12,'id':2,'name':'libm.so.6','by':'/bin/c'}\n");
	/* Records lost: its exit may be among them. */
	write_records(d, "h-13-d.jsonl", START(13, 1, "h", "d", 130)
		"{'ev':'dropped','records':2}\n");
	/* An exec that returned, a spawn, then nothing: no exit record. */
	write_records(d, "h-14-e.jsonl", START(14, 1, "h", "e", 140)
		"{'ev':'exec','t':141,'tid':14,'api':'execve','path':'/nope','traced':true}\n"
		"{'ev':'exec_failed','t':142,'tid':14,'api':'execve','errno':2}\n"
		"{'ev':'exec','t':143,'tid':14,'api':'posix_spawn','path':'/bin/x','traced':true}\n"
		"{'ev':'module','t':144,'tid':14,'api':'cuModuleLoadData','result':209,'caller':'/bin/e'}\n");
	/* An exec to a static program, and a traced exec into the next image. */
	write_records(d, "h-15-f.jsonl", START(15, 1, "h", "f", 150)
		"{'ev':'exec','t':151,'tid':15,'api':'execve','path':'/bin/st','traced':false,'untraced':'static'}\n");
	write_records(d, "h-16-g.jsonl", START(16, 1, "h", "g", 160)
		"{'ev':'driver','t':161,'tid':16,'path':'/l/libcuda.so.1','version':13000}\n"
		"{'ev':'exec','t':162,'tid':16,'api':'execve','path':'/bin/next','traced':true}\n");
	write_records(d, "h-16-h.jsonl", START(16, 1, "h", "h", 170));
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 8);

	p = proc_of(&t, "h-10-a.jsonl");
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_EXIT);
	assert_int_equal(e.status, 4);
	assert_false(ct_ending_abnormal(&e));
	assert_int_equal(p->last_cuda, CT_CUDA_EV_NONE);

	ct_proc_ending(proc_of(&t, "h-11-b.jsonl"), &e);
	assert_int_equal(e.kind, CT_END_RETURN);
	assert_false(ct_ending_abnormal(&e));

	p = proc_of(&t, "h-12-c.jsonl");
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_NO_RECORD);
	assert_true(ct_ending_abnormal(&e));
	/* cuInit's own driver record and a search for libm change nothing. */
	assert_int_equal(p->last_cuda, CT_CUDA_EV_CUINIT);
	assert_int_equal(p->cuinit, 100);

	ct_proc_ending(proc_of(&t, "h-13-d.jsonl"), &e);
	assert_int_equal(e.kind, CT_END_UNKNOWN);
	assert_false(ct_ending_abnormal(&e));

	p = proc_of(&t, "h-14-e.jsonl");
	assert_true(p->execs[0].failed);
	assert_false(p->execs[1].failed);
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_NO_RECORD);
	assert_int_equal(p->last_cuda, CT_CUDA_EV_MODULE);
	assert_int_equal(p->last_cuda_index, 0);

	ct_proc_ending(proc_of(&t, "h-15-f.jsonl"), &e);
	assert_int_equal(e.kind, CT_END_EXEC);
	assert_string_equal(e.exec->path, "/bin/st");

	p = proc_of(&t, "h-16-g.jsonl");
	assert_ptr_equal(p->next_image, proc_of(&t, "h-16-h.jsonl"));
	assert_int_equal(p->last_cuda, CT_CUDA_EV_DRIVER);
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_EXEC);
	assert_string_equal(e.exec->path, "/bin/next");
	/* The image it became wrote nothing more: killed, or still running. */
	ct_proc_ending(proc_of(&t, "h-16-h.jsonl"), &e);
	assert_int_equal(e.kind, CT_END_NO_RECORD);
	ct_trace_release(&t);

	/* A CUDA library loaded last: the open, after its dlopen and search. */
	write_records(d, "h-12-c.jsonl", START(12, 1, "h", "c", 120)
		"{'ev':'cuinit','t':121,'tid':12,'result':0}\n"
		"{'ev':'dlopen','t':122,'tid':12,'api':'dlopen','name':'libcublas.so.13','caller':'/bin/c'}\n"
		"{'ev':'search','t':123,'tid':12,'id':1,'name':'libcublas.so.13','by':'/bin/c'}\n"
		"{'ev':'open','t':124,'tid':12,'path':'/l/libcublas.so.13','search':1}\n");
	read_trace(d, &t);
	p = proc_of(&t, "h-12-c.jsonl");
	assert_int_equal(p->last_cuda, CT_CUDA_EV_OPEN);
	assert_string_equal(p->objects[p->last_cuda_index].path, "/l/libcublas.so.13");
	ct_trace_release(&t);
}

/* Run records: how the program cudatrace started ended; a static one stands for its process. */
static void test_run_records(void **state)
{
	struct tdir *d = *state;
	struct ct_ending e;
	struct ct_trace t;
	struct ct_proc *p;
	struct ct_run r;
	const char *argv[] = { "./st", "--secret=x" };

	/* A run whose program exec'd: the record is its last image's. */
	write_records(d, "h-20-a.jsonl", "{'ev':'start','t':100,'tid':20,'v':1,'pid':20,'ppid':19,"
		"'host':'h','image':'a','run':'0a0a'}\n{'ev':'fini','t':101,'tid':20}\n");
	write_records(d, "h-20-b.jsonl", "{'ev':'start','t':200,'tid':20,'v':1,'pid':20,'ppid':19,"
		"'host':'h','image':'b','run':'0a0a'}\n");
	/* The same pid in another run, and on another host: not this run's. */
	write_records(d, "h-20-c.jsonl", "{'ev':'start','t':300,'tid':20,'v':1,'pid':20,'ppid':1,"
		"'host':'h','image':'c','run':'0b0b'}\n");
	write_records(d, "o-20-d.jsonl", "{'ev':'start','t':400,'tid':20,'v':1,'pid':20,'ppid':1,"
		"'host':'o','image':'d','run':'0a0a'}\n");
	write_records(d, "h-19.run.json", "{'ev':'run','run':'0a0a','host':'h','command':'/bin/a',"
		"'argv':['a'],'pid':20,'t':90,'signal':11,'seconds':0.1}");
	/* A static program: no trace file, its record stands for it. */
	write_records(d, "h-29.run.json", "{'ev':'run','run':'0c0c','host':'h','command':'/bin/st',"
		"'argv':['st','-v'],'pid':30,'t':500,'exit':3,'untraced':'static','seconds':0.1}");
	/* Damaged or impossible ones: left out, or what is impossible read as absent. */
	write_records(d, "h-39.run.json", "{'ev':'run','run':'NOT-HEX','pid':40,'untraced':'static'}");
	write_records(d, "h-49.run.json", "{'ev':'run','run':'0d0d','pid':-5,'t':-1,'exit':300,"
		"'signal':9999,'untraced':'static'}");
	write_records(d, "h-59.run.json", "{'ev':'run','run':'0e0e','pid':60,'untr");
	read_trace(d, &t);
	assert_int_equal(t.nruns, 3);
	assert_int_equal(t.nprocs, 5);

	/* The exec'd image ended as the record says; the first one exec'd. */
	p = proc_of(&t, "h-20-b.jsonl");
	assert_non_null(p->launched);
	assert_string_equal(p->launched->command, "/bin/a");
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_SIGNAL);
	assert_int_equal(e.signal, 11);
	assert_true(ct_ending_abnormal(&e));
	assert_null(proc_of(&t, "h-20-a.jsonl")->launched);
	assert_null(proc_of(&t, "h-20-c.jsonl")->launched);
	assert_null(proc_of(&t, "o-20-d.jsonl")->launched);

	/* The static program, sorted by when it started, with no file. */
	p = &t.procs[t.nprocs - 1];
	assert_int_equal(p->pid, 30);
	assert_int_equal(p->t, 500);
	assert_null(p->file);
	assert_false(p->started);
	assert_string_equal(p->untraced, "static");
	assert_string_equal(p->run, "0c0c");
	assert_string_equal(p->exe, "/bin/st");
	assert_int_equal(p->argc, 2);
	assert_string_equal(p->argv[1], "-v");
	ct_proc_ending(p, &e);
	assert_int_equal(e.kind, CT_END_EXIT);
	assert_int_equal(e.status, 3);
	/* Impossible values: no pid, no process; no status, no signal. */
	assert_string_equal(t.runs[2].run, "0d0d");
	assert_int_equal(t.runs[2].pid, 0);
	assert_int_equal(t.runs[2].t, 0);
	assert_false(t.runs[2].exited);
	assert_int_equal(t.runs[2].signal, 0);
	assert_int_equal(ct_trace_runs(&t), 3);

	/* The same run given again (run's own, when its record could not be written) adds nothing. */
	memset(&r, 0, sizeof(r));
	r.owner = (int64_t)geteuid(); /* as run's own record: its user's */
	r.run = "0c0c";
	r.pid = 31;
	r.untraced = "static";
	ct_trace_add_run(&t, &r);
	assert_int_equal(t.nruns, 3);
	assert_int_equal(t.nprocs, 5);
	ct_trace_release(&t);

	/* Only one run: the others' records are left out, and make no process. */
	ct_trace_init(&t);
	t.only_run = "0a0a";
	{
		char why[256];

		assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	}
	r.run = "0f0f";
	r.host = "h";
	r.command = "/bin/st";
	r.argv = argv;
	r.argc = 2;
	r.pid = 70;
	r.t = 50;
	r.exited = true;
	r.exit_status = 0;
	ct_trace_add_run(&t, &r);
	assert_int_equal(t.nruns, 1);
	r.run = "0a0a";
	ct_trace_add_run(&t, &r);
	assert_int_equal(t.nruns, 1);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 3);
	assert_non_null(proc_of(&t, "h-20-b.jsonl")->launched);
	ct_trace_release(&t);

	/* Given by the caller, its strings copied: a process of its own. */
	ct_trace_init(&t);
	r.run = "1f1f";
	ct_trace_add_run(&t, &r);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 1);
	assert_string_equal(t.procs[0].exe, "/bin/st");
	assert_ptr_not_equal(t.procs[0].argv[1], argv[1]);
	assert_string_equal(t.procs[0].argv[1], "--secret=x");
	assert_ptr_equal(t.procs[0].launched, &t.runs[0]);
	ct_trace_release(&t);
}

/*
 * Jobs: runs whose records name the same job (the same id from the same
 * variable, on any host) are one; every process of a run has its record;
 * a forged job or variable names none; only_job keeps one job's runs.
 */
static void test_jobs(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	const char *from;
	char why[256];

	/* Job 7 of Slurm: two ranks on two hosts, one with a forked child. */
	write_records(d, "a-10-a.jsonl", "{'ev':'start','t':100,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'a','image':'a','run':'0a0a'}\n");
	write_records(d, "a-11-a.jsonl", "{'ev':'start','t':101,'tid':11,'v':1,'pid':11,'ppid':10,"
		"'host':'a','image':'a','run':'0a0a'}\n");
	write_records(d, "b-10-b.jsonl", "{'ev':'start','t':102,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'b','image':'b','run':'0b0b'}\n");
	write_records(d, "a-9.run.json", "{'ev':'run','run':'0a0a','host':'a','pid':10,"
		"'job':'7','job_from':'SLURM_JOB_ID'}");
	write_records(d, "b-9.run.json", "{'ev':'run','run':'0b0b','host':'b','pid':10,"
		"'job':'7','job_from':'SLURM_JOB_ID'}");
	/* The same id from another variable: another job. */
	write_records(d, "c-10-c.jsonl", "{'ev':'start','t':103,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'c','image':'c','run':'0c0c'}\n");
	write_records(d, "c-9.run.json", "{'ev':'run','run':'0c0c','host':'c','pid':10,"
		"'job':'7','job_from':'PBS_JOBID'}");
	/* Forged: a variable not ours, an id with a space; a run without a record. */
	write_records(d, "d-10-d.jsonl", "{'ev':'start','t':104,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'d','image':'d','run':'0d0d'}\n");
	write_records(d, "d-9.run.json", "{'ev':'run','run':'0d0d','host':'d','pid':10,"
		"'job':'7','job_from':'PATH'}");
	write_records(d, "e-10-e.jsonl", "{'ev':'start','t':105,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'e','image':'e','run':'0e0e'}\n");
	write_records(d, "e-9.run.json", "{'ev':'run','run':'0e0e','host':'e','pid':10,"
		"'job':'7 8','job_from':'SLURM_JOB_ID'}");
	write_records(d, "f-10-f.jsonl", "{'ev':'start','t':106,'tid':10,'v':1,'pid':10,'ppid':9,"
		"'host':'f','image':'f','run':'0f0f'}\n");
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 7);
	assert_int_equal(ct_trace_runs(&t), 6);
	assert_int_equal(ct_trace_jobs(&t), 5);
	/* The forked child has its run's record, and so its job. */
	assert_ptr_equal(proc_of(&t, "a-11-a.jsonl")->run_rec, proc_of(&t, "a-10-a.jsonl")->launched);
	assert_string_equal(ct_proc_job(proc_of(&t, "a-11-a.jsonl"), &from), "7");
	assert_string_equal(from, "SLURM_JOB_ID");
	assert_string_equal(ct_proc_job(proc_of(&t, "b-10-b.jsonl"), NULL), "7");
	assert_string_equal(ct_proc_job(proc_of(&t, "c-10-c.jsonl"), &from), "7");
	assert_string_equal(from, "PBS_JOBID");
	assert_null(ct_proc_job(proc_of(&t, "d-10-d.jsonl"), &from));
	assert_null(from);
	assert_null(ct_proc_job(proc_of(&t, "e-10-e.jsonl"), NULL));
	assert_null(proc_of(&t, "f-10-f.jsonl")->run_rec);
	assert_null(ct_proc_job(proc_of(&t, "f-10-f.jsonl"), NULL));
	ct_trace_release(&t);

	/* only_job: job 7's runs (both variables' 7), the others left out and counted. */
	ct_trace_init(&t);
	t.only_job = "7";
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 4);
	assert_int_equal(t.other_run_files, 3);
	assert_int_equal(ct_trace_jobs(&t), 2);
	ct_trace_release(&t);
	ct_trace_init(&t);
	t.only_job = "8";
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 0);
	assert_int_equal(ct_trace_jobs(&t), 0);
	ct_trace_release(&t);
}

/*
 * Issue 31, point 8: a run is its id and the user who owns its files. A
 * job id that the runs of several users name is a job for each (noted,
 * and their ranks no ranks of one job); a rank two runs of one job claim
 * on one host is noted; another user's record or trace with a run id
 * that is this user's neither joins nor replaces this user's. Files are
 * given to nobody (65534) with chown: root only.
 */
static void test_job_owners(void **state)
{
	struct tdir *d = *state;
	const struct ct_job_note *n;
	struct ct_trace t;
	struct ct_proc *p;
	char why[256];
	size_t i;
	static const char *const theirs[] = { "a-20-c.jsonl", "a-6.run.json", "a-21-e.jsonl",
					      "0-forged.run.json", "a-10-copy.jsonl" };

	if (geteuid() != 0)
		skip();
#define JOB_RUN(run, pid, job, from)                                                    \
	"{'ev':'run','run':'" run "','host':'a','pid':" #pid ",'t':1,'exit':0,"            \
	"'job':'" job "','job_from':'" from "'}"
#define RANK_START(run, pid, rank, t)                                                   \
	"{'ev':'start','t':" #t ",'tid':" #pid ",'v':1,'pid':" #pid ",'ppid':1,"            \
	"'host':'a','image':'" run "','run':'" run "','ranks':{'SLURM_PROCID':'" rank "'}}\n"
	/* Root's job 7: ranks 0 and 1, and a second run claiming rank 1 on the same host. */
	write_records(d, "a-10-a.jsonl", RANK_START("0a0a", 10, "0", 100));
	write_records(d, "a-9.run.json", JOB_RUN("0a0a", 10, "7", "SLURM_JOB_ID"));
	write_records(d, "a-11-b.jsonl", RANK_START("0b0b", 11, "1", 101));
	write_records(d, "a-8.run.json", JOB_RUN("0b0b", 11, "7", "SLURM_JOB_ID"));
	write_records(d, "a-12-d.jsonl", RANK_START("0d0d", 12, "1", 102));
	write_records(d, "a-7.run.json", JOB_RUN("0d0d", 12, "7", "SLURM_JOB_ID"));
	/* Nobody's run naming job 7 and its rank 1. */
	write_records(d, "a-20-c.jsonl", RANK_START("0c0c", 20, "1", 103));
	write_records(d, "a-6.run.json", JOB_RUN("0c0c", 20, "7", "SLURM_JOB_ID"));
	/* Nobody's trace and record with root's run id, the record read first. */
	write_records(d, "a-21-e.jsonl", RANK_START("0a0a", 21, "5", 104));
	write_records(d, "0-forged.run.json", JOB_RUN("0a0a", 10, "9", "PBS_JOBID"));
	/* Nobody's copy of root's trace, with more records. */
	write_records(d, "a-10-copy.jsonl", RANK_START("0a0a", 10, "0", 100)
		"{'ev':'main','t':105,'tid':10}\n");
#undef JOB_RUN
#undef RANK_START
	for (i = 0; i < ARRAY_LEN(theirs); i++) {
		char *path = dir_file(d, theirs[i]);

		assert_int_equal(chown(path, 65534, 65534), 0);
		free(path);
	}
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 6);
	assert_int_equal(t.duplicate_files, 0);
	assert_int_equal(t.nruns, 5);
	assert_int_equal(ct_trace_runs(&t), 5);
	assert_int_equal(ct_trace_jobs(&t), 3);
	/* Root's own run keeps its record and job; nobody's same id gets nobody's. */
	p = proc_of(&t, "a-10-a.jsonl");
	assert_int_equal(p->owner, 0);
	assert_int_equal(p->run_rec->owner, 0);
	assert_string_equal(ct_proc_job(p, NULL), "7");
	assert_true(p->launched && p->launched->exited && p->launched->owner == 0);
	p = proc_of(&t, "a-21-e.jsonl");
	assert_int_equal(p->owner, 65534);
	assert_string_equal(ct_proc_job(p, NULL), "9");
	assert_false(p->job_shared);
	assert_string_equal(ct_proc_job(proc_of(&t, "a-10-copy.jsonl"), NULL), "9");
	assert_true(proc_of(&t, "a-20-c.jsonl")->job_shared);
	assert_true(proc_of(&t, "a-11-b.jsonl")->job_shared);

	assert_int_equal(t.njob_notes, 2);
	n = &t.job_notes[0];
	assert_int_equal(n->kind, CT_JOB_NOTE_USERS);
	assert_string_equal(n->job, "7");
	assert_string_equal(n->from, "SLURM_JOB_ID");
	assert_int_equal(n->nowners, 2);
	assert_int_equal(n->owners[0], 0);
	assert_int_equal(n->owner_runs[0], 3);
	assert_int_equal(n->owners[1], 65534);
	assert_int_equal(n->owner_runs[1], 1);
	assert_int_equal(n->nruns, 4);
	assert_string_equal(n->runs[0], "0a0a");
	assert_string_equal(n->runs[3], "0d0d");
	n = &t.job_notes[1];
	assert_int_equal(n->kind, CT_JOB_NOTE_RANK);
	assert_string_equal(n->rank, "1");
	assert_string_equal(n->host, "a");
	assert_int_equal(n->nowners, 1);
	assert_int_equal(n->owners[0], 0);
	assert_int_equal(n->nruns, 2);
	assert_string_equal(n->runs[0], "0b0b");
	assert_string_equal(n->runs[1], "0d0d");
	ct_trace_release(&t);

	/* --job 7: both users' job 7, not nobody's processes of run id 0a0a (job 9). */
	ct_trace_init(&t);
	t.only_job = "7";
	assert_int_equal(ct_trace_read_dir(&t, d->path, why, sizeof(why)), 0);
	ct_trace_link(&t);
	assert_int_equal(t.nprocs, 4);
	assert_int_equal(ct_trace_jobs(&t), 2);
	for (i = 0; i < t.nprocs; i++)
		assert_string_equal(ct_proc_job(&t.procs[i], NULL), "7");
	ct_trace_release(&t);
}

static void test_directory(void **state)
{
	struct tdir *d = *state;
	struct ct_trace t;
	char why[512] = "", *missing, *sub;

	/* Missing: -1, and the message names it. */
	missing = dir_file(d, "no-such-dir");
	ct_trace_init(&t);
	assert_int_equal(ct_trace_read_dir(&t, missing, why, sizeof(why)), -1);
	assert_non_null(strstr(why, missing));
	assert_int_equal(t.nprocs, 0);
	ct_trace_release(&t);
	free(missing);

	/* Empty: no processes, nothing bad. */
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 0);
	assert_int_equal(t.bad_files, 0);
	ct_trace_release(&t);

	/* Only *.jsonl files are read. */
	write_records(d, "x.json", START(1, 0, "h", "a1", 1));
	write_records(d, "x.jsonl.bak", START(2, 0, "h", "a2", 2));
	write_records(d, "x.txt", START(3, 0, "h", "a3", 3));
	write_records(d, "jsonl", START(4, 0, "h", "a4", 4));
	write_records(d, "x.JSONL", START(5, 0, "h", "a5", 5));
	write_records(d, "h-6-a6.jsonl", START(6, 0, "h", "a6", 6));
	/* Not recursive. */
	sub = dir_file(d, "sub");
	assert_int_equal(mkdir(sub, 0700), 0);
	write_records(d, "sub/h-8-a8.jsonl", START(8, 0, "h", "a8", 8));
	free(sub);
	read_trace(d, &t);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.procs[0].pid, 6);
	assert_int_equal(t.bad_files, 0);
	ct_trace_release(&t);
}

/* What a trace read says, in words: every count, every process and its records. */
static char *summary(const struct ct_trace *t)
{
	char *out = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	fprintf(f, "procs %zu runs %zu records %zu bytes %llu bad %zu other %zu\n", t->nprocs,
		t->nruns, t->nrecords, (unsigned long long)t->nbytes, t->bad_files,
		t->other_run_files);
	for (i = 0; i < t->nprocs; i++) {
		const struct ct_proc *p = &t->procs[i];

		fprintf(f, "%s pid %lld host %s run %s cuinit %zu bad %zu cut %d limited %zu %s\n",
			p->file ? p->file : "-", (long long)p->pid, p->host ? p->host : "-",
			p->run ? p->run : "-", p->ncuinit, p->bad_lines, p->cut, p->limited,
			p->limit ? p->limit : "-");
		for (k = 0; k < p->nobjects; k++)
			fprintf(f, "  open %s via %d search %s\n", p->objects[k].path,
				(int)p->objects[k].via,
				p->objects[k].search ? p->objects[k].search->name : "-");
		for (k = 0; k < p->nsearches; k++)
			fprintf(f, "  search %s tries %zu found %s already %d\n", p->searches[k].name,
				p->searches[k].ntries,
				p->searches[k].found ? p->searches[k].found->path : "-",
				p->searches[k].already_loaded);
		for (k = 0; k < p->nmodules; k++)
			fprintf(f, "  module %s images %zu %s\n", p->modules[k].caller,
				p->modules[k].nimages,
				p->modules[k].nimages ? p->modules[k].images[0].arch : "-");
	}
	assert_int_equal(fclose(f), 0);
	return out;
}

static char *summary_read(const struct tdir *d, size_t threads, size_t records_max,
			  const char *only_run)
{
	struct ct_trace t;
	char why[512] = "", *out;

	ct_trace_init(&t);
	t.threads = threads;
	t.records_max = records_max;
	t.only_run = only_run;
	if (ct_trace_read_dir(&t, d->path, why, sizeof(why)) != 0)
		fail_msg("ct_trace_read_dir: %s", why);
	ct_trace_link(&t);
	out = summary(&t);
	ct_trace_release(&t);
	return out;
}

/*
 * Files read by several threads give the trace one thread reads: the same
 * processes in the same order with the same records, the same counts,
 * also when the records in all run out in the middle of the folder (the
 * files past that point are read again, in order) and under --run.
 */
static void test_threads(void **state)
{
	struct tdir *d = *state;
	size_t i, k, threads, limits[] = { 0, 1500, 2600, 40 };
	char name[64], text[512];
	char *one, *many;

	for (i = 0; i < 40; i++) {
		char *path;
		FILE *f;

		snprintf(name, sizeof(name), "node%zu-%zu-%016zx.jsonl", i / 8, 100 + i, i);
		path = dir_file(d, name);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "{\"ev\":\"start\",\"t\":%zu,\"tid\":%zu,\"pid\":%zu,\"ppid\":1,"
			   "\"host\":\"node%zu\",\"image\":\"%016zx\",\"run\":\"%s\"}\n",
			1000 + i, 100 + i, 100 + i, i / 8, i, i % 5 ? "aa" : "bb");
		for (k = 0; k < 20 + i * 7; k++)
			fprintf(f, "{\"ev\":\"cuinit\",\"t\":%zu,\"tid\":%zu,\"result\":0}\n",
				2000 + k, 100 + i);
		/* The same library as every other file, and one of its own. */
		fprintf(f, "{\"ev\":\"search\",\"t\":5000,\"tid\":%zu,\"id\":1,\"name\":\"libx.so\","
			   "\"by\":\"/bin/prog\"}\n"
			   "{\"ev\":\"try\",\"t\":5001,\"tid\":%zu,\"search\":1,"
			   "\"path\":\"/opt/x/libx.so\",\"via\":\"runpath\"}\n"
			   "{\"ev\":\"open\",\"t\":5002,\"tid\":%zu,\"path\":\"/opt/x/libx.so\","
			   "\"search\":1,\"via\":\"runpath\",\"dev\":1,\"ino\":2}\n"
			   "{\"ev\":\"search\",\"t\":5003,\"tid\":%zu,\"id\":2,\"name\":\"liby%zu.so\","
			   "\"by\":\"/bin/prog\"}\n"
			   "{\"ev\":\"try\",\"t\":5004,\"tid\":%zu,\"search\":2,"
			   "\"path\":\"/nonexistent/ct-threads/liby%zu.so\",\"via\":\"runpath\"}\n"
			   "{\"ev\":\"register\",\"t\":5005,\"tid\":%zu,\"caller\":\"/opt/x/libx.so\","
			   "\"images\":[{\"kind\":\"sass\",\"arch\":\"sm_%zu\"}]}\n",
			100 + i, 100 + i, 100 + i, 100 + i, i, 100 + i, i, 100 + i, 80 + i % 3);
		if (i % 9 == 4)
			fputs("not a record\n", f);
		assert_int_equal(fclose(f), 0);
		free(path);
		if (i % 10 == 3) {
			snprintf(name, sizeof(name), "node%zu-%zu.run.json", i / 8, 99 + i);
			snprintf(text, sizeof(text), "{'ev':'run','run':'%s','host':'node%zu','pid':%zu,"
						     "'exit':0}\n", i % 5 ? "aa" : "bb", i / 8, 100 + i);
			write_records(d, name, text);
		}
	}
	write_records(d, "node9-1-junk.jsonl", "junk\n");
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		one = summary_read(d, 1, limits[i], NULL);
		/* A limit that runs out inside the folder: files past it were cut. */
		if (limits[i] > 100)
			assert_non_null(strstr(one, "records in all"));
		for (threads = 2; threads <= 8; threads *= 2) {
			many = summary_read(d, threads, limits[i], NULL);
			if (strcmp(one, many) != 0)
				fail_msg("%zu threads, records in all %zu: another trace than one "
					 "thread reads:\n%s\n----\n%s",
					 threads, limits[i], many, one);
			free(many);
		}
		free(one);
	}
	one = summary_read(d, 1, 0, "bb");
	assert_non_null(strstr(one, "procs 8 "));
	many = summary_read(d, 2, 0, "bb");
	assert_string_equal(one, many);
	free(one);
	free(many);
}

/*
 * A FIFO named like a trace file must not stop the reader: nothing ever
 * writes to it. The read runs in a child so that a hang fails the test
 * instead of stopping it.
 */
static void test_fifo(void **state)
{
	struct tdir *d = *state;
	char *fifo = dir_file(d, "h-9-fifo.jsonl");
	pid_t child;
	int status = 0, waited;

	write_records(d, "h-10-aa.jsonl", START(10, 1, "h", "aa", 10));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct ct_trace t;
		char why[256];
		int rc;

		ct_trace_init(&t);
		rc = ct_trace_read_dir(&t, d->path, why, sizeof(why));
		rc = rc == 0 && t.nprocs == 1 ? 0 : 1;
		ct_trace_release(&t);
		_exit(rc);
	}
	for (waited = 0; waited < 100; waited++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (waitpid(child, &status, WNOHANG) == child)
			break;
		nanosleep(&ts, NULL);
	}
	if (waited == 100) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		free(fifo);
		fail_msg("ct_trace_read_dir still blocked on a FIFO after 5 s");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(fifo);
}

/* Every prefix of a good file: read or cut, never a bad line or a crash. */
static void test_every_prefix(void **state)
{
	struct tdir *d = *state;
	char *full = strdup(normal_trace), *c;
	size_t len = strlen(normal_trace), first_line, n;

	assert_non_null(full);
	for (c = full; *c; c++)
		if (*c == '\'')
			*c = '"';
	first_line = (size_t)(strchr(full, '\n') - full);
	for (n = 0; n <= len; n++) {
		struct ct_trace t;
		/* Ends at the end of a record, with or without its newline. */
		bool whole = n > 0 && (full[n - 1] == '\n' || full[n] == '\n');

		write_raw(d, "p.jsonl", full, n);
		read_trace(d, &t);
		if (n < first_line) {
			/* Not even the start record: not a process. */
			assert_int_equal(t.nprocs, 0);
			assert_int_equal(t.bad_files, 1);
		} else {
			assert_int_equal(t.nprocs, 1);
			assert_int_equal(t.bad_files, 0);
			assert_int_equal(t.procs[0].bad_lines, 0);
			if (t.procs[0].cut == whole)
				fail_msg("prefix of %zu bytes: cut %d", n,
					 (int)t.procs[0].cut);
			assert_int_equal(t.procs[0].pid, 100);
		}
		ct_trace_release(&t);
	}
	free(full);
}

static void test_cuda_library(void **state)
{
	static const char *const yes[] = {
		"libcudart.so.13", "libcublasLt.so.13", "libcudnn_ops.so.9",
		"libcuda.so.1", "/a/b/libnccl.so.2", "libcuda.so", "libcublas.so.12",
		"/usr/local/cuda/lib64/libnvrtc.so.13", "libcufft.so.12",
		"libnvidia-ml.so.1", "libnvJitLink.so.13",
	};
	static const char *const no[] = {
		"libc.so.6", "libtorch.so", "libcudatrace.so", "/a/b/libcudatrace.so",
		"libcudart_static.a", "", "/a/libcuda.so.1/libm.so.6", "cudart.so",
		"libcu.so", "liblibcuda.so",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(yes); i++)
		if (!ct_cuda_library(yes[i]))
			fail_msg("'%s' is not a CUDA library?", yes[i]);
	for (i = 0; i < ARRAY_LEN(no); i++)
		if (ct_cuda_library(no[i]))
			fail_msg("'%s' is a CUDA library?", no[i]);
}

static void test_library_version(void **state)
{
	struct tdir *d = *state;
	char buf[64], small[4], *real, *link, *plain;

	write_raw(d, "libx.so.13.0.96", "x", 1);
	real = dir_file(d, "libx.so.13.0.96");
	link = dir_file(d, "libx.so.13");
	assert_int_equal(symlink("libx.so.13.0.96", link), 0);
	/* The real file's version, through the link. */
	assert_ptr_equal(ct_library_version(link, buf, sizeof(buf)), buf);
	assert_string_equal(buf, "13.0.96");
	assert_string_equal(ct_library_version(real, buf, sizeof(buf)), "13.0.96");
	/* Cut to the buffer. */
	assert_string_equal(ct_library_version(link, small, sizeof(small)), "13.");
	/* A path that does not exist is read as it is. */
	assert_string_equal(ct_library_version("/nonexistent-ct/libcudart.so.12.4.127",
					       buf, sizeof(buf)), "12.4.127");
	/* No ".so.": no version. */
	strcpy(buf, "junk");
	assert_string_equal(ct_library_version("/nonexistent-ct/libcudart.so", buf,
					       sizeof(buf)), "");
	assert_string_equal(ct_library_version("libfoo", buf, sizeof(buf)), "");
	assert_string_equal(ct_library_version("/a.so.1/libz.so", buf, sizeof(buf)), "");
	/* An unversioned real file. */
	write_raw(d, "libplain.so", "x", 1);
	plain = dir_file(d, "libplain.so");
	assert_string_equal(ct_library_version(plain, buf, sizeof(buf)), "");
	free(plain);
	free(link);
	free(real);
}

#define T(f) cmocka_unit_test_setup_teardown(f, tdir_setup, tdir_teardown)

/*
 * A search's candidates folded by directory, as run's facts and the
 * findings' evidence show them: each directory after the glibc-hwcaps and
 * legacy subdirectories the loader tried in it first.
 */
static void test_try_runs(void **state)
{
	static const struct ct_try tries[] = {
		{ "/a/glibc-hwcaps/x86-64-v3/libx.so", CT_RULE_LD_LIBRARY_PATH },
		{ "/a/glibc-hwcaps/x86-64-v2/libx.so", CT_RULE_LD_LIBRARY_PATH },
		{ "/a/libx.so", CT_RULE_LD_LIBRARY_PATH },
		{ "/opt/lib/libx.so", CT_RULE_RUNPATH },
		{ "/usr/lib/tls/haswell/libx.so", CT_RULE_DEFAULT },
		{ "/usr/lib/libx.so", CT_RULE_DEFAULT },
	};
	struct ct_try_run *runs;
	size_t n;

	(void)state;
	runs = ct_try_runs(tries, ARRAY_LEN(tries), &n);
	assert_int_equal(n, 3);
	assert_int_equal(runs[0].dir_len, 2);
	assert_memory_equal(runs[0].dir, "/a", 2);
	assert_int_equal(runs[0].nsubdirs, 2);
	assert_int_equal(runs[0].via, CT_RULE_LD_LIBRARY_PATH);
	assert_memory_equal(runs[1].dir, "/opt/lib", 8);
	assert_int_equal(runs[1].dir_len, 8);
	assert_int_equal(runs[1].nsubdirs, 0);
	assert_int_equal(runs[1].via, CT_RULE_RUNPATH);
	assert_memory_equal(runs[2].dir, "/usr/lib", 8);
	assert_int_equal(runs[2].nsubdirs, 1);
	assert_int_equal(runs[2].via, CT_RULE_DEFAULT);
	free(runs);
	runs = ct_try_runs(tries, 0, &n);
	assert_int_equal(n, 0);
	free(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_normal_process),
		T(test_dlopen_requests),
		T(test_dlerror_of_failed_dlopen),
		T(test_already_loaded),
		T(test_other_records),
		T(test_junk_files),
		T(test_bad_lines),
		T(test_wrong_types),
		T(test_wrong_typed_items),
		T(test_duplicate_keys),
		T(test_no_start),
		T(test_duplicates),
		T(test_other_auditor),
		T(test_switch),
		T(test_huge_line),
		T(test_limits),
		T(test_bad_counts),
		T(test_close_order),
		T(test_fork_cycle),
		T(test_linking),
		T(test_endings),
		T(test_run_records),
		T(test_jobs),
		T(test_job_owners),
		T(test_directory),
		T(test_threads),
		T(test_fifo),
		T(test_every_prefix),
		T(test_cuda_library),
		T(test_library_version),
		cmocka_unit_test(test_try_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Host ELF files: find the fatbin containers in their sections and
 * cross-check them with the .nvFatBinSegment wrappers (fatbin.md 1.2-1.3).
 * libelf parses the ELF structures; section bytes are read straight from
 * the scanned buffer after a range check.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#ifndef R_X86_64_RELATIVE
#define R_X86_64_RELATIVE 8
#endif
#ifndef R_X86_64_64
#define R_X86_64_64 1
#endif
#ifndef R_AARCH64_RELATIVE
#define R_AARCH64_RELATIVE 1027
#endif
#ifndef R_AARCH64_ABS64
#define R_AARCH64_ABS64 257
#endif

#define NO_SECTION ((size_t)-1)

/* A .nvFatBinSegment wrapper being resolved to a container. */
struct wrapper {
	uint64_t file_offset; /* of the wrapper itself */
	uint32_t version;
	uint64_t target;      /* resolved file offset of data, or 0 */
	uint64_t vaddr;       /* the data pointer as stored or relocated */
	int resolved;         /* target is meaningful */
	int has_pointer;      /* a stored value or relocation was found */
};

/*
 * Sections that hold ELF metadata, code, relocated pointers (.data.rel.ro:
 * a fatbin has no pointers, so the linker never puts one there) or TLS
 * images, and never a fatbin.
 */
static int never_fatbin(const char *name)
{
	static const char *const skip[] = {
		".eh_frame", ".eh_frame_hdr", ".gcc_except_table", ".got",
		".got.plt", ".comment", ".nvFatBinSegment", "__nv_module_id",
		".interp", ".stapsdt.base", ".data.rel.ro", ".tdata",
	};
	size_t i;

	if (strncmp(name, ".debug", 6) == 0 || strncmp(name, ".zdebug", 7) == 0 ||
	    strncmp(name, ".nvHR", 5) == 0 || strncmp(name, ".plt", 4) == 0)
		return 1;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strcmp(name, skip[i]) == 0)
			return 1;
	return 0;
}

static int is_known_fatbin_section(const char *name)
{
	return strcmp(name, ".nv_fatbin") == 0 ||
	       strcmp(name, "__nv_relfatbin") == 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* An allocated section with bytes in the file: where the loader puts them. */
struct alloc_range {
	uint64_t addr, size, offset;
};

static int cmp_range_addr(const void *a, const void *b)
{
	return cmp_u64(&((const struct alloc_range *)a)->addr,
		       &((const struct alloc_range *)b)->addr);
}

/*
 * The allocated sections with bytes in the file, in header order: looked
 * up once per wrapper, which through libelf cost 2 million instructions
 * on cuBLASLt's 2,782 wrappers and 38 sections (a fifth of its
 * --known-sections scan). *n of them, *disjoint when no two share an
 * address (every real file); NULL when out of memory.
 */
static struct alloc_range *alloc_ranges(Elf *elf, size_t *n, int *disjoint)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shnum, k = 0, i;
	struct alloc_range *r, *by;

	*n = 0;
	*disjoint = 0;
	if (elf_getshdrnum(elf, &shnum) != 0)
		shnum = 0;
	if (!(r = calloc(shnum ? shnum : 1, sizeof(*r))))
		return NULL;
	while (k < shnum && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		r[k].addr = sh.sh_addr;
		r[k].size = sh.sh_size;
		r[k].offset = sh.sh_offset;
		k++;
	}
	*n = k;
	if (k && (by = malloc(k * sizeof(*by)))) {
		memcpy(by, r, k * sizeof(*by));
		qsort(by, k, sizeof(*by), cmp_range_addr);
		*disjoint = 1;
		for (i = 1; i < k && *disjoint; i++)
			*disjoint = by[i].addr - by[i - 1].addr >= by[i - 1].size;
		free(by);
	}
	return r;
}

/*
 * Map a virtual address to a file offset: the first section that holds
 * it. Where no two sections share an address, the one found last (*hint)
 * is tried first: the wrappers point into one or two sections.
 */
static int vaddr_to_offset(const struct alloc_range *r, size_t n, int disjoint,
			   size_t *hint, uint64_t va, uint64_t *off)
{
	size_t k = *hint;

	if (!disjoint || k >= n || va < r[k].addr || va - r[k].addr >= r[k].size)
		for (k = 0; k < n; k++)
			if (va >= r[k].addr && va - r[k].addr < r[k].size)
				break;
	if (k >= n)
		return -ENOENT;
	*hint = k;
	*off = r[k].offset + (va - r[k].addr);
	return 0;
}

/*
 * lld leaves the wrapper pointers 0 in the file; their values live only in
 * R_*_RELATIVE addends of the dynamic relocations. One pass fills them in.
 */
static void relocate_dyn(struct elfscan_file *f, Elf *elf, uint64_t seg_addr,
			 struct wrapper *w, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		uint64_t i, count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_entsize != sizeof(Elf64_Rela) ||
		    !in_range(sh.sh_offset, sh.sh_size, f->len))
			continue;
		count = sh.sh_size / sizeof(Elf64_Rela);
		for (i = 0; i < count; i++) {
			const unsigned char *r =
				f->buf + sh.sh_offset + i * sizeof(Elf64_Rela);
			uint64_t where = rd64(r), type = rd64(r + 8) & 0xffffffff;
			uint64_t k;

			if (where < seg_addr || where - seg_addr >= n * 24 ||
			    (where - seg_addr) % 24 != 8)
				continue;
			if (type != R_X86_64_RELATIVE && type != R_AARCH64_RELATIVE)
				continue;
			k = (where - seg_addr) / 24;
			if (w[k].has_pointer)
				continue;
			w[k].vaddr = rd64(r + 16);
			w[k].has_pointer = 1;
		}
	}
}

/*
 * In a relocatable object the wrapper pointers are relocations against a
 * symbol (usually the .nv_fatbin section symbol) in .rela.nvFatBinSegment.
 */
static void relocate_rel(Elf *elf, size_t seg_index, struct wrapper *w,
			 size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *symdata;
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info != seg_index || sh.sh_entsize == 0)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh))
			continue;
		data = elf_getdata(scn, NULL);
		symdata = elf_getdata(symscn, NULL);
		if (!data || !symdata)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			Elf_Scn *tscn;
			GElf_Shdr tsh;
			uint64_t k, type;

			if (!gelf_getrela(data, (int)i, &rela))
				break;
			type = GELF_R_TYPE(rela.r_info);
			if (type != R_X86_64_64 && type != R_AARCH64_ABS64)
				continue;
			if (rela.r_offset >= n * 24 || rela.r_offset % 24 != 8)
				continue;
			k = rela.r_offset / 24;
			if (!gelf_getsym(symdata, (int)GELF_R_SYM(rela.r_info),
					 &sym))
				continue;
			tscn = elf_getscn(elf, sym.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &tsh))
				continue;
			w[k].has_pointer = 1;
			w[k].vaddr = sym.st_value + (uint64_t)rela.r_addend;
			w[k].target = tsh.sh_offset + w[k].vaddr;
			w[k].resolved = 1;
		}
	}
}

/* Index of the container starting at file offset off, or -1. */
static long container_at(const struct elfscan_file *f, const uint64_t *sorted,
			 const size_t *order, uint64_t off)
{
	size_t lo = 0, hi = f->ncontainers;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid] < off)
			lo = mid + 1;
		else if (sorted[mid] > off)
			hi = mid;
		else
			return (long)order[mid];
	}
	return -1;
}

/* Pairs (offset, index) sorted together through a packed key. */
struct keyed {
	uint64_t off;
	size_t index;
};

static int cmp_keyed(const void *a, const void *b)
{
	return cmp_u64(&((const struct keyed *)a)->off,
		       &((const struct keyed *)b)->off);
}

static int check_wrappers(struct elfscan_file *f, Elf *elf, size_t seg_scn,
			  const GElf_Shdr *seg, size_t seg_section)
{
	struct wrapper *w = NULL;
	struct keyed *keys = NULL;
	struct alloc_range *ranges = NULL;
	uint64_t *sorted = NULL;
	size_t *order = NULL;
	size_t n, i, nranges = 0, hint = 0;
	int need_reloc = 0, rc = 0, in_order = 1, disjoint;

	if (f->elf_class != 64 || !in_range(seg->sh_offset, seg->sh_size, f->len))
		return 0;
	n = seg->sh_size / FATBIN_WRAPPER_SIZE;
	if (n == 0)
		return 0;
	w = calloc(n, sizeof(*w));
	keys = calloc(f->ncontainers + 1, sizeof(*keys));
	sorted = calloc(f->ncontainers + 1, sizeof(*sorted));
	order = calloc(f->ncontainers + 1, sizeof(*order));
	if (!w || !keys || !sorted || !order) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const unsigned char *p =
			f->buf + seg->sh_offset + i * FATBIN_WRAPPER_SIZE;

		w[i].file_offset = seg->sh_offset + i * FATBIN_WRAPPER_SIZE;
		w[i].version = rd32(p + 4);
		w[i].vaddr = rd64(p + 8);
		w[i].has_pointer = w[i].vaddr != 0;
		if (!w[i].has_pointer)
			need_reloc = 1;
	}
	if (need_reloc) {
		if (f->elf_type == ET_REL)
			relocate_rel(elf, seg_scn, w, n);
		else
			relocate_dyn(f, elf, seg->sh_addr, w, n);
	}

	if (!(ranges = alloc_ranges(elf, &nranges, &disjoint))) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < f->ncontainers; i++) {
		keys[i].off = f->containers[i].offset;
		keys[i].index = i;
		in_order &= i == 0 || keys[i - 1].off <= keys[i].off;
	}
	/* The walks find them in file order: sorting them was 9% of the
	 * instructions of cuBLASLt's scan. */
	if (!in_order)
		qsort(keys, f->ncontainers, sizeof(*keys), cmp_keyed);
	for (i = 0; i < f->ncontainers; i++) {
		sorted[i] = keys[i].off;
		order[i] = keys[i].index;
	}

	for (i = 0; i < n && rc == 0; i++) {
		const unsigned char *p = f->buf + w[i].file_offset;
		long ci;

		if (rd32(p) != FATBIN_WRAPPER_MAGIC) {
			/* All-zero slots are alignment padding. */
			if (rd64(p) || rd64(p + 8) || rd64(p + 16))
				rc = es_add_problem(f, ELFSCAN_P_WRAPPER_BAD_MAGIC,
						    w[i].file_offset, rd32(p),
						    -1, -1, seg_section);
			continue;
		}
		f->nwrappers++;
		if (!w[i].has_pointer) {
			rc = es_add_problem(f, ELFSCAN_P_WRAPPER_UNRESOLVED,
					    w[i].file_offset, 0, -1, -1,
					    seg_section);
			continue;
		}
		if (!w[i].resolved &&
		    vaddr_to_offset(ranges, nranges, disjoint, &hint,
				    w[i].vaddr, &w[i].target) == 0)
			w[i].resolved = 1;
		ci = w[i].resolved ? container_at(f, sorted, order, w[i].target)
				   : -1;
		if (ci < 0) {
			rc = es_add_problem(f, ELFSCAN_P_WRAPPER_DANGLING,
					    w[i].file_offset, w[i].vaddr, -1,
					    -1, seg_section);
			continue;
		}
		f->containers[ci].registered = true;
		f->containers[ci].wrapper_version = w[i].version;
	}
	for (i = 0; i < f->ncontainers && rc == 0; i++) {
		const struct elfscan_container *c = &f->containers[i];

		if (c->found == ELFSCAN_FOUND_SECTION && !c->registered)
			rc = es_add_problem(f, ELFSCAN_P_CONTAINER_UNREFERENCED,
					    c->offset, 0, -1, (long)i,
					    c->section);
	}
out:
	free(w);
	free(keys);
	free(ranges);
	free(sorted);
	free(order);
	return rc;
}

/*
 * UPX's pack header ("UPX!", then its version, format, method and sizes)
 * ends the files it packs, in their last 36 bytes or so; the packed ELF
 * keeps no section headers. Such a file holds its code, fatbins included,
 * compressed in a format of UPX's own: a segment scan finds nothing in
 * it, which is no evidence that it has no device code (llama-cpp-cffi
 * 0.1.21's _llama_cli_cuda_12_6 module, 139 MB, is one). Reads only the
 * file's last 64 bytes.
 */
static bool upx_packed(const struct elfscan_file *f)
{
	static const unsigned char magic[4] = { 'U', 'P', 'X', '!' };
	size_t tail = f->len < 64 ? f->len : 64, i;
	const unsigned char *b = f->buf + f->len - tail;

	for (i = 0; i + sizeof(magic) <= tail; i++)
		if (memcmp(b + i, magic, sizeof(magic)) == 0)
			return true;
	return false;
}

/* No section headers (stripped with sstrip and the like): scan segments. */
static int scan_segments(struct elfscan_file *f, Elf *elf)
{
	size_t n, i;
	int rc;

	if (elf_getphdrnum(elf, &n) != 0)
		return es_add_problem(f, ELFSCAN_P_NO_SECTION_HEADERS, 0, 0, -1,
				      -1, NO_SECTION);
	rc = es_add_problem(f, ELFSCAN_P_NO_SECTION_HEADERS, 0, 0, -1, -1,
			    NO_SECTION);
	for (i = 0; i < n && rc == 0; i++) {
		GElf_Phdr ph;
		size_t idx;
		char name[32];
		uint64_t size;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    ph.p_filesz == 0)
			continue;
		size = ph.p_filesz;
		if (!in_range(ph.p_offset, 0, f->len))
			continue;
		if (!in_range(ph.p_offset, size, f->len))
			size = f->len - ph.p_offset;
		snprintf(name, sizeof(name), "[PT_LOAD %zu]", i);
		rc = es_add_section(f, name, ph.p_offset, size, ph.p_vaddr, &idx);
		if (rc == 0)
			rc = es_magic_scan(f, ph.p_offset, ph.p_offset + size,
					   ph.p_vaddr - ph.p_offset, idx);
	}
	return rc;
}

/*
 * One section's scan, run into a file of its own (its containers, images
 * and problems, numbered from 0) and merged into the scanned file in
 * section order, so that threads scanning sections side by side give the
 * results one thread gives.
 */
struct section_job {
	size_t section;
	const char *name;        /* libelf's, until elf_end */
	uint64_t offset, size;   /* what is scanned: clamped to the file, and
				    to the bytes no other job scans */
	uint64_t sh_offset, sh_size, sh_addr; /* as the header says */
	uint64_t delta;
	int known;
	int outside;             /* the header puts it (partly) past the end */
	int alias;               /* its bytes are another job's: not scanned */
	struct elfscan_file out;
	int rc;
};

struct job_queue {
	pthread_mutex_t lock;
	struct section_job **order; /* largest first */
	size_t n, next;
};

static void run_job(const struct elfscan_file *f, struct section_job *j)
{
	struct elfscan_file *o = &j->out;
	int rc = 0;

	elfscan_file_init(o);
	o->type = f->type;
	o->buf = f->buf;
	o->len = f->len;
	o->peek_fd = f->peek_fd;
	o->drop_page = f->drop_page;
	o->each_image = f->each_image;
	/* Shared: each job counts containers in its own section only. */
	o->sections = f->sections;
	o->nsections = f->nsections;
	if (j->outside)
		rc = es_add_problem(o, ELFSCAN_P_SECTION_OUTSIDE_FILE, j->offset,
				    j->sh_size, -1, -1, j->section);
	if (rc == 0 && j->size)
		rc = j->known ? es_walk_section(o, j->offset, j->offset + j->size,
						j->delta, j->section)
			      : es_magic_scan(o, j->offset, j->offset + j->size,
					      j->delta, j->section);
	j->rc = rc;
}

static void *job_thread(void *arg)
{
	struct job_queue *q = ((void **)arg)[0];
	const struct elfscan_file *f = ((void **)arg)[1];

	for (;;) {
		struct section_job *j;

		pthread_mutex_lock(&q->lock);
		j = q->next < q->n ? q->order[q->next++] : NULL;
		pthread_mutex_unlock(&q->lock);
		if (!j)
			return NULL;
		run_job(f, j);
	}
}

/*
 * What a job is expected to cost, in bytes of magic scan. Known sections
 * read headers only: cuBLASLt's 140 MB .nv_fatbin takes what 4 MB of magic
 * scan take (3.7 ms against 13.5 ms for .ldata's 96 MB).
 */
static uint64_t job_weight(const struct section_job *j)
{
	return j->known ? j->size / 32 : j->size;
}

static int cmp_job_size(const void *a, const void *b)
{
	const struct section_job *x = *(struct section_job *const *)a;
	const struct section_job *y = *(struct section_job *const *)b;
	uint64_t wx = job_weight(x), wy = job_weight(y);

	return wx < wy ? 1 : wx > wy ? -1 : (x->section > y->section) - (x->section < y->section);
}

/* Append src (a job's results, numbered from 0) to f, renumbered. */
static int merge_job(struct elfscan_file *f, struct elfscan_file *src)
{
	size_t c0 = f->ncontainers, i0 = f->nimages, k;
	int rc = 0;

	/* Into nothing yet (a file with one section to walk): taken whole. */
	if (c0 == 0 && i0 == 0) {
		free(f->containers);
		free(f->images);
		f->containers = src->containers;
		f->ncontainers = src->ncontainers;
		f->cap_containers = src->cap_containers;
		f->images = src->images;
		f->nimages = src->nimages;
		f->cap_images = src->cap_images;
		src->containers = NULL;
		src->images = NULL;
		src->ncontainers = src->nimages = 0;
		src->cap_containers = src->cap_images = 0;
	}
	for (k = 0; k < src->ncontainers && rc == 0; k++) {
		struct elfscan_container c = src->containers[k];

		c.first_image += i0;
		rc = es_append_container(f, &c);
	}
	for (k = 0; k < src->nimages && rc == 0; k++) {
		struct elfscan_image img = src->images[k];

		img.container += c0;
		rc = es_append_image(f, &img);
	}
	for (k = 0; k < src->nproblems && rc == 0; k++) {
		const struct elfscan_problem *p = &src->problems[k];

		rc = es_add_problem(f, p->code, p->offset, p->value,
				    p->image < 0 ? -1 : p->image + (long)i0,
				    p->container < 0 ? -1 : p->container + (long)c0,
				    p->section);
	}
	f->magic_scanned += src->magic_scanned;
	f->magic_hops += src->magic_hops;
	return rc;
}

static void free_job(struct section_job *j)
{
	free(j->out.containers);
	free(j->out.images);
	free(j->out.problems);
	free(j->out.peek);
	es_payload_release(&j->out);
}

/*
 * A second thread is started when the second largest job weighs this much:
 * a thread costs 0.1 to 2 ms to start here, and a file whose work is one
 * section (cuFFT's .ldata) or one section and crumbs (cuDNN's engines:
 * 24 MB of .cask_resource, mostly hopped) gains nothing from it.
 */
uint64_t es_thread_scan_min = 8u << 20;

static int run_jobs(struct elfscan_file *f, struct section_job *jobs, size_t n,
		    unsigned threads)
{
	struct job_queue q;
	pthread_t *t = NULL;
	void *arg[2];
	size_t i, started = 0;
	int rc = 0;

	memset(&q, 0, sizeof(q));
	q.n = n;
	q.order = calloc(n ? n : 1, sizeof(*q.order));
	if (!q.order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		q.order[i] = &jobs[i];
	if (n > 1)
		qsort(q.order, n, sizeof(*q.order), cmp_job_size);
	pthread_mutex_init(&q.lock, NULL);
	arg[0] = &q;
	arg[1] = f;
	if (threads && n > 1 && job_weight(q.order[1]) >= es_thread_scan_min) {
		if (threads > n - 1)
			threads = (unsigned)(n - 1);
		t = calloc(threads, sizeof(*t));
		for (i = 0; t && i < threads; i++)
			if (pthread_create(&t[started], NULL, job_thread, arg) == 0)
				started++;
	}
	job_thread(arg);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&q.lock);
	free(q.order);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = jobs[i].rc ? jobs[i].rc : merge_job(f, &jobs[i].out);
		free_job(&jobs[i]);
	}
	return rc;
}

/* By start, the longest first, a known section before others there. */
static int cmp_job_range(const void *a, const void *b)
{
	const struct section_job *x = *(struct section_job *const *)a;
	const struct section_job *y = *(struct section_job *const *)b;
	uint64_t ex = x->offset + x->size, ey = y->offset + y->size;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (ex != ey)
		return ex > ey ? -1 : 1;
	if (x->known != y->known)
		return y->known - x->known;
	if (x->sh_size != y->sh_size)
		return x->sh_size > y->sh_size ? -1 : 1;
	return x < y ? -1 : x > y; /* header order */
}

/*
 * Each byte of the file is searched by one job at most. Section headers
 * are the file's word only: 70,000 of them may name one .nv_fatbin, and
 * scanning each would count its containers 70,000 times (and take as
 * long). A job whose bytes another job covers is dropped (no section
 * entry either); one that overlaps another's end keeps its own bytes only,
 * found by the magic scan (a walk must start at a container; none under
 * no_magic_scan). Real files
 * have no overlapping sections; the jobs left keep header order.
 */
static int drop_aliases(struct section_job *jobs, size_t *n, bool no_magic_scan)
{
	struct section_job **by, *zero = NULL;
	uint64_t covered = 0;
	size_t i, k;

	if (*n < 2)
		return 0;
	if (!(by = calloc(*n, sizeof(*by))))
		return -ENOMEM;
	for (i = 0; i < *n; i++)
		by[i] = &jobs[i];
	qsort(by, *n, sizeof(*by), cmp_job_range);
	for (i = 0; i < *n; i++) {
		struct section_job *j = by[i];
		uint64_t end = j->offset + j->size;

		if (!j->size) { /* wholly past the end: one problem per header */
			j->alias = zero && zero->sh_offset == j->sh_offset &&
				   zero->sh_size == j->sh_size;
			zero = j;
			continue;
		}
		if (end <= covered || (j->offset < covered && no_magic_scan)) {
			j->alias = 1;
			continue;
		}
		if (j->offset < covered) {
			j->known = 0;
			j->size = end - covered;
			j->offset = covered;
		}
		covered = end;
	}
	free(by);
	for (i = k = 0; i < *n; i++)
		if (!jobs[i].alias)
			jobs[k++] = jobs[i];
	*n = k;
	return 0;
}

int es_scan_elf(struct elfscan_file *f, const struct elfscan_options *opt)
{
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx, shnum, seg_scn = 0, seg_section = NO_SECTION, njobs = 0, i;
	GElf_Shdr seg_sh = { 0 };
	struct section_job *jobs = NULL;
	int rc = 0;

	elf_version(EV_CURRENT);
	/* libelf only reads an elf_memory() image; the cast drops const. */
	elf = elf_memory((char *)(uintptr_t)f->buf, f->len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		rc = es_add_problem(f, ELFSCAN_P_ELF_ERROR, 0, 0, -1, -1,
				    NO_SECTION);
		goto out;
	}
	f->elf_class = gelf_getclass(elf) == ELFCLASS32 ? 32 : 64;
	f->elf_machine = eh.e_machine;
	f->elf_type = eh.e_type;

	/* A cut-off file: its header promises tables past the end. */
	{
		uint64_t sh_len = (uint64_t)eh.e_shnum * eh.e_shentsize;
		uint64_t ph_len = (uint64_t)eh.e_phnum * eh.e_phentsize;

		if ((eh.e_shnum && !in_range(eh.e_shoff, sh_len, f->len)) ||
		    (eh.e_phnum && !in_range(eh.e_phoff, ph_len, f->len))) {
			uint64_t need = eh.e_shnum ? eh.e_shoff + sh_len : 0;

			if (eh.e_phnum && eh.e_phoff + ph_len > need)
				need = eh.e_phoff + ph_len;
			/* Offsets that wrap are corruption, not truncation. */
			rc = es_add_problem(f,
					    need < f->len ? ELFSCAN_P_ELF_ERROR
							  : ELFSCAN_P_FILE_TRUNCATED,
					    0, need, -1, -1, NO_SECTION);
			goto out;
		}
	}

	if (elf_getshdrnum(elf, &shnum) != 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = es_add_problem(f, ELFSCAN_P_ELF_ERROR, eh.e_shoff, 0, -1,
				    -1, NO_SECTION);
		goto out;
	}
	if (shnum == 0) {
		rc = upx_packed(f) ? es_add_problem(f, ELFSCAN_P_PACKED_UPX, 0, 0, -1, -1,
						    NO_SECTION)
				   : scan_segments(f, elf);
		goto out;
	}

	jobs = calloc(shnum ? shnum : 1, sizeof(*jobs));
	if (!jobs) {
		rc = -ENOMEM;
		goto out;
	}
	while (rc == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		struct section_job *j;
		int known;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			name = "";
		if (strcmp(name, ".nvFatBinSegment") == 0) {
			seg_scn = elf_ndxscn(scn);
			seg_sh = sh;
			continue;
		}
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		known = is_known_fatbin_section(name);
		if (!known && (opt->no_magic_scan || sh.sh_type != SHT_PROGBITS ||
			       (sh.sh_flags & SHF_EXECINSTR) ||
			       sh.sh_size < FATBIN_CONTAINER_HEADER +
						    FATBIN_ENTRY_HEADER_MIN ||
			       never_fatbin(name)))
			continue;
		if (njobs == shnum)
			break;
		j = &jobs[njobs++];
		j->name = name;
		j->sh_offset = sh.sh_offset;
		j->sh_addr = sh.sh_addr;
		j->known = known;
		j->offset = sh.sh_offset;
		j->sh_size = sh.sh_size;
		j->size = sh.sh_size;
		if (!in_range(sh.sh_offset, sh.sh_size, f->len)) {
			j->outside = 1;
			j->size = sh.sh_offset >= f->len ? 0 : f->len - sh.sh_offset;
		}
		/* Alignment is a property of the address the loader uses. */
		j->delta = (f->elf_type != ET_REL && (sh.sh_flags & SHF_ALLOC))
				   ? sh.sh_addr - sh.sh_offset
				   : (uint64_t)0 - sh.sh_offset;
	}
	if (rc == 0)
		rc = drop_aliases(jobs, &njobs, opt->no_magic_scan);
	for (i = 0; i < njobs && rc == 0; i++)
		rc = es_add_section(f, jobs[i].name, jobs[i].sh_offset, jobs[i].sh_size,
				    jobs[i].sh_addr, &jobs[i].section);
	if (rc == 0)
		rc = run_jobs(f, jobs, njobs, opt->threads);
	if (rc == 0 && seg_scn && !opt->no_registration) {
		GElf_Shdr *s = &seg_sh;

		rc = es_add_section(f, ".nvFatBinSegment", s->sh_offset,
				    s->sh_size, s->sh_addr, &seg_section);
		if (rc == 0)
			rc = check_wrappers(f, elf, seg_scn, s, seg_section);
	}
out:
	free(jobs);
	if (elf)
		elf_end(elf);
	return rc;
}

/*
 * Loaded objects and their symbols, read from memory. The dlfcn functions
 * are not used: dlsym would reset the program's pending dlerror() message,
 * and on glibc older than 2.34 they live in libdl, which the shim must not
 * depend on.
 */
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "shim.h"

#if UINTPTR_MAX == 0xffffffffffffffffu
typedef Elf64_Sym Sym;
typedef Elf64_Dyn Dyn;
#define ST_TYPE ELF64_ST_TYPE
#else
typedef Elf32_Sym Sym;
typedef Elf32_Dyn Dyn;
#define ST_TYPE ELF32_ST_TYPE
#endif

extern Dyn _DYNAMIC[];

/* What is known of the object containing an address. */
struct found {
	const char *name; /* "" for the main program */
	uintptr_t base;
	const void *dyn;
	const ElfW(Phdr) *phdr; /* its program headers, or NULL when not known */
	size_t phnum;
	uintptr_t map_start, map_end; /* its mapping, when known (0, 0) */
};

/* glibc 2.35's struct dl_find_object, with room for what may follow. */
struct find_object_result {
	unsigned long long flags;
	void *map_start, *map_end;
	struct link_map *map;
	void *eh_frame;
	void *more[8];
};
typedef int (*find_object_fn)(void *, struct find_object_result *);

static int find_object_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			*(void **)p = ct_symbol_in(
				info->dlpi_addr,
				(const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
				"_dl_find_object");
	return *(void **)p != NULL;
}

/*
 * _dl_find_object (glibc 2.35, in libc) of this namespace's libc, or NULL
 * on an older glibc; looked up at run time to keep the symbol floor.
 */
static find_object_fn loader_find_object(void)
{
	static find_object_fn fn;
	static int looked;
	void *p = NULL;

	if (__atomic_load_n(&looked, __ATOMIC_ACQUIRE))
		return fn;
	dl_iterate_phdr(find_object_cb, &p);
	*(void **)&fn = p;
	__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	return fn;
}

struct find_ctx {
	uintptr_t addr;
	struct found *out;
	bool found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	struct find_ctx *c = p;
	const void *dyn = NULL;
	bool inside = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const void *)start;
		if (ph->p_type == PT_LOAD && c->addr >= start &&
		    c->addr - start < ph->p_memsz)
			inside = true;
	}
	if (!inside)
		return 0;
	c->out->name = info->dlpi_name ? info->dlpi_name : "";
	c->out->base = info->dlpi_addr;
	c->out->dyn = dyn;
	c->out->phdr = info->dlpi_phdr;
	c->out->phnum = info->dlpi_phnum;
	c->out->map_start = c->out->map_end = 0;
	c->found = true;
	return 1;
}

/*
 * dl_iterate_phdr walks only the caller's namespace, and the auditor lives
 * in a namespace of its own; _dl_find_object (glibc 2.35) sees them all,
 * without locks. The first where there is one, else the second.
 */
static bool find_object(const void *addr, struct found *out)
{
	find_object_fn fn = loader_find_object();
	struct find_object_result r;
	struct find_ctx c = { (uintptr_t)addr, out, false };

	if (fn && fn((void *)addr, &r) == 0 && r.map) {
		out->name = r.map->l_name ? r.map->l_name : "";
		out->base = r.map->l_addr;
		out->dyn = r.map->l_ld;
		out->phdr = NULL;
		out->phnum = 0;
		out->map_start = (uintptr_t)r.map_start;
		out->map_end = (uintptr_t)r.map_end;
		return true;
	}
	dl_iterate_phdr(find_cb, &c);
	return c.found;
}

/*
 * The program headers of an object _dl_find_object found: its ELF header
 * is where its mapping starts when its first segment maps the file from
 * offset 0 (what linkers do), and the headers follow it in that segment.
 * Pages the loader read to map it: nothing new is touched.
 */
static bool phdrs_from_mapping(struct found *f)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->map_start;
	uintptr_t ph;

	if (!f->map_start || f->map_end - f->map_start < sizeof(*eh) ||
	    eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum == 0 ||
	    eh->e_phoff > f->map_end - f->map_start)
		return false;
	ph = f->map_start + eh->e_phoff;
	if ((f->map_end - ph) / sizeof(ElfW(Phdr)) < eh->e_phnum)
		return false;
	f->phdr = (const ElfW(Phdr) *)ph;
	f->phnum = eh->e_phnum;
	return true;
}

bool ct_object_file_offset(const void *addr, char *buf, size_t size, uint64_t *offset)
{
	struct found f;
	uintptr_t a = (uintptr_t)addr;
	size_t i;

	buf[0] = '\0';
	if (!find_object(addr, &f) || (!f.phdr && !phdrs_from_mapping(&f)))
		return false;
	for (i = 0; i < f.phnum; i++) {
		const ElfW(Phdr) *ph = &f.phdr[i];
		uintptr_t start = f.base + ph->p_vaddr;

		/* In the part of a segment the file backs (not its .bss). */
		if (ph->p_type != PT_LOAD || a < start || a - start >= ph->p_filesz)
			continue;
		*offset = (uint64_t)ph->p_offset + (uint64_t)(a - start);
		ct_object_of(addr, buf, size);
		return buf[0] != '\0';
	}
	return false;
}

bool ct_object_dynamic(const void *addr, uintptr_t *base, const void **dyn)
{
	struct found f;

	if (!find_object(addr, &f) || !f.dyn)
		return false;
	*base = f.base;
	*dyn = f.dyn;
	return true;
}

/*
 * The main program's path, read from /proc once per process image (a
 * fork runs the same file; an exec starts a new image): a dlopen from the
 * program itself otherwise costs a readlink each time.
 */
static void main_path(char *buf, size_t size)
{
	static char exe[1024];
	static int ready; /* 0: not read; 1: being stored; 2: exe holds it */
	int expect = 0;
	size_t i;
	ssize_t n;

	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) == 2) {
		for (i = 0; exe[i] && i + 1 < size; i++)
			buf[i] = exe[i];
		buf[i] = '\0';
		return;
	}
	n = readlink("/proc/self/exe", buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* Only a whole path is kept, by the first thread to read one. */
	if (n > 0 && (size_t)n < sizeof(exe) && (size_t)n + 1 < size &&
	    __atomic_compare_exchange_n(&ready, &expect, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		for (i = 0; i <= (size_t)n; i++)
			exe[i] = buf[i];
		__atomic_store_n(&ready, 2, __ATOMIC_RELEASE);
	}
}

const char *ct_object_of(const void *addr, char *buf, size_t size)
{
	struct found f;
	size_t i;

	buf[0] = '\0';
	if (!find_object(addr, &f))
		return buf;
	if (!f.name[0]) {
		/* The main program has no name in the link map. */
		main_path(buf, size);
		return buf;
	}
	for (i = 0; f.name[i] && i + 1 < size; i++)
		buf[i] = f.name[i];
	buf[i] = '\0';
	return buf;
}

/* Dynamic-section pointers: glibc relocates most in place, the vDSO not. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
	return v < base ? base + v : v;
}

struct dyninfo {
	const Sym *symtab;
	const char *strtab;
	const uint32_t *gnu_hash;
	const uint32_t *hash;
	const uint16_t *versym;
	uintptr_t base;
};

static void read_dynamic(uintptr_t base, const Dyn *d, struct dyninfo *di)
{
	di->symtab = NULL;
	di->strtab = NULL;
	di->gnu_hash = NULL;
	di->hash = NULL;
	di->versym = NULL;
	di->base = base;
	for (; d && d->d_tag != DT_NULL; d++) {
		uintptr_t v = dyn_ptr(base, d->d_un.d_ptr);

		switch (d->d_tag) {
		case DT_SYMTAB:
			di->symtab = (const Sym *)v;
			break;
		case DT_STRTAB:
			di->strtab = (const char *)v;
			break;
		case DT_GNU_HASH:
			di->gnu_hash = (const uint32_t *)v;
			break;
		case DT_HASH:
			di->hash = (const uint32_t *)v;
			break;
		case DT_VERSYM:
			di->versym = (const uint16_t *)v;
			break;
		default:
			break;
		}
	}
}

/* A usable definition of name at index i, preferring the default version. */
static int match(const struct dyninfo *di, uint32_t i, const char *name)
{
	const Sym *s = &di->symtab[i];
	int type = ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
	    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE))
		return 0;
	if (ct_strcmp(di->strtab + s->st_name, name) != 0)
		return 0;
	/* A hidden version (dlopen@GLIBC_2.2.5 next to @@GLIBC_2.34) is
	   only a fallback. */
	return di->versym && (di->versym[i] & 0x8000) ? 1 : 2;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t elf_hash(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static void *lookup(const struct dyninfo *di, const char *name)
{
	uint32_t best = 0;
	int best_rank = 0;

	if (!di->symtab || !di->strtab)
		return NULL;
	if (di->gnu_hash) {
		const uint32_t *g = di->gnu_hash;
		uint32_t nbuckets = g[0], symoffset = g[1], bloom_size = g[2];
		const uint32_t *buckets =
			g + 4 + bloom_size * (sizeof(uintptr_t) / 4);
		const uint32_t *chain = buckets + nbuckets;
		uint32_t h = gnu_hash(name), i;

		if (nbuckets == 0)
			return NULL;
		i = buckets[h % nbuckets];
		if (i < symoffset)
			return NULL;
		for (;; i++) {
			uint32_t c = chain[i - symoffset];

			if ((c | 1) == (h | 1)) {
				int r = match(di, i, name);

				if (r > best_rank) {
					best_rank = r;
					best = i;
				}
			}
			if (c & 1)
				break;
		}
	} else if (di->hash) {
		uint32_t nbucket = di->hash[0], i;
		const uint32_t *bucket = di->hash + 2, *chain = bucket + nbucket;

		if (nbucket == 0)
			return NULL;
		for (i = bucket[elf_hash(name) % nbucket]; i != STN_UNDEF;
		     i = chain[i]) {
			int r = match(di, i, name);

			if (r > best_rank) {
				best_rank = r;
				best = i;
			}
		}
	}
	if (!best_rank)
		return NULL;
	return (void *)(di->base + di->symtab[best].st_value);
}

void *ct_symbol_in(uintptr_t base, const void *dyn, const char *name)
{
	struct dyninfo di;

	read_dynamic(base, dyn, &di);
	return lookup(&di, name);
}

const char *ct_dynamic_string(uintptr_t base, const void *dyn, long tag)
{
	const Dyn *d;
	struct dyninfo di;

	read_dynamic(base, dyn, &di);
	if (!di.strtab)
		return NULL;
	for (d = dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return di.strtab + d->d_un.d_val;
	return NULL;
}

/*
 * The namespace-0 link map, in load order: the main program's DT_DEBUG
 * entry points at the loader's r_debug.
 */
static struct link_map *first_map(void)
{
	const Dyn *d;
	const ElfW(Phdr) *phdr = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t phnum = getauxval(AT_PHNUM), i;
	uintptr_t base = 0;
	const Dyn *dyn = NULL;

	if (!phdr)
		return NULL;
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_PHDR)
			base = (uintptr_t)phdr - phdr[i].p_vaddr;
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_DYNAMIC)
			dyn = (const Dyn *)(base + phdr[i].p_vaddr);
	for (d = dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_DEBUG && d->d_un.d_ptr)
			return ((struct r_debug *)d->d_un.d_ptr)->r_map;
	return NULL;
}

void *ct_next_symbol(const char *name)
{
	struct link_map *m = first_map();
	bool past = false;

	for (; m; m = m->l_next) {
		struct dyninfo di;
		void *p;

		if (!past) {
			/* Our own map is the one with our dynamic section. */
			past = m->l_ld == (void *)_DYNAMIC;
			continue;
		}
		read_dynamic(m->l_addr, m->l_ld, &di);
		if ((p = lookup(&di, name)))
			return p;
	}
	return NULL;
}

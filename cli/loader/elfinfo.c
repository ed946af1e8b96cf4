/* The loader's view of an ELF file, read with libelf; see elfinfo.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "util.h"
#include "elfinfo.h"

#ifndef DF_1_NODEFLIB
#define DF_1_NODEFLIB 0x800
#endif
#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

void ct_elfinfo_init(struct ct_elfinfo *e)
{
	memset(e, 0, sizeof(*e));
}

void ct_elfinfo_release(struct ct_elfinfo *e)
{
	size_t i, k;

	free(e->interp);
	free(e->soname);
	free(e->rpath);
	free(e->runpath);
	for (i = 0; i < e->nneeded; i++)
		free(e->needed[i]);
	free(e->needed);
	for (i = 0; i < e->nauxiliary; i++)
		free(e->auxiliary[i]);
	free(e->auxiliary);
	for (i = 0; i < e->nfilter; i++)
		free(e->filter[i]);
	free(e->filter);
	for (i = 0; i < e->nverneed; i++) {
		free(e->verneed[i].file);
		free(e->verneed[i].version);
		free(e->verneed[i].symbol);
		for (k = 0; k < e->verneed[i].nsymbols; k++)
			free(e->verneed[i].symbols[k]);
		free(e->verneed[i].symbols);
	}
	free(e->verneed);
	for (i = 0; i < e->nverdef; i++)
		free(e->verdef[i]);
	free(e->verdef);
	ct_elfinfo_init(e);
}

static char *dup_str(Elf *elf, size_t strndx, size_t off)
{
	const char *s = elf_strptr(elf, strndx, off);

	return s ? ct_xstrdup(s) : NULL;
}

/*
 * The dynamic section's strings: the section its header links (strndx),
 * or, without section headers, the bytes DT_STRTAB points at (raw).
 */
struct dynstrs {
	Elf *elf;
	size_t strndx;
	bool segment;   /* read through PT_DYNAMIC: raw, or none when NULL */
	const char *raw;
	size_t rawlen;
};

static char *dyn_str(const struct dynstrs *t, uint64_t off)
{
	size_t n;
	char *s;

	if (!t->segment)
		return dup_str(t->elf, t->strndx, (size_t)off);
	if (!t->raw || off >= t->rawlen)
		return NULL;
	n = strnlen(t->raw + off, t->rawlen - off);
	if (n == t->rawlen - off)
		return NULL; /* not ended inside the table */
	s = ct_xmalloc(n + 1);
	memcpy(s, t->raw + off, n + 1);
	return s;
}

/* Append the string at off of the dynamic string table to a list. */
static void add_name(char ***list, size_t *n, const struct dynstrs *t, uint64_t off)
{
	char *s = dyn_str(t, off);

	if (!s)
		return;
	*list = ct_xrealloc(*list, (*n + 1) * sizeof(char *));
	(*list)[(*n)++] = s;
}

/* The n entries of a dynamic section in d, their strings in t. */
static void read_dynamic(struct ct_elfinfo *e, Elf_Data *d, size_t n, const struct dynstrs *t)
{
	size_t i;

	e->dynamic = true;
	for (i = 0; i < n; i++) {
		GElf_Dyn dyn;

		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		switch (dyn.d_tag) {
		case DT_NEEDED:
			add_name(&e->needed, &e->nneeded, t, dyn.d_un.d_val);
			break;
		case DT_AUXILIARY:
			add_name(&e->auxiliary, &e->nauxiliary, t, dyn.d_un.d_val);
			break;
		case DT_FILTER:
			add_name(&e->filter, &e->nfilter, t, dyn.d_un.d_val);
			break;
		case DT_SONAME:
			free(e->soname);
			e->soname = dyn_str(t, dyn.d_un.d_val);
			break;
		case DT_RPATH:
			free(e->rpath);
			e->rpath = dyn_str(t, dyn.d_un.d_val);
			break;
		case DT_RUNPATH:
			free(e->runpath);
			e->runpath = dyn_str(t, dyn.d_un.d_val);
			break;
		case DT_FLAGS_1:
			e->nodeflib = (dyn.d_un.d_val & DF_1_NODEFLIB) != 0;
			e->pie = e->pie || (dyn.d_un.d_val & DF_1_PIE);
			break;
		default:
			break;
		}
	}
}

static void read_dynamic_section(struct ct_elfinfo *e, Elf *elf, Elf_Scn *scn,
				 const GElf_Shdr *sh)
{
	struct dynstrs t = { .elf = elf, .strndx = sh->sh_link };
	Elf_Data *d = elf_getdata(scn, NULL);

	if (d && sh->sh_entsize)
		read_dynamic(e, d, sh->sh_size / sh->sh_entsize, &t);
}

/* The file offset of address vaddr through the PT_LOAD segments, and the segment's bytes from there. */
static bool file_offset(Elf *elf, size_t nph, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
	size_t i;

	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
			return true;
		}
	}
	return false;
}

/*
 * Without section headers (stripped off, or past the end of a truncated
 * file) the loader still reads PT_DYNAMIC, and so do we: its entries, and
 * DT_STRTAB through the segments. Version sections are not read then.
 */
static void read_dynamic_segment(struct ct_elfinfo *e, Elf *elf, size_t nph, const GElf_Phdr *dyn)
{
	struct dynstrs t = { .elf = elf, .segment = true };
	size_t entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT), i, n;
	uint64_t strtab = 0, strsz = 0, off, avail;
	Elf_Data *d, *s;

	if (!entsize || !(d = elf_getdata_rawchunk(elf, (int64_t)dyn->p_offset,
						  (size_t)dyn->p_filesz, ELF_T_DYN)))
		return;
	n = (size_t)dyn->p_filesz / entsize;
	for (i = 0; i < n; i++) {
		GElf_Dyn en;

		if (!gelf_getdyn(d, (int)i, &en) || en.d_tag == DT_NULL)
			break;
		if (en.d_tag == DT_STRTAB)
			strtab = en.d_un.d_ptr;
		else if (en.d_tag == DT_STRSZ)
			strsz = en.d_un.d_val;
	}
	if (strsz && file_offset(elf, nph, strtab, &off, &avail) &&
	    (s = elf_getdata_rawchunk(elf, (int64_t)off, (size_t)(strsz < avail ? strsz : avail),
				      ELF_T_BYTE))) {
		t.raw = s->d_buf;
		t.rawlen = s->d_size;
	}
	read_dynamic(e, d, n, &t);
}

/* VERNEED: per needed file, the versions it must define. */
static void read_verneed(struct ct_elfinfo *e, Elf *elf, Elf_Scn *scn,
			 const GElf_Shdr *sh, unsigned *index_of, size_t nindex)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, k;

	if (!d)
		return;
	/*
	 * Offsets come from the file: each step must move forward inside the
	 * section, so a crafted chain cannot loop or wrap.
	 */
	for (k = 0; k < sh->sh_info && off < d->d_size; k++) {
		GElf_Verneed vn;
		size_t aux;
		unsigned j;

		if (!gelf_getverneed(d, (int)off, &vn) || vn.vn_aux == 0 ||
		    vn.vn_aux >= d->d_size - off)
			break;
		aux = off + vn.vn_aux;
		for (j = 0; j < vn.vn_cnt && aux < d->d_size; j++) {
			GElf_Vernaux va;
			struct ct_verneed *v;

			if (!gelf_getvernaux(d, (int)aux, &va))
				break;
			e->verneed = ct_xrealloc(e->verneed, (e->nverneed + 1) * sizeof(*v));
			v = &e->verneed[e->nverneed++];
			memset(v, 0, sizeof(*v));
			v->file = dup_str(elf, sh->sh_link, vn.vn_file);
			v->version = dup_str(elf, sh->sh_link, va.vna_name);
			v->weak = (va.vna_flags & VER_FLG_WEAK) != 0;
			if (va.vna_other < nindex)
				index_of[va.vna_other] = (unsigned)e->nverneed;
			if (!va.vna_next || va.vna_next >= d->d_size - aux)
				break;
			aux += va.vna_next;
		}
		if (!vn.vn_next || vn.vn_next >= d->d_size - off)
			break;
		off += vn.vn_next;
	}
}

static void read_verdef(struct ct_elfinfo *e, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, k;

	if (!d)
		return;
	for (k = 0; k < sh->sh_info && off < d->d_size; k++) {
		GElf_Verdef vd;
		GElf_Verdaux va;

		if (!gelf_getverdef(d, (int)off, &vd))
			break;
		/* The base version names the file itself, not a version. */
		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_aux < d->d_size - off &&
		    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va)) {
			char *name = dup_str(elf, sh->sh_link, va.vda_name);

			if (name) {
				e->verdef = ct_xrealloc(e->verdef, (e->nverdef + 1) * sizeof(char *));
				e->verdef[e->nverdef++] = name;
			}
		}
		if (!vd.vd_next || vd.vd_next >= d->d_size - off)
			break;
		off += vd.vd_next;
	}
}

/* The undefined symbols needing each version, from .dynsym and VERSYM. */
static void read_symbols(struct ct_elfinfo *e, Elf *elf, Elf_Scn *dynsym,
			 const GElf_Shdr *symsh, Elf_Scn *versym,
			 const unsigned *index_of, size_t nindex)
{
	Elf_Data *sd = elf_getdata(dynsym, NULL), *vd = elf_getdata(versym, NULL);
	size_t i, n;

	if (!sd || !vd || symsh->sh_entsize == 0)
		return;
	n = symsh->sh_size / symsh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Versym ver;
		unsigned idx;

		if (!gelf_getsym(sd, (int)i, &sym) || !gelf_getversym(vd, (int)i, &ver))
			break;
		idx = ver & 0x7fff;
		if (sym.st_shndx != SHN_UNDEF || idx < 2 || idx >= nindex ||
		    !index_of[idx])
			continue;
		{
			struct ct_verneed *v = &e->verneed[index_of[idx] - 1];
			char *name = dup_str(elf, symsh->sh_link, sym.st_name);

			if (!name)
				continue;
			if (!v->symbol)
				v->symbol = ct_xstrdup(name);
			v->symbols = ct_xrealloc(v->symbols, (v->nsymbols + 1) * sizeof(char *));
			v->symbols[v->nsymbols++] = name;
		}
	}
}

/*
 * Open path for reading if it is a regular file. A FIFO or device named in
 * a trace or an ELF file must not block or be read: O_NONBLOCK, then the
 * type. Returns the descriptor or a negative errno.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
	}
	return fd;
}

/*
 * libelf reading through pread, not a mapping: the sections asked of it
 * (dynamic, version and dynamic symbol tables) are kilobytes of files up
 * to 600 MB. Mapping such a file and unmapping it costs a TLB shootdown
 * while the facts thread runs (ldd read each CUDA library of cuSOLVER's
 * tree so three times), and a file truncated under a mapping is a SIGBUS.
 * libelf checks each section against the file's size before it allocates.
 */
static Elf *elf_open(int fd)
{
	elf_version(EV_CURRENT);
	return elf_begin(fd, ELF_C_READ, NULL);
}

uint64_t ct_elf_loaded_end(int fd, uint64_t size, uint64_t phoff, unsigned phnum, int elf_class,
			   bool *exec)
{
	size_t entsize = elf_class == 64 ? 56 : 32, i;
	uint64_t end = phoff + (uint64_t)phnum * entsize;
	unsigned char *t;

	if (exec)
		*exec = false;

	/* Headers past the end are not read (nor allocated for). */
	if (end < phoff)
		return UINT64_MAX;
	if (end > size)
		return end;
	t = ct_xmalloc(phnum * entsize + 1);
	if (pread(fd, t, phnum * entsize, (off_t)phoff) != (ssize_t)(phnum * entsize)) {
		free(t);
		return UINT64_MAX;
	}
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = t + i * entsize;
		uint32_t type = (uint32_t)ct_le(p, 4);
		uint64_t off = elf_class == 64 ? ct_le(p + 8, 8) : ct_le(p + 4, 4);
		uint64_t filesz = elf_class == 64 ? ct_le(p + 32, 8) : ct_le(p + 16, 4);
		uint32_t flags = (uint32_t)(elf_class == 64 ? ct_le(p + 4, 4) : ct_le(p + 24, 4));

		if (exec && type == PT_LOAD && (flags & PF_X))
			*exec = true;
		if (type != PT_LOAD && type != PT_DYNAMIC && type != PT_INTERP)
			continue;
		if (off + filesz < off)
			end = UINT64_MAX;
		else if (off + filesz > end)
			end = off + filesz;
	}
	free(t);
	return end;
}

int ct_elfinfo_read(struct ct_elfinfo *e, const char *path)
{
	int fd = open_regular(path), rc = 0;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL, *dynsym = NULL, *versym = NULL, *verneed = NULL;
	GElf_Shdr symsh = { 0 }, vnsh = { 0 };
	GElf_Phdr dyn = { 0 };
	bool have_dyn = false, have_stack = false;
	GElf_Word stack_flags = 0;
	unsigned index_of[4096];
	struct stat st;
	size_t nph, i;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) == 0)
		e->file_size = (uint64_t)st.st_size;
	elf = elf_open(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		rc = -ENOEXEC;
		goto out;
	}
	memset(index_of, 0, sizeof(index_of));
	e->elf_class = gelf_getclass(elf) == ELFCLASS32 ? 32 : 64;
	e->machine = eh.e_machine;
	e->type = eh.e_type;
	/* The loader's count is e_phnum (libelf gives 0 for headers past the end). */
	nph = eh.e_phnum;
	e->loaded_end = ct_elf_loaded_end(fd, e->file_size, eh.e_phoff, eh.e_phnum, e->elf_class,
					   NULL);
	e->truncated = e->loaded_end > e->file_size;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		char *buf;

		if (!gelf_getphdr(elf, (int)i, &ph))
			break;
		if (ph.p_type == PT_DYNAMIC && !have_dyn) {
			dyn = ph;
			have_dyn = true;
		}
		if (ph.p_type == PT_GNU_STACK) {
			stack_flags = ph.p_flags;
			have_stack = true;
		}
		/* The first PT_INTERP is the one the kernel uses. */
		if (e->interp || ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096)
			continue;
		buf = ct_xcalloc(1, ph.p_filesz + 1);
		if (pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			e->interp = buf;
		else
			free(buf);
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		switch (sh.sh_type) {
		case SHT_DYNAMIC:
			read_dynamic_section(e, elf, scn, &sh);
			break;
		case SHT_GNU_verdef:
			read_verdef(e, elf, scn, &sh);
			break;
		case SHT_GNU_verneed:
			verneed = scn;
			vnsh = sh;
			break;
		case SHT_GNU_versym:
			versym = scn;
			break;
		case SHT_DYNSYM:
			dynsym = scn;
			symsh = sh;
			break;
		default:
			break;
		}
	}
	e->execstack = have_stack ? (stack_flags & PF_X) != 0
				  : eh.e_machine == EM_X86_64 || eh.e_machine == EM_386;
	if (!e->dynamic && have_dyn)
		read_dynamic_segment(e, elf, nph, &dyn);
	if (verneed) {
		read_verneed(e, elf, verneed, &vnsh, index_of, 4096);
		if (dynsym && versym)
			read_symbols(e, elf, dynsym, &symsh, versym, index_of, 4096);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

bool ct_elfinfo_defines(const struct ct_elfinfo *e, const char *version)
{
	size_t i;

	for (i = 0; i < e->nverdef; i++)
		if (strcmp(e->verdef[i], version) == 0)
			return true;
	return false;
}

static int cmp_symdef(const void *a, const void *b)
{
	const struct ct_symdef *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return strcmp(x->version ? x->version : "", y->version ? y->version : "");
}

/* VERDEF index -> name (the base version left NULL: it names the file). */
static char **verdef_names(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, size_t *n)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	char **names = NULL;
	size_t off = 0, k;

	*n = 0;
	if (!d)
		return NULL;
	for (k = 0; k < sh->sh_info && off < d->d_size; k++) {
		GElf_Verdef vd;
		GElf_Verdaux va;

		if (!gelf_getverdef(d, (int)off, &vd))
			break;
		if (vd.vd_ndx < 0x8000 && vd.vd_aux < d->d_size - off &&
		    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va)) {
			if (vd.vd_ndx >= *n) {
				size_t m = (size_t)vd.vd_ndx + 1;

				names = ct_xrealloc(names, m * sizeof(char *));
				memset(names + *n, 0, (m - *n) * sizeof(char *));
				*n = m;
			}
			if (!(vd.vd_flags & VER_FLG_BASE) && !names[vd.vd_ndx])
				names[vd.vd_ndx] = dup_str(elf, sh->sh_link, va.vda_name);
		}
		if (!vd.vd_next || vd.vd_next >= d->d_size - off)
			break;
		off += vd.vd_next;
	}
	return names;
}

/* The dynamic symbol table and its version sections, found by type. */
struct dynsyms {
	Elf_Scn *dynsym, *versym, *verdef;
	GElf_Shdr symsh, vdsh;
};

static void find_dynsyms(Elf *elf, struct dynsyms *d)
{
	Elf_Scn *scn = NULL;

	memset(d, 0, sizeof(*d));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			d->dynsym = scn;
			d->symsh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			d->versym = scn;
		} else if (sh.sh_type == SHT_GNU_verdef) {
			d->verdef = scn;
			d->vdsh = sh;
		}
	}
}

struct ct_symslot {
	uint32_t hash;
	uint32_t index; /* into defs, plus one; 0: free */
};

struct ct_symorder {
	const struct ct_symdef **by_name; /* NULL until first asked */
};

/*
 * Eight bytes at a time: the names are long (C++'s mangled ones, 60 bytes
 * on average in libstdc++'s 6,168), and hashing every name of each table
 * byte by byte was most of reading it (ldd on cuDNN's engines reads
 * libstdc++'s, libc's and cuDNN's graph library's, 12,000 names).
 */
static uint32_t name_hash(const char *s)
{
	size_t len = strlen(s), i;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static void index_names(struct ct_symtab *t)
{
	size_t i, cap = 16;

	while (cap < 2 * t->n)
		cap *= 2;
	t->slots = ct_xcalloc(cap, sizeof(*t->slots));
	t->mask = cap - 1;
	for (i = 0; i < t->n; i++) {
		uint32_t h = name_hash(t->defs[i].name);
		size_t at = h & t->mask;

		while (t->slots[at].index)
			at = (at + 1) & t->mask;
		t->slots[at].hash = h;
		t->slots[at].index = (uint32_t)i + 1;
	}
}

int ct_symtab_read(struct ct_symtab *t, const char *path)
{
	int fd = open_regular(path), rc = 0;
	Elf *elf;
	struct dynsyms ds;
	const GElf_Shdr *symsh = &ds.symsh;
	size_t i, n;
	Elf_Data *sd, *vd, *strs;

	memset(t, 0, sizeof(*t));
	t->order = ct_xcalloc(1, sizeof(*t->order));
	if (fd < 0)
		return fd;
	elf = elf_open(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = -ENOEXEC;
		goto out;
	}
	find_dynsyms(elf, &ds);
	if (!ds.dynsym || symsh->sh_entsize == 0 || !(sd = elf_getdata(ds.dynsym, NULL)))
		goto out;
	strs = elf_getdata(elf_getscn(elf, symsh->sh_link), NULL);
	if (!strs || !strs->d_buf)
		goto out;
	/* One copy of the names, ended by a NUL of our own. */
	t->strings = ct_xmalloc(strs->d_size + 1);
	memcpy(t->strings, strs->d_buf, strs->d_size);
	t->strings[strs->d_size] = '\0';
	if (ds.verdef)
		t->vernames = verdef_names(elf, ds.verdef, &ds.vdsh, &t->nvernames);
	t->versioned = ds.verdef != NULL;
	vd = ds.versym ? elf_getdata(ds.versym, NULL) : NULL;
	n = symsh->sh_size / symsh->sh_entsize;
	t->defs = ct_xcalloc(n ? n : 1, sizeof(*t->defs));
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Versym ver = 1;
		unsigned idx;

		if (!gelf_getsym(sd, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strs->d_size ||
		    !t->strings[sym.st_name])
			continue;
		if (vd)
			gelf_getversym(vd, (int)i, &ver);
		idx = ver & 0x7fff;
		t->defs[t->n].name = t->strings + sym.st_name;
		t->defs[t->n].version = idx < t->nvernames ? t->vernames[idx] : NULL;
		t->n++;
	}
out:
	index_names(t);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void ct_symtab_release(struct ct_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nvernames; i++)
		free(t->vernames[i]);
	free(t->vernames);
	free(t->strings);
	free(t->defs);
	free(t->slots);
	if (t->order)
		free(t->order->by_name);
	free(t->order);
	memset(t, 0, sizeof(*t));
}

bool ct_symtab_has(const struct ct_symtab *t, const char *symbol, const char *version)
{
	uint32_t h = name_hash(symbol);
	size_t at;

	if (!t->slots)
		return false;
	/* Every definition of the name: one per version. */
	for (at = h & t->mask; t->slots[at].index; at = (at + 1) & t->mask) {
		const struct ct_symdef *d = &t->defs[t->slots[at].index - 1];

		if (t->slots[at].hash == h && strcmp(d->name, symbol) == 0 &&
		    (!t->versioned || !version ||
		     (d->version && strcmp(d->version, version) == 0)))
			return true;
	}
	return false;
}

static int cmp_symdef_ptr(const void *a, const void *b)
{
	return cmp_symdef(*(const struct ct_symdef *const *)a, *(const struct ct_symdef *const *)b);
}

static const struct ct_symdef **by_name(const struct ct_symtab *t)
{
	size_t i;

	if (!t->order)
		return NULL;
	if (!t->order->by_name) {
		t->order->by_name = ct_xcalloc(t->n + 1, sizeof(*t->order->by_name));
		for (i = 0; i < t->n; i++)
			t->order->by_name[i] = &t->defs[i];
		if (t->n > 1)
			qsort(t->order->by_name, t->n, sizeof(*t->order->by_name), cmp_symdef_ptr);
	}
	return t->order->by_name;
}

const struct ct_symdef *ct_symtab_sorted(const struct ct_symtab *t, size_t i)
{
	return by_name(t)[i];
}

size_t ct_symtab_count_prefix(const struct ct_symtab *t, const char *prefix, size_t len,
			      size_t *first)
{
	const struct ct_symdef **v = by_name(t);
	size_t lo = 0, hi = v ? t->n : 0, start;

	/* In name order, the ones with the prefix are one run. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(v[mid]->name, prefix, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	start = lo;
	if (first)
		*first = start;
	hi = v ? t->n : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(v[mid]->name, prefix, len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - start;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ct_undefs_read(struct ct_undefs *u, const char *path)
{
	int fd = open_regular(path), rc = 0;
	Elf *elf;
	struct dynsyms ds;
	const GElf_Shdr *symsh = &ds.symsh;
	Elf_Data *sd, *vd;
	size_t i, n, k;

	memset(u, 0, sizeof(*u));
	if (fd < 0)
		return fd;
	elf = elf_open(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = -ENOEXEC;
		goto out;
	}
	find_dynsyms(elf, &ds);
	if (!ds.dynsym || symsh->sh_entsize == 0 || !(sd = elf_getdata(ds.dynsym, NULL)))
		goto out;
	vd = ds.versym ? elf_getdata(ds.versym, NULL) : NULL;
	n = symsh->sh_size / symsh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Versym ver = 1;
		const char *name;

		if (!gelf_getsym(sd, (int)i, &sym))
			break;
		/* Weak references may stay unbound; versioned ones are symvers.h's. */
		if (sym.st_shndx != SHN_UNDEF || GELF_ST_BIND(sym.st_info) != STB_GLOBAL ||
		    !(name = elf_strptr(elf, symsh->sh_link, sym.st_name)) || !*name)
			continue;
		if (vd)
			gelf_getversym(vd, (int)i, &ver);
		if ((ver & 0x7fff) > 1)
			continue;
		if (!u->names)
			u->names = ct_xcalloc(n, sizeof(*u->names));
		u->names[u->n++] = ct_xstrdup(name);
	}
	if (u->n > 1)
		qsort(u->names, u->n, sizeof(*u->names), cmp_str);
	/* Each once. */
	for (i = k = 0; i < u->n; i++) {
		if (k && strcmp(u->names[k - 1], u->names[i]) == 0) {
			free(u->names[i]);
			continue;
		}
		u->names[k++] = u->names[i];
	}
	u->n = k;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void ct_undefs_release(struct ct_undefs *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->names[i]);
	free(u->names);
	memset(u, 0, sizeof(*u));
}

const char *ct_symbols_missing(const struct ct_verneed *need, const struct ct_symtab *provider,
			       const struct ct_symtab *const *others, size_t nothers,
			       size_t *count)
{
	const char *first = NULL;
	size_t i, k;

	*count = 0;
	for (i = 0; i < need->nsymbols; i++) {
		bool found = ct_symtab_has(provider, need->symbols[i], need->version);

		/* Only files with versions can define a versioned symbol elsewhere. */
		for (k = 0; k < nothers && !found; k++)
			found = others[k] && others[k]->versioned &&
				ct_symtab_has(others[k], need->symbols[i], need->version);
		if (!found) {
			first = first ? first : need->symbols[i];
			(*count)++;
		}
	}
	return first;
}


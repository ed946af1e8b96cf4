/*
 * Facts about a device ELF (cubin) from its own bytes, without libelf, so
 * that the shim can describe a cubin handed to the driver. Layout:
 * reference/fatbin.md 3.1.
 */
#include <errno.h>

#include "internal.h"

#define SHT_NOTE_ 7u
#define SHT_NOBITS_ 8u
#define SHT_CUDA_COMPAT 0x70000086u
#define NV_COMPAT_ATTR_ARCH_SPECIFIC 0x09u

/* Walk .nv.compat records {u8 fmt, u8 attr, value} looking for attr 9. */
static int compat_arch_specific(const unsigned char *p, uint64_t n)
{
	uint64_t pos = 0;

	while (pos + 4 <= n) {
		unsigned fmt = p[pos], attr = p[pos + 1];
		uint64_t len;

		if (fmt == 2 || fmt == 3)
			len = 4;
		else if (fmt == 4)
			len = 4 + (uint64_t)rd16(p + pos + 2);
		else
			return -1;
		if (attr == NV_COMPAT_ATTR_ARCH_SPECIFIC && fmt == 2)
			return p[pos + 2] != 0;
		pos += len;
	}
	return 0;
}

/*
 * Look for "sm_<digits>f" in a note's descriptor (the ptxas command line
 * in .note.nv.tkinfo); returns 1 when found, 0 otherwise.
 */
static int note_family_specific(const unsigned char *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i + 4 < n; i++) {
		uint64_t j;

		if (p[i] != 's' || p[i + 1] != 'm' || p[i + 2] != '_')
			continue;
		for (j = i + 3; j < n && p[j] >= '0' && p[j] <= '9'; j++)
			;
		if (j > i + 3 && j < n && p[j] == 'f')
			return 1;
	}
	return 0;
}

int es_eflags_arch_specific(unsigned abi_version, uint32_t eflags)
{
	return (eflags & (abi_version >= 8 ? 0x8u : 0x800u)) != 0;
}

int es_cubin_parse(const unsigned char *buf, size_t len, struct es_cubin *c)
{
	uint64_t shoff, phoff, end;
	unsigned shnum, shentsize, phnum, phentsize, i;
	uint32_t eflags;

	memset(c, 0, sizeof(*c));
	c->arch_specific = -1;
	c->family_specific = -1;
	if (len < 64 || memcmp(buf, "\177ELF", 4) != 0 || buf[4] != 2 ||
	    buf[5] != 1 || rd16(buf + 18) != EM_CUDA)
		return -EBADMSG;
	c->osabi = buf[7];
	c->abi_version = buf[8];
	c->elf_type = rd16(buf + 16);
	eflags = rd32(buf + 0x30);
	/* ABI v8 moved the SM number from bits 0-7 to bits 8-15. */
	c->sm = c->abi_version >= 8 ? (eflags >> 8) & 0xff : eflags & 0xff;
	c->eflags_arch_specific = es_eflags_arch_specific(c->abi_version, eflags);

	phoff = rd64(buf + 0x20);
	shoff = rd64(buf + 0x28);
	phentsize = rd16(buf + 0x36);
	phnum = rd16(buf + 0x38);
	shentsize = rd16(buf + 0x3a);
	shnum = rd16(buf + 0x3c);
	end = 64;
	if (phnum && phoff + (uint64_t)phnum * phentsize > end)
		end = phoff + (uint64_t)phnum * phentsize;
	if (shnum && shoff + (uint64_t)shnum * shentsize > end)
		end = shoff + (uint64_t)shnum * shentsize;
	if (shnum == 0 || shentsize < 64 ||
	    !in_range(shoff, (uint64_t)shnum * shentsize, len)) {
		c->size = end < len ? end : len;
		return 0;
	}
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = buf + shoff + (uint64_t)i * shentsize;
		uint32_t type = rd32(sh + 4);
		uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20);

		if (type == SHT_NOBITS_ || !in_range(off, size, len))
			continue;
		if (off + size > end)
			end = off + size;
		if (type == SHT_CUDA_COMPAT)
			c->arch_specific = compat_arch_specific(buf + off, size);
		else if (type == SHT_NOTE_ && c->family_specific != 1)
			c->family_specific =
				note_family_specific(buf + off, size);
	}
	c->size = end < len ? end : len;
	return 0;
}

#define SHT_SYMTAB_ 2u
#define SHF_EXECINSTR_ 0x4u
#define STT_FUNC_ 2u
#define STO_CUDA_ENTRY 0x10u
#define ELF64_SYM_SIZE 24u

/* A symbol table's entries: is one a defined kernel? */
static int symtab_has_entry(const unsigned char *p, uint64_t n, uint64_t entsize)
{
	uint64_t pos;

	if (entsize < ELF64_SYM_SIZE)
		return 0;
	for (pos = 0; n - pos >= ELF64_SYM_SIZE; pos += entsize) {
		const unsigned char *sym = p + pos;

		if ((sym[4] & 0xf) == STT_FUNC_ && (sym[5] & STO_CUDA_ENTRY) &&
		    rd16(sym + 6) != 0)
			return 1;
		if (n - pos < entsize)
			break;
	}
	return 0;
}

/* The kernels one symbol table defines, named through its string table. */
static int symtab_entries(const unsigned char *buf, size_t len, const unsigned char *sh,
			  const unsigned char *shdrs, unsigned shnum, unsigned shentsize,
			  int (*each)(const char *name, size_t len, void *arg), void *arg)
{
	uint64_t off = rd64(sh + 0x18), n = rd64(sh + 0x20), entsize = rd64(sh + 0x38);
	uint32_t link = rd32(sh + 0x28);
	uint64_t str_off, str_size, pos;
	const unsigned char *strsh;

	if (entsize < ELF64_SYM_SIZE || link >= shnum)
		return 0;
	strsh = shdrs + (uint64_t)link * shentsize;
	str_off = rd64(strsh + 0x18);
	str_size = rd64(strsh + 0x20);
	if (!in_range(str_off, str_size, len))
		return 0;
	for (pos = 0; n - pos >= ELF64_SYM_SIZE; pos += entsize) {
		const unsigned char *sym = buf + off + pos;
		uint32_t name = rd32(sym);
		size_t nlen;
		int rc;

		if ((sym[4] & 0xf) == STT_FUNC_ && (sym[5] & STO_CUDA_ENTRY) &&
		    rd16(sym + 6) != 0 && name < str_size) {
			nlen = strnlen((const char *)buf + str_off + name, str_size - name);
			if (nlen && nlen < str_size - name &&
			    (rc = each((const char *)buf + str_off + name, nlen, arg)) != 0)
				return rc;
		}
		if (n - pos < entsize)
			break;
	}
	return 0;
}

/* A device ELF's section headers: their offset, count and size, or -EBADMSG. */
static int cubin_sections(const unsigned char *buf, size_t len, uint64_t *shoff,
			  unsigned *shnum, unsigned *shentsize)
{
	if (len < 64 || memcmp(buf, "\177ELF", 4) != 0 || buf[4] != 2 ||
	    buf[5] != 1 || rd16(buf + 18) != EM_CUDA)
		return -EBADMSG;
	*shoff = rd64(buf + 0x28);
	*shentsize = rd16(buf + 0x3a);
	*shnum = rd16(buf + 0x3c);
	if (*shnum == 0 || *shentsize < 64 ||
	    !in_range(*shoff, (uint64_t)*shnum * *shentsize, len))
		return -EBADMSG;
	return 0;
}

int es_cubin_kernels(const unsigned char *buf, size_t len,
		     int (*each)(const char *name, size_t len, void *arg), void *arg)
{
	uint64_t shoff;
	unsigned shnum, shentsize, i;
	int symtabs = 0;

	if (cubin_sections(buf, len, &shoff, &shnum, &shentsize))
		return -EBADMSG;
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = buf + shoff + (uint64_t)i * shentsize;
		int rc;

		if (rd32(sh + 4) != SHT_SYMTAB_ || !in_range(rd64(sh + 0x18), rd64(sh + 0x20), len))
			continue;
		symtabs++;
		rc = symtab_entries(buf, len, sh, buf + shoff, shnum, shentsize, each, arg);
		if (rc)
			return rc;
	}
	/* Stripped of its symbols: its kernels have no names to tell. */
	return symtabs ? 0 : -ENODATA;
}

int es_cubin_has_kernel(const unsigned char *buf, size_t len)
{
	uint64_t shoff, strtab_off = 0, strtab_size = 0;
	unsigned shnum, shentsize, shstrndx, i;
	int symtabs = 0, text = 0;

	if (cubin_sections(buf, len, &shoff, &shnum, &shentsize))
		return -EBADMSG;
	shstrndx = rd16(buf + 0x3e);
	if (shstrndx < shnum) {
		const unsigned char *sh = buf + shoff + (uint64_t)shstrndx * shentsize;

		strtab_off = rd64(sh + 0x18);
		strtab_size = rd64(sh + 0x20);
		if (!in_range(strtab_off, strtab_size, len))
			strtab_size = 0;
	}
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = buf + shoff + (uint64_t)i * shentsize;
		uint32_t name = rd32(sh), type = rd32(sh + 4);
		uint64_t flags = rd64(sh + 8), off = rd64(sh + 0x18), size = rd64(sh + 0x20);

		if (type == SHT_SYMTAB_ && in_range(off, size, len)) {
			symtabs++;
			if (symtab_has_entry(buf + off, size, rd64(sh + 0x38)))
				return 1;
		}
		/* ".text.<name>", executable: code, perhaps a kernel's. */
		if ((flags & SHF_EXECINSTR_) && name < strtab_size &&
		    strtab_size - name > 6 &&
		    memcmp(buf + strtab_off + name, ".text.", 6) == 0)
			text = 1;
	}
	/* Stripped of its symbols: any code might be a kernel. */
	return symtabs ? 0 : text;
}

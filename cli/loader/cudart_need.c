/* The CUDA runtime an object needs; see cudart_need.h. */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "cudart_need.h"

bool ct_fatbin_compiler_release(const struct elfscan_file *f, int *cuda)
{
	static const char tag[] = "Cuda compilation tools, release ";
	size_t s;
	bool found = false;

	*cuda = 0;
	for (s = 0; f && s < f->nsections; s++) {
		const struct elfscan_section *sec = &f->sections[s];
		const char *p, *end;
		int major, minor;

		if (strcmp(sec->name, ".nv_fatbin") != 0 || sec->offset > f->len ||
		    sec->size > f->len - sec->offset)
			continue;
		p = (const char *)f->buf + sec->offset;
		end = p + sec->size;
		/* Every release named: objects linked from several toolkits say so. */
		while ((p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1))) {
			p += sizeof(tag) - 1;
			if (end - p > 8 && sscanf(p, "%2d.%2d", &major, &minor) == 2 && major > 0 &&
			    major * 1000 + minor * 10 > *cuda) {
				*cuda = major * 1000 + minor * 10;
				found = true;
			}
		}
	}
	return found;
}

/* What the dynamic section and symbols say, read once. */
struct dynamic_facts {
	char needed[64];    /* the first DT_NEEDED libcudart.so.*, or "" */
	char soname[64];    /* its DT_SONAME, or "" (one too long is left out) */
	bool is_cudart;     /* its DT_SONAME is a libcudart */
	bool imports_registration; /* __cudaRegisterFatBinary undefined in .dynsym */
	bool registers;     /* a .nvFatBinSegment section: fatbins registered at load */
};

static bool cudart_name(const char *name)
{
	return name && strncmp(name, "libcudart.so", 12) == 0;
}

static void read_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct dynamic_facts *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || sh->sh_entsize == 0)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *name;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME)
			continue;
		name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (dyn.d_tag == DT_SONAME && name && strlen(name) < sizeof(d->soname))
			snprintf(d->soname, sizeof(d->soname), "%s", name);
		if (!cudart_name(name))
			continue;
		if (dyn.d_tag == DT_SONAME)
			d->is_cudart = true;
		else if (!d->needed[0] && strlen(name) < sizeof(d->needed))
			snprintf(d->needed, sizeof(d->needed), "%s", name);
	}
}

static void read_dynsym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct dynamic_facts *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || sh->sh_entsize == 0)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && !d->imports_registration; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		d->imports_registration = name && strcmp(name, "__cudaRegisterFatBinary") == 0;
	}
}

/* The newest PTX ISA's CUDA major, a lower bound of the nvcc that wrote it; 0 when none. */
static int ptx_major(const struct elfscan_file *f)
{
	int major = 0, v;
	size_t i;

	for (i = 0; i < f->nimages; i++) {
		const struct elfscan_image *img = &f->images[i];

		if (img->kind != ELFSCAN_KIND_PTX)
			continue;
		v = ct_ptx_isa_cuda(img->version_major, img->version_minor);
		/* Newer than the table: at least its newest CUDA. */
		if (v < 0)
			v = ct_ptx_isa_cuda(9, 0);
		if (v / 1000 > major && v >= 11000)
			major = v / 1000;
	}
	return major;
}

void ct_cudart_need_read(struct ct_cudart_need *need, const struct elfscan_file *f)
{
	struct dynamic_facts d;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int release;

	memset(need, 0, sizeof(*need));
	memset(&d, 0, sizeof(d));
	if (!f || f->type != ELFSCAN_FILE_ELF || (f->elf_type != ET_DYN && f->elf_type != ET_EXEC) ||
	    !f->buf)
		return;
	elf_version(EV_CURRENT);
	/* libelf only reads an elf_memory() image (elfscan reads it so too). */
	elf = elf_memory((char *)(uintptr_t)f->buf, f->len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_type == SHT_DYNAMIC)
			read_dynamic(elf, scn, &sh, &d);
		else if (sh.sh_type == SHT_DYNSYM)
			read_dynsym(elf, scn, &sh, &d);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".nvFatBinSegment") == 0 && sh.sh_size)
			d.registers = true;
	}
	snprintf(need->own_soname, sizeof(need->own_soname), "%s", d.soname);
	if (d.is_cudart)
		goto out;
	if (d.needed[0]) {
		need->link = CT_CUDART_SHARED;
		snprintf(need->soname, sizeof(need->soname), "%s", d.needed);
		need->major = ct_runtime_major(d.needed);
		need->why = "dt_needed";
		goto out;
	}
	/*
	 * Fatbins registered, and the registration neither imported nor
	 * asked of a libcudart: the object carries its own cudart.
	 */
	if (!d.registers || d.imports_registration)
		goto out;
	need->link = CT_CUDART_STATIC;
	if (ct_fatbin_compiler_release(f, &release)) {
		need->release = release;
		need->major = release / 1000;
		need->why = "compiler_release";
	} else if ((need->major = ptx_major(f))) {
		need->why = "ptx_isa";
	}
out:
	if (elf)
		elf_end(elf);
}

void ct_cudart_need_named(struct ct_cudart_need *need, const struct elfscan_file *f,
			  const char *path)
{
	bool folder;
	int major;

	/*
	 * A runtime linked in whose release its fatbins do not name, or none
	 * shown by an object with kernels; libcudart's own soname is its
	 * major already, and a DT_NEEDED runtime says it.
	 */
	if (need->link == CT_CUDART_SHARED || need->release || !need->own_soname[0] ||
	    cudart_name(need->own_soname) ||
	    (need->link == CT_CUDART_UNKNOWN && (!f || !f->nimages)))
		return;
	major = ct_soname_folder_cuda(need->own_soname, path, &folder);
	if (major <= need->major)
		return;
	need->link = CT_CUDART_STATIC;
	need->major = major;
	need->why = "soname";
	need->by_folder = folder;
}

/*
 * What the dynamic loader reads of an ELF file: class, machine, type,
 * DT_NEEDED, DT_AUXILIARY, DT_FILTER, DT_SONAME, DT_RPATH, DT_RUNPATH,
 * DF_1_NODEFLIB, PT_INTERP,
 * the symbol versions it needs (per needed file, with the symbols that
 * need them) and the versions it defines.
 *
 * Ownership: struct ct_elfinfo owns every string and array in it;
 * ct_elfinfo_release frees them. Reading never modifies the file.
 */
#ifndef CT_ELFINFO_H
#define CT_ELFINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A version an object needs from one of its dependencies. */
struct ct_verneed {
	char *file;     /* the dependency's soname (vn_file) */
	char *version;  /* "GLIBC_2.34", "libnvJitLink.so.12" */
	char *symbol;   /* one undefined symbol that needs it, or NULL */
	char **symbols; /* every undefined symbol that needs it */
	size_t nsymbols;
	bool weak;      /* VER_FLG_WEAK: a missing weak version is no error */
};

/* A symbol an object defines, with its version. */
struct ct_symdef {
	const char *name;
	const char *version;  /* NULL: unversioned (or the file's base version) */
};

/*
 * The symbols an object defines, in its table's order. Names are looked
 * up through a hash of them, built as the table is read (a sort of
 * libstdc++'s 6,000 names was a third of `cudatrace ldd`); name order is
 * made on the first prefix question (ct_symtab_count_prefix).
 */
struct ct_symtab {
	struct ct_symdef *defs;
	size_t n;
	bool versioned; /* the object has version definitions */
	/* Private. */
	char *strings;           /* a copy of the dynamic string table */
	char **vernames;         /* VERDEF index -> name */
	size_t nvernames;
	struct ct_symslot *slots; /* open addressing, mask + 1 of them */
	size_t mask;
	struct ct_symorder *order; /* name order, made when first asked */
};

struct ct_elfinfo {
	int elf_class;          /* 32 or 64 */
	unsigned machine;       /* EM_X86_64, EM_AARCH64, ... */
	unsigned type;          /* ET_EXEC, ET_DYN, ... */
	bool dynamic;           /* has a dynamic section (or, without section
				   headers, a PT_DYNAMIC) */
	bool nodeflib;          /* DF_1_NODEFLIB */
	bool pie;               /* DF_1_PIE: a position-independent executable */
	char *interp;           /* PT_INTERP, or NULL */
	char *soname;           /* DT_SONAME, or NULL */
	char *rpath;            /* DT_RPATH, or NULL (as written, DSTs unexpanded) */
	char *runpath;          /* DT_RUNPATH, or NULL */
	char **needed;          /* DT_NEEDED, in order */
	size_t nneeded;
	/*
	 * The filtees (as written, DSTs unexpanded). glibc 2.36 loads both
	 * kinds when it loads the filter: a missing DT_AUXILIARY is skipped
	 * without a word, a missing DT_FILTER fails the load as a missing
	 * DT_NEEDED does.
	 */
	char **auxiliary;       /* DT_AUXILIARY (ld -f): optional */
	size_t nauxiliary;
	char **filter;          /* DT_FILTER (ld -F): required */
	size_t nfilter;
	struct ct_verneed *verneed;
	size_t nverneed;
	char **verdef;          /* versions defined (the base one excluded) */
	size_t nverdef;
	/*
	 * The file's size, and where what the loader reads and maps ends: the
	 * program headers, PT_LOAD, PT_DYNAMIC and PT_INTERP. truncated: the
	 * loader reads past the end (a copy or download cut short).
	 */
	uint64_t file_size;
	uint64_t loaded_end;
	bool truncated;
	/*
	 * It asks for an executable stack: PT_GNU_STACK with PF_X, or no
	 * PT_GNU_STACK where the machine's default stack is executable (x86).
	 * glibc 2.41 and later refuse such an object to a dlopen.
	 */
	bool execstack;
};

void ct_elfinfo_init(struct ct_elfinfo *e);
void ct_elfinfo_release(struct ct_elfinfo *e);

/*
 * Read path's dynamic information. Returns 0; -errno when the file cannot
 * be opened; -ENOEXEC when it is not an ELF file (or too damaged to read).
 */
int ct_elfinfo_read(struct ct_elfinfo *e, const char *path);

/*
 * Where what the loader reads and maps of an ELF file of elf_class and
 * size bytes ends: its phnum (e_phnum) program headers at phoff, and the
 * file bytes of its PT_LOAD, PT_DYNAMIC and PT_INTERP segments; the
 * headers' own end when they are past size, UINT64_MAX when they cannot
 * be read. Past size, the file was cut short. *exec (exec may be NULL):
 * a PT_LOAD segment is executable (code the loader maps PROT_EXEC).
 */
uint64_t ct_elf_loaded_end(int fd, uint64_t size, uint64_t phoff, unsigned phnum, int elf_class,
			   bool *exec);

/* Does the object define this version (VERDEF)? */
bool ct_elfinfo_defines(const struct ct_elfinfo *e, const char *version);

/*
 * The dynamic symbols path defines (not the undefined ones). Returns 0 or
 * a negative errno; ct_symtab_release frees.
 */
int ct_symtab_read(struct ct_symtab *t, const char *path);
void ct_symtab_release(struct ct_symtab *t);

/*
 * Would the loader bind a reference to symbol with this version here? A
 * file without version definitions accepts any version (the loader only
 * warns); else the name must be defined with exactly that version.
 */
bool ct_symtab_has(const struct ct_symtab *t, const char *symbol, const char *version);

/*
 * How many symbols t defines whose names start with prefix (len bytes):
 * what a library exports of one C++ namespace ("_ZN3c104cuda"). They are
 * ct_symtab_sorted(t, *first ..) when first is not NULL. The first call
 * sorts the names (t's private order, hence not for tables shared between
 * threads).
 */
size_t ct_symtab_count_prefix(const struct ct_symtab *t, const char *prefix, size_t len,
			      size_t *first);
/* The i-th definition in name order (then version order); i < t->n. */
const struct ct_symdef *ct_symtab_sorted(const struct ct_symtab *t, size_t i);

/*
 * The symbols an object leaves for others to define without naming a
 * version: undefined, not weak, no version needed (or only the base one).
 * A versioned reference is the symbol-version analysis' (symvers.h).
 */
struct ct_undefs {
	char **names;   /* sorted, each once */
	size_t n;
};

/* Returns 0 or a negative errno; ct_undefs_release frees. */
int ct_undefs_read(struct ct_undefs *u, const char *path);
void ct_undefs_release(struct ct_undefs *u);

/*
 * Of need's symbols, the first that neither provider nor any of others
 * (the rest of the scope: the loader looks there too) defines with need's
 * version, and how many; NULL when none is missing.
 */
const char *ct_symbols_missing(const struct ct_verneed *need, const struct ct_symtab *provider,
			       const struct ct_symtab *const *others, size_t nothers,
			       size_t *count);

#endif

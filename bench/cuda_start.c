/*
 * bench/cuda_start: what a CUDA program's start asks of the driver, as
 * cudart does it, for bench/trace to time untraced and traced against
 * the fake driver (tests/fakecuda, which counts the calls); never a test,
 * not installed.
 *
 *   build/bench/cuda_start NAMES RUNTIMES LIBRARY
 *
 * dlopen("libcuda.so.1") and dlsym of cuGetProcAddress_v2; then, for each
 * of RUNTIMES runtimes (torch's process holds its own cudart and one
 * linked into each of cuBLAS, cuDNN, NCCL...), the empty-name probe, the
 * self-query, and one query for every name in the file NAMES (one a
 * line: the driver API's entry points, which cudart asks for one by one);
 * cuInit and the device queries; then LIBRARY is dlopen'ed and every
 * container of its .nv_fatbin section, in place in its mapping, is loaded
 * with cuLibraryLoadData, as cudart loads a library's fatbins (all of
 * them with CUDA_MODULE_LOADING=EAGER). Prints "asked=N found=N loads=N
 * loaded=N" and exits 0; 1 when something is missing, 2 on usage.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*gpa_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*init_fn)(unsigned);
typedef int (*count_fn)(int *);
typedef int (*libload_fn)(void **, const void *, int *, void **, unsigned, int *,
			  void **, unsigned);

/* .nv_fatbin's address and size in the file at path, from its section headers. */
static int fatbin_section(const char *path, uint64_t *addr, uint64_t *size)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, str;
	char *names = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	size_t i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_shentsize != sizeof(*sh) ||
	    eh.e_shstrndx >= eh.e_shnum || !(sh = calloc(eh.e_shnum, sizeof(*sh))) ||
	    pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
		    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	str = sh[eh.e_shstrndx];
	if (str.sh_size > (1u << 20) || !(names = calloc(1, str.sh_size + 1)) ||
	    pread(fd, names, str.sh_size, (off_t)str.sh_offset) != (ssize_t)str.sh_size)
		goto out;
	for (i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_name < str.sh_size && strcmp(names + sh[i].sh_name, ".nv_fatbin") == 0 &&
		    sh[i].sh_addr) {
			*addr = sh[i].sh_addr;
			*size = sh[i].sh_size;
			rc = 0;
		}
out:
	free(sh);
	free(names);
	if (fd >= 0)
		close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	char name[256];
	unsigned long asked = 0, found = 0, loads = 0, loaded = 0;
	struct link_map *lm;
	uint64_t addr, size, pos = 0;
	void *drv, *lib;
	gpa_fn gpa0, gpa;
	init_fn init;
	count_fn count;
	libload_fn load;
	int runtimes, r, n, status;
	FILE *names;

	if (argc != 4 || (runtimes = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: cuda_start NAMES RUNTIMES LIBRARY\n");
		return 2;
	}
	drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	gpa0 = drv ? (gpa_fn)dlsym(drv, "cuGetProcAddress_v2") : NULL;
	if (!gpa0 || !(names = fopen(argv[1], "r"))) {
		fprintf(stderr, "cuda_start: no libcuda.so.1 or no %s\n", argv[1]);
		return 1;
	}
	for (r = 0; r < runtimes; r++) {
		void *p = NULL;

		gpa0("", &p, 12000, 0, &status);
		if (gpa0("cuGetProcAddress", (void **)&gpa, 12000, 0, &status) != 0)
			return 1;
		rewind(names);
		while (fgets(name, sizeof(name), names)) {
			name[strcspn(name, "\n")] = '\0';
			if (!name[0])
				continue;
			asked++;
			found += gpa(name, &p, 12080, 0, &status) == 0;
		}
	}
	fclose(names);
	if (gpa("cuInit", (void **)&init, 12000, 0, &status) != 0 || init(0) != 0 ||
	    gpa("cuDeviceGetCount", (void **)&count, 12000, 0, &status) != 0 ||
	    count(&n) != 0 ||
	    gpa("cuLibraryLoadData", (void **)&load, 12000, 0, &status) != 0)
		return 1;
	lib = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
	if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &lm) != 0 ||
	    fatbin_section(argv[3], &addr, &size) != 0) {
		fprintf(stderr, "cuda_start: no .nv_fatbin in %s\n", argv[3]);
		return 1;
	}
	/* Containers back to back, 8-aligned: magic, version, header size, body size. */
	while (pos + 16 <= size) {
		const unsigned char *c = (const unsigned char *)(lm->l_addr + addr + pos);
		uint64_t body;
		void *l = NULL;

		if (*(const uint32_t *)c != 0xBA55ED50u) {
			pos += 8;
			continue;
		}
		memcpy(&body, c + 8, sizeof(body));
		if (body > size - pos - 16)
			break;
		loads++;
		loaded += load(&l, c, NULL, NULL, 0, NULL, NULL, 0) == 0;
		pos += (16 + body + 7) & ~(uint64_t)7;
	}
	printf("asked=%lu found=%lu loads=%lu loaded=%lu\n", asked, found, loads, loaded);
	return 0;
}

/* A file's CUDA facts; see libfacts.h. */
#include <stdio.h>
#include <string.h>

#include "elfinfo.h"
#include "libfacts.h"
#include "libnames.h"
#include "summary.h"

void ct_cuda_facts_read(struct ct_cuda_facts *c, const char *path)
{
	struct elfscan_options opt = { .no_magic_scan = true };
	struct elfscan_file f;

	memset(c, 0, sizeof(*c));
	c->cuda_library = ct_cuda_library(path);
	c->cuda_minor = -1;
	snprintf(c->name, sizeof(c->name), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (c->cuda_library) {
		struct ct_elfinfo e;

		ct_elfinfo_init(&e);
		if (ct_elfinfo_read(&e, path) == 0 && e.soname)
			snprintf(c->soname, sizeof(c->soname), "%s", e.soname);
		ct_elfinfo_release(&e);
		ct_library_version_of(path, c->soname, c->version, sizeof(c->version));
		c->renamed = ct_library_renamed(path, c->soname);
		c->cuda = ct_library_cuda(c->soname[0] ? c->soname : path, c->version,
					  &c->cuda_minor);
	}
	elfscan_file_init(&f);
	/*
	 * Only the fatbin sections, headers only: what the CUDA runtime
	 * registers, at a cost that grows with the images, not the file.
	 */
	if (elfscan_scan_path(&f, path, &opt) == 0) {
		struct ct_summary s;

		ct_summary_build(&s, &f, 0, f.nimages);
		c->scanned = true;
		c->nimages = f.nimages;
		ct_summary_oneline(&s, c->line, sizeof(c->line));
		ct_summary_archs(&s, ELFSCAN_KIND_SASS, c->sass, sizeof(c->sass));
		ct_summary_archs(&s, ELFSCAN_KIND_PTX, c->ptx, sizeof(c->ptx));
		ct_summary_archs(&s, ELFSCAN_KIND_LTOIR, c->ltoir, sizeof(c->ltoir));
		ct_summary_release(&s);
	}
	elfscan_file_release(&f);
}

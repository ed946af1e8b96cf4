/* Setting the loader model up for one file; see resolve.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"

int ct_loader_open(struct ct_loader *L, const char *file, const struct ct_loader_env *env,
		   const char **why)
{
	struct ct_elfinfo e;
	const char *rtld = NULL;
	int rc = 0, err = 0;

	*why = NULL;
	ct_elfinfo_init(&e);
	if (file) {
		rc = ct_elfinfo_read(&e, file);
		if (rc < 0) {
			*why = rc == -ENOEXEC ? "not an ELF file" : strerror(-rc);
			ct_elfinfo_release(&e);
			return rc;
		}
		/* Cut short, it is no static program: the loader cannot map it. */
		if (e.truncated) {
			*why = "truncated ELF file: its segments end past the end of the file";
			ct_elfinfo_release(&e);
			return -ENOEXEC;
		}
		if (!e.dynamic) {
			ct_elfinfo_release(&e);
			return 1;
		}
		/* The loader that will run it: its PT_INTERP when present here. */
		if (e.interp && access(e.interp, X_OK) == 0)
			rtld = e.interp;
	}
	ct_loader_init(L, rtld, env);
	if (file && (e.elf_class != L->plat.elf_class || e.machine != L->plat.machine)) {
		*why = "built for another machine or ELF class than this system's loader";
		rc = -ENOEXEC;
	} else if (!ct_loader_start(L, file, &err)) {
		*why = err == -ENOEXEC ? "not an ELF file" : strerror(-err);
		rc = err ? err : -EINVAL;
	}
	ct_elfinfo_release(&e);
	if (rc < 0)
		ct_loader_release(L);
	return rc;
}

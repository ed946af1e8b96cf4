/* Setting the loader model up for one file; see resolve.h. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "resolve.h"

/* Whether the loader interp names is another file than the system's (rtld). */
static bool foreign(const char *interp, const char *rtld)
{
	struct stat a, b;

	if (rtld && strcmp(interp, rtld) == 0)
		return false;
	/* The same file by another name (/lib64/ld-linux-x86-64.so.2 is a link). */
	return !rtld || stat(interp, &a) != 0 || stat(rtld, &b) != 0 || a.st_dev != b.st_dev ||
	       a.st_ino != b.st_ino;
}

int ct_loader_open(struct ct_loader *L, const char *file, const struct ct_loader_env *env,
		   const char **why)
{
	struct ct_elfinfo e;
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
	}
	/*
	 * The system's loader answers, never the one the file names: its
	 * PT_INTERP may be any program, and asking it would run it.
	 */
	ct_loader_init(L, file ? e.machine : 0, file ? e.elf_class : 0, env);
	if (file && e.interp && foreign(e.interp, L->plat.rtld))
		L->foreign_interp = ct_xstrdup(e.interp);
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

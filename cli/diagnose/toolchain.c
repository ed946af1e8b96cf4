/* torch.compile's toolchain, Triton's view of it; see toolchain.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archs.h"
#include "compat.h"
#include "toolchain.h"
#include "python.h"
#include "triton.h"
#include "util.h"

/* Where the judgement goes. */
struct out {
	struct ct_findings *findings;
	char ***facts;
	size_t *nfacts;
	const char *name;
};

static void fact(struct out *p, const char *fmt, ...) __attribute__((format(__printf__, 2, 3)));
static void fact(struct out *p, const char *fmt, ...)
{
	char buf[2 * PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*p->facts = ct_xrealloc(*p->facts, (*p->nfacts + 1) * sizeof(**p->facts));
	(*p->facts)[(*p->nfacts)++] = ct_xstrdup(buf);
}

/* "12.4" -> 12040; 0 when it is no release. */
static int release_cuda(const char *r)
{
	const char *dot = strchr(r, '.');

	return dot ? atoi(r) * 1000 + atoi(dot + 1) * 10 : 0;
}

/*
 * Does the ptxas of CUDA cuda build for major.minor? 1 yes, 0 no, -1 the
 * tables do not say. A toolkit builds for the GPUs its own driver branch
 * is the first to drive (cuda_releases.def: 12.8's 570 for Blackwell),
 * and no longer for the archs a release dropped (archs.h).
 */
static int knows(int cuda, unsigned major, unsigned minor)
{
	int dropped;

	if (ct_arch_last_toolkit(major, minor, &dropped) && cuda >= dropped)
		return 0;
	return ct_branch_gpu(ct_cuda_branch(cuda), major, minor, NULL, NULL);
}

/* The first CUDA release whose ptxas builds major.minor ("12.8"), or "" when none is known. */
static const char *first_knowing(unsigned major, unsigned minor, char *buf, size_t size)
{
	int c;

	buf[0] = '\0';
	for (c = 11000; c <= ct_newest_cuda(); c += 10)
		if (knows(c, major, minor) == 1)
			return ct_cuda_version_words(c, buf, size);
	return buf;
}

static void libcuda(struct out *p, const struct ct_triton *t, const char *who)
{
	struct ct_finding *f;
	size_t i;

	if (t->found[0]) {
		fact(p, "torch.compile (%s): %s found in %s (%s)%s%s", who, t->link_name, t->found,
		     strcmp(t->dirs_from, "ld.so.cache") == 0 ? "ld.so.cache, as `ldconfig -p` lists it"
							 : t->dirs_from,
		     t->link_versioned ? "; its launcher links -l:" : "; its launcher links -lcuda",
		     t->link_versioned ? t->link_name : "");
		return;
	}
	if (t->dirs_from && strcmp(t->dirs_from, "TRITON_LIBCUDA_PATH") == 0) {
		/* Taken unchecked: the launcher's link is what fails. */
		if (t->link_file[0]) {
			fact(p, "torch.compile (%s): TRITON_LIBCUDA_PATH names '%s', which holds no %s; "
				"its launcher links the linker's own %s",
			     who, t->dirs[0], t->link_name, t->link_file);
			return;
		}
		f = ct_finding_add(p->findings, CT_F_LIB_NOT_FOUND, t->dir,
				   "%s (torch.compile) will not link its launcher: TRITON_LIBCUDA_PATH "
				   "names '%s', which holds no %s",
				   who, t->dirs[0], t->link_name);
		f->severity = CT_SEV_WARNING;
		if (strstr(t->dirs[0], "stubs"))
			ct_finding_evidence(f, "a toolkit's stubs folder holds a stub libcuda.so to "
					       "link programs against, never the driver's %s",
					    t->link_name);
		ct_finding_evidence(f, "the first compile fails when the launcher is linked: -L%s "
				       "-l%s%s finds nothing there nor in the linker's folders",
				    t->dirs[0], t->link_versioned ? ":" : "",
				    t->link_versioned ? t->link_name : "cuda");
		ct_finding_fix(f, "unset TRITON_LIBCUDA_PATH (Triton then takes the driver's folder "
				  "from ld.so.cache), or set it to the folder of the driver's %s",
			       t->link_name);
		return;
	}
	f = ct_finding_add(p->findings, CT_F_LIB_NOT_FOUND, t->dir,
			   "%s (torch.compile) will not find %s: %s", who, t->link_name,
			   t->ndirs ? "the folders it takes do not hold it"
				    : "no ld.so.cache entry (`ldconfig -p`), TRITON_LIBCUDA_PATH unset, "
				      "no LD_LIBRARY_PATH folder with it");
	f->severity = CT_SEV_WARNING;
	for (i = 0; i < t->ndirs; i++)
		ct_finding_evidence(f, "%s (%s): no %s", t->dirs[i], t->dirs_from, t->link_name);
	ct_finding_evidence(f, "its first compile fails with \"AssertionError: libcuda.so cannot "
			       "found!\" (triton/backends/nvidia/driver.py, libcuda_dirs)");
	ct_finding_fix(f, "install the NVIDIA driver (then run ldconfig), or set TRITON_LIBCUDA_PATH "
			  "to the folder that holds the driver's %s",
		       t->link_name);
}

static void ptxas(struct out *p, const struct ct_triton *t, const char *who,
		  const struct ct_toolchain_ask *m)
{
	size_t i, j;

	for (i = 0; i < m->ntargets; i++) {
		unsigned major = m->targets[i].major, minor = m->targets[i].minor;
		char first[16], own_words[64] = "";
		struct ct_triton_ptxas x, own;
		struct ct_finding *f;
		int k;

		/* One line per arch (sm_90 and sm_90a are one GPU). */
		for (j = 0; j < i && (m->targets[j].major != major || m->targets[j].minor != minor); j++)
			;
		if (j < i)
			continue;
		ct_triton_ptxas(t, major, minor, true, &x);
		if (x.refused[0])
			fact(p, "torch.compile (%s): %s names '%s', which cannot run: Triton takes its "
				"own ptxas",
			     who, x.variable, x.refused);
		if (!x.release[0]) {
			fact(p, "torch.compile (%s): ptxas for %s: %s (its release unread)", who,
			     m->target_names[i], x.path);
			continue;
		}
		k = knows(release_cuda(x.release), major, minor);
		if (k != 0) {
			fact(p, "torch.compile (%s): ptxas for %s: %s, CUDA %s%s%s%s", who,
			     m->target_names[i], x.path, x.release, x.variable && !x.refused[0] ? ", from " : "",
			     x.variable && !x.refused[0] ? x.variable : "", k == 1 ? ", knows it" : "");
			continue;
		}
		first_knowing(major, minor, first, sizeof(first));
		f = ct_finding_add(p->findings, CT_F_NO_KERNEL_IMAGE, x.path,
				   "%s (torch.compile) compiles for %s with ptxas %s (CUDA %s%s%s), "
				   "which does not know %s",
				   who, m->target_names[i], x.path, x.release,
				   x.variable && !x.refused[0] ? ", from " : "",
				   x.variable && !x.refused[0] ? x.variable : "", m->target_names[i]);
		f->severity = CT_SEV_WARNING;
		ct_finding_evidence(f, "ptxas read from its file (never run): \"Cuda compilation "
				       "tools, release %s\"",
				    x.release);
		if (first[0])
			ct_finding_evidence(f, "CUDA %s is the first whose ptxas builds for %u.%u", first,
					    major, minor);
		ct_finding_evidence(f, "torch.compile's first kernel for it fails in ptxas; eager "
				       "PyTorch is not affected");
		if (x.variable && !x.refused[0]) {
			/* What Triton takes without the variable. */
			ct_triton_ptxas(t, major, minor, false, &own);
			if (own.release[0])
				snprintf(own_words, sizeof(own_words), ", CUDA %s%s", own.release,
					 knows(release_cuda(own.release), major, minor) == 1 ? ", knows it"
											     : "");
			ct_finding_fix(f, "unset %s (Triton's own %s%s), or point it to the ptxas of "
					  "CUDA %s or newer",
				       x.variable, own.path, own_words, first[0] ? first : "a newer release");
		} else {
			ct_finding_fix(f, "install a Triton release whose ptxas knows %s (pip install -U "
					  "%s), or set %s to the ptxas of CUDA %s or newer",
				       m->target_names[i], p->name,
				       t->blackwell && major * 10 + minor >= 90
					       ? "TRITON_PTXAS_BLACKWELL_PATH"
					       : "TRITON_PTXAS_PATH",
				       first[0] ? first : "a newer release");
		}
	}
}

void ct_toolchain_judge(const struct ct_toolchain_ask *a, struct ct_findings *fs, char ***facts,
			size_t *nfacts)
{
	struct out o = { fs, facts, nfacts, a->name };
	char norm[128], who[160];
	struct ct_triton t;

	ct_python_normal_name(a->name, norm, sizeof(norm));
	if ((strcmp(norm, "triton") != 0 && strncmp(norm, "pytorch-triton", 14) != 0) ||
	    ct_triton_read(&t, a->site, a->L) < 0)
		return;
	snprintf(who, sizeof(who), "Triton%s%s", a->version[0] ? " " : "", a->version);
	libcuda(&o, &t, who);
	ptxas(&o, &t, who, a);
	ct_triton_release(&t);
}

/* Image counts by kind and arch; see summary.h. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "elfscan.h"
#include "summary.h"

static int kind_order(unsigned kind)
{
	switch (kind) {
	case ELFSCAN_KIND_SASS:
		return 0;
	case ELFSCAN_KIND_PTX:
		return 1;
	case ELFSCAN_KIND_LTOIR:
		return 2;
	default:
		return 3;
	}
}

static int cmp_count(const void *a, const void *b)
{
	const struct ct_arch_count *x = a, *y = b;

	if (kind_order(x->kind) != kind_order(y->kind))
		return kind_order(x->kind) - kind_order(y->kind);
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->arch != y->arch)
		return x->arch < y->arch ? -1 : 1;
	return (int)x->variant - (int)y->variant;
}

static void add_isa(struct ct_summary *s, unsigned major, unsigned minor)
{
	size_t i, j;

	for (i = 0; i < s->nptx_isa; i++)
		if (s->ptx_isa[i][0] == major && s->ptx_isa[i][1] == minor)
			return;
	if (s->nptx_isa == sizeof(s->ptx_isa) / sizeof(s->ptx_isa[0]))
		return;
	for (i = 0; i < s->nptx_isa; i++)
		if (s->ptx_isa[i][0] > major ||
		    (s->ptx_isa[i][0] == major && s->ptx_isa[i][1] > minor))
			break;
	for (j = s->nptx_isa; j > i; j--) {
		s->ptx_isa[j][0] = s->ptx_isa[j - 1][0];
		s->ptx_isa[j][1] = s->ptx_isa[j - 1][1];
	}
	s->ptx_isa[i][0] = major;
	s->ptx_isa[i][1] = minor;
	s->nptx_isa++;
}

void ct_summary_build(struct ct_summary *s, const struct elfscan_file *f,
		      size_t first, size_t n)
{
	size_t i, j, cap = 0;

	memset(s, 0, sizeof(*s));
	for (i = first; i < first + n && i < f->nimages; i++) {
		const struct elfscan_image *img = &f->images[i];
		int k = kind_order(img->kind);

		if (k < 3)
			s->nkind[k]++;
		else
			s->nother++;
		s->stored += img->stored_size;
		s->unpacked += img->size;
		if (img->kind == ELFSCAN_KIND_PTX)
			add_isa(s, img->version_major, img->version_minor);
		for (j = 0; j < s->narchs; j++)
			if (s->archs[j].kind == img->kind &&
			    s->archs[j].arch == img->arch &&
			    s->archs[j].variant == img->variant)
				break;
		if (j == s->narchs) {
			if (s->narchs == cap) {
				cap = cap ? cap * 2 : 16;
				s->archs = ct_xrealloc(s->archs,
						       cap * sizeof(*s->archs));
			}
			s->archs[j].kind = img->kind;
			s->archs[j].arch = img->arch;
			s->archs[j].variant = img->variant;
			s->archs[j].count = 0;
			s->narchs++;
		}
		s->archs[j].count++;
	}
	/* No image, no array: qsort's pointer must not be NULL, even for 0 elements. */
	if (s->narchs > 1)
		qsort(s->archs, s->narchs, sizeof(*s->archs), cmp_count);
}

void ct_summary_release(struct ct_summary *s)
{
	free(s->archs);
	memset(s, 0, sizeof(*s));
}

static char *arch_name(const struct ct_arch_count *c, char *buf, size_t size)
{
	struct elfscan_image img;

	memset(&img, 0, sizeof(img));
	img.kind = c->kind;
	img.arch = c->arch;
	img.variant = c->variant;
	return elfscan_image_arch_name(&img, buf, size);
}

char *ct_summary_archs(const struct ct_summary *s, unsigned kind, char *buf,
		       size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < s->narchs; i++) {
		char name[ELFSCAN_ARCH_NAME_MAX];

		if (s->archs[i].kind != kind)
			continue;
		arch_name(&s->archs[i], name, sizeof(name));
		n += (size_t)snprintf(buf + (n < size ? n : size),
				      n < size ? size - n : 0, "%s%s",
				      n ? " " : "", name);
	}
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

char *ct_summary_oneline(const struct ct_summary *s, char *buf, size_t size)
{
	static const unsigned kinds[] = { ELFSCAN_KIND_SASS, ELFSCAN_KIND_PTX,
					  ELFSCAN_KIND_LTOIR };
	static const char *const labels[] = { "sass", "ptx", "ltoir" };
	size_t n = 0, k;

	buf[0] = '\0';
	for (k = 0; k < 3; k++) {
		char archs[512];

		if (!s->nkind[k])
			continue;
		ct_summary_archs(s, kinds[k], archs, sizeof(archs));
		n += (size_t)snprintf(buf + (n < size ? n : size),
				      n < size ? size - n : 0, "%s%s %s",
				      n ? ", " : "", labels[k], archs);
	}
	if (!buf[0])
		snprintf(buf, size, "no device code");
	return buf;
}

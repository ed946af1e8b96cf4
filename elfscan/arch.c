/* Image-to-GPU compatibility rules; see arch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

static int parse_number(const char *s, unsigned *v, const char **end)
{
	unsigned n = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9' && n < 10000)
		n = n * 10 + (unsigned)(*p++ - '0');
	*v = n;
	*end = p;
	return p > s && p - s <= 4;
}

int elfscan_target_parse(const char *s, struct elfscan_target *t)
{
	unsigned a, b;
	const char *p;

	memset(t, 0, sizeof(*t));
	if (strncmp(s, "sm_", 3) == 0)
		s += 3;
	else if (strncmp(s, "compute_", 8) == 0)
		s += 8;
	if (!parse_number(s, &a, &p))
		return -EINVAL;
	if (*p == '.') {
		/* "9.0", "12.1": major.minor */
		if (!parse_number(p + 1, &b, &p) || b > 9 || a == 0)
			return -EINVAL;
		t->major = a;
		t->minor = b;
	} else {
		if (a < 10)
			return -EINVAL;
		t->major = a / 10;
		t->minor = a % 10;
	}
	if (*p == 'a') {
		t->variant = ELFSCAN_VARIANT_A;
		p++;
	} else if (*p == 'f') {
		t->variant = ELFSCAN_VARIANT_F;
		p++;
	}
	return *p == '\0' ? 0 : -EINVAL;
}

char *elfscan_target_name(const struct elfscan_target *t, char *buf,
			  size_t size)
{
	snprintf(buf, size, "sm_%u%s", t->major * 10 + t->minor,
		 t->variant == ELFSCAN_VARIANT_A   ? "a"
		 : t->variant == ELFSCAN_VARIANT_F ? "f"
						   : "");
	return buf;
}

enum elfscan_run elfscan_image_runs_on(const struct elfscan_image *img,
				       const struct elfscan_target *t)
{
	unsigned major = img->arch / 10, minor = img->arch % 10;
	unsigned dev = t->major * 10 + t->minor;
	int ok;

	switch (img->variant) {
	case ELFSCAN_VARIANT_A:
		ok = major == t->major && minor == t->minor;
		break;
	case ELFSCAN_VARIANT_F:
		ok = major == t->major && minor <= t->minor;
		break;
	default:
		ok = img->kind == ELFSCAN_KIND_PTX
			     ? img->arch <= dev
			     : major == t->major && minor <= t->minor;
		break;
	}
	if (!ok)
		return ELFSCAN_RUN_NO;
	if (img->kind == ELFSCAN_KIND_SASS)
		return ELFSCAN_RUN_SASS;
	if (img->kind == ELFSCAN_KIND_PTX)
		return ELFSCAN_RUN_JIT;
	return ELFSCAN_RUN_NO;
}

/* Higher is better: the run class, then the arch, then the variant. */
static unsigned long rank(const struct elfscan_image *img,
			  enum elfscan_run run)
{
	static const unsigned variant_rank[] = { 0, 2, 1 };

	return ((unsigned long)run << 24) | ((unsigned long)img->arch << 4) |
	       variant_rank[img->variant <= ELFSCAN_VARIANT_F ? img->variant : 0];
}

long elfscan_pick_image(const struct elfscan_image *images, size_t n,
			const struct elfscan_target *t)
{
	unsigned long best_rank = 0;
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		enum elfscan_run run = elfscan_image_runs_on(&images[i], t);
		unsigned long r;

		if (run == ELFSCAN_RUN_NO)
			continue;
		r = rank(&images[i], run);
		if (best < 0 || r > best_rank) {
			best = (long)i;
			best_rank = r;
		}
	}
	return best;
}

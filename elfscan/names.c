/*
 * How kinds, codecs and archs are spelled. Needs only libc, so the shim
 * links it with the fatbin walker.
 */
#include <stdio.h>

#include "elfscan.h"

const char *elfscan_kind_name(unsigned kind)
{
	switch (kind) {
	case ELFSCAN_KIND_SASS:
		return "sass";
	case ELFSCAN_KIND_PTX:
		return "ptx";
	case ELFSCAN_KIND_LTOIR:
		return "ltoir";
	default:
		return "unknown";
	}
}

const char *elfscan_codec_name(enum elfscan_codec codec)
{
	static const char *const names[] = { "none", "lz4", "zstd", "unknown" };

	return (unsigned)codec < 4 ? names[codec] : "unknown";
}

const char *elfscan_found_name(enum elfscan_found found)
{
	static const char *const names[] = { "section", "magic-scan", "file" };

	return (unsigned)found < 3 ? names[found] : "unknown";
}

char *elfscan_image_arch_name(const struct elfscan_image *img, char *buf,
			      size_t size)
{
	const char *suffix = img->variant == ELFSCAN_VARIANT_A   ? "a"
			     : img->variant == ELFSCAN_VARIANT_F ? "f"
								 : "";

	switch (img->kind) {
	case ELFSCAN_KIND_SASS:
		snprintf(buf, size, "sm_%u%s", img->arch, suffix);
		break;
	case ELFSCAN_KIND_PTX:
		snprintf(buf, size, "compute_%u%s", img->arch, suffix);
		break;
	case ELFSCAN_KIND_LTOIR:
		snprintf(buf, size, "lto_%u%s", img->arch, suffix);
		break;
	default:
		snprintf(buf, size, "kind%u_%u%s", img->kind, img->arch, suffix);
		break;
	}
	return buf;
}


/*
 * libFuzzer target for the scanner: any bytes go through every entry point
 * that reads untrusted input (whole-file scans with and without the magic
 * scan, --verify, the shim's module description and the low-level
 * walkers), then through everything that renders the results. ASan and
 * UBSan find the overreads; the checks below turn broken invariants (a
 * view that points outside the input) into crashes libFuzzer reports.
 *
 *   make fuzz FUZZ_SECONDS=60   (builds build/fuzz_scan and runs it)
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch.h"
#include "elfscan.h"
#include "internal.h"

/* Windows of the magic scan small enough for small inputs to cross them. */
__attribute__((constructor)) static void small_windows(void)
{
	es_drop_window = 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A kernel's name must be readable to its length, and not empty. */
static int each_kernel(const char *name, size_t len, void *arg)
{
	volatile char sum = 0;
	size_t k;

	(void)arg;
	if (!len)
		__builtin_trap();
	for (k = 0; k < len; k++)
		sum ^= name[k];
	(void)sum;
	return 0;
}

static const char *const targets[] = { "7.5", "8.0", "8.6", "9.0", "10.0", "10.3", "12.1" };

/* A borrowed view must lie inside the scanned bytes. */
static void check_view(const uint8_t *data, size_t size, const char *p, size_t n)
{
	const uint8_t *q = (const uint8_t *)p;

	if (p && (q < data || (size_t)(q - data) > size || n > size - (size_t)(q - data)))
		__builtin_trap();
}

static void render(const struct elfscan_file *f, const uint8_t *data, size_t size)
{
	char text[256], tiny[8], arch[ELFSCAN_ARCH_NAME_MAX];
	size_t i;

	for (i = 0; i < f->nproblems; i++) {
		const struct elfscan_problem *p = &f->problems[i];

		elfscan_problem_describe(f, p, text, sizeof(text));
		elfscan_problem_describe(f, p, tiny, sizeof(tiny));
		elfscan_problem_describe(NULL, p, tiny, 1);
		if (strlen(text) >= sizeof(text) || strlen(tiny) >= sizeof(tiny))
			__builtin_trap();
		(void)elfscan_problem_id(p->code);
		if (elfscan_problem_is_fatal(p->code) &&
		    !elfscan_problem_is_error(p->code))
			__builtin_trap();
	}
	for (i = 0; i < f->ncontainers; i++) {
		const struct elfscan_container *c = &f->containers[i];

		if (c->offset > size || c->size > size - c->offset ||
		    c->first_image + c->nimages > f->nimages ||
		    c->section >= f->nsections)
			__builtin_trap();
		(void)elfscan_found_name(c->found);
	}
	for (i = 0; i < f->nimages; i++) {
		const struct elfscan_image *img = &f->images[i];

		elfscan_image_arch_name(img, arch, sizeof(arch));
		elfscan_image_arch_name(img, tiny, 3);
		(void)elfscan_kind_name(img->kind);
		(void)elfscan_codec_name(img->codec);
		check_view(data, size, img->ident, img->ident_len);
		check_view(data, size, img->options, img->options_len);
		if (img->container >= f->ncontainers)
			__builtin_trap();
	}
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		struct elfscan_target t;
		long k;

		if (elfscan_target_parse(targets[i], &t) != 0)
			__builtin_trap();
		k = elfscan_pick_image(f->images, f->nimages, &t);
		if (k >= (long)f->nimages)
			__builtin_trap();
	}
}

static void scan(const uint8_t *data, size_t size,
		 const struct elfscan_options *opt)
{
	struct elfscan_file f;

	elfscan_file_init(&f);
	if (elfscan_scan_buffer(&f, data, size, opt) == 0) {
		render(&f, data, size);
		(void)elfscan_verify(&f);
		render(&f, data, size);
		/* The kernels check asks of fatbins without an image. */
		for (size_t c = 0; c < f.ncontainers; c++)
			(void)elfscan_container_has_kernel(&f, c);
		/* And the names of a per-GPU library's builds for one GPU. */
		for (size_t i = 0; i < f.nimages; i++)
			(void)elfscan_image_kernels(&f, i, each_kernel, (void *)data);
	}
	(void)elfscan_cubin_has_kernel(data, size);
	(void)es_cubin_kernels(data, size, each_kernel, (void *)data);
	(void)elfscan_ptx_has_kernel((const char *)data, size);
	elfscan_file_release(&f);
}

/*
 * The same bytes as a file (a memfd) through elfscan_scan_fd: the header
 * reads through pread and the search in windows that unmap what lies
 * behind them must find what the buffer scan finds, image for image.
 */
static void scan_as_file(const uint8_t *data, size_t size)
{
	struct elfscan_file a, b;
	int fd = memfd_create("fuzz_scan", MFD_CLOEXEC);
	int ra, rb;

	if (fd < 0)
		return;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	elfscan_file_init(&a);
	elfscan_file_init(&b);
	ra = elfscan_scan_buffer(&a, data, size, NULL);
	rb = elfscan_scan_fd(&b, fd, NULL);
	if (size && ra != rb)
		__builtin_trap();
	if (ra == 0 && rb == 0) {
		if (a.nimages != b.nimages || a.ncontainers != b.ncontainers ||
		    a.nproblems != b.nproblems || a.magic_scanned != b.magic_scanned)
			__builtin_trap();
		for (size_t i = 0; i < a.nimages; i++)
			if (a.images[i].offset != b.images[i].offset ||
			    a.images[i].variant != b.images[i].variant ||
			    a.images[i].arch != b.images[i].arch)
				__builtin_trap();
	}
	elfscan_file_release(&a);
	elfscan_file_release(&b);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct elfscan_options known_only = { .no_magic_scan = true };
	struct elfscan_image out[2], img;
	enum elfscan_problem_code problem;
	uint64_t csize, bad;
	long n;
	int i;

	scan(data, size, NULL);
	scan(data, size, &known_only);
	scan_as_file(data, size);

	n = elfscan_module_describe(data, size, out, 2);
	for (i = 0; i < n && i < 2; i++) {
		char arch[ELFSCAN_ARCH_NAME_MAX];

		elfscan_image_arch_name(&out[i], arch, sizeof(arch));
		check_view(data, size, out[i].ident, out[i].ident_len);
		check_view(data, size, out[i].options, out[i].options_len);
	}
	if (elfscan_container_validate(data, size, &csize, &bad) == 0 &&
	    csize > size)
		__builtin_trap();
	if (elfscan_entry_parse(data, size, &img, &problem) >= 0) {
		check_view(data, size, img.ident, img.ident_len);
		check_view(data, size, img.options, img.options_len);
	}
	return 0;
}

/*
 * check's verdict fatbin by fatbin (cli/common/verdict.c), on files made
 * here image by image: what each fatbin runs, the counts, the fatbins
 * that hold code for other GPUs only, and the verdict they sum to.
 */
#include "helpers.h"
#include "verdict.h"

enum { N = ELFSCAN_VARIANT_NONE, A = ELFSCAN_VARIANT_A, F = ELFSCAN_VARIANT_F };
enum { SASS = ELFSCAN_KIND_SASS, PTX = ELFSCAN_KIND_PTX, LTO = ELFSCAN_KIND_LTOIR };

struct spec {
	unsigned kind, arch, variant;
};

/*
 * A file of containers given as image lists, each ended by { 0 }; the
 * whole list ends with an empty container. free_file() frees it.
 */
static struct elfscan_file *make_file(const struct spec *s)
{
	struct elfscan_file *f = calloc(1, sizeof(*f));
	size_t i;

	assert_non_null(f);
	f->containers = calloc(64, sizeof(*f->containers));
	f->images = calloc(256, sizeof(*f->images));
	assert_non_null(f->containers);
	assert_non_null(f->images);
	for (i = 0; s[i].kind || s[i + 1].kind; i++) {
		struct elfscan_container *c = &f->containers[f->ncontainers];

		if (!s[i].kind) {
			f->ncontainers++;
			continue;
		}
		if (!c->nimages)
			c->first_image = f->nimages;
		c->nimages++;
		f->images[f->nimages].kind = s[i].kind;
		f->images[f->nimages].arch = s[i].arch;
		f->images[f->nimages].variant = (enum elfscan_variant)s[i].variant;
		f->images[f->nimages].container = f->ncontainers;
		f->nimages++;
	}
	if (f->nimages)
		f->ncontainers++;
	return f;
}

static void free_file(struct elfscan_file *f)
{
	free(f->containers);
	free(f->images);
	free(f);
}

static void judge(struct ct_verdict *v, const struct elfscan_file *f, const char *target,
		  bool per_gpu)
{
	struct elfscan_target t;

	assert_int_equal(elfscan_target_parse(target, &t), 0);
	ct_verdict_judge(v, f, &t, per_gpu);
}

static void expect_counts(const struct ct_verdict *v, enum ct_verdict_kind verdict, size_t modules,
			  size_t sass, size_t ptx, size_t none, size_t other)
{
	if (v->verdict != verdict || v->modules != modules || v->sass != sass ||
	    v->ptx_jit != ptx || v->no_image != none || v->other_gpus != other)
		fail_msg("got %s, %zu modules: %zu sass, %zu ptx-jit, %zu no image, %zu other GPUs; "
			 "expected %s, %zu: %zu, %zu, %zu, %zu",
			 ct_verdict_name(v->verdict), v->modules, v->sass, v->ptx_jit, v->no_image,
			 v->other_gpus, ct_verdict_name(verdict), modules, sass, ptx, none, other);
}

static void expect_count(const struct ct_image_count *c, unsigned kind, unsigned arch,
			 unsigned variant, size_t fatbins)
{
	if (c->kind != kind || c->arch != arch || c->variant != (enum elfscan_variant)variant ||
	    c->fatbins != fatbins)
		fail_msg("count: kind %u arch %u variant %d in %zu; expected %u %u %u in %zu",
			 c->kind, c->arch, (int)c->variant, c->fatbins, kind, arch, variant,
			 fatbins);
}

/* Four fatbins: plain sm_90 + compute_90, sm_90a only, sm_80 + compute_80, LTO-IR only. */
static const struct spec mixed[] = {
	{ SASS, 90, N }, { PTX, 90, N }, { 0 },
	{ SASS, 90, A }, { 0 },
	{ SASS, 80, N }, { PTX, 80, N }, { 0 },
	{ LTO, 80, N }, { 0 },
	{ 0 },
};

static void test_each_fatbin(void **state)
{
	struct elfscan_file *f = make_file(mixed);
	struct ct_verdict v;

	(void)state;
	assert_int_equal(f->ncontainers, 4);
	/* 9.0: SASS in two, the third JIT-compiles compute_80; LTO-IR is no module. */
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 3, 2, 1, 0, 0);
	assert_int_equal(v.npicks, 3);
	expect_count(&v.picks[0], SASS, 90, A, 1);
	expect_count(&v.picks[1], SASS, 90, N, 1);
	expect_count(&v.picks[2], PTX, 80, N, 1);
	assert_int_equal(v.image, 2); /* the sm_90a image */
	ct_verdict_release(&v);

	/*
	 * 8.0: the first fatbin has nothing for it (a failure), the sm_90a
	 * one holds code for another GPU only (not a failure).
	 */
	judge(&v, f, "sm_80", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 1, 0, 1, 1);
	assert_int_equal(v.other_specific, 1);
	assert_int_equal(v.nmissing, 2);
	expect_count(&v.missing[0], SASS, 90, N, 1);
	expect_count(&v.missing[1], PTX, 90, N, 1);
	assert_int_equal(v.nother, 1);
	expect_count(&v.other[0], SASS, 90, A, 1);
	assert_int_equal(v.image, 3); /* sm_80 */
	ct_verdict_release(&v);

	/* The same file as one of NVIDIA's per-GPU libraries: code for other GPUs. */
	judge(&v, f, "sm_80", true);
	expect_counts(&v, CT_VERDICT_SASS, 3, 1, 0, 0, 2);
	assert_int_equal(v.other_specific, 1);
	assert_int_equal(v.nmissing, 0);
	assert_int_equal(v.nother, 3);
	ct_verdict_release(&v);

	/* 7.5: nothing runs anywhere: no-image, whoever built it. */
	judge(&v, f, "sm_75", true);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 0, 0, 0, 3);
	assert_int_equal(v.image, -1);
	assert_int_equal(v.npicks, 0);
	ct_verdict_release(&v);
	judge(&v, f, "sm_75", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 0, 0, 2, 1);
	ct_verdict_release(&v);
	free_file(f);
}

/* Counts are of fatbins: an image twice in one fatbin counts once. */
static void test_counts_are_fatbins(void **state)
{
	static const struct spec s[] = {
		{ SASS, 80, N }, { SASS, 80, N }, { SASS, 100, F }, { 0 },
		{ SASS, 80, N }, { 0 },
		{ SASS, 86, N }, { 0 },
		{ SASS, 100, F }, { SASS, 100, F }, { 0 },
		{ 0 },
	};
	struct elfscan_file *f = make_file(s);
	struct ct_verdict v;

	(void)state;
	judge(&v, f, "8.6", false);
	expect_counts(&v, CT_VERDICT_SASS, 4, 3, 0, 0, 1);
	assert_int_equal(v.npicks, 2);
	expect_count(&v.picks[0], SASS, 80, N, 2);
	expect_count(&v.picks[1], SASS, 86, N, 1);
	assert_int_equal(v.nother, 1);
	expect_count(&v.other[0], SASS, 100, F, 1);
	ct_verdict_release(&v);

	/* 10.3: sm_100f runs in two fatbins; the sm_80 and sm_86 ones have nothing. */
	judge(&v, f, "sm_103", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 4, 2, 0, 2, 0);
	expect_count(&v.picks[0], SASS, 100, F, 2);
	assert_int_equal(v.nmissing, 2);
	expect_count(&v.missing[0], SASS, 86, N, 1);
	expect_count(&v.missing[1], SASS, 80, N, 1);
	ct_verdict_release(&v);
	free_file(f);
}

static void test_no_code(void **state)
{
	static const struct spec none[] = { { 0 }, { 0 } };
	static const struct spec lto[] = { { LTO, 90, N }, { 0 }, { 0 } };
	struct elfscan_file *f = make_file(none);
	struct ct_verdict v;

	(void)state;
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_NO_DEVICE_CODE, 0, 0, 0, 0, 0);
	assert_string_equal(ct_verdict_name(v.verdict), "no-device-code");
	ct_verdict_release(&v);
	free_file(f);

	/* LTO-IR only: a link input, no module; nothing runs. */
	f = make_file(lto);
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 0, 0, 0, 0, 0);
	assert_string_equal(ct_verdict_name(v.verdict), "no-image");
	ct_verdict_release(&v);
	free_file(f);
	assert_string_equal(ct_verdict_name(CT_VERDICT_SASS), "sass");
	assert_string_equal(ct_verdict_name(CT_VERDICT_PTX_JIT), "ptx-jit");
	/* check --driver's own two. */
	assert_string_equal(ct_verdict_name(CT_VERDICT_NO_GPU_SUPPORT), "no-gpu-support");
	assert_string_equal(ct_verdict_name(CT_VERDICT_DRIVER_TOO_OLD), "driver-too-old");
}

/*
 * --driver: a fatbin whose picked PTX is newer than the driver reads is
 * ptx-too-new; SASS is unaffected; the newest ISA picked is kept.
 */
static void test_driver(void **state)
{
	/* Fatbin 0: sm_90 SASS + compute_90 PTX; 1: compute_80 PTX only. */
	static const struct spec s[] = {
		{ SASS, 90, N }, { PTX, 90, N }, { 0 }, { PTX, 80, N }, { 0 }, { 0 },
	};
	struct elfscan_file *f = make_file(s);
	struct elfscan_target t;
	struct ct_verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < f->nimages; i++)
		if (f->images[i].kind == PTX) {
			f->images[i].version_major = 8;
			f->images[i].version_minor = 5;
		}
	assert_int_equal(elfscan_target_parse("sm_90", &t), 0);
	/* 8.5 is CUDA 12.5's ISA: a 12.4 driver (550) cannot JIT it. */
	ct_verdict_judge_driver(&v, f, &t, false, 12040);
	assert_int_equal(v.verdict, CT_VERDICT_PTX_TOO_NEW);
	assert_string_equal(ct_verdict_name(v.verdict), "ptx-too-new");
	assert_int_equal(v.sass, 1);
	assert_int_equal(v.ptx_jit, 0);
	assert_int_equal(v.ptx_too_new, 1);
	assert_int_equal(v.ptx_isa_major, 8);
	assert_int_equal(v.ptx_isa_minor, 5);
	ct_verdict_release(&v);
	ct_verdict_judge_driver(&v, f, &t, false, 12050);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 2, 1, 1, 0, 0);
	assert_int_equal(v.ptx_too_new, 0);
	ct_verdict_release(&v);
	/* Without a driver: ptx-jit, and the ISA it needs. */
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 2, 1, 1, 0, 0);
	assert_int_equal(v.ptx_isa_minor, 5);
	ct_verdict_release(&v);
	/* On 8.6 fatbin 0 has no image: that outranks fatbin 1's too new PTX. */
	assert_int_equal(elfscan_target_parse("sm_86", &t), 0);
	ct_verdict_judge_driver(&v, f, &t, false, 12040);
	assert_int_equal(v.verdict, CT_VERDICT_NO_IMAGE);
	assert_int_equal(v.no_image, 1);
	assert_int_equal(v.ptx_too_new, 1);
	ct_verdict_release(&v);
	/* Nothing picked anywhere: no ISA. */
	assert_int_equal(elfscan_target_parse("sm_75", &t), 0);
	ct_verdict_judge_driver(&v, f, &t, false, 12040);
	assert_int_equal(v.verdict, CT_VERDICT_NO_IMAGE);
	assert_int_equal(v.ptx_isa_major, 0);
	ct_verdict_release(&v);
	free_file(f);
}

/* Clear STO_CUDA_ENTRY (0x10) in every symbol of the device ELF at b. */
static void unmark_entries(unsigned char *b)
{
	uint64_t shoff = get_le(b + 0x28, 8), k;
	unsigned shnum = (unsigned)get_le(b + 0x3c, 2), i;

	for (i = 0; i < shnum; i++) {
		unsigned char *sh = b + shoff + 64 * (uint64_t)i;

		if (get_le(sh + 4, 4) == 2) /* SHT_SYMTAB */
			for (k = 0; k + 24 <= get_le(sh + 0x20, 8); k += 24)
				b[get_le(sh + 0x18, 8) + k + 5] &= 0xef;
	}
}

/*
 * A real fatbin (sm_80 and sm_90 SASS) has no image for 7.5: no-image.
 * With its cubins' kernels unmarked it defines none and is left out.
 */
static void test_without_kernels(void **state)
{
	size_t len, i;
	unsigned char *b = read_fixture("lld.so", &len);
	struct scanned s;
	struct ct_verdict v;

	(void)state;
	scanned_open(&s, b, len, NULL);
	judge(&v, &s.f, "sm_75", false);
	assert_int_equal(v.verdict, CT_VERDICT_NO_IMAGE);
	assert_int_equal(v.no_image, 1);
	assert_int_equal(v.without_kernels, 0);
	ct_verdict_release(&v);
	/* In a per-GPU library it is code for other GPUs, and still fails. */
	judge(&v, &s.f, "sm_75", true);
	assert_int_equal(v.verdict, CT_VERDICT_NO_IMAGE);
	assert_int_equal(v.other_gpus, 1);
	assert_int_equal(v.without_kernels, 0);
	ct_verdict_release(&v);
	for (i = 0; i < s.f.nimages; i++)
		unmark_entries(b + s.f.images[i].offset + s.f.images[i].header_size);
	scanned_close(&s);

	scanned_open(&s, b, len, NULL);
	judge(&v, &s.f, "sm_75", false);
	assert_int_equal(v.verdict, CT_VERDICT_NO_DEVICE_CODE);
	assert_int_equal(v.modules, 0);
	assert_int_equal(v.no_image, 0);
	assert_int_equal(v.without_kernels, 1);
	ct_verdict_release(&v);
	/*
	 * Nor does it in a per-GPU library whose only fatbin it is (cuFFTW's
	 * one kernel-less sm_75 cubin, run on a 9.0 GPU).
	 */
	judge(&v, &s.f, "sm_75", true);
	assert_int_equal(v.verdict, CT_VERDICT_NO_DEVICE_CODE);
	assert_int_equal(v.other_gpus, 0);
	assert_int_equal(v.without_kernels, 1);
	ct_verdict_release(&v);
	/* Where it has an image, its kernels are not asked. */
	judge(&v, &s.f, "sm_90", false);
	assert_int_equal(v.verdict, CT_VERDICT_SASS);
	assert_int_equal(v.without_kernels, 0);
	ct_verdict_release(&v);
	scanned_close(&s);
	free(b);
}


/*
 * A per-GPU library's fatbin for another GPU, its SASS and that GPU's PTX
 * (cuSOLVER 12.2 of CUDA 13.2: sm_90 + compute_90 beside sm_100 +
 * compute_100) is that GPU's build only when its kernels are templates the
 * build for 10.0 instantiates too, read from the payloads: these files have
 * none to read, so the driver JIT-compiles it, as in any other object
 * (the case with kernels: tests/e2e/check-fatbins, fatbins-tuned.so).
 */
static const struct spec per_arch[] = {
	{ SASS, 90, N }, { PTX, 90, N }, { 0 },
	{ SASS, 100, N }, { PTX, 100, N }, { 0 },
	{ 0 },
};
static const struct spec per_arch_alone[] = {
	{ SASS, 90, N }, { PTX, 90, N }, { 0 },
	{ 0 },
};

static void test_per_gpu_ptx(void **state)
{
	struct elfscan_file *f = make_file(per_arch), *alone = make_file(per_arch_alone);
	struct elfscan_target t;
	struct ct_verdict_opts every = { .per_gpu_library = true, .kernels_of_other_gpus = true };
	struct ct_verdict v;

	(void)state;
	judge(&v, f, "sm_100", true);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 2, 1, 1, 0, 0);
	assert_int_equal(v.other_ptx, 0);
	ct_verdict_release(&v);

	/* Not one of the per-GPU libraries: the driver JIT-compiles it. */
	judge(&v, f, "sm_100", false);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 2, 1, 1, 0, 0);
	assert_int_equal(v.other_ptx, 0);
	ct_verdict_release(&v);

	/* --every-module: as the driver would load it. */
	assert_int_equal(elfscan_target_parse("sm_100", &t), 0);
	ct_verdict_judge_opts(&v, f, &t, &every);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 2, 1, 1, 0, 0);
	ct_verdict_release(&v);

	/* No SASS for 10.0 anywhere: JIT is how the library runs there. */
	judge(&v, alone, "sm_100", true);
	expect_counts(&v, CT_VERDICT_PTX_JIT, 1, 0, 1, 0, 0);
	ct_verdict_release(&v);
	free_file(f);
	free_file(alone);
}

/*
 * A container the program loads itself: found by the magic scan outside
 * the fatbin sections and registered by no wrapper (PyTorch 2.15's CuTe
 * DSL kernels in .lrodata, one set for sm_90 and one for sm_100). Without
 * an image it holds code for other GPUs, as 'a' code does; registered, or
 * walked in .nv_fatbin, it fails as any fatbin.
 */
static const struct spec loaded[] = {
	{ SASS, 80, N }, { SASS, 90, N }, { 0 },
	{ SASS, 100, N }, { 0 },
	{ SASS, 100, A }, { 0 },
	{ 0 },
};

static void test_program_loaded(void **state)
{
	struct elfscan_file *f = make_file(loaded);
	struct ct_verdict v;

	(void)state;
	f->type = ELFSCAN_FILE_ELF;
	f->containers[0].registered = true;
	f->containers[1].found = ELFSCAN_FOUND_MAGIC;
	f->containers[2].found = ELFSCAN_FOUND_MAGIC;
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_SASS, 3, 1, 0, 0, 2);
	assert_int_equal(v.other_specific, 1); /* sm_100a: 'a' code first */
	assert_int_equal(v.other_loaded, 1);
	ct_verdict_release(&v);

	/* A wrapper points at it: cudart loads it on every GPU. */
	f->containers[1].registered = true;
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 1, 0, 1, 1);
	assert_int_equal(v.other_loaded, 0);
	ct_verdict_release(&v);

	/* In .nv_fatbin without a wrapper: not the program's own either. */
	f->containers[1].registered = false;
	f->containers[1].found = ELFSCAN_FOUND_SECTION;
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 1, 0, 1, 1);
	ct_verdict_release(&v);

	/* A standalone fatbin file is what the program loads: judged whole. */
	f->containers[1].found = ELFSCAN_FOUND_MAGIC;
	f->type = ELFSCAN_FILE_FATBIN;
	judge(&v, f, "sm_90", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 1, 0, 1, 1);
	ct_verdict_release(&v);

	/* On 10.0 the registered fatbin has nothing: that fails. */
	f->type = ELFSCAN_FILE_ELF;
	judge(&v, f, "sm_100", false);
	expect_counts(&v, CT_VERDICT_NO_IMAGE, 3, 2, 0, 1, 0);
	ct_verdict_release(&v);
	free_file(f);
}
/*
 * -rdc: the linked container (wrapper v2) is the module; the
 * __nv_relfatbin ones are what cudart JIT-links when it has no image.
 */
static void test_rdc(void **state)
{
	static const struct spec rdc[] = { { SASS, 80, N }, { 0 },
					   { PTX, 80, N }, { SASS, 80, N }, { 0 },
					   { PTX, 80, N }, { SASS, 80, N }, { 0 }, { 0 } };
	static char relfatbin[] = "__nv_relfatbin", nv_fatbin[] = ".nv_fatbin";
	struct elfscan_section sections[2] = { { .name = nv_fatbin }, { .name = relfatbin } };
	struct elfscan_file *f = make_file(rdc);
	struct ct_verdict v;

	(void)state;
	f->sections = sections;
	f->nsections = 2;
	f->containers[0].registered = true;
	f->containers[0].wrapper_version = 2;
	f->containers[1].section = f->containers[2].section = 1;
	judge(&v, f, "sm_80", false);
	assert_int_equal(v.verdict, CT_VERDICT_SASS);
	assert_int_equal(v.modules, 1);
	assert_int_equal(v.link_inputs, 2);
	ct_verdict_release(&v);
	judge(&v, f, "sm_90", false);
	assert_int_equal(v.verdict, CT_VERDICT_PTX_JIT);
	assert_int_equal(v.modules, 1);
	assert_int_equal(v.ptx_jit, 1);
	assert_int_equal(f->images[v.image].kind, PTX);
	ct_verdict_release(&v);
	/* One translation unit without PTX: the JIT link cannot happen. */
	f->images[3].kind = SASS;
	judge(&v, f, "sm_90", false);
	assert_int_equal(v.verdict, CT_VERDICT_NO_IMAGE);
	assert_int_equal(v.no_image, 1);
	ct_verdict_release(&v);
	f->sections = NULL;
	free_file(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_fatbin),
		cmocka_unit_test(test_counts_are_fatbins),
		cmocka_unit_test(test_no_code),
		cmocka_unit_test(test_driver),
		cmocka_unit_test(test_without_kernels),
		cmocka_unit_test(test_rdc),
		cmocka_unit_test(test_program_loaded),
		cmocka_unit_test(test_per_gpu_ptx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

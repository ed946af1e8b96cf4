/*
 * libFuzzer target for diff's comparing and printing (cli/model/compare.c, model_read.c,
 * cli/render/diff_out.c): the input is two JSON documents (report or
 * doctor, as someone pasted them) separated by the byte 0x1e (ASCII record
 * separator); each is loaded as a side, and the two are compared both ways
 * and printed as text, Markdown and JSON into memory. ASan and UBSan find
 * the overreads; a document that is not one to compare must be refused,
 * never half read.
 *
 *   make fuzz-diff FUZZ_SECONDS=60   (seeds: tests/fuzz/seeds diff)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "diff_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool load(struct ct_side *s, const uint8_t *p, size_t n)
{
	char why[512], *text = malloc(n + 1);

	if (!text)
		abort();
	memcpy(text, p, n);
	text[n] = '\0';
	if (ct_side_load(s, text, n, why, sizeof(why)) != 0) {
		if (!why[0])
			abort(); /* a refusal says why */
		ct_side_release(s);
		return false;
	}
	return true;
}

static void print_all(const struct ct_diff *d, const struct ct_side *a, const struct ct_side *b)
{
	struct ct_diff_names n = { "a", "b", "report", "doctor" };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		abort();
	ct_diff_print(out, CT_DIFF_TEXT, d, a, b, &n, true);
	ct_diff_print(out, CT_DIFF_MARKDOWN, d, a, b, &n, true);
	ct_diff_print(out, CT_DIFF_JSON, d, a, b, &n, true);
	fclose(out);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0x1e, size);
	size_t na = sep ? (size_t)(sep - data) : size;
	struct ct_side a, b;
	struct ct_diff d;
	bool have_b;

	if (!load(&a, data, na))
		return 0;
	have_b = sep ? load(&b, sep + 1, size - na - 1) : false;
	if (!have_b && !load(&b, data, na)) {
		ct_side_release(&a);
		return 0;
	}
	ct_diff_compute(&d, &a, &b);
	/* Every difference has a kind and a key; with itself, nothing differs. */
	for (size_t i = 0; i < d.n; i++)
		if (!d.e[i].key || (size_t)d.e[i].kind > CT_DIFF_ENV)
			abort();
	if (!have_b && d.n)
		abort();
	print_all(&d, &a, &b);
	ct_diff_release(&d);
	ct_diff_compute(&d, &b, &a);
	print_all(&d, &b, &a);
	ct_diff_release(&d);
	ct_side_release(&a);
	ct_side_release(&b);
	return 0;
}

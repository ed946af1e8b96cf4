/*
 * The CLI's JSON writer (cli/common/json.c), written to a memory stream: string
 * escaping, UTF-8 handling (valid sequences pass through, every other
 * byte becomes \u00XX so that any path still gives valid JSON) and the
 * comma/colon state across nesting.
 */
#include "helpers.h"
#include "json.h"

struct sink {
	FILE *fp;
	char *text;
	size_t len;
	struct ct_json j;
};

static void sink_open(struct sink *s)
{
	s->text = NULL;
	s->len = 0;
	s->fp = open_memstream(&s->text, &s->len);
	assert_non_null(s->fp);
	ct_json_init(&s->j, s->fp);
}

/* Closes the stream and compares what was written; frees it. */
static void sink_expect(struct sink *s, const char *want)
{
	assert_int_equal(fclose(s->fp), 0);
	assert_string_equal(s->text, want);
	free(s->text);
}

/* One string value (n bytes) on its own, as the writer renders it. */
static void render_string(const char *in, size_t n, const char *want)
{
	struct sink s;

	sink_open(&s);
	ct_json_string_n(&s.j, in, n);
	sink_expect(&s, want);
}

#define RENDERS(in, want) render_string(in, sizeof(in) - 1, want)

static void test_escapes(void **state)
{
	(void)state;
	RENDERS("plain", "\"plain\"");
	RENDERS("", "\"\"");
	RENDERS("say \"hi\"", "\"say \\\"hi\\\"\"");
	RENDERS("C:\\path\\", "\"C:\\\\path\\\\\"");
	RENDERS("a\nb\tc\rd", "\"a\\nb\\tc\\rd\"");
	RENDERS("\x01\x08\x0c\x1f", "\"\\u0001\\u0008\\u000c\\u001f\"");
	RENDERS("del\x7f", "\"del\\u007f\"");
	/* An embedded NUL is a byte like any other when a length is given. */
	RENDERS("a\0b", "\"a\\u0000b\"");
	/* '/' needs no escape. */
	RENDERS("/usr/lib", "\"/usr/lib\"");
}

static void test_utf8(void **state)
{
	(void)state;
	/* Valid sequences of 2, 3 and 4 bytes pass through unchanged. */
	RENDERS("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	RENDERS("\xe2\x82\xac 5", "\"\xe2\x82\xac 5\"");
	RENDERS("\xf0\x9d\x84\x9e", "\"\xf0\x9d\x84\x9e\"");
	RENDERS("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */
	/* C1 controls are valid UTF-8 but drive terminals (CSI is U+009B): escaped. */
	RENDERS("a\xc2\x9b" "2J", "\"a\\u009b2J\"");
	RENDERS("\xc2\x80\xc2\x9f\xc2\xa0", "\"\\u0080\\u009f\xc2\xa0\"");
	/* Everything else: each byte on its own. */
	RENDERS("\xff", "\"\\u00ff\"");
	RENDERS("\x80x", "\"\\u0080x\"");               /* lone continuation */
	RENDERS("\xc3" "A", "\"\\u00c3A\"");            /* cut short */
	RENDERS("ab\xc3", "\"ab\\u00c3\"");             /* cut by the end */
	RENDERS("\xe2\x82", "\"\\u00e2\\u0082\"");      /* cut by the end */
	RENDERS("\xc0\xaf", "\"\\u00c0\\u00af\"");      /* overlong '/' */
	RENDERS("\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\"");
	RENDERS("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""); /* surrogate */
	RENDERS("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"");
	RENDERS("\xf8\x88\x80\x80\x80", "\"\\u00f8\\u0088\\u0080\\u0080\\u0080\"");
	/* A bad byte does not swallow the valid character after it. */
	RENDERS("\xe2\xc3\xa9", "\"\\u00e2\xc3\xa9\"");
	/* The length bounds the read: the 3-byte sequence is cut at 2. */
	render_string("\xe2\x82\xac", 2, "\"\\u00e2\\u0082\"");
}

static void test_scalars(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	ct_json_array_begin(&s.j);
	ct_json_u64(&s.j, UINT64_MAX);
	ct_json_i64(&s.j, INT64_MIN);
	ct_json_i64(&s.j, -1);
	ct_json_bool(&s.j, true);
	ct_json_bool(&s.j, false);
	ct_json_null(&s.j);
	ct_json_string(&s.j, NULL);
	ct_json_string(&s.j, "x");
	ct_json_array_end(&s.j);
	ct_json_finish(&s.j);
	sink_expect(&s, "[18446744073709551615,-9223372036854775808,-1,true,"
			"false,null,null,\"x\"]\n");
}

static void test_nesting(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	ct_json_object_begin(&s.j);
	ct_json_key(&s.j, "files");
	ct_json_array_begin(&s.j);
	ct_json_object_begin(&s.j);
	ct_json_kv_string(&s.j, "path", "a \"b\".so");
	ct_json_kv_string(&s.j, "error", NULL);
	ct_json_kv_u64(&s.j, "n", 2);
	ct_json_key(&s.j, "images");
	ct_json_array_begin(&s.j);
	ct_json_array_end(&s.j);
	ct_json_kv_bool(&s.j, "ok", true);
	ct_json_object_end(&s.j);
	ct_json_object_begin(&s.j);
	ct_json_object_end(&s.j);
	ct_json_array_begin(&s.j);
	ct_json_u64(&s.j, 1);
	ct_json_array_begin(&s.j);
	ct_json_u64(&s.j, 2);
	ct_json_u64(&s.j, 3);
	ct_json_array_end(&s.j);
	ct_json_u64(&s.j, 4);
	ct_json_array_end(&s.j);
	ct_json_array_end(&s.j);
	ct_json_key(&s.j, "k\ney");
	ct_json_object_begin(&s.j);
	ct_json_object_end(&s.j);
	ct_json_kv_u64(&s.j, "last", 0);
	ct_json_object_end(&s.j);
	ct_json_finish(&s.j);
	sink_expect(&s, "{\"files\":[{\"path\":\"a \\\"b\\\".so\",\"error\":null,"
			"\"n\":2,\"images\":[],\"ok\":true},{},[1,[2,3],4]],"
			"\"k\\ney\":{},\"last\":0}\n");
}

/* Commas stay right at every level the writer supports. */
static void test_deep_nesting(void **state)
{
	enum { DEPTH = CT_JSON_MAX_DEPTH - 1 };
	char want[8 * CT_JSON_MAX_DEPTH + 8], *w = want;
	struct sink s;
	int i;

	(void)state;
	sink_open(&s);
	for (i = 0; i < DEPTH; i++) {
		ct_json_array_begin(&s.j);
		ct_json_u64(&s.j, (uint64_t)i % 10);
		*w++ = '[';
		*w++ = (char)('0' + i % 10);
		*w++ = ',';
	}
	for (i = 0; i < DEPTH; i++) {
		ct_json_u64(&s.j, 7);
		ct_json_array_end(&s.j);
		*w++ = '7';
		*w++ = ']';
		if (i + 1 < DEPTH)
			*w++ = ',';
	}
	*w = '\0';
	sink_expect(&s, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The trace records' JSON parser (cli/trace/jsonparse.c): values of every type,
 * every escape (surrogate pairs, lone surrogates as U+FFFD), what must be
 * rejected (control characters in strings, malformed numbers, trailing
 * text, unterminated containers, nesting past 64), the typed getters'
 * fallbacks, and the arena. Every text is parsed from an exact-size copy
 * without a terminating NUL, so a sanitizer build sees any read past the
 * end; the arena is released after each parse, so it sees any leak too.
 * Every prefix and thousands of byte flips of a real record must parse or
 * fail cleanly.
 */
#include <float.h>
#include <math.h>

#include "helpers.h"
#include "jsonparse.h"

/* One parse of an exact-size copy; the arena and the copy travel along. */
struct parsed {
	struct ct_arena a;
	unsigned char *copy;
	struct ct_jv *v;
	const char *err;
};

static void parsed_open(struct parsed *p, const void *text, size_t len)
{
	ct_arena_init(&p->a);
	p->copy = copy_exact(text, len);
	p->err = NULL;
	p->v = ct_json_parse(&p->a, (const char *)p->copy, len, &p->err);
	/* Exactly one of a value and a reason. */
	if (p->v)
		assert_null(p->err);
	else
		assert_true(p->err && *p->err);
}

static void parsed_close(struct parsed *p)
{
	ct_arena_release(&p->a);
	assert_null(p->a.head);
	free(p->copy);
}

#define PARSE(p, lit) parsed_open(p, lit, sizeof(lit) - 1)

/* The text (n bytes) must be rejected; the reason contains why, if given. */
static void rejects_n(const char *text, size_t n, const char *why)
{
	struct parsed p;
	int type = -1;
	const char *err;

	char reason[128];

	parsed_open(&p, text, n);
	if (p.v)
		type = (int)p.v->type;
	/* A static string, or one in the arena (a key named): copied. */
	snprintf(reason, sizeof(reason), "%s", p.err ? p.err : "");
	err = reason;
	/* Released first, so that a failure leaks nothing. */
	parsed_close(&p);
	if (type >= 0)
		fail_msg("accepted %zu bytes '%.*s' (type %d)", n, (int)n, text,
			 type);
	if (why && !strstr(err, why))
		fail_msg("'%.*s': reason '%s', expected one with '%s'", (int)n,
			 text, err, why);
}

#define REJECTS(lit, why) rejects_n(lit, sizeof(lit) - 1, why)

/* A string literal whose decoded bytes are want (wlen of them). */
static void decodes_n(const char *text, size_t n, const char *want, size_t wlen)
{
	struct parsed p;

	parsed_open(&p, text, n);
	if (!p.v)
		fail_msg("'%.*s' rejected: %s", (int)n, text, p.err);
	assert_int_equal(p.v->type, CT_J_STR);
	assert_int_equal(p.v->u.str.len, wlen);
	assert_memory_equal(p.v->u.str.s, want, wlen);
	assert_int_equal(p.v->u.str.s[wlen], '\0');
	parsed_close(&p);
}

#define DECODES(lit, want) decodes_n(lit, sizeof(lit) - 1, want, sizeof(want) - 1)

static void is_int(const char *text, int64_t want)
{
	struct parsed p;

	parsed_open(&p, text, strlen(text));
	if (!p.v)
		fail_msg("'%s' rejected: %s", text, p.err);
	if (p.v->type != CT_J_INT)
		fail_msg("'%s': type %d, expected an integer", text, (int)p.v->type);
	assert_true(p.v->u.i == want);
	parsed_close(&p);
}

static void is_num(const char *text, double want)
{
	struct parsed p;

	parsed_open(&p, text, strlen(text));
	if (!p.v)
		fail_msg("'%s' rejected: %s", text, p.err);
	if (p.v->type != CT_J_NUM)
		fail_msg("'%s': type %d, expected a float", text, (int)p.v->type);
	if (fabs(p.v->u.d - want) > fabs(want) * 1e-12)
		fail_msg("'%s': %.17g, expected %.17g", text, p.v->u.d, want);
	parsed_close(&p);
}

static void test_literals(void **state)
{
	struct parsed p;

	(void)state;
	PARSE(&p, "true");
	assert_int_equal(p.v->type, CT_J_BOOL);
	assert_true(p.v->u.b);
	parsed_close(&p);
	PARSE(&p, "false");
	assert_int_equal(p.v->type, CT_J_BOOL);
	assert_false(p.v->u.b);
	parsed_close(&p);
	PARSE(&p, "null");
	assert_int_equal(p.v->type, CT_J_NULL);
	parsed_close(&p);

	REJECTS("tru", NULL);
	REJECTS("t", NULL);
	REJECTS("nul", NULL);
	REJECTS("fals", NULL);
	REJECTS("True", NULL);
	REJECTS("NULL", NULL);
	REJECTS("nulll", NULL);
	REJECTS("truefalse", NULL);
	REJECTS("undefined", NULL);
	REJECTS("'a'", NULL);
}

static void test_integers(void **state)
{
	(void)state;
	is_int("0", 0);
	is_int("7", 7);
	is_int("-0", 0);
	is_int("-42", -42);
	is_int("1796012948802322887", INT64_C(1796012948802322887));
	is_int("9223372036854775807", INT64_MAX);
	is_int("-9223372036854775808", INT64_MIN);
	is_int("4294967296", INT64_C(4294967296));
}

static void test_floats(void **state)
{
	(void)state;
	is_num("1.5", 1.5);
	is_num("-0.25", -0.25);
	is_num("3.0", 3.0);
	is_num("1e3", 1000.0);
	is_num("1E3", 1000.0);
	is_num("2.5e-2", 0.025);
	is_num("2.5E+2", 250.0);
	is_num("-1.25e1", -12.5);
	is_num("6.02214076e23", 6.02214076e23);
}

static void test_numbers_rejected(void **state)
{
	(void)state;
	REJECTS("-", NULL);
	REJECTS("-x", NULL);
	REJECTS("--1", NULL);
	REJECTS("1-2", NULL);
	REJECTS("12+", NULL);
	REJECTS("+1", NULL);
	REJECTS(".5", NULL);
	REJECTS("0x10", NULL);
	REJECTS("1 2", NULL);
	REJECTS("[-]", NULL);
	REJECTS("{\"a\":-}", NULL);
}

/*
 * A number with a second '.', a second exponent or a sign after the
 * digits is not JSON: a float must be used up to its last character, as
 * an integer already is ("1-2" above).
 */
static void test_numbers_malformed_float(void **state)
{
	(void)state;
	REJECTS("1.2.3", NULL);
	REJECTS("[1.2.3]", NULL);
	REJECTS("1e5e5", NULL);
	REJECTS("1.5-3", NULL);
	REJECTS("2.0+", NULL);
}

/*
 * An integer outside int64 (the shim writes dev and ino as unsigned 64-bit
 * numbers) must not come back as a different integer: strtoll's
 * saturation at INT64_MAX would make two inodes compare equal.
 */
static void test_integer_out_of_range(void **state)
{
	static const char *const texts[] = {
		"9223372036854775808", "18446744073709551615",
		"-9223372036854775809", "99999999999999999999",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(texts); i++) {
		struct parsed p;
		bool wrong;
		long long got;

		parsed_open(&p, texts[i], strlen(texts[i]));
		wrong = p.v && p.v->type == CT_J_INT;
		got = wrong ? (long long)p.v->u.i : 0;
		parsed_close(&p);
		if (wrong)
			fail_msg("'%s' read as the integer %lld", texts[i], got);
	}
}

static void test_strings(void **state)
{
	(void)state;
	DECODES("\"\"", "");
	DECODES("\"plain\"", "plain");
	DECODES("\"/usr/lib/x86_64-linux-gnu/libc.so.6\"",
		"/usr/lib/x86_64-linux-gnu/libc.so.6");
	/* UTF-8 and DEL pass through as they are. */
	DECODES("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e\"",
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e");
	DECODES("\"del\x7f\"", "del\x7f");
	DECODES("\"{[,:]}\"", "{[,:]}");
}

/*
 * The parser looks for the end of a string eight bytes at a time: a quote,
 * a backslash or a control character at every offset of strings of every
 * length up to 40, alone and followed by more text (an array's next item),
 * decodes (or is refused) as byte by byte.
 */
static void test_strings_every_offset(void **state)
{
	static const unsigned char specials[] = { '\\', 0x01, 0x1f, 0x20, 0x7f, 0x80, 0xff, '"' };
	char text[128], want[64];
	size_t len, k, s, tail;

	(void)state;
	for (len = 1; len <= 40; len++)
		for (k = 0; k < len; k++)
			for (s = 0; s < ARRAY_LEN(specials); s++)
				for (tail = 0; tail < 2; tail++) {
					unsigned char c = specials[s];
					size_t n = 0, w = 0, i;
					struct parsed p;
					const struct ct_jv *v;

					if (tail)
						text[n++] = '[';
					text[n++] = '"';
					for (i = 0; i < len; i++) {
						char ch = i == k ? (char)c : (char)('a' + i % 26);

						text[n++] = ch;
						/* A backslash escapes the next letter: \\ written as \\\\. */
						if (i == k && c == '\\')
							text[n++] = '\\';
						if (i == k && c == '"')
							break;
						want[w++] = ch;
					}
					if (c != '"')
						text[n++] = '"';
					if (tail) {
						memcpy(text + n, ",\"0123456789abcdef\"]", 20);
						n += 20;
					}
					parsed_open(&p, text, n);
					v = p.v && tail ? (p.v->type == CT_J_ARR && p.v->u.c.n == 2
								  ? p.v->u.c.items[0] : NULL)
						       : p.v;
					/* A quote ends the string there: what came before it. */
					if (c < 0x20) {
						assert_null(p.v);
					} else {
						if (!v || v->type != CT_J_STR)
							fail_msg("length %zu, byte 0x%02x at %zu: %s", len, c,
								 k, p.err ? p.err : "not a string");
						assert_int_equal(v->u.str.len, w);
						assert_memory_equal(v->u.str.s, want, w);
						assert_int_equal(v->u.str.s[w], '\0');
					}
					parsed_close(&p);
				}
}

static void test_escapes(void **state)
{
	(void)state;
	DECODES("\"\\\"\"", "\"");
	DECODES("\"\\\\\"", "\\");
	DECODES("\"\\/\"", "/");
	DECODES("\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t");
	DECODES("\"a\\\"b\\\\c\"", "a\"b\\c");
	DECODES("\"C:\\\\path\\\\\"", "C:\\path\\");
	DECODES("\"\\u0041\\u0062\"", "Ab");
	DECODES("\"\\u00e9\\u00E9\"", "\xc3\xa9\xc3\xa9");
	DECODES("\"\\u07ff\"", "\xdf\xbf");
	DECODES("\"\\u0800\"", "\xe0\xa0\x80");
	DECODES("\"\\u20AC\"", "\xe2\x82\xac");
	DECODES("\"\\uffff\"", "\xef\xbf\xbf");
	DECODES("\"\\ue000\"", "\xee\x80\x80");
	DECODES("\"\\u001f\\u007f\"", "\x1f\x7f");
	/* An escaped NUL is kept; the length says where the string ends. */
	DECODES("\"a\\u0000b\"", "a\0b");
	DECODES("\"\\u0000\"", "\0");
	/* The writer's spelling of a byte that is not UTF-8. */
	DECODES("\"\\u00ff\"", "\xc3\xbf");

	REJECTS("\"\\x41\"", "escape");
	REJECTS("\"\\'\"", "escape");
	REJECTS("\"\\a\"", "escape");
	REJECTS("\"\\U0041\"", "escape");
	REJECTS("\"\\u41\"", "escape");
	REJECTS("\"\\u004\"", "escape");
	REJECTS("\"\\u\"", "escape");
	REJECTS("\"\\u00g1\"", "escape");
	REJECTS("\"\\u-123\"", "escape");
	REJECTS("\"\\u 123\"", "escape");
	/* A backslash before a raw control character is no escape either. */
	REJECTS("\"\\\n\"", NULL);
}

static void test_surrogates(void **state)
{
	(void)state;
	/* Pairs: U+1D11E, U+10000, U+10FFFF. */
	DECODES("\"\\ud834\\udd1e\"", "\xf0\x9d\x84\x9e");
	DECODES("\"\\uD834\\uDD1E\"", "\xf0\x9d\x84\x9e");
	DECODES("\"\\ud800\\udc00\"", "\xf0\x90\x80\x80");
	DECODES("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf");
	DECODES("\"x\\ud83d\\ude00y\"", "x\xf0\x9f\x98\x80y");
	/* Lone ones become U+FFFD and do not swallow what follows. */
	DECODES("\"\\ud800\"", "\xef\xbf\xbd");
	DECODES("\"\\udbff\"", "\xef\xbf\xbd");
	DECODES("\"\\udc00\"", "\xef\xbf\xbd");
	DECODES("\"\\udfff\"", "\xef\xbf\xbd");
	DECODES("\"\\ud800A\"", "\xef\xbf\xbd" "A");
	DECODES("\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A");
	DECODES("\"\\ud800\\n\"", "\xef\xbf\xbd\n");
	DECODES("\"\\udc00\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd");
	DECODES("\"\\ud800\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd");
	DECODES("\"\\ud800\\ud834\\udd1e\"", "\xef\xbf\xbd\xf0\x9d\x84\x9e");
	DECODES("\"\\ud800\\ue000\"", "\xef\xbf\xbd\xee\x80\x80");
	DECODES("\"a\\ud800\\\\udc00\"", "a\xef\xbf\xbd\\udc00");
	/* A lone high one followed by a broken escape: the escape is wrong. */
	REJECTS("\"\\ud800\\u12\"", "escape");
	REJECTS("\"\\ud800\\uzzzz\"", "escape");
	REJECTS("\"\\ud800\\udc0\"", "escape");
}

static void test_control_characters(void **state)
{
	unsigned c;

	(void)state;
	for (c = 0; c < 0x20; c++) {
		char text[] = "\"a?b\"";

		text[2] = (char)c;
		rejects_n(text, sizeof(text) - 1, "control");
	}
	REJECTS("\"line\nbreak\"", "control");
	REJECTS("\"tab\there\"", "control");
	REJECTS("{\"k\ney\":1}", "control");
	REJECTS("[\"ok\",\"bad\x01\"]", "control");
	DECODES("\" \"", " ");
}

static void test_objects(void **state)
{
	struct parsed p;
	const struct ct_jv *m;

	(void)state;
	PARSE(&p, "{}");
	assert_int_equal(p.v->type, CT_J_OBJ);
	assert_int_equal(p.v->u.c.n, 0);
	assert_null(ct_jget(p.v, "a"));
	parsed_close(&p);

	PARSE(&p, "{\"ev\":\"open\",\"n\":3,\"ok\":true,\"no\":null,\"f\":0.5,"
		  "\"a\":[1],\"o\":{\"x\":\"y\"},\"k\\ny\":1,\"\":2}");
	assert_int_equal(p.v->type, CT_J_OBJ);
	assert_int_equal(p.v->u.c.n, 9);
	/* Members keep their order. */
	assert_string_equal(p.v->u.c.keys[0], "ev");
	assert_string_equal(p.v->u.c.keys[1], "n");
	assert_string_equal(p.v->u.c.keys[6], "o");
	assert_string_equal(p.v->u.c.keys[7], "k\ny");
	assert_string_equal(p.v->u.c.keys[8], "");
	assert_int_equal(p.v->u.c.items[1]->type, CT_J_INT);
	assert_string_equal(ct_jstr(p.v, "ev", NULL), "open");
	assert_int_equal(ct_jint(p.v, "n", -1), 3);
	assert_true(ct_jbool(p.v, "ok", false));
	assert_int_equal(ct_jget(p.v, "no")->type, CT_J_NULL);
	assert_int_equal(ct_jget(p.v, "f")->type, CT_J_NUM);
	/* Keys are looked up decoded. */
	assert_int_equal(ct_jint(p.v, "k\ny", -1), 1);
	assert_int_equal(ct_jint(p.v, "", -1), 2);
	m = ct_jget(p.v, "o");
	assert_non_null(m);
	assert_int_equal(m->type, CT_J_OBJ);
	assert_string_equal(ct_jstr(m, "x", NULL), "y");
	parsed_close(&p);

	/* Many members: the arrays grow past their first size. */
	{
		char text[4096], *w = text;
		int i;

		*w++ = '{';
		for (i = 0; i < 100; i++)
			w += sprintf(w, "%s\"k%d\":%d", i ? "," : "", i, i * 3);
		*w++ = '}';
		parsed_open(&p, text, (size_t)(w - text));
		assert_non_null(p.v);
		assert_int_equal(p.v->u.c.n, 100);
		for (i = 0; i < 100; i++) {
			char key[8];

			snprintf(key, sizeof(key), "k%d", i);
			assert_string_equal(p.v->u.c.keys[i], key);
			assert_int_equal(ct_jint(p.v, key, -1), i * 3);
		}
		parsed_close(&p);
	}

	REJECTS("{\"a\"}", "':'");
	REJECTS("{\"a\" 1}", "':'");
	REJECTS("{1:2}", "key");
	REJECTS("{a:1}", "key");
	REJECTS("{'a':1}", "key");
	REJECTS("{\"a\":1,}", "key");
	REJECTS("{,}", "key");
	REJECTS("{\"a\":1 \"b\":2}", NULL);
	REJECTS("{\"a\":1;\"b\":2}", NULL);
	REJECTS("{\"a\"::1}", NULL);
	REJECTS("{\"a\":}", NULL);
}

static void test_arrays(void **state)
{
	struct parsed p;
	const struct ct_jv *in;
	int i;

	(void)state;
	PARSE(&p, "[]");
	assert_int_equal(p.v->type, CT_J_ARR);
	assert_int_equal(p.v->u.c.n, 0);
	parsed_close(&p);

	PARSE(&p, "[1,\"two\",[3,[]],{\"four\":4},true,null,-5.5]");
	assert_int_equal(p.v->type, CT_J_ARR);
	assert_int_equal(p.v->u.c.n, 7);
	assert_null(p.v->u.c.keys);
	assert_int_equal(p.v->u.c.items[0]->u.i, 1);
	assert_string_equal(p.v->u.c.items[1]->u.str.s, "two");
	in = p.v->u.c.items[2];
	assert_int_equal(in->type, CT_J_ARR);
	assert_int_equal(in->u.c.n, 2);
	assert_int_equal(in->u.c.items[0]->u.i, 3);
	assert_int_equal(in->u.c.items[1]->type, CT_J_ARR);
	assert_int_equal(in->u.c.items[1]->u.c.n, 0);
	assert_int_equal(ct_jint(p.v->u.c.items[3], "four", 0), 4);
	assert_int_equal(p.v->u.c.items[4]->type, CT_J_BOOL);
	assert_int_equal(p.v->u.c.items[5]->type, CT_J_NULL);
	assert_true(p.v->u.c.items[6]->u.d == -5.5);
	parsed_close(&p);

	/* Past the first growth, values stay in order. */
	{
		char text[8192], *w = text;

		*w++ = '[';
		for (i = 0; i < 1000; i++)
			w += sprintf(w, "%s%d", i ? "," : "", i);
		*w++ = ']';
		parsed_open(&p, text, (size_t)(w - text));
		assert_non_null(p.v);
		assert_int_equal(p.v->u.c.n, 1000);
		for (i = 0; i < 1000; i++)
			assert_int_equal(p.v->u.c.items[i]->u.i, i);
		parsed_close(&p);
	}

	REJECTS("[1,]", NULL);
	REJECTS("[,1]", NULL);
	REJECTS("[,]", NULL);
	REJECTS("[1 2]", "','");
	REJECTS("[1:2]", "','");
	REJECTS("[1,,2]", NULL);
	REJECTS("[}", NULL);
	REJECTS("{]", NULL);
	REJECTS("[1}", NULL);
	REJECTS("{\"a\":1]", NULL);
}

static void test_whitespace(void **state)
{
	struct parsed p;

	(void)state;
	PARSE(&p, " \t\r\n{ \"a\" \t:\n[ 1 ,\r\n2 ] , \"b\" : { } }\r\n \t");
	assert_non_null(p.v);
	assert_int_equal(ct_jget(p.v, "a")->u.c.n, 2);
	assert_int_equal(ct_jget(p.v, "b")->type, CT_J_OBJ);
	parsed_close(&p);
	PARSE(&p, "\n\n  -12  \n");
	assert_int_equal(p.v->u.i, -12);
	parsed_close(&p);
	/* Only space, tab, CR and LF are JSON whitespace. */
	REJECTS("\v1", NULL);
	REJECTS("1\f", NULL);
	REJECTS("[1,\v2]", NULL);
	REJECTS("\xc2\xa0" "1", NULL);
}

static void test_trailing_text(void **state)
{
	(void)state;
	REJECTS("{}x", "after");
	REJECTS("{} {}", "after");
	REJECTS("{}}", "after");
	REJECTS("[]]", "after");
	REJECTS("[1],", "after");
	REJECTS("\"a\"\"b\"", "after");
	REJECTS("true false", "after");
	REJECTS("null,", "after");
	REJECTS("0 1", "after");
	REJECTS("{\"ev\":\"start\"}\n{\"ev\":\"main\"}", "after");
}

static void test_unterminated(void **state)
{
	(void)state;
	REJECTS("\"abc", "unterminated");
	REJECTS("\"", "unterminated");
	REJECTS("\"abc\\\"", "unterminated");
	REJECTS("\"abc\\", "unterminated");
	REJECTS("\"\\u00", NULL);
	REJECTS("[", NULL);
	REJECTS("[1", NULL);
	REJECTS("[1,", NULL);
	REJECTS("[[]", NULL);
	REJECTS("[\"a", NULL);
	REJECTS("{", NULL);
	REJECTS("{\"a", NULL);
	REJECTS("{\"a\"", NULL);
	REJECTS("{\"a\":", NULL);
	REJECTS("{\"a\":1", NULL);
	REJECTS("{\"a\":1,", NULL);
	REJECTS("{\"a\":{}", NULL);
	REJECTS("{\"a\":[1,2", NULL);
}

/* depth levels of arrays, or objects {"k":...}, around a 1. */
static char *nested(int depth, bool objects, size_t *len)
{
	char *text = malloc((size_t)depth * 6 + 2), *w = text;
	int i;

	assert_non_null(text);
	for (i = 0; i < depth; i++)
		w += sprintf(w, "%s", objects ? "{\"k\":" : "[");
	*w++ = '1';
	for (i = 0; i < depth; i++)
		*w++ = objects ? '}' : ']';
	*len = (size_t)(w - text);
	return text;
}

static void test_depth(void **state)
{
	struct parsed p;
	const struct ct_jv *v;
	size_t len;
	char *text;
	int i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		text = nested(64, k, &len);
		parsed_open(&p, text, len);
		if (!p.v)
			fail_msg("64 levels rejected: %s", p.err);
		for (v = p.v, i = 0; i < 64; i++) {
			assert_int_equal(v->type, k ? CT_J_OBJ : CT_J_ARR);
			assert_int_equal(v->u.c.n, 1);
			v = v->u.c.items[0];
		}
		assert_int_equal(v->type, CT_J_INT);
		parsed_close(&p);
		free(text);

		text = nested(65, k, &len);
		parsed_open(&p, text, len);
		assert_null(p.v);
		assert_non_null(strstr(p.err, "deep"));
		parsed_close(&p);
		free(text);
	}

	/* Depth is given back on the way out: two 63-deep siblings fit in 64. */
	{
		char *inner = nested(63, false, &len);
		char *both = malloc(2 * len + 4);

		assert_non_null(both);
		sprintf(both, "[%.*s,%.*s]", (int)len, inner, (int)len, inner);
		parsed_open(&p, both, 2 * len + 3);
		if (!p.v)
			fail_msg("two 63-deep siblings rejected: %s", p.err);
		assert_int_equal(p.v->u.c.n, 2);
		parsed_close(&p);
		free(both);
		free(inner);
	}

	/* Far too deep: rejected without running out of stack. */
	text = malloc(1000000);
	assert_non_null(text);
	memset(text, '[', 1000000);
	parsed_open(&p, text, 1000000);
	assert_null(p.v);
	parsed_close(&p);
	free(text);
}

static void test_empty_input(void **state)
{
	(void)state;
	rejects_n("", 0, NULL);
	REJECTS(" ", NULL);
	REJECTS(" \n\t\r ", NULL);
	REJECTS("\n", NULL);
}

static void test_nul_bytes(void **state)
{
	(void)state;
	/* The length, not a NUL, ends the text. */
	REJECTS("\0", NULL);
	REJECTS("{\"a\":1}\0", NULL);
	REJECTS("{\"a\":1}\0\n", NULL);
	REJECTS("\0{\"a\":1}", NULL);
	REJECTS("[1,\0 2]", NULL);
	REJECTS("{\"a\":\0}", NULL);
	REJECTS("1\0", NULL);
	REJECTS("tr\0e", NULL);
	/* Inside a string a raw NUL is a control character. */
	REJECTS("\"a\0b\"", "control");
	REJECTS("{\"a\0\":1}", "control");
	/* Bytes past the given length are not looked at. */
	{
		struct parsed p;

		parsed_open(&p, "[1]garbage", 3);
		assert_non_null(p.v);
		assert_int_equal(p.v->u.c.n, 1);
		parsed_close(&p);
	}
}

static void test_getters(void **state)
{
	struct parsed p;
	const struct ct_jv *arr;

	(void)state;
	PARSE(&p, "{\"s\":\"text\",\"i\":-9,\"b\":false,\"n\":null,\"f\":2.5,"
		  "\"a\":[\"x\"],\"o\":{\"s\":\"inner\"},\"big\":9223372036854775807}");
	assert_non_null(p.v);

	/* Present and of the right type. */
	assert_string_equal(ct_jstr(p.v, "s", "fb"), "text");
	assert_int_equal(ct_jint(p.v, "i", 5), -9);
	assert_false(ct_jbool(p.v, "b", true));
	assert_true(ct_jint(p.v, "big", 0) == INT64_MAX);

	/* Absent: the fallback, whatever it is. */
	assert_null(ct_jget(p.v, "absent"));
	assert_null(ct_jget(p.v, "S"));
	assert_null(ct_jget(p.v, "s "));
	assert_string_equal(ct_jstr(p.v, "absent", "fb"), "fb");
	assert_null(ct_jstr(p.v, "absent", NULL));
	assert_int_equal(ct_jint(p.v, "absent", 77), 77);
	assert_int_equal(ct_jint(p.v, "absent", -1), -1);
	assert_true(ct_jbool(p.v, "absent", true));
	assert_false(ct_jbool(p.v, "absent", false));
	/* A member of a member is not a member. */
	assert_null(ct_jget(p.v, "x"));

	/* Present with the wrong type: the fallback too. */
	assert_string_equal(ct_jstr(p.v, "i", "fb"), "fb");
	assert_string_equal(ct_jstr(p.v, "n", "fb"), "fb");
	assert_string_equal(ct_jstr(p.v, "a", "fb"), "fb");
	assert_string_equal(ct_jstr(p.v, "o", "fb"), "fb");
	assert_string_equal(ct_jstr(p.v, "b", "fb"), "fb");
	assert_int_equal(ct_jint(p.v, "s", 77), 77);
	assert_int_equal(ct_jint(p.v, "f", 77), 77);
	assert_int_equal(ct_jint(p.v, "b", 77), 77);
	assert_int_equal(ct_jint(p.v, "n", 77), 77);
	assert_int_equal(ct_jint(p.v, "o", 77), 77);
	assert_true(ct_jbool(p.v, "i", true));
	assert_true(ct_jbool(p.v, "s", true));
	assert_true(ct_jbool(p.v, "n", true));
	assert_false(ct_jbool(p.v, "a", false));

	/* Not an object (or nothing at all): no members. */
	arr = ct_jget(p.v, "a");
	assert_int_equal(arr->type, CT_J_ARR);
	assert_null(ct_jget(arr, "0"));
	assert_null(ct_jget(ct_jget(p.v, "s"), "s"));
	assert_null(ct_jget(NULL, "s"));
	assert_string_equal(ct_jstr(NULL, "s", "fb"), "fb");
	assert_int_equal(ct_jint(NULL, "i", 3), 3);
	assert_true(ct_jbool(NULL, "b", true));
	assert_string_equal(ct_jstr(arr, "s", "fb"), "fb");
	assert_string_equal(ct_jstr(ct_jget(p.v, "o"), "s", NULL), "inner");
	parsed_close(&p);
}

static void test_arena(void **state)
{
	struct ct_arena a;
	char *big, *s;
	size_t i;

	(void)state;
	ct_arena_init(&a);
	assert_null(a.head);
	/* Nothing allocated, nothing to free; twice is harmless. */
	ct_arena_release(&a);
	ct_arena_release(&a);

	/* Many small blocks over several chunks, each aligned and usable. */
	for (i = 0; i < 20000; i++) {
		unsigned char *p = ct_arena_alloc(&a, 1 + i % 37);

		assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
		memset(p, 0xa5, 1 + i % 37);
	}
	/* A block larger than a chunk. */
	big = ct_arena_alloc(&a, 3 << 20);
	memset(big, 1, 3 << 20);
	s = ct_arena_strdup(&a, "libcudart.so.13");
	assert_string_equal(s, "libcudart.so.13");
	s = ct_arena_strdup(&a, "");
	assert_string_equal(s, "");
	ct_arena_release(&a);
	assert_null(a.head);

	/* Usable again after a release. */
	s = ct_arena_strdup(&a, "again");
	assert_string_equal(s, "again");
	ct_arena_release(&a);

	/* Many documents in one arena, released once. */
	ct_arena_init(&a);
	for (i = 0; i < 2000; i++) {
		static const char rec[] = "{\"ev\":\"try\",\"t\":1,\"tid\":2,"
					  "\"search\":4,\"path\":\"/a/b\",\"via\":\"runpath\"}";
		const char *err = NULL;
		struct ct_jv *v = ct_json_parse(&a, rec, sizeof(rec) - 1, &err);

		assert_non_null(v);
		assert_string_equal(ct_jstr(v, "via", NULL), "runpath");
	}
	ct_arena_release(&a);

	/* A failed parse leaves nothing the release does not free. */
	ct_arena_init(&a);
	{
		const char *err = NULL;

		assert_null(ct_json_parse(&a, "[[[[{\"a\":\"b\",", 13, &err));
		assert_non_null(err);
		/* err may be NULL. */
		assert_null(ct_json_parse(&a, "[", 1, NULL));
	}
	ct_arena_release(&a);
}

/* A scratch arena reset per record keeps one chunk and reuses it; a huge block goes. */
static void test_arena_reset(void **state)
{
	struct ct_arena a;
	char *first, *again;
	size_t i;

	(void)state;
	ct_arena_init(&a);
	ct_arena_reset(&a);
	assert_null(a.head);
	first = ct_arena_strdup(&a, "one");
	for (i = 0; i < 5000; i++)
		memset(ct_arena_alloc(&a, 100), 0x5a, 100);
	memset(ct_arena_alloc(&a, 1 << 20), 1, 1 << 20);
	ct_arena_reset(&a);
	assert_non_null(a.head);
	again = ct_arena_strdup(&a, "two");
	assert_ptr_equal(again, first);
	assert_string_equal(again, "two");
	ct_arena_release(&a);

	/* A first chunk made for one huge block is not kept. */
	ct_arena_init(&a);
	memset(ct_arena_alloc(&a, 1 << 20), 2, 1 << 20);
	ct_arena_reset(&a);
	assert_null(a.head);
	ct_arena_release(&a);
}

/* At most max_values values: the limit itself parses, one more is ct_json_too_many. */
static void test_values_limit(void **state)
{
	static const char *const docs[] = {
		"[1,2,3]", "{\"a\":[1,2],\"b\":\"x\"}", "[[[[0]]]]", "\"s\"",
	};
	static const size_t counts[] = { 4, 5, 5, 1 };
	struct ct_arena a;
	size_t i;

	(void)state;
	ct_arena_init(&a);
	for (i = 0; i < ARRAY_LEN(docs); i++) {
		const char *err = NULL;

		assert_non_null(ct_json_parse_max(&a, docs[i], strlen(docs[i]), counts[i], &err));
		assert_null(ct_json_parse_max(&a, docs[i], strlen(docs[i]), counts[i] - 1, &err));
		assert_ptr_equal(err, ct_json_too_many);
		/* A broken document says so, not the limit. */
		err = NULL;
		assert_null(ct_json_parse_max(&a, docs[i], strlen(docs[i]) - 1, counts[i], &err));
		assert_ptr_not_equal(err, ct_json_too_many);
	}
	ct_arena_release(&a);
}

static void test_long_string(void **state)
{
	size_t n = 1 << 20, i;
	char *text = malloc(n + 2);
	struct parsed p;

	(void)state;
	assert_non_null(text);
	text[0] = '"';
	for (i = 1; i <= n; i++)
		text[i] = (char)('a' + i % 26);
	text[n + 1] = '"';
	parsed_open(&p, text, n + 2);
	assert_non_null(p.v);
	assert_int_equal(p.v->u.str.len, n);
	assert_memory_equal(p.v->u.str.s, text + 1, n);
	parsed_close(&p);
	free(text);
}

/* A record as the shim writes it, with every kind of value and escape. */
static const char record[] =
	"{\"ev\":\"start\",\"t\":1796012948802322887,\"tid\":28709,\"v\":1,"
	"\"pid\":28709,\"ppid\":-1,\"host\":\"vm\",\"image\":\"286e3cb4163ff35a\","
	"\"auditor\":true,\"secure\":false,\"exe\":\"/work/a \\\"b\\\"\\\\c\","
	"\"argv\":[\"prog\",\"caf\xc3\xa9\",\"\\u00ff\\ud834\\udd1e\\t\\n\"],"
	"\"ranks\":{},\"x\":[[],{\"y\":null},1.5e-3,-0.5],"
	"\"env\":{\"LD_AUDIT\":\"/lib/libcudatrace.so\",\"CUDA_HOME\":\"/usr/local/cuda\"}}";

/* Touch every value, so that a sanitizer sees any bad pointer in the tree. */
static size_t walk(const struct ct_jv *v, int depth)
{
	size_t i, n = 1;

	assert_true(depth <= 64);
	switch (v->type) {
	case CT_J_NULL:
	case CT_J_BOOL:
	case CT_J_INT:
	case CT_J_NUM:
		break;
	case CT_J_STR:
		assert_int_equal(v->u.str.s[v->u.str.len], '\0');
		break;
	case CT_J_OBJ:
		for (i = 0; i < v->u.c.n; i++)
			n += strlen(v->u.c.keys[i]);
		/* fall through */
	case CT_J_ARR:
		for (i = 0; i < v->u.c.n; i++)
			n += walk(v->u.c.items[i], depth + 1);
		break;
	default:
		fail_msg("bad type %d", (int)v->type);
	}
	return n;
}

static void test_record(void **state)
{
	struct parsed p;
	const struct ct_jv *argv;

	(void)state;
	PARSE(&p, record);
	assert_non_null(p.v);
	assert_true(ct_jint(p.v, "t", 0) == INT64_C(1796012948802322887));
	assert_int_equal(ct_jint(p.v, "ppid", 0), -1);
	assert_string_equal(ct_jstr(p.v, "exe", NULL), "/work/a \"b\"\\c");
	argv = ct_jget(p.v, "argv");
	assert_int_equal(argv->u.c.n, 3);
	assert_string_equal(argv->u.c.items[1]->u.str.s, "caf\xc3\xa9");
	assert_string_equal(argv->u.c.items[2]->u.str.s,
			    "\xc3\xbf\xf0\x9d\x84\x9e\t\n");
	assert_string_equal(ct_jstr(ct_jget(p.v, "env"), "CUDA_HOME", NULL),
			    "/usr/local/cuda");
	walk(p.v, 0);
	parsed_close(&p);
}

/* Each proper prefix of an object is incomplete: rejected, never a crash. */
static void test_every_prefix(void **state)
{
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(record) - 1; n++) {
		struct parsed p;

		parsed_open(&p, record, n);
		if (p.v)
			fail_msg("prefix of %zu bytes accepted", n);
		parsed_close(&p);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	/* xorshift64: the same sequence every run. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Do a and b hold the same values (types, strings with their lengths, numbers, keys)? */
static bool same_tree(const struct ct_jv *a, const struct ct_jv *b)
{
	size_t i;

	if (a->type != b->type)
		return false;
	switch (a->type) {
	case CT_J_NULL:
		return true;
	case CT_J_BOOL:
		return a->u.b == b->u.b;
	case CT_J_INT:
		return a->u.i == b->u.i;
	case CT_J_UINT:
		return a->u.u == b->u.u;
	case CT_J_NUM:
		return memcmp(&a->u.d, &b->u.d, sizeof(a->u.d)) == 0;
	case CT_J_STR:
		return a->u.str.len == b->u.str.len && a->u.str.s[a->u.str.len] == '\0' &&
		       memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
	case CT_J_ARR:
	case CT_J_OBJ:
		if (a->u.c.n != b->u.c.n)
			return false;
		for (i = 0; i < a->u.c.n; i++)
			if ((a->type == CT_J_OBJ && strcmp(a->u.c.keys[i], b->u.c.keys[i]) != 0) ||
			    !same_tree(a->u.c.items[i], b->u.c.items[i]))
				return false;
		return true;
	}
	return false;
}

/*
 * Parsed in place (the trace reader's way: strings are views into the
 * line), a text gives what the copying parse gives, or the same refusal:
 * the record, each of its prefixes, and thousands of its byte flips.
 */
/*
 * Issue 31, point 9: an object that holds a key twice was read by its first
 * one, Python's json reads the last: a forged document said one thing to
 * cudatrace and another to a script. Refused, the key named; a key with a
 * NUL (read as the key before it) too. A record's parse marks instead.
 */
static void test_duplicate_keys(void **state)
{
	char big[4096], *o = big;
	struct parsed p;
	struct ct_arena a;
	struct ct_jv *v;
	const char *err = NULL;
	char rec[] = "{\"ev\":\"start\",\"pid\":1,\"env\":{\"X\":\"1\",\"X\":\"2\"},\"pid\":2}";
	int i;

	(void)state;
	REJECTS("{\"schema\":\"a\",\"schema\":\"b\"}", "duplicate key 'schema'");
	REJECTS("{\"a\":1,\"b\":2,\"a\":1}", "duplicate key 'a'");
	REJECTS("[1,{\"x\":{\"k\":null,\"k\":null}}]", "duplicate key 'k'");
	/* The same key written two ways is the same key. */
	REJECTS("{\"pid\":1,\"p\\u0069d\":2}", "duplicate key 'pid'");
	REJECTS("{\"pid\\u0000x\":1}", "a key holds a NUL");
	REJECTS("{\"\\u0000\":1}", "a key holds a NUL");
	/* Keys that differ are kept, also when they differ after a shared start. */
	PARSE(&p, "{\"a\":1,\"ab\":2,\"A\":3,\"\":4}");
	assert_non_null(p.v);
	assert_int_equal(p.v->u.c.n, 4);
	assert_false(p.v->u.c.dup);
	parsed_close(&p);
	/* Many keys (sorted, not compared pair by pair): distinct ones pass, a repeat does not. */
	o += sprintf(o, "{");
	for (i = 0; i < 200; i++)
		o += sprintf(o, "%s\"k%d\":%d", i ? "," : "", i, i);
	sprintf(o, "}");
	parsed_open(&p, big, strlen(big));
	assert_non_null(p.v);
	assert_int_equal(p.v->u.c.n, 200);
	parsed_close(&p);
	sprintf(o, ",\"k117\":0}");
	rejects_n(big, strlen(big), "duplicate key 'k117'");
	/* A long key is named cut short. */
	o = big;
	o += sprintf(o, "{\"");
	for (i = 0; i < 300; i++)
		*o++ = 'z';
	o += sprintf(o, "\":1,\"");
	for (i = 0; i < 300; i++)
		*o++ = 'z';
	sprintf(o, "\":2}");
	parsed_open(&p, big, strlen(big));
	assert_null(p.v);
	assert_int_equal(strlen(p.err), strlen("duplicate key ''") + 64);
	parsed_close(&p);

	/* A trace record's parse marks the objects and reads the first. */
	ct_arena_init(&a);
	v = ct_json_parse_record(&a, rec, strlen(rec), SIZE_MAX, &err);
	assert_non_null(v);
	assert_true(v->u.c.dup);
	assert_int_equal(ct_jint(v, "pid", -1), 1);
	assert_true(ct_jget(v, "env")->u.c.dup);
	assert_string_equal(ct_jstr(ct_jget(v, "env"), "X", NULL), "1");
	ct_arena_release(&a);
}

static void test_inplace(void **state)
{
	size_t len = sizeof(record) - 1, i, n;
	unsigned char *buf = malloc(len), *flipped = malloc(len);

	(void)state;
	assert_non_null(buf);
	assert_non_null(flipped);
	for (i = 0; i < 20000 + len; i++) {
		struct parsed p;
		struct ct_arena a;
		struct ct_jv *v;
		const char *err = NULL;

		n = len;
		memcpy(flipped, record, len);
		if (i < len) {
			n = i; /* a prefix */
		} else {
			uint64_t r = rng();

			flipped[r % len] = (unsigned char)(r >> 16);
		}
		parsed_open(&p, flipped, n);
		ct_arena_init(&a);
		memcpy(buf, flipped, n);
		v = ct_json_parse_inplace(&a, (char *)buf, n, SIZE_MAX, &err);
		if (!p.v != !v || (v && !same_tree(p.v, v)) || (!v && strcmp(err, p.err) != 0))
			fail_msg("in place, %zu bytes parse otherwise than copied (%s, %s)", n,
				 v ? "accepted" : err, p.v ? "accepted" : p.err);
		ct_arena_release(&a);
		parsed_close(&p);
	}
	free(buf);
	free(flipped);
}

static void test_byte_flips(void **state)
{
	static const unsigned char special[] = "\"\\{}[]:,u0-.eE \n\x00\x1f\x7f\xff";
	size_t len = sizeof(record) - 1, accepted = 0, i;
	unsigned char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < 30000; i++) {
		unsigned k, flips = 1 + (unsigned)(rng() % 4);
		struct parsed p;

		memcpy(buf, record, len);
		for (k = 0; k < flips; k++) {
			size_t at = (size_t)(rng() % len);
			uint64_t r = rng();

			/* Half random bytes, half the bytes JSON is made of. */
			buf[at] = r & 1 ? (unsigned char)(r >> 8)
					: special[(r >> 8) % (sizeof(special) - 1)];
		}
		parsed_open(&p, buf, len);
		if (p.v) {
			walk(p.v, 0);
			accepted++;
		}
		parsed_close(&p);
	}
	/* Flips inside string values keep the record valid: some must pass. */
	assert_true(accepted > 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_numbers_rejected),
		cmocka_unit_test(test_numbers_malformed_float),
		cmocka_unit_test(test_integer_out_of_range),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_strings_every_offset),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_surrogates),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_trailing_text),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_long_string),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_byte_flips),
		cmocka_unit_test(test_inplace),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_arena_reset),
		cmocka_unit_test(test_values_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Text with hostile strings (cli/render/text.c), written to a memory
 * stream: every %s argument escaped (controls, ESC, CR, newline, DEL, C1,
 * bidirectional controls, bytes that are not UTF-8, the backslash), the
 * format's own text and newlines untouched, valid UTF-8 kept, widths
 * counted in characters shown, precision in bytes of the argument.
 */
#include "helpers.h"
#include "text.h"

/* ct_tprintf into a string, compared with want. */
#define PRINTS(want, ...)                                                        \
	do {                                                                     \
		char *text_ = NULL;                                              \
		size_t len_ = 0;                                                 \
		FILE *fp_ = open_memstream(&text_, &len_);                       \
		int r_;                                                          \
		assert_non_null(fp_);                                            \
		r_ = ct_tprintf(fp_, __VA_ARGS__);                               \
		assert_int_equal(fclose(fp_), 0);                                \
		assert_string_equal(text_, want);                                \
		assert_int_equal(r_, (int)strlen(want));                         \
		free(text_);                                                     \
	} while (0)

static void escapes(const char *in, const char *want)
{
	char *e = ct_text_escape(in);

	assert_string_equal(e, want);
	free(e);
}

static void test_controls(void **state)
{
	(void)state;
	escapes("plain /usr/lib", "plain /usr/lib");
	escapes("", "");
	{
		char *e = ct_text_escape(NULL);

		assert_string_equal(e, "");
		free(e);
	}
	escapes("\x1b[2J", "\\x1b[2J");
	escapes("a\r\nerror lib-not-found: forged", "a\\r\\nerror lib-not-found: forged");
	escapes("tab\there", "tab\\there");
	escapes("\x01\x07\x08\x7f", "\\x01\\x07\\x08\\x7f");
	escapes("back\\slash", "back\\\\slash");
	/* An escaped string is one line: no newline in any input survives. */
	escapes("\n\n", "\\n\\n");
}

/* Into a fixed buffer, as a signal handler escapes: the same text, cut whole. */
static void test_into(void **state)
{
	char buf[16];
	size_t n;

	(void)state;
	n = ct_text_escape_into(buf, sizeof(buf), "a\x1b\xc2\x9b", 4);
	assert_string_equal(buf, "a\\x1b\\u009b");
	assert_int_equal(n, strlen(buf));
	/* What does not fit is left out from the first piece that does not. */
	n = ct_text_escape_into(buf, 8, "abcdef\x01gh", 9);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(n, 6);
	assert_int_equal(ct_text_escape_into(buf, 0, "x", 1), 0);
}

static void test_utf8(void **state)
{
	(void)state;
	/* Valid UTF-8 stays readable. */
	escapes("/opt/caf\xc3\xa9/lib", "/opt/caf\xc3\xa9/lib");
	escapes("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac");
	escapes("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	/* C1 controls as UTF-8: U+009B is a CSI, U+0085 a newline. */
	escapes("\xc2\x9b" "2J", "\\u009b2J");
	escapes("\xc2\x85", "\\u0085");
	escapes("\xc2\xa0", "\xc2\xa0"); /* U+00A0 is no control */
	/* Bidirectional overrides and the line separator. */
	escapes("\xe2\x80\xae" "txt.exe", "\\u202etxt.exe");
	escapes("\xe2\x80\xa8", "\\u2028");
	escapes("\xe2\x81\xa6", "\\u2066");
	/* Bytes that are not UTF-8: a lone CSI byte, 0xff, a cut sequence,
	   an overlong form, a surrogate. */
	escapes("\x9b" "2J", "\\x9b2J");
	escapes("\xff", "\\xff");
	escapes("\xc3", "\\xc3");
	escapes("\xe6\x97", "\\xe6\\x97");
	escapes("\xc0\xaf", "\\xc0\\xaf");
	escapes("\xed\xa0\x80", "\\xed\\xa0\\x80");
}

static void test_printf(void **state)
{
	(void)state;
	/* The format's newlines are the caller's; an argument's are escaped. */
	PRINTS("a: x\\ny\n", "a: %s\n", "x\ny");
	PRINTS("100% 7 -3 42 ff 0x10 c 1.50 2.5e+00", "100%% %d %ld %zu %x %#x %c %.2f %.1e", 7,
	       -3L, (size_t)42, 255u, 16u, 'c', 1.5, 2.5);
	PRINTS("18446744073709551615 -9", "%llu %lld", 18446744073709551615ull, -9ll);
	PRINTS("  7|7  |007", "%3d|%-3d|%03d", 7, 7, 7);
	PRINTS("   42|42   ", "%*d|%-*d", 5, 42, 5, 42);
	/* Widths count the characters shown, after escaping. */
	PRINTS("ab   |", "%-5s|", "ab");
	PRINTS("   ab|", "%5s|", "ab");
	PRINTS("caf\xc3\xa9 |", "%-5s|", "caf\xc3\xa9");
	PRINTS("\\x1b  |", "%-6s|", "\x1b");
	PRINTS("ab   |", "%-*s|", 5, "ab");
	PRINTS("ab   |", "%*s|", -5, "ab");
	/* Precision takes bytes of the argument, before escaping. */
	PRINTS("/usr", "%.*s", 4, "/usr/lib");
	PRINTS("\\x1b[", "%.2s", "\x1b[2J");
	PRINTS("ab   |", "%-5.2s|", "abcdef");
	PRINTS("x \\x1b y", "%s %s %s", "x", "\x1b", "y");
	PRINTS("", "%s", "");
}

static void test_colour(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	assert_non_null(fp);
	ct_text_colour(fp, true, "1;31");
	ct_tprintf(fp, "%s", "error");
	ct_text_colour(fp, true, "0");
	ct_text_colour(fp, false, "33");
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(text, "\x1b[1;31merror\x1b[0m");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_into),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_colour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

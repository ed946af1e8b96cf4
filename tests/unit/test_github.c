/*
 * GitHub Actions annotations (cli/render/github.c), written to a memory
 * stream: one line each, the message's lines joined by %0A, '%', CR and LF
 * escaped everywhere and ':' and ',' in properties, then the terminal's
 * escaping (text.h) of what is left; empty lines skipped, absent
 * properties left out.
 */
#include "helpers.h"
#include "github.h"

static void annotates(const char *want, const char *level, const char *file,
		      const char *title, const char *const *lines, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	assert_int_equal(ct_github_annotation(fp, level, file, title, lines, n), 0);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(text, want);
	free(text);
}

static void test_shape(void **state)
{
	const char *lines[] = { "x.so, sm_90: no SASS", "", "kernel launches fail", "fix: rebuild" };
	const char *one[] = { "cannot read 'y.so': No such file or directory" };

	(void)state;
	annotates("::error file=x.so,title=t::x.so, sm_90: no SASS%0Akernel launches fail%0Afix: rebuild\n",
		  "error", "x.so", "t", lines, 4);
	annotates("::warning file=y.so::cannot read 'y.so': No such file or directory\n", "warning",
		  "y.so", NULL, one, 1);
	annotates("::notice title=t::cannot read 'y.so': No such file or directory\n", "notice", NULL,
		  "t", one, 1);
	annotates("::error::\n", "error", NULL, NULL, lines, 0);
}

static void test_escapes(void **state)
{
	const char *lines[] = { "100% a:b,c\r\nforged" };
	const char *hostile[] = { "\x1b[2J\\ \x7f" };

	(void)state;
	/* Properties: ':' and ',' too; the message keeps them. */
	annotates("::error file=d%3A/a%2Cb%25%0D%0A%3A%3Aerror%3A%3Ax,title=sm_90%3A no-image"
		  "::100%25 a:b,c%0D%0Aforged\n",
		  "error", "d:/a,b%\r\n::error::x", "sm_90: no-image", lines, 1);
	/* What GitHub does not unescape is written as text is. */
	annotates("::error file=\\x1b[2J::\\x1b[2J\\\\ \\x7f\n", "error", "\x1b[2J", NULL, hostile, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

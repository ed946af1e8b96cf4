/*
 * The Markdown of an issue report (cli/render/markdown.c), written to a
 * memory stream and compared whole: hostile names in code spans fenced
 * past their backticks, text escaped, commands of a fix in code, a
 * section's title as HTML text and its fence longer than any run of
 * backticks in it, and one rule for paths ($SITE by uses, then ~, never
 * inside another name).
 */
#include "helpers.h"
#include "findings.h"
#include "markdown.h"

/* The document md writes for fs, as a string to free. */
static char *document(struct ct_md *md, const struct ct_findings *fs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(ct_md_write(md, f, "cudatrace report", fs), 0);
	assert_int_equal(fclose(f), 0);
	ct_md_free(md);
	return text;
}

static void test_hostile_finding(void **state)
{
	struct ct_findings fs;
	struct ct_finding *f;
	struct ct_md *md = ct_md_new(NULL, false);
	char *doc;

	(void)state;
	ct_findings_init(&fs);
	f = ct_finding_add(&fs, CT_F_LIB_NOT_FOUND, NULL, "'%s' was not found (dlopen by %s)",
			   "lib`x|<b>&amp;\nq.so.9", "a*b");
	ct_finding_fix(f, "install it: pip install nvidia-cudnn-cu12 (or the toolkit), wow!");
	ct_finding_fix_line(f, "or list GPUs (nvidia-smi -L) and run ldconfig");
	ct_finding_evidence(f, "tried ```/x``` and `y`");
	ct_finding_where(f, 42, NULL, NULL, NULL, "prog --x `y`");
	fprintf(ct_md_verdict(md), "cudatrace: 1 process traced: 1 error\n");
	doc = document(md, &fs);
	assert_string_equal(doc,
		"### cudatrace report\n\n"
		"**1 process traced: 1 error**\n\n"
		"#### error `lib-not-found`\n\n"
		"'``lib`x|<b>&amp;\\nq.so.9``' was not found (dlopen by `a*b`)\n\n"
		"- **seen in:** process 42: `` prog --x `y` ``\n"
		"- **fix:**\n"
		"  - install it: `pip install nvidia-cudnn-cu12` (or the toolkit), wow\\!\n"
		"  - or list GPUs (`nvidia-smi -L`) and run `ldconfig`\n\n"
		"````text\n"
		"tried ```/x``` and `y`\n"
		"````\n\n");
	free(doc);
	ct_findings_release(&fs);
}

static void test_paths(void **state)
{
	struct ct_md *md = ct_md_new("/home/u/", false);
	FILE *s;
	char *doc;

	(void)state;
	fprintf(ct_md_verdict(md), "cudatrace: 2 processes traced: no problem found\n");
	s = ct_md_section(md, "Libraries <&> of 'x'");
	fprintf(s, "/home/u/venv/lib/python3.11/site-packages/torch/lib/a.so\n"
		   "/home/u/venv/lib/python3.11/site-packages/torch/lib/b.so\n"
		   "/home/u/.local/lib/python3.11/site-packages/c.so\n"
		   "/home/user2/x.so /x/home/u/y.so (/home/u)\n");
	ct_md_section(md, "empty");
	doc = document(md, NULL);
	assert_string_equal(doc,
		"### cudatrace report\n\n"
		"**2 processes traced: no problem found**\n\n"
		"Paths: `~` is the home directory; "
		"`$SITE` is `~/venv/lib/python3.11/site-packages`; "
		"`$SITE2` is `~/.local/lib/python3.11/site-packages`.\n\n"
		"<details><summary>Libraries &lt;&amp;&gt; of 'x'</summary>\n\n"
		"```text\n"
		"$SITE/torch/lib/a.so\n"
		"$SITE/torch/lib/b.so\n"
		"$SITE2/c.so\n"
		"/home/user2/x.so /x/home/u/y.so (~)\n"
		"```\n\n"
		"</details>\n\n");
	free(doc);
}

static void test_nothing_to_shorten(void **state)
{
	struct ct_md *md = ct_md_new("/", true);
	char *doc;

	(void)state;
	fprintf(ct_md_section(md, "s"), "/usr/lib/x.so\n");
	doc = document(md, NULL);
	assert_null(strstr(doc, "Paths:"));
	assert_non_null(strstr(doc, "```text\n/usr/lib/x.so\n```\n"));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_finding),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_nothing_to_shorten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Signal abbreviations (cli/common/signals.c): the names glibc gives, for
 * every number glibc names, and none for the numbers it does not; checked
 * against glibc's own sigabbrev_np() where the test's glibc has it (2.32
 * and later), against a few fixed names everywhere.
 */
#include <signal.h>

#include "helpers.h"
#include "signals.h"

static void test_known(void **state)
{
	(void)state;
	assert_string_equal(ct_signal_abbrev(11), "SEGV");
	assert_string_equal(ct_signal_abbrev(9), "KILL");
	assert_string_equal(ct_signal_abbrev(6), "ABRT");
	assert_string_equal(ct_signal_abbrev(1), "HUP");
	assert_string_equal(ct_signal_abbrev(29), "POLL");
	assert_string_equal(ct_signal_abbrev(31), "SYS");
	assert_null(ct_signal_abbrev(0));
	assert_null(ct_signal_abbrev(32));
	assert_null(ct_signal_abbrev(SIGRTMIN));
	assert_null(ct_signal_abbrev(64));
	assert_null(ct_signal_abbrev(127));
	assert_null(ct_signal_abbrev(-11));
	assert_null(ct_signal_abbrev(INT64_MAX));
	assert_null(ct_signal_abbrev(INT64_MIN));
	assert_null(ct_signal_abbrev((int64_t)1 << 32 | 11));
}

static void test_as_glibc(void **state)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	int sig, named = 0;

	(void)state;
	for (sig = -1; sig < 256; sig++) {
		const char *ours = ct_signal_abbrev(sig), *theirs = sigabbrev_np(sig);

		if (!ours != !theirs || (ours && strcmp(ours, theirs) != 0))
			fail_msg("signal %d: ours %s, glibc's %s", sig, ours ? ours : "(none)",
				 theirs ? theirs : "(none)");
		named += ours != NULL;
	}
	assert_int_equal(named, 31);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_as_glibc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

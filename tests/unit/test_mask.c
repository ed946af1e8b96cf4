/*
 * Secrets masked for display (cli/common/mask.c): the values of options
 * and variables named like key, token, secret, password, passwd or
 * credential (or pass, pwd, auth), in "--name value", "--name=value" and
 * NAME=value forms, curl's user:pass, credential headers, bearer tokens
 * and the user information of URLs; everything else untouched (NULL).
 */
#include "helpers.h"
#include "mask.h"

/* argv[i] as masked; want NULL when it is shown as it is. */
static void arg_is(const char *const *argv, size_t i, const char *want)
{
	char *m = ct_mask_arg(argv, i);

	if (!want) {
		assert_null(m);
		return;
	}
	assert_non_null(m);
	assert_string_equal(m, want);
	free(m);
}

static void test_options(void **state)
{
	const char *const a[] = { "train.py", "--api-key",  "sk-123",  "--lr",
				  "0.1",      "--token=abc", "--PASSWORD", "hunter2",
				  "-p",       "8080",        "--secret-file=/run/s",
				  "--Credentials", "x",      "--passwd", "--verbose",
				  "--key=",   "--monkey",    "banana" };

	(void)state;
	arg_is(a, 0, NULL);
	arg_is(a, 1, NULL);        /* the option's name stays */
	arg_is(a, 2, "***");       /* its value goes */
	arg_is(a, 3, NULL);
	arg_is(a, 4, NULL);
	arg_is(a, 5, "--token=***");
	arg_is(a, 7, "***");       /* case does not matter */
	arg_is(a, 9, NULL);        /* -p is a port as often as a password */
	arg_is(a, 10, "--secret-file=***");
	arg_is(a, 12, "***");
	arg_is(a, 14, NULL);       /* "--passwd --verbose": the next is an option */
	arg_is(a, 15, "--key=***");
	arg_is(a, 17, "***");      /* over-masking a harmless value is fine */
}

static void test_assignments(void **state)
{
	const char *const a[] = { "env", "HF_TOKEN=hf_abc", "MY_SECRET=s3", "LR=0.1",
				  "a=b=c", "x y=z", "AWS_SECRET_ACCESS_KEY=" };

	(void)state;
	arg_is(a, 1, "HF_TOKEN=***");
	arg_is(a, 2, "MY_SECRET=***");
	arg_is(a, 3, NULL);
	arg_is(a, 4, NULL);
	arg_is(a, 5, NULL);
	arg_is(a, 6, "AWS_SECRET_ACCESS_KEY=***");
}

static void urls_are(const char *in, const char *want)
{
	char *m = ct_mask_text(in);

	if (!want) {
		assert_null(m);
		return;
	}
	assert_non_null(m);
	assert_string_equal(m, want);
	free(m);
}

static void test_urls(void **state)
{
	const char *const a[] = { "pip", "--index-url", "https://u:p@pypi.example/simple" };

	(void)state;
	urls_are("https://user:pass@host/x", "https://***@host/x");
	urls_are("https://ghp_token@github.com/o/r.git", "https://***@github.com/o/r.git");
	urls_are("see http://a:b@h1 and ftp://c:d@h2:21/p?q", "see http://***@h1 and ftp://***@h2:21/p?q");
	urls_are("https://host/path@notuser", NULL);    /* '@' past the authority */
	urls_are("https://host/x?u=a@b", NULL);
	urls_are("https://host", NULL);
	urls_are("/usr/lib:/opt/lib", NULL);
	urls_are("s3://k:s@bucket", "s3://***@bucket");
	urls_are("http://@host", NULL);                  /* nothing to hide */
	urls_are("a://b:c@d e://f@g", "a://***@d e://***@g");
	urls_are("://x@y", "://***@y");
	arg_is(a, 2, "https://***@pypi.example/simple");
	arg_is(a, 1, NULL);
}

static void test_credentials(void **state)
{
	const char *const a[] = { "curl", "-H", "Authorization: Bearer abc.def", "-HAuthorization: Bearer q",
				  "--header=Cookie: sid=1; x=2", "--header", "X-Api-Key: k1",
				  "-u", "bob:pw1", "--user=ann:pw2", "--pass", "pw3", "--pass=pw4",
				  "--pwd=pw5", "--auth", "pw6", "--password", "pw7", "python",
				  "-u", "train.py", "--user", "bob", "--bypass", "1", "--author",
				  "me", "-H", "Accept: text/html", "--proxy-user", "p:pw8",
				  "PASS=pw9", "PWD=/home/me" };

	(void)state;
	arg_is(a, 1, NULL);
	arg_is(a, 2, "Authorization: ***");
	arg_is(a, 3, "-HAuthorization: ***");
	arg_is(a, 4, "--header=Cookie: ***");
	arg_is(a, 6, "X-Api-Key: ***");
	arg_is(a, 8, "bob:***");      /* curl -u user:pass: the password goes */
	arg_is(a, 9, "--user=ann:***");
	arg_is(a, 11, "***");
	arg_is(a, 12, "--pass=***");
	arg_is(a, 13, "--pwd=***");
	arg_is(a, 15, "***");
	arg_is(a, 17, "***");
	arg_is(a, 20, NULL);          /* python -u: no user:pass */
	arg_is(a, 22, NULL);          /* --user without a password */
	arg_is(a, 24, NULL);          /* short words are matched whole */
	arg_is(a, 26, NULL);
	arg_is(a, 28, NULL);          /* a header that says nothing secret */
	arg_is(a, 30, "p:***");
	arg_is(a, 31, "PASS=***");
	arg_is(a, 32, NULL);          /* $PWD is the current directory */
}

static void test_texts(void **state)
{
	(void)state;
	urls_are("curl -H 'Authorization: Bearer abc' https://h/x",
		 "curl -H 'Authorization: ***' https://h/x");
	urls_are("-H \"Proxy-Authorization: Basic dXNlcg==\" -H 'X-Auth-Token: t1'",
		 "-H \"Proxy-Authorization: ***\" -H 'X-Auth-Token: ***'");
	urls_are("token was Bearer eyJhbGci.x.y then", "token was Bearer *** then");
	urls_are("set-cookie: a=b\nnext line", "set-cookie: ***\nnext line");
	urls_are("Authorization:", NULL);                      /* no value */
	/* What a diagnosis says stays. */
	urls_are("libfoo.so: cannot open shared object file: No such file or directory", NULL);
	urls_are("/opt/monkey:/usr/lib", NULL);
	urls_are("KeyError: 'x'", NULL);
	urls_are("undefined symbol: _ZN3c104cuda9SetDeviceEi", NULL);
	urls_are("Bearerless: x", NULL);
}

static void test_values(void **state)
{
	char *m;

	(void)state;
	m = ct_mask_value("NVIDIA_API_KEY", "nvapi-123");
	assert_string_equal(m, "***");
	free(m);
	m = ct_mask_value("LD_LIBRARY_PATH", "/a:https://u:p@h/x");
	assert_string_equal(m, "/a:https://***@h/x");
	free(m);
	assert_null(ct_mask_value("LD_LIBRARY_PATH", "/usr/local/cuda/lib64"));
	assert_null(ct_mask_value("PATH", NULL));
	assert_true(ct_secret_name("GITHUB_TOKEN", 12));
	assert_true(ct_secret_name("db_Password", 11));
	assert_false(ct_secret_name("CUDA_HOME", 9));
	assert_false(ct_secret_name("tok", 3));
	/* Only the n bytes given count. */
	assert_false(ct_secret_name("mykey", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_assignments),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

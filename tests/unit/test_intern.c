/*
 * The trace reader's strings kept once (cli/trace/intern.c) and the arena
 * under them (cli/common/arena.c): the same text is the same pointer, other
 * texts (a prefix, one byte apart, the empty string) are other pointers and
 * keep their bytes through the table's growth; a blob is aligned as the
 * arena aligns and is never a string's copy; arenas filled apart and
 * adopted live as long as the one that took them.
 */
#include "helpers.h"
#include "arena.h"
#include "intern.h"

static void test_same_text_same_pointer(void **state)
{
	struct ct_arena a;
	struct ct_intern in;
	char buf[64];
	const char *x, *y;

	(void)state;
	ct_arena_init(&a);
	ct_intern_init(&in, &a);
	snprintf(buf, sizeof(buf), "/usr/lib/x86_64-linux-gnu/libcudart.so.12");
	x = ct_intern(&in, buf);
	assert_ptr_not_equal(x, buf);
	assert_string_equal(x, buf);
	buf[0] = 'X'; /* the copy is the intern's own */
	assert_string_equal(x, "/usr/lib/x86_64-linux-gnu/libcudart.so.12");
	y = ct_intern(&in, "/usr/lib/x86_64-linux-gnu/libcudart.so.12");
	assert_ptr_equal(x, y);
	assert_ptr_not_equal(ct_intern(&in, "/usr/lib/x86_64-linux-gnu/libcudart.so.1"), x);
	assert_ptr_not_equal(ct_intern(&in, "/usr/lib/x86_64-linux-gnu/libcudart.so.13"), x);
	assert_string_equal(ct_intern(&in, ""), "");
	assert_ptr_equal(ct_intern(&in, ""), ct_intern(&in, ""));
	assert_int_equal(in.n, 4);
	ct_intern_release(&in);
	ct_arena_release(&a);
}

/* Many strings: the table grows, every string keeps its one copy. */
static void test_growth(void **state)
{
	struct ct_arena a;
	struct ct_intern in;
	const char **first = calloc(20000, sizeof(*first));
	char buf[64];
	size_t i;

	(void)state;
	ct_arena_init(&a);
	ct_intern_init(&in, &a);
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "libname%zu.so.%zu", i, i % 7);
		first[i] = ct_intern(&in, buf);
	}
	assert_int_equal(in.n, 20000);
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "libname%zu.so.%zu", i, i % 7);
		assert_ptr_equal(ct_intern(&in, buf), first[i]);
		assert_string_equal(first[i], buf);
	}
	assert_int_equal(in.n, 20000);
	free(first);
	ct_intern_release(&in);
	ct_arena_release(&a);
}

static void test_blobs(void **state)
{
	struct ct_arena a;
	struct ct_intern in;
	const char *s[3];
	const void *b1, *b2, *b3;

	(void)state;
	ct_arena_init(&a);
	ct_intern_init(&in, &a);
	s[0] = ct_intern(&in, "sass");
	ct_intern(&in, "x"); /* an odd length before the blob */
	s[1] = ct_intern(&in, "sm_90");
	s[2] = NULL;
	b1 = ct_intern_blob(&in, s, sizeof(s));
	b2 = ct_intern_blob(&in, s, sizeof(s));
	assert_ptr_equal(b1, b2);
	assert_int_equal((uintptr_t)b1 % _Alignof(max_align_t), 0);
	assert_memory_equal(b1, s, sizeof(s));
	s[2] = s[0];
	b3 = ct_intern_blob(&in, s, sizeof(s));
	assert_ptr_not_equal(b3, b1);
	/* A blob with a string's bytes is not that string. */
	assert_ptr_not_equal(ct_intern_blob(&in, "sass", 5), s[0]);
	assert_ptr_equal(ct_intern(&in, "sass"), s[0]);
	ct_intern_release(&in);
	ct_arena_release(&a);
}

/* Arenas filled apart (a thread each), then adopted: everything still there. */
static void test_adopt(void **state)
{
	struct ct_arena a, b, empty;
	char *x, *y, *z, *big;

	(void)state;
	ct_arena_init(&a);
	ct_arena_init(&b);
	ct_arena_init(&empty);
	x = ct_arena_strdup(&a, "in a");
	y = ct_arena_strdup(&b, "in b");
	big = ct_arena_alloc(&b, 200000);
	memset(big, 7, 200000);
	ct_arena_adopt(&a, &b);
	assert_null(b.head);
	ct_arena_adopt(&a, &empty);
	z = ct_arena_alloc(&a, 16);
	memset(z, 1, 16);
	assert_string_equal(x, "in a");
	assert_string_equal(y, "in b");
	assert_int_equal(big[199999], 7);
	assert_int_equal((uintptr_t)z % _Alignof(max_align_t), 0);
	ct_arena_release(&a);
	assert_null(a.head);
	ct_arena_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_text_same_pointer),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_adopt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

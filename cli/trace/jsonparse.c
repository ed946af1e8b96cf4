/* JSON parsing for trace records; see jsonparse.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "jsonparse.h"

#define MAX_DEPTH 64

const char ct_json_too_many[] = "too many values";

struct parser {
	struct ct_arena *a;
	const char *p, *end;
	const char *err;
	int depth;
	size_t nvalues, max_values;
	bool inplace;                /* the text is the caller's to write (ct_json_parse_inplace) */
	bool mark_dups;              /* a key twice marks its object (ct_json_parse_record) */
};

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct ct_jv *value(struct parser *ps);

static struct ct_jv *fail(struct parser *ps, const char *why)
{
	if (!ps->err)
		ps->err = why;
	return NULL;
}

static struct ct_jv *new_value(struct parser *ps, enum ct_jtype t)
{
	struct ct_jv *v = ct_arena_alloc(ps->a, sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->type = t;
	return v;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * The first byte of [p, end) that is a quote, a backslash or a control
 * character (end when none), eight bytes at a time: the bytes of a trace
 * are mostly paths.
 */
static const char *plain_run(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	while (end - p >= 8) {
		uint64_t w, q, b, c, m;

		memcpy(&w, p, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		/*
		 * A byte of zero in q or b, or a byte below 0x20 in w: its high
		 * bit is set in m, and so may be those of bytes after it (a
		 * borrow), never of one before.
		 */
		q = (q - ones) & ~q;
		b = (b - ones) & ~b;
		c = (w - ones * 0x20) & ~w;
		m = (q | b | c) & highs;
		if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (__builtin_ctzll(m) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

/* A string; ps->p is at the opening quote. The result is NUL-terminated. */
static const char *string(struct parser *ps, size_t *len)
{
	const char *s = ps->p + 1, *q = s;
	char *out, *o;

	/*
	 * Most strings (paths, names) hold no escape and no control
	 * character: one pass to the quote and a copy. Anything else is
	 * decoded below from the start.
	 */
	q = plain_run(q, ps->end);
	if (q < ps->end && *q == '"') {
		*len = (size_t)(q - s);
		ps->p = q + 1;
		if (!ps->inplace)
			return ct_arena_strndup(ps->a, s, *len);
		/* The closing quote, read already, ends the string where it stands. */
		*(char *)q = '\0';
		return s;
	}
	ps->p++;

	/* Escapes only shrink, so the raw length bounds the decoded one. */
	while (ps->p < ps->end && *ps->p != '"') {
		if (*ps->p == '\\')
			ps->p++;
		ps->p++;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unterminated string");
		return NULL;
	}
	out = o = ct_arena_alloc(ps->a, (size_t)(ps->p - s) + 1);
	while (s < ps->p) {
		unsigned char c = (unsigned char)*s++;

		if (c < 0x20) {
			fail(ps, "control character in a string");
			return NULL;
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		c = (unsigned char)*s++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp = 0;
			int k;

			if (ps->p - s < 4) {
				fail(ps, "short \\u escape");
				return NULL;
			}
			for (k = 0; k < 4; k++) {
				int h = hexval(*s++);

				if (h < 0) {
					fail(ps, "bad \\u escape");
					return NULL;
				}
				cp = cp << 4 | (uint32_t)h;
			}
			/* A surrogate pair, or a lone one kept as U+FFFD. */
			if (cp >= 0xD800 && cp < 0xDC00 && ps->p - s >= 6 &&
			    s[0] == '\\' && s[1] == 'u') {
				uint32_t lo = 0;
				int ok = 1;

				for (k = 0; k < 4; k++) {
					int h = hexval(s[2 + k]);

					ok &= h >= 0;
					lo = lo << 4 | (uint32_t)(h < 0 ? 0 : h);
				}
				if (ok && lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					s += 6;
				}
			}
			if (cp >= 0xD800 && cp < 0xE000)
				cp = 0xFFFD;
			o += put_utf8(o, cp);
			break;
		}
		default:
			fail(ps, "bad escape");
			return NULL;
		}
	}
	*o = '\0';
	ps->p++; /* the closing quote */
	*len = (size_t)(o - out);
	return out;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct ct_jv *number(struct parser *ps)
{
	const char *s = ps->p;
	char buf[64];
	size_t n;
	bool integral = true;
	struct ct_jv *v;

	/* JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || !digit(*ps->p))
		return fail(ps, "bad number");
	if (*ps->p == '0')
		ps->p++;
	else
		while (ps->p < ps->end && digit(*ps->p))
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		integral = false;
		ps->p++;
		if (ps->p >= ps->end || !digit(*ps->p))
			return fail(ps, "bad number");
		while (ps->p < ps->end && digit(*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		integral = false;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || !digit(*ps->p))
			return fail(ps, "bad number");
		while (ps->p < ps->end && digit(*ps->p))
			ps->p++;
	}
	n = (size_t)(ps->p - s);
	/*
	 * An integer of up to 19 digits fits 64 bits unsigned: no strtoll for
	 * times, ids and sizes. One that does not fit int64 goes the long way.
	 */
	if (integral && n - (*s == '-') <= 19) {
		const char *d = s + (*s == '-');
		uint64_t x = 0;

		while (d < ps->p)
			x = x * 10 + (uint64_t)(*d++ - '0');
		if (*s != '-' && x <= INT64_MAX) {
			v = new_value(ps, CT_J_INT);
			v->u.i = (int64_t)x;
			return v;
		}
		if (*s == '-' && x <= (uint64_t)INT64_MAX + 1) {
			v = new_value(ps, CT_J_INT);
			v->u.i = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
			return v;
		}
	}
	if (n >= sizeof(buf))
		return fail(ps, "bad number");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (integral) {
		long long i;
		unsigned long long u;

		errno = 0;
		i = strtoll(buf, NULL, 10);
		if (errno == 0) {
			v = new_value(ps, CT_J_INT);
			v->u.i = i;
			return v;
		}
		/* Above INT64_MAX but within 64 bits: kept exactly (inodes). */
		errno = 0;
		u = buf[0] != '-' ? strtoull(buf, NULL, 10) : 0;
		if (buf[0] != '-' && errno == 0) {
			v = new_value(ps, CT_J_UINT);
			v->u.u = u;
			return v;
		}
	}
	v = new_value(ps, CT_J_NUM);
	v->u.d = strtod(buf, NULL);
	return v;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

/* Grow a pointer array (doubling) to hold n + 1 items. */
static void *grow(struct parser *ps, void *old, size_t n, size_t *cap,
		  size_t size)
{
	void *p;

	if (n < *cap)
		return old;
	*cap = *cap ? *cap * 2 : 8;
	p = ct_arena_alloc(ps->a, *cap * size);
	if (n)
		memcpy(p, old, n * size);
	return p;
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A key the object v holds twice, or NULL. A few keys are compared pair by
 * pair; more are sorted (a copy): a forged object of many keys costs
 * n log n, never n squared.
 */
static const char *twice(const struct ct_jv *v)
{
	const char *const *k = v->u.c.keys;
	const char **sorted, *dup = NULL;
	size_t n = v->u.c.n, i, j;

	if (n <= 16) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (strcmp(k[i], k[j]) == 0)
					return k[i];
		return NULL;
	}
	sorted = ct_xmalloc(n * sizeof(*sorted));
	memcpy(sorted, k, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_keys);
	for (i = 1; i < n && !dup; i++)
		if (strcmp(sorted[i], sorted[i - 1]) == 0)
			dup = sorted[i];
	free(sorted);
	return dup;
}

/*
 * An object that holds a key twice: readers disagree on which one counts
 * (ct_jget reads the first, Python's json the last), so a forged document
 * could say one thing to cudatrace and another to a script. Refused, the
 * key named (cut to 64 bytes) in a reason kept in the arena; with
 * mark_dups only marked.
 */
static struct ct_jv *duplicate(struct parser *ps, struct ct_jv *v, const char *key)
{
	static const char head[] = "duplicate key '";
	size_t n = strlen(key) > 64 ? 64 : strlen(key);
	char *why;

	if (ps->mark_dups) {
		v->u.c.dup = true;
		return v;
	}
	why = ct_arena_alloc(ps->a, sizeof(head) + n + 1);
	memcpy(why, head, sizeof(head) - 1);
	memcpy(why + sizeof(head) - 1, key, n);
	memcpy(why + sizeof(head) - 1 + n, "'", 2);
	return fail(ps, why);
}

static struct ct_jv *container(struct parser *ps, bool object)
{
	struct ct_jv *v = new_value(ps, object ? CT_J_OBJ : CT_J_ARR);
	size_t cap = 0, kcap = 0;
	char close = object ? '}' : ']';

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "nested too deeply");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		struct ct_jv *item;

		skip_ws(ps);
		if (object) {
			size_t klen;
			const char *k;

			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a key");
			if (!(k = string(ps, &klen)))
				return NULL;
			/*
			 * A key holding a NUL would read as the shorter key it
			 * starts with ("pid\u0000x" as "pid"): no record has one.
			 */
			if (strlen(k) != klen)
				return fail(ps, "a key holds a NUL");
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':'");
			ps->p++;
			v->u.c.keys = grow(ps, (void *)v->u.c.keys, v->u.c.n,
					   &kcap, sizeof(*v->u.c.keys));
			v->u.c.keys[v->u.c.n] = k;
		}
		if (!(item = value(ps)))
			return NULL;
		v->u.c.items = grow(ps, v->u.c.items, v->u.c.n, &cap,
				    sizeof(*v->u.c.items));
		v->u.c.items[v->u.c.n++] = item;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			const char *dup;

			ps->p++;
			ps->depth--;
			if (object && (dup = twice(v)))
				return duplicate(ps, v, dup);
			return v;
		}
		return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static struct ct_jv *value(struct parser *ps)
{
	struct ct_jv *v;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end");
	if (++ps->nvalues > ps->max_values)
		return fail(ps, ct_json_too_many);
	switch (*ps->p) {
	case '{':
		return container(ps, true);
	case '[':
		return container(ps, false);
	case '"':
		v = new_value(ps, CT_J_STR);
		v->u.str.s = string(ps, &v->u.str.len);
		return v->u.str.s ? v : NULL;
	case 't':
	case 'f':
		v = new_value(ps, CT_J_BOOL);
		v->u.b = *ps->p == 't';
		if (!literal(ps, v->u.b ? "true" : "false"))
			return fail(ps, "bad literal");
		return v;
	case 'n':
		if (!literal(ps, "null"))
			return fail(ps, "bad literal");
		return new_value(ps, CT_J_NULL);
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return number(ps);
		return fail(ps, "unexpected character");
	}
}

struct ct_jv *ct_json_parse(struct ct_arena *a, const char *text, size_t len,
			    const char **err)
{
	return ct_json_parse_max(a, text, len, SIZE_MAX, err);
}

static struct ct_jv *parse(struct ct_arena *a, const char *text, size_t len,
			   size_t max_values, bool inplace, bool mark_dups, const char **err)
{
	struct parser ps = { a, text, text + len, NULL, 0, 0, max_values, inplace, mark_dups };
	struct ct_jv *v = value(&ps);

	if (v) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			v = fail(&ps, "text after the value");
	}
	if (!v && err)
		*err = ps.err ? ps.err : "invalid JSON";
	return v;
}

struct ct_jv *ct_json_parse_max(struct ct_arena *a, const char *text, size_t len,
				size_t max_values, const char **err)
{
	return parse(a, text, len, max_values, false, false, err);
}

struct ct_jv *ct_json_parse_inplace(struct ct_arena *a, char *text, size_t len,
				    size_t max_values, const char **err)
{
	return parse(a, text, len, max_values, true, false, err);
}

struct ct_jv *ct_json_parse_record(struct ct_arena *a, char *text, size_t len,
				   size_t max_values, const char **err)
{
	return parse(a, text, len, max_values, true, true, err);
}

const struct ct_jv *ct_jget(const struct ct_jv *v, const char *key)
{
	size_t i;

	if (!v || v->type != CT_J_OBJ)
		return NULL;
	/* Keys are short: compared here, byte by byte, not by a call each. */
	for (i = 0; i < v->u.c.n; i++) {
		const char *a = v->u.c.keys[i], *b = key;

		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (*a == *b)
			return v->u.c.items[i];
	}
	return NULL;
}

const char *ct_jstr(const struct ct_jv *v, const char *key, const char *fallback)
{
	const struct ct_jv *m = ct_jget(v, key);

	return m && m->type == CT_J_STR ? m->u.str.s : fallback;
}

int64_t ct_jint(const struct ct_jv *v, const char *key, int64_t fallback)
{
	const struct ct_jv *m = ct_jget(v, key);

	return m && m->type == CT_J_INT ? m->u.i : fallback;
}

uint64_t ct_ju64(const struct ct_jv *v, const char *key, uint64_t fallback)
{
	const struct ct_jv *m = ct_jget(v, key);

	if (m && m->type == CT_J_INT && m->u.i >= 0)
		return (uint64_t)m->u.i;
	return m && m->type == CT_J_UINT ? m->u.u : fallback;
}

bool ct_jbool(const struct ct_jv *v, const char *key, bool fallback)
{
	const struct ct_jv *m = ct_jget(v, key);

	return m && m->type == CT_J_BOOL ? m->u.b : fallback;
}

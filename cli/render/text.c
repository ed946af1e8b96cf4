/* Text with hostile strings in it, escaped where it is printed; see text.h. */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ct_utf8.h"
#include "text.h"
#include "util.h"

/*
 * The escaped text: grown with realloc, or (fixed) a caller's buffer that
 * drops what does not fit. A fixed one makes escape() safe in a signal
 * handler: no allocation, no stdio.
 */
struct sbuf {
	char *s;
	size_t n, cap;
	bool fixed;
};

static void sb_add(struct sbuf *b, const void *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		if (b->fixed) {
			b->cap = b->n + 1; /* full: nothing after the piece that did not fit */
			return;
		}
		b->cap = (b->n + n + 1) * 2;
		b->s = ct_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, p, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void sb_hex(struct sbuf *b, bool u, unsigned v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[6] = { '\\', u ? 'u' : 'x' };
	size_t k = 2, i;

	for (i = u ? 4 : 2; i-- > 0;)
		tmp[k++] = digits[(v >> (4 * i)) & 15];
	sb_add(b, tmp, k);
}

/*
 * Code points that are valid UTF-8 and still steer a terminal or the
 * reading order: the C1 controls (U+009B is a CSI), the line and paragraph
 * separators, the bidirectional marks, embeddings, overrides and isolates.
 */
static bool steering(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static uint32_t decode(const unsigned char *s, size_t len)
{
	static const unsigned char lead[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead[len];
	size_t i;

	for (i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

static void escape(struct sbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	while (i < n) {
		unsigned char c = s[i];

		if (c == '\\') {
			sb_add(b, "\\\\", 2);
		} else if (c == '\n') {
			sb_add(b, "\\n", 2);
		} else if (c == '\r') {
			sb_add(b, "\\r", 2);
		} else if (c == '\t') {
			sb_add(b, "\\t", 2);
		} else if (c < 0x20 || c == 0x7f) {
			sb_hex(b, false, c);
		} else if (c < 0x80) {
			sb_add(b, &c, 1);
		} else if ((len = ct_utf8_len(s + i, n - i)) == 0) {
			sb_hex(b, false, c);
		} else {
			uint32_t cp = decode(s + i, len);

			if (steering(cp))
				sb_hex(b, true, cp);
			else
				sb_add(b, s + i, len);
			i += len;
			continue;
		}
		i++;
	}
}

/* Characters on screen: every byte that does not continue a UTF-8 sequence. */
static size_t columns(const struct sbuf *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->n; i++)
		n += ((unsigned char)b->s[i] & 0xc0) != 0x80;
	return n;
}

size_t ct_text_write(FILE *out, const char *s, size_t n)
{
	struct sbuf b = { 0 };
	size_t w;

	escape(&b, s, n);
	w = b.n ? fwrite(b.s, 1, b.n, out) : 0;
	free(b.s);
	return w;
}

size_t ct_text_put(FILE *out, const char *s, size_t n)
{
	return n ? fwrite(s, 1, n, out) : 0;
}

size_t ct_text_escape_into(char *buf, size_t size, const char *s, size_t n)
{
	struct sbuf b = { .s = buf, .cap = size, .fixed = true };

	if (!size)
		return 0;
	buf[0] = '\0';
	escape(&b, s, n);
	return b.n;
}

char *ct_text_escape(const char *s)
{
	struct sbuf b = { 0 };

	sb_add(&b, "", 0);
	if (s)
		escape(&b, s, strlen(s));
	return b.s;
}

/* A %s: precision in bytes of the argument, width in characters shown. */
static int put_string(FILE *out, const char *s, bool left, int width, int prec)
{
	struct sbuf b = { 0 };
	size_t n, cols, pad = 0, i;
	int written;

	if (!s)
		s = "(null)";
	n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
	sb_add(&b, "", 0);
	escape(&b, s, n);
	cols = columns(&b);
	if (width > 0 && (size_t)width > cols)
		pad = (size_t)width - cols;
	for (i = 0; !left && i < pad; i++)
		fputc(' ', out);
	fwrite(b.s, 1, b.n, out);
	for (i = 0; left && i < pad; i++)
		fputc(' ', out);
	written = (int)(b.n + pad);
	free(b.s);
	return written;
}

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L };

static enum length parse_length(const char **q)
{
	const char *p = *q;
	enum length l = LEN_NONE;

	if (p[0] == 'h' && p[1] == 'h')
		l = LEN_HH, p += 2;
	else if (p[0] == 'h')
		l = LEN_H, p++;
	else if (p[0] == 'l' && p[1] == 'l')
		l = LEN_LL, p += 2;
	else if (p[0] == 'l')
		l = LEN_L, p++;
	else if (p[0] == 'j')
		l = LEN_J, p++;
	else if (p[0] == 'z')
		l = LEN_Z, p++;
	else if (p[0] == 't')
		l = LEN_T, p++;
	else if (p[0] == 'L')
		l = LEN_BIG_L, p++;
	*q = p;
	return l;
}

/*
 * One conversion other than %s: fprintf's own, with its argument of the
 * type the length modifier names. The format is a copy of a piece of the
 * caller's, which the compiler checked against the arguments.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#define EMIT(type)                                                                       \
	do {                                                                             \
		type v_ = va_arg(*ap, type);                                             \
		r = wstar && pstar ? fprintf(out, spec, w, pr, v_)                       \
		    : wstar	  ? fprintf(out, spec, w, v_)                            \
		    : pstar	  ? fprintf(out, spec, pr, v_)                           \
				  : fprintf(out, spec, v_);                              \
	} while (0)

static int put_other(FILE *out, const char *spec, char conv, enum length len, bool wstar,
		     bool pstar, int w, int pr, va_list *ap)
{
	int r = -1;

	switch (conv) {
	case 'd':
	case 'i':
		if (len == LEN_L)
			EMIT(long);
		else if (len == LEN_LL)
			EMIT(long long);
		else if (len == LEN_J)
			EMIT(intmax_t);
		else if (len == LEN_Z)
			EMIT(ssize_t);
		else if (len == LEN_T)
			EMIT(ptrdiff_t);
		else
			EMIT(int);
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		if (len == LEN_L)
			EMIT(unsigned long);
		else if (len == LEN_LL)
			EMIT(unsigned long long);
		else if (len == LEN_J)
			EMIT(uintmax_t);
		else if (len == LEN_Z)
			EMIT(size_t);
		else if (len == LEN_T)
			EMIT(ptrdiff_t);
		else
			EMIT(unsigned);
		break;
	case 'c':
		EMIT(int);
		break;
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
	case 'a':
	case 'A':
		if (len == LEN_BIG_L)
			EMIT(long double);
		else
			EMIT(double);
		break;
	case 'p':
		EMIT(void *);
		break;
	default:
		break;
	}
	return r;
}
#undef EMIT
#pragma GCC diagnostic pop

int ct_vtprintf(FILE *out, const char *fmt, va_list ap0)
{
	const char *p = fmt;
	long total = 0;
	va_list ap;

	va_copy(ap, ap0);
	while (*p) {
		const char *pct = strchr(p, '%'), *q, *flags;
		bool wstar = false, pstar = false, left;
		int w = 0, pr = -1, r;
		enum length len;
		char spec[32], conv;

		if (!pct) {
			total += (long)fwrite(p, 1, strlen(p), out);
			break;
		}
		total += (long)fwrite(p, 1, (size_t)(pct - p), out);
		if (pct[1] == '%') {
			fputc('%', out);
			total++;
			p = pct + 2;
			continue;
		}
		flags = q = pct + 1;
		q += strspn(q, "-+ #0'");
		left = memchr(flags, '-', (size_t)(q - flags)) != NULL;
		if (*q == '*') {
			wstar = true;
			q++;
		} else {
			w = (int)strtol(q, NULL, 10);
			while (isdigit((unsigned char)*q))
				q++;
		}
		if (*q == '.') {
			q++;
			if (*q == '*') {
				pstar = true;
				q++;
			} else {
				pr = (int)strtol(q, NULL, 10);
				while (isdigit((unsigned char)*q))
					q++;
			}
		}
		len = parse_length(&q);
		conv = *q;
		if (!conv || (size_t)(q + 1 - pct) >= sizeof(spec)) {
			total = -1;
			break;
		}
		q++;
		memcpy(spec, pct, (size_t)(q - pct));
		spec[q - pct] = '\0';
		if (wstar)
			w = va_arg(ap, int);
		if (pstar)
			pr = va_arg(ap, int);
		if (conv == 's') {
			if (w < 0) {
				left = true;
				w = -w;
			}
			r = put_string(out, va_arg(ap, const char *), left, w, pr);
		} else {
			r = put_other(out, spec, conv, len, wstar, pstar, w, pr, &ap);
		}
		if (r < 0) {
			total = -1;
			break;
		}
		total += r;
		p = q;
	}
	va_end(ap);
	return total < 0 || ferror(out) ? -1 : (int)(total > INT32_MAX ? INT32_MAX : total);
}

void ct_text_colour(FILE *out, bool colour, const char *sgr)
{
	if (colour)
		fprintf(out, "\033[%sm", sgr);
}

int ct_tprintf(FILE *out, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ct_vtprintf(out, fmt, ap);
	va_end(ap);
	return r;
}

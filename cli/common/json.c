/* Streaming JSON writer; see json.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ct_utf8.h"
#include "json.h"

void ct_json_init(struct ct_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->first[0] = true;
}

/* Separator before a value (or key) at the current depth. */
static void sep(struct ct_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
}

static void open_(struct ct_json *j, int c)
{
	sep(j);
	fputc(c, j->out);
	if (j->depth + 1 < CT_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct ct_json *j, int c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
}

void ct_json_object_begin(struct ct_json *j) { open_(j, '{'); }
void ct_json_object_end(struct ct_json *j) { close_(j, '}'); }
void ct_json_array_begin(struct ct_json *j) { open_(j, '['); }
void ct_json_array_end(struct ct_json *j) { close_(j, ']'); }

static void write_string(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0; /* s[run..i): written as they are, in one go */

	fputc('"', out);
	while (i < n) {
		unsigned char c = s[i];
		size_t len;

		/* Printable ASCII, and whole UTF-8 characters other than C1 controls: as they are. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		len = c >= 0x80 ? ct_utf8_len(s + i, n - i) : 0;
		if (len && !(len == 2 && c == 0xC2 && s[i + 1] < 0xA0)) {
			i += len;
			continue;
		}
		if (i > run)
			fwrite(s + run, 1, i - run, out);
		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			/*
			 * A control character, a byte that is not UTF-8, or a C1
			 * control (U+0080-U+009F: C2 80..C2 9F, which drive some
			 * terminals): escaped.
			 */
			if (len == 2) {
				fprintf(out, "\\u%04x", s[i + 1]);
				i++;
			} else {
				fprintf(out, "\\u%04x", c);
			}
			break;
		}
		i++;
		run = i;
	}
	if (i > run)
		fwrite(s + run, 1, i - run, out);
	fputc('"', out);
}

void ct_json_key(struct ct_json *j, const char *key)
{
	sep(j);
	write_string(j->out, key, strlen(key));
	fputc(':', j->out);
	j->after_key = true;
}

void ct_json_string_n(struct ct_json *j, const char *s, size_t n)
{
	sep(j);
	write_string(j->out, s, n);
}

void ct_json_string(struct ct_json *j, const char *s)
{
	if (!s) {
		ct_json_null(j);
		return;
	}
	ct_json_string_n(j, s, strlen(s));
}

void ct_json_u64(struct ct_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->out, "%" PRIu64, v);
}

void ct_json_i64(struct ct_json *j, int64_t v)
{
	sep(j);
	fprintf(j->out, "%" PRId64, v);
}

void ct_json_bool(struct ct_json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->out);
}

void ct_json_null(struct ct_json *j)
{
	sep(j);
	fputs("null", j->out);
}

void ct_json_kv_string(struct ct_json *j, const char *key, const char *s)
{
	ct_json_key(j, key);
	ct_json_string(j, s);
}

void ct_json_kv_u64(struct ct_json *j, const char *key, uint64_t v)
{
	ct_json_key(j, key);
	ct_json_u64(j, v);
}

void ct_json_kv_bool(struct ct_json *j, const char *key, bool v)
{
	ct_json_key(j, key);
	ct_json_bool(j, v);
}

int ct_json_finish(struct ct_json *j)
{
	/*
	 * No fflush here: a failed flush empties the buffer and leaves only the
	 * error flag, so the stream's owner, flushing once at the end, would
	 * lose the cause (ENOSPC) it must report.
	 */
	fputc('\n', j->out);
	if (ferror(j->out)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

void ct_json_words(struct ct_json *j, const char *key, const char *words)
{
	const char *p = words;

	ct_json_key(j, key);
	ct_json_array_begin(j);
	while (strcmp(words, "none") != 0 && *p) {
		size_t n = strcspn(p, " ");

		if (n)
			ct_json_string_n(j, p, n);
		p += n + (p[n] == ' ');
	}
	ct_json_array_end(j);
}

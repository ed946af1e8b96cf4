/* A file as lines under limits; see lines.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "util.h"
#include "lines.h"

#define FIRST_BUF 65536

int ct_lines_open(struct ct_lines *l, const char *path, size_t max_line, size_t max_bytes)
{
	struct stat st;
	int err = 0;

	memset(l, 0, sizeof(*l));
	/* Never through a link: one planted in a folder would read its target. */
	l->fd = ct_open_file(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (l->fd < 0)
		return -errno;
	if (fstat(l->fd, &st) != 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	if (err) {
		close(l->fd);
		l->fd = -1;
		return err;
	}
	l->max_line = max_line;
	l->max_bytes = max_bytes;
	l->owner = st.st_uid;
	l->nlink = st.st_nlink;
	return 0;
}

void ct_lines_close(struct ct_lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

/* Read more into the buffer; sets eof (and truncated past max_bytes). */
static void fill(struct ct_lines *l)
{
	size_t want = l->cap - l->have;
	ssize_t r;

	if (l->max_bytes - l->read_total < want)
		want = l->max_bytes - l->read_total;
	if (want == 0) {
		char c;

		/* At the limit: is there more? One byte says. */
		l->truncated = read(l->fd, &c, 1) == 1;
		l->eof = true;
		return;
	}
	do
		r = read(l->fd, l->buf + l->have, want);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		l->eof = true;
		return;
	}
	l->have += (size_t)r;
	l->read_total += (size_t)r;
}

int ct_lines_next(struct ct_lines *l, char **line, size_t *len, bool *unterminated)
{
	for (;;) {
		/* No buffer yet (buf NULL): nothing to look at, and no arithmetic on NULL. */
		char *nl = l->have > l->scanned
				   ? memchr(l->buf + l->scanned, '\n', l->have - l->scanned)
				   : NULL;

		if (nl) {
			size_t at = l->start;

			l->start = l->scanned = (size_t)(nl - l->buf) + 1;
			if (l->skipping) {
				l->skipping = false;
				continue;
			}
			if (nl == l->buf + at) {
				/* Empty lines, as many as there are, in one go. */
				while (l->start < l->have && l->buf[l->start] == '\n')
					l->start++;
				l->scanned = l->start;
				continue;
			}
			*line = l->buf + at;
			*len = (size_t)(nl - l->buf) - at;
			*unterminated = false;
			return 1;
		}
		l->scanned = l->have;
		if (l->skipping)
			l->start = l->scanned = l->have = 0;
		if (l->eof) {
			if (l->have > l->start) {
				*line = l->buf + l->start;
				*len = l->have - l->start;
				*unterminated = true;
				l->start = l->scanned = l->have;
				return 1;
			}
			return 0;
		}
		/* The partial line to the front, then room for more of it. */
		if (l->start) {
			memmove(l->buf, l->buf + l->start, l->have - l->start);
			l->have -= l->start;
			l->scanned -= l->start;
			l->start = 0;
		}
		if (l->have == l->cap) {
			if (l->cap > l->max_line) {
				/* max_line bytes and no newline: too long, skipped to its end. */
				l->too_long++;
				l->skipping = true;
				l->have = l->scanned = 0;
			} else {
				size_t cap = l->cap ? l->cap * 2 : FIRST_BUF;

				if (cap > l->max_line + 1)
					cap = l->max_line + 1;
				l->buf = ct_xrealloc(l->buf, cap);
				l->cap = cap;
			}
		}
		fill(l);
	}
}

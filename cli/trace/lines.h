/*
 * A trace file as a stream of lines, under limits: the reader never holds
 * more than one line of at most max_line bytes, never reads more than
 * max_bytes of a file, and says what it left out (a line too long is
 * skipped to its newline, and counted). Only regular files are read, opened
 * without blocking (a FIFO named *.jsonl must not hang the reader) and
 * never through a symbolic link (-ELOOP).
 *
 * Ownership: struct ct_lines owns its buffer and descriptor until
 * ct_lines_close; a line handed out is a view into the buffer, valid (and
 * the caller's to write, within the line) until the next call. Not
 * thread-safe.
 */
#ifndef CT_LINES_H
#define CT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ct_lines {
	int fd;
	char *buf;
	size_t cap, have, start, scanned;
	size_t max_line, max_bytes, read_total;
	bool skipping, eof;
	size_t too_long;             /* lines over max_line, skipped */
	bool truncated;              /* the file goes on past max_bytes */
	uid_t owner;                 /* the file's owner */
	nlink_t nlink;               /* its links: a trace file the shim made has one */
};

/*
 * Open path. 0, or a negative errno (-EINVAL: not a regular file; -ELOOP:
 * a symbolic link).
 */
int ct_lines_open(struct ct_lines *l, const char *path, size_t max_line, size_t max_bytes);

/*
 * The next line that is not empty, without its newline, into *line and
 * *len: 1, or 0 at the end. *unterminated is true for a last line that had no newline (a
 * crash can cut one short).
 */
int ct_lines_next(struct ct_lines *l, char **line, size_t *len, bool *unterminated);

void ct_lines_close(struct ct_lines *l);

#endif

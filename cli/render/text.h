/*
 * Text for a terminal, with strings from the outside world in it. Trace
 * values (argv, exe, paths, dlerror texts, host names, GPU names), file
 * names and whatever lower layers built from them are hostile: a crafted
 * one must not clear the screen, move the cursor or forge a line. Every
 * text printer writes through ct_tprintf, which escapes each %s argument
 * and nothing else: the format is ours, the arguments may not be.
 *
 * The escaping (docs/run.md, "What reaches your terminal"):
 *   \n \r \t                      as \n \r \t
 *   other C0 controls, ESC, DEL   as \xNN (ESC: \x1b)
 *   a backslash                   as \\ (so that the text stays unambiguous)
 *   a byte that is not valid UTF-8 as \xNN (a stray 0x9b too)
 *   the C1 controls U+0080-U+009F, the line and paragraph separators and
 *   the bidirectional controls    as \uXXXX
 *   any other valid UTF-8         as it is (non-ASCII paths stay readable)
 * So an escaped string is one line of visible characters.
 *
 * Not thread-safe only in the sense of stdio: each call writes through
 * the FILE it is given.
 */
#ifndef CT_TEXT_H
#define CT_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * fprintf, with each %s argument escaped (a NULL one is "(null)"). Width
 * pads to that many characters of the escaped text; precision takes that
 * many bytes of the argument, before escaping. The other conversions
 * (d i u o x X c f e g a p, with flags, widths, * and length modifiers) are
 * fprintf's own. No %n. Returns the bytes written, or -1 on an error.
 */
int ct_tprintf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ct_vtprintf(FILE *out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* The n bytes at s, escaped, to out. Returns the bytes written. */
size_t ct_text_write(FILE *out, const char *s, size_t n);

/*
 * The n bytes at s, written as they are: text made only of strings this
 * file escaped and of the printer's own characters (the Markdown of
 * markdown.c). Returns the bytes written.
 */
size_t ct_text_put(FILE *out, const char *s, size_t n);

/*
 * The n bytes at s escaped into buf (NUL-terminated, what does not fit
 * left out); returns the length. No allocation and no stdio: safe in a
 * signal handler.
 */
size_t ct_text_escape_into(char *buf, size_t size, const char *s, size_t n);
/* s escaped, as a new string for the caller to free (never NULL). */
char *ct_text_escape(const char *s);

/*
 * Our own colour, the one escape sequence text may hold: "\033[<sgr>m"
 * ("1;31", "33", "0" to reset) when colour is set, else nothing.
 */
void ct_text_colour(FILE *out, bool colour, const char *sgr);

#endif

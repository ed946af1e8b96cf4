/* Where this cudatrace's man page is, for --help (manpage.c). */
#ifndef CT_MANPAGE_H
#define CT_MANPAGE_H

#include <stddef.h>

/*
 * How to read the man page of the cudatrace that runs: "man cudatrace"
 * when the page is installed where man finds it by name, "man PATH" when
 * it lies elsewhere (a build tree's docs/cudatrace.1, a prefix whose bin
 * is not on PATH), NULL when this install has none. Looked for, relative
 * to the binary: ../share/man (the .deb, make install), MANDIR as built
 * in, PREFIX/share/man of a wheel installed into PREFIX (the binary in
 * PREFIX/lib/pythonX.Y/site-packages/cudatrace/bin), ../docs (a build
 * tree). The text is written into buf (size bytes) and buf returned.
 */
const char *ct_man_hint(char *buf, size_t size);

#endif

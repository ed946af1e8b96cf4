/*
 * Reading a file cudatrace did not create: a candidate library, a mapped
 * file, a trace, a wheel, a document to compare. Such a path belongs to
 * someone else (cudatrace often runs as root on users' files), and
 * opening a file is itself a side effect when it is a device: a watchdog
 * arms, a tape rewinds, a serial line drops DTR, /dev/ptmx allocates a
 * terminal, and O_NONBLOCK prevents none of it. So every such read goes
 * through ct_open_file: the path is opened O_PATH (which opens nothing),
 * that descriptor is fstat'ed, and only a regular file is reopened for
 * reading, through /proc/self/fd of that same descriptor, so what is read
 * is the file checked, whatever is put at the path meanwhile.
 * tools/check-layers refuses any other open of a path in cli/ and elfscan/.
 */
#ifndef CT_FILES_H
#define CT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * path opened for reading with flags (O_RDONLY and O_CLOEXEC, O_NONBLOCK,
 * O_NOCTTY, O_NOFOLLOW), or the file pinned at path (ct_pin_file).
 * A regular file comes back readable. Anything else (a directory, a FIFO,
 * a socket, a device) comes back as the O_PATH descriptor it was checked
 * through: fstat tells what it is, and no read, mmap or ioctl reaches it,
 * so a caller that checks the type with fstat, as every reader must, says
 * what it says today, and one that does not reads nothing (EBADF). With
 * O_NOFOLLOW, a link at path is -1 with ELOOP, as open(2) says. -1 with
 * errno when nothing is at path or it may not be read (EACCES: the
 * permission is checked by the reopening, as by open). The caller closes
 * the descriptor. Thread-safe, once no file is being pinned.
 */
int ct_open_file(const char *path, int flags);

/*
 * A regular file as a FILE for reading (fdopen of ct_open_file), or NULL
 * with errno (EISDIR for a folder, ENODEV for anything else not regular).
 */
FILE *ct_fopen_file(const char *path);

/* A regular file of at most max bytes, NUL-terminated, to free; or NULL. */
char *ct_read_small_file(const char *path, size_t max);

/*
 * Files pinned by a descriptor (cudatrace ps: each file a process maps,
 * checked once by device and inode): from then on ct_open_file of that
 * path opens the pinned file (through /proc/self/fd), never what is at
 * the path later, so a process cannot swap another file in between the
 * check and the reads. fd is an O_PATH descriptor of a regular file; the
 * pin takes it. false when another file is pinned at path already (fd is
 * then closed). Not thread-safe to pin while others open: pin first, then
 * read.
 */
bool ct_pin_file(const char *path, int fd);

#endif

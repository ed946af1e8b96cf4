/*
 * C++ symbol names in words: "_ZN3c104cuda9SetDeviceEi" ->
 * "c10::cuda::SetDevice(int)".
 *
 * The demangler is libstdc++'s own __cxa_demangle, found with dlopen at
 * run time, never linked: it is the maintained demangler of the ABI the
 * names come from (GCC and Clang on Linux both emit the Itanium ABI), a
 * machine that runs C++ extensions has it, and cudatrace stays a C
 * program that runs without it (then a name is shown mangled only).
 * libiberty's cplus_demangle is the other maintained one, but it is a
 * static library of binutils' build, not a shared library a machine has.
 *
 * Thread-safe only in that the library is looked up once; call from one
 * thread.
 */
#ifndef CT_DEMANGLE_H
#define CT_DEMANGLE_H

#include <stddef.h>

/*
 * The demangled name of a mangled C++ symbol, malloc'd (the caller frees);
 * NULL when name is not a mangled C++ name, or no demangler is at hand.
 */
char *ct_demangle(const char *name);

/*
 * The ends of the leading <length><identifier> parts of an Itanium-ABI
 * name, into ends (at most max): "_ZN3c104cuda9SetDeviceEi" gives the
 * ends of "_ZN3c10", "_ZN3c104cuda" and "_ZN3c104cuda9SetDevice": the
 * prefixes its namespaces' other symbols share. Template arguments and
 * special names end the walk. Returns how many; 0 for a C name.
 */
size_t ct_mangled_parts(const char *s, size_t *ends, size_t max);

#endif

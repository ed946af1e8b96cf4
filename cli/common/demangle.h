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

/*
 * The demangled name of a mangled C++ symbol, malloc'd (the caller frees);
 * NULL when name is not a mangled C++ name, or no demangler is at hand.
 */
char *ct_demangle(const char *name);

#endif

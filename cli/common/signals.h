/* Signals by number, as the trace records them (signals.c). */
#ifndef CT_SIGNALS_H
#define CT_SIGNALS_H

#include <stdint.h>

/*
 * The abbreviation glibc gives signal sig ("SEGV" for 11, "KILL" for 9),
 * without "SIG"; NULL for a number without one (0, the real-time signals,
 * anything out of range). A static string; thread-safe.
 */
const char *ct_signal_abbrev(int64_t sig);

#endif

/*
 * Secrets in what is shown or shared. The trace keeps argv as the program
 * got it (it is private: docs/trace-format.md, "privacy"); what leaves it
 * for a screen, an issue or a --json file masks what looks like a
 * credential (docs/run.md, "What is masked"):
 *
 * - the value of an option whose name says secret: the name (what follows
 *   one or two dashes, up to '=') contains key, token, secret, password,
 *   passwd or credential, case-insensitive. "--api-key=X" becomes
 *   "--api-key=***"; in "--api-key X" the next argument becomes "***"
 *   (unless it starts with "--": then it is the next option);
 * - the value of a NAME=VALUE argument (env API_TOKEN=x prog, make
 *   PASSWORD=x) or variable whose NAME says secret, the same way;
 * - the user information of a URL, anywhere in an argument or value:
 *   in "https://user:pass@host/x", "user:pass" becomes "***".
 *
 * Masking is for display: it never changes the trace. Every function
 * returns NULL when there is nothing to mask (use the input as it is), or
 * a new masked string for the caller to free.
 */
#ifndef CT_MASK_H
#define CT_MASK_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the n bytes of name name a secret (key, token, secret, ...). */
bool ct_secret_name(const char *name, size_t n);

/*
 * argv[i] as it may be shown: its secret value masked, or the whole of it
 * when argv[i-1] is an option that takes it. NULL: show argv[i].
 */
char *ct_mask_arg(const char *const *argv, size_t i);

/* The value of the variable name as it may be shown; NULL: as it is. */
char *ct_mask_value(const char *name, const char *value);

/* s with the user information of every URL in it masked; NULL: none. */
char *ct_mask_urls(const char *s);

#endif

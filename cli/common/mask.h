/*
 * Secrets in what is shown or shared. The trace keeps argv as the program
 * got it (it is private: docs/trace-format.md, "privacy"); what leaves it
 * for a screen, an issue or a --json file masks what looks like a
 * credential (docs/run.md, "What is masked"):
 *
 * - the value of an option whose name says secret: the name (what follows
 *   one or two dashes, up to '=') contains key, token, secret, password,
 *   passwd, credential, authorization or cookie, or is pass, pwd or auth,
 *   case-insensitive. "--api-key=X" becomes "--api-key=***"; in
 *   "--api-key X" the next argument becomes "***" (unless it starts with
 *   "--": then it is the next option);
 * - the password of curl's -u/--user/--proxy-user user:pass: "user:***";
 * - the value of a NAME=VALUE argument (env API_TOKEN=x prog, make
 *   PASSWORD=x) or variable whose NAME says secret, the same way;
 * - anywhere in an argument or a text: the user information of a URL
 *   (in "https://user:pass@host/x", "user:pass" becomes "***"), the value of a
 *   credential header ("Authorization: ***", also as "-HAuthorization:",
 *   "--header=Cookie: ..."; X-Api-Key, X-Auth-Token, ...) up to a quote or
 *   the line's end, and the token after "Bearer ".
 *
 * The rules are one list, in mask.c.
 *
 * Masking is for display: it never changes the trace. Every function
 * returns NULL when there is nothing to mask (use the input as it is), or
 * a new masked string for the caller to free.
 */
#ifndef CT_MASK_H
#define CT_MASK_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the n bytes of a variable's name say secret (key, token, secret, ...). */
bool ct_secret_name(const char *name, size_t n);

/*
 * argv[i] as it may be shown: its secret value masked, or the whole of it
 * when argv[i-1] is an option that takes it. NULL: show argv[i].
 */
char *ct_mask_arg(const char *const *argv, size_t i);

/* The value of the variable name as it may be shown; NULL: as it is. */
char *ct_mask_value(const char *name, const char *value);

/*
 * A text (a message, a value) with its URLs' user information, its
 * credential headers' values and its bearer tokens masked; NULL: none.
 */
char *ct_mask_text(const char *s);

#endif

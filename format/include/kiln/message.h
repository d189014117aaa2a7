/* Failure messages with or without their text. Every printf-style helper
 * that builds an error message (the runtime's statuses, the verifiers'
 * diagnostics, the ELF and CPU checks) is wrapped, where it is declared,
 * with KILN_MESSAGE_DROP: in a KILN_MESSAGES=OFF build (KILN_NO_MESSAGES
 * defined) each call passes KILN_MESSAGE_NONE instead (one shared string
 * that says why the text is missing), so neither the text
 * nor the code computing its arguments reaches the binary, while the
 * status codes and every check stay. The dropped arguments are still
 * type-checked against their format (in sizeof, never evaluated), so both
 * builds see the same warnings. */
#ifndef KILN_MESSAGE_H
#define KILN_MESSAGE_H

#ifdef KILN_NO_MESSAGES
#include <stdio.h>
/* The format and arguments of one message, checked and discarded. */
#define KILN_MESSAGE_DROP(...) ((void)sizeof(printf(__VA_ARGS__)))
#define KILN_MESSAGE_NONE "no message text (KILN_MESSAGES=OFF)"
#endif

#endif

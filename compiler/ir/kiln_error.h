/* The compiler's one error type: a status value carrying a message; NULL
 * means success. Every compiler module returns it at its boundary (the IR
 * and its passes, the front ends, the llvm-cpu and PTX back ends), so an
 * error crosses no conversion on its way to the driver. Its own library
 * (kiln_error), so the back ends that do not link the IR use it too.
 * Building one never fails: when memory runs out the error carries a fixed
 * message instead, which kiln_error_free recognizes. */
#ifndef KILN_ERROR_H
#define KILN_ERROR_H

typedef struct kiln_error kiln_error;

kiln_error *kiln_error_new(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *kiln_error_message(const kiln_error *e);
void kiln_error_free(kiln_error *e);
/* "what: msg" from a message another library owns (LLVM's), released
 * here with dispose (when msg is not NULL); "(no message)" when it is
 * NULL or empty. */
kiln_error *kiln_error_take(const char *what, char *msg, void (*dispose)(char *msg));

#endif

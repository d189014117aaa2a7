/* kiln_error (kiln_error.h): a heap message, or a static one when memory
 * runs out, so that reporting an error never fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kiln_error.h"

struct kiln_error {
  char *msg;
};

static char err_oom_text[] = "out of memory while reporting an error";
static kiln_error err_oom = {err_oom_text};

kiln_error *kiln_error_new(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  kiln_error *e = n < 0 ? NULL : malloc(sizeof *e);
  char *msg = e ? malloc((size_t)n + 1) : NULL;
  if (!msg) {
    va_end(ap2);
    free(e);
    return &err_oom;
  }
  vsnprintf(msg, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  e->msg = msg;
  return e;
}

kiln_error *kiln_error_take(const char *what, char *msg, void (*dispose)(char *msg)) {
  kiln_error *e = kiln_error_new("%s: %s", what, msg && *msg ? msg : "(no message)");
  if (msg && dispose) dispose(msg);
  return e;
}

const char *kiln_error_message(const kiln_error *e) { return e ? e->msg : "ok"; }

void kiln_error_free(kiln_error *e) {
  if (!e || e == &err_oom) return;
  free(e->msg);
  free(e);
}

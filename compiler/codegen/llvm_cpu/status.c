/* Error statuses of the llvm-cpu back end: NULL is success, anything else
 * owns a heap message. Building one never fails: out of memory yields a
 * static status with a fixed message, which free() recognizes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcpu_internal.h"

struct kiln_llvm_cpu_error {
  char *message;
};

static char lcpu_oom_text[] = "llvm-cpu: out of memory while reporting an error";
static struct kiln_llvm_cpu_error lcpu_oom = {lcpu_oom_text};

static kiln_llvm_cpu_status_t lcpu_vformat(const char *prefix, const char *fmt,
                                           va_list ap) LCPU_PRINTF(2, 0);
static kiln_llvm_cpu_status_t lcpu_vformat(const char *prefix, const char *fmt,
                                           va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  size_t plen = prefix ? strlen(prefix) : 0;
  if (n < 0) return &lcpu_oom;
  struct kiln_llvm_cpu_error *e = malloc(sizeof *e);
  char *text = malloc(plen + (size_t)n + 1);
  if (!e || !text) {
    free(e);
    free(text);
    return &lcpu_oom;
  }
  if (plen) memcpy(text, prefix, plen);
  vsnprintf(text + plen, (size_t)n + 1, fmt, ap);
  e->message = text;
  return e;
}

kiln_llvm_cpu_status_t lcpu_errorf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_llvm_cpu_status_t s = lcpu_vformat(NULL, fmt, ap);
  va_end(ap);
  return s;
}

static kiln_llvm_cpu_status_t lcpu_prefixed(const char *prefix,
                                            const char *fmt, ...)
    LCPU_PRINTF(2, 3);
static kiln_llvm_cpu_status_t lcpu_prefixed(const char *prefix,
                                            const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_llvm_cpu_status_t s = lcpu_vformat(prefix, fmt, ap);
  va_end(ap);
  return s;
}

kiln_llvm_cpu_status_t lcpu_error_llvm(const char *what, char *msg) {
  kiln_llvm_cpu_status_t s =
      lcpu_prefixed(what, ": %s", msg && *msg ? msg : "(no message from LLVM)");
  if (msg) LLVMDisposeMessage(msg);
  return s;
}

const char *kiln_llvm_cpu_status_message(kiln_llvm_cpu_status_t status) {
  return status ? status->message : "ok";
}

void kiln_llvm_cpu_status_free(kiln_llvm_cpu_status_t status) {
  if (!status || status == &lcpu_oom) return;
  free(status->message);
  free(status);
}

void kiln_llvm_cpu_bytes_free(kiln_llvm_cpu_bytes_t *bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}

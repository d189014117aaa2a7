/* Status values of the ONNX loader: a kind from onnx_errors.def and a
 * message "onnx: KIND: ...". Takes printf-style text; guarantees the
 * message is always NUL-terminated (long text is cut, never overflows) and
 * that names quoted into it are short and printable. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"

static const char *const ox_code_names[] = {
  "ok",
#define X(e, name) name,
#include "onnx_errors.def"
#undef X
};

const char *kiln_onnx_code_name(kiln_onnx_code code) {
  if ((unsigned)code >= sizeof ox_code_names / sizeof ox_code_names[0])
    return "?";
  return ox_code_names[code];
}

kiln_error *kiln_onnx_error(const char *where, const kiln_onnx_status *st) {
  if (!st || st->code == KILN_ONNX_OK) return NULL;
  return where ? kiln_error_new("%s: %s", where, st->message) : kiln_error_new("%s", st->message);
}

void ox_ok(kiln_onnx_status *st) {
  if (!st) return;
  st->code = KILN_ONNX_OK;
  st->message[0] = '\0';
}

bool ox_fail(kiln_onnx_status *st, kiln_onnx_code code, const char *fmt, ...) {
  if (!st) return false;
  st->code = code;
  int n = snprintf(st->message, sizeof st->message, "onnx: %s: ",
                   kiln_onnx_code_name(code));
  if (n < 0 || (size_t)n >= sizeof st->message) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->message + n, sizeof st->message - (size_t)n, fmt, ap);
  va_end(ap);
  return false;
}

void ox_fmt(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, n, fmt, ap);
  va_end(ap);
}

const char *ox_quote(char buf[OX_QUOTE_MAX], const char *s) {
  if (!s) s = "";
  size_t o = 0;
  buf[o++] = '\'';
  for (size_t i = 0; s[i]; i++) {
    if (o >= OX_QUOTE_MAX - 6) { /* room for "...'" and NUL */
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)s[i];
    buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  buf[o++] = '\'';
  buf[o] = '\0';
  return buf;
}

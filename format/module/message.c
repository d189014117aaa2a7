/* kiln_message_format (kiln/message.h): the formatter every library's
 * failure helper shares, and in KILN_MESSAGES=OFF builds kiln_message_none,
 * its fixed-text stand-in. Neither allocates; both truncate to cap. */
#include "kiln/message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kiln_message_format(char *msg, size_t cap, int code, const char *fmt,
                        ...) {
  if (msg && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
  }
  return code;
}

#ifdef KILN_NO_MESSAGES
int kiln_message_none(char *msg, size_t cap, int code) {
  if (msg && cap) {
    const size_t n = sizeof KILN_MESSAGE_NONE <= cap ? sizeof KILN_MESSAGE_NONE : cap;
    memcpy(msg, KILN_MESSAGE_NONE, n - 1);
    msg[n - 1] = 0;
  }
  return code;
}
#endif

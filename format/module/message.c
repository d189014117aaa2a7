/* kiln_message_format (kiln/message.h): the formatter every library's
 * failure helper shares. Never allocates; truncates to cap. */
#include "kiln/message.h"

#include <stdarg.h>
#include <stdio.h>

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

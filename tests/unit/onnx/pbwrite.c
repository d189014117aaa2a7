/* Test-only protobuf writer (see pbwrite.h). */
#include "pbwrite.h"

#include <stdlib.h>
#include <string.h>

void pbw_raw(pbw *w, const void *p, size_t n) {
  if (w->len + n > w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 64;
    while (cap < w->len + n) cap *= 2;
    w->buf = realloc(w->buf, cap);
    if (!w->buf) abort();
    w->cap = cap;
  }
  if (n) memcpy(w->buf + w->len, p, n);
  w->len += n;
}

void pbw_varint(pbw *w, uint64_t v) {
  uint8_t b[10];
  size_t n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) b[n] |= 0x80;
    n++;
  } while (v);
  pbw_raw(w, b, n);
}

void pbw_tag(pbw *w, uint32_t field, unsigned wire) {
  pbw_varint(w, ((uint64_t)field << 3) | wire);
}

void pbw_int(pbw *w, uint32_t field, int64_t v) {
  pbw_tag(w, field, 0);
  pbw_varint(w, (uint64_t)v);
}

void pbw_bytes(pbw *w, uint32_t field, const void *p, size_t n) {
  pbw_tag(w, field, 2);
  pbw_varint(w, n);
  pbw_raw(w, p, n);
}

void pbw_str(pbw *w, uint32_t field, const char *s) {
  pbw_bytes(w, field, s, strlen(s));
}

void pbw_msg(pbw *w, uint32_t field, const pbw *sub) {
  pbw_bytes(w, field, sub->buf, sub->len);
}

void pbw_fixed32(pbw *w, uint32_t field, uint32_t v) {
  pbw_tag(w, field, 5);
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                  (uint8_t)(v >> 24)};
  pbw_raw(w, b, 4);
}

void pbw_free(pbw *w) {
  free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
}

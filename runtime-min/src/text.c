/* hal.text.convert: the host's text ops (kiln/text_ops.h) on str views
 * (kiln/runtime.h's layout). Takes the views the bytecode passes and the
 * op code; checks the code, the element types and ranks, and needs
 * host-addressable buffers. Guarantees: a new buffer and view for the
 * result (its size decided here, from the data); str inputs were checked
 * when their views were made, so every offset read stays inside them;
 * bad text (a number that does not parse, a value out of range) is a
 * status naming the element. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_internal.h"
#include "kiln/text_ops.h"

#define A (call->allocator)

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t count_of(const kiln_buffer_view_t *v) {
  return kiln_buffer_view_element_count(v);
}

/* Element i of checked str layout p holding n elements. */
static const uint8_t *item(const uint8_t *p, uint64_t n, uint64_t i,
                           uint32_t *len) {
  const uint32_t a = rd32(p + 4 * i);
  *len = rd32(p + 4 * (i + 1)) - a;
  return p + 4 * (n + 1) + a;
}

/* A new host buffer of `bytes` bytes (at least 1); *data its memory. */
static kiln_status_t new_buffer(krt_call_t *call, uint64_t bytes,
                                uint8_t **data, kiln_buffer_t **out) {
  kiln_status_t s = kiln_buffer_allocate(call->device, bytes ? bytes : 1, out);
  if (s) return s;
  if (!(*out)->host) {
    kiln_buffer_release(*out);
    return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                      "text ops need host-addressable buffers");
  }
  *data = (*out)->host;
  return NULL;
}

static kiln_status_t finish(krt_call_t *call, kiln_buffer_t *b,
                            kiln_element_type_t type, uint32_t rank,
                            const int64_t *dims, krt_value_t *result) {
  kiln_buffer_view_t *v;
  kiln_status_t s = kiln_buffer_view_create(b, 0, type, rank, dims, &v);
  kiln_buffer_release(b);
  if (s) return s;
  result->ref = &v->ref;
  return NULL;
}

/* ---- numbers to text ------------------------------------------------------ */

/* v as numpy writes it: the fewest digits that read back to v (as f32
 * when f32), positional for 1e-4 <= |v| < 1e16 with at least one digit
 * after the point, scientific otherwise ("1e-05", "1.5e+20"). */
static int format_float(char *buf, double v, int f32) {
  if (v != v) return snprintf(buf, 48, "nan");
  if (isinf(v)) return snprintf(buf, 48, v < 0 ? "-inf" : "inf");
  char e[48];
  for (int p = 1; p <= 17; ++p) {
    snprintf(e, sizeof e, "%.*e", p - 1, v);
    if (f32 ? strtof(e, NULL) == (float)v : strtod(e, NULL) == v) break;
  }
  const char *q = e;
  char *o = buf;
  if (*q == '-') *o++ = *q++;
  char d[24];
  int nd = 0;
  for (; *q && *q != 'e' && nd < 20; ++q)
    if (*q != '.') d[nd++] = *q;
  const int x = *q == 'e' ? atoi(q + 1) : 0;
  while (nd > 1 && d[nd - 1] == '0') --nd;
  const double a = fabs(v);
  if (a == 0 || (a >= 1e-4 && a < 1e16)) {
    if (x >= 0) {
      for (int i = 0; i <= x; ++i) *o++ = i < nd ? d[i] : '0';
      *o++ = '.';
      if (x + 1 >= nd) *o++ = '0';
      for (int i = x + 1; i < nd; ++i) *o++ = d[i];
    } else {
      *o++ = '0', *o++ = '.';
      for (int i = 0; i < -x - 1; ++i) *o++ = '0';
      for (int i = 0; i < nd; ++i) *o++ = d[i];
    }
  } else {
    *o++ = d[0];
    if (nd > 1) *o++ = '.';
    for (int i = 1; i < nd; ++i) *o++ = d[i];
    o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
  }
  *o = 0;
  return (int)(o - buf);
}

/* Element i of a numeric view as text; -1 for an unsupported type. */
static int format_item(char *buf, kiln_element_type_t t, const uint8_t *p,
                       uint64_t i) {
  union {
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    float f32; double f64;
  } v;
  const size_t es = kiln_element_type_size(t);
  if (!es || es > 8) return -1;
  memcpy(&v, p + i * es, es);
  switch (t) {
    case KILN_ELEMENT_I1: return snprintf(buf, 48, v.u8 ? "True" : "False");
    case KILN_ELEMENT_I8: return snprintf(buf, 48, "%d", v.i8);
    case KILN_ELEMENT_I16: return snprintf(buf, 48, "%d", v.i16);
    case KILN_ELEMENT_I32: return snprintf(buf, 48, "%d", v.i32);
    case KILN_ELEMENT_I64: return snprintf(buf, 48, "%lld", (long long)v.i64);
    case KILN_ELEMENT_U8: return snprintf(buf, 48, "%u", v.u8);
    case KILN_ELEMENT_U16: return snprintf(buf, 48, "%u", v.u16);
    case KILN_ELEMENT_U32: return snprintf(buf, 48, "%u", v.u32);
    case KILN_ELEMENT_U64: return snprintf(buf, 48, "%llu", (unsigned long long)v.u64);
    case KILN_ELEMENT_F32: return format_float(buf, v.f32, 1);
    case KILN_ELEMENT_F64: return format_float(buf, v.f64, 0);
    default: return -1;
  }
}

static kiln_status_t to_str(krt_call_t *call, const kiln_buffer_view_t *x,
                            krt_value_t *result) {
  const uint8_t *p = x->buffer->host + x->offset;
  const uint64_t n = count_of(x);
  char buf[64];
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const int w = format_item(buf, x->element_type, p, i);
    if (w < 0)
      return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                        "text of %s elements is not supported",
                        kiln_element_type_name(x->element_type));
    total += (uint64_t)w;
  }
  if (total > UINT32_MAX || n >= UINT32_MAX / 4)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "text of %llu elements exceeds 4 GB",
                      (unsigned long long)n);
  kiln_buffer_t *b;
  uint8_t *d = NULL;
  kiln_status_t s = new_buffer(call, 4 * (n + 1) + total, &d, &b);
  if (s) return s;
  uint32_t at = 0;
  wr32(d, 0);
  for (uint64_t i = 0; i < n; ++i) {
    const int w = format_item(buf, x->element_type, p, i);
    memcpy(d + 4 * (n + 1) + at, buf, (size_t)w);
    at += (uint32_t)w;
    wr32(d + 4 * (i + 1), at);
  }
  return finish(call, b, KILN_ELEMENT_STR, x->rank, x->dims, result);
}

/* ---- text to numbers -------------------------------------------------------- */

static kiln_status_t from_str(krt_call_t *call, const kiln_buffer_view_t *x,
                              kiln_element_type_t to, krt_value_t *result) {
  const size_t es = kiln_element_type_size(to);
  if (x->element_type != KILN_ELEMENT_STR || !es || to == KILN_ELEMENT_I1 ||
      to == KILN_ELEMENT_F16 || to == KILN_ELEMENT_BF16)
    return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                      "text to %s from %s is not supported",
                      kiln_element_type_name(to),
                      kiln_element_type_name(x->element_type));
  const uint8_t *p = x->buffer->host + x->offset;
  const uint64_t n = count_of(x);
  if (n > UINT64_MAX / es)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED, "too many elements");
  kiln_buffer_t *b;
  uint8_t *d = NULL;
  kiln_status_t s = new_buffer(call, n * es, &d, &b);
  if (s) return s;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t len;
    const uint8_t *t = item(p, n, i, &len);
    char buf[64], *end;
    while (len && (*t == ' ' || *t == '\t')) ++t, --len;
    while (len && (t[len - 1] == ' ' || t[len - 1] == '\t')) --len;
    bool ok = len > 0 && len < sizeof buf && !memchr(t, 0, len);
    if (ok) {
      memcpy(buf, t, len);
      buf[len] = 0;
      end = buf;
      errno = 0;
      if (to == KILN_ELEMENT_F32) { /* overflow reads as inf, as numpy's does */
        const float f = strtof(buf, &end);
        memcpy(d + 4 * i, &f, 4);
      } else if (to == KILN_ELEMENT_F64) {
        const double f = strtod(buf, &end);
        memcpy(d + 8 * i, &f, 8);
      } else if (to >= KILN_ELEMENT_U8 && to <= KILN_ELEMENT_U64) {
        const unsigned long long u = buf[0] == '-' ? 0 : strtoull(buf, &end, 10);
        ok = errno != ERANGE && (es == 8 || u < (1ull << (8 * es)));
        memcpy(d + es * i, &u, es); /* little-endian: the low bytes */
      } else {
        const long long v = strtoll(buf, &end, 10);
        ok = errno != ERANGE &&
             (es == 8 || (v >= -(1ll << (8 * es - 1)) && v < (1ll << (8 * es - 1))));
        memcpy(d + es * i, &v, es);
      }
      ok = ok && end != buf && *end == 0;
    }
    if (!ok) {
      kiln_buffer_release(b);
      return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                        "element %llu: \"%.*s\" is not a %s",
                        (unsigned long long)i, (int)(len < 40 ? len : 40),
                        (const char *)t, kiln_element_type_name(to));
    }
  }
  return finish(call, b, to, x->rank, x->dims, result);
}

/* ---- StringNormalizer ---------------------------------------------------------- */

/* Simple case mapping of the letters whose two cases have the same UTF-8
 * length: ASCII, Latin-1, Greek and Cyrillic capitals; others stay. */
static uint32_t map_case(uint32_t c, int upper) {
  static const struct {
    uint16_t lo, hi, delta;
  } r[] = {{'A', 'Z', 32}, {0xc0, 0xde, 32}, {0x391, 0x3a9, 32},
           {0x410, 0x42f, 32}, {0x400, 0x40f, 80}};
  if (c == 0xd7 || c == 0xf7 || c == 0x3a2 || c == 0x3c2) return c;
  for (size_t k = 0; k < sizeof r / sizeof r[0]; ++k) {
    if (upper && c >= r[k].lo + r[k].delta && c <= r[k].hi + r[k].delta)
      return c - r[k].delta;
    if (!upper && c >= r[k].lo && c <= r[k].hi) return c + r[k].delta;
  }
  return c;
}

/* Copies len bytes of valid UTF-8 from s to o with case action
 * (0 none, 1 lower, 2 upper); the length stays. */
static void change_case(uint8_t *o, const uint8_t *s, uint32_t len, int action) {
  for (uint32_t i = 0; i < len;) {
    uint32_t c = s[i];
    if (c < 0x80 || (c & 0xe0) != 0xc0 || i + 1 >= len || !action) {
      o[i] = (uint8_t)(c < 0x80 && action ? map_case(c, action == 2) : c);
      ++i;
      continue;
    }
    c = (c & 0x1f) << 6 | (s[i + 1] & 0x3f);
    c = map_case(c, action == 2);
    o[i] = (uint8_t)(0xc0 | c >> 6), o[i + 1] = (uint8_t)(0x80 | (c & 0x3f));
    i += 2;
  }
}

/* Equal texts of len bytes each, ignoring case when fold. */
static bool same_text(const uint8_t *a, const uint8_t *b, uint32_t len,
                      int fold) {
  if (!fold) return memcmp(a, b, len) == 0;
  for (uint32_t i = 0; i < len;) {
    uint8_t x[2], y[2];
    const uint32_t k = (a[i] & 0xe0) == 0xc0 && i + 1 < len ? 2 : 1;
    if (k == 2 && (b[i] & 0xe0) != 0xc0) return false;
    change_case(x, a + i, k, 1);
    change_case(y, b + i, k, 1);
    if (memcmp(x, y, k)) return false;
    i += k;
  }
  return true;
}

static kiln_status_t normalize(krt_call_t *call, const kiln_buffer_view_t *x,
                               const kiln_buffer_view_t *aux, int flags,
                               krt_value_t *result) {
  if (x->element_type != KILN_ELEMENT_STR ||
      !(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "StringNormalizer takes a [C] or [1, C] str tensor");
  /* stopwords: u8 bytes, a u32 count then that many strings' layout */
  const uint8_t *w = aux->buffer->host + aux->offset;
  uint64_t nw = 0, wbytes, at;
  const char *why = aux->element_type != KILN_ELEMENT_U8 &&
                            aux->element_type != KILN_ELEMENT_I8
                        ? "are not bytes"
                    : aux->byte_length < 4 ? "are too short" : NULL;
  if (!why) {
    nw = rd32(w);
    why = krt_strings_check(w + 4, aux->byte_length - 4, nw, &wbytes, &at);
  }
  if (why)
    return krt_status(A, KILN_STATUS_DATA_LOSS, "StringNormalizer stopwords %s",
                      why);
  w += 4;
  const uint8_t *p = x->buffer->host + x->offset;
  const uint64_t n = count_of(x);
  const int fold = !(flags & KILN_TEXT_CASE_SENSITIVE);
  const int action = flags & KILN_TEXT_UPPER ? 2 : flags & KILN_TEXT_LOWER ? 1 : 0;
  uint64_t kept = 0, total = 0;
  for (int pass = 0; pass < 2; ++pass) {
    kiln_buffer_t *b = NULL;
    uint8_t *d = NULL;
    uint64_t k = 0;
    uint32_t off = 0;
    if (pass) {
      const uint64_t m = kept ? kept : 1;
      kiln_status_t s = new_buffer(call, 4 * (m + 1) + total, &d, &b);
      if (s) return s;
      wr32(d, 0);
      if (!kept) wr32(d + 4, 0);
    }
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t len, wl;
      const uint8_t *t = item(p, n, i, &len);
      bool stop = false;
      for (uint64_t j = 0; j < nw && !stop; ++j) {
        const uint8_t *sw = item(w, nw, j, &wl);
        stop = wl == len && same_text(t, sw, len, fold);
      }
      if (stop) continue;
      if (!pass) {
        ++kept, total += len;
        continue;
      }
      change_case(d + 4 * (kept + 1) + off, t, len, action);
      off += len;
      wr32(d + 4 * (++k), off);
    }
    if (pass) {
      int64_t dims[2] = {1, (int64_t)(kept ? kept : 1)};
      return finish(call, b, KILN_ELEMENT_STR, x->rank,
                    x->rank == 2 ? dims : dims + 1, result);
    }
    if (total > UINT32_MAX || kept >= UINT32_MAX / 4)
      return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                        "StringNormalizer output exceeds 4 GB");
  }
  return NULL;
}

kiln_status_t krt_text_convert(krt_call_t *call, const krt_value_t *args,
                               uint32_t n, krt_value_t *results) {
  (void)n;
  krt_ref_t *r0 = args[0].ref, *r1 = args[1].ref;
  if (!r0 || r0->type != KRT_REF_BUFFER_VIEW || !r1 ||
      r1->type != KRT_REF_BUFFER_VIEW)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "hal.text.convert takes two buffer views");
  const kiln_buffer_view_t *x = (const kiln_buffer_view_t *)r0;
  const kiln_buffer_view_t *aux = (const kiln_buffer_view_t *)r1;
  if (!x->buffer->host || !aux->buffer->host)
    return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                      "text ops need host-addressable buffers");
  const int32_t code = args[2].i32;
  const kiln_element_type_t et = (kiln_element_type_t)((uint32_t)code >> 8);
  switch (code & 15) {
    case KILN_TEXT_TO_STR:
      if (et != KILN_ELEMENT_STR) break;
      return to_str(call, x, results);
    case KILN_TEXT_FROM_STR:
      return from_str(call, x, et, results);
    case KILN_TEXT_NORMALIZE:
      if (et != KILN_ELEMENT_STR) break;
      return normalize(call, x, aux, (code >> 4) & 15, results);
    default: break;
  }
  return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                    "hal.text.convert: invalid code %d", code);
}

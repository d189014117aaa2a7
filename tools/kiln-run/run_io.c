/* Implements run_io.h: the --input grammar, .npy I/O (format versions 1-3,
 * little-endian C-order arrays) and result printing. All sizes are
 * computed with overflow checks; malformed text or files yield messages. */
#include "run_io.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return false;
}

void kiln_host_tensor_free(kiln_host_tensor_t *t) {
  free(t->data);
  t->data = NULL;
  t->size = 0;
}

static bool element_count(const kiln_tensor_type_t *t, uint64_t *n) {
  uint64_t c = 1;
  for (uint32_t i = 0; i < t->rank; ++i) {
    if (t->dims[i] < 0 || __builtin_mul_overflow(c, (uint64_t)t->dims[i], &c))
      return false;
  }
  *n = c;
  return true;
}

/* Allocates t->data for t->type; false on overflow or no memory. */
static bool alloc_data(kiln_host_tensor_t *t, char *err, size_t cap) {
  uint64_t n, bytes;
  if (!element_count(&t->type, &n) ||
      __builtin_mul_overflow(n, (uint64_t)kiln_element_type_size(t->type.element_type), &bytes) ||
      bytes > (uint64_t)SIZE_MAX / 2)
    return fail(err, cap, "tensor too large");
  t->size = (size_t)bytes;
  t->data = calloc(1, t->size ? t->size : 1);
  if (!t->data) return fail(err, cap, "out of memory for %zu bytes", t->size);
  return true;
}

/* ---- half precision ------------------------------------------------------- */

static uint16_t f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t e8 = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (e8 == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  const int32_t exp = (int32_t)e8 - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    const uint32_t shift = (uint32_t)(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)exp << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
  return (uint16_t)half;
}

static float f16_to_f32(uint16_t h) {
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float v;
  if (e == 0)
    v = ldexpf((float)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = ldexpf((float)(m | 0x400u), (int)e - 25);
  return (h & 0x8000u) ? -v : v;
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* ---- values ---------------------------------------------------------------- */

static bool store(kiln_element_type_t type, void *dst, const char *tok,
                  size_t len) {
  char buf[64];
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, tok, len);
  buf[len] = 0;
  char *end;
  errno = 0;
  switch (type) {
    case KILN_ELEMENT_F32: case KILN_ELEMENT_F64:
    case KILN_ELEMENT_F16: case KILN_ELEMENT_BF16: {
      const double d = strtod(buf, &end);
      if (*end) return false;
      if (type == KILN_ELEMENT_F64) {
        memcpy(dst, &d, 8);
      } else {
        const float f = (float)d;
        if (type == KILN_ELEMENT_F32) {
          memcpy(dst, &f, 4);
        } else {
          const uint16_t h =
              type == KILN_ELEMENT_F16 ? f32_to_f16(f) : f32_to_bf16(f);
          memcpy(dst, &h, 2);
        }
      }
      return true;
    }
    case KILN_ELEMENT_I1: {
      uint8_t v;
      if (!strcmp(buf, "true") || !strcmp(buf, "1")) v = 1;
      else if (!strcmp(buf, "false") || !strcmp(buf, "0")) v = 0;
      else return false;
      memcpy(dst, &v, 1);
      return true;
    }
    case KILN_ELEMENT_U8: case KILN_ELEMENT_U16: case KILN_ELEMENT_U32:
    case KILN_ELEMENT_U64: {
      if (buf[0] == '-') return false;
      const unsigned long long v = strtoull(buf, &end, 10);
      if (*end || errno) return false;
      const size_t size = kiln_element_type_size(type);
      if (size < 8 && v >> (8 * size)) return false;
      const uint64_t w = v;
      memcpy(dst, &w, size); /* little-endian: low bytes first */
      return true;
    }
    default: {
      const long long v = strtoll(buf, &end, 10);
      if (*end || errno) return false;
      const size_t size = kiln_element_type_size(type);
      if (size < 8) {
        const long long lim = 1LL << (8 * size - 1);
        if (v < -lim || v >= lim) return false;
      }
      const int64_t w = v;
      memcpy(dst, &w, size);
      return true;
    }
  }
}

static bool is_sep(char c) {
  return c == ' ' || c == ',' || c == '[' || c == ']' || c == '\t' ||
         c == '\n' || c == '\r';
}

bool kiln_parse_type(const char *text, size_t len, kiln_tensor_type_t *out,
                     char *err, size_t cap) {
  memset(out, 0, sizeof *out);
  size_t start = 0;
  for (;;) {
    size_t end = start;
    while (end < len && text[end] != 'x') ++end;
    /* The element type is the last part; element types contain no 'x'. */
    if (end == len) {
      out->element_type = kiln_element_type_parse(text + start, len - start);
      if (out->element_type == KILN_ELEMENT_NONE)
        return fail(err, cap, "unknown element type '%.*s' in '%.*s'",
                    (int)(len - start), text + start, (int)len, text);
      return true;
    }
    if (out->rank == KILN_MAX_RANK)
      return fail(err, cap, "'%.*s' has more than %d dimensions", (int)len,
                  text, KILN_MAX_RANK);
    if (end == start)
      return fail(err, cap, "empty dimension in '%.*s'", (int)len, text);
    int64_t d = 0;
    for (size_t i = start; i < end; ++i) {
      if (text[i] < '0' || text[i] > '9' || d > (INT64_MAX - 9) / 10)
        return fail(err, cap, "bad dimension '%.*s' in '%.*s'",
                    (int)(end - start), text + start, (int)len, text);
      d = d * 10 + (text[i] - '0');
    }
    out->dims[out->rank++] = d;
    start = end + 1;
  }
}

static bool read_raw(const char *path, kiln_host_tensor_t *t, char *err,
                     size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, cap, "cannot open '%s': %s", path, strerror(errno));
  const size_t got = fread(t->data, 1, t->size, f);
  const int extra = fgetc(f);
  fclose(f);
  if (got != t->size || extra != EOF)
    return fail(err, cap, "'%s' does not hold exactly %zu bytes", path,
                t->size);
  return true;
}

bool kiln_parse_input(const char *text, const kiln_tensor_type_t *declared,
                      kiln_host_tensor_t *out, char *err, size_t cap) {
  memset(out, 0, sizeof *out);
  if (text[0] == '@') return kiln_npy_read(text + 1, out, err, cap);
  const char *eq = strchr(text, '=');
  const char *values = text;
  if (eq) {
    if (!kiln_parse_type(text, (size_t)(eq - text), &out->type, err, cap))
      return false;
    values = eq + 1;
  } else {
    if (!declared || declared->rank != 0)
      return fail(err, cap, "'%s' has no type (write e.g. 4xf32=%s)", text,
                  text);
    out->type = *declared;
  }
  if (out->type.element_type == KILN_ELEMENT_STR)
    return fail(err, cap, "str values come from .npy files (--input=@x.npy)");
  if (!alloc_data(out, err, cap)) return false;
  if (values[0] == '@') {
    if (!read_raw(values + 1, out, err, cap)) {
      kiln_host_tensor_free(out);
      return false;
    }
    return true;
  }
  const size_t esize = kiln_element_type_size(out->type.element_type);
  const size_t count = out->size / (esize ? esize : 1);
  size_t i = 0;
  for (const char *p = values;;) {
    while (*p && is_sep(*p)) ++p;
    if (!*p) break;
    const char *tok = p;
    while (*p && !is_sep(*p)) ++p;
    if (i >= count) {
      kiln_host_tensor_free(out);
      return fail(err, cap, "too many values for %.*s: it holds %zu",
                  (int)(eq ? eq - text : 0), text, count);
    }
    if (!store(out->type.element_type, (uint8_t *)out->data + i * esize, tok,
               (size_t)(p - tok))) {
      kiln_host_tensor_free(out);
      return fail(err, cap, "bad %s value '%.*s'",
                  kiln_element_type_name(out->type.element_type),
                  (int)(p - tok), tok);
    }
    ++i;
  }
  if (i != count) {
    kiln_host_tensor_free(out);
    return fail(err, cap, "%zu values given, %.*s needs %zu", i,
                (int)(eq ? eq - text : 0), text, count);
  }
  return true;
}

/* ---- .npy -------------------------------------------------------------------- */

static const struct {
  const char *descr;
  kiln_element_type_t type;
} npy_types[] = {
    {"<f4", KILN_ELEMENT_F32}, {"<f8", KILN_ELEMENT_F64},
    {"<f2", KILN_ELEMENT_F16}, {"|i1", KILN_ELEMENT_I8},
    {"|u1", KILN_ELEMENT_U8},  {"<i2", KILN_ELEMENT_I16},
    {"<u2", KILN_ELEMENT_U16}, {"<i4", KILN_ELEMENT_I32},
    {"<u4", KILN_ELEMENT_U32}, {"<i8", KILN_ELEMENT_I64},
    {"<u8", KILN_ELEMENT_U64}, {"|b1", KILN_ELEMENT_I1},
};

/* ---- .npy text: numpy's '<Un' (n UCS-4 code points) and '|Sn' (n bytes),
 * NUL-padded, to and from the runtime's str layout (kiln/runtime.h) ------ */

static void put_u32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = (uint8_t)(v >> (8 * k));
}
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* RAW holds COUNT elements of WIDTH units (4 bytes when ucs4, else 1);
 * out->data becomes their layout: trailing NULs dropped as numpy does,
 * UCS-4 encoded as UTF-8, '|S' bytes kept (the runtime checks UTF-8). */
static bool npy_text_to_layout(const uint8_t *raw, uint64_t count,
                               uint64_t width, bool ucs4,
                               kiln_host_tensor_t *out, char *err, size_t cap) {
  uint64_t head, body;
  if (__builtin_mul_overflow(count + 1, 4, &head) ||
      __builtin_mul_overflow(count, width, &body) ||
      __builtin_mul_overflow(body, 4, &body) || head + body > UINT32_MAX)
    return fail(err, cap, "text tensor too large (offsets are 32-bit)");
  uint8_t *d = malloc((size_t)(head + body) + 1);
  if (!d) return fail(err, cap, "out of memory for a text tensor");
  uint64_t at = 0;
  put_u32(d, 0);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t *e = raw + i * width * (ucs4 ? 4 : 1);
    uint64_t n = width;
    while (n && (ucs4 ? get_u32(e + 4 * (n - 1)) == 0 : e[n - 1] == 0)) --n;
    for (uint64_t k = 0; k < n; ++k) {
      uint8_t *o = d + head + at;
      if (!ucs4) {
        o[0] = e[k];
        at += 1;
        continue;
      }
      const uint32_t c = get_u32(e + 4 * k);
      if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
        free(d);
        return fail(err, cap, "element %llu holds U+%X, not a Unicode scalar",
                    (unsigned long long)i, (unsigned)c);
      }
      if (c < 0x80) {
        o[0] = (uint8_t)c;
        at += 1;
      } else if (c < 0x800) {
        o[0] = (uint8_t)(0xc0 | c >> 6), o[1] = (uint8_t)(0x80 | (c & 0x3f));
        at += 2;
      } else if (c < 0x10000) {
        o[0] = (uint8_t)(0xe0 | c >> 12), o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
        o[2] = (uint8_t)(0x80 | (c & 0x3f));
        at += 3;
      } else {
        o[0] = (uint8_t)(0xf0 | c >> 18), o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
        o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f)), o[3] = (uint8_t)(0x80 | (c & 0x3f));
        at += 4;
      }
    }
    put_u32(d + 4 * (i + 1), (uint32_t)at);
  }
  out->data = d;
  out->size = (size_t)(head + at);
  return true;
}

/* Element i of a layout that holds count elements (checked, so a
 * malformed one ends the walk instead of reading past it). */
static bool layout_item(const kiln_host_tensor_t *t, uint64_t count,
                        uint64_t i, const uint8_t **p, uint32_t *n) {
  const uint8_t *d = t->data;
  if (count >= t->size / 4 || i >= count) return false;
  const uint64_t head = 4 * (count + 1);
  const uint32_t a = get_u32(d + 4 * i), b = get_u32(d + 4 * (i + 1));
  if (a > b || b > t->size - head) return false;
  *p = d + head + a;
  *n = b - a;
  return true;
}

/* Decodes one UTF-8 sequence of at most n bytes; 0 when malformed. */
static unsigned utf8_next(const uint8_t *s, uint32_t n, uint32_t *cp) {
  const uint8_t c = s[0];
  const unsigned len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2
                     : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0 || len > n) return 0;
  *cp = len == 1 ? c : c & (0x7fu >> len);
  for (unsigned k = 1; k < len; ++k) {
    if ((s[k] & 0xc0) != 0x80) return 0;
    *cp = *cp << 6 | (s[k] & 0x3fu);
  }
  return len;
}

/* A str tensor as '<Un' data, n the longest element in code points (at
 * least 1, numpy's smallest); *out malloc'ed. */
static bool layout_to_ucs4(const kiln_host_tensor_t *t, uint8_t **out,
                           size_t *size, uint64_t *width, char *err,
                           size_t cap) {
  uint64_t count;
  if (!element_count(&t->type, &count) || count >= t->size / 4 + 1)
    return fail(err, cap, "malformed str tensor");
  uint64_t w = 1;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass && (__builtin_mul_overflow(count, w * 4, size) ||
                 !(*out = calloc(1, *size ? *size : 1))))
      return fail(err, cap, "text tensor too large for .npy");
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t *p;
      uint32_t n, cp, len;
      if (!layout_item(t, count, i, &p, &n)) {
        if (pass) free(*out);
        return fail(err, cap, "malformed str tensor at element %llu",
                    (unsigned long long)i);
      }
      uint64_t units = 0;
      for (uint32_t k = 0; k < n; k += len, ++units) {
        len = utf8_next(p + k, n - k, &cp);
        if (!len) {
          if (pass) free(*out);
          return fail(err, cap, "element %llu is not UTF-8", (unsigned long long)i);
        }
        if (pass) put_u32(*out + 4 * (i * w + units), cp);
      }
      if (!pass && units > w) w = units;
    }
  }
  *width = w;
  return true;
}

bool kiln_npy_read(const char *path, kiln_host_tensor_t *out, char *err,
                   size_t cap) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, cap, "cannot open '%s': %s", path, strerror(errno));
  uint8_t head[12];
  if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail(err, cap, "'%s' is not a .npy file", path);
  }
  size_t hlen;
  if (head[6] == 1) {
    hlen = (size_t)head[8] | ((size_t)head[9] << 8);
  } else if (head[6] == 2 || head[6] == 3) {
    if (fread(head + 10, 1, 2, f) != 2) {
      fclose(f);
      return fail(err, cap, "'%s': truncated header", path);
    }
    hlen = (size_t)head[8] | ((size_t)head[9] << 8) | ((size_t)head[10] << 16) |
           ((size_t)head[11] << 24);
  } else {
    fclose(f);
    return fail(err, cap, "'%s': unsupported .npy version %u", path, head[6]);
  }
  if (hlen > 65536) {
    fclose(f);
    return fail(err, cap, "'%s': header of %zu bytes is too large", path, hlen);
  }
  char *h = malloc(hlen + 1);
  if (!h || fread(h, 1, hlen, f) != hlen) {
    free(h);
    fclose(f);
    return fail(err, cap, "'%s': truncated header", path);
  }
  h[hlen] = 0;
  const char *d = strstr(h, "'descr'");
  const char *fo = strstr(h, "'fortran_order'");
  const char *sh = strstr(h, "'shape'");
  bool ok = d && fo && sh;
  char descr[16] = {0};
  unsigned long long text_width = 0;
  bool text_ucs4 = false;
  if (ok) {
    const char *q = strchr(d + 7, '\'');
    const char *q2 = q ? strchr(q + 1, '\'') : NULL;
    ok = q && q2 && q2 - q - 1 < (long)sizeof descr;
    if (ok) memcpy(descr, q + 1, (size_t)(q2 - q - 1));
  }
  const char *fv = fo ? strchr(fo + 15, ':') : NULL;
  if (fv) {
    ++fv;
    while (*fv == ' ') ++fv;
  }
  if (ok && fv && strncmp(fv, "True", 4) == 0) {
    free(h);
    fclose(f);
    return fail(err, cap, "'%s': Fortran-order arrays are not supported", path);
  }
  if (ok) {
    if (descr[0] == '=') descr[0] = '<';
    if (!strcmp(descr, "<i1") || !strcmp(descr, "<u1") || !strcmp(descr, "<b1"))
      descr[0] = '|';
    out->type.element_type = KILN_ELEMENT_NONE;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; ++i)
      if (!strcmp(descr, npy_types[i].descr))
        out->type.element_type = npy_types[i].type;
    /* text: '<Un' / '|Sn' (n digits, at least one) */
    char *wend = NULL;
    if ((!strncmp(descr, "<U", 2) || !strncmp(descr, "|S", 2)) &&
        descr[2] >= '0' && descr[2] <= '9') {
      errno = 0;
      text_width = strtoull(descr + 2, &wend, 10);
      if (!errno && *wend == 0 && text_width > 0) {
        out->type.element_type = KILN_ELEMENT_STR;
        text_ucs4 = descr[1] == 'U';
      }
    }
    if (out->type.element_type == KILN_ELEMENT_NONE) {
      free(h);
      fclose(f);
      return fail(err, cap, "'%s': unsupported dtype '%s'", path, descr);
    }
    const char *p = strchr(sh, '(');
    ok = p != NULL;
    for (p = p ? p + 1 : p; ok && *p && *p != ')';) {
      while (*p == ' ' || *p == ',') ++p;
      if (*p == ')') break;
      if (*p < '0' || *p > '9' || out->type.rank == KILN_MAX_RANK) {
        ok = false;
        break;
      }
      char *end;
      errno = 0;
      const long long v = strtoll(p, &end, 10);
      if (errno || v < 0) {
        ok = false;
        break;
      }
      out->type.dims[out->type.rank++] = v;
      p = end;
    }
  }
  free(h);
  if (!ok) {
    fclose(f);
    return fail(err, cap, "'%s': malformed .npy header", path);
  }
  if (out->type.element_type == KILN_ELEMENT_STR) {
    uint64_t count, bytes;
    kiln_host_tensor_t raw = {.type = out->type};
    if (!element_count(&out->type, &count) ||
        __builtin_mul_overflow(count, (uint64_t)text_width * (text_ucs4 ? 4 : 1), &bytes) ||
        bytes > (uint64_t)SIZE_MAX / 2 || !(raw.data = malloc((size_t)bytes + 1))) {
      fclose(f);
      return fail(err, cap, "'%s': text tensor too large", path);
    }
    const size_t got = fread(raw.data, 1, (size_t)bytes, f);
    const int extra = fgetc(f);
    fclose(f);
    bool ok2 = got == bytes && extra == EOF;
    if (!ok2)
      fail(err, cap, "'%s': data is not the %llu bytes its header says", path,
           (unsigned long long)bytes);
    else
      ok2 = npy_text_to_layout(raw.data, count, text_width, text_ucs4, out, err, cap);
    free(raw.data);
    return ok2;
  }
  if (!alloc_data(out, err, cap)) {
    fclose(f);
    return false;
  }
  const size_t got = fread(out->data, 1, out->size, f);
  const int extra = fgetc(f);
  fclose(f);
  if (got != out->size || extra != EOF) {
    fail(err, cap, "'%s': data is not the %zu bytes its header says", path,
         out->size);
    kiln_host_tensor_free(out);
    return false;
  }
  return true;
}

bool kiln_npy_write(const char *path, const kiln_host_tensor_t *t, char *err,
                    size_t cap) {
  const char *descr = NULL;
  char text_descr[32];
  const void *data = t->data;
  size_t size = t->size;
  uint8_t *text = NULL;
  if (t->type.element_type == KILN_ELEMENT_STR) {
    uint64_t width = 1;
    if (!layout_to_ucs4(t, &text, &size, &width, err, cap)) return false;
    snprintf(text_descr, sizeof text_descr, "<U%llu", (unsigned long long)width);
    descr = text_descr;
    data = text;
  }
  for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; ++i)
    if (npy_types[i].type == t->type.element_type) descr = npy_types[i].descr;
  if (!descr)
    return fail(err, cap, "%s has no .npy dtype",
                kiln_element_type_name(t->type.element_type));
  char shape[256] = "(";
  size_t n = 1;
  for (uint32_t i = 0; i < t->type.rank; ++i)
    n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%lld",
                          i ? ", " : "", (long long)t->type.dims[i]);
  snprintf(shape + n, sizeof shape - n, "%s)", t->type.rank == 1 ? "," : "");
  char header[512];
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
  /* Pad with spaces so the data starts 64-byte aligned; end with '\n'. */
  size_t total = 10 + (size_t)len + 1;
  size_t padded = (total + 63) / 64 * 64;
  while ((size_t)len < padded - 10 - 1) header[len++] = ' ';
  header[len++] = '\n';
  uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                     (uint8_t)(len & 0xff), (uint8_t)(len >> 8)};
  FILE *f = fopen(path, "wb");
  if (!f) {
    free(text);
    return fail(err, cap, "cannot create '%s': %s", path, strerror(errno));
  }
  bool ok = fwrite(pre, 1, 10, f) == 10 &&
            fwrite(header, 1, (size_t)len, f) == (size_t)len &&
            fwrite(data, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  free(text);
  if (!ok) return fail(err, cap, "cannot write '%s'", path);
  return true;
}

/* ---- printing ---------------------------------------------------------------- */

static void print_element(FILE *out, kiln_element_type_t type, const void *p) {
  switch (type) {
    case KILN_ELEMENT_F32: { float v; memcpy(&v, p, 4); fprintf(out, "%g", (double)v); break; }
    case KILN_ELEMENT_F64: { double v; memcpy(&v, p, 8); fprintf(out, "%g", v); break; }
    case KILN_ELEMENT_F16: { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%g", (double)f16_to_f32(v)); break; }
    case KILN_ELEMENT_BF16: { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%g", (double)bf16_to_f32(v)); break; }
    case KILN_ELEMENT_I1: fprintf(out, "%u", *(const uint8_t *)p ? 1u : 0u); break;
    case KILN_ELEMENT_I8: fprintf(out, "%d", *(const int8_t *)p); break;
    case KILN_ELEMENT_U8: fprintf(out, "%u", *(const uint8_t *)p); break;
    case KILN_ELEMENT_I16: { int16_t v; memcpy(&v, p, 2); fprintf(out, "%d", v); break; }
    case KILN_ELEMENT_U16: { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%u", v); break; }
    case KILN_ELEMENT_I32: { int32_t v; memcpy(&v, p, 4); fprintf(out, "%d", v); break; }
    case KILN_ELEMENT_U32: { uint32_t v; memcpy(&v, p, 4); fprintf(out, "%u", v); break; }
    case KILN_ELEMENT_I64: { int64_t v; memcpy(&v, p, 8); fprintf(out, "%lld", (long long)v); break; }
    case KILN_ELEMENT_U64: { uint64_t v; memcpy(&v, p, 8); fprintf(out, "%llu", (unsigned long long)v); break; }
    default: fprintf(out, "?"); break;
  }
}

/* Elements per dimension printed before "..." when a tensor is long. */
#define KILN_PRINT_EDGE 8u
#define KILN_PRINT_LONG 64u

/* Element i of a str tensor, quoted; '"', '\\' and bytes below 0x20
 * escaped, other UTF-8 as it is. */
static void print_text(FILE *out, const kiln_host_tensor_t *t, size_t i) {
  uint64_t count;
  const uint8_t *p;
  uint32_t n;
  if (!element_count(&t->type, &count) || !layout_item(t, count, i, &p, &n)) {
    fputc('?', out);
    return;
  }
  fputc('"', out);
  for (uint32_t k = 0; k < n; ++k) {
    if (p[k] == '"' || p[k] == '\\') fprintf(out, "\\%c", p[k]);
    else if (p[k] < 0x20) fprintf(out, "\\x%02x", p[k]);
    else fputc(p[k], out);
  }
  fputc('"', out);
}

static void print_dim(FILE *out, const kiln_host_tensor_t *t, uint32_t dim,
                      size_t offset, size_t stride_elems, bool elide) {
  const size_t esize = kiln_element_type_size(t->type.element_type);
  const uint64_t n = (uint64_t)t->type.dims[dim];
  const size_t inner = stride_elems / (n ? (size_t)n : 1);
  const uint64_t shown = elide && n > KILN_PRINT_EDGE ? KILN_PRINT_EDGE : n;
  for (uint64_t i = 0; i < shown; ++i) {
    const size_t at = offset + (size_t)i * inner;
    if (dim + 1 == t->type.rank) {
      if (i) fputc(' ', out);
      if (t->type.element_type == KILN_ELEMENT_STR)
        print_text(out, t, at);
      else
        print_element(out, t->type.element_type, (const uint8_t *)t->data + at * esize);
    } else {
      fputc('[', out);
      print_dim(out, t, dim + 1, at, inner, elide);
      fputc(']', out);
    }
  }
  if (shown < n) fputs(dim + 1 == t->type.rank ? " ..." : "...", out);
}

void kiln_print_tensor(FILE *out, const kiln_host_tensor_t *t) {
  for (uint32_t i = 0; i < t->type.rank; ++i)
    fprintf(out, "%lldx", (long long)t->type.dims[i]);
  fprintf(out, "%s=", kiln_element_type_name(t->type.element_type));
  uint64_t count;
  if (!element_count(&t->type, &count)) return;
  if (t->type.rank == 0) {
    if (t->type.element_type == KILN_ELEMENT_STR)
      print_text(out, t, 0);
    else
      print_element(out, t->type.element_type, t->data);
    return;
  }
  if (count == 0) return;
  print_dim(out, t, 0, 0, (size_t)count, count > KILN_PRINT_LONG);
}

bool kiln_host_tensor_from_view(const kiln_buffer_view_t *view,
                                kiln_host_tensor_t *out, char *err,
                                size_t cap) {
  memset(out, 0, sizeof *out);
  kiln_buffer_view_type(view, &out->type);
  out->size = (size_t)kiln_buffer_view_byte_length(view);
  out->data = malloc(out->size ? out->size : 1);
  if (!out->data) return fail(err, cap, "out of memory for %zu bytes", out->size);
  kiln_status_t s = kiln_buffer_view_read(view, out->data, out->size);
  if (s) {
    fail(err, cap, "%s", kiln_status_message(s));
    kiln_status_free(s);
    kiln_host_tensor_free(out);
    return false;
  }
  return true;
}

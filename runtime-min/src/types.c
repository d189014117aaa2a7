/* Element types and tensor types: names, sizes, parsing and the
 * "tensor<2x?xf32>" spelling every message and tool uses. The numbering
 * equals the module format's ElementType enum. */
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

/* Names inline (the longest, "bf16", fits): no pointer per entry. */
static const struct {
  char name[5];
  uint8_t size;
} krt_element_types[KILN_ELEMENT_COUNT] = {
    [KILN_ELEMENT_NONE] = {"?", 0},   [KILN_ELEMENT_I1] = {"i1", 1},
    [KILN_ELEMENT_I8] = {"i8", 1},    [KILN_ELEMENT_I16] = {"i16", 2},
    [KILN_ELEMENT_I32] = {"i32", 4},  [KILN_ELEMENT_I64] = {"i64", 8},
    [KILN_ELEMENT_U8] = {"u8", 1},    [KILN_ELEMENT_U16] = {"u16", 2},
    [KILN_ELEMENT_U32] = {"u32", 4},  [KILN_ELEMENT_U64] = {"u64", 8},
    [KILN_ELEMENT_F16] = {"f16", 2},  [KILN_ELEMENT_BF16] = {"bf16", 2},
    [KILN_ELEMENT_F32] = {"f32", 4},  [KILN_ELEMENT_F64] = {"f64", 8},
    [KILN_ELEMENT_STR] = {"str", 0}, /* variable: krt_strings_check */
};

size_t kiln_element_type_size(kiln_element_type_t type) {
  return (unsigned)type < KILN_ELEMENT_COUNT ? krt_element_types[type].size
                                             : 0;
}

const char *kiln_element_type_name(kiln_element_type_t type) {
  return (unsigned)type < KILN_ELEMENT_COUNT ? krt_element_types[type].name
                                             : "?";
}

kiln_element_type_t kiln_element_type_parse(const char *name, size_t len) {
  for (unsigned t = 1; t < KILN_ELEMENT_COUNT; ++t) {
    const char *n = krt_element_types[t].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0)
      return (kiln_element_type_t)t;
  }
  return KILN_ELEMENT_NONE;
}

void krt_append(char *buf, size_t size, size_t *n, const char *s) {
  int w = snprintf(*n < size ? buf + *n : NULL, *n < size ? size - *n : 0,
                   "%s", s);
  if (w > 0) *n += (size_t)w;
}

size_t kiln_tensor_type_format(const kiln_tensor_type_t *type, char *buf,
                               size_t size) {
  size_t n = 0;
  if (size) buf[0] = 0;
  krt_append(buf, size, &n, "tensor<");
  const uint32_t rank = type->rank <= KILN_MAX_RANK ? type->rank : 0;
  for (uint32_t i = 0; i < rank; ++i) {
    if (type->dims[i] < 0)
      krt_append(buf, size, &n, "?x");
    else {
      char dim[24];
      snprintf(dim, sizeof dim, "%lldx", (long long)type->dims[i]);
      krt_append(buf, size, &n, dim);
    }
  }
  krt_append(buf, size, &n, kiln_element_type_name(type->element_type));
  krt_append(buf, size, &n, ">");
  return n;
}

bool krt_shape_bytes(kiln_element_type_t type, uint32_t rank,
                     const int64_t *dims, uint64_t *out_bytes) {
  uint64_t bytes = kiln_element_type_size(type);
  if (bytes == 0 || rank > KILN_MAX_RANK) return false;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) return false;
    if (__builtin_mul_overflow(bytes, (uint64_t)dims[i], &bytes)) return false;
  }
  *out_bytes = bytes;
  return true;
}

#ifdef KILN_WITH_TEXT
/* One UTF-8 sequence per step: no overlong forms, surrogates or code
 * points past U+10FFFF (ONNX strings are UTF-8, as numpy's are). */
static bool krt_utf8_valid(const uint8_t *s, uint64_t n) {
  for (uint64_t i = 0; i < n;) {
    const uint8_t c = s[i];
    unsigned len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2
                 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || n - i < len) return false;
    uint32_t cp = len == 1 ? c : c & (0x7fu >> len);
    for (unsigned k = 1; k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += len;
  }
  return true;
}

const char *krt_strings_check(const uint8_t *p, uint64_t avail, uint64_t count,
                              uint64_t *out_bytes, uint64_t *out_at) {
  *out_at = 0;
  if (count >= avail / 4) return "is too short for its offsets";
  const uint64_t head = 4 * (count + 1);
  uint32_t prev = 0;
  for (uint64_t i = 0; i <= count; ++i) {
    const uint8_t *q = p + 4 * i;
    const uint32_t o = (uint32_t)q[0] | (uint32_t)q[1] << 8 |
                       (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    *out_at = i ? i - 1 : 0;
    if (i == 0 ? o != 0 : o < prev) return "has offsets not ascending from 0";
    if (o > avail - head) return "has an offset past its bytes";
    if (!krt_utf8_valid(p + head + prev, o - prev)) return "is not UTF-8";
    prev = o;
  }
  *out_bytes = head + prev;
  return NULL;
}
#endif /* KILN_WITH_TEXT */

/* The byte view of a tensor's payload: little-endian elements of the data
 * type's size, as the importer puts them into a module.
 *
 * Takes a tensor of a decoded document. Guarantees at most one copy after
 * decoding: raw_data is returned in place; a typed field whose values have
 * the element's width (float_data for f32/complex<f32>, int32_data for
 * i32, int64_data, double_data, uint64_data for ui64) is returned in
 * place; narrower types (i8/ui8/i16/ui16/i1/f16/bf16 in int32_data, ui32
 * in uint64_data) are converted once into the arena and cached; external
 * data is mmapped once and cached. The tensor is re-checked first, so a
 * caller passing an unvalidated tensor gets an error, not a bad view. */
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"

typedef struct ox_cached {
  const void *key;
  kiln_onnx_bytes bytes;
} ox_cached;

struct ox_bytes_cache {
  ox_cached *slots;
  size_t cap, count;
};

static size_t ox_slot(const ox_bytes_cache *c, const void *key) {
  size_t mask = c->cap - 1;
  size_t i = (size_t)((((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) & mask);
  while (c->slots[i].key && c->slots[i].key != key) i = (i + 1) & mask;
  return i;
}

static const kiln_onnx_bytes *ox_cache_get(const ox_doc *doc, const void *key) {
  const ox_bytes_cache *c = doc->cache;
  if (!c) return NULL;
  const ox_cached *s = &c->slots[ox_slot(c, key)];
  return s->key ? &s->bytes : NULL;
}

static bool ox_cache_put(ox_doc *doc, const void *key, kiln_onnx_bytes b) {
  ox_bytes_cache *c = doc->cache;
  if (!c) {
    c = ox_arena_alloc(&doc->arena, sizeof *c);
    if (!c) return false;
    c->cap = 16;
    c->count = 0;
    c->slots = ox_arena_alloc(&doc->arena, c->cap * sizeof *c->slots);
    if (!c->slots) return false;
    memset(c->slots, 0, c->cap * sizeof *c->slots);
    doc->cache = c;
  }
  if ((c->count + 1) * 2 > c->cap) {
    ox_bytes_cache big = {NULL, c->cap * 2, 0};
    big.slots = ox_arena_alloc(&doc->arena, big.cap * sizeof *big.slots);
    if (!big.slots) return false;
    memset(big.slots, 0, big.cap * sizeof *big.slots);
    for (size_t i = 0; i < c->cap; i++)
      if (c->slots[i].key) {
        big.slots[ox_slot(&big, c->slots[i].key)] = c->slots[i];
        big.count++;
      }
    *c = big;
  }
  ox_cached *s = &c->slots[ox_slot(c, key)];
  s->key = key;
  s->bytes = b;
  c->count++;
  return true;
}

/* Narrows int32_data / uint64_data values to SIZE-byte elements. */
static void *ox_convert(ox_doc *doc, const Onnx__TensorProto *t,
                        const ox_dtype *dt, size_t count) {
  uint8_t *out = ox_arena_alloc(&doc->arena, count * dt->size);
  if (!out) return NULL;
  for (size_t i = 0; i < count; i++) {
    uint64_t v = dt->field == OX_FIELD_UINT64 ? t->uint64_data[i]
                                              : (uint32_t)t->int32_data[i];
    if (dt->size == 1) {
      /* ONNX stores bools as 0/1; anything else is taken as true. */
      out[i] = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
                   ? (uint8_t)(v != 0) : (uint8_t)v;
    } else if (dt->size == 2) {
      uint16_t h = (uint16_t)v;
      memcpy(out + 2 * i, &h, 2);
    } else {
      uint32_t w = (uint32_t)v;
      memcpy(out + 4 * i, &w, 4);
    }
  }
  return out;
}

bool ox_tensor_bytes(ox_doc *doc, const Onnx__TensorProto *t,
                     kiln_onnx_bytes *out, kiln_onnx_status *st) {
  static const uint64_t empty;
  memset(out, 0, sizeof *out);
  const kiln_onnx_bytes *hit = ox_cache_get(doc, t);
  if (hit) {
    *out = *hit;
    return true;
  }
  char q[OX_QUOTE_MAX], where[96];
  ox_fmt(where, sizeof where, "tensor %s", ox_quote(q, t->name));
  if (!ox_check_tensor(t, where, st)) return false;
  const ox_dtype *dt = ox_dtype_get(t->data_type);
  if (dt->field == OX_FIELD_STRING)
    return ox_fail(st, KILN_ONNX_ERR_UNSUPPORTED,
                   "%s: string tensors have no byte view", where);
  uint64_t count;
  size_t size;
  kiln_onnx_tensor_count(t, &count);
  ox_payload_size(dt, count, &size);
  out->size = size;
  out->data = &empty;
  if (size == 0) return true;

  if (t->has_raw_data) {
    out->data = t->raw_data.data;
    return true;
  }
  if (t->n_external_data ||
      (t->has_data_location &&
       t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
    ox_external_ref ref;
    if (!ox_external_parse(t, where, &ref, st) ||
        !ox_external_map(doc, &ref, where, size, &out->data, st))
      return false;
    out->mapped = true;
  } else {
    switch (dt->field) {
    case OX_FIELD_FLOAT:  out->data = t->float_data; return true;
    case OX_FIELD_INT64:  out->data = t->int64_data; return true;
    case OX_FIELD_DOUBLE: out->data = t->double_data; return true;
    case OX_FIELD_INT32:
      if (dt->size == 4) { out->data = t->int32_data; return true; }
      break;
    case OX_FIELD_UINT64:
      if (dt->size == 8) { out->data = t->uint64_data; return true; }
      break;
    case OX_FIELD_STRING:
      break;
    }
    out->data = ox_convert(doc, t, dt, (size_t)count);
    if (!out->data)
      return ox_fail(st, KILN_ONNX_ERR_MEMORY,
                     "%s: out of memory converting %zu bytes", where, size);
    out->copied = true;
  }
  if (!ox_cache_put(doc, t, *out))
    return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  return true;
}

/* Attributes: construction (interned per context), dictionary helpers,
 * dense element storage and the f16/bf16 conversions it needs.
 * Guarantees: equal attributes are the same pointer; integer values are
 * normalized to their type's width; a dense attribute whose elements are
 * all equal is stored as a splat (as MLIR does). Dense data is copied into
 * the context on first interning, except for borrowed dense attributes
 * (kiln_attr_dense_borrowed), which keep the caller's pointer: large
 * weights reach the module writer without a copy in the IR. */
#include "ir_internal.h"

#include <math.h>
#include <stdlib.h>

/* Data hash, eight bytes per step: dense weights run to hundreds of MiB
 * and are hashed once when interned. */
static uint64_t hash_data(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return ir_hash_bytes(h, s + i, n - i);
}

static uint64_t attr_hash(const kiln_attr *a) {
  uint64_t h = ir_hash_u64(IR_HASH_SEED, (uint64_t)a->kind);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)a->type);
  h = ir_hash_u64(h, (uint64_t)a->i);
  h = ir_hash_bytes(h, &a->f, sizeof a->f);
  h = ir_hash_u64(h, a->len);
  if (a->str) h = ir_hash_bytes(h, a->str, a->len);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)a->dialect);
  h = ir_hash_u64(h, a->count);
  if (a->elems) h = ir_hash_bytes(h, a->elems, a->count * sizeof(void *));
  if (a->entries)
    h = ir_hash_bytes(h, a->entries, a->count * sizeof(kiln_named_attr));
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)a->map);
  h = ir_hash_u64(h, a->splat);
  if (a->data) h = hash_data(h, a->data, a->nbytes);
  return h;
}

static bool attr_eq(const void *x, const void *y) {
  const kiln_attr *a = x, *b = y;
  if (a->kind != b->kind || a->type != b->type || a->i != b->i ||
      memcmp(&a->f, &b->f, sizeof a->f) || a->len != b->len ||
      a->dialect != b->dialect || a->count != b->count || a->map != b->map ||
      a->splat != b->splat || a->nbytes != b->nbytes)
    return false;
  if ((a->str == NULL) != (b->str == NULL)) return false;
  if (a->str && memcmp(a->str, b->str, a->len)) return false;
  if ((a->elems == NULL) != (b->elems == NULL)) return false;
  if (a->elems && memcmp(a->elems, b->elems, a->count * sizeof(void *)))
    return false;
  if ((a->entries == NULL) != (b->entries == NULL)) return false;
  if (a->entries &&
      memcmp(a->entries, b->entries, a->count * sizeof(kiln_named_attr)))
    return false;
  if ((a->data == NULL) != (b->data == NULL)) return false;
  return !a->data || memcmp(a->data, b->data, a->nbytes) == 0;
}

/* Interns key; arrays/data it points to are copied on first insertion,
 * except data when borrow_data (the caller guarantees its lifetime). */
static const kiln_attr *intern_ex(kiln_context *ctx, kiln_attr *key,
                                  bool borrow_data) {
  key->hash = attr_hash(key);
  const kiln_attr *f = ir_set_find(&ctx->attrs, key->hash, attr_eq, key);
  if (f) return f;
  kiln_attr *a = kiln_alloc(ctx, sizeof *a);
  *a = *key;
  if (key->str) a->str = kiln_intern(ctx, key->str, key->len);
  if (key->elems) {
    const kiln_attr **e = kiln_alloc(ctx, key->count * sizeof(void *));
    memcpy(e, key->elems, key->count * sizeof(void *));
    a->elems = e;
  }
  if (key->entries) {
    kiln_named_attr *e = kiln_alloc(ctx, key->count * sizeof *e);
    memcpy(e, key->entries, key->count * sizeof *e);
    a->entries = e;
  }
  if (key->data && !borrow_data) {
    void *d = kiln_alloc(ctx, key->nbytes ? key->nbytes : 1);
    memcpy(d, key->data, key->nbytes);
    a->data = d;
  }
  ir_set_insert(&ctx->attrs, a->hash, a);
  return a;
}

static const kiln_attr *intern(kiln_context *ctx, kiln_attr *key) {
  return intern_ex(ctx, key, false);
}

const kiln_attr *kiln_attr_unit(kiln_context *ctx) {
  kiln_attr k = {.kind = KILN_ATTR_UNIT};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_bool(kiln_context *ctx, bool v) {
  kiln_attr k = {.kind = KILN_ATTR_BOOL, .type = kiln_type_int(ctx, 1),
                 .i = v ? 1 : 0};
  return intern(ctx, &k);
}

/* Normalizes v to `width` bits: sign-extended unless the type is unsigned. */
static int64_t normalize_int(const kiln_type *t, int64_t v) {
  uint32_t w = t->kind == KILN_TYPE_INTEGER ? t->width : 64;
  if (w >= 64) return v;
  uint64_t mask = (1ull << w) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (t->kind == KILN_TYPE_INTEGER && t->sign == KILN_UNSIGNED)
    return (int64_t)u;
  if (u >> (w - 1)) u |= ~mask;
  return (int64_t)u;
}

const kiln_attr *kiln_attr_int(kiln_context *ctx, const kiln_type *type,
                               int64_t value) {
  if (type->kind == KILN_TYPE_INTEGER && type->width == 1 &&
      type->sign == KILN_SIGNLESS)
    return kiln_attr_bool(ctx, value & 1);
  kiln_attr k = {.kind = KILN_ATTR_INTEGER, .type = type,
                 .i = normalize_int(type, value)};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_float(kiln_context *ctx, const kiln_type *type,
                                 double value) {
  kiln_attr k = {.kind = KILN_ATTR_FLOAT, .type = type,
                 .f = kiln_float_round(type, value)};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_string(kiln_context *ctx, const char *s, size_t n) {
  kiln_attr k = {.kind = KILN_ATTR_STRING, .str = s ? s : "", .len = n};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_type(kiln_context *ctx, const kiln_type *t) {
  kiln_attr k = {.kind = KILN_ATTR_TYPE, .type = t};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_array(kiln_context *ctx, uint32_t n,
                                 const kiln_attr *const *elems) {
  static const kiln_attr *none[1];
  kiln_attr k = {.kind = KILN_ATTR_ARRAY, .count = n,
                 .elems = n ? elems : none};
  return intern(ctx, &k);
}

static int named_cmp(const void *a, const void *b) {
  return strcmp(((const kiln_named_attr *)a)->name,
                ((const kiln_named_attr *)b)->name);
}

const kiln_attr *kiln_attr_dict(kiln_context *ctx, uint32_t n,
                                const kiln_named_attr *entries) {
  kiln_named_attr tmp[32];
  kiln_named_attr *sorted = n <= 32 ? tmp : kiln_alloc(ctx, n * sizeof *sorted);
  for (uint32_t i = 0; i < n; i++) {
    sorted[i].name = kiln_intern_cstr(ctx, entries[i].name);
    sorted[i].value = entries[i].value;
  }
  qsort(sorted, n, sizeof *sorted, named_cmp);
  static const kiln_named_attr none[1];
  kiln_attr k = {.kind = KILN_ATTR_DICT, .count = n,
                 .entries = n ? sorted : none};
  return intern(ctx, &k);
}

size_t kiln_dense_elem_size(const kiln_type *e) {
  switch (e->kind) {
  case KILN_TYPE_INTEGER:
    return e->width <= 8 ? 1 : e->width <= 16 ? 2 : e->width <= 32 ? 4 : 8;
  case KILN_TYPE_INDEX: return 8;
  case KILN_TYPE_F16: case KILN_TYPE_BF16: return 2;
  case KILN_TYPE_F32: return 4;
  case KILN_TYPE_F64: return 8;
  default: return 0;
  }
}

/* Shared by the copying and the borrowing constructor. */
static const kiln_attr *dense(kiln_context *ctx, const kiln_type *type,
                              bool splat, const void *data, size_t nbytes,
                              bool borrow) {
  size_t es = kiln_dense_elem_size(type->elem);
  /* All-equal elements collapse to a splat, as in MLIR. */
  if (!splat && es && nbytes >= es) {
    const char *d = data;
    bool same = true;
    for (size_t off = es; off < nbytes && same; off += es)
      same = memcmp(d, d + off, es) == 0;
    if (same) {
      splat = true;
      nbytes = es;
      borrow = false; /* one element: a copy costs nothing */
    }
  }
  kiln_attr k = {.kind = KILN_ATTR_DENSE, .type = type, .splat = splat,
                 .data = data, .nbytes = nbytes};
  if (!data) k.data = "", k.nbytes = 0, borrow = false;
  return intern_ex(ctx, &k, borrow);
}

const kiln_attr *kiln_attr_dense(kiln_context *ctx, const kiln_type *type,
                                 bool splat, const void *data, size_t nbytes) {
  return dense(ctx, type, splat, data, nbytes, false);
}

const kiln_attr *kiln_attr_dense_borrowed(kiln_context *ctx,
                                          const kiln_type *type,
                                          const void *data, size_t nbytes) {
  return dense(ctx, type, false, data, nbytes, true);
}

const kiln_attr *kiln_attr_dense_reshape(kiln_context *ctx, const kiln_attr *a,
                                         const kiln_type *type) {
  if (!a || a->kind != KILN_ATTR_DENSE || !kiln_type_has_static_shape(type) ||
      kiln_type_num_elements(type) != kiln_type_num_elements(a->type))
    return NULL;
  /* The data lives as long as the context (interned copy or borrowed). */
  return a->splat ? kiln_attr_dense(ctx, type, true, a->data, a->nbytes)
                  : kiln_attr_dense_borrowed(ctx, type, a->data, a->nbytes);
}

const kiln_attr *kiln_attr_dense_transpose(kiln_context *ctx, const kiln_attr *a,
                                           const int64_t *perm) {
  if (!a || a->kind != KILN_ATTR_DENSE || !kiln_type_has_static_shape(a->type)) return NULL;
  const kiln_type *t = a->type;
  uint32_t rank = t->rank;
  int64_t shape[KILN_MAX_LOOPS], stride[KILN_MAX_LOOPS], idx[KILN_MAX_LOOPS] = {0};
  bool seen[KILN_MAX_LOOPS] = {0};
  if (rank > KILN_MAX_LOOPS) return NULL;
  for (uint32_t d = 0; d < rank; d++) {
    if (perm[d] < 0 || perm[d] >= (int64_t)rank || seen[perm[d]]) return NULL;
    seen[perm[d]] = true;
    shape[d] = t->shape[perm[d]];
  }
  const kiln_type *rt = kiln_type_with_shape(ctx, t, rank, shape);
  if (a->splat) return kiln_attr_dense(ctx, rt, true, a->data, a->nbytes);
  size_t es = kiln_dense_elem_size(t->elem);
  int64_t n = kiln_type_num_elements(t), s = 1;
  if (!es || a->nbytes != (size_t)n * es) return NULL;
  for (int d = (int)rank - 1; d >= 0; d--) stride[d] = s, s *= t->shape[d];
  char *out = kiln_alloc(ctx, (size_t)n * es + 1);
  const char *in = a->data;
  for (int64_t i = 0; i < n; i++) { /* idx: result coordinate of element i */
    int64_t src = 0;
    for (uint32_t d = 0; d < rank; d++) src += idx[d] * stride[perm[d]];
    memcpy(out + (size_t)i * es, in + (size_t)src * es, es);
    for (int d = (int)rank - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return kiln_attr_dense_borrowed(ctx, rt, out, (size_t)n * es);
}

/* Stores v (as the element type's bits) at p. */
static void store_elem(const kiln_type *e, void *p, int64_t iv, double fv) {
  size_t es = kiln_dense_elem_size(e);
  if (kiln_type_is_float(e)) {
    uint64_t bits = ir_float_bits(e, fv);
    memcpy(p, &bits, es); /* little-endian hosts only (x86-64, aarch64) */
  } else {
    memcpy(p, &iv, es);
  }
}

const kiln_attr *kiln_attr_dense_splat_int(kiln_context *ctx,
                                           const kiln_type *type, int64_t v) {
  char buf[8] = {0};
  store_elem(type->elem, buf, normalize_int(type->elem, v), 0);
  return kiln_attr_dense(ctx, type, true, buf, kiln_dense_elem_size(type->elem));
}

const kiln_attr *kiln_attr_dense_splat_float(kiln_context *ctx,
                                             const kiln_type *type, double v) {
  char buf[8] = {0};
  store_elem(type->elem, buf, 0, v);
  return kiln_attr_dense(ctx, type, true, buf, kiln_dense_elem_size(type->elem));
}

int64_t kiln_dense_count(const kiln_attr *a) {
  return kiln_type_num_elements(a->type);
}

int64_t kiln_dense_get_int(const kiln_attr *a, int64_t i) {
  const kiln_type *e = a->type->elem;
  size_t es = kiln_dense_elem_size(e);
  if (!es) return 0;
  const char *p = (const char *)a->data + (a->splat ? 0 : (size_t)i * es);
  uint64_t u = 0;
  memcpy(&u, p, es);
  if (e->kind == KILN_TYPE_INDEX) return (int64_t)u;
  uint32_t w = e->width;
  if (w >= 64) return (int64_t)u;
  if (e->sign == KILN_UNSIGNED || w == 1) return (int64_t)(u & ((1ull << w) - 1));
  if ((u >> (w - 1)) & 1) u |= ~((1ull << w) - 1);
  return (int64_t)u;
}

double kiln_dense_get_float(const kiln_attr *a, int64_t i) {
  const kiln_type *e = a->type->elem;
  if (!kiln_type_is_float(e)) return (double)kiln_dense_get_int(a, i);
  size_t es = kiln_dense_elem_size(e);
  const char *p = (const char *)a->data + (a->splat ? 0 : (size_t)i * es);
  uint64_t u = 0;
  memcpy(&u, p, es);
  return ir_float_from_bits(e, u);
}

const kiln_attr *kiln_attr_dense_array(kiln_context *ctx,
                                       const kiln_type *elem, uint32_t n,
                                       const int64_t *ints,
                                       const double *floats) {
  kiln_attr k = {.kind = KILN_ATTR_DENSE_ARRAY, .type = elem, .count = n};
  if (floats) {
    k.data = n ? (const void *)floats : "";
    k.nbytes = n * sizeof(double);
  } else {
    k.data = n ? (const void *)ints : "";
    k.nbytes = n * sizeof(int64_t);
  }
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_dense_i64_array(kiln_context *ctx, uint32_t n,
                                           const int64_t *v) {
  return kiln_attr_dense_array(ctx, kiln_type_int(ctx, 64), n, v, NULL);
}

const kiln_attr *kiln_attr_affine_map(kiln_context *ctx,
                                      const kiln_affine_map *m) {
  kiln_attr k = {.kind = KILN_ATTR_AFFINE_MAP, .map = m};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_symbol_ref(kiln_context *ctx, const char *root,
                                      uint32_t n_nested,
                                      const char *const *nested) {
  const kiln_attr *tmp[16];
  if (n_nested > 16) n_nested = 16;
  for (uint32_t i = 0; i < n_nested; i++)
    tmp[i] = kiln_attr_symbol_ref(ctx, nested[i], 0, NULL);
  kiln_attr k = {.kind = KILN_ATTR_SYMBOL_REF, .str = root,
                 .len = strlen(root), .count = n_nested,
                 .elems = n_nested ? tmp : NULL};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_strided(kiln_context *ctx, int64_t offset,
                                   uint32_t n, const int64_t *strides) {
  kiln_attr k = {.kind = KILN_ATTR_STRIDED, .i = offset, .count = n,
                 .data = n ? (const void *)strides : "",
                 .nbytes = n * sizeof(int64_t)};
  return intern(ctx, &k);
}

const kiln_attr *kiln_attr_opaque(kiln_context *ctx, const char *dialect,
                                  const char *body) {
  kiln_attr k = {.kind = KILN_ATTR_OPAQUE,
                 .dialect = kiln_intern_cstr(ctx, dialect), .str = body,
                 .len = strlen(body)};
  return intern(ctx, &k);
}

const kiln_attr *kiln_dict_get(const kiln_attr *dict, const char *name) {
  if (!dict) return NULL;
  /* Names are interned but callers pass literals: compare by content. */
  uint32_t lo = 0, hi = dict->count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = strcmp(dict->entries[mid].name, name);
    if (c == 0) return dict->entries[mid].value;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const kiln_attr *kiln_dict_set(kiln_context *ctx, const kiln_attr *dict,
                               const char *name, const kiln_attr *value) {
  uint32_t n = dict ? dict->count : 0;
  kiln_named_attr *e = kiln_alloc(ctx, (n + 1) * sizeof *e);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(dict->entries[i].name, name) != 0) e[m++] = dict->entries[i];
  if (value) {
    e[m].name = name;
    e[m].value = value;
    m++;
  }
  return kiln_attr_dict(ctx, m, e);
}

/* ---- float formats ---- */
uint16_t kiln_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) /* inf / nan */
    return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) { /* subnormal or zero: round to nearest even */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry to inf */
  return (uint16_t)h;
}

float kiln_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (man << 13);
  } else if (exp == 0) {
    if (!man) {
      x = sign;
    } else {
      float f = ldexpf((float)man, -24);
      memcpy(&x, &f, 4);
      x |= sign;
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

uint16_t kiln_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  uint32_t rem = x & 0xffff;
  uint32_t h = x >> 16;
  if (rem > 0x8000 || (rem == 0x8000 && (h & 1))) h++;
  return (uint16_t)h;
}

float kiln_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

int ir_float_precision_bits(const kiln_type *t) {
  switch (t->kind) {
  case KILN_TYPE_F16: return 11;
  case KILN_TYPE_BF16: return 8;
  case KILN_TYPE_F32: return 24;
  default: return 53;
  }
}

uint64_t ir_float_bits(const kiln_type *t, double v) {
  switch (t->kind) {
  case KILN_TYPE_F16: return kiln_f32_to_f16((float)v);
  case KILN_TYPE_BF16: return kiln_f32_to_bf16((float)v);
  case KILN_TYPE_F32: {
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
  }
  default: {
    uint64_t x;
    memcpy(&x, &v, 8);
    return x;
  }
  }
}

double ir_float_from_bits(const kiln_type *t, uint64_t bits) {
  switch (t->kind) {
  case KILN_TYPE_F16: return kiln_f16_to_f32((uint16_t)bits);
  case KILN_TYPE_BF16: return kiln_bf16_to_f32((uint16_t)bits);
  case KILN_TYPE_F32: {
    uint32_t x = (uint32_t)bits;
    float f;
    memcpy(&f, &x, 4);
    return f;
  }
  default: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  }
}

double kiln_float_round(const kiln_type *t, double v) {
  if (t->kind == KILN_TYPE_F64 || !kiln_type_is_float(t)) return v;
  return ir_float_from_bits(t, ir_float_bits(t, v));
}

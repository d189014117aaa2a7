/* Types: construction (interned per context, so equal types are the same
 * pointer) and queries. Takes shapes/element types from callers; copies
 * everything into the arena. */
#include "ir_internal.h"

#include <stdlib.h>

static uint64_t type_hash(const kiln_type *t) {
  uint64_t h = ir_hash_u64(IR_HASH_SEED, (uint64_t)t->kind);
  h = ir_hash_u64(h, t->width);
  h = ir_hash_u64(h, (uint64_t)t->sign);
  h = ir_hash_u64(h, t->rank);
  if (t->rank) h = ir_hash_bytes(h, t->shape, t->rank * sizeof(int64_t));
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)t->elem);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)t->layout);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)t->memspace);
  h = ir_hash_u64(h, t->num_inputs);
  h = ir_hash_u64(h, t->num_results);
  uint32_t n = t->num_inputs + t->num_results;
  if (n) h = ir_hash_bytes(h, t->types, n * sizeof(void *));
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)t->dialect);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)t->body);
  return h;
}

static bool type_eq(const void *a_, const void *b_) {
  const kiln_type *a = a_, *b = b_;
  if (a->kind != b->kind || a->width != b->width || a->sign != b->sign ||
      a->rank != b->rank || a->elem != b->elem || a->layout != b->layout ||
      a->memspace != b->memspace || a->num_inputs != b->num_inputs ||
      a->num_results != b->num_results || a->dialect != b->dialect ||
      a->body != b->body)
    return false;
  if (a->rank && memcmp(a->shape, b->shape, a->rank * sizeof(int64_t)))
    return false;
  uint32_t n = a->num_inputs + a->num_results;
  return !n || memcmp(a->types, b->types, n * sizeof(void *)) == 0;
}

/* Interns `key` (whose arrays may point to caller memory). */
static const kiln_type *intern(kiln_context *ctx, kiln_type *key) {
  key->hash = type_hash(key);
  const kiln_type *found = ir_set_find(&ctx->types, key->hash, type_eq, key);
  if (found) return found;
  kiln_type *t = kiln_alloc(ctx, sizeof *t);
  *t = *key;
  if (key->rank) {
    int64_t *s = kiln_alloc(ctx, key->rank * sizeof(int64_t));
    memcpy(s, key->shape, key->rank * sizeof(int64_t));
    t->shape = s;
  }
  uint32_t n = key->num_inputs + key->num_results;
  if (n) {
    const kiln_type **ts = kiln_alloc(ctx, n * sizeof(void *));
    memcpy(ts, key->types, n * sizeof(void *));
    t->types = ts;
  }
  ir_set_insert(&ctx->types, t->hash, t);
  return t;
}

static const kiln_type *simple(kiln_context *ctx, kiln_type_kind k,
                               uint32_t width) {
  kiln_type key = {.kind = k, .width = width};
  return intern(ctx, &key);
}

const kiln_type *kiln_type_int(kiln_context *ctx, uint32_t width) {
  return kiln_type_int_sign(ctx, width, KILN_SIGNLESS);
}
const kiln_type *kiln_type_int_sign(kiln_context *ctx, uint32_t width,
                                    kiln_signedness sign) {
  kiln_type key = {.kind = KILN_TYPE_INTEGER, .width = width, .sign = sign};
  return intern(ctx, &key);
}
const kiln_type *kiln_type_index(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_INDEX, 64);
}
const kiln_type *kiln_type_f16(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_F16, 16);
}
const kiln_type *kiln_type_bf16(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_BF16, 16);
}
const kiln_type *kiln_type_f32(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_F32, 32);
}
const kiln_type *kiln_type_f64(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_F64, 64);
}
const kiln_type *kiln_type_none(kiln_context *ctx) {
  return simple(ctx, KILN_TYPE_NONE, 0);
}

static const kiln_type *shaped(kiln_context *ctx, kiln_type_kind k,
                               uint32_t rank, const int64_t *shape,
                               const kiln_type *elem, const kiln_attr *layout,
                               const kiln_attr *memspace) {
  kiln_type key = {.kind = k, .rank = rank, .shape = shape, .elem = elem,
                   .layout = layout, .memspace = memspace};
  return intern(ctx, &key);
}

const kiln_type *kiln_type_tensor(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem,
                                  const kiln_attr *encoding) {
  return shaped(ctx, KILN_TYPE_TENSOR, rank, shape, elem, encoding, NULL);
}
const kiln_type *kiln_type_unranked_tensor(kiln_context *ctx,
                                           const kiln_type *elem) {
  return shaped(ctx, KILN_TYPE_UNRANKED_TENSOR, 0, NULL, elem, NULL, NULL);
}
const kiln_type *kiln_type_vector(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem) {
  return shaped(ctx, KILN_TYPE_VECTOR, rank, shape, elem, NULL, NULL);
}
const kiln_type *kiln_type_memref(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem,
                                  const kiln_attr *layout,
                                  const kiln_attr *memspace) {
  /* The identity map is the default layout: drop it so equal types intern
   * to one pointer. */
  if (layout && layout->kind == KILN_ATTR_AFFINE_MAP &&
      kiln_affine_map_is_identity(layout->map) && layout->map->num_dims == rank)
    layout = NULL;
  return shaped(ctx, KILN_TYPE_MEMREF, rank, shape, elem, layout, memspace);
}
const kiln_type *kiln_type_unranked_memref(kiln_context *ctx,
                                           const kiln_type *elem,
                                           const kiln_attr *memspace) {
  return shaped(ctx, KILN_TYPE_UNRANKED_MEMREF, 0, NULL, elem, NULL, memspace);
}

const kiln_type *kiln_type_function(kiln_context *ctx, uint32_t num_inputs,
                                    const kiln_type *const *inputs,
                                    uint32_t num_results,
                                    const kiln_type *const *results) {
  const kiln_type *tmp[64];
  const kiln_type **all = tmp;
  uint32_t n = num_inputs + num_results;
  if (n > 64) all = kiln_alloc(ctx, n * sizeof(void *));
  for (uint32_t i = 0; i < num_inputs; i++) all[i] = inputs[i];
  for (uint32_t i = 0; i < num_results; i++) all[num_inputs + i] = results[i];
  kiln_type key = {.kind = KILN_TYPE_FUNCTION, .num_inputs = num_inputs,
                   .num_results = num_results, .types = all};
  return intern(ctx, &key);
}

const kiln_type *kiln_type_tuple(kiln_context *ctx, uint32_t n,
                                 const kiln_type *const *types) {
  kiln_type key = {.kind = KILN_TYPE_TUPLE, .num_inputs = n, .types = types};
  return intern(ctx, &key);
}

const kiln_type *kiln_type_opaque(kiln_context *ctx, const char *dialect,
                                  const char *body) {
  kiln_type key = {.kind = KILN_TYPE_OPAQUE,
                   .dialect = kiln_intern_cstr(ctx, dialect),
                   .body = kiln_intern_cstr(ctx, body)};
  return intern(ctx, &key);
}

const kiln_type *kiln_type_seq(kiln_context *ctx, const kiln_type *elem) {
  char *es = kiln_type_to_string(elem);
  if (!es) return NULL;
  size_t n = strlen(es);
  char *body = kiln_alloc(ctx, n + 6);
  memcpy(body, "seq<", 4);
  memcpy(body + 4, es, n);
  memcpy(body + 4 + n, ">", 2);
  free(es);
  kiln_type key = {.kind = KILN_TYPE_OPAQUE, .elem = elem,
                   .dialect = kiln_intern_cstr(ctx, "kiln"),
                   .body = kiln_intern_cstr(ctx, body)};
  return intern(ctx, &key);
}

bool kiln_type_is_seq(const kiln_type *t) {
  return t && t->kind == KILN_TYPE_OPAQUE && t->elem && !strcmp(t->dialect, "kiln") &&
         !strncmp(t->body, "seq<", 4);
}

const kiln_type *kiln_type_with_elem(kiln_context *ctx, const kiln_type *s,
                                     const kiln_type *elem) {
  if (!kiln_type_is_shaped(s)) return elem;
  return shaped(ctx, s->kind, s->rank, s->shape, elem, s->layout, s->memspace);
}

const kiln_type *kiln_type_with_shape(kiln_context *ctx, const kiln_type *s,
                                      uint32_t rank, const int64_t *shape) {
  kiln_type_kind k = s->kind;
  if (k == KILN_TYPE_UNRANKED_TENSOR) k = KILN_TYPE_TENSOR;
  if (k == KILN_TYPE_UNRANKED_MEMREF) k = KILN_TYPE_MEMREF;
  return shaped(ctx, k, rank, shape, s->elem,
                k == KILN_TYPE_TENSOR ? s->layout : NULL, s->memspace);
}

bool kiln_type_is_float(const kiln_type *t) {
  return t->kind == KILN_TYPE_F16 || t->kind == KILN_TYPE_BF16 ||
         t->kind == KILN_TYPE_F32 || t->kind == KILN_TYPE_F64;
}
bool kiln_type_is_integer(const kiln_type *t) {
  return t->kind == KILN_TYPE_INTEGER;
}
bool kiln_type_is_int_or_index(const kiln_type *t) {
  return t->kind == KILN_TYPE_INTEGER || t->kind == KILN_TYPE_INDEX;
}
bool kiln_type_is_shaped(const kiln_type *t) {
  return t->kind == KILN_TYPE_TENSOR || t->kind == KILN_TYPE_UNRANKED_TENSOR ||
         t->kind == KILN_TYPE_VECTOR || t->kind == KILN_TYPE_MEMREF ||
         t->kind == KILN_TYPE_UNRANKED_MEMREF;
}
bool kiln_type_is_ranked(const kiln_type *t) {
  return t->kind == KILN_TYPE_TENSOR || t->kind == KILN_TYPE_VECTOR ||
         t->kind == KILN_TYPE_MEMREF;
}
bool kiln_type_has_static_shape(const kiln_type *t) {
  if (!kiln_type_is_ranked(t)) return false;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->shape[i] == KILN_DYNAMIC) return false;
  return true;
}
uint32_t kiln_type_num_dynamic_dims(const kiln_type *t) {
  uint32_t n = 0;
  for (uint32_t i = 0; kiln_type_is_ranked(t) && i < t->rank; i++) n += t->shape[i] == KILN_DYNAMIC;
  return n;
}
const kiln_type *kiln_type_elem_or_self(const kiln_type *t) {
  return kiln_type_is_shaped(t) ? t->elem : t;
}
int64_t kiln_type_num_elements(const kiln_type *t) {
  if (!kiln_type_is_ranked(t)) return -1;
  int64_t n = 1;
  for (uint32_t i = 0; i < t->rank; i++) {
    if (t->shape[i] == KILN_DYNAMIC) return -1;
    if (t->shape[i] != 0 && n > INT64_MAX / t->shape[i]) return -1;
    n *= t->shape[i];
  }
  return n;
}
uint32_t kiln_type_bitwidth(const kiln_type *t) { return t->width; }
const kiln_type *kiln_type_fn_input(const kiln_type *fn, uint32_t i) {
  return fn->types[i];
}
const kiln_type *kiln_type_fn_result(const kiln_type *fn, uint32_t i) {
  return fn->types[fn->num_inputs + i];
}

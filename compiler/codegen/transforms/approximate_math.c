/* approximate-math: replaces the math ops listed in approx_ops.def, on
 * f32/f64 scalars and vectors, by arith expansions (approx_*.c), so no
 * libm call can reach a no-libc executable. Ops on other types (tensors,
 * f16) are left for earlier stages to lower and are reported by the
 * translation if they remain. Takes: verified IR. Guarantees: verified IR
 * without those ops on f32/f64 scalars and vectors. */
#include "approx.h"

#include <stdlib.h>

typedef struct list {
  kiln_op **v;
  size_t n, cap;
} list;

static bool expandable(const kiln_op *op) {
  switch (op->kind) {
#define AP_UNARY(K, F) case KILN_OP_##K:
#define AP_BINARY(K, F) case KILN_OP_##K:
#include "approx_ops.def"
#undef AP_UNARY
#undef AP_BINARY
    break;
  default:
    return false;
  }
  const kiln_type *t = op->results[0].type;
  const kiln_type *e = kiln_type_elem_or_self(t);
  return (t->kind == KILN_TYPE_VECTOR || !kiln_type_is_shaped(t)) &&
         (e->kind == KILN_TYPE_F32 || e->kind == KILN_TYPE_F64);
}

static kiln_walk_result collect(kiln_op *op, void *user) {
  list *l = user;
  if (!expandable(op)) return KILN_WALK_ADVANCE;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    kiln_op **v = realloc(l->v, cap * sizeof *v);
    if (!v) return KILN_WALK_INTERRUPT;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = op;
  return KILN_WALK_ADVANCE;
}

static kiln_value *expand(ap *a, kiln_op *op) {
  switch (op->kind) {
#define AP_UNARY(K, F) case KILN_OP_##K: return F(a, kiln_op_operand(op, 0));
#define AP_BINARY(K, F) case KILN_OP_##K: return F(a, kiln_op_operand(op, 0), kiln_op_operand(op, 1));
#include "approx_ops.def"
#undef AP_UNARY
#undef AP_BINARY
  default: return NULL;
  }
}

kiln_error *kiln_approximate_math(kiln_op *module) {
  list l = {0};
  if (!kiln_walk_post(module, collect, &l)) {
    free(l.v);
    return kiln_error_new("approximate-math: out of memory");
  }
  for (size_t i = 0; i < l.n; i++) {
    kiln_op *op = l.v[i];
    ap a;
    ap_init(&a, op, op->results[0].type);
    kiln_value *r = expand(&a, op);
    kiln_value_replace_all_uses(&op->results[0], r);
    kiln_op_erase(op);
  }
  free(l.v);
  return NULL;
}

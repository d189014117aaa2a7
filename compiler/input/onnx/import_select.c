/* Selection family, whose output sizes depend on data: Compress, NonZero,
 * Unique, NonMaxSuppression.
 *
 * Takes: nodes of those ops. Guarantees: when the data that decides the
 * size is an import-time constant (Compress's condition, NonZero's
 * input), the result is computed here (Compress: a gather of the kept
 * positions; NonZero: a constant); otherwise the error kind is "dynamic"
 * (the output's shape would be known only at run time), naming what
 * decides it. */
#include "import_internal.h"

typedef struct { kiln_value *x; uint32_t axis; } take_user;

/* out[.., k, ..] = x[.., idx[k], ..]; idx (index table) is input 0 */
static bool take_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  take_user *t = u;
  const kiln_type *xt = t->x->type, *it = kiln_type_index(b->ctx);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = t->x;
  for (uint32_t d = 0; d < xt->rank; d++)
    ops[1 + d] = d == t->axis ? kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &a[0], 1, &it, NULL), 0)
                              : oi_loop_index(b, d);
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, xt->rank + 1, ops, 1, &xt->elem, NULL), 0);
  return true;
}

bool oi_import_compress(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *cv = x ? oi_in(c, n, 1) : NULL;
  if (!cv || !oi_check_type(c, cv, OI_T_BOOL, "condition")) return false;
  if (cv->type->rank != 1) return oi_invalid(c, "condition must be 1-D");
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  uint32_t ax = 0;
  if (oi_attr(n, "axis")) {
    int64_t axis;
    if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_axis(c, axis, x->type->rank, "axis", &ax)) return false;
  } else { /* no axis: the flattened input */
    int64_t total = oi_numel(x->type);
    xv = oi_reshape(c, xv, 1, &total);
  }
  int64_t *keep, cnt;
  if (!oi_const_ints(c, cv, "input 1 (condition)", &keep, &cnt)) return false;
  const kiln_type *t = xv->type;
  if (cnt > t->shape[ax])
    return oi_invalid(c, "condition has %lld entries for an axis of %lld", (long long)cnt, (long long)t->shape[ax]);
  int64_t *idx = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *idx), k = 0;
  for (int64_t i = 0; i < cnt; i++)
    if (keep[i]) idx[k++] = i;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = d == ax ? k : t->shape[d];
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  kiln_value *out = oi_empty(c, rt);
  if (oi_numel(rt) > 0) {
    kiln_value *tab = kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 1, &k, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), idx));
    int64_t ad = ax;
    const kiln_affine_map *maps[2] = {oi_map_dims(c, t->rank, 1, &ad), kiln_affine_map_identity(c->ctx, t->rank)};
    take_user tu = {xv, ax};
    kiln_op *g = oi_generic(c, 1, &tab, 1, &out, maps, t->rank, NULL, take_body, &tu);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, x->dtype);
  return true;
}

bool oi_import_nonzero(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (!oi_const(c, x))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the number of non-zero elements of input 0 decides the output's "
                                             "shape, and input 0 is computed at run time (dynamic shapes)");
  double *v;
  int64_t cnt;
  if (!oi_const_floats(c, x, "input 0", &v, &cnt)) return false;
  uint32_t r = x->type->rank;
  int64_t nz = 0;
  for (int64_t i = 0; i < cnt; i++) nz += v[i] != 0;
  int64_t shape[2] = {r, nz};
  int64_t *out = kiln_alloc(c->ctx, (size_t)(r * nz + 1) * sizeof *out), k = 0;
  for (int64_t i = 0; i < cnt; i++) {
    if (v[i] == 0) continue;
    int64_t rem = i;
    for (int d = (int)r - 1; d >= 0; d--) {
      int64_t sz = x->type->shape[d];
      out[d * nz + k] = rem % sz;
      rem /= sz;
    }
    k++;
  }
  int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 2, shape, I64), out), I64);
  return true;
}

/* Unique and NonMaxSuppression: how many elements / boxes survive is the
 * output's length. */
bool oi_import_data_sized(oi_ctx *c, oi_node *n) {
  return oi_fail(c, KILN_ONNX_ERR_DYNAMIC,
                 "the output's length depends on the input values (%s); dynamic shapes are needed", n->op_type);
}

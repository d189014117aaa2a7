/* Values computed from positions: EyeLike and OneHot.
 *
 * Takes: nodes of those ops; OneHot's depth must be a constant or a
 * graph input (it decides the output's shape: "dynamic" otherwise), read
 * then on the host (an integer, or an f32's bits: its floor). Guarantees: one
 * linalg.generic over the output whose body compares loop indices (and,
 * for OneHot, the index read from `indices`, negative ones counted from
 * depth; out-of-range indices give a row of off values, as ONNX says). */
#include "import_internal.h"

typedef struct { int64_t k; } eye_user;

static bool eye_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  eye_user *e = u;
  const kiln_type *et = a[0]->type, *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *d = oi_op2(b, KILN_OP_ARITH_SUBI, oi_loop_index_i64(b, 1), oi_loop_index_i64(b, 0));
  y[0] = oi_select(b, oi_cmpi(b, OI_EQ, d, oi_scalar(b, i64, 0, e->k)), oi_scalar(b, et, 1, 1), oi_scalar(b, et, 0, 0));
  return true;
}

bool oi_import_eyelike(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"dtype", "k", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (x->type->rank != 2) return oi_invalid(c, "input must be 2-D, has rank %u", x->type->rank);
  int64_t dt, k;
  if (!oi_attr_int(c, n, "dtype", x->dtype, &dt) || !oi_attr_int(c, n, "k", 0, &k)) return false;
  if (dt < INT32_MIN || dt > INT32_MAX || !oi_elem_type(c, (int32_t)dt))
    return oi_unsupported(c, "dtype %s", oi_dtype_name((int32_t)dt));
  const kiln_type *t = oi_tensor_type(c, 2, x->type->shape, (int32_t)dt);
  kiln_value *out = oi_empty(c, t);
  if (oi_numel(t) > 0) {
    eye_user e = {k};
    const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, 2);
    kiln_op *g = oi_generic(c, 0, NULL, 1, &out, &m, 2, NULL, eye_body, &e);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, (int32_t)dt);
  return true;
}

typedef struct {
  uint32_t axis;
  int64_t depth;
  int32_t idt;
  kiln_value *values, *dhost; /* dhost: the depth read from data, or NULL */
} onehot_user;

static bool onehot_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  onehot_user *o = u;
  const kiln_type *i64 = kiln_type_int(b->ctx, 64), *it = kiln_type_index(b->ctx);
  int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  kiln_value *idx = oi_convert(b, a[0], o->idt, I64, i64);
  kiln_value *neg = oi_cmpi(b, OI_SLT, idx, oi_scalar(b, i64, 0, 0));
  kiln_value *depth = o->dhost ? kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &o->dhost, 1, &i64, NULL), 0)
                               : oi_scalar(b, i64, 0, o->depth);
  idx = oi_select(b, neg, oi_op2(b, KILN_OP_ARITH_ADDI, idx, depth), idx);
  kiln_value *hit = oi_cmpi(b, OI_EQ, idx, oi_loop_index_i64(b, o->axis));
  const kiln_type *et = o->values->type->elem;
  kiln_value *pos[2];
  for (int i = 0; i < 2; i++) {
    kiln_value *ops[2] = {o->values, oi_scalar(b, it, 0, i)};
    pos[i] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 2, ops, 1, &et, NULL), 0);
  }
  y[0] = oi_select(b, hit, pos[1], pos[0]);
  return true;
}

bool oi_import_onehot(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *iv = oi_in(c, n, 0), *dv = iv ? oi_in(c, n, 1) : NULL, *vv = dv ? oi_in(c, n, 2) : NULL;
  if (!vv || !oi_check_type(c, iv, OI_T_NUM, "indices") || !oi_check_type(c, dv, OI_T_NUM, "depth")) return false;
  if (oi_numel(dv->type) != 1) return oi_invalid(c, "depth must hold one element");
  if (vv->type->rank != 1 || vv->type->shape[0] != 2) return oi_invalid(c, "values must be [off, on]");
  kiln_value *dhost = NULL, **bits;
  if (dv->sym) dhost = dv->sym[0];
  else if (dv->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && (bits = oi_float_bits(c, dv)))
    dhost = oi_f32_scaled(c, bits[0], 1);
  double *d;
  int64_t cnt, depth = 0;
  if (!dhost && !oi_const_floats(c, dv, "input 1 (depth)", &d, &cnt)) return false;
  if (!dhost) depth = (int64_t)d[0];
  if (!dhost && !oi_size_ok(c, depth, 1, "depth")) return false;
  const kiln_type *t = iv->type;
  uint32_t r = t->rank + 1, ax;
  if (r > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", r, OI_MAX_RANK);
  int64_t axis;
  if (!oi_attr_int(c, n, "axis", -1, &axis) || !oi_axis(c, axis, r, "axis", &ax)) return false;
  int64_t shape[OI_MAX_RANK], dims[OI_MAX_RANK];
  kiln_value *dyn[OI_MAX_RANK];
  for (uint32_t o = 0, k = 0; o < r; o++) {
    shape[o] = o == ax ? (dhost ? KILN_DYNAMIC : depth) : t->shape[k];
    dyn[o] = o == ax ? dhost : NULL;
    if (o != ax) dims[k++] = o;
  }
  if (dhost) oi_check_shape(c, r, shape, dyn, oi_elem_type(c, vv->dtype));
  else if (!oi_dims_ok(c, r, shape, "result")) return false;
  if (dhost && oi_has_dyn(t)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "indices have run-time dims");
  const kiln_type *rt = oi_tensor_type(c, r, shape, vv->dtype);
  onehot_user o = {ax, depth, iv->dtype, oi_ir(c, vv), dhost};
  kiln_value *in = oi_ir(c, iv), *out = dhost ? oi_empty_dims(c, rt, &dhost) : oi_empty(c, rt);
  if (!o.values || !in) return false;
  if (oi_numel(rt) != 0) { /* -1: run-time depth */
    const kiln_affine_map *maps[2] = {oi_map_dims(c, r, t->rank, dims), kiln_affine_map_identity(c->ctx, r)};
    kiln_op *g = oi_generic(c, 1, &in, 1, &out, maps, r, NULL, onehot_body, &o);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, vv->dtype);
  return true;
}

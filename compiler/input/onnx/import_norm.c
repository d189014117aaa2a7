/* Normalizations: BatchNormalization (inference), InstanceNormalization,
 * LayerNormalization.
 *
 * Takes: float inputs. Guarantees: statistics are reductions (oi_reduce)
 * and the normalization one broadcasting elementwise generic per step:
 * y = (x - mean) * rsqrt(var + eps) * scale + bias, with scale/bias/mean/
 * var reshaped so they broadcast along the channel (or trailing) dims. */
#include "import_internal.h"

typedef struct { double eps; } norm_user;

/* a0 = x, a1 = mean, a2 = var, a3 = scale, a4 = bias */
static bool norm_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  norm_user *nu = u;
  kiln_value *x = a[0];
  kiln_value *d = oi_op2(b, KILN_OP_ARITH_SUBF, x, a[1]);
  kiln_value *v = oi_op2(b, KILN_OP_ARITH_ADDF, a[2], oi_scalar(b, x->type, nu->eps, 0));
  kiln_value *r = oi_op2(b, KILN_OP_ARITH_DIVF, d, oi_op1(b, KILN_OP_MATH_SQRT, v));
  r = oi_op2(b, KILN_OP_ARITH_MULF, r, a[3]);
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, r, a[4]);
  return true;
}

static bool invstd_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  norm_user *nu = u;
  kiln_value *v = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], oi_scalar(b, a[0]->type, nu->eps, 0));
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, oi_scalar(b, a[0]->type, 1, 0), oi_op1(b, KILN_OP_MATH_SQRT, v));
  return true;
}

static bool sqdiff_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  kiln_value *d = oi_op2(b, KILN_OP_ARITH_SUBF, a[0], a[1]);
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, d, d);
  return true;
}

static bool scale_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  double *k = u;
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, a[0], oi_scalar(b, a[0]->type, *k, 0));
  return true;
}

/* v (1-D of size x.shape[axis]) reshaped to broadcast along axis of x. */
static kiln_value *along(oi_ctx *c, oi_val *v, const kiln_type *x, uint32_t axis) {
  kiln_value *r = oi_ir(c, v);
  if (!r) return NULL;
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0; d < x->rank; d++) s[d] = d == axis ? x->shape[d] : 1;
  return oi_reshape(c, r, x->rank, s);
}

/* Mean and variance over `axes` (keepdims), population variance. */
static bool moments(oi_ctx *c, kiln_value *x, int32_t dtype, const bool *axes, kiln_value **mean,
                    kiln_value **var) {
  const kiln_type *t = x->type;
  double cnt = 1;
  for (uint32_t d = 0; d < t->rank; d++)
    if (axes[d]) cnt *= (double)t->shape[d];
  double inv = cnt > 0 ? 1.0 / cnt : 0;
  kiln_value *s = oi_reduce(c, x, dtype, axes, true, OI_RED_SUM);
  if (!s) return false;
  *mean = oi_elementwise_ir(c, 1, &s, t->rank, s->type->shape, t->elem, scale_body, &inv);
  if (!*mean) return false;
  kiln_value *ins[2] = {x, *mean};
  kiln_value *sq = oi_elementwise_ir(c, 2, ins, t->rank, t->shape, t->elem, sqdiff_body, NULL);
  kiln_value *ss = sq ? oi_reduce(c, sq, dtype, axes, true, OI_RED_SUM) : NULL;
  if (!ss) return false;
  *var = oi_elementwise_ir(c, 1, &ss, t->rank, ss->type->shape, t->elem, scale_body, &inv);
  return *var != NULL;
}

static bool check_1d(oi_ctx *c, oi_val *v, int64_t size, const char *what) {
  if (v->type->rank != 1 || v->type->shape[0] != size)
    return oi_invalid(c, "%s must be 1-D of size %lld", what, (long long)size);
  return true;
}

bool oi_import_batchnorm(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"epsilon", "momentum", "training_mode", NULL};
  if (!oi_arity(c, n, 5, 5, 1, 3) || !oi_attrs_only(c, n, known)) return false;
  oi_val *v[5];
  for (size_t i = 0; i < 5; i++)
    if (!(v[i] = oi_in(c, n, i))) return false;
  if (!oi_check_type(c, v[0], OI_T_FLOAT, "input 0")) return false;
  for (size_t i = 1; i < 5; i++)
    if (v[i]->dtype != v[0]->dtype) return oi_unsupported(c, "input %zu of another element type than X", i);
  norm_user nu;
  int64_t training;
  if (!oi_attr_float(c, n, "epsilon", 1e-5, &nu.eps) || !oi_attr_int(c, n, "training_mode", 0, &training))
    return false;
  if (training || oi_has_out(n, 1) || oi_has_out(n, 2)) return oi_unsupported(c, "training mode (inference only)");
  const kiln_type *t = v[0]->type;
  if (t->rank < 2) return oi_invalid(c, "X must have rank >= 2");
  int64_t C = t->shape[1];
  static const char *const names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; i++)
    if (!check_1d(c, v[i], C, names[i])) return false;
  kiln_value *ins[5] = {oi_ir(c, v[0]), along(c, v[3], t, 1), along(c, v[4], t, 1), along(c, v[1], t, 1),
                        along(c, v[2], t, 1)};
  for (int i = 0; i < 5; i++)
    if (!ins[i]) return false;
  kiln_value *r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, &nu);
  if (!r) return false;
  oi_set_out(c, n, 0, r, v[0]->dtype);
  return true;
}

bool oi_import_instancenorm(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"epsilon", NULL};
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *sc = x ? oi_in(c, n, 1) : NULL, *bi = sc ? oi_in(c, n, 2) : NULL;
  if (!bi || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  norm_user nu;
  if (!oi_attr_float(c, n, "epsilon", 1e-5, &nu.eps)) return false;
  const kiln_type *t = x->type;
  if (t->rank < 3) return oi_invalid(c, "input rank %u < 3", t->rank);
  if (!check_1d(c, sc, t->shape[1], "scale") || !check_1d(c, bi, t->shape[1], "B")) return false;
  bool axes[OI_MAX_RANK] = {0};
  for (uint32_t d = 2; d < t->rank; d++) axes[d] = true;
  kiln_value *xv = oi_ir(c, x), *mean, *var;
  if (!xv || !moments(c, xv, x->dtype, axes, &mean, &var)) return false;
  kiln_value *ins[5] = {xv, mean, var, along(c, sc, t, 1), along(c, bi, t, 1)};
  if (!ins[3] || !ins[4]) return false;
  kiln_value *r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, &nu);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

bool oi_import_layernorm(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "epsilon", "stash_type", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 3) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *sc = x ? oi_in(c, n, 1) : NULL, *bi = oi_opt_in(n, 2);
  if (!sc || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  norm_user nu;
  int64_t axis, stash;
  uint32_t ax;
  const kiln_type *t = x->type;
  if (!oi_attr_float(c, n, "epsilon", 1e-5, &nu.eps) || !oi_attr_int(c, n, "axis", -1, &axis) ||
      !oi_attr_int(c, n, "stash_type", 1, &stash) || !oi_axis(c, axis, t->rank, "axis", &ax))
    return false;
  bool axes[OI_MAX_RANK] = {0};
  for (uint32_t d = ax; d < t->rank; d++) axes[d] = true;
  kiln_value *xv = oi_ir(c, x), *mean, *var;
  if (!xv || !moments(c, xv, x->dtype, axes, &mean, &var)) return false;
  /* Mean and InvStdDev are of the stash type (f32 = 1) */
  if ((oi_has_out(n, 1) || oi_has_out(n, 2)) &&
      (stash != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT))
    return oi_unsupported(c, "Mean/InvStdDev outputs other than f32 (X is %s, stash_type %lld)",
                          oi_dtype_name(x->dtype), (long long)stash);
  oi_set_out(c, n, 1, mean, x->dtype);
  if (oi_has_out(n, 2)) {
    kiln_value *inv = oi_elementwise_ir(c, 1, &var, t->rank, var->type->shape, t->elem, invstd_body, &nu);
    if (!inv) return false;
    oi_set_out(c, n, 2, inv, x->dtype);
  }
  oi_val *ps[2] = {sc, bi};
  kiln_value *pv[2];
  for (int i = 0; i < 2; i++) {
    if (!ps[i]) {
      pv[i] = kiln_build_constant(&c->b, kiln_attr_dense_splat_float(c->ctx, kiln_type_tensor(c->ctx, 0, NULL, t->elem, NULL), 0));
      continue;
    }
    oi_val tmp = {.type = t};
    oi_val *vs[2] = {&tmp, ps[i]};
    uint32_t rr;
    int64_t sh[OI_MAX_RANK];
    if (!oi_broadcast_shape(c, 2, vs, &rr, sh) || rr != t->rank)
      return oi_invalid(c, "%s does not broadcast to X", i ? "B" : "scale");
    if (!(pv[i] = oi_ir(c, ps[i]))) return false;
  }
  kiln_value *ins[5] = {xv, mean, var, pv[0], pv[1]};
  kiln_value *r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, &nu);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

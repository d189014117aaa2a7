/* Normalizations: BatchNormalization (inference and training mode; the
 * per-activation form of BatchNormalization-7's spatial = 0),
 * InstanceNormalization, LayerNormalization.
 *
 * Takes: float inputs. Guarantees: statistics are reductions (oi_reduce)
 * and the normalization one broadcasting elementwise generic per step:
 * y = (x - mean) * rsqrt(var + eps) * scale + bias, with scale/bias/mean/
 * var reshaped so they broadcast along the channel (or trailing) dims. */
#include "import_internal.h"

#include <math.h>

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

static bool blend_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  double *m = u; /* running * momentum + batch * (1 - momentum) */
  const kiln_type *t = a[0]->type;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, a[0], oi_scalar(b, t, *m, 0)),
                oi_op2(b, KILN_OP_ARITH_MULF, a[1], oi_scalar(b, t, 1 - *m, 0)));
  return true;
}

/* Training mode: the batch's mean and (population) variance over every
 * axis but 1 normalize X; outputs 1 and 2 are the running statistics
 * blended with them by momentum. */
static bool batchnorm_training(oi_ctx *c, oi_node *n, oi_val *const *v, norm_user *nu) {
  const kiln_type *t = v[0]->type;
  int64_t C = t->shape[1];
  double mom;
  if (!oi_attr_float(c, n, "momentum", 0.9, &mom)) return false;
  bool axes[OI_MAX_RANK] = {0};
  for (uint32_t d = 0; d < t->rank; d++) axes[d] = d != 1;
  kiln_value *xv = oi_ir(c, v[0]), *mean, *var;
  if (!xv || !moments(c, xv, v[0]->dtype, axes, &mean, &var)) return false;
  kiln_value *ins[5] = {xv, mean, var, along(c, v[1], t, 1), along(c, v[2], t, 1)};
  if (!ins[3] || !ins[4]) return false;
  kiln_value *r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, nu);
  if (!r) return false;
  oi_set_out(c, n, 0, r, v[0]->dtype);
  for (size_t k = 1; k < 3; k++) {
    if (!oi_has_out(n, k)) continue;
    kiln_value *run = oi_ir(c, v[2 + k]);
    kiln_value *pair[2] = {run, oi_reshape(c, k == 1 ? mean : var, 1, &C)};
    kiln_value *o = run ? oi_elementwise_ir(c, 2, pair, 1, &C, t->elem, blend_body, &mom) : NULL;
    if (!o) return false;
    oi_set_out(c, n, k, o, v[0]->dtype);
  }
  return true;
}

static bool affine_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, a[0], a[1]), a[2]);
  return true;
}

/* Inference with constant scale, B, mean and var (every exported CNN's
 * pre-activation BatchNorm: DenseNet's before each 1x1, whose input no
 * convolution can absorb) folds here to one per-channel affine,
 * y = x * k + d with k = scale / sqrt(var + eps) and d = B - mean * k
 * computed in double: the per-element subtract, square root and divide
 * (vsqrtps and vdivps, ~10 cycles a vector each on Zen 4) become one
 * multiply-add. It rounds as ONNX Runtime's BatchNormalization, which
 * folds the same way (x * k against (x - mean) * k: they differ by
 * ~1 ulp of mean * k). f32 and f64 only: in f16 the rounded k and d
 * would cost more than the order of the operations. 1 done, 0 not that
 * form (nothing built), -1 error. */
static int batchnorm_folded(oi_ctx *c, oi_node *n, oi_val *const *v, double eps) {
  const kiln_type *t = v[0]->type;
  if (v[0]->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && v[0]->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE)
    return 0;
  const kiln_attr *p[4];
  for (size_t i = 0; i < 4; i++)
    if (!(p[i] = oi_const(c, v[1 + i]))) return 0;
  int64_t C = t->shape[1];
  double *k = kiln_alloc(c->ctx, (size_t)C * 2 * sizeof *k), *d = k + C;
  for (int64_t i = 0; i < C; i++) {
    k[i] = kiln_dense_get_float(p[0], i) / sqrt(kiln_dense_get_float(p[3], i) + eps);
    d[i] = kiln_dense_get_float(p[1], i) - kiln_dense_get_float(p[2], i) * k[i];
  }
  int64_t s[OI_MAX_RANK];
  for (uint32_t i = 0; i < t->rank; i++) s[i] = i == 1 ? C : 1;
  kiln_value *ins[3] = {oi_ir(c, v[0]), NULL, NULL};
  for (int i = 0; i < 2; i++) {
    const kiln_attr *a = oi_dense_floats(c, v[1]->type, i ? d : k);
    if (!a) return -1;
    ins[1 + i] = oi_reshape(c, kiln_build_constant(&c->b, a), t->rank, s);
  }
  if (!ins[0] || !ins[1] || !ins[2]) return -1;
  kiln_value *y = oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, affine_body, NULL);
  if (!y) return -1;
  oi_set_out(c, n, 0, y, v[0]->dtype);
  return 1;
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
  const kiln_type *t = v[0]->type;
  if (t->rank < 2) return oi_invalid(c, "X must have rank >= 2");
  int64_t C = t->shape[1];
  static const char *const names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; i++)
    if (!check_1d(c, v[i], C, names[i])) return false;
  if (training) return batchnorm_training(c, n, v, &nu);
  if (oi_has_out(n, 1) || oi_has_out(n, 2)) return oi_invalid(c, "outputs 1 and 2 are for training mode");
  int folded = batchnorm_folded(c, n, v, nu.eps);
  if (folded) return folded > 0;
  kiln_value *ins[5] = {oi_ir(c, v[0]), along(c, v[3], t, 1), along(c, v[4], t, 1), along(c, v[1], t, 1),
                        along(c, v[2], t, 1)};
  for (int i = 0; i < 5; i++)
    if (!ins[i]) return false;
  kiln_value *r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, &nu);
  if (!r) return false;
  oi_set_out(c, n, 0, r, v[0]->dtype);
  return true;
}

bool oi_batchnorm_per_activation(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 5, 5, 1, 5)) return false;
  for (size_t k = 1; k < n->nout; k++)
    if (oi_has_out(n, k)) return oi_unsupported(c, "training mode with spatial = 0");
  oi_val *v[5];
  for (size_t i = 0; i < 5; i++)
    if (!(v[i] = oi_in(c, n, i))) return false;
  if (!oi_check_type(c, v[0], OI_T_FLOAT, "input 0")) return false;
  norm_user nu;
  if (!oi_attr_float(c, n, "epsilon", 1e-5, &nu.eps)) return false;
  /* scale, B, mean, var are [C, D1, ...]: one value per activation,
   * broadcast over the batch */
  const kiln_type *t = v[0]->type;
  for (size_t i = 1; i < 5; i++) {
    bool ok = v[i]->dtype == v[0]->dtype && v[i]->type->rank + 1 == t->rank;
    for (uint32_t d = 0; ok && d + 1 < t->rank; d++) ok = v[i]->type->shape[d] == t->shape[d + 1];
    if (!ok) return oi_invalid(c, "with spatial = 0, input %zu must be X's shape without N", i);
  }
  kiln_value *ins[5] = {oi_ir(c, v[0]), oi_ir(c, v[3]), oi_ir(c, v[4]), oi_ir(c, v[1]), oi_ir(c, v[2])};
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

static bool mvn_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  kiln_value *d = oi_op2(b, KILN_OP_ARITH_SUBF, a[0], a[1]);
  kiln_value *sd = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op1(b, KILN_OP_MATH_SQRT, a[2]), oi_scalar(b, a[0]->type, 1e-9, 0));
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, d, sd);
  return true;
}

/* MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes`
 * (default 0, 2, 3), as ONNX's function body defines it. */
bool oi_import_mvn(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axes", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  const kiln_type *t = x->type;
  const int64_t *av;
  size_t na;
  static const int64_t def[3] = {0, 2, 3};
  if (!oi_attr_ints(c, n, "axes", &av, &na)) return false;
  if (!av) av = def, na = 3;
  bool axes[OI_MAX_RANK] = {0};
  for (size_t i = 0; i < na; i++) {
    uint32_t a;
    if (!oi_axis(c, av[i], t->rank, "axis", &a)) return false;
    axes[a] = true;
  }
  kiln_value *xv = oi_ir(c, x), *mean, *var;
  if (!xv || !moments(c, xv, x->dtype, axes, &mean, &var)) return false;
  kiln_value *ins[3] = {xv, mean, var};
  kiln_value *r = oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, mvn_body, NULL);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

typedef struct { double alpha, beta, bias; int64_t size; } lrn_user;

static bool sq_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, a[0], a[0]);
  return true;
}

static bool winsum_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[2], a[0]);
  return true;
}

static bool lrn_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  lrn_user *l = u;
  const kiln_type *et = a[0]->type;
  kiln_value *s = oi_op2(b, KILN_OP_ARITH_MULF, a[1], oi_scalar(b, et, l->alpha / (double)l->size, 0));
  s = oi_op2(b, KILN_OP_ARITH_ADDF, s, oi_scalar(b, et, l->bias, 0));
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, a[0], oi_op2(b, KILN_OP_MATH_POWF, s, oi_scalar(b, et, l->beta, 0)));
  return true;
}

/* LRN across channels: the squares are zero-padded along C and summed
 * over a window of `size` (a pooling-style generic), then
 * y = x / (bias + alpha/size * sum)^beta. */
bool oi_import_lrn(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"alpha", "beta", "bias", "size", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  lrn_user l;
  if (!oi_attr(n, "size")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'size' is required");
  if (!oi_attr_float(c, n, "alpha", 1e-4, &l.alpha) || !oi_attr_float(c, n, "beta", 0.75, &l.beta) ||
      !oi_attr_float(c, n, "bias", 1.0, &l.bias) || !oi_attr_int(c, n, "size", 1, &l.size) ||
      !oi_size_ok(c, l.size, 1, "size"))
    return false;
  const kiln_type *t = x->type;
  if (t->rank < 2 || t->rank + 1 > KILN_MAX_LOOPS) return oi_invalid(c, "input rank %u < 2", t->rank);
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  kiln_value *sq = oi_elementwise_ir(c, 1, &xv, t->rank, t->shape, t->elem, sq_body, NULL);
  if (!sq) return false;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  lo[1] = (l.size - 1) / 2, hi[1] = (l.size - 1) - lo[1];
  sq = oi_pad(c, sq, lo, hi, 0, 0);
  /* loops: x dims, then k over the window; squares read at c + k */
  uint32_t loops = t->rank + 1;
  kiln_context *ctx = c->ctx;
  const kiln_affine_expr *ei[OI_MAX_RANK], *eo[OI_MAX_RANK], *ek[1] = {kiln_affine_dim(ctx, t->rank)};
  for (uint32_t d = 0; d < t->rank; d++) {
    eo[d] = kiln_affine_dim(ctx, d);
    ei[d] = d == 1 ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, eo[d], ek[0]) : eo[d];
  }
  kiln_value *win = oi_empty(c, kiln_type_tensor(ctx, 1, &l.size, t->elem, NULL));
  kiln_value *ins[2] = {sq, win};
  const kiln_affine_map *maps[3] = {kiln_affine_map_get(ctx, loops, 0, t->rank, ei),
                                    kiln_affine_map_get(ctx, loops, 0, 1, ek),
                                    kiln_affine_map_get(ctx, loops, 0, t->rank, eo)};
  bool red[KILN_MAX_LOOPS] = {0};
  red[t->rank] = true;
  kiln_value *init = oi_filled(c, t, 0, 0);
  kiln_op *g = oi_generic(c, 2, ins, 1, &init, maps, loops, red, winsum_body, NULL);
  if (!g) return false;
  kiln_value *ins2[2] = {xv, kiln_op_result(g, 0)};
  kiln_value *r = oi_elementwise_ir(c, 2, ins2, t->rank, t->shape, t->elem, lrn_body, &l);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

/* ---- ONNX Runtime's normalizations: SimplifiedLayerNormalization (RMS,
 * the ONNX domain as ORT registers it), SkipLayerNormalization and
 * SkipSimplifiedLayerNormalization (com.microsoft): X (+ skip + bias)
 * normalized over the trailing axes. ---- */
static bool rms_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  norm_user *nu = u; /* a0 = x, a1 = mean of squares, a2 = scale */
  kiln_value *v = oi_op2(b, KILN_OP_ARITH_ADDF, a[1], oi_scalar(b, a[0]->type, nu->eps, 0));
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_DIVF, a[0], oi_op1(b, KILN_OP_MATH_SQRT, v)), a[2]);
  return true;
}

static bool sum_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  uint32_t *n = u;
  kiln_value *s = a[0];
  for (uint32_t i = 1; i < *n; i++) s = oi_op2(b, KILN_OP_ARITH_ADDF, s, a[i]);
  y[0] = s;
  return true;
}

/* A parameter broadcast to the normalized value T, or a splat of DEF. */
static kiln_value *param(oi_ctx *c, oi_val *p, const kiln_type *t, double def, const char *what) {
  if (!p) return kiln_build_constant(&c->b, kiln_attr_dense_splat_float(c->ctx, kiln_type_tensor(c->ctx, 0, NULL, t->elem, NULL), def));
  oi_val tmp = {.type = t};
  oi_val *vs[2] = {&tmp, p};
  uint32_t rr;
  int64_t sh[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, 2, vs, &rr, sh) || rr != t->rank) {
    oi_invalid(c, "%s does not broadcast to the input", what);
    return NULL;
  }
  if (!oi_dtype_is_float(p->dtype)) {
    oi_fail(c, KILN_ONNX_ERR_TYPE, "%s must be floating point", what);
    return NULL;
  }
  return oi_ir(c, p);
}

bool oi_import_layernorm_ort(oi_ctx *c, oi_node *n) {
  static const char *const simp[] = {"axis", "epsilon", "stash_type", NULL};
  static const char *const skip[] = {"epsilon", NULL};
  bool skipped = n->kind == OI_SKIP_LN || n->kind == OI_SKIP_RMS_LN;
  bool rms = n->kind == OI_RMS_LN || n->kind == OI_SKIP_RMS_LN;
  /* Simplified: X, scale -> Y[, inv_std]; Skip: input, skip, gamma[, beta (not RMS)][, bias]
   * -> output[, mean, inv_std, input_skip_bias_sum] */
  if (!oi_arity(c, n, skipped ? 3 : 2, skipped ? 5 : 2, 1, skipped ? 4 : 2) ||
      !oi_attrs_only(c, n, skipped ? skip : simp))
    return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  norm_user nu;
  int64_t axis = -1;
  uint32_t ax;
  const kiln_type *t = x->type;
  if (!oi_attr_float(c, n, "epsilon", skipped ? 1e-12 : 1e-5, &nu.eps) || (!skipped && !oi_attr_int(c, n, "axis", -1, &axis)) ||
      !oi_axis(c, axis, t->rank, "axis", &ax))
    return false;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  oi_val *gamma = oi_in(c, n, skipped ? 2 : 1), *beta = NULL, *bias = NULL;
  if (!gamma) return false;
  if (skipped) { /* X + skip (+ bias), the sum also an output */
    oi_val *sk = oi_in(c, n, 1);
    if (!sk) return false;
    beta = rms ? NULL : oi_opt_in(n, 3);
    bias = oi_opt_in(n, rms ? 3 : 4);
    kiln_value *ins[3] = {xv, param(c, sk, t, 0, "skip"), bias ? param(c, bias, t, 0, "bias") : NULL};
    uint32_t k = bias ? 3 : 2;
    if (!ins[1] || (bias && !ins[2])) return false;
    if (!(xv = oi_elementwise_ir(c, k, ins, t->rank, t->shape, t->elem, sum_body, &k))) return false;
    oi_set_out(c, n, 3, xv, x->dtype);
  }
  bool axes[OI_MAX_RANK] = {0};
  for (uint32_t d = ax; d < t->rank; d++) axes[d] = true;
  kiln_value *g = param(c, gamma, t, 1, "scale"), *r;
  if (!g) return false;
  if (rms) {
    double cnt = 1;
    for (uint32_t d = ax; d < t->rank; d++) cnt *= (double)t->shape[d];
    double inv = cnt > 0 ? 1.0 / cnt : 0;
    kiln_value *sq = oi_elementwise_ir(c, 1, &xv, t->rank, t->shape, t->elem, sq_body, NULL);
    kiln_value *ss = sq ? oi_reduce(c, sq, x->dtype, axes, true, OI_RED_SUM) : NULL;
    kiln_value *ms = ss ? oi_elementwise_ir(c, 1, &ss, t->rank, ss->type->shape, t->elem, scale_body, &inv) : NULL;
    if (!ms) return false;
    kiln_value *ins[3] = {xv, ms, g};
    r = oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, rms_body, &nu);
    if (oi_has_out(n, skipped ? 2 : 1)) {
      kiln_value *iv = oi_elementwise_ir(c, 1, &ms, t->rank, ms->type->shape, t->elem, invstd_body, &nu);
      if (!iv) return false;
      oi_set_out(c, n, skipped ? 2 : 1, iv, x->dtype);
    }
  } else {
    kiln_value *mean, *var, *bv = param(c, beta, t, 0, "beta");
    if (!bv || !moments(c, xv, x->dtype, axes, &mean, &var)) return false;
    kiln_value *ins[5] = {xv, mean, var, g, bv};
    r = oi_elementwise_ir(c, 5, ins, t->rank, t->shape, t->elem, norm_body, &nu);
    oi_set_out(c, n, 1, mean, x->dtype);
    if (oi_has_out(n, 2)) {
      kiln_value *iv = oi_elementwise_ir(c, 1, &var, t->rank, var->type->shape, t->elem, invstd_body, &nu);
      if (!iv) return false;
      oi_set_out(c, n, 2, iv, x->dtype);
    }
  }
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

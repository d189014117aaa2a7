/* Optimizer steps of ai.onnx.preview.training: Adagrad, Adam, Momentum
 * (standard and nesterov).
 *
 * Takes: the learning rate R and step count T (scalars, run-time values
 * as well), then per optimized tensor X, its gradient G and the state
 * (Adagrad: H; Momentum: V; Adam: V and H), each group of equal shape.
 * Guarantees: one elementwise generic per tensor, reading R and T as
 * scalars, computing the new X and states as ONNX's reference does
 * (the regularized gradient norm_coefficient * X + G; Adagrad's learning
 * rate R / (1 + T decay_factor); Momentum's gradient weight 1 at T = 0;
 * Adam's bias correction sqrt(1 - beta^T) / (1 - alpha^T) from T > 0). */
#include <string.h>

#include "import_internal.h"

enum { OPT_ADAGRAD, OPT_ADAM, OPT_MOMENTUM, OPT_NESTEROV };

typedef struct {
  int kind;
  double norm, norm_post, alpha, beta, eps, decay;
} opt_user;

/* a0 = R, a1 = T, a2 = X, a3 = G, then V and/or H; outputs X', then V'/H' */
static bool opt_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  opt_user *o = u;
  kiln_value *x = a[2];
  const kiln_type *ft = x->type;
#define K(v) oi_scalar(b, ft, (v), 0)
#define ADD(p, q) oi_op2(b, KILN_OP_ARITH_ADDF, p, q)
#define SUB(p, q) oi_op2(b, KILN_OP_ARITH_SUBF, p, q)
#define MUL(p, q) oi_op2(b, KILN_OP_ARITH_MULF, p, q)
#define DIV(p, q) oi_op2(b, KILN_OP_ARITH_DIVF, p, q)
  kiln_value *r = oi_convert(b, a[0], ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ft);
  kiln_value *t = oi_convert(b, a[1], ONNX__TENSOR_PROTO__DATA_TYPE__INT64, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ft);
  kiln_value *pos = oi_cmpf(b, OI_F_OGT, t, K(0));
  kiln_value *g = ADD(MUL(K(o->norm), x), a[3]);
  switch (o->kind) {
  case OPT_ADAGRAD: {
    kiln_value *rr = DIV(r, ADD(K(1), MUL(t, K(o->decay))));
    kiln_value *h = ADD(a[4], MUL(g, g));
    kiln_value *hs = ADD(oi_op1(b, KILN_OP_MATH_SQRT, h), K(o->eps));
    y[0] = SUB(x, DIV(MUL(rr, g), hs));
    y[1] = h;
    break;
  }
  case OPT_ADAM: {
    kiln_value *v = ADD(MUL(K(o->alpha), a[4]), MUL(K(1 - o->alpha), g));
    kiln_value *h = ADD(MUL(K(o->beta), a[5]), MUL(K(1 - o->beta), MUL(g, g)));
    kiln_value *hs = ADD(oi_op1(b, KILN_OP_MATH_SQRT, h), K(o->eps));
    kiln_value *bt = oi_op2(b, KILN_OP_MATH_POWF, K(o->beta), t), *at = oi_op2(b, KILN_OP_MATH_POWF, K(o->alpha), t);
    kiln_value *radj = DIV(MUL(r, oi_op1(b, KILN_OP_MATH_SQRT, SUB(K(1), bt))), SUB(K(1), at));
    kiln_value *xn = SUB(x, MUL(oi_select(b, pos, radj, r), DIV(v, hs)));
    y[0] = MUL(K(1 - o->norm_post), xn);
    y[1] = v;
    y[2] = h;
    break;
  }
  default: { /* momentum, nesterov */
    kiln_value *bw = oi_select(b, pos, K(o->beta), K(1));
    kiln_value *v = ADD(MUL(K(o->alpha), a[4]), MUL(bw, g));
    kiln_value *step = o->kind == OPT_NESTEROV ? ADD(g, MUL(K(o->alpha), v)) : v;
    y[0] = SUB(x, MUL(r, step));
    y[1] = v;
    break;
  }
  }
#undef K
#undef ADD
#undef SUB
#undef MUL
#undef DIV
  return true;
}

bool oi_import_optimizer(oi_ctx *c, oi_node *n) {
  static const char *const ada[] = {"decay_factor", "epsilon", "norm_coefficient", NULL};
  static const char *const adam[] = {"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post", NULL};
  static const char *const mom[] = {"alpha", "beta", "mode", "norm_coefficient", NULL};
  opt_user o = {.kind = n->kind == OI_ADAGRAD ? OPT_ADAGRAD : n->kind == OI_ADAM ? OPT_ADAM : OPT_MOMENTUM};
  if (!oi_attrs_only(c, n, o.kind == OPT_ADAGRAD ? ada : o.kind == OPT_ADAM ? adam : mom)) return false;
  size_t per = o.kind == OPT_ADAM ? 4 : 3; /* X, G and the states */
  if (n->nin < 2 + per || (n->nin - 2) % per) return oi_invalid(c, "expects R, T and groups of %zu inputs", per);
  size_t k = (n->nin - 2) / per, nout = per - 1;
  if (n->nout != k * nout) return oi_invalid(c, "expects %zu outputs for %zu tensors, has %zu", k * nout, k, n->nout);
  if (!oi_attr_float(c, n, "norm_coefficient", 0, &o.norm) || !oi_attr_float(c, n, "epsilon", 1e-6, &o.eps) ||
      !oi_attr_float(c, n, "decay_factor", 0, &o.decay) || !oi_attr_float(c, n, "norm_coefficient_post", 0, &o.norm_post))
    return false;
  if (o.kind == OPT_ADAM && (!oi_attr_float(c, n, "alpha", 0.9, &o.alpha) || !oi_attr_float(c, n, "beta", 0.999, &o.beta)))
    return false;
  if (o.kind == OPT_MOMENTUM) {
    const char *mode;
    if (!oi_attr_float(c, n, "alpha", 0, &o.alpha) || !oi_attr_float(c, n, "beta", 0, &o.beta) ||
        !oi_attr_string(c, n, "mode", "standard", &mode))
      return false;
    if (!oi_attr(n, "alpha") || !oi_attr(n, "beta") || !oi_attr(n, "mode"))
      return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attributes 'alpha', 'beta' and 'mode' are required");
    if (strcmp(mode, "nesterov") == 0) o.kind = OPT_NESTEROV;
    else if (strcmp(mode, "standard") != 0) return oi_invalid(c, "mode '%s' (standard or nesterov)", mode);
  }
  oi_val *r = oi_in(c, n, 0), *t = r ? oi_in(c, n, 1) : NULL;
  if (!t) return false;
  if (oi_numel(r->type) != 1 || !oi_dtype_is_float(r->dtype)) return oi_invalid(c, "R must be one float");
  if (oi_numel(t->type) != 1 || t->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_invalid(c, "T must be one int64");
  kiln_value *rv = oi_ir(c, r), *tv = oi_ir(c, t);
  if (!rv || !tv) return false;
  rv = oi_cast_tensor(c, oi_reshape(c, rv, 0, NULL), r->dtype, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  tv = oi_reshape(c, tv, 0, NULL);
  for (size_t i = 0; i < k; i++) {
    oi_val *x = oi_in(c, n, 2 + i);
    if (!x || !oi_check_type(c, x, OI_T_FLOAT, "X")) return false;
    const kiln_type *xt = x->type;
    kiln_value *ins[6] = {rv, tv};
    for (size_t j = 0; j < per; j++) {
      oi_val *v = oi_in(c, n, 2 + j * k + i);
      if (!v) return false;
      if (v->dtype != x->dtype || v->type != xt) return oi_invalid(c, "input %zu differs from its X in type", 2 + j * k + i);
      if (!(ins[2 + j] = oi_ir(c, v))) return false;
    }
    kiln_value *outs[3];
    const kiln_affine_map *id = kiln_affine_map_identity(c->ctx, xt->rank), *sc = oi_map_dims(c, xt->rank, 0, NULL);
    const kiln_affine_map *maps[9] = {sc, sc};
    for (size_t j = 2; j < 2 + per + nout; j++) maps[j] = id;
    for (size_t j = 0; j < nout; j++) outs[j] = oi_empty(c, xt);
    if (oi_numel(xt) > 0) {
      kiln_op *g = oi_generic(c, (uint32_t)(2 + per), ins, (uint32_t)nout, outs, maps, xt->rank, NULL, opt_body, &o);
      if (!g) return false;
      for (size_t j = 0; j < nout; j++) outs[j] = kiln_op_result(g, (uint32_t)j);
    }
    for (size_t j = 0; j < nout; j++) oi_set_out(c, n, j * k + i, outs[j], x->dtype);
  }
  return true;
}

/* ONNX Runtime's contrib operators that its exporters and graph optimizer
 * write (domain com.microsoft): Gelu, FastGelu, BiasGelu, QuickGelu,
 * FusedMatMul / TransposeMatMul, FusedConv, FusedGemm (the layer
 * normalizations are in import_norm.c).
 *
 * Takes: nodes of those ops with ORT's attributes (FusedMatMul's alpha,
 * transA, transB; the fused activations' names and activation_params).
 * Guarantees: each is the composition ORT defines, built from the
 * importer's own pieces (elementwise bodies, oi_matmul_ir, oi_conv_ir);
 * an activation or attribute ORT has but this file does not is refused
 * by name. Any other com.microsoft operator is "operator not supported",
 * naming the node, the op and the domain. */
#include <string.h>

#include "import_internal.h"

#define SQRT_2_OVER_PI 0.7978845608028654
#define SQRT_HALF 0.7071067811865476

enum { G_ERF, G_TANH, G_QUICK };

typedef struct { int form; double alpha; bool bias; } gelu_user;

/* a0 = x, a1 = bias (optional) */
static bool gelu_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  gelu_user *g = u;
  kiln_value *x = g->bias ? oi_op2(b, KILN_OP_ARITH_ADDF, a[0], a[1]) : a[0];
  const kiln_type *t = x->type;
  kiln_value *one = oi_scalar(b, t, 1, 0), *inner;
  if (g->form == G_QUICK) { /* x * sigmoid(alpha x) */
    kiln_value *e = oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, oi_op2(b, KILN_OP_ARITH_MULF, x, oi_scalar(b, t, g->alpha, 0))));
    y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, x, oi_op2(b, KILN_OP_ARITH_ADDF, one, e));
    return true;
  }
  if (g->form == G_TANH) {
    kiln_value *x3 = oi_op2(b, KILN_OP_ARITH_MULF, x, oi_op2(b, KILN_OP_ARITH_MULF, x, x));
    inner = oi_op1(b, KILN_OP_MATH_TANH, oi_op2(b, KILN_OP_ARITH_MULF, oi_scalar(b, t, SQRT_2_OVER_PI, 0),
                                                 oi_op2(b, KILN_OP_ARITH_ADDF, x, oi_op2(b, KILN_OP_ARITH_MULF,
                                                                                         oi_scalar(b, t, 0.044715, 0), x3))));
  } else {
    inner = oi_op1(b, KILN_OP_MATH_ERF, oi_op2(b, KILN_OP_ARITH_MULF, x, oi_scalar(b, t, SQRT_HALF, 0)));
  }
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_MULF, oi_scalar(b, t, 0.5, 0), x),
                oi_op2(b, KILN_OP_ARITH_ADDF, one, inner));
  return true;
}

bool oi_import_ms_gelu(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL}, *const quick[] = {"alpha", NULL};
  gelu_user g = {n->kind == OI_MS_FAST_GELU ? G_TANH : n->kind == OI_MS_QUICK_GELU ? G_QUICK : G_ERF, 1.702, false};
  size_t max_in = n->kind == OI_MS_GELU || n->kind == OI_MS_QUICK_GELU ? 1 : 2, min_in = n->kind == OI_MS_BIAS_GELU ? 2 : 1;
  if (!oi_arity(c, n, min_in, max_in, 1, 1) || !oi_attrs_only(c, n, g.form == G_QUICK ? quick : none)) return false;
  if (g.form == G_QUICK && !oi_attr_float(c, n, "alpha", 1.702, &g.alpha)) return false;
  oi_val *x = oi_in(c, n, 0), *bias = oi_opt_in(n, 1);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (bias && bias->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "bias differs from X in type");
  g.bias = bias != NULL;
  oi_val *ins[2] = {x, bias};
  kiln_value *r = oi_elementwise(c, bias ? 2 : 1, ins, x->type->elem, gelu_body, &g);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

/* ---- activations fused into Conv / Gemm ---- */
typedef struct { int kind; double a, b; } act_user;
enum { A_RELU, A_TANH, A_SIGMOID, A_LEAKY, A_CLIP, A_HARD_SIGMOID };

static bool act_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  act_user *p = u;
  kiln_value *x = a[0], *zero = oi_scalar(b, x->type, 0, 0), *one = oi_scalar(b, x->type, 1, 0);
  switch (p->kind) {
  case A_RELU: y[0] = oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x, zero); break;
  case A_TANH: y[0] = oi_op1(b, KILN_OP_MATH_TANH, x); break;
  case A_SIGMOID:
    y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, one, oi_op2(b, KILN_OP_ARITH_ADDF, one, oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, x))));
    break;
  case A_LEAKY: y[0] = oi_select(b, oi_cmpf(b, OI_F_OLT, x, zero), oi_op2(b, KILN_OP_ARITH_MULF, x, oi_scalar(b, x->type, p->a, 0)), x); break;
  case A_CLIP: {
    kiln_value *lo = oi_scalar(b, x->type, p->a, 0), *hi = oi_scalar(b, x->type, p->b, 0);
    x = oi_select(b, oi_cmpf(b, OI_F_OLT, x, lo), lo, x);
    y[0] = oi_select(b, oi_cmpf(b, OI_F_OGT, x, hi), hi, x);
    break;
  }
  default: {
    kiln_value *t = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, x, oi_scalar(b, x->type, p->a, 0)),
                           oi_scalar(b, x->type, p->b, 0));
    t = oi_select(b, oi_cmpf(b, OI_F_OLT, t, zero), zero, t);
    y[0] = oi_select(b, oi_cmpf(b, OI_F_OGT, t, one), one, t);
    break;
  }
  }
  return true;
}

/* Reads `activation` and `activation_params`; *none when absent. */
static bool activation(oi_ctx *c, oi_node *n, act_user *p, bool *none) {
  const char *name;
  const float *prm;
  size_t np;
  if (!oi_attr_string(c, n, "activation", NULL, &name) || !oi_attr_floats(c, n, "activation_params", &prm, &np))
    return false;
  *none = !name || !*name;
  if (*none) return true;
  static const struct { const char *name; int kind; size_t nparams; double a, b; } table[] = {
    {"Relu", A_RELU, 0, 0, 0}, {"Tanh", A_TANH, 0, 0, 0}, {"Sigmoid", A_SIGMOID, 0, 0, 0},
    {"LeakyRelu", A_LEAKY, 1, 0.01, 0}, {"Clip", A_CLIP, 2, -3.4028234663852886e38, 3.4028234663852886e38},
    {"HardSigmoid", A_HARD_SIGMOID, 2, 0.2, 0.5},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0) {
      p->kind = table[i].kind, p->a = table[i].a, p->b = table[i].b;
      if (np >= 1 && table[i].nparams >= 1) p->a = prm[0];
      if (np >= 2 && table[i].nparams >= 2) p->b = prm[1];
      return true;
    }
  return oi_unsupported(c, "activation '%s'", name);
}

static bool add_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], a[1]);
  return true;
}

static kiln_value *activate(oi_ctx *c, kiln_value *r, const act_user *p) {
  return oi_elementwise_ir(c, 1, &r, r->type->rank, r->type->shape, r->type->elem, act_body, (void *)p);
}

bool oi_import_fused_conv(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"activation", "activation_params", "auto_pad", "dilations", "group",
                                      "kernel_shape", "pads", "strides", NULL};
  if (!oi_arity(c, n, 2, 4, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *w = x ? oi_in(c, n, 1) : NULL, *bias = oi_opt_in(n, 2), *z = oi_opt_in(n, 3);
  if (!w || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  act_user p;
  bool none;
  if (!activation(c, n, &p, &none)) return false;
  kiln_value *xv = oi_ir(c, x), *wv = oi_ir(c, w), *r = xv && wv ? oi_conv_ir(c, n, xv, wv, 0) : NULL;
  if (!r || (bias && !(r = oi_add_bias(c, r, bias)))) return false;
  if (z) { /* the residual Z added before the activation */
    kiln_value *zv = oi_ir(c, z);
    if (!zv) return false;
    if (zv->type != r->type) return oi_invalid(c, "Z must have the output's shape");
    kiln_value *ins[2] = {r, zv};
    if (!(r = oi_elementwise_ir(c, 2, ins, r->type->rank, r->type->shape, r->type->elem, add_body, NULL))) return false;
  }
  if (!none && !(r = activate(c, r, &p))) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

typedef struct { double alpha; } scale_user;

static bool scale_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  scale_user *s = u;
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, a[0], oi_scalar(b, a[0]->type, s->alpha, 0));
  return true;
}

/* The last two dims swapped. */
static kiln_value *trans2(oi_ctx *c, oi_val *v) {
  uint32_t r = v->type->rank;
  int64_t perm[OI_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) perm[d] = d;
  perm[r - 2] = r - 1, perm[r - 1] = r - 2;
  return oi_transpose_val(c, v, perm);
}

bool oi_import_fused_matmul(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"alpha", "transA", "transB", "transBatchA", "transBatchB", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *a = oi_in(c, n, 0), *b = a ? oi_in(c, n, 1) : NULL;
  if (!b || !oi_check_type(c, a, OI_T_FLOAT, "input 0")) return false;
  if (a->dtype != b->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "inputs differ in element type");
  int64_t ta, tb, tba, tbb;
  scale_user s;
  if (!oi_attr_float(c, n, "alpha", 1, &s.alpha) || !oi_attr_int(c, n, "transA", 0, &ta) ||
      !oi_attr_int(c, n, "transB", 0, &tb) || !oi_attr_int(c, n, "transBatchA", 0, &tba) ||
      !oi_attr_int(c, n, "transBatchB", 0, &tbb))
    return false;
  if (tba || tbb) return oi_unsupported(c, "transBatchA/transBatchB");
  if ((ta && a->type->rank < 2) || (tb && b->type->rank < 2)) return oi_invalid(c, "a transposed input needs rank >= 2");
  kiln_value *av = ta ? trans2(c, a) : oi_ir(c, a), *bv = tb ? trans2(c, b) : oi_ir(c, b);
  kiln_value *r = av && bv ? oi_matmul_ir(c, av, bv) : NULL;
  if (!r) return false;
  if (s.alpha != 1 && !(r = oi_elementwise_ir(c, 1, &r, r->type->rank, r->type->shape, r->type->elem, scale_body, &s)))
    return false;
  oi_set_out(c, n, 0, r, a->dtype);
  return true;
}

bool oi_import_fused_gemm(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"activation", "activation_alpha", "activation_beta", "activation_gamma", "alpha",
                                      "beta", "transA", "transB", NULL};
  if (!oi_attrs_only(c, n, known)) return false;
  /* Gemm itself on the node's Gemm attributes, then the activation */
  const char *name;
  double aa, ab;
  if (!oi_attr_string(c, n, "activation", NULL, &name) || !oi_attr_float(c, n, "activation_alpha", 0.01, &aa) ||
      !oi_attr_float(c, n, "activation_beta", 0.5, &ab))
    return false;
  act_user p = {A_RELU, aa, ab};
  bool none = !name || !*name;
  if (!none) {
    if (strcmp(name, "Relu") == 0) p.kind = A_RELU;
    else if (strcmp(name, "Tanh") == 0) p.kind = A_TANH;
    else if (strcmp(name, "Sigmoid") == 0) p.kind = A_SIGMOID;
    else if (strcmp(name, "LeakyRelu") == 0) p.kind = A_LEAKY;
    else if (strcmp(name, "HardSigmoid") == 0) p.kind = A_HARD_SIGMOID, p.a = oi_attr(n, "activation_alpha") ? aa : 0.2;
    else return oi_unsupported(c, "activation '%s'", name);
  }
  /* the Gemm import reads only Gemm's attributes: a copy without the rest */
  Onnx__NodeProto copy = *n->proto;
  Onnx__AttributeProto *keep[8];
  size_t k = 0;
  for (size_t i = 0; i < n->proto->n_attribute && k < 8; i++)
    if (strncmp(n->proto->attribute[i]->name, "activation", 10) != 0) keep[k++] = n->proto->attribute[i];
  copy.attribute = keep;
  copy.n_attribute = k;
  const Onnx__NodeProto *orig = n->proto;
  n->proto = &copy;
  bool ok = oi_import_gemm(c, n);
  n->proto = orig;
  if (!ok) return false;
  if (!none) {
    kiln_value *r = oi_ir(c, n->out[0]);
    if (!r || !(r = activate(c, r, &p))) return false;
    oi_set_out(c, n, 0, r, n->out[0]->dtype);
  }
  return true;
}

/* Elementwise operator family: unary math and activations, binary
 * arithmetic/comparison/logic with numpy broadcasting, variadic
 * Max/Min/Sum/Mean, Where, Clip, Cast/CastLike.
 *
 * Takes: nodes of those ops. Guarantees: one linalg.generic per node with
 * broadcasting indexing maps (size-1 dims read index 0) and a scalar body;
 * integer shape arithmetic on small constants is folded at import time
 * instead (so shape subgraphs vanish); unsigned ONNX types use unsigned
 * division, comparison and extension. */
#include <math.h>
#include <string.h>

#include "import_internal.h"

typedef struct ew {
  int kind;
  int32_t dtype;       /* operand ONNX type */
  double alpha, beta, gamma;
  const char *approx;  /* Gelu */
  int64_t fmod;
  uint32_t n;          /* variadic: inputs of this generic */
  uint32_t total;      /* variadic: inputs of the node (Mean's divisor) */
} ew;

#define K(x) kiln_op_result(x, 0)

static kiln_value *fconst(kiln_builder *b, kiln_value *like, double v) {
  return oi_scalar(b, like->type, v, 0);
}

/* ---- unary ---- */
static bool unary_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  ew *e = u;
  kiln_value *x = a[0];
  bool isf = kiln_type_is_float(x->type), isu = oi_dtype_is_unsigned(e->dtype);
  kiln_value *zero = oi_scalar(b, x->type, 0, 0), *one = oi_scalar(b, x->type, 1, 1);
  kiln_value *r = NULL;
  switch (e->kind) {
  case OI_ABS:
    if (isf) r = oi_op1(b, KILN_OP_MATH_ABSF, x);
    else if (isu) r = x;
    else r = oi_select(b, oi_cmpi(b, OI_SLT, x, zero), oi_op2(b, KILN_OP_ARITH_SUBI, zero, x), x);
    break;
  case OI_NEG: r = isf ? oi_op1(b, KILN_OP_ARITH_NEGF, x) : oi_op2(b, KILN_OP_ARITH_SUBI, zero, x); break;
  case OI_CEIL: r = oi_op1(b, KILN_OP_MATH_CEIL, x); break;
  case OI_FLOOR: r = oi_op1(b, KILN_OP_MATH_FLOOR, x); break;
  case OI_ROUND: {
    /* round half to even: r = round(x); if |x - trunc(x)| == 0.5, r = 2*round(x/2) */
    kiln_value *half = fconst(b, x, 0.5), *two = fconst(b, x, 2.0);
    kiln_value *fl = oi_op1(b, KILN_OP_MATH_FLOOR, x);
    kiln_value *diff = oi_op2(b, KILN_OP_ARITH_SUBF, x, fl);
    kiln_value *up = oi_op2(b, KILN_OP_ARITH_ADDF, fl, one);
    kiln_value *gt = oi_cmpf(b, OI_F_OGT, diff, half), *eq = oi_cmpf(b, OI_F_OEQ, diff, half);
    kiln_value *hf = oi_op2(b, KILN_OP_ARITH_MULF, oi_op1(b, KILN_OP_MATH_FLOOR,
                              oi_op2(b, KILN_OP_ARITH_MULF, fl, half)), two);
    kiln_value *fl_even = oi_cmpf(b, OI_F_OEQ, hf, fl);
    kiln_value *tie = oi_select(b, fl_even, fl, up);
    r = oi_select(b, gt, up, oi_select(b, eq, tie, fl));
    break;
  }
  case OI_SQRT: r = oi_op1(b, KILN_OP_MATH_SQRT, x); break;
  case OI_EXP: r = oi_op1(b, KILN_OP_MATH_EXP, x); break;
  case OI_LOG: r = oi_op1(b, KILN_OP_MATH_LOG, x); break;
  case OI_SIN: r = oi_op1(b, KILN_OP_MATH_SIN, x); break;
  case OI_COS: r = oi_op1(b, KILN_OP_MATH_COS, x); break;
  case OI_TAN:
    r = oi_op2(b, KILN_OP_ARITH_DIVF, oi_op1(b, KILN_OP_MATH_SIN, x), oi_op1(b, KILN_OP_MATH_COS, x));
    break;
  case OI_TANH: r = oi_op1(b, KILN_OP_MATH_TANH, x); break;
  case OI_ERF: r = oi_op1(b, KILN_OP_MATH_ERF, x); break;
  case OI_RECIPROCAL: r = oi_op2(b, KILN_OP_ARITH_DIVF, one, x); break;
  case OI_SIGN:
    if (isf) {
      kiln_value *m1 = fconst(b, x, -1.0);
      r = oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), one,
                    oi_select(b, oi_cmpf(b, OI_F_OLT, x, zero), m1, zero));
    } else {
      kiln_value *m1 = oi_scalar(b, x->type, 0, -1);
      kiln_value *pos = oi_cmpi(b, isu ? OI_UGT : OI_SGT, x, zero);
      r = isu ? oi_select(b, pos, one, zero)
              : oi_select(b, pos, one, oi_select(b, oi_cmpi(b, OI_SLT, x, zero), m1, zero));
    }
    break;
  case OI_SIGMOID:
    r = oi_op2(b, KILN_OP_ARITH_DIVF, one,
               oi_op2(b, KILN_OP_ARITH_ADDF, one, oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, x))));
    break;
  case OI_RELU:
    if (isf) r = oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x, zero);
    else r = isu ? x : oi_op2(b, KILN_OP_ARITH_MAXSI, x, zero);
    break;
  case OI_SOFTPLUS:
    r = oi_op1(b, KILN_OP_MATH_LOG, oi_op2(b, KILN_OP_ARITH_ADDF, oi_op1(b, KILN_OP_MATH_EXP, x), one));
    break;
  case OI_SOFTSIGN:
    r = oi_op2(b, KILN_OP_ARITH_DIVF, x, oi_op2(b, KILN_OP_ARITH_ADDF, one, oi_op1(b, KILN_OP_MATH_ABSF, x)));
    break;
  case OI_ELU:
  case OI_CELU: {
    kiln_value *al = fconst(b, x, e->alpha);
    kiln_value *arg = e->kind == OI_CELU ? oi_op2(b, KILN_OP_ARITH_DIVF, x, al) : x;
    kiln_value *neg = oi_op2(b, KILN_OP_ARITH_MULF, al,
                             oi_op2(b, KILN_OP_ARITH_SUBF, oi_op1(b, KILN_OP_MATH_EXP, arg), one));
    r = oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x,
                  e->kind == OI_CELU ? oi_select(b, oi_cmpf(b, OI_F_OLT, neg, zero), neg, zero) : neg);
    if (e->kind == OI_CELU) /* max(0,x) + min(0, alpha*(exp(x/alpha)-1)) */
      r = oi_op2(b, KILN_OP_ARITH_ADDF, oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x, zero),
                 oi_select(b, oi_cmpf(b, OI_F_OLT, neg, zero), neg, zero));
    break;
  }
  case OI_SELU: {
    kiln_value *al = fconst(b, x, e->alpha), *ga = fconst(b, x, e->gamma);
    kiln_value *neg = oi_op2(b, KILN_OP_ARITH_SUBF, oi_op2(b, KILN_OP_ARITH_MULF, al, oi_op1(b, KILN_OP_MATH_EXP, x)), al);
    r = oi_op2(b, KILN_OP_ARITH_MULF, ga, oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x, neg));
    break;
  }
  case OI_LEAKY_RELU:
    r = oi_select(b, oi_cmpf(b, OI_F_OLT, x, zero), oi_op2(b, KILN_OP_ARITH_MULF, x, fconst(b, x, e->alpha)), x);
    break;
  case OI_THRESHOLDED_RELU:
    r = oi_select(b, oi_cmpf(b, OI_F_OGT, x, fconst(b, x, e->alpha)), x, zero);
    break;
  case OI_HARD_SIGMOID:
  case OI_HARD_SWISH: {
    kiln_value *t = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, x, fconst(b, x, e->alpha)),
                           fconst(b, x, e->beta));
    t = oi_select(b, oi_cmpf(b, OI_F_OLT, t, zero), zero, t);
    t = oi_select(b, oi_cmpf(b, OI_F_OGT, t, one), one, t);
    r = e->kind == OI_HARD_SWISH ? oi_op2(b, KILN_OP_ARITH_MULF, x, t) : t;
    break;
  }
  case OI_GELU: {
    kiln_value *half = fconst(b, x, 0.5), *inner;
    if (e->approx && strcmp(e->approx, "tanh") == 0) {
      kiln_value *x3 = oi_op2(b, KILN_OP_ARITH_MULF, x, oi_op2(b, KILN_OP_ARITH_MULF, x, x));
      inner = oi_op1(b, KILN_OP_MATH_TANH,
                     oi_op2(b, KILN_OP_ARITH_MULF, fconst(b, x, 0.7978845608028654),
                            oi_op2(b, KILN_OP_ARITH_ADDF, x, oi_op2(b, KILN_OP_ARITH_MULF, fconst(b, x, 0.044715), x3))));
    } else {
      inner = oi_op1(b, KILN_OP_MATH_ERF, oi_op2(b, KILN_OP_ARITH_MULF, x, fconst(b, x, 0.7071067811865476)));
    }
    r = oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_MULF, half, x),
               oi_op2(b, KILN_OP_ARITH_ADDF, one, inner));
    break;
  }
  case OI_NOT: r = oi_op2(b, KILN_OP_ARITH_XORI, x, one); break;
  case OI_ISNAN: r = oi_cmpf(b, OI_F_UNO, x, x); break;
  case OI_ISINF: {
    kiln_value *pos = oi_cmpf(b, OI_F_OEQ, x, fconst(b, x, INFINITY));
    kiln_value *neg = oi_cmpf(b, OI_F_OEQ, x, fconst(b, x, -INFINITY));
    kiln_value *f = oi_scalar(b, pos->type, 0, 0);
    r = oi_op2(b, KILN_OP_ARITH_ORI, e->alpha != 0 ? pos : f, e->beta != 0 ? neg : f);
    break;
  }
  case OI_ASIN: r = oi_asin(b, x); break;
  case OI_ACOS: r = oi_acos(b, x); break;
  case OI_ATAN: r = oi_atan(b, x); break;
  case OI_SINH: r = oi_sinh(b, x); break;
  case OI_COSH: r = oi_cosh(b, x); break;
  case OI_ASINH: r = oi_asinh(b, x); break;
  case OI_ACOSH: r = oi_acosh(b, x); break;
  case OI_ATANH: r = oi_atanh(b, x); break;
  case OI_SHRINK: { /* x < -lambd: x + bias; x > lambd: x - bias; else 0 */
    kiln_value *l = oi_scalar(b, x->type, e->alpha, (int64_t)e->alpha);
    kiln_value *nl = oi_scalar(b, x->type, -e->alpha, -(int64_t)e->alpha);
    kiln_value *bi = oi_scalar(b, x->type, e->beta, (int64_t)e->beta);
    kiln_value *lo = isf ? oi_cmpf(b, OI_F_OLT, x, nl) : oi_cmpi(b, isu ? OI_ULT : OI_SLT, x, nl);
    kiln_value *hi = isf ? oi_cmpf(b, OI_F_OGT, x, l) : oi_cmpi(b, isu ? OI_UGT : OI_SGT, x, l);
    kiln_op_kind ad = isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, sb = isf ? KILN_OP_ARITH_SUBF : KILN_OP_ARITH_SUBI;
    r = oi_select(b, lo, oi_op2(b, ad, x, bi), oi_select(b, hi, oi_op2(b, sb, x, bi), zero));
    break;
  }
  default: return oi_unsupported(c, "no unary body");
  }
  y[0] = r;
  return true;
}

bool oi_import_unary(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 1, 1, 1, 1)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  ew e = {.kind = n->kind, .dtype = x->dtype};
  unsigned mask = OI_T_FLOAT;
  int32_t out = x->dtype;
  static const char *const none[] = {NULL};
  static const char *const alpha[] = {"alpha", NULL};
  static const char *const ab[] = {"alpha", "beta", NULL};
  static const char *const ag[] = {"alpha", "gamma", NULL};
  static const char *const gelu[] = {"approximate", NULL};
  const char *const *known = none;
  switch (n->kind) {
  case OI_ABS: case OI_NEG: case OI_SIGN: mask = OI_T_NUM; break;
  case OI_RELU: mask = OI_T_FLOAT | OI_T_SINT; break;
  case OI_NOT: mask = OI_T_BOOL; break;
  case OI_ISNAN: out = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL; break;
  case OI_ISINF: {
    static const char *const inf[] = {"detect_negative", "detect_positive", NULL};
    int64_t dn, dp;
    known = inf;
    out = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
    if (!oi_attr_int(c, n, "detect_positive", 1, &dp) || !oi_attr_int(c, n, "detect_negative", 1, &dn)) return false;
    e.alpha = dp != 0;
    e.beta = dn != 0;
    break;
  }
  case OI_SHRINK: {
    static const char *const lb[] = {"bias", "lambd", NULL};
    known = lb;
    mask = OI_T_NUM;
    if (!oi_attr_float(c, n, "lambd", 0.5, &e.alpha) || !oi_attr_float(c, n, "bias", 0.0, &e.beta)) return false;
    break;
  }
  case OI_ELU: known = alpha; if (!oi_attr_float(c, n, "alpha", 1.0, &e.alpha)) return false; break;
  case OI_CELU: known = alpha; if (!oi_attr_float(c, n, "alpha", 1.0, &e.alpha)) return false; break;
  case OI_LEAKY_RELU: known = alpha; if (!oi_attr_float(c, n, "alpha", 0.01, &e.alpha)) return false; break;
  case OI_THRESHOLDED_RELU: known = alpha; if (!oi_attr_float(c, n, "alpha", 1.0, &e.alpha)) return false; break;
  case OI_SELU:
    known = ag;
    if (!oi_attr_float(c, n, "alpha", 1.67326319217681884765625, &e.alpha) ||
        !oi_attr_float(c, n, "gamma", 1.05070102214813232421875, &e.gamma))
      return false;
    break;
  case OI_HARD_SIGMOID:
    known = ab;
    if (!oi_attr_float(c, n, "alpha", 0.2, &e.alpha) || !oi_attr_float(c, n, "beta", 0.5, &e.beta))
      return false;
    break;
  case OI_HARD_SWISH: e.alpha = 1.0 / 6.0; e.beta = 0.5; break;
  case OI_GELU:
    known = gelu;
    if (!oi_attr_string(c, n, "approximate", "none", &e.approx)) return false;
    if (strcmp(e.approx, "none") != 0 && strcmp(e.approx, "tanh") != 0)
      return oi_unsupported(c, "approximate '%s' (none or tanh)", e.approx);
    break;
  default: break;
  }
  if (!oi_attrs_only(c, n, known) || !oi_check_type(c, x, mask, "input 0")) return false;
  /* Exact float ops on small constants (sizes computed in a graph, as
   * Range's expansion does: Ceil, Relu, ...) fold on the host: the
   * result in double is the type's result exactly. */
  if (oi_dtype_is_float(x->dtype) && oi_const(c, x) && oi_numel(x->type) <= 64 &&
      (n->kind == OI_CEIL || n->kind == OI_FLOOR || n->kind == OI_ROUND || n->kind == OI_ABS || n->kind == OI_NEG ||
       n->kind == OI_RELU || n->kind == OI_SIGN)) {
    double *v;
    int64_t cnt;
    if (!oi_const_floats(c, x, "input 0", &v, &cnt)) return false;
    for (int64_t i = 0; i < cnt; i++) {
      double a = v[i];
      switch (n->kind) {
      case OI_CEIL: v[i] = ceil(a); break;
      case OI_FLOOR: v[i] = floor(a); break;
      case OI_ROUND: v[i] = a - floor(a) == 0.5 ? 2 * floor(a / 2 + 0.5) : round(a); break; /* half to even */
      case OI_ABS: v[i] = fabs(a); break;
      case OI_NEG: v[i] = -a; break;
      case OI_RELU: v[i] = a > 0 ? a : 0; break;
      default: v[i] = a > 0 ? 1 : a < 0 ? -1 : a; break;
      }
    }
    oi_set_out_const(c, n, 0, oi_dense_floats(c, x->type, v), x->dtype);
    return true;
  }
  /* Neg / Abs of a small signed-integer constant (shape arithmetic, e.g.
   * LayerNormalization's expansion) fold on the host */
  if ((n->kind == OI_NEG || n->kind == OI_ABS) && oi_dtype_is_int(x->dtype) && !oi_dtype_is_unsigned(x->dtype) &&
      oi_const(c, x) && oi_numel(x->type) <= 64) {
    int64_t *v, cnt;
    if (!oi_const_ints(c, x, "input 0", &v, &cnt)) return false;
    for (int64_t i = 0; i < cnt; i++)
      if (n->kind == OI_NEG || v[i] < 0) v[i] = (int64_t)(0 - (uint64_t)v[i]);
    oi_set_out_const(c, n, 0, oi_dense_ints(c, x->type, v), x->dtype);
    return true;
  }
  kiln_value *r = oi_elementwise(c, 1, &x, oi_elem_type(c, out), unary_body, &e);
  if (!r) return false;
  oi_set_out(c, n, 0, r, out);
  if (n->kind == OI_RELU && n->out[0] && x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
    oi_note_clamp(c, n->out[0], x, 0, INFINITY);
  return true;
}

/* ---- binary ---- */
static bool binary_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  ew *e = u;
  kiln_value *x = a[0], *z = a[1];
  bool isf = kiln_type_is_float(x->type), isu = oi_dtype_is_unsigned(e->dtype);
  kiln_value *r = NULL;
  switch (e->kind) {
  case OI_ADD: r = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, x, z); break;
  case OI_SUB: r = oi_op2(b, isf ? KILN_OP_ARITH_SUBF : KILN_OP_ARITH_SUBI, x, z); break;
  case OI_MUL: r = oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, x, z); break;
  case OI_DIV:
    r = oi_op2(b, isf ? KILN_OP_ARITH_DIVF : isu ? KILN_OP_ARITH_DIVUI : KILN_OP_ARITH_DIVSI, x, z);
    break;
  case OI_MOD:
    if (isf) { /* x - trunc(x/y)*y: arith.remf would need libm's fmod */
      kiln_value *q = oi_op2(b, KILN_OP_ARITH_DIVF, x, z), *zero = oi_scalar(b, x->type, 0, 0);
      kiln_value *t = oi_select(b, oi_cmpf(b, OI_F_OGE, q, zero), oi_op1(b, KILN_OP_MATH_FLOOR, q),
                                oi_op1(b, KILN_OP_MATH_CEIL, q));
      r = oi_op2(b, KILN_OP_ARITH_SUBF, x, oi_op2(b, KILN_OP_ARITH_MULF, t, z));
    }
    else if (isu) r = oi_op2(b, KILN_OP_ARITH_REMUI, x, z);
    else if (e->fmod) r = oi_op2(b, KILN_OP_ARITH_REMSI, x, z);
    else { /* sign of the divisor: r = rem; if r != 0 and sign(r) != sign(z): r += z */
      kiln_value *rem = oi_op2(b, KILN_OP_ARITH_REMSI, x, z);
      kiln_value *zero = oi_scalar(b, x->type, 0, 0);
      kiln_value *nz = oi_cmpi(b, OI_NE, rem, zero);
      kiln_value *diff = oi_cmpi(b, OI_NE, oi_cmpi(b, OI_SLT, rem, zero), oi_cmpi(b, OI_SLT, z, zero));
      kiln_value *fix = oi_op2(b, KILN_OP_ARITH_ANDI, nz, diff);
      r = oi_select(b, fix, oi_op2(b, KILN_OP_ARITH_ADDI, rem, z), rem);
    }
    break;
  case OI_POW:
    if (isf) { /* the exponent converts to the base type */
      r = oi_op2(b, KILN_OP_MATH_POWF, x, oi_convert(b, z, (int32_t)e->n, e->dtype, x->type));
    } else { /* integer bases: through f64 (exact below 2^53), truncated back */
      const kiln_type *f64 = kiln_type_f64(b->ctx);
      int32_t d64 = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
      kiln_value *p = oi_op2(b, KILN_OP_MATH_POWF, oi_convert(b, x, e->dtype, d64, f64),
                             oi_convert(b, z, (int32_t)e->n, d64, f64));
      r = oi_convert(b, p, d64, e->dtype, x->type);
    }
    break;
  case OI_PRELU: {
    kiln_value *zero = oi_scalar(b, x->type, 0, 0);
    r = isf ? oi_select(b, oi_cmpf(b, OI_F_OLT, x, zero), oi_op2(b, KILN_OP_ARITH_MULF, x, z), x)
            : oi_select(b, oi_cmpi(b, OI_SLT, x, zero), oi_op2(b, KILN_OP_ARITH_MULI, x, z), x);
    break;
  }
  case OI_BITSHIFT: { /* unsigned; a shift by the width or more gives 0 */
    kiln_value *sh = oi_op2(b, e->fmod ? KILN_OP_ARITH_SHLI : KILN_OP_ARITH_SHRUI, x, z);
    kiln_value *w = oi_scalar(b, x->type, 0, (int64_t)x->type->width);
    r = oi_select(b, oi_cmpi(b, OI_UGE, z, w), oi_scalar(b, x->type, 0, 0), sh);
    break;
  }
  case OI_AND: r = oi_op2(b, KILN_OP_ARITH_ANDI, x, z); break;
  case OI_OR: r = oi_op2(b, KILN_OP_ARITH_ORI, x, z); break;
  case OI_XOR: r = oi_op2(b, KILN_OP_ARITH_XORI, x, z); break;
  case OI_EQUAL: r = isf ? oi_cmpf(b, OI_F_OEQ, x, z) : oi_cmpi(b, OI_EQ, x, z); break;
  case OI_GREATER: r = isf ? oi_cmpf(b, OI_F_OGT, x, z) : oi_cmpi(b, isu ? OI_UGT : OI_SGT, x, z); break;
  case OI_LESS: r = isf ? oi_cmpf(b, OI_F_OLT, x, z) : oi_cmpi(b, isu ? OI_ULT : OI_SLT, x, z); break;
  case OI_GREATER_EQ: r = isf ? oi_cmpf(b, OI_F_OGE, x, z) : oi_cmpi(b, isu ? OI_UGE : OI_SGE, x, z); break;
  case OI_LESS_EQ: r = isf ? oi_cmpf(b, OI_F_OLE, x, z) : oi_cmpi(b, isu ? OI_ULE : OI_SLE, x, z); break;
  default: return oi_unsupported(c, "no binary body");
  }
  y[0] = r;
  return true;
}

/* Element i of SHAPE (rank RANK) as the linear index into operand T
 * (numpy broadcasting: size-1 dims read index 0). */
static int64_t bcast_index(int64_t i, uint32_t rank, const int64_t *shape, const kiln_type *t) {
  int64_t coord[OI_MAX_RANK], lin = 0;
  for (int d = (int)rank - 1; d >= 0; d--) coord[d] = i % shape[d], i /= shape[d];
  for (uint32_t d = 0; d < t->rank; d++) lin = lin * t->shape[d] + (t->shape[d] == 1 ? 0 : coord[rank - t->rank + d]);
  return lin;
}

/* Float arithmetic on small constants (window sizes, scales computed in a
 * graph): each result rounded to the element type once, which is what
 * the type's own arithmetic gives for + - * /. */
static bool fold_binary_float(oi_ctx *c, oi_node *n, oi_val *a, oi_val *b, bool *done) {
  *done = false;
  if (n->kind != OI_ADD && n->kind != OI_SUB && n->kind != OI_MUL && n->kind != OI_DIV) return true;
  if (!oi_const(c, a) || !oi_const(c, b) || oi_numel(a->type) > 64 || oi_numel(b->type) > 64) return true;
  oi_val *vs[2] = {a, b};
  uint32_t rank;
  int64_t shape[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, 2, vs, &rank, shape)) return false;
  double *x, *y;
  int64_t nx, ny, total = 1;
  if (!oi_const_floats(c, a, "input 0", &x, &nx) || !oi_const_floats(c, b, "input 1", &y, &ny)) return false;
  for (uint32_t d = 0; d < rank; d++) total *= shape[d];
  double *r = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *r);
  for (int64_t i = 0; i < total; i++) {
    double p = x[bcast_index(i, rank, shape, a->type)], q = y[bcast_index(i, rank, shape, b->type)];
    r[i] = n->kind == OI_ADD ? p + q : n->kind == OI_SUB ? p - q : n->kind == OI_MUL ? p * q : p / q;
  }
  oi_set_out_const(c, n, 0, oi_dense_floats(c, oi_tensor_type(c, rank, shape, a->dtype), r), a->dtype);
  *done = true;
  return true;
}

/* Integer shape arithmetic on small constants, folded on the host. */
static bool fold_binary(oi_ctx *c, oi_node *n, oi_val *a, oi_val *b, bool trunc_mod, bool *done) {
  *done = false;
  if (oi_dtype_is_float(a->dtype) && a->dtype == b->dtype) return fold_binary_float(c, n, a, b, done);
  if (!oi_dtype_is_int(a->dtype) || oi_dtype_is_unsigned(a->dtype)) return true;
  /* index tensors too (Swin's window-mask positions: Range + broadcast
   * Add), not only shapes */
  if (!oi_const(c, a) || !oi_const(c, b) || oi_numel(a->type) > OI_FOLD_MAX || oi_numel(b->type) > OI_FOLD_MAX)
    return true;
  if (n->kind != OI_ADD && n->kind != OI_SUB && n->kind != OI_MUL && n->kind != OI_DIV &&
      n->kind != OI_MOD && n->kind != OI_EQUAL && n->kind != OI_LESS && n->kind != OI_GREATER)
    return true;
  oi_val *vs[2] = {a, b};
  uint32_t rank;
  int64_t shape[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, 2, vs, &rank, shape)) return false;
  int64_t total = 1;
  for (uint32_t d = 0; d < rank; d++) total *= shape[d];
  if (total > OI_FOLD_MAX) return true;
  int64_t *x, *y, nx, ny;
  if (!oi_const_ints(c, a, "input 0", &x, &nx) || !oi_const_ints(c, b, "input 1", &y, &ny))
    return false;
  int64_t *r = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *r);
  for (int64_t i = 0; i < total; i++) {
    int64_t p = x[bcast_index(i, rank, shape, a->type)], q = y[bcast_index(i, rank, shape, b->type)];
    switch (n->kind) {
    case OI_ADD: r[i] = (int64_t)((uint64_t)p + (uint64_t)q); break;
    case OI_SUB: r[i] = (int64_t)((uint64_t)p - (uint64_t)q); break;
    case OI_MUL: r[i] = (int64_t)((uint64_t)p * (uint64_t)q); break;
    case OI_DIV:
      if (q == 0 || (p == INT64_MIN && q == -1)) return oi_invalid(c, "integer division by zero in a constant");
      r[i] = p / q;
      break;
    case OI_MOD: /* fmod 0: the remainder takes the divisor's sign (Swin's window padding) */
      if (q == 0 || (p == INT64_MIN && q == -1)) return oi_invalid(c, "integer modulo by zero in a constant");
      r[i] = p % q;
      if (!trunc_mod && r[i] != 0 && (r[i] < 0) != (q < 0)) r[i] += q;
      break;
    case OI_EQUAL: r[i] = p == q; break;
    case OI_LESS: r[i] = p < q; break;
    default: r[i] = p > q; break;
    }
  }
  bool cmp = n->kind == OI_EQUAL || n->kind == OI_LESS || n->kind == OI_GREATER;
  int32_t dt = cmp ? ONNX__TENSOR_PROTO__DATA_TYPE__BOOL : a->dtype;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, rank, shape, dt), r), dt);
  *done = true;
  return true;
}

bool oi_import_binary(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  static const char *const fmod_[] = {"fmod", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1)) return false;
  oi_val *a = oi_in(c, n, 0), *b = a ? oi_in(c, n, 1) : NULL;
  if (!b) return false;
  ew e = {.kind = n->kind, .dtype = a->dtype, .n = (uint32_t)b->dtype};
  static const char *const dir_[] = {"direction", NULL};
  if (!oi_attrs_only(c, n, n->kind == OI_MOD ? fmod_ : n->kind == OI_BITSHIFT ? dir_ : none)) return false;
  if (n->kind == OI_MOD && !oi_attr_int(c, n, "fmod", 0, &e.fmod)) return false;
  if (n->kind == OI_BITSHIFT) { /* e.fmod: left */
    const char *dir;
    if (!oi_attr_string(c, n, "direction", "", &dir)) return false;
    if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0)
      return oi_invalid(c, "direction '%s' (LEFT or RIGHT)", dir);
    e.fmod = strcmp(dir, "LEFT") == 0;
  }
  if (n->kind == OI_MOD && oi_dtype_is_float(a->dtype) && !e.fmod)
    return oi_invalid(c, "fmod must be 1 for floating-point inputs");
  unsigned mask = OI_T_NUM;
  bool cmp = false;
  switch (n->kind) {
  case OI_AND: case OI_OR: case OI_XOR: mask = OI_T_BOOL; break;
  case OI_BITSHIFT: mask = OI_T_UINT; break;
  case OI_EQUAL: mask = OI_T_ANY; cmp = true; break;
  case OI_GREATER: case OI_LESS: case OI_GREATER_EQ: case OI_LESS_EQ: cmp = true; break;
  case OI_POW: mask = OI_T_FLOAT | OI_T_SINT; break;
  case OI_PRELU: mask = OI_T_FLOAT | OI_T_SINT; break;
  default: break;
  }
  if (!oi_check_type(c, a, mask, "input 0")) return false;
  if (n->kind != OI_POW && a->dtype != b->dtype)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "input types differ (%s and %s)", oi_dtype_name(a->dtype),
                   oi_dtype_name(b->dtype));
  if (n->kind == OI_POW && !oi_check_type(c, b, OI_T_NUM, "input 1")) return false;
  if (n->kind == OI_PRELU) { /* slope broadcasts unidirectionally to X */
    oi_val *vs[2] = {a, b};
    uint32_t r;
    int64_t s[OI_MAX_RANK];
    if (!oi_broadcast_shape(c, 2, vs, &r, s)) return false;
    if (r != a->type->rank) return oi_invalid(c, "slope does not broadcast to X");
  }
  bool done;
  if (!fold_binary(c, n, a, b, e.fmod != 0, &done)) return false;
  if (done) return true;
  int32_t out = cmp ? ONNX__TENSOR_PROTO__DATA_TYPE__BOOL : a->dtype;
  oi_val *ins[2] = {a, b};
  kiln_value *r = oi_elementwise(c, 2, ins, oi_elem_type(c, out), binary_body, &e);
  if (!r) return false;
  oi_set_out(c, n, 0, r, out);
  return true;
}

/* ---- variadic ---- */
/* Inputs of one variadic generic besides the running result. */
#define OI_VARIADIC_CHUNK 16u

static bool variadic_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  ew *e = u;
  bool isf = kiln_type_is_float(a[0]->type), isu = oi_dtype_is_unsigned(e->dtype);
  kiln_value *r = a[0];
  for (uint32_t i = 1; i < e->n; i++) {
    kiln_value *x = a[i];
    switch (e->kind) {
    case OI_MAX:
      r = isf ? oi_op2(b, KILN_OP_ARITH_MAXIMUMF, r, x) : oi_op2(b, isu ? KILN_OP_ARITH_MAXUI : KILN_OP_ARITH_MAXSI, r, x);
      break;
    case OI_MIN:
      r = isf ? oi_op2(b, KILN_OP_ARITH_MINIMUMF, r, x) : oi_op2(b, isu ? KILN_OP_ARITH_MINUI : KILN_OP_ARITH_MINSI, r, x);
      break;
    default: r = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, r, x); break;
    }
  }
  if (e->kind == OI_MEAN) r = oi_op2(b, KILN_OP_ARITH_DIVF, r, oi_scalar(b, r->type, (double)e->total, 0));
  y[0] = r;
  return true;
}

bool oi_import_variadic(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 64, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  for (size_t i = 0; i < n->nin; i++) {
    if (!oi_in(c, n, i)) return false;
    if (n->in[i]->dtype != n->in[0]->dtype)
      return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu is %s, input 0 is %s", i,
                     oi_dtype_name(n->in[i]->dtype), oi_dtype_name(n->in[0]->dtype));
  }
  if (!oi_check_type(c, n->in[0], n->kind == OI_MEAN || n->kind == OI_SUM ? OI_T_FLOAT : OI_T_NUM,
                     "input 0"))
    return false;
  /* A kernel binds at most 32 buffers: more inputs than OI_VARIADIC_CHUNK
   * are folded a chunk at a time, each chunk's generic reading the running
   * result first (Mean sums, then divides in the last). */
  const uint32_t total = (uint32_t)n->nin;
  oi_val *ins[OI_VARIADIC_CHUNK + 1], *acc = NULL;
  kiln_value *r = NULL;
  for (uint32_t i = 0; i < total;) {
    uint32_t k = 0;
    if (acc) ins[k++] = acc;
    while (k < OI_VARIADIC_CHUNK + (acc ? 1u : 0u) && i < total) ins[k++] = n->in[i++];
    const bool last = i == total;
    ew e = {.kind = last || n->kind != OI_MEAN ? n->kind : OI_SUM, .dtype = n->in[0]->dtype, .n = k,
            .total = total};
    r = oi_elementwise(c, k, ins, n->in[0]->type->elem, variadic_body, &e);
    if (!r) return false;
    if (!last) {
      acc = oi_val_new(c, NULL, r->type, n->in[0]->dtype);
      acc->v = r;
    }
  }
  oi_set_out(c, n, 0, r, n->in[0]->dtype);
  return true;
}

/* ---- Where ---- */
static bool where_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_select(b, a[0], a[1], a[2]);
  return true;
}

/* Where on small signed-integer constants, folded on the host: exporters
 * write expand(n, -1, ...) as Where(Equal(shape, -1), 1s, shape), and a
 * shape left as run-time data would make a static graph's dims dynamic. */
static bool fold_where(oi_ctx *c, oi_node *n, bool *done) {
  *done = false;
  oi_val *k = n->in[0], *a = n->in[1], *b = n->in[2];
  if (!oi_dtype_is_int(a->dtype) || oi_dtype_is_unsigned(a->dtype)) return true;
  for (size_t i = 0; i < 3; i++)
    if (!oi_const(c, n->in[i]) || oi_numel(n->in[i]->type) > 64) return true;
  uint32_t rank;
  int64_t shape[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, 3, n->in, &rank, shape)) return false;
  int64_t *kv, *x, *y, nk, nx, ny, total = 1;
  if (!oi_const_ints(c, k, "condition", &kv, &nk) || !oi_const_ints(c, a, "X", &x, &nx) ||
      !oi_const_ints(c, b, "Y", &y, &ny))
    return false;
  for (uint32_t d = 0; d < rank; d++) total *= shape[d];
  int64_t *r = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *r);
  for (int64_t i = 0; i < total; i++)
    r[i] = kv[bcast_index(i, rank, shape, k->type)] ? x[bcast_index(i, rank, shape, a->type)]
                                                    : y[bcast_index(i, rank, shape, b->type)];
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, rank, shape, a->dtype), r), a->dtype);
  *done = true;
  return true;
}

bool oi_import_where(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  for (size_t i = 0; i < 3; i++)
    if (!oi_in(c, n, i)) return false;
  if (!oi_check_type(c, n->in[0], OI_T_BOOL, "condition")) return false;
  if (n->in[1]->dtype != n->in[2]->dtype)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "X is %s, Y is %s", oi_dtype_name(n->in[1]->dtype),
                   oi_dtype_name(n->in[2]->dtype));
  bool done;
  if (!fold_where(c, n, &done)) return false;
  if (done) return true;
  kiln_value *r = oi_elementwise(c, 3, n->in, n->in[1]->type->elem, where_body, NULL);
  if (!r) return false;
  oi_set_out(c, n, 0, r, n->in[1]->dtype);
  return true;
}

/* ---- Clip ---- */
static bool clip_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  ew *e = u;
  kiln_value *x = a[0];
  bool isf = kiln_type_is_float(x->type), isu = oi_dtype_is_unsigned(e->dtype);
  uint32_t k = 1;
  if (e->alpha != 0) { /* has min */
    kiln_value *m = a[k++];
    x = isf ? oi_select(b, oi_cmpf(b, OI_F_OLT, x, m), m, x)
            : oi_op2(b, isu ? KILN_OP_ARITH_MAXUI : KILN_OP_ARITH_MAXSI, x, m);
  }
  if (e->beta != 0) {
    kiln_value *m = a[k++];
    x = isf ? oi_select(b, oi_cmpf(b, OI_F_OGT, x, m), m, x)
            : oi_op2(b, isu ? KILN_OP_ARITH_MINUI : KILN_OP_ARITH_MINSI, x, m);
  }
  y[0] = x;
  return true;
}

bool oi_import_clip(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 3, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_NUM, "input 0")) return false;
  oi_val *ins[3] = {x, NULL, NULL};
  uint32_t k = 1;
  ew e = {.dtype = x->dtype};
  for (size_t i = 1; i < 3; i++) {
    oi_val *m = oi_opt_in(n, i);
    if (!m) continue;
    if (m->type->rank != 0) return oi_invalid(c, "input %zu (%s) must be a scalar", i, i == 1 ? "min" : "max");
    if (m->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu has another type than X", i);
    ins[k++] = m;
    if (i == 1) e.alpha = 1;
    else e.beta = 1;
  }
  kiln_value *r = oi_elementwise(c, k, ins, x->type->elem, clip_body, &e);
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  const kiln_attr *lo = ins[1] && e.alpha != 0 ? oi_const(c, ins[1]) : NULL;
  const kiln_attr *hi = e.beta != 0 ? oi_const(c, ins[k - 1]) : NULL;
  if (n->out[0] && x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && (e.alpha == 0 || lo) && (e.beta == 0 || hi))
    oi_note_clamp(c, n->out[0], x, lo ? kiln_dense_get_float(lo, 0) : -INFINITY,
                  hi ? kiln_dense_get_float(hi, 0) : INFINITY);
  return true;
}

/* ---- Cast / CastLike ---- */
bool oi_import_cast(oi_ctx *c, oi_node *n) {
  static const char *const to_[] = {"to", "saturate", NULL};
  static const char *const none[] = {NULL};
  bool like = strcmp(n->op_type, "CastLike") == 0;
  if (!oi_arity(c, n, like ? 2 : 1, like ? 2 : 1, 1, 1) || !oi_attrs_only(c, n, like ? none : to_))
    return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t to;
  if (like) {
    if (!oi_in(c, n, 1)) return false;
    to = n->in[1]->dtype;
  } else {
    if (!oi_attr(n, "to")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'to' is required");
    if (!oi_attr_int(c, n, "to", 0, &to)) return false;
  }
  if (to >= INT32_MIN && to <= INT32_MAX && (oi_dtype_is_string((int32_t)to) || oi_dtype_is_string(x->dtype)))
    return oi_import_text_cast(c, n, x, (int32_t)to);
  if (to < INT32_MIN || to > INT32_MAX || !oi_elem_type(c, (int32_t)to))
    return oi_unsupported(c, "cast to element type %s", oi_dtype_name((int32_t)to));
  if (!oi_check_type(c, x, OI_T_ANY, "input 0")) return false;
  int32_t dt = (int32_t)to;
  /* constants (shape values, sizes) convert on the host */
  if (oi_const(c, x) && oi_numel(x->type) <= 64 && !oi_dtype_is_float(x->dtype) && !oi_dtype_is_float(dt)) {
    int64_t *v, cnt;
    if (!oi_const_ints(c, x, "input", &v, &cnt)) return false;
    if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
      for (int64_t i = 0; i < cnt; i++) v[i] = v[i] != 0;
    oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, x->type->rank, x->type->shape, dt), v), dt);
    return true;
  }
  if (oi_const(c, x) && oi_numel(x->type) <= 64 && oi_dtype_is_float(x->dtype) && oi_dtype_is_int(dt)) {
    double *v; /* float to integer: toward zero, when every value fits */
    int64_t cnt;
    if (!oi_const_floats(c, x, "input", &v, &cnt)) return false;
    int64_t *iv = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *iv);
    bool fits = true;
    for (int64_t i = 0; i < cnt && fits; i++) {
      fits = v[i] > -9.2e18 && v[i] < 9.2e18; /* NaN and overflow stay for run time */
      iv[i] = fits ? (int64_t)v[i] : 0;
    }
    if (fits) {
      oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, x->type->rank, x->type->shape, dt), iv), dt);
      return true;
    }
  }
  if (oi_const(c, x) && oi_numel(x->type) <= 64 && oi_dtype_is_float(x->dtype) &&
      dt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
    double *v;
    int64_t cnt;
    if (!oi_const_floats(c, x, "input", &v, &cnt)) return false;
    int64_t *iv = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *iv);
    for (int64_t i = 0; i < cnt; i++) iv[i] = v[i] != 0;
    oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, x->type->rank, x->type->shape, dt), iv), dt);
    return true;
  }
  if (oi_const(c, x) && oi_numel(x->type) <= 64 && oi_dtype_is_float(dt) && x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
    double *v; /* to a float type: one rounding from the exact value */
    int64_t cnt;
    if (!oi_const_floats(c, x, "input", &v, &cnt)) return false;
    oi_set_out_const(c, n, 0, oi_dense_floats(c, oi_tensor_type(c, x->type->rank, x->type->shape, dt), v), dt);
    return true;
  }
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  oi_set_out(c, n, 0, oi_cast_tensor(c, xv, x->dtype, dt), dt);
  return true;
}

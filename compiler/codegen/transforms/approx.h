/* Internals of approximate-math (prefix ap_): a small builder that emits
 * arith ops on a float type (scalar or vector) and the integer and i1
 * types of the same shape, and the expansions of each math op. */
#ifndef KILN_CODEGEN_APPROX_H
#define KILN_CODEGEN_APPROX_H

#include "codegen_transforms.h"

typedef struct ap {
  kiln_builder b;
  kiln_context *ctx;
  const kiln_type *ft; /* f32/f64 or a vector of them */
  const kiln_type *it; /* i32/i64 of the same shape */
  const kiln_type *bt; /* i1 of the same shape */
  bool f64;
  /* math.fma (llvm.fmuladd) is one fused, once-rounded instruction on the
   * target: expansions whose error bound needs that may use it. */
  bool fused;
  /* The op is an exp whose value only reaches c / (d + exp) with d >= 1
   * (a sigmoid's denominator): results below 2^-126 add nothing to d,
   * and an overflow to inf only turns a quotient below 2^-127 |c| into
   * 0, so ap_exp may skip the subnormal and near-overflow scaling. */
  bool denominator;
} ap;

/* Sets up the builder before op for float type ft. */
void ap_init(ap *a, kiln_op *op, const kiln_type *ft);
/* The same builder position for another element type (f32 <-> f64). */
void ap_retype(ap *a, const ap *from, const kiln_type *elem);

kiln_value *ap_f(ap *a, double v);   /* float constant (splat) */
kiln_value *ap_i(ap *a, int64_t v);  /* integer constant (splat) */
kiln_value *ap_op2(ap *a, kiln_op_kind k, kiln_value *x, kiln_value *y);
kiln_value *ap_op1(ap *a, kiln_op_kind k, kiln_value *x);
kiln_value *ap_cast(ap *a, kiln_op_kind k, kiln_value *x, const kiln_type *to);
/* MLIR predicates: cmpf oeq=1 ogt=2 oge=3 olt=4 ole=5 one=6 uno=14 une=13;
 * uge=10; cmpi eq=0 ne=1 slt=2 sle=3 sgt=4 sge=5. */
enum { AP_OEQ = 1, AP_OGT = 2, AP_OGE = 3, AP_OLT = 4, AP_OLE = 5, AP_ONE = 6,
       AP_UGE = 10, AP_UNE = 13, AP_UNO = 14 };
enum { AP_EQ = 0, AP_NE = 1, AP_SLT = 2, AP_SLE = 3, AP_SGT = 4, AP_SGE = 5 };
kiln_value *ap_cmpf(ap *a, int pred, kiln_value *x, kiln_value *y);
kiln_value *ap_cmpi(ap *a, int pred, kiln_value *x, kiln_value *y);
kiln_value *ap_sel(ap *a, kiln_value *c, kiln_value *x, kiln_value *y);
/* c[0] + x * (c[1] + x * (... c[n-1])), Horner steps as math.fma (one
 * instruction each where the target has FMA, also one rounding) */
kiln_value *ap_poly(ap *a, kiln_value *x, const double *c, int n);
/* x * y + z as math.fma (rounded once only where a->fused) */
kiln_value *ap_fma(ap *a, kiln_value *x, kiln_value *y, kiln_value *z);
kiln_value *ap_add(ap *a, kiln_value *x, kiln_value *y);
kiln_value *ap_sub(ap *a, kiln_value *x, kiln_value *y);
kiln_value *ap_mul(ap *a, kiln_value *x, kiln_value *y);
kiln_value *ap_div(ap *a, kiln_value *x, kiln_value *y);
kiln_value *ap_abs(ap *a, kiln_value *x);
/* x limited to [lo, hi] by compare+select (NaN stays NaN). */
kiln_value *ap_clamp(ap *a, kiln_value *x, double lo, double hi);
/* Magnitude of x with the sign of s (bit operations). */
kiln_value *ap_copysign(ap *a, kiln_value *x, kiln_value *s);
kiln_value *ap_bits(ap *a, kiln_value *x);     /* float -> int bits */
kiln_value *ap_from_bits(ap *a, kiln_value *i); /* int bits -> float */
int ap_mant_bits(const ap *a);  /* 23 / 52 */
int ap_bias(const ap *a);       /* 127 / 1023 */

/* The expansions (x: operand(s) of type a->ft). */
kiln_value *ap_exp(ap *a, kiln_value *x);
kiln_value *ap_exp_neg(ap *a, kiln_value *x); /* e^-x, as ap_exp(negf x) */
kiln_value *ap_exp2(ap *a, kiln_value *x);
kiln_value *ap_log(ap *a, kiln_value *x);
kiln_value *ap_log2(ap *a, kiln_value *x);
kiln_value *ap_pow(ap *a, kiln_value *x, kiln_value *y);
kiln_value *ap_tanh(ap *a, kiln_value *x);
kiln_value *ap_erf(ap *a, kiln_value *x);
kiln_value *ap_sin(ap *a, kiln_value *x);
kiln_value *ap_cos(ap *a, kiln_value *x);
kiln_value *ap_rsqrt(ap *a, kiln_value *x);
kiln_value *ap_floor(ap *a, kiln_value *x);
kiln_value *ap_ceil(ap *a, kiln_value *x);
kiln_value *ap_round(ap *a, kiln_value *x);

#endif

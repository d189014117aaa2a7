/* Elementary functions the IR has no math op for (atan, asin, acos, the
 * hyperbolic functions and their inverses, log1p), composed from the ops
 * it has (exp, log, sqrt, arithmetic, selects), for the scalar bodies of
 * the elementwise family.
 *
 * Takes: a builder inside a body and a float scalar. Guarantees: results
 * within a few f32 ulps over the whole domain (ONNX's tolerance is 1e-3
 * relative): cancellation near 0 is avoided by series or by log1p
 * (Kahan's form, exact where 1 + y rounds), atan's range is reduced to
 * |x| <= tan(pi/8) before its polynomial (Cephes' atanf coefficients), the
 * special values follow C99 (atanh(+-1) = +-inf, asin(+-1) = +-pi/2). */
#include <math.h>

#include "import_internal.h"

#define PI 3.14159265358979323846
#define LN2 0.69314718055994530942

static kiln_value *k(kiln_builder *b, kiln_value *like, double v) { return oi_scalar(b, like->type, v, 0); }
static kiln_value *add(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_ADDF, x, y); }
static kiln_value *sub(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_SUBF, x, y); }
static kiln_value *mul(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_MULF, x, y); }
static kiln_value *dv(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_DIVF, x, y); }
static kiln_value *sel(kiln_builder *b, int pred, kiln_value *x, kiln_value *y, kiln_value *t, kiln_value *f) {
  return oi_select(b, oi_cmpf(b, pred, x, y), t, f);
}

/* x with the sign of s (s < 0: -|x|). */
static kiln_value *with_sign(kiln_builder *b, kiln_value *x, kiln_value *s) {
  return sel(b, OI_F_OLT, s, k(b, s, 0), oi_op1(b, KILN_OP_ARITH_NEGF, x), x);
}

kiln_value *oi_log1p(kiln_builder *b, kiln_value *y) {
  kiln_value *one = k(b, y, 1), *u = add(b, one, y);
  kiln_value *r = dv(b, mul(b, oi_op1(b, KILN_OP_MATH_LOG, u), y), sub(b, u, one));
  r = sel(b, OI_F_OEQ, u, one, y, r);                      /* 1 + y rounds to 1 */
  return sel(b, OI_F_OEQ, u, k(b, y, INFINITY), u, r);     /* log1p(inf) = inf */
}

kiln_value *oi_atan(kiln_builder *b, kiln_value *x) {
  kiln_value *a = oi_op1(b, KILN_OP_MATH_ABSF, x), *one = k(b, x, 1);
  /* |x| > tan(3pi/8): pi/2 - atan(1/|x|); > tan(pi/8): pi/4 + atan((|x|-1)/(|x|+1)) */
  kiln_value *big = oi_cmpf(b, OI_F_OGT, a, k(b, x, 2.414213562373095));
  kiln_value *mid = oi_cmpf(b, OI_F_OGT, a, k(b, x, 0.4142135623730950));
  kiln_value *t = oi_select(b, big, oi_op1(b, KILN_OP_ARITH_NEGF, dv(b, one, a)),
                            oi_select(b, mid, dv(b, sub(b, a, one), add(b, a, one)), a));
  kiln_value *y0 = oi_select(b, big, k(b, x, PI / 2), oi_select(b, mid, k(b, x, PI / 4), k(b, x, 0)));
  kiln_value *z = mul(b, t, t);
  kiln_value *p = k(b, x, 8.05374449538e-2);
  p = sub(b, mul(b, p, z), k(b, x, 1.38776856032e-1));
  p = add(b, mul(b, p, z), k(b, x, 1.99777106478e-1));
  p = sub(b, mul(b, p, z), k(b, x, 3.33329491539e-1));
  kiln_value *r = add(b, y0, add(b, mul(b, mul(b, p, z), t), t));
  return with_sign(b, r, x);
}

kiln_value *oi_asin(kiln_builder *b, kiln_value *x) {
  kiln_value *one = k(b, x, 1);
  kiln_value *c = oi_op1(b, KILN_OP_MATH_SQRT, mul(b, sub(b, one, x), add(b, one, x)));
  return oi_atan(b, dv(b, x, c)); /* x = +-1: atan(+-inf) = +-pi/2 */
}

kiln_value *oi_acos(kiln_builder *b, kiln_value *x) {
  kiln_value *one = k(b, x, 1);
  kiln_value *t = oi_op1(b, KILN_OP_MATH_SQRT, dv(b, sub(b, one, x), add(b, one, x)));
  return mul(b, k(b, x, 2), oi_atan(b, t));
}

kiln_value *oi_sinh(kiln_builder *b, kiln_value *x) {
  kiln_value *e = oi_op1(b, KILN_OP_MATH_EXP, x), *en = oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, x));
  kiln_value *big = mul(b, sub(b, e, en), k(b, x, 0.5));
  /* |x| < 0.5: x + x^3/3! + x^5/5! + x^7/7! (next term < 1e-8 relative) */
  kiln_value *z = mul(b, x, x);
  kiln_value *p = add(b, mul(b, k(b, x, 1.0 / 5040), z), k(b, x, 1.0 / 120));
  p = add(b, mul(b, p, z), k(b, x, 1.0 / 6));
  kiln_value *small = add(b, mul(b, mul(b, p, z), x), x);
  return sel(b, OI_F_OLT, oi_op1(b, KILN_OP_MATH_ABSF, x), k(b, x, 0.5), small, big);
}

kiln_value *oi_cosh(kiln_builder *b, kiln_value *x) {
  kiln_value *e = oi_op1(b, KILN_OP_MATH_EXP, x), *en = oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, x));
  return mul(b, add(b, e, en), k(b, x, 0.5));
}

/* |x| beyond this: x*x would overflow f32; log(2|x|) is exact enough. */
#define OI_HUGE 268435456.0

kiln_value *oi_asinh(kiln_builder *b, kiln_value *x) {
  kiln_value *a = oi_op1(b, KILN_OP_MATH_ABSF, x), *one = k(b, x, 1), *z = mul(b, a, a);
  /* log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) */
  kiln_value *r = oi_log1p(b, add(b, a, dv(b, z, add(b, one, oi_op1(b, KILN_OP_MATH_SQRT, add(b, one, z))))));
  kiln_value *huge = add(b, oi_op1(b, KILN_OP_MATH_LOG, a), k(b, x, LN2));
  return with_sign(b, sel(b, OI_F_OGT, a, k(b, x, OI_HUGE), huge, r), x);
}

kiln_value *oi_acosh(kiln_builder *b, kiln_value *x) {
  /* log1p(t + sqrt(t (t + 2))), t = x - 1: exact near 1 */
  kiln_value *t = sub(b, x, k(b, x, 1));
  kiln_value *r = oi_log1p(b, add(b, t, oi_op1(b, KILN_OP_MATH_SQRT, mul(b, t, add(b, t, k(b, x, 2))))));
  kiln_value *huge = add(b, oi_op1(b, KILN_OP_MATH_LOG, x), k(b, x, LN2));
  return sel(b, OI_F_OGT, x, k(b, x, OI_HUGE), huge, r);
}

kiln_value *oi_atanh(kiln_builder *b, kiln_value *x) {
  /* log1p(2x / (1 - x)) / 2 */
  kiln_value *y = dv(b, mul(b, k(b, x, 2), x), sub(b, k(b, x, 1), x));
  return mul(b, k(b, x, 0.5), oi_log1p(b, y));
}

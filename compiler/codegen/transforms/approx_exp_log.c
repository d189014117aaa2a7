/* exp, exp2, log, log2, powf and rsqrt as arith (approximate-math).
 *   exp:  k = round(x / ln2) (by a magic-number add, no conversion),
 *         r = x - k*ln2 (ln2 split in two parts so k*ln2_hi is exact),
 *         e^r by its Taylor polynomial (|r| <= ln2/2: degree 7 for f32,
 *         13 for f64), times 2^k built from exponent bits in two halves
 *         (so subnormal and near-overflow results need no special case;
 *         one, where the exp only feeds a sigmoid's denominator). x is
 *         clamped where the result is 0 or inf; NaN propagates.
 *   log:  x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
 *         s = (m-1)/(m+1), by its odd series (|s| <= 0.172); subnormal
 *         inputs are scaled first; 0 -> -inf, x < 0 -> NaN, inf -> inf.
 *         f32 operands are evaluated in f64 and rounded once.
 *   pow:  exp(y * log|x|) (in f64 for f32 operands, so the product's
 *         error does not grow with |y log x|), with the signs and special
 *         cases of IEEE pow for negative x, y = 0 and x = 1; a constant
 *         y of 0, 1, 2 or -1 is 1, x, x*x or 1/x.
 *   rsqrt: 1 / sqrt(x) (sqrt is an instruction on every target). */
#include "approx.h"

#include <math.h>

static const double LN2_HI_F32 = 0.693115234375, LN2_LO_F32 = 3.1946184945309415e-05;
static const double LN2_HI_F64 = 0.6931471806019545, LN2_LO_F64 = -4.2009150726810846e-11;
static const double LOG2E = 1.4426950408889634, LN2 = 0.6931471805599453;

/* p * 2^k for integer k (type a->it) in the range the callers clamp to. */
static kiln_value *scale(ap *a, kiln_value *p, kiln_value *k) {
  kiln_value *k1 = ap_op2(a, KILN_OP_ARITH_SHRSI, k, ap_i(a, 1));
  kiln_value *k2 = ap_op2(a, KILN_OP_ARITH_SUBI, k, k1);
  kiln_value *bias = ap_i(a, ap_bias(a)), *sh = ap_i(a, ap_mant_bits(a));
  kiln_value *s1 = ap_from_bits(a, ap_op2(a, KILN_OP_ARITH_SHLI, ap_op2(a, KILN_OP_ARITH_ADDI, k1, bias), sh));
  kiln_value *s2 = ap_from_bits(a, ap_op2(a, KILN_OP_ARITH_SHLI, ap_op2(a, KILN_OP_ARITH_ADDI, k2, bias), sh));
  return ap_mul(a, ap_mul(a, p, s1), s2);
}

/* e^r for |r| <= ln2/2. f64: the Taylor polynomial of degree 13. f32:
 * degree 6, 1 + r + c2 r^2 + ... + c6 r^6 with c2..c6 fitted for the
 * least maximum relative error over that interval (Lawson-weighted least
 * squares on Chebyshev nodes; the values are those of f32): 3.1e-9 in
 * exact arithmetic, below degree 7 Taylor's 5.3e-9, at one fma less, which
 * is about 5% of a convolution with a SiLU epilogue (EfficientNet's
 * expansions). With sign -1, p(-r) (its odd coefficients negated). */
static kiln_value *exp_poly(ap *a, kiln_value *r, double sign) {
  static const double c32[7] = {1.0, 1.0, 0.4999999403953552, 0.1666652113199234, 0.04166838899254799,
                                0.008368710055947304, 0.001381461275741458};
  double c[14];
  int n = a->f64 ? 14 : 7;
  double f = 1, s = 1;
  for (int i = 0; i < n; i++, s *= sign) {
    if (i) f *= i;
    c[i] = s * (a->f64 ? 1.0 / f : c32[i]);
  }
  return ap_poly(a, r, c, n);
}

/* round(v) as an integer (half away from zero); |v| is small here. */
static kiln_value *round_int(ap *a, kiln_value *v) {
  kiln_value *half = ap_copysign(a, ap_f(a, 0.5), v);
  return ap_cast(a, KILN_OP_ARITH_FPTOSI, ap_add(a, v, half), a->it);
}

static kiln_value *keep_nan(ap *a, kiln_value *x, kiln_value *r) {
  return ap_sel(a, ap_cmpf(a, AP_UNO, x, x), x, r);
}

/* e^x, or e^-x with sign -1: then each step runs on x with the signs of
 * the clamp's bounds, of LOG2E and of the reduced argument flipped, and
 * the polynomial on -r (exp_poly): every rounding is symmetric, so the
 * values are those of e^(negf x) bit for bit, without the negation (a
 * sigmoid's exp(-x): one op of about 20 a SiLU vector less). */
static kiln_value *exp_signed(ap *a, kiln_value *x, double sign) {
  /* A sigmoid's denominator needs no subnormal results: clamped where
   * 2^k stays a normal number, one scale (three ops) replaces two. */
  bool one = a->denominator;
  double lo = a->f64 ? (one ? -708.0 : -746.0) : (one ? -87.0 : -104.0);
  double hi = a->f64 ? 710.0 : 89.0;
  kiln_value *c = sign < 0 ? ap_clamp(a, x, -hi, -lo) : ap_clamp(a, x, lo, hi);
  /* k = round(c / ln2) by adding 1.5 * 2^mant: the sum's low mantissa
   * bits are k (round to nearest), read back as an integer without a
   * float-to-int conversion, so a NaN needs no special case: it stays
   * NaN through the polynomial and the product. */
  int mb = ap_mant_bits(a);
  double magic = 1.5 * ldexp(1.0, mb);
  int64_t magic_bits = a->f64 ? (int64_t)0x4338000000000000 : (int64_t)0x4B400000;
  kiln_value *t = ap_fma(a, c, ap_f(a, sign * LOG2E), ap_f(a, magic));
  kiln_value *kf = ap_sub(a, t, ap_f(a, magic));
  kiln_value *k = ap_op2(a, KILN_OP_ARITH_SUBI, ap_bits(a, t), ap_i(a, magic_bits));
  kiln_value *r = ap_fma(a, kf, ap_f(a, -sign * (a->f64 ? LN2_HI_F64 : LN2_HI_F32)), c);
  r = ap_fma(a, kf, ap_f(a, -sign * (a->f64 ? LN2_LO_F64 : LN2_LO_F32)), r);
  kiln_value *p = exp_poly(a, r, sign);
  if (!one) return scale(a, p, k);
  kiln_value *s = ap_op2(a, KILN_OP_ARITH_SHLI, ap_op2(a, KILN_OP_ARITH_ADDI, k, ap_i(a, ap_bias(a))),
                         ap_i(a, mb));
  return ap_mul(a, p, ap_from_bits(a, s));
}

kiln_value *ap_exp(ap *a, kiln_value *x) { return exp_signed(a, x, 1.0); }
kiln_value *ap_exp_neg(ap *a, kiln_value *x) { return exp_signed(a, x, -1.0); }

kiln_value *ap_exp2(ap *a, kiln_value *x) {
  kiln_value *c = ap_clamp(a, x, a->f64 ? -1076.0 : -151.0, a->f64 ? 1025.0 : 129.0);
  kiln_value *cs = ap_sel(a, ap_cmpf(a, AP_UNO, c, c), ap_f(a, 0.0), c);
  kiln_value *k = round_int(a, cs);
  kiln_value *kf = ap_cast(a, KILN_OP_ARITH_SITOFP, k, a->ft);
  kiln_value *r = ap_mul(a, ap_sub(a, cs, kf), ap_f(a, LN2));
  return keep_nan(a, x, scale(a, exp_poly(a, r, 1.0), k));
}

/* log(x) split as e (exponent, float) and log(m); specials resolved. */
static void log_parts(ap *a, kiln_value *x, kiln_value **ef, kiln_value **logm) {
  double tiny = a->f64 ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
  int sub_shift = a->f64 ? 54 : 24;
  kiln_value *sub = ap_cmpf(a, AP_OLT, x, ap_f(a, tiny));
  kiln_value *xs = ap_sel(a, sub, ap_mul(a, x, ap_f(a, ldexp(1.0, sub_shift))), x);
  kiln_value *eadj = ap_sel(a, sub, ap_i(a, -sub_shift), ap_i(a, 0));
  kiln_value *bits = ap_bits(a, xs);
  int mb = ap_mant_bits(a);
  kiln_value *e = ap_op2(a, KILN_OP_ARITH_SUBI, ap_op2(a, KILN_OP_ARITH_SHRSI, bits, ap_i(a, mb)),
                         ap_i(a, ap_bias(a)));
  int64_t mask = ((int64_t)1 << mb) - 1;
  kiln_value *mbits = ap_op2(a, KILN_OP_ARITH_ORI, ap_op2(a, KILN_OP_ARITH_ANDI, bits, ap_i(a, mask)),
                             ap_i(a, (int64_t)ap_bias(a) << mb));
  kiln_value *m = ap_from_bits(a, mbits);
  kiln_value *big = ap_cmpf(a, AP_OGT, m, ap_f(a, 1.4142135623730951));
  m = ap_sel(a, big, ap_mul(a, m, ap_f(a, 0.5)), m);
  e = ap_op2(a, KILN_OP_ARITH_ADDI, e, ap_sel(a, big, ap_i(a, 1), ap_i(a, 0)));
  e = ap_op2(a, KILN_OP_ARITH_ADDI, e, eadj);
  kiln_value *f = ap_sub(a, m, ap_f(a, 1.0));
  kiln_value *s = ap_div(a, f, ap_add(a, f, ap_f(a, 2.0)));
  kiln_value *z = ap_mul(a, s, s);
  double c[11];
  int n = a->f64 ? 11 : 5;
  for (int i = 0; i < n; i++) c[i] = 2.0 / (2 * i + 1);
  *logm = ap_mul(a, s, ap_poly(a, z, c, n));
  *ef = ap_cast(a, KILN_OP_ARITH_SITOFP, e, a->ft);
}

/* NaN for x < 0, -inf for 0, inf for inf, NaN for NaN. */
static kiln_value *log_specials(ap *a, kiln_value *x, kiln_value *r) {
  r = ap_sel(a, ap_cmpf(a, AP_OEQ, x, ap_f(a, INFINITY)), x, r);
  r = ap_sel(a, ap_cmpf(a, AP_OEQ, x, ap_f(a, 0.0)), ap_f(a, -INFINITY), r);
  r = ap_sel(a, ap_cmpf(a, AP_OLT, x, ap_f(a, 0.0)), ap_f(a, NAN), r);
  return keep_nan(a, x, r);
}

/* f32 logarithms run in f64 and round once: the series' rounding errors
 * then stay far below half an f32 ulp. */
static kiln_value *via_f64(ap *a, kiln_value *x, kiln_value *(*fn)(ap *, kiln_value *)) {
  ap w;
  ap_retype(&w, a, kiln_type_f64(a->ctx));
  kiln_value *r = fn(&w, ap_cast(&w, KILN_OP_ARITH_EXTF, x, w.ft));
  return ap_cast(a, KILN_OP_ARITH_TRUNCF, r, a->ft);
}

kiln_value *ap_log(ap *a, kiln_value *x) {
  if (!a->f64) return via_f64(a, x, ap_log);
  kiln_value *ef, *logm;
  log_parts(a, x, &ef, &logm);
  kiln_value *lo = ap_add(a, logm, ap_mul(a, ef, ap_f(a, a->f64 ? LN2_LO_F64 : LN2_LO_F32)));
  kiln_value *r = ap_add(a, ap_mul(a, ef, ap_f(a, a->f64 ? LN2_HI_F64 : LN2_HI_F32)), lo);
  return log_specials(a, x, r);
}

kiln_value *ap_log2(ap *a, kiln_value *x) {
  if (!a->f64) return via_f64(a, x, ap_log2);
  kiln_value *ef, *logm;
  log_parts(a, x, &ef, &logm);
  return log_specials(a, x, ap_add(a, ef, ap_mul(a, logm, ap_f(a, LOG2E))));
}

/* The value of a constant exponent: an arith.constant scalar or splat, or
 * a vector.broadcast of a scalar one. */
static bool const_exponent(kiln_value *y, double *v) {
  if (y->def && y->def->kind == KILN_OP_VECTOR_BROADCAST) y = kiln_op_operand(y->def, 0);
  const kiln_attr *c = kiln_value_constant(y);
  if (!c) return false;
  if (c->kind == KILN_ATTR_FLOAT) *v = c->f;
  else if (c->kind == KILN_ATTR_DENSE && c->splat) *v = kiln_dense_get_float(c, 0);
  else return false;
  return true;
}

kiln_value *ap_pow(ap *a, kiln_value *x, kiln_value *y) {
  /* Exponents whose power is one correctly rounded operation, with pow's
   * special values (pow(x, 0) = 1 also for NaN; pow(+-0, -1) = +-inf):
   * the Pow(x, 2) of a LayerNorm's variance costs one multiply, not a
   * log and an exp per element. */
  double c;
  if (const_exponent(y, &c)) {
    if (c == 0) return ap_f(a, 1.0);
    if (c == 1) return x;
    if (c == 2) return ap_mul(a, x, x);
    if (c == -1) return ap_div(a, ap_f(a, 1.0), x);
  }
  kiln_value *ax = ap_abs(a, x);
  kiln_value *r;
  if (!a->f64) {
    ap w;
    ap_retype(&w, a, kiln_type_f64(a->ctx));
    kiln_value *X = ap_cast(&w, KILN_OP_ARITH_EXTF, ax, w.ft);
    kiln_value *Y = ap_cast(&w, KILN_OP_ARITH_EXTF, y, w.ft);
    kiln_value *R = ap_exp(&w, ap_mul(&w, Y, ap_log(&w, X)));
    r = ap_cast(a, KILN_OP_ARITH_TRUNCF, R, a->ft);
  } else {
    r = ap_exp(a, ap_mul(a, y, ap_log(a, ax)));
  }
  kiln_value *fy = ap_floor(a, y);
  kiln_value *yint = ap_cmpf(a, AP_OEQ, fy, y);
  kiln_value *h = ap_floor(a, ap_mul(a, y, ap_f(a, 0.5)));
  kiln_value *yodd = ap_op2(a, KILN_OP_ARITH_ANDI, yint,
                            ap_cmpf(a, AP_UNE, ap_mul(a, h, ap_f(a, 2.0)), y));
  /* A sign bit (also -0) with an odd integer y flips the sign; x < 0
   * with a non-integer y has no real result. */
  kiln_value *sign = ap_cmpi(a, AP_SLT, ap_bits(a, x), ap_i(a, 0));
  kiln_value *flip = ap_op2(a, KILN_OP_ARITH_ANDI, sign, yodd);
  r = ap_sel(a, flip, ap_op1(a, KILN_OP_ARITH_NEGF, r), r);
  kiln_value *bad = ap_op2(a, KILN_OP_ARITH_ANDI, ap_cmpf(a, AP_OLT, x, ap_f(a, 0.0)),
                           ap_cmpf(a, AP_UNE, fy, y));
  r = ap_sel(a, bad, ap_f(a, NAN), r);
  kiln_value *one = ap_f(a, 1.0);
  r = ap_sel(a, ap_cmpf(a, AP_OEQ, x, one), one, r);
  return ap_sel(a, ap_cmpf(a, AP_OEQ, y, ap_f(a, 0.0)), one, r);
}

kiln_value *ap_rsqrt(ap *a, kiln_value *x) {
  return ap_div(a, ap_f(a, 1.0), ap_op1(a, KILN_OP_MATH_SQRT, x));
}

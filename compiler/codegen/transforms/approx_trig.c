/* sin, cos, tanh and erf as arith (approximate-math).
 *   sin/cos: k = round(x * 2/pi), r = x - k*pi/2 with pi/2 split in three
 *     (Cody-Waite; exact products for |k| < 2^12 in f32, 2^20 in f64, so
 *     accurate for |x| up to about 6e3 / 1.6e6, degrading beyond), then
 *     the Taylor polynomials of sin and cos on |r| <= pi/4 picked and
 *     negated by the quadrant k mod 4. Infinities and NaN give NaN.
 *   tanh: odd Taylor polynomial for |x| < 0.55 (f32) / 0.1 (f64), else
 *     (1 - e) / (1 + e) with e = exp(-2|x|), sign copied from x.
 *   erf: f64: the Maclaurin series for |x| <= 0.75, the Taylor series
 *     about 1.25 up to 1.75, else 1 - exp(-x^2) / (sqrt(pi) * CF) with
 *     the continued fraction of erfc evaluated bottom-up from 64 terms.
 *     f32 where the target fuses multiply-adds: in f32, three
 *     Chebyshev-interpolating polynomials (erf_f32_fused); elsewhere in
 *     f64 (the Maclaurin series for |x| <= 0.5, else one polynomial on
 *     [0.5, 4]: erf_f32). */
#include "approx.h"

#include <math.h>

static const double PIO2_F32[3] = {1.57080078125, -4.453584551811218e-06, -8.705515695504166e-10};
static const double PIO2_F64[3] = {1.5707963267341256, 6.077100506303966e-11,
                                   2.0222662487959506e-21};

static kiln_value *sin_cos(ap *a, kiln_value *x, int shift) {
  kiln_value *fin = ap_cmpf(a, AP_OLT, ap_abs(a, x), ap_f(a, INFINITY)); /* false for NaN */
  kiln_value *xs = ap_sel(a, fin, x, ap_f(a, 0.0));
  double lim = a->f64 ? 4503599627370496.0 : 4194304.0;
  kiln_value *q = ap_mul(a, xs, ap_f(a, 0.6366197723675814));
  q = ap_clamp(a, q, -lim, lim);
  kiln_value *k = ap_cast(a, KILN_OP_ARITH_FPTOSI, ap_add(a, q, ap_copysign(a, ap_f(a, 0.5), q)), a->it);
  kiln_value *kf = ap_cast(a, KILN_OP_ARITH_SITOFP, k, a->ft);
  const double *p = a->f64 ? PIO2_F64 : PIO2_F32;
  kiln_value *r = xs;
  for (int i = 0; i < 3; i++) r = ap_sub(a, r, ap_mul(a, kf, ap_f(a, p[i])));
  r = ap_clamp(a, r, -0.8, 0.8); /* |r| <= pi/4 where the reduction holds */
  kiln_value *z = ap_mul(a, r, r);
  double cs[9], cc[9];
  int n = a->f64 ? 9 : 5;
  for (int i = 0; i < n; i++) { /* -1/3!, 1/5!, ... and 1/4!, -1/6!, ... */
    double fs = 1, fc = 1;
    for (int j = 2; j <= 2 * i + 3; j++) fs *= j;
    for (int j = 2; j <= 2 * i + 4; j++) fc *= j;
    cs[i] = (i % 2 ? 1.0 : -1.0) / fs;
    cc[i] = (i % 2 ? -1.0 : 1.0) / fc;
  }
  kiln_value *sinr = ap_add(a, r, ap_mul(a, ap_mul(a, r, z), ap_poly(a, z, cs, n)));
  kiln_value *cosr = ap_add(a, ap_sub(a, ap_f(a, 1.0), ap_mul(a, z, ap_f(a, 0.5))),
                            ap_mul(a, ap_mul(a, z, z), ap_poly(a, z, cc, n)));
  kiln_value *qq = shift ? ap_op2(a, KILN_OP_ARITH_ADDI, k, ap_i(a, shift)) : k;
  kiln_value *odd = ap_cmpi(a, AP_NE, ap_op2(a, KILN_OP_ARITH_ANDI, qq, ap_i(a, 1)), ap_i(a, 0));
  kiln_value *neg = ap_cmpi(a, AP_NE, ap_op2(a, KILN_OP_ARITH_ANDI, qq, ap_i(a, 2)), ap_i(a, 0));
  kiln_value *v = ap_sel(a, odd, cosr, sinr);
  v = ap_sel(a, neg, ap_op1(a, KILN_OP_ARITH_NEGF, v), v);
  /* Beyond the reduction's range r is garbage; keep the result bounded. */
  v = ap_clamp(a, v, -1.0, 1.0);
  if (!shift) /* sin(+-0) = +-0 */
    v = ap_sel(a, ap_cmpf(a, AP_OEQ, x, ap_f(a, 0.0)), x, v);
  return ap_sel(a, fin, v, ap_f(a, NAN));
}

kiln_value *ap_sin(ap *a, kiln_value *x) { return sin_cos(a, x, 0); }
kiln_value *ap_cos(ap *a, kiln_value *x) { return sin_cos(a, x, 1); }

kiln_value *ap_tanh(ap *a, kiln_value *x) {
  static const double c[7] = {-1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925,
                              21844.0 / 6081075, -929569.0 / 638512875};
  kiln_value *ax = ap_abs(a, x);
  kiln_value *z = ap_mul(a, x, x);
  kiln_value *small = ap_add(a, x, ap_mul(a, ap_mul(a, x, z), ap_poly(a, z, c, 7)));
  kiln_value *e = ap_exp(a, ap_mul(a, ax, ap_f(a, -2.0)));
  kiln_value *one = ap_f(a, 1.0);
  kiln_value *large = ap_div(a, ap_sub(a, one, e), ap_add(a, one, e));
  kiln_value *r = ap_sel(a, ap_cmpf(a, AP_OLT, ax, ap_f(a, a->f64 ? 0.1 : 0.55)), small, large);
  return ap_copysign(a, r, x); /* odd: also tanh(-0) = -0 */
}

/* Taylor coefficients of erf about x0: c0 = erf(x0) (the compiler's libm,
 * not the generated code's), c_n = erf^(n)(x0) / n! with erf^(n)(x) =
 * 2/sqrt(pi) (-1)^(n-1) H_{n-1}(x) e^(-x^2) (physicists' Hermite). */
static void erf_taylor(double x0, double *c, int n) {
  double h[64];
  h[0] = 1;
  h[1] = 2 * x0;
  for (int k = 1; k + 1 < n; k++) h[k + 1] = 2 * x0 * h[k] - 2 * k * h[k - 1];
  double g = exp(-x0 * x0) * 1.1283791670955126, f = 1;
  c[0] = erf(x0);
  for (int i = 1; i < n; i++) {
    f *= i;
    c[i] = (i % 2 ? 1.0 : -1.0) * h[i - 1] * g / f;
  }
}

/* Monomial coefficients (in s = (x - mid) / half) of the polynomial of
 * degree n - 1 interpolating f at the n Chebyshev nodes of [lo, hi]
 * (near-minimax; the compiler's libm gives the values). */
#define ERF_CHEB_MAX 24
static const double ERF_PI = 3.14159265358979323846;
static void chebyshev(double (*fn)(double), double lo, double hi, int n, double *mono) {
  double mid = (lo + hi) / 2, half = (hi - lo) / 2, f[ERF_CHEB_MAX], c[ERF_CHEB_MAX];
  for (int k = 0; k < n; k++) f[k] = fn(mid + half * cos(ERF_PI * (k + 0.5) / n));
  for (int j = 0; j < n; j++) {
    double sum = 0;
    for (int k = 0; k < n; k++) sum += f[k] * cos(ERF_PI * j * (k + 0.5) / n);
    c[j] = sum * 2 / n;
  }
  c[0] /= 2;
  /* sum c_j T_j(s) with T_{j+1} = 2 s T_j - T_{j-1}, in monomials */
  double t0[ERF_CHEB_MAX] = {1}, t1[ERF_CHEB_MAX] = {0, 1}, t2[ERF_CHEB_MAX];
  for (int i = 0; i < n; i++) mono[i] = 0;
  mono[0] = c[0];
  for (int i = 0; i < n; i++) mono[i] += c[1] * t1[i];
  for (int j = 2; j < n; j++) {
    for (int i = 0; i < n; i++) t2[i] = 2 * (i ? t1[i - 1] : 0) - t0[i];
    for (int i = 0; i < n; i++) mono[i] += c[j] * t2[i], t0[i] = t1[i], t1[i] = t2[i];
  }
}

/* The same interpolant in powers of u = x - at (unscaled, so that f32
 * code forms u with one subtraction, exact where at/2 <= x <= 2 at). */
static void chebyshev_at(double (*fn)(double), double lo, double hi, int n, double at, double *u) {
  double s[ERF_CHEB_MAX], a = (at - (lo + hi) / 2) / ((hi - lo) / 2), b = 2 / (hi - lo);
  chebyshev(fn, lo, hi, n, s);
  /* Horner over polynomials: u <- u * (a + b u) + s_i */
  for (int i = 0; i < n; i++) u[i] = 0;
  u[0] = s[n - 1];
  for (int i = n - 2; i >= 0; i--) {
    for (int j = n - 1; j > 0; j--) u[j] = u[j] * a + u[j - 1] * b;
    u[0] = u[0] * a + s[i];
  }
}

static double erf_over_x(double z) {
  double x = sqrt(z);
  return x > 0 ? erf(x) / x : 1.1283791670955126; /* 2/sqrt(pi) */
}
static double erf_(double x) { return erf(x); }
static double erfc_(double x) { return erfc(x); }

/* 1 - erfc(x) on [lo, hi] in u = x - at: (1 - c0) split in two f32s so
 * that neither the constant nor the subtraction from 1 is rounded
 * twice; the polynomial part is below a quarter of the result. */
static kiln_value *erf_piece(ap *a, kiln_value *ax, double lo, double hi, int n, double at) {
  double c[ERF_CHEB_MAX], w[ERF_CHEB_MAX];
  chebyshev_at(erfc_, lo, hi, n, at, c);
  for (int i = 1; i < n; i++) w[i - 1] = -c[i];
  double k = 1 - c[0], kh = (float)k;
  kiln_value *u = ap_sub(a, ax, ap_f(a, at));
  kiln_value *inner = ap_fma(a, ap_poly(a, u, w, n - 1), u, ap_f(a, k - kh));
  return ap_add(a, ap_f(a, kh), inner);
}

/* f32 in f32 where multiply-adds are fused (about 35 operations, twice
 * the lanes of f64): |x| <= 0.75: x * g(x^2), g (7 terms) with its
 * constant 2/sqrt(pi) split in two so x * g is rounded once; 0.75 < |x|
 * <= 1.5 and 1.5 < |x| < 3.96 (where erf rounds to 1): 1 - erfc with
 * erfc interpolated in x - 1.125 (10 terms) and x - 2.75 (13 terms), both
 * subtractions exact at the lower end, where erfc is steep. Max error 0.8
 * ulp (tests/unit/codegen_llvm/test_approx). */
static kiln_value *erf_f32_fused(ap *a, kiln_value *x) {
  kiln_value *ax = ap_abs(a, x);
  double g[7];
  chebyshev_at(erf_over_x, 0, 0.5625, 7, 0, g);
  double gh = (float)g[0];
  g[0] -= gh;
  kiln_value *q = ap_poly(a, ap_mul(a, ax, ax), g, 7);
  kiln_value *small = ap_fma(a, ax, ap_f(a, gh), ap_mul(a, ax, q));
  kiln_value *mid = erf_piece(a, ax, 0.75, 1.5, 10, 1.125);
  kiln_value *far = erf_piece(a, ap_clamp(a, ax, 1.5, 3.96), 1.5, 3.96, 13, 2.75);
  kiln_value *r = ap_sel(a, ap_cmpf(a, AP_OLE, ax, ap_f(a, 1.5)), mid, far);
  r = ap_sel(a, ap_cmpf(a, AP_OLE, ax, ap_f(a, 0.75)), small, r);
  return ap_copysign(a, r, x);
}

/* f32: evaluated in f64 without divisions: |x| <= 0.5 by the Maclaurin
 * series (8 terms, relative error 2e-11), 0.5 < |x| by one polynomial of
 * degree 18 on [0.5, 4] (absolute error 9e-10, 0.015 ulp of the f32
 * result); at |x| >= 4, 1 - erf(x) < 1.6e-8 rounds to 1 in f32, so |x| is
 * clamped to 4. About 30 f64 multiply-adds: the GELU of a transformer
 * evaluates it once per hidden activation. */
static kiln_value *erf_f32(ap *a, kiln_value *x) {
  ap w;
  ap_retype(&w, a, kiln_type_f64(a->ctx));
  kiln_value *X = ap_cast(&w, KILN_OP_ARITH_EXTF, x, w.ft);
  kiln_value *ax = ap_abs(&w, X);
  double c[8], fact = 1;
  for (int n = 0; n < 8; n++) {
    if (n) fact *= n;
    c[n] = (n % 2 ? -1.0 : 1.0) / (fact * (2 * n + 1)) * 1.1283791670955126;
  }
  kiln_value *small = ap_mul(&w, ax, ap_poly(&w, ap_mul(&w, ax, ax), c, 8));
  double m[19];
  chebyshev(erf_, 0.5, 4.0, 19, m);
  kiln_value *s = ap_mul(&w, ap_sub(&w, ap_clamp(&w, ax, 0.5, 4.0), ap_f(&w, 2.25)), ap_f(&w, 1 / 1.75));
  kiln_value *large = ap_poly(&w, s, m, 19);
  kiln_value *r = ap_sel(&w, ap_cmpf(&w, AP_OLE, ax, ap_f(&w, 0.5)), small, large);
  r = ap_copysign(&w, r, X);
  return ap_cast(a, KILN_OP_ARITH_TRUNCF, r, a->ft);
}

kiln_value *ap_erf(ap *a, kiln_value *x) {
  if (!a->f64) return a->fused ? erf_f32_fused(a, x) : erf_f32(a, x);
  ap w;
  ap_retype(&w, a, kiln_type_f64(a->ctx));
  kiln_value *X = a->f64 ? x : ap_cast(&w, KILN_OP_ARITH_EXTF, x, w.ft);
  kiln_value *ax = ap_abs(&w, X);
  kiln_value *z = ap_mul(&w, ax, ax);
  /* |x| <= 0.75: Maclaurin series in x^2 (terms alternate but stay below
   * the result, so no digits cancel). */
  double c[33], fact = 1;
  for (int n = 0; n < 22; n++) {
    if (n) fact *= n;
    c[n] = (n % 2 ? -1.0 : 1.0) / (fact * (2 * n + 1)) * 1.1283791670955126; /* 2/sqrt(pi) */
  }
  kiln_value *small = ap_mul(&w, ax, ap_poly(&w, z, c, 22));
  /* 0.75 < |x| <= 1.75: Taylor series about 1.25 (all terms small against
   * erf(1.25) = 0.92). */
  double t[30];
  erf_taylor(1.25, t, 30);
  kiln_value *mid = ap_poly(&w, ap_sub(&w, ax, ap_f(&w, 1.25)), t, 30);
  /* |x| > 1.75: 1 - erfc with erfc's continued fraction. */
  kiln_value *cf = ax;
  for (int k = 64; k >= 1; k--) cf = ap_add(&w, ax, ap_div(&w, ap_f(&w, k * 0.5), cf));
  kiln_value *erfc = ap_div(&w, ap_exp(&w, ap_op1(&w, KILN_OP_ARITH_NEGF, z)),
                            ap_mul(&w, ap_f(&w, 1.7724538509055159), cf));
  kiln_value *large = ap_sub(&w, ap_f(&w, 1.0), erfc);
  kiln_value *r = ap_sel(&w, ap_cmpf(&w, AP_OLE, ax, ap_f(&w, 1.75)), mid, large);
  r = ap_sel(&w, ap_cmpf(&w, AP_OLE, ax, ap_f(&w, 0.75)), small, r);
  r = ap_copysign(&w, r, X);
  return a->f64 ? r : ap_cast(a, KILN_OP_ARITH_TRUNCF, r, a->ft);
}

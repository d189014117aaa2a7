/* floor, ceil and round (half away from zero) as arith: t = trunc(x)
 * through fptosi/sitofp for |x| < 2^mantissa (larger values, infinities
 * and NaN are already integral or NaN and pass through), adjusted by one
 * where trunc went the wrong way, with the sign of x copied so -0 and
 * negative fractions round to -0. */
#include "approx.h"

#include <math.h>

static kiln_value *trunc_parts(ap *a, kiln_value *x, kiln_value **big, kiln_value **xs) {
  kiln_value *ax = ap_abs(a, x);
  kiln_value *small = ap_cmpf(a, AP_OLT, ax, ap_f(a, ldexp(1.0, ap_mant_bits(a))));
  *big = ap_cmpf(a, AP_UGE, ax, ap_f(a, ldexp(1.0, ap_mant_bits(a)))); /* or NaN */
  *xs = ap_sel(a, small, x, ap_f(a, 0.0)); /* keeps fptosi defined */
  return ap_cast(a, KILN_OP_ARITH_SITOFP, ap_cast(a, KILN_OP_ARITH_FPTOSI, *xs, a->it), a->ft);
}

static kiln_value *finish(ap *a, kiln_value *x, kiln_value *big, kiln_value *r) {
  return ap_sel(a, big, x, ap_copysign(a, r, x));
}

kiln_value *ap_floor(ap *a, kiln_value *x) {
  kiln_value *big, *xs, *t = trunc_parts(a, x, &big, &xs);
  kiln_value *r = ap_sel(a, ap_cmpf(a, AP_OGT, t, xs), ap_sub(a, t, ap_f(a, 1.0)), t);
  return finish(a, x, big, r);
}

kiln_value *ap_ceil(ap *a, kiln_value *x) {
  kiln_value *big, *xs, *t = trunc_parts(a, x, &big, &xs);
  kiln_value *r = ap_sel(a, ap_cmpf(a, AP_OLT, t, xs), ap_add(a, t, ap_f(a, 1.0)), t);
  return finish(a, x, big, r);
}

kiln_value *ap_round(ap *a, kiln_value *x) {
  kiln_value *big, *xs, *t = trunc_parts(a, x, &big, &xs);
  kiln_value *d = ap_abs(a, ap_sub(a, xs, t)); /* exact */
  kiln_value *step = ap_copysign(a, ap_f(a, 1.0), xs);
  kiln_value *r = ap_sel(a, ap_cmpf(a, AP_OGE, d, ap_f(a, 0.5)), ap_add(a, t, step), t);
  return finish(a, x, big, r);
}

/* The emitting helpers of approximate-math (see approx.h): constants are
 * arith.constant scalars or dense splats; every op gets the location of
 * the math op it replaces. */
#include "approx.h"

static const kiln_type *same_shape(kiln_context *ctx, const kiln_type *t, const kiln_type *elem) {
  return t->kind == KILN_TYPE_VECTOR ? kiln_type_vector(ctx, t->rank, t->shape, elem) : elem;
}

void ap_init(ap *a, kiln_op *op, const kiln_type *ft) {
  a->ctx = kiln_op_context(op);
  a->b = kiln_builder_before(op);
  a->b.loc = op->loc;
  a->ft = ft;
  const kiln_type *e = kiln_type_elem_or_self(ft);
  a->f64 = e->kind == KILN_TYPE_F64;
  a->fused = false;
  a->denominator = false;
  a->it = same_shape(a->ctx, ft, kiln_type_int(a->ctx, a->f64 ? 64 : 32));
  a->bt = same_shape(a->ctx, ft, kiln_type_int(a->ctx, 1));
}

void ap_retype(ap *a, const ap *from, const kiln_type *elem) {
  *a = *from;
  a->ft = same_shape(a->ctx, from->ft, elem);
  a->f64 = elem->kind == KILN_TYPE_F64;
  a->it = same_shape(a->ctx, from->ft, kiln_type_int(a->ctx, a->f64 ? 64 : 32));
}

static kiln_value *konst(ap *a, const kiln_type *t, const kiln_attr *scalar_attr,
                         const kiln_attr *splat) {
  return kiln_build_constant(&a->b, t->kind == KILN_TYPE_VECTOR ? splat : scalar_attr);
}

kiln_value *ap_f(ap *a, double v) {
  const kiln_type *e = kiln_type_elem_or_self(a->ft);
  return konst(a, a->ft, kiln_attr_float(a->ctx, e, kiln_float_round(e, v)),
               a->ft->kind == KILN_TYPE_VECTOR ? kiln_attr_dense_splat_float(a->ctx, a->ft, kiln_float_round(e, v)) : NULL);
}

kiln_value *ap_i(ap *a, int64_t v) {
  const kiln_type *e = kiln_type_elem_or_self(a->it);
  return konst(a, a->it, kiln_attr_int(a->ctx, e, v),
               a->it->kind == KILN_TYPE_VECTOR ? kiln_attr_dense_splat_int(a->ctx, a->it, v) : NULL);
}

kiln_value *ap_op2(ap *a, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(&a->b, k, 2, ops, 1, &t, NULL), 0);
}

kiln_value *ap_op1(ap *a, kiln_op_kind k, kiln_value *x) {
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(&a->b, k, 1, &x, 1, &t, NULL), 0);
}

kiln_value *ap_cast(ap *a, kiln_op_kind k, kiln_value *x, const kiln_type *to) {
  return kiln_op_result(kiln_build(&a->b, k, 1, &x, 1, &to, NULL), 0);
}

static kiln_value *cmp(ap *a, kiln_op_kind k, int pred, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *bt = same_shape(a->ctx, x->type, kiln_type_int(a->ctx, 1));
  kiln_named_attr p = {kiln_intern_cstr(a->ctx, "predicate"),
                       kiln_attr_int(a->ctx, kiln_type_int(a->ctx, 64), pred)};
  return kiln_op_result(kiln_build(&a->b, k, 2, ops, 1, &bt, kiln_attr_dict(a->ctx, 1, &p)), 0);
}

kiln_value *ap_cmpf(ap *a, int pred, kiln_value *x, kiln_value *y) {
  return cmp(a, KILN_OP_ARITH_CMPF, pred, x, y);
}
kiln_value *ap_cmpi(ap *a, int pred, kiln_value *x, kiln_value *y) {
  return cmp(a, KILN_OP_ARITH_CMPI, pred, x, y);
}

kiln_value *ap_sel(ap *a, kiln_value *c, kiln_value *x, kiln_value *y) {
  kiln_value *ops[3] = {c, x, y};
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(&a->b, KILN_OP_ARITH_SELECT, 3, ops, 1, &t, NULL), 0);
}

kiln_value *ap_add(ap *a, kiln_value *x, kiln_value *y) { return ap_op2(a, KILN_OP_ARITH_ADDF, x, y); }
kiln_value *ap_sub(ap *a, kiln_value *x, kiln_value *y) { return ap_op2(a, KILN_OP_ARITH_SUBF, x, y); }
kiln_value *ap_mul(ap *a, kiln_value *x, kiln_value *y) { return ap_op2(a, KILN_OP_ARITH_MULF, x, y); }
kiln_value *ap_div(ap *a, kiln_value *x, kiln_value *y) { return ap_op2(a, KILN_OP_ARITH_DIVF, x, y); }
kiln_value *ap_abs(ap *a, kiln_value *x) { return ap_op1(a, KILN_OP_MATH_ABSF, x); }

kiln_value *ap_fma(ap *a, kiln_value *x, kiln_value *y, kiln_value *z) {
  kiln_value *ops[3] = {x, y, z};
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(&a->b, KILN_OP_MATH_FMA, 3, ops, 1, &t, NULL), 0);
}

kiln_value *ap_poly(ap *a, kiln_value *x, const double *c, int n) {
  kiln_value *r = ap_f(a, c[n - 1]);
  for (int i = n - 2; i >= 0; i--) r = ap_fma(a, r, x, ap_f(a, c[i]));
  return r;
}

kiln_value *ap_bits(ap *a, kiln_value *x) { return ap_cast(a, KILN_OP_ARITH_BITCAST, x, a->it); }
kiln_value *ap_from_bits(ap *a, kiln_value *i) { return ap_cast(a, KILN_OP_ARITH_BITCAST, i, a->ft); }
int ap_mant_bits(const ap *a) { return a->f64 ? 52 : 23; }
int ap_bias(const ap *a) { return a->f64 ? 1023 : 127; }

kiln_value *ap_copysign(ap *a, kiln_value *x, kiln_value *s) {
  int64_t sign = a->f64 ? INT64_MIN : (int64_t)INT32_MIN;
  kiln_value *m = ap_op2(a, KILN_OP_ARITH_ANDI, ap_bits(a, x), ap_i(a, ~sign));
  kiln_value *sb = ap_op2(a, KILN_OP_ARITH_ANDI, ap_bits(a, s), ap_i(a, sign));
  return ap_from_bits(a, ap_op2(a, KILN_OP_ARITH_ORI, m, sb));
}

kiln_value *ap_clamp(ap *a, kiln_value *x, double lo, double hi) {
  kiln_value *l = ap_f(a, lo), *h = ap_f(a, hi);
  x = ap_sel(a, ap_cmpf(a, AP_OLT, x, l), l, x);
  return ap_sel(a, ap_cmpf(a, AP_OGT, x, h), h, x);
}

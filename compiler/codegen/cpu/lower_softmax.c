/* linalg.softmax for lower-to-loops: for each position of the other
 * dims, along `dimension`:
 *   m = max_k x[k];  e[k] = exp(x[k] - m), s = sum_k e[k] (out = e);
 *   out[k] = out[k] * (1 / s)
 * (max subtraction keeps exp finite). Max and sum are carried in
 * iter_args. When `dimension` is the last one and contiguous in both
 * operands (static and at least a vector long, or known at run time only:
 * attention's scores over a dynamic sequence), each pass runs on vectors
 * of the kernel's width (lane partials folded by vector.reduction) with a
 * scalar loop for the last len % VW elements (all of them when a run-time
 * len is shorter than a vector). Reading x[k] before writing out[k] keeps it right when
 * input and output are the same buffer. math.exp is left for
 * approximate-math. */
#include "cpu_internal.h"

#include <math.h>
#include <stdio.h>

static kiln_value *dim_value(kiln_builder *b, kiln_value *m, uint32_t d) { return cg_dim(b, m, d); }

static kiln_value *scalar_op(kiln_builder *b, kiln_op_kind k, kiln_value *x) {
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

/* vector.reduction <kind> of v into the scalar acc (reassociation allowed). */
static kiln_value *reduce(kiln_builder *b, const char *kind, kiln_value *v, kiln_value *acc) {
  kiln_context *c = b->ctx;
  kiln_value *ops[2] = {v, acc};
  char k[32];
  snprintf(k, sizeof k, "kind<%s>", kind);
  kiln_named_attr na[2] = {{"fastmath", kiln_attr_opaque(c, "arith", "fastmath<reassoc>")},
                           {"kind", kiln_attr_opaque(c, "vector", k)}};
  return kiln_op_result(
      kiln_build(b, KILN_OP_VECTOR_REDUCTION, 2, ops, 1, &acc->type, kiln_attr_dict(c, 2, na)), 0);
}

/* One loop over [lo, hi) step st carrying one value; *body is its builder,
 * *iv and *arg its induction variable and carried value. */
static kiln_op *loop1(kiln_builder *b, kiln_value *lo, kiln_value *hi, int64_t st, kiln_value *init,
                      kiln_builder *body, kiln_value **iv, kiln_value **arg) {
  kiln_op *l = cg_for(b, lo, hi, cg_index(b, st), init ? 1 : 0, init ? &init : NULL, body);
  *iv = cg_for_iv(l);
  if (arg) *arg = l->regions[0].first->args[1];
  return l;
}

static bool unit_last_stride(const kiln_type *t) {
  int64_t st[KILN_MAX_LOOPS], off;
  return kiln_memref_strides(t, st, &off) && st[t->rank - 1] == 1;
}

/* The row along the last dim on VW-lane vectors (unit strides; length
 * len, KILN_DYNAMIC when only the memref knows it): vector max, exp+sum
 * (stores e), scale; the last len % VW elements of each pass run scalar.
 * A static len gets constant bounds and no remainder loop when VW divides
 * it; a run-time one computes main = len - len % VW once and always has
 * the remainder loop (zero trips when VW divides it). */
static void vector_row(kiln_builder *cur, kiln_value *in, kiln_value *out, kiln_value **ivs,
                       uint32_t rank, int64_t len, int64_t vw) {
  kiln_context *c = cur->ctx;
  const kiln_type *et = in->type->elem, *vt = kiln_type_vector(c, 1, &vw, et);
  uint32_t d = rank - 1;
  const bool dyn = len == KILN_DYNAMIC;
  kiln_value *n = dyn ? cg_dim(cur, in, d) : cg_index(cur, len);
  kiln_value *main = dyn ? cg_bin(cur, KILN_OP_ARITH_SUBI, n, cg_bin(cur, KILN_OP_ARITH_REMUI, n, cg_index(cur, vw)))
                         : cg_index(cur, len / vw * vw);
  const bool tail = dyn || len % vw != 0;
  kiln_value *z0 = cg_index(cur, 0);
  kiln_builder body;
  kiln_value *k, *acc;
  /* pass 1: max */
  kiln_value *ninf = cg_const_like(cur, et, -INFINITY, 0);
  kiln_op *l = loop1(cur, z0, main, vw, cg_broadcast(cur, ninf, vt), &body, &k, &acc);
  ivs[d] = k;
  kiln_value *y = cg_bin(&body, KILN_OP_ARITH_MAXIMUMF, acc, cg_vload(&body, vt, in, rank, ivs));
  cg_for_set_yield(l, 1, &y);
  kiln_value *max = reduce(cur, "maximumf", kiln_op_result(l, 0), ninf);
  if (tail) {
    l = loop1(cur, main, n, 1, max, &body, &k, &acc);
    ivs[d] = k;
    y = cg_bin(&body, KILN_OP_ARITH_MAXIMUMF, acc, cg_load(&body, in, rank, ivs));
    cg_for_set_yield(l, 1, &y);
    max = kiln_op_result(l, 0);
  }
  /* pass 2: e = exp(x - max) into out, sum */
  kiln_value *zero = cg_const_like(cur, et, 0.0, 0), *vmax = cg_broadcast(cur, max, vt);
  l = loop1(cur, z0, main, vw, cg_broadcast(cur, zero, vt), &body, &k, &acc);
  ivs[d] = k;
  kiln_value *e = scalar_op(&body, KILN_OP_MATH_EXP,
                            cg_bin(&body, KILN_OP_ARITH_SUBF, cg_vload(&body, vt, in, rank, ivs), vmax));
  cg_vstore(&body, e, out, rank, ivs);
  y = cg_bin(&body, KILN_OP_ARITH_ADDF, acc, e);
  cg_for_set_yield(l, 1, &y);
  kiln_value *sum = reduce(cur, "add", kiln_op_result(l, 0), zero);
  if (tail) {
    l = loop1(cur, main, n, 1, sum, &body, &k, &acc);
    ivs[d] = k;
    e = scalar_op(&body, KILN_OP_MATH_EXP, cg_bin(&body, KILN_OP_ARITH_SUBF, cg_load(&body, in, rank, ivs), max));
    cg_store(&body, e, out, rank, ivs);
    y = cg_bin(&body, KILN_OP_ARITH_ADDF, acc, e);
    cg_for_set_yield(l, 1, &y);
    sum = kiln_op_result(l, 0);
  }
  /* pass 3: scale */
  kiln_value *inv = cg_bin(cur, KILN_OP_ARITH_DIVF, cg_const_like(cur, et, 1.0, 0), sum);
  kiln_value *vinv = cg_broadcast(cur, inv, vt);
  loop1(cur, z0, main, vw, NULL, &body, &k, NULL);
  ivs[d] = k;
  cg_vstore(&body, cg_bin(&body, KILN_OP_ARITH_MULF, cg_vload(&body, vt, out, rank, ivs), vinv), out, rank,
            ivs);
  if (tail) {
    loop1(cur, main, n, 1, NULL, &body, &k, NULL);
    ivs[d] = k;
    cg_store(&body, cg_bin(&body, KILN_OP_ARITH_MULF, cg_load(&body, out, rank, ivs), inv), out, rank, ivs);
  }
}

kiln_error *cpu_lower_softmax(kiln_op *op, int64_t vw) {
  kiln_value *in = kiln_op_operand(op, 0), *out = kiln_op_operand(op, 1);
  if (in->type->kind != KILN_TYPE_MEMREF || out->type->kind != KILN_TYPE_MEMREF)
    return kiln_op_error(op, "operands must be memrefs (bufferize first)");
  const kiln_type *et = in->type->elem;
  if (!kiln_type_is_float(et)) return kiln_op_error(op, "needs a float element type");
  uint32_t rank = in->type->rank;
  int64_t dim = kiln_op_get_attr(op, "dimension")->i;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *ivs[KILN_MAX_LOOPS];
  kiln_builder cur = b;
  for (uint32_t d = 0; d < rank; d++) {
    if ((int64_t)d == dim) continue;
    kiln_builder body;
    kiln_op *l = cg_for(&cur, cg_index(&cur, 0), dim_value(&cur, in, d), cg_index(&cur, 1), 0, NULL, &body);
    ivs[d] = cg_for_iv(l);
    cur = body;
  }
  int64_t len = in->type->shape[dim];
  if (vw >= 2 && (uint32_t)dim == rank - 1 && (len == KILN_DYNAMIC || len >= vw) &&
      unit_last_stride(in->type) && unit_last_stride(out->type)) {
    vector_row(&cur, in, out, ivs, rank, len, vw);
    return NULL;
  }
  kiln_value *n = dim_value(&cur, in, (uint32_t)dim);
  kiln_value *zero = cg_index(&cur, 0), *one = cg_index(&cur, 1);
  /* pass 1: max */
  kiln_value *init = cg_const_like(&cur, et, -INFINITY, 0);
  kiln_builder body;
  kiln_op *l1 = cg_for(&cur, zero, n, one, 1, &init, &body);
  ivs[dim] = cg_for_iv(l1);
  kiln_value *x = cg_load(&body, in, rank, ivs);
  kiln_value *m = cg_bin(&body, KILN_OP_ARITH_MAXIMUMF, l1->regions[0].first->args[1], x);
  cg_for_set_yield(l1, 1, &m);
  kiln_value *max = kiln_op_result(l1, 0);
  /* pass 2: exp and sum */
  kiln_value *z = cg_const_like(&cur, et, 0.0, 0);
  kiln_op *l2 = cg_for(&cur, zero, n, one, 1, &z, &body);
  ivs[dim] = cg_for_iv(l2);
  x = cg_load(&body, in, rank, ivs);
  kiln_value *e = scalar_op(&body, KILN_OP_MATH_EXP, cg_bin(&body, KILN_OP_ARITH_SUBF, x, max));
  cg_store(&body, e, out, rank, ivs);
  kiln_value *s = cg_bin(&body, KILN_OP_ARITH_ADDF, l2->regions[0].first->args[1], e);
  cg_for_set_yield(l2, 1, &s);
  kiln_value *inv = cg_bin(&cur, KILN_OP_ARITH_DIVF, cg_const_like(&cur, et, 1.0, 0), kiln_op_result(l2, 0));
  /* pass 3: scale */
  kiln_op *l3 = cg_for(&cur, zero, n, one, 0, NULL, &body);
  ivs[dim] = cg_for_iv(l3);
  kiln_value *y = cg_load(&body, out, rank, ivs);
  cg_store(&body, cg_bin(&body, KILN_OP_ARITH_MULF, y, inv), out, rank, ivs);
  return NULL;
}

/* linalg.softmax for lower-to-loops: for each position of the other
 * dims, along `dimension`:
 *   m = max_k x[k];  e[k] = exp(x[k] - m), s = sum_k e[k] (out = e);
 *   out[k] = out[k] * (1 / s)
 * (max subtraction keeps exp finite). Max and sum are carried in
 * iter_args. Reading x[k] before writing out[k] keeps it right when
 * input and output are the same buffer. math.exp is left for
 * approximate-math. */
#include "cg_internal.h"

#include <math.h>

static kiln_value *dim_value(kiln_builder *b, kiln_value *m, uint32_t d) { return cg_dim(b, m, d); }

static kiln_value *scalar_op(kiln_builder *b, kiln_op_kind k, kiln_value *x) {
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

kiln_error *cg_lower_softmax(kiln_op *op) {
  kiln_value *in = kiln_op_operand(op, 0), *out = kiln_op_operand(op, 1);
  if (in->type->kind != KILN_TYPE_MEMREF || out->type->kind != KILN_TYPE_MEMREF)
    return cg_op_error(op, "operands must be memrefs (bufferize first)");
  const kiln_type *et = in->type->elem;
  if (!kiln_type_is_float(et)) return cg_op_error(op, "needs a float element type");
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

/* convert-elementwise-to-linalg: whole-tensor arith/math ops (op-table
 * flag ELEMENTWISE on ranked tensors) become linalg.generic ops with
 * identity maps and the scalar op as body.
 *
 * Takes: host functions on tensors. Guarantees: no elementwise op with a
 * tensor result is left outside linalg bodies; operands that are splat
 * constants become scalar arith.constant ops inside the body (so no
 * constant tensor needs memory); other operands become inputs (each
 * value once); the output
 * is a fresh tensor.empty of the result type, its dynamic sizes the host
 * values of the first operand's dims (fl_build_dim). Ops on vectors or
 * scalars and ops in linalg bodies are left alone; the bodies of scf ops
 * are converted too. */
#include "fl_internal.h"

static bool convertible(const kiln_op *op) {
  if (!kiln_op_has_flag(op, KILN_OPF_ELEMENTWISE) || op->num_results != 1) return false;
  const kiln_type *r = op->results[0].type;
  if (r->kind != KILN_TYPE_TENSOR || r->rank > KILN_MAX_LOOPS) return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (!t || t->kind != KILN_TYPE_TENSOR || t->rank != r->rank) return false;
    for (uint32_t d = 0; d < r->rank; d++)
      if (t->shape[d] != r->shape[d]) return false;
  }
  return true;
}

static void convert(kiln_context *ctx, kiln_op *op) {
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  const kiln_type *rt = op->results[0].type;
  kiln_value *dims[KILN_MAX_LOOPS];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < rt->rank; d++)
    if (rt->shape[d] == KILN_DYNAMIC) dims[nd++] = fl_build_dim(&b, kiln_op_operand(op, 0), d);
  kiln_value *out = kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_EMPTY, nd, dims, 1, &rt, NULL), 0);
  kiln_value *ins[8];
  bool splat[8] = {0};
  uint32_t nin = 0, n = op->num_operands;
  uint32_t slot[8];
  for (uint32_t i = 0; i < n; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    const kiln_attr *c = kiln_value_constant(v);
    splat[i] = c && c->kind == KILN_ATTR_DENSE && c->splat;
    if (splat[i]) continue;
    uint32_t k = 0;
    while (k < nin && ins[k] != v) k++; /* x*x reads x once */
    if (k == nin) ins[nin++] = v;
    slot[i] = k;
  }
  const kiln_affine_map *id = kiln_affine_map_identity(ctx, rt->rank);
  const kiln_affine_map *maps[9];
  for (uint32_t i = 0; i <= nin; i++) maps[i] = id;
  kiln_op *g = fl_build_generic(&b, nin, ins, 1, &out, maps, rt->rank, NULL);
  kiln_block *body = g->regions[0].first;
  kiln_builder bb = kiln_builder_at_end(ctx, body);
  bb.loc = op->loc;
  kiln_value *sc[8];
  for (uint32_t i = 0; i < n; i++) {
    if (!splat[i]) {
      sc[i] = body->args[slot[i]];
      continue;
    }
    const kiln_attr *c = kiln_value_constant(kiln_op_operand(op, i));
    const kiln_type *et = c->type->elem;
    const kiln_attr *s = kiln_type_is_float(et)
                             ? kiln_attr_float(ctx, et, kiln_dense_get_float(c, 0))
                             : kiln_attr_int(ctx, et, kiln_dense_get_int(c, 0));
    sc[i] = kiln_build_constant(&bb, s);
  }
  const kiln_type *et = rt->elem;
  kiln_op *s = kiln_build(&bb, op->kind, n, sc, 1, &et, op->attrs);
  kiln_value *y = kiln_op_result(s, 0);
  fl_build_yield(ctx, body, 1, &y, op->loc);
  kiln_value_replace_all_uses(kiln_op_result(op, 0), kiln_op_result(g, 0));
  kiln_op_erase(op);
}

/* Converts in blk and in the bodies of scf ops in it (not in linalg
 * bodies, where elementwise ops work on scalars). */
static void convert_block(kiln_context *ctx, kiln_block *blk) {
  for (kiln_op *op = blk ? blk->first : NULL; op;) {
    kiln_op *next = op->next;
    if (op->kind == KILN_OP_SCF_FOR || op->kind == KILN_OP_SCF_IF)
      for (uint32_t r = 0; r < op->num_regions; r++)
        for (kiln_block *b = op->regions[r].first; b; b = b->next) convert_block(ctx, b);
    else if (op->num_operands <= 8 && convertible(op))
      convert(ctx, op);
    op = next;
  }
}

static void convert_body(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  convert_block(ctx, body);
}

kiln_error *kiln_flow_pass_convert_elementwise(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "convert-elementwise-to-linalg", convert_body, NULL);
}

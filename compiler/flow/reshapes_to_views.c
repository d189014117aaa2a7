/* reshapes-to-views: tensor.expand_shape, tensor.collapse_shape,
 * tensor.bitcast, tensor.cast (static <-> dynamic dims; resolve-dims
 * checks the sizes a cast asserts), flow.tensor.reshape chains and
 * transposes that only move unit dims (a copy generic: PyTorch's
 * batch-first [1, S, D] to [S, 1, D]) in host functions become
 * flow.tensor.reshape, a view of the same bytes (row-major reshapes of a
 * dense tensor never move data).
 *
 * Takes: host functions on tensors. Guarantees: every such reshape is
 * replaced; the view takes the result's dynamic dims as operands (their
 * host values: expand_shape's output_shape, products of collapsed source
 * dims); a reshape of a reshape folds into one. */
#include "fl_internal.h"

/* A copy generic that permutes dims of which only unit ones move (a
 * transpose of [1, S, D] to [S, 1, D]): the same bytes in the same order. */
static bool unit_transpose(const kiln_op *op) {
  if (!fl_is_copy(op)) return false;
  const kiln_type *st = kiln_op_operand(op, 0)->type, *rt = op->results[0].type;
  const kiln_affine_map *maps[3];
  if (!fl_is_static_tensor(st) || !fl_is_static_tensor(rt) || st->rank != rt->rank ||
      fl_iteration(op, NULL, maps, NULL) != (int)rt->rank || !kiln_affine_map_is_identity(maps[1]) ||
      maps[0]->num_results != st->rank)
    return false;
  /* input dim r reads loop (= result dim) p[r]: the non-unit dims must
   * keep their order */
  int last = -1;
  for (uint32_t r = 0; r < st->rank; r++) {
    const kiln_affine_expr *e = maps[0]->results[r];
    if (e->kind != KILN_AFFINE_DIM) return false;
    if (st->shape[r] == 1) continue;
    if ((int)e->value <= last) return false;
    last = (int)e->value;
  }
  return true;
}

static bool is_reshape(const kiln_op *op) {
  return op->kind == KILN_OP_TENSOR_EXPAND_SHAPE || op->kind == KILN_OP_TENSOR_COLLAPSE_SHAPE ||
         op->kind == KILN_OP_FLOW_TENSOR_RESHAPE || op->kind == KILN_OP_TENSOR_BITCAST ||
         op->kind == KILN_OP_TENSOR_CAST || unit_transpose(op);
}

static void views_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)ctx, (void)user;
  for (kiln_op *op = body->first; op;) {
    kiln_op *next = op->next;
    if (is_reshape(op) && op->num_operands >= 1 && op->num_results == 1) {
      kiln_value *src = kiln_op_operand(op, 0);
      const kiln_type *rt = op->results[0].type;
      if (src->type->kind == KILN_TYPE_TENSOR && rt->kind == KILN_TYPE_TENSOR &&
          rt->rank <= KILN_MAX_LOOPS) {
        kiln_builder b = kiln_builder_before(op);
        b.loc = op->loc;
        /* the result's dynamic dims, from the op before it goes */
        kiln_value *ops[1 + KILN_MAX_LOOPS];
        uint32_t n = 1;
        for (uint32_t d = 0; d < rt->rank; d++)
          if (rt->shape[d] == KILN_DYNAMIC) ops[n++] = fl_build_dim(&b, kiln_op_result(op, 0), d);
        /* look through a reshape feeding this one */
        while (src->def && src->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE)
          src = kiln_op_operand(src->def, 0);
        kiln_value *v = src;
        ops[0] = src;
        if (src->type != rt || n > 1)
          v = kiln_op_result(kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, n, ops, 1, &rt, NULL), 0);
        kiln_value_replace_all_uses(kiln_op_result(op, 0), v);
        kiln_op_erase(op);
      }
    }
    op = next;
  }
  /* drop reshapes left unused by the folding above */
  for (kiln_op *op = body->last; op;) {
    kiln_op *prev = op->prev;
    if (op->kind == KILN_OP_FLOW_TENSOR_RESHAPE && !kiln_value_has_uses(&op->results[0])) kiln_op_erase(op);
    op = prev;
  }
}

kiln_error *kiln_flow_pass_reshapes_to_views(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "reshapes-to-views", views_in, NULL);
}

/* reshapes-to-views: tensor.expand_shape, tensor.collapse_shape and
 * flow.tensor.reshape chains with static shapes in host functions become
 * flow.tensor.reshape, a view of the same bytes (row-major reshapes of a
 * dense tensor never move data).
 *
 * Takes: host functions on tensors. Guarantees: every such reshape with
 * static source and result shapes is replaced; a reshape of a reshape
 * folds into one; dynamic ones are left for later stages (which reject
 * them). */
#include "fl_internal.h"

static bool is_reshape(const kiln_op *op) {
  return op->kind == KILN_OP_TENSOR_EXPAND_SHAPE || op->kind == KILN_OP_TENSOR_COLLAPSE_SHAPE ||
         op->kind == KILN_OP_FLOW_TENSOR_RESHAPE || op->kind == KILN_OP_TENSOR_BITCAST;
}

kiln_error *kiln_flow_pass_reshapes_to_views(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = fl_require_valid(module, "reshapes-to-views");
  if (valid) return valid;
  uint32_t nf;
  kiln_op **funcs = fl_host_funcs(module, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    kiln_block *body = fl_func_body(funcs[f]);
    for (kiln_op *op = body ? body->first : NULL; op;) {
      kiln_op *next = op->next;
      if (is_reshape(op) && op->num_operands >= 1 && op->num_results == 1) {
        kiln_value *src = kiln_op_operand(op, 0);
        const kiln_type *rt = op->results[0].type;
        if (fl_is_static_tensor(src->type) && fl_is_static_tensor(rt)) {
          /* look through a reshape feeding this one */
          while (src->def && src->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE)
            src = kiln_op_operand(src->def, 0);
          kiln_builder b = kiln_builder_before(op);
          b.loc = op->loc;
          kiln_value *v = src;
          if (src->type != rt)
            v = kiln_op_result(kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, 1, &src, 1, &rt, NULL), 0);
          kiln_value_replace_all_uses(kiln_op_result(op, 0), v);
          kiln_op_erase(op);
        }
      }
      op = next;
    }
  }
  /* drop reshapes left unused by the folding above */
  for (uint32_t f = 0; f < nf; f++) {
    kiln_block *body = fl_func_body(funcs[f]);
    for (kiln_op *op = body ? body->last : NULL; op;) {
      kiln_op *prev = op->prev;
      if (op->kind == KILN_OP_FLOW_TENSOR_RESHAPE && !kiln_value_has_uses(&op->results[0]))
        kiln_op_erase(op);
      op = prev;
    }
  }
  return NULL;
}

/* copy-aliased-results: a host function's result must own its memory.
 *
 * Takes: host functions on tensors after reshapes-to-views. A returned
 * value aliases memory the function does not own when it is an argument,
 * a constant, or a flow.tensor.reshape view of one, or when the same
 * value (or a view of it) was already returned at an earlier position.
 * Guarantees: each such result is replaced by an identity linalg.generic
 * copy (which form-dispatch-regions turns into its own copy dispatch), so
 * results never alias inputs, constants or each other. */
#include "fl_internal.h"

/* The value behind a chain of views. */
static kiln_value *view_root(kiln_value *v) {
  while (v->def && v->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE) v = kiln_op_operand(v->def, 0);
  return v;
}

static void copy_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  kiln_op *ret = kiln_block_terminator(body);
  if (!ret || ret->kind != KILN_OP_FUNC_RETURN) return;
  kiln_value **roots = kiln_alloc(ctx, (ret->num_operands + 1) * sizeof *roots);
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    kiln_value *v = kiln_op_operand(ret, i);
    if (v->type->kind != KILN_TYPE_TENSOR) continue; /* plan-memory reports it */
    kiln_value *r = view_root(v);
    bool alias = r->def == NULL || r->def->kind == KILN_OP_ARITH_CONSTANT;
    for (uint32_t j = 0; j < i && !alias; j++) alias = roots[j] == r;
    roots[i] = r;
    if (!alias) continue;
    kiln_builder b = kiln_builder_before(ret);
    b.loc = ret->loc;
    kiln_value *c = fl_build_copy(&b, v);
    kiln_op_set_operand(ret, i, c);
    roots[i] = c;
  }
}

kiln_error *kiln_flow_pass_copy_aliased_results(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "copy-aliased-results", copy_in, NULL);
}

/* remove-single-iteration-loops: an scf.for whose constant bounds give
 * exactly one iteration is replaced by its body (iv = lower bound,
 * iter_args = initial values, results = yielded values); one that never
 * runs is replaced by its initial values. Loops with non-constant bounds
 * stay. Innermost loops first, so nests of such loops disappear whole. */
#include "cpu_internal.h"

static kiln_walk_result visit(kiln_op *op, void *user) {
  (void)user;
  if (op->kind != KILN_OP_SCF_FOR) return KILN_WALK_ADVANCE;
  int64_t lb, ub, step;
  if (!cg_const_int(kiln_op_operand(op, 0), &lb) || !cg_const_int(kiln_op_operand(op, 1), &ub) ||
      !cg_const_int(kiln_op_operand(op, 2), &step) || step <= 0)
    return KILN_WALK_ADVANCE;
  uint32_t n = op->num_results;
  kiln_block *body = op->regions[0].first;
  if (lb >= ub) {
    for (uint32_t i = 0; i < n; i++)
      kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_operand(op, 3 + i));
    kiln_op_erase(op);
    return KILN_WALK_ADVANCE;
  }
  if (lb + step < ub) return KILN_WALK_ADVANCE;
  kiln_value_replace_all_uses(body->args[0], kiln_op_operand(op, 0));
  for (uint32_t i = 0; i < n; i++)
    kiln_value_replace_all_uses(body->args[1 + i], kiln_op_operand(op, 3 + i));
  kiln_op *yield = kiln_block_terminator(body);
  for (uint32_t i = 0; i < n; i++)
    kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_operand(yield, i));
  for (kiln_op *o = body->first, *next; o && o != yield; o = next) {
    next = o->next;
    kiln_op_remove(o);
    kiln_block_insert_before(op, o);
  }
  kiln_op_erase(op);
  return KILN_WALK_ADVANCE;
}

static kiln_error *run(cg_kernel *k, void *user) {
  (void)user;
  kiln_walk_post(k->func, visit, NULL);
  kiln_pass_dce(k->func, NULL);
  return NULL;
}

kiln_error *kiln_codegen_cpu_remove_single_iteration_loops(kiln_op *module, void *user) {
  (void)user;
  kiln_error *err = cg_for_each_kernel(module, run, NULL);
  if (err) return err;
  kiln_block *top = kiln_module_body(module);
  for (kiln_op *f = top ? top->first : NULL; f; f = f->next)
    if (f->kind == KILN_OP_FUNC_FUNC) kiln_walk_post(f, visit, NULL);
  return NULL;
}

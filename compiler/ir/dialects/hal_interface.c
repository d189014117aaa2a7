/* hal.interface.*: the kernel-side view of a dispatch. Syntax
 * "{binding = 0 : i32} : memref<4xf32>" (attribute dictionary, then the
 * result type); verifiers check the selector attribute and result type:
 *   binding {binding = N}      ranked memref (or any type: views are made
 *                              by the lowering), N in [0, 32), one index
 *                              operand per '?' dim
 *   constant {index = N}       i32
 *   workgroup.id/count/size, thread.id {dim = D}   index, D in [0, 3)
 * and hal.interface.shuffle (generic syntax) its offset and width. */
#include "dialects.h"

#include <stdlib.h>

static const char *selector_name(kiln_op_kind k) {
  switch (k) {
  case KILN_OP_HAL_INTERFACE_BINDING: return "binding";
  case KILN_OP_HAL_INTERFACE_CONSTANT: return "index";
  default: return "dim";
  }
}

int64_t kiln_hal_interface_selector(const kiln_op *op) {
  const kiln_attr *a = kiln_op_get_attr(op, selector_name(op->kind));
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : -1;
}

bool hal_interface_parse(kiln_parser *p, kiln_op_state *st) {
  const kiln_type *t;
  kiln_p_ssa_uses dims = {0};
  if (st->info->kind == KILN_OP_HAL_INTERFACE_BINDING && kiln_p_is(p, KILN_TOK_LPAREN) &&
      !kiln_p_paren_operand_list(p, &dims))
    return false;
  if (!kiln_p_opt_attr_dict(p, st) || !kiln_p_expect(p, KILN_TOK_COLON) ||
      !kiln_p_type(p, &t) || !kiln_p_resolve_indices(p, st, &dims))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

void hal_interface_print(kiln_printer *pr, const kiln_op *op) {
  if (op->num_operands) {
    kiln_pr_puts(pr, "(");
    kiln_pr_operands(pr, op, 0, op->num_operands);
    kiln_pr_puts(pr, ")");
  }
  kiln_pr_attr_dict(pr, op, NULL, false);
  kiln_pr_puts(pr, " : ");
  kiln_pr_type(pr, op->results[0].type);
}

bool hal_interface_verify(kiln_op *op) {
  const char *sel = selector_name(op->kind);
  const kiln_attr *a = kiln_op_get_attr(op, sel);
  if (!a || a->kind != KILN_ATTR_INTEGER)
    return kiln_op_emit_error(op, "requires an integer '%s' attribute", sel);
  const kiln_type *t = op->results[0].type;
  switch (op->kind) {
  case KILN_OP_HAL_INTERFACE_BINDING:
    if (a->i < 0 || a->i >= 32)
      return kiln_op_emit_error(op, "binding %lld is out of range [0, 32)", (long long)a->i);
    if (t->kind != KILN_TYPE_MEMREF)
      return kiln_op_emit_error(op, "result must be a ranked memref");
    if (op->num_operands != kiln_type_num_dynamic_dims(t) || !ir_operands_are_index(op, 0, op->num_operands))
      return kiln_op_emit_error(op, "expects one index operand per dynamic dimension (%u), has %u",
                                kiln_type_num_dynamic_dims(t), op->num_operands);
    return true;
  case KILN_OP_HAL_INTERFACE_CONSTANT:
    if (a->i < 0 || a->i >= 1 << 16)
      return kiln_op_emit_error(op, "push constant index %lld is out of range", (long long)a->i);
    if (t->kind != KILN_TYPE_INTEGER || t->width != 32)
      return kiln_op_emit_error(op, "result must be i32");
    return true;
  default:
    if (a->i < 0 || a->i >= 3)
      return kiln_op_emit_error(op, "dim %lld is out of range [0, 3)", (long long)a->i);
    if (t->kind != KILN_TYPE_INDEX) return kiln_op_emit_error(op, "result must be index");
    return true;
  }
}

bool hal_interface_shuffle_verify(kiln_op *op) {
  const kiln_attr *w = kiln_op_get_attr(op, "width");
  const kiln_attr *o = kiln_op_get_attr(op, "offset");
  if (!w || w->kind != KILN_ATTR_INTEGER || w->i != 32)
    return kiln_op_emit_error(op, "requires 'width = 32' (the warp size)");
  if (!o || o->kind != KILN_ATTR_INTEGER || o->i < 1 || o->i >= w->i)
    return kiln_op_emit_error(op, "requires an integer 'offset' in [1, %lld)", (long long)w->i);
  const kiln_type *t = kiln_op_operand(op, 0)->type;
  bool ok = t->kind == KILN_TYPE_F32 || (t->kind == KILN_TYPE_INTEGER && t->width == 32);
  if (!ok) return kiln_op_emit_error(op, "operand must be f32 or i32");
  if (op->results[0].type != t) return kiln_op_emit_error(op, "result type must be the operand's");
  return true;
}

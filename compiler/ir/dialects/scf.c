/* scf dialect: for (with iter_args), if/else and yield — syntax (implicit
 * empty yields elided as mlir-opt does) and verifiers. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

bool scf_parse_for(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use iv, lb, ub, step;
  if (!kiln_p_operand(p, &iv) || !kiln_p_expect(p, KILN_TOK_EQUAL) ||
      !kiln_p_operand(p, &lb) || !kiln_p_expect_keyword(p, "to") ||
      !kiln_p_operand(p, &ub) || !kiln_p_expect_keyword(p, "step") ||
      !kiln_p_operand(p, &step))
    return false;
  kiln_p_ssa_uses iter = {0}, init = {0};
  kiln_p_types types = {0};
  bool has_iter = false;
  kiln_loc iloc = kiln_p_loc(p);
  if (kiln_p_accept_keyword(p, "iter_args")) {
    has_iter = true;
    if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
    if (!kiln_p_is(p, KILN_TOK_RPAREN)) {
      do {
        kiln_p_ssa_use a, b;
        if (!kiln_p_operand(p, &a) || !kiln_p_expect(p, KILN_TOK_EQUAL) ||
            !kiln_p_operand(p, &b))
          return false;
        kiln_p_operands_push(p, &iter, a);
        kiln_p_operands_push(p, &init, b);
      } while (kiln_p_accept(p, KILN_TOK_COMMA));
    }
    if (!kiln_p_expect(p, KILN_TOK_RPAREN) || !kiln_p_expect(p, KILN_TOK_ARROW) ||
        !kiln_p_result_types(p, &types))
      return false;
    if (types.n != iter.n)
      return kiln_p_error_at(p, iloc, "mismatch in number of loop-carried values and defined values");
  }
  const kiln_type *ivt = kiln_type_index(st->ctx);
  if (kiln_p_accept(p, KILN_TOK_COLON) && !kiln_p_type(p, &ivt)) return false;
  if (!kiln_p_resolve_add(p, st, &lb, ivt) || !kiln_p_resolve_add(p, st, &ub, ivt) ||
      !kiln_p_resolve_add(p, st, &step, ivt))
    return false;
  if (!kiln_p_resolve_list(p, st, &init, &types, iloc)) return false;
  kiln_p_arg *args = kiln_alloc(st->ctx, (iter.n + 1) * sizeof *args);
  args[0].name = iv;
  args[0].type = ivt;
  for (uint32_t i = 0; i < iter.n; i++) {
    args[i + 1].name = iter.v[i];
    args[i + 1].type = types.v[i];
  }
  kiln_loc rloc = kiln_p_loc(p);
  if (!kiln_p_region(p, st, args, iter.n + 1)) return false;
  if (!has_iter || !types.n)
    kiln_p_ensure_terminator(p, st->regions[0], KILN_OP_SCF_YIELD, rloc);
  for (uint32_t i = 0; i < types.n; i++) kiln_st_add_type(st, types.v[i]);
  return kiln_p_opt_attr_dict(p, st);
}

void scf_print_for(kiln_printer *pr, const kiln_op *op) {
  const kiln_block *body = op->regions[0].first;
  kiln_pr_puts(pr, " ");
  if (body && body->num_args) kiln_pr_value(pr, body->args[0]);
  kiln_pr_puts(pr, " = ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, " to ");
  kiln_pr_operands(pr, op, 1, 1);
  kiln_pr_puts(pr, " step ");
  kiln_pr_operands(pr, op, 2, 1);
  uint32_t n = op->num_operands - 3;
  if (n) {
    kiln_pr_puts(pr, " iter_args(");
    for (uint32_t i = 0; i < n; i++) {
      if (i) kiln_pr_puts(pr, ", ");
      if (body && i + 1 < body->num_args) kiln_pr_value(pr, body->args[i + 1]);
      kiln_pr_puts(pr, " = ");
      kiln_pr_operands(pr, op, 3 + i, 1);
    }
    kiln_pr_puts(pr, ") -> (");
    kiln_pr_operand_types(pr, op, 3, n);
    kiln_pr_puts(pr, ")");
  }
  kiln_pr_puts(pr, " ");
  const kiln_type *ivt = kiln_op_operand(op, 0)->type;
  if (ivt->kind != KILN_TYPE_INDEX) {
    kiln_pr_puts(pr, " : ");
    kiln_pr_type(pr, ivt);
    kiln_pr_puts(pr, " ");
  }
  kiln_pr_region(pr, &op->regions[0], false, n != 0);
  kiln_pr_attr_dict(pr, op, NULL, false);
}

/* Checks that region r's terminators yield values of the op's result types. */
static bool check_yields(kiln_op *op, kiln_region *r) {
  for (kiln_block *b = r->first; b; b = b->next) {
    kiln_op *t = kiln_block_terminator(b);
    if (!t || t->kind != KILN_OP_SCF_YIELD)
      return kiln_op_emit_error(op, "region must end with 'scf.yield'");
    if (t->num_operands != op->num_results)
      return kiln_op_emit_error(t, "number of operands (%u) does not match the number of results of the parent op (%u)",
                                t->num_operands, op->num_results);
    for (uint32_t i = 0; i < t->num_operands; i++)
      if (kiln_op_operand(t, i)->type != op->results[i].type)
        return kiln_op_emit_error(t, "type of operand #%u does not match result #%u of the parent op", i, i);
  }
  return true;
}

bool scf_verify_for(kiln_op *op) {
  const kiln_type *t = kiln_op_operand(op, 0)->type;
  if (!kiln_type_is_int_or_index(t))
    return kiln_op_emit_error(op, "lower bound, upper bound and step must be integer or index");
  if (kiln_op_operand(op, 1)->type != t || kiln_op_operand(op, 2)->type != t)
    return kiln_op_emit_error(op, "lower bound, upper bound and step must have the same type");
  uint32_t n = op->num_operands - 3;
  if (n != op->num_results)
    return kiln_op_emit_error(op, "mismatch in number of loop-carried values (%u) and defined values (%u)",
                              n, op->num_results);
  kiln_block *body = op->regions[0].first;
  if (!body || body != op->regions[0].last)
    return kiln_op_emit_error(op, "expects a single-block body");
  if (body->num_args != n + 1)
    return kiln_op_emit_error(op, "expects %u region arguments (induction variable and iter_args)", n + 1);
  if (body->args[0]->type != t)
    return kiln_op_emit_error(op, "expected induction variable to be the same type as bounds and step");
  for (uint32_t i = 0; i < n; i++) {
    if (kiln_op_operand(op, 3 + i)->type != op->results[i].type ||
        body->args[i + 1]->type != op->results[i].type)
      return kiln_op_emit_error(op, "types mismatch between iter operand #%u, region argument and result", i);
  }
  return check_yields(op, &op->regions[0]);
}

bool scf_parse_if(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use c;
  if (!kiln_p_operand(p, &c)) return false;
  if (!kiln_p_resolve_add(p, st, &c, kiln_type_int(st->ctx, 1))) return false;
  kiln_p_types types = {0};
  if (kiln_p_accept(p, KILN_TOK_ARROW) && !kiln_p_result_types(p, &types)) return false;
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_region(p, st, NULL, 0)) return false;
  if (!types.n) kiln_p_ensure_terminator(p, st->regions[0], KILN_OP_SCF_YIELD, loc);
  if (kiln_p_accept_keyword(p, "else")) {
    loc = kiln_p_loc(p);
    if (!kiln_p_region(p, st, NULL, 0)) return false;
    if (!types.n) kiln_p_ensure_terminator(p, st->regions[1], KILN_OP_SCF_YIELD, loc);
  } else {
    kiln_st_add_region(st);
  }
  for (uint32_t i = 0; i < types.n; i++) kiln_st_add_type(st, types.v[i]);
  return kiln_p_opt_attr_dict(p, st);
}

void scf_print_if(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  if (op->num_results) {
    kiln_pr_puts(pr, " -> (");
    for (uint32_t i = 0; i < op->num_results; i++) {
      if (i) kiln_pr_puts(pr, ", ");
      kiln_pr_type(pr, op->results[i].type);
    }
    kiln_pr_puts(pr, ")");
  }
  kiln_pr_puts(pr, " ");
  kiln_pr_region(pr, &op->regions[0], false, op->num_results != 0);
  const kiln_region *e = &op->regions[1];
  /* An else block holding only an empty yield is not printed. */
  bool print_else = e->first && !(e->first == e->last && e->first->first &&
                                  e->first->first == e->first->last &&
                                  e->first->first->kind == KILN_OP_SCF_YIELD &&
                                  !e->first->first->num_operands && !op->num_results);
  if (print_else) {
    kiln_pr_puts(pr, " else ");
    kiln_pr_region(pr, e, false, op->num_results != 0);
  }
  kiln_pr_attr_dict(pr, op, NULL, false);
}

bool scf_verify_if(kiln_op *op) {
  const kiln_type *c = kiln_op_operand(op, 0)->type;
  if (c->kind != KILN_TYPE_INTEGER || c->width != 1)
    return kiln_op_emit_error(op, "operand #0 must be 1-bit signless integer");
  if (!op->regions[0].first) return kiln_op_emit_error(op, "requires a 'then' block");
  if (op->regions[0].first != op->regions[0].last ||
      (op->regions[1].first && op->regions[1].first != op->regions[1].last))
    return kiln_op_emit_error(op, "regions must have at most one block");
  if (op->num_results && !op->regions[1].first)
    return kiln_op_emit_error(op, "must have an else block if defining values");
  return check_yields(op, &op->regions[0]) && check_yields(op, &op->regions[1]);
}

bool scf_verify_yield(kiln_op *op) {
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || (parent->kind != KILN_OP_SCF_FOR && parent->kind != KILN_OP_SCF_IF))
    return kiln_op_emit_error(op, "expects parent op to be one of 'scf.for, scf.if'");
  return true;
}

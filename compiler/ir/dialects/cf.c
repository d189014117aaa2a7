/* The cf dialect: cf.br and cf.cond_br with their successor syntax
 * "^bb1(%a, %b : t, u)" (kiln_p_successor_and_args), as mlir-opt-19
 * prints it, and verifiers that check the arguments against the
 * successor's block arguments. */
#include "dialects.h"

/* Arguments [first, first+count) match successor s's block arguments. */
static bool check_dest(kiln_op *op, uint32_t s, uint32_t first, uint32_t count) {
  const kiln_block *b = op->successors[s];
  if (!b || b->parent != (op->parent ? op->parent->parent : NULL))
    return kiln_op_emit_error(op, "successor #%u must be a block of the same region", s);
  if (b->num_args != count)
    return kiln_op_emit_error(op, "branch has %u operands for successor #%u, but target block has %u",
                              count, s, b->num_args);
  for (uint32_t i = 0; i < count; i++)
    if (kiln_op_operand(op, first + i)->type != b->args[i]->type)
      return kiln_op_emit_error(op, "type mismatch for bb argument #%u of successor #%u", i, s);
  return true;
}

bool cf_parse_br(kiln_parser *p, kiln_op_state *st) {
  uint32_t n;
  return kiln_p_successor_and_args(p, st, &n) && kiln_p_opt_attr_dict(p, st);
}

void cf_print_br(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  if (op->num_successors == 1) kiln_pr_successor_and_args(pr, op, 0, 0, op->num_operands);
  kiln_pr_attr_dict(pr, op, NULL, false);
}

bool cf_verify_br(kiln_op *op) {
  if (op->num_successors != 1) return kiln_op_emit_error(op, "requires one successor");
  return check_dest(op, 0, 0, op->num_operands);
}

bool cf_parse_cond_br(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use c;
  uint32_t nt, nf;
  if (!kiln_p_operand(p, &c) || !kiln_p_expect(p, KILN_TOK_COMMA)) return false;
  if (!kiln_p_resolve_add(p, st, &c, kiln_type_int(st->ctx, 1))) return false;
  if (!kiln_p_successor_and_args(p, st, &nt) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_successor_and_args(p, st, &nf) || !kiln_p_opt_attr_dict(p, st))
    return false;
  int64_t seg[3] = {1, nt, nf};
  kiln_st_set_segments(st, 3, seg);
  return true;
}

void kiln_cf_cond_br_args(const kiln_op *op, int which, uint32_t *first,
                          uint32_t *count) {
  const kiln_attr *s = kiln_op_get_attr(op, "operandSegmentSizes");
  uint32_t nt = 0, nf = 0;
  if (s && s->kind == KILN_ATTR_DENSE_ARRAY && s->count == 3) {
    nt = (uint32_t)((const int64_t *)s->data)[1];
    nf = (uint32_t)((const int64_t *)s->data)[2];
  }
  *first = which ? 1 + nt : 1;
  *count = which ? nf : nt;
}

static const char *const seg_elide[] = {"operandSegmentSizes", NULL};

void cf_print_cond_br(kiln_printer *pr, const kiln_op *op) {
  uint32_t f0, n0, f1, n1;
  kiln_cf_cond_br_args(op, 0, &f0, &n0);
  kiln_cf_cond_br_args(op, 1, &f1, &n1);
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, ", ");
  if (op->num_successors == 2) {
    kiln_pr_successor_and_args(pr, op, 0, f0, n0);
    kiln_pr_puts(pr, ", ");
    kiln_pr_successor_and_args(pr, op, 1, f1, n1);
  }
  kiln_pr_attr_dict(pr, op, seg_elide, false);
}

bool cf_verify_cond_br(kiln_op *op) {
  if (op->num_successors != 2) return kiln_op_emit_error(op, "requires two successors");
  const kiln_type *c = kiln_op_operand(op, 0)->type;
  if (c->kind != KILN_TYPE_INTEGER || c->width != 1)
    return kiln_op_emit_error(op, "operand #0 must be 1-bit signless integer");
  const kiln_attr *s = kiln_op_get_attr(op, "operandSegmentSizes");
  if (!s || s->kind != KILN_ATTR_DENSE_ARRAY || s->count != 3 ||
      ((const int64_t *)s->data)[0] != 1 ||
      ((const int64_t *)s->data)[1] < 0 || ((const int64_t *)s->data)[2] < 0 ||
      1 + ((const int64_t *)s->data)[1] + ((const int64_t *)s->data)[2] != op->num_operands)
    return kiln_op_emit_error(op, "operandSegmentSizes must be [1, true args, false args] summing to %u",
                              op->num_operands);
  uint32_t f, n;
  kiln_cf_cond_br_args(op, 0, &f, &n);
  if (!check_dest(op, 0, f, n)) return false;
  kiln_cf_cond_br_args(op, 1, &f, &n);
  return check_dest(op, 1, f, n);
}

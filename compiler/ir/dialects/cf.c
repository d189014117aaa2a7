/* The cf dialect: cf.br and cf.cond_br with their successor syntax
 * "^bb1(%a, %b : t, u)", as mlir-opt-19 prints it, and verifiers that
 * check the arguments against the successor's block arguments.
 *
 * The parser's public combinators (asm.h) have no successor reference yet,
 * so this file reads block labels through the parser's internal state
 * (parse.h): a label names the innermost block of that name known to the
 * regions being parsed, created on first (forward) use exactly as the
 * region parser does when it meets the label's definition. */
#include "dialects.h"
#include "../parse.h"

#include <stdlib.h>

/* The block named by the current ^label token. */
static bool parse_successor(kiln_parser *p, kiln_block **out) {
  if (p->tok.kind != KILN_TOK_CARET_ID) return kiln_p_error(p, "expected block name");
  kiln_loc loc = kiln_p_loc(p);
  const char *name = kiln_intern(p->ctx, p->tok.start, p->tok.len);
  for (size_t i = p->num_blocks; i-- > 0;)
    if (p->blocks[i].name == name) {
      *out = p->blocks[i].block;
      ir_lex(p);
      return true;
    }
  if (p->num_blocks == p->cap_blocks) {
    p->cap_blocks = p->cap_blocks ? p->cap_blocks * 2 : 32;
    ir_block_ref *n = kiln_alloc(p->ctx, p->cap_blocks * sizeof *n);
    if (p->num_blocks) memcpy(n, p->blocks, p->num_blocks * sizeof *n);
    p->blocks = n;
  }
  ir_block_ref *r = &p->blocks[p->num_blocks++];
  r->name = name;
  r->block = kiln_block_create(p->ctx);
  r->block->loc = loc;
  r->defined = false;
  r->loc = loc;
  *out = r->block;
  ir_lex(p);
  return true;
}

/* "^bb(%a, %b : t, u)" or "^bb": the block and its resolved arguments. */
static bool parse_dest(kiln_parser *p, kiln_op_state *st, uint32_t *count) {
  kiln_block *b = NULL;
  if (!parse_successor(p, &b)) return false;
  st->succs = ir_grow(st->ctx, st->succs, sizeof *st->succs, &st->cap_succs, st->num_succs + 1);
  st->succs[st->num_succs++] = b;
  *count = 0;
  if (!kiln_p_accept(p, KILN_TOK_LPAREN)) return true;
  kiln_p_ssa_uses ops = {0};
  kiln_p_types types = {0};
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_expect(p, KILN_TOK_COLON) ||
      !kiln_p_type_list(p, &types) || !kiln_p_expect(p, KILN_TOK_RPAREN) ||
      !kiln_p_resolve_list(p, st, &ops, &types, loc))
    return false;
  *count = ops.n;
  return true;
}

/* Index of block b in its region, as the printer numbers labels. */
static uint32_t block_index(const kiln_block *b) {
  uint32_t i = 0;
  if (b->parent)
    for (const kiln_block *x = b->parent->first; x && x != b; x = x->next) i++;
  return i;
}

static void print_dest(kiln_printer *pr, const kiln_op *op, uint32_t succ,
                       uint32_t first, uint32_t count) {
  kiln_pr_printf(pr, "^bb%u", block_index(op->successors[succ]));
  if (!count) return;
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, first, count);
  kiln_pr_puts(pr, " : ");
  kiln_pr_operand_types(pr, op, first, count);
  kiln_pr_puts(pr, ")");
}

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
  return parse_dest(p, st, &n) && kiln_p_opt_attr_dict(p, st);
}

void cf_print_br(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  if (op->num_successors == 1) print_dest(pr, op, 0, 0, op->num_operands);
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
  if (!parse_dest(p, st, &nt) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !parse_dest(p, st, &nf) || !kiln_p_opt_attr_dict(p, st))
    return false;
  int64_t seg[3] = {1, nt, nf};
  kiln_st_set_attr(st, "operandSegmentSizes",
                   kiln_attr_dense_array(st->ctx, kiln_type_int(st->ctx, 32), 3, seg, NULL));
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
    print_dest(pr, op, 0, f0, n0);
    kiln_pr_puts(pr, ", ");
    print_dest(pr, op, 1, f1, n1);
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

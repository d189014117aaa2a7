/* builtin dialect: module (`module @name attributes {...} { ... }`) and
 * unrealized_conversion_cast. */
#include "dialects.h"

#include <string.h>

bool builtin_parse_module(kiln_parser *p, kiln_op_state *st) {
  if (kiln_p_is(p, KILN_TOK_AT_ID)) {
    const char *name;
    if (!kiln_p_symbol_name(p, &name)) return false;
    kiln_st_set_attr(st, "sym_name", kiln_attr_string(st->ctx, name, strlen(name)));
  }
  if (kiln_p_accept_keyword(p, "attributes") && !kiln_p_opt_attr_dict(p, st))
    return false;
  if (!kiln_p_region(p, st, NULL, 0)) return false;
  kiln_region *r = st->regions[0];
  if (!r->first) kiln_region_append_block(r, kiln_block_create(st->ctx));
  return true;
}

void builtin_print_module(kiln_printer *pr, const kiln_op *op) {
  const char *name = kiln_symbol_name(op);
  if (name) kiln_pr_printf(pr, " @%s", name);
  static const char *const elide[] = {"sym_name", NULL};
  kiln_pr_attr_dict(pr, op, elide, true);
  kiln_pr_puts(pr, " ");
  kiln_pr_region(pr, &op->regions[0], false, true);
}

bool builtin_verify_module(kiln_op *op) {
  kiln_region *r = &op->regions[0];
  if (r->first && r->first != r->last)
    return kiln_op_emit_error(op, "expects region to have 0 or 1 blocks");
  if (r->first && r->first->num_args)
    return kiln_op_emit_error(op, "expects body block to have no arguments");
  return true;
}

/* %0 = builtin.unrealized_conversion_cast %a, %b : t1, t2 to t3 */
bool builtin_parse_cast(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  kiln_p_types in = {0}, out = {0};
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_operand_list(p, &ops)) return false;
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  if (ops.n) {
    if (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_type_list(p, &in)) return false;
  }
  if (!kiln_p_expect_keyword(p, "to") || !kiln_p_type_list(p, &out)) return false;
  if (!kiln_p_resolve_list(p, st, &ops, &in, loc)) return false;
  for (uint32_t i = 0; i < out.n; i++) kiln_st_add_type(st, out.v[i]);
  return true;
}

void builtin_print_cast(kiln_printer *pr, const kiln_op *op) {
  if (op->num_operands) {
    kiln_pr_puts(pr, " ");
    kiln_pr_operands(pr, op, 0, op->num_operands);
  }
  kiln_pr_attr_dict(pr, op, NULL, false);
  if (op->num_operands) {
    kiln_pr_puts(pr, " : ");
    kiln_pr_operand_types(pr, op, 0, op->num_operands);
  }
  kiln_pr_puts(pr, " to ");
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (i) kiln_pr_puts(pr, ", ");
    kiln_pr_type(pr, op->results[i].type);
  }
}

/* func dialect: func.func (signature, visibility, arg/result attributes,
 * body), func.return and func.call — syntax and verifiers. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

static const char *const func_elide[] = {"sym_name", "function_type",
                                         "sym_visibility", "arg_attrs",
                                         "res_attrs", NULL};

static bool nonempty_dicts(uint32_t n, const kiln_attr *const *d) {
  for (uint32_t i = 0; i < n; i++)
    if (d[i] && d[i]->count) return true;
  return false;
}

bool func_parse_func(kiln_parser *p, kiln_op_state *st) {
  kiln_context *ctx = st->ctx;
  if (kiln_p_is_keyword(p, "private") || kiln_p_is_keyword(p, "public") ||
      kiln_p_is_keyword(p, "nested")) {
    const char *vis;
    kiln_p_keyword(p, &vis);
    kiln_st_set_attr(st, "sym_visibility", kiln_attr_string(ctx, vis, strlen(vis)));
  }
  const char *name;
  if (!kiln_p_symbol_name(p, &name)) return false;
  kiln_st_set_attr(st, "sym_name", kiln_attr_string(ctx, name, strlen(name)));
  if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
  /* Arena arrays: the stack stays small however deeply ops nest. */
  kiln_p_arg *args = kiln_alloc(ctx, 1024 * sizeof *args);
  const kiln_attr **arg_attrs = kiln_alloc(ctx, 1024 * sizeof *arg_attrs);
  uint32_t n = 0;
  bool named = kiln_p_is(p, KILN_TOK_PERCENT_ID);
  if (!kiln_p_accept(p, KILN_TOK_RPAREN)) {
    do {
      if (n >= 1024) return kiln_p_error(p, "too many function arguments");
      kiln_p_arg *a = &args[n];
      memset(a, 0, sizeof *a);
      if (named) {
        if (!kiln_p_operand(p, &a->name) || !kiln_p_expect(p, KILN_TOK_COLON))
          return false;
      } else if (kiln_p_is(p, KILN_TOK_PERCENT_ID)) {
        return kiln_p_error(p, "expected type instead of SSA identifier");
      }
      if (!kiln_p_type(p, &a->type)) return false;
      arg_attrs[n] = NULL;
      if (kiln_p_is(p, KILN_TOK_LBRACE) && !kiln_p_attr_dict_into(p, &arg_attrs[n]))
        return false;
      if (!kiln_p_opt_loc(p)) return false;
      n++;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  const kiln_type **res = kiln_alloc(ctx, 1024 * sizeof *res);
  const kiln_attr **res_attrs = kiln_alloc(ctx, 1024 * sizeof *res_attrs);
  uint32_t nr = 0;
  if (kiln_p_accept(p, KILN_TOK_ARROW)) {
    if (kiln_p_accept(p, KILN_TOK_LPAREN)) {
      if (!kiln_p_accept(p, KILN_TOK_RPAREN)) {
        do {
          if (nr >= 1024) return kiln_p_error(p, "too many results");
          if (!kiln_p_type(p, &res[nr])) return false;
          res_attrs[nr] = NULL;
          if (kiln_p_is(p, KILN_TOK_LBRACE) &&
              !kiln_p_attr_dict_into(p, &res_attrs[nr]))
            return false;
          nr++;
        } while (kiln_p_accept(p, KILN_TOK_COMMA));
        if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
      }
    } else {
      if (!kiln_p_type(p, &res[0])) return false;
      res_attrs[0] = NULL;
      nr = 1;
    }
  }
  const kiln_type **in = kiln_alloc(ctx, (n + 1) * sizeof *in);
  for (uint32_t i = 0; i < n; i++) in[i] = args[i].type;
  kiln_st_set_attr(st, "function_type",
                   kiln_attr_type(ctx, kiln_type_function(ctx, n, in, nr, res)));
  if (nonempty_dicts(n, arg_attrs)) {
    const kiln_attr **d = kiln_alloc(ctx, (n + 1) * sizeof *d);
    for (uint32_t i = 0; i < n; i++) d[i] = arg_attrs[i] ? arg_attrs[i] : kiln_attr_dict(ctx, 0, NULL);
    kiln_st_set_attr(st, "arg_attrs", kiln_attr_array(ctx, n, d));
  }
  if (nonempty_dicts(nr, res_attrs)) {
    const kiln_attr **d = kiln_alloc(ctx, (nr + 1) * sizeof *d);
    for (uint32_t i = 0; i < nr; i++) d[i] = res_attrs[i] ? res_attrs[i] : kiln_attr_dict(ctx, 0, NULL);
    kiln_st_set_attr(st, "res_attrs", kiln_attr_array(ctx, nr, d));
  }
  if (kiln_p_accept_keyword(p, "attributes") && !kiln_p_opt_attr_dict(p, st))
    return false;
  if (kiln_p_is(p, KILN_TOK_LBRACE)) {
    if (!named && n) return kiln_p_error(p, "expected named arguments for a function with a body");
    return kiln_p_region(p, st, args, n);
  }
  kiln_st_add_region(st);
  return true;
}

void func_print_func(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *vis = kiln_op_get_attr(op, "sym_visibility");
  if (vis && vis->kind == KILN_ATTR_STRING) kiln_pr_printf(pr, " %s", vis->str);
  const kiln_attr *ft = kiln_op_get_attr(op, "function_type");
  const char *name = kiln_symbol_name(op);
  kiln_pr_puts(pr, " ");
  kiln_pr_attr(pr, kiln_attr_symbol_ref(kiln_pr_ctx(pr), name ? name : "", 0, NULL));
  kiln_pr_puts(pr, "(");
  const kiln_type *fn = ft && ft->kind == KILN_ATTR_TYPE ? ft->type : NULL;
  const kiln_block *entry = op->regions[0].first;
  const kiln_attr *aa = kiln_op_get_attr(op, "arg_attrs");
  const kiln_attr *ra = kiln_op_get_attr(op, "res_attrs");
  uint32_t nin = fn ? fn->num_inputs : 0;
  for (uint32_t i = 0; i < nin; i++) {
    if (i) kiln_pr_puts(pr, ", ");
    if (entry && i < entry->num_args) kiln_pr_block_arg(pr, entry->args[i]);
    else kiln_pr_type(pr, fn->types[i]);
    if (aa && aa->kind == KILN_ATTR_ARRAY && i < aa->count &&
        aa->elems[i]->kind == KILN_ATTR_DICT && aa->elems[i]->count) {
      kiln_pr_puts(pr, " ");
      kiln_pr_attr(pr, aa->elems[i]);
    }
  }
  kiln_pr_puts(pr, ")");
  uint32_t nr = fn ? fn->num_results : 0;
  if (nr) {
    kiln_pr_puts(pr, " -> ");
    bool has_ra = ra && ra->kind == KILN_ATTR_ARRAY;
    bool paren = nr != 1 || has_ra ||
                 fn->types[nin]->kind == KILN_TYPE_FUNCTION;
    if (paren) kiln_pr_puts(pr, "(");
    for (uint32_t i = 0; i < nr; i++) {
      if (i) kiln_pr_puts(pr, ", ");
      kiln_pr_type(pr, fn->types[nin + i]);
      if (has_ra && i < ra->count && ra->elems[i]->kind == KILN_ATTR_DICT &&
          ra->elems[i]->count) {
        kiln_pr_puts(pr, " ");
        kiln_pr_attr(pr, ra->elems[i]);
      }
    }
    if (paren) kiln_pr_puts(pr, ")");
  }
  kiln_pr_attr_dict(pr, op, func_elide, true);
  if (entry) {
    kiln_pr_puts(pr, " ");
    kiln_pr_region(pr, &op->regions[0], false, true);
  }
}

bool func_verify_func(kiln_op *op) {
  const kiln_attr *ft = kiln_op_get_attr(op, "function_type");
  if (!ft || ft->kind != KILN_ATTR_TYPE || ft->type->kind != KILN_TYPE_FUNCTION)
    return kiln_op_emit_error(op, "requires a 'function_type' attribute of function type");
  if (!kiln_symbol_name(op))
    return kiln_op_emit_error(op, "requires string attribute 'sym_name'");
  const kiln_attr *visa = kiln_op_get_attr(op, "sym_visibility");
  if (visa && (visa->kind != KILN_ATTR_STRING ||
               (strcmp(visa->str, "public") && strcmp(visa->str, "private") &&
                strcmp(visa->str, "nested"))))
    return kiln_op_emit_error(op, "visibility expected to be one of [\"public\", \"private\", \"nested\"]");
  const kiln_attr *aa = kiln_op_get_attr(op, "arg_attrs"), *ra = kiln_op_get_attr(op, "res_attrs");
  if (aa && (aa->kind != KILN_ATTR_ARRAY || aa->count != ft->type->num_inputs))
    return kiln_op_emit_error(op, "expects argument attribute array to have the same number of elements as the number of function arguments");
  if (ra && (ra->kind != KILN_ATTR_ARRAY || ra->count != ft->type->num_results))
    return kiln_op_emit_error(op, "expects result attribute array to have the same number of elements as the number of function results");
  for (uint32_t i = 0; aa && i < aa->count; i++)
    if (aa->elems[i]->kind != KILN_ATTR_DICT)
      return kiln_op_emit_error(op, "expects argument attributes to be dictionaries");
  for (uint32_t i = 0; ra && i < ra->count; i++)
    if (ra->elems[i]->kind != KILN_ATTR_DICT)
      return kiln_op_emit_error(op, "expects result attributes to be dictionaries");
  const kiln_type *fn = ft->type;
  kiln_block *entry = op->regions[0].first;
  if (!entry) {
    const kiln_attr *vis = kiln_op_get_attr(op, "sym_visibility");
    if (!vis || vis->kind != KILN_ATTR_STRING || strcmp(vis->str, "public") == 0)
      return kiln_op_emit_error(op, "symbol declaration cannot have public visibility");
    return true;
  }
  if (entry->num_args != fn->num_inputs)
    return kiln_op_emit_error(op, "entry block must have %u arguments to match function signature",
                              fn->num_inputs);
  for (uint32_t i = 0; i < fn->num_inputs; i++)
    if (entry->args[i]->type != fn->types[i]) {
      char *a = kiln_type_to_string(fn->types[i]), *b = kiln_type_to_string(entry->args[i]->type);
      kiln_op_emit_error(op, "type of entry block argument #%u('%s') must match the type of the corresponding argument in function signature('%s')",
                         i, b, a);
      free(a);
      free(b);
      return false;
    }
  return true;
}

bool func_verify_return(kiln_op *op) {
  kiln_op *fn = kiln_op_parent_op(op);
  if (!fn || fn->kind != KILN_OP_FUNC_FUNC)
    return kiln_op_emit_error(op, "expects parent op 'func.func'");
  const kiln_attr *ft = kiln_op_get_attr(fn, "function_type");
  if (!ft || ft->kind != KILN_ATTR_TYPE) return true;
  const kiln_type *t = ft->type;
  if (op->num_operands != t->num_results)
    return kiln_op_emit_error(op, "has %u operands, but enclosing function (@%s) returns %u",
                              op->num_operands, kiln_symbol_name(fn), t->num_results);
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type != t->types[t->num_inputs + i]) {
      char *a = kiln_type_to_string(kiln_op_operand(op, i)->type);
      char *b = kiln_type_to_string(t->types[t->num_inputs + i]);
      kiln_op_emit_error(op, "type of return operand %u ('%s') doesn't match function result type ('%s') in function @%s",
                         i, a, b, kiln_symbol_name(fn));
      free(a);
      free(b);
      return false;
    }
  return true;
}

bool func_parse_call(kiln_parser *p, kiln_op_state *st) {
  const char *callee;
  if (!kiln_p_symbol_name(p, &callee)) return false;
  kiln_st_set_attr(st, "callee", kiln_attr_symbol_ref(st->ctx, callee, 0, NULL));
  kiln_p_ssa_uses ops = {0};
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_paren_operand_list(p, &ops)) return false;
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  if (!kiln_p_expect(p, KILN_TOK_COLON)) return false;
  const kiln_type *fn;
  if (!kiln_p_function_type(p, &fn)) return false;
  kiln_p_types in = {(const kiln_type **)fn->types, fn->num_inputs, 0};
  if (!kiln_p_resolve_list(p, st, &ops, &in, loc)) return false;
  for (uint32_t i = 0; i < fn->num_results; i++)
    kiln_st_add_type(st, fn->types[fn->num_inputs + i]);
  return true;
}

void func_print_call(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  const kiln_attr *c = kiln_op_get_attr(op, "callee");
  if (c) kiln_pr_attr(pr, c);
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ")");
  static const char *const elide[] = {"callee", NULL};
  kiln_pr_attr_dict(pr, op, elide, false);
  kiln_pr_puts(pr, " : (");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ") -> ");
  kiln_pr_result_types(pr, op);
}

bool func_verify_call(kiln_op *op) {
  const kiln_attr *c = kiln_op_get_attr(op, "callee");
  if (!c || c->kind != KILN_ATTR_SYMBOL_REF)
    return kiln_op_emit_error(op, "requires a 'callee' symbol reference attribute");
  kiln_op *table = op;
  while (table && !kiln_op_has_flag(table, KILN_OPF_SYMBOL_TABLE))
    table = kiln_op_parent_op(table);
  if (!table) return true;
  kiln_op *fn = kiln_symbol_lookup(table, c->str);
  if (!fn || fn->kind != KILN_OP_FUNC_FUNC)
    return kiln_op_emit_error(op, "'%s' does not reference a valid function", c->str);
  const kiln_attr *ft = kiln_op_get_attr(fn, "function_type");
  if (!ft || ft->kind != KILN_ATTR_TYPE) return true;
  const kiln_type *t = ft->type;
  if (t->num_inputs != op->num_operands)
    return kiln_op_emit_error(op, "incorrect number of operands for callee");
  for (uint32_t i = 0; i < t->num_inputs; i++)
    if (kiln_op_operand(op, i)->type != t->types[i])
      return kiln_op_emit_error(op, "operand type mismatch: expected operand type for operand number %u", i);
  if (t->num_results != op->num_results)
    return kiln_op_emit_error(op, "incorrect number of results for callee");
  for (uint32_t i = 0; i < t->num_results; i++)
    if (op->results[i].type != t->types[t->num_inputs + i])
      return kiln_op_emit_error(op, "result type mismatch at index %u", i);
  return true;
}

/* The vm dialect: verifiers for the rows of vm.def. Ops print in generic
 * form; vm.func shares func.func's syntax. The arithmetic rows are checked
 * against the operand/result types of their opcode, taken from the same
 * opcode table that generated them. */
#include "dialects.h"

#include <string.h>

typedef enum { VM_T_I32, VM_T_I64, VM_T_F32, VM_T_F64 } vm_t;

/* (kind, result type, operand type) of every opcode-mirroring op. */
static const struct {
  kiln_op_kind kind;
  vm_t out, in;
} vm_arith[] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_OP_VM_##NAME, VM_T_##OUT, VM_T_##IN},
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_OP_VM_##NAME, VM_T_##OUT, VM_T_##IN},
#define VM_T_i32 VM_T_I32
#define VM_T_i64 VM_T_I64
#define VM_T_f32 VM_T_F32
#define VM_T_f64 VM_T_F64
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
};

static bool vm_type_is(const kiln_type *t, vm_t want) {
  switch (want) {
  case VM_T_I32: return t->kind == KILN_TYPE_INTEGER && t->width == 32;
  case VM_T_I64: return t->kind == KILN_TYPE_INTEGER && t->width == 64;
  case VM_T_F32: return t->kind == KILN_TYPE_F32;
  case VM_T_F64: return t->kind == KILN_TYPE_F64;
  }
  return false;
}

static const char *const vm_t_names[] = {"i32", "i64", "f32", "f64"};

/* Types a VM register can hold: i32 i64 f32 f64 and refs (opaque). */
static bool vm_register_type(const kiln_type *t) {
  return vm_type_is(t, VM_T_I32) || vm_type_is(t, VM_T_I64) ||
         vm_type_is(t, VM_T_F32) || vm_type_is(t, VM_T_F64) ||
         t->kind == KILN_TYPE_OPAQUE;
}

bool vm_verify_arith(kiln_op *op) {
  for (size_t i = 0; i < sizeof vm_arith / sizeof vm_arith[0]; i++) {
    if (vm_arith[i].kind != op->kind) continue;
    for (uint32_t k = 0; k < op->num_operands; k++)
      if (!vm_type_is(kiln_op_operand(op, k)->type, vm_arith[i].in))
        return kiln_op_emit_error(op, "operand #%u must be %s", k,
                                  vm_t_names[vm_arith[i].in]);
    if (!vm_type_is(op->results[0].type, vm_arith[i].out))
      return kiln_op_emit_error(op, "result must be %s",
                                vm_t_names[vm_arith[i].out]);
    return true;
  }
  return kiln_op_emit_error(op, "is not an opcode of the VM table");
}

bool vm_verify_const(kiln_op *op) {
  static const vm_t want[] = {VM_T_I32, VM_T_I64, VM_T_F32, VM_T_F64};
  const vm_t t = want[op->kind - KILN_OP_VM_CONST_I32];
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  const bool is_float = t == VM_T_F32 || t == VM_T_F64;
  if (!v || v->kind != (is_float ? KILN_ATTR_FLOAT : KILN_ATTR_INTEGER))
    return kiln_op_emit_error(op, "requires %s 'value' attribute",
                              is_float ? "a float" : "an integer");
  if (!vm_type_is(op->results[0].type, t))
    return kiln_op_emit_error(op, "result must be %s", vm_t_names[t]);
  return true;
}

bool vm_verify_clear_ref(kiln_op *op) {
  if (kiln_op_operand(op, 0)->type->kind != KILN_TYPE_OPAQUE)
    return kiln_op_emit_error(op, "operand must be a ref");
  return true;
}

bool vm_verify_for(kiln_op *op) {
  for (uint32_t i = 0; i < 3; i++)
    if (!vm_type_is(kiln_op_operand(op, i)->type, VM_T_I64))
      return kiln_op_emit_error(op, "lower bound, upper bound and step must be i64");
  const uint32_t n = op->num_operands - 3;
  if (n != op->num_results)
    return kiln_op_emit_error(op, "has %u initial carried values but %u results", n, op->num_results);
  kiln_block *body = op->regions[0].first;
  if (!body || body != op->regions[0].last || body->num_args != n + 1 ||
      !vm_type_is(body->args[0]->type, VM_T_I64))
    return kiln_op_emit_error(op, "expects one block taking the step number (i64) and the %u carried values", n);
  for (uint32_t i = 0; i < n; i++)
    if (kiln_op_operand(op, 3 + i)->type != op->results[i].type ||
        body->args[1 + i]->type != op->results[i].type || !vm_register_type(op->results[i].type))
      return kiln_op_emit_error(op, "carried value %u: initial value, block argument and result differ in type "
                                "or have no VM register", i);
  kiln_op *y = body->last;
  if (!y || y->kind != KILN_OP_VM_YIELD || y->num_operands != n)
    return kiln_op_emit_error(op, "body must end in vm.yield of %u values", n);
  for (uint32_t i = 0; i < n; i++)
    if (kiln_op_operand(y, i)->type != op->results[i].type)
      return kiln_op_emit_error(op, "vm.yield operand %u differs in type from carried value %u", i, i);
  return true;
}

bool vm_verify_if(kiln_op *op) {
  if (!vm_type_is(kiln_op_operand(op, 0)->type, VM_T_I32))
    return kiln_op_emit_error(op, "condition must be i32");
  for (uint32_t g = 0; g < 2; g++) {
    kiln_block *b = op->regions[g].first;
    if (!b || b != op->regions[g].last || b->num_args)
      return kiln_op_emit_error(op, "expects one block without arguments in each region");
    kiln_op *y = b->last;
    if (!y || y->kind != KILN_OP_VM_YIELD || y->num_operands != op->num_results)
      return kiln_op_emit_error(op, "each block must end in vm.yield of %u values", op->num_results);
    for (uint32_t i = 0; i < op->num_results; i++)
      if (kiln_op_operand(y, i)->type != op->results[i].type || !vm_register_type(op->results[i].type))
        return kiln_op_emit_error(op, "vm.yield operand %u differs in type from result %u", i, i);
  }
  return true;
}

bool vm_verify_yield(kiln_op *op) {
  kiln_op *p = kiln_op_parent_op(op);
  if (!p || (p->kind != KILN_OP_VM_FOR && p->kind != KILN_OP_VM_IF))
    return kiln_op_emit_error(op, "expects parent op 'vm.for' or 'vm.if'");
  return true;
}

/* Number of register-list entries a signature string's arguments
 * (before '_') or results (after) describe, with span tuples counted
 * `span_tuples[i]` times; -1 when malformed. */
static int vm_sig_count(const char *sig, bool results, const kiln_attr *spans,
                        uint32_t *span_used) {
  const char *us = strchr(sig, '_');
  if (!us) return -1;
  const char *p = results ? us + 1 : sig, *end = results ? us + strlen(us) : us;
  int n = 0;
  *span_used = 0;
  while (p < end) {
    if (*p == 'C') {
      const char *d = strchr(p, 'D');
      if (!d || d > end) return -1;
      const int64_t *counts = spans ? spans->data : NULL;
      if (!spans || *span_used >= spans->count) return -1;
      const int64_t tuples = counts[(*span_used)++];
      if (tuples < 0 || tuples > 255) return -1;
      n += (int)(tuples * (d - p - 1));
      p = d + 1;
      continue;
    }
    if (!strchr("iIfFr", *p)) return -1;
    n++;
    p++;
  }
  return n;
}

bool vm_verify_call_import(kiln_op *op) {
  const kiln_attr *callee = kiln_op_get_attr(op, "callee");
  const kiln_attr *sig = kiln_op_get_attr(op, "signature");
  const kiln_attr *spans = kiln_op_get_attr(op, "spans");
  if (!callee || callee->kind != KILN_ATTR_STRING || !callee->len)
    return kiln_op_emit_error(op, "requires a string 'callee' attribute");
  if (!sig || sig->kind != KILN_ATTR_STRING || memchr(sig->str, 0, sig->len))
    return kiln_op_emit_error(op, "requires a string 'signature' attribute");
  if (spans && spans->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "'spans' must be a dense array of tuple counts");
  uint32_t used = 0;
  const int nargs = vm_sig_count(sig->str, false, spans, &used);
  const uint32_t used_args = used;
  const int nres = vm_sig_count(sig->str, true, NULL, &used);
  if (nargs < 0 || nres < 0)
    return kiln_op_emit_error(op, "signature '%s' is malformed or its spans do not match 'spans'",
                              sig->str);
  if (spans && used_args != spans->count)
    return kiln_op_emit_error(op, "'spans' has %u entries, signature '%s' has %u spans",
                              spans->count, sig->str, used_args);
  if ((uint32_t)nargs != op->num_operands || (uint32_t)nres != op->num_results)
    return kiln_op_emit_error(op, "signature '%s' wants %d operands and %d results, op has %u and %u",
                              sig->str, nargs, nres, op->num_operands, op->num_results);
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!vm_register_type(kiln_op_operand(op, i)->type))
      return kiln_op_emit_error(op, "operand #%u has a type no VM register holds", i);
  return true;
}

bool vm_verify_ret(kiln_op *op) {
  kiln_op *fn = kiln_op_parent_op(op);
  if (!fn || fn->kind != KILN_OP_VM_FUNC)
    return kiln_op_emit_error(op, "expects parent op 'vm.func'");
  const kiln_attr *ft = kiln_op_get_attr(fn, "function_type");
  if (!ft || ft->kind != KILN_ATTR_TYPE) return true; /* vm.func reports it */
  const kiln_type *t = ft->type;
  if (t->num_results != op->num_operands)
    return kiln_op_emit_error(op, "has %u operands, but enclosing function returns %u",
                              op->num_operands, t->num_results);
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type != t->types[t->num_inputs + i])
      return kiln_op_emit_error(op, "type of return operand %u does not match the function result type", i);
  return true;
}

bool vm_verify_func(kiln_op *op) {
  if (!func_verify_func(op)) return false;
  const kiln_type *t = kiln_op_get_attr(op, "function_type")->type;
  for (uint32_t i = 0; i < t->num_inputs + t->num_results; i++)
    if (!vm_register_type(t->types[i]))
      return kiln_op_emit_error(op, "%s #%u has a type no VM register holds",
                                i < t->num_inputs ? "argument" : "result",
                                i < t->num_inputs ? i : i - t->num_inputs);
  return true;
}

/* ---- custom syntax ----------------------------------------------------- */

static const kiln_type *vm_type_of(kiln_context *ctx, vm_t t) {
  switch (t) {
  case VM_T_I32: return kiln_type_int(ctx, 32);
  case VM_T_I64: return kiln_type_int(ctx, 64);
  case VM_T_F32: return kiln_type_f32(ctx);
  case VM_T_F64: return kiln_type_f64(ctx);
  }
  return NULL;
}

/* %c = vm.const.T VALUE {attrs}: the value's type is T. */
bool vm_parse_const(kiln_parser *p, kiln_op_state *st) {
  static const vm_t ts[] = {VM_T_I32, VM_T_I64, VM_T_F32, VM_T_F64};
  const kiln_type *t = vm_type_of(st->ctx, ts[st->info->kind - KILN_OP_VM_CONST_I32]);
  const kiln_attr *v;
  if (!kiln_p_attr(p, t, &v)) return false;
  if (v->type != t) return kiln_p_error(p, "expected a %s value", vm_t_names[ts[st->info->kind - KILN_OP_VM_CONST_I32]]);
  kiln_st_set_attr(st, "value", v);
  kiln_st_add_type(st, t);
  return kiln_p_opt_attr_dict(p, st);
}

void vm_print_const(kiln_printer *pr, const kiln_op *op) {
  static const char *const elide[] = {"value", NULL};
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  const bool ok = v && (v->kind == KILN_ATTR_INTEGER || v->kind == KILN_ATTR_FLOAT) &&
                  v->type == op->results[0].type;
  kiln_pr_puts(pr, " ");
  if (ok) kiln_pr_attr_bare(pr, v);
  kiln_pr_attr_dict(pr, op, ok ? elide : NULL, false);
}

/* %r = vm.OP %a, %b {attrs}: operand and result types come from the
 * opcode table row. */
bool vm_parse_arith(kiln_parser *p, kiln_op_state *st) {
  for (size_t i = 0; i < sizeof vm_arith / sizeof vm_arith[0]; i++) {
    if (vm_arith[i].kind != st->info->kind) continue;
    const uint32_t n = (uint32_t)st->info->min_operands;
    for (uint32_t k = 0; k < n; k++) {
      kiln_p_ssa_use o;
      if (k && !kiln_p_expect(p, KILN_TOK_COMMA)) return false;
      if (!kiln_p_operand(p, &o) ||
          !kiln_p_resolve_add(p, st, &o, vm_type_of(st->ctx, vm_arith[i].in)))
        return false;
    }
    kiln_st_add_type(st, vm_type_of(st->ctx, vm_arith[i].out));
    return kiln_p_opt_attr_dict(p, st);
  }
  return kiln_p_error(p, "not an opcode of the VM table");
}

void vm_print_arith(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_attr_dict(pr, op, NULL, false);
}

/* %r = vm.call.import @full.name(%a, ...) {signature, spans, ...}
 *        : (types) -> results */
bool vm_parse_call_import(kiln_parser *p, kiln_op_state *st) {
  const char *callee;
  if (!kiln_p_symbol_name(p, &callee)) return false;
  kiln_st_set_attr(st, "callee", kiln_attr_string(st->ctx, callee, strlen(callee)));
  kiln_p_ssa_uses ops = {0};
  const kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_paren_operand_list(p, &ops) || !kiln_p_opt_attr_dict(p, st)) return false;
  const kiln_type *fn;
  if (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_function_type(p, &fn)) return false;
  kiln_p_types in = {(const kiln_type **)fn->types, fn->num_inputs, 0};
  if (!kiln_p_resolve_list(p, st, &ops, &in, loc)) return false;
  for (uint32_t i = 0; i < fn->num_results; i++)
    kiln_st_add_type(st, fn->types[fn->num_inputs + i]);
  return true;
}

void vm_print_call_import(kiln_printer *pr, const kiln_op *op) {
  static const char *const elide[] = {"callee", NULL};
  const kiln_attr *c = kiln_op_get_attr(op, "callee");
  const bool ok = c && c->kind == KILN_ATTR_STRING && c->len && !memchr(c->str, 0, c->len);
  kiln_pr_puts(pr, " ");
  kiln_pr_attr(pr, kiln_attr_symbol_ref(kiln_pr_ctx(pr), ok ? c->str : "", 0, NULL));
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ")");
  kiln_pr_attr_dict(pr, op, ok ? elide : NULL, false);
  kiln_pr_puts(pr, " : (");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ") -> ");
  kiln_pr_result_types(pr, op);
}

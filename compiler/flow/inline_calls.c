/* inline-calls: func.call of a function defined in the module is replaced
 * by a copy of the callee's body, so that whole programs reach the
 * dispatch stage in one function (kernels cannot call host functions).
 *
 * Takes: a module of func.funcs. Calls anywhere (host code, linalg and
 * scf bodies) to single-block callees with a body are inlined, callees
 * first copied with their arguments mapped to the call's operands and
 * the call's results replaced by what the callee returns. Guarantees: the
 * same values are computed; a call chain deeper than INLINE_MAX_DEPTH
 * (recursion) is an error naming the call; private callees left without
 * callers are erased; calls to declarations and multi-block callees are
 * left (outline-dispatches reports them), and so are calls of host-loop
 * bodies (`kiln.host_loop_body`: fl_host_loop). */
#include "fl_internal.h"

#include <stdlib.h>
#include <string.h>

#define INLINE_MAX_DEPTH 32

static bool is_call(const kiln_op *op) { return op->kind == KILN_OP_FUNC_CALL; }

static kiln_op *callee_of(kiln_op *module, kiln_op *call) {
  const kiln_attr *c = kiln_op_get_attr(call, "callee");
  if (!c || c->kind != KILN_ATTR_SYMBOL_REF || c->count) return NULL;
  kiln_op *f = kiln_symbol_lookup(module, c->str);
  return f && f->kind == KILN_OP_FUNC_FUNC ? f : NULL;
}

/* Inlines one call; false when the callee cannot be inlined. */
static bool inline_call(kiln_context *ctx, kiln_op *module, kiln_op *call) {
  kiln_op *f = callee_of(module, call);
  kiln_block *body = f && f->num_regions ? f->regions[0].first : NULL;
  if (fl_host_loop_body(f)) return false; /* planned on its own, called per step */
  if (!body || body->next || body->num_args != call->num_operands) return false;
  kiln_op *ret = kiln_block_terminator(body);
  if (!ret || ret->kind != KILN_OP_FUNC_RETURN || ret->num_operands != call->num_results) return false;
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < body->num_args; i++)
    kiln_value_map_add(ctx, &map, body->args[i], kiln_op_operand(call, i));
  for (kiln_op *o = body->first; o && o != ret; o = o->next)
    kiln_block_insert_before(call, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < call->num_results; i++) {
    kiln_value *v = kiln_op_operand(ret, i);
    kiln_value *m = kiln_value_map_lookup(&map, v);
    kiln_value_replace_all_uses(kiln_op_result(call, i), m ? m : v);
  }
  kiln_op_erase(call);
  return true;
}

static kiln_walk_result calls_name(kiln_op *op, void *name) {
  const kiln_attr *c = is_call(op) ? kiln_op_get_attr(op, "callee") : NULL;
  return c && c->kind == KILN_ATTR_SYMBOL_REF && strcmp(c->str, name) == 0 ? KILN_WALK_INTERRUPT
                                                                           : KILN_WALK_ADVANCE;
}

static bool has_callers(kiln_op *module, const char *name) {
  return !kiln_walk_pre(module, calls_name, (void *)name);
}

/* A private function nobody calls any more goes. */
static kiln_error *erase_if_uncalled(kiln_context *ctx, kiln_op *func, kiln_block *body, void *module) {
  (void)ctx, (void)body;
  const kiln_attr *vis = kiln_op_get_attr(func, "sym_visibility");
  const char *name = kiln_symbol_name(func);
  if (vis && vis->kind == KILN_ATTR_STRING && strcmp(vis->str, "private") == 0 && name &&
      !has_callers(module, name))
    kiln_op_erase(func);
  return NULL;
}

kiln_error *kiln_flow_pass_inline_calls(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = fl_require_valid(module, "inline-calls");
  if (valid) return valid;
  kiln_context *ctx = kiln_op_context(module);
  for (int depth = 0;; depth++) {
    kiln_op **calls;
    size_t n;
    if (!kiln_collect_ops(module, false, is_call, &calls, &n))
      return kiln_error_new("inline-calls: out of memory");
    bool changed = false;
    for (size_t i = 0; i < n; i++) changed |= inline_call(ctx, module, calls[i]);
    kiln_error *deep = changed && depth == INLINE_MAX_DEPTH
                           ? kiln_op_error(calls[0], "calls nest deeper than %d levels (recursion?)",
                                           INLINE_MAX_DEPTH)
                           : NULL;
    free(calls);
    if (deep) return deep;
    if (!changed) break;
  }
  return kiln_each_func(module, erase_if_uncalled, module);
}

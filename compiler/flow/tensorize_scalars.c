/* tensorize-scalars: host function signatures carry tensors only.
 *
 * Takes: host functions after inline-calls, on tensors and scalars.
 * Guarantees: each scalar argument (iN, index, f16, bf16, f32, f64) of a
 * function with a body becomes a rank-0 tensor argument, read once at the
 * entry with `tensor.extract %arg[]`; each scalar result is returned as
 * `tensor.from_elements %r` of rank 0. index travels as tensor<i64> with
 * arith.index_cast on either side. function_type follows, so the module
 * signature records scalars as rank-0 tensors, the way the module format
 * and kiln-run already describe them (`--input=f32=3.5`, `f32=...`).
 * Functions still called (calls inline-calls had to leave) keep their
 * signature: outline-dispatches reports those calls.
 *
 * The scalar code then left on the host is moved into kernels by the
 * later passes: form-dispatch-regions makes scalar ops it cannot
 * recompute (scf.if / scf.for yielding scalars) roots and passes every
 * scalar that leaves a dispatch as a rank-0 tensor; outline-dispatches
 * recomputes pure scalar ops (tensor.extract, arith, math) inside each
 * kernel that reads them.
 *
 * Why rank-0 bindings and not push constants: a scalar may be computed by
 * one kernel and read by the next. As a binding it stays in device memory
 * and every device (CPU, and CUDA, where the host cannot read device
 * memory without a synchronizing copy) handles it the same way as any
 * tensor: one path for scalar inputs, results and intermediates. Push
 * constants stay reserved for dynamic shape dimensions. */
#include "fl_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct callee_set {
  const char **names;
  uint32_t n, cap;
  kiln_context *ctx;
} callee_set;

static kiln_walk_result note_call(kiln_op *op, void *user) {
  callee_set *s = user;
  if (op->kind != KILN_OP_FUNC_CALL) return KILN_WALK_ADVANCE;
  const kiln_attr *c = kiln_op_get_attr(op, "callee");
  if (!c || c->kind != KILN_ATTR_SYMBOL_REF) return KILN_WALK_ADVANCE;
  if (s->n == s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 8;
    const char **v = kiln_alloc(s->ctx, cap * sizeof *v);
    for (uint32_t i = 0; i < s->n; i++) v[i] = s->names[i];
    s->names = v;
    s->cap = cap;
  }
  s->names[s->n++] = c->str;
  return KILN_WALK_ADVANCE;
}

static bool called(const callee_set *s, const char *name) {
  for (uint32_t i = 0; name && i < s->n; i++)
    if (strcmp(s->names[i], name) == 0) return true;
  return false;
}

/* Scalar argument i becomes a rank-0 tensor read once at the entry. */
static void tensorize_arg(kiln_context *ctx, kiln_block *entry, kiln_op *before, uint32_t i) {
  kiln_value *arg = entry->args[i];
  const kiln_type *scalar = arg->type;
  kiln_use *uses = arg->uses;
  kiln_value_set_type(arg, fl_scalar_tensor_type(ctx, scalar));
  /* detach the old uses first: the new extract is a use of arg as well */
  uint32_t n = 0;
  for (kiln_use *u = uses; u; u = u->next) n++;
  kiln_op **owners = kiln_alloc(ctx, (n + 1) * sizeof *owners);
  uint32_t *index = kiln_alloc(ctx, (n + 1) * sizeof *index);
  n = 0;
  for (kiln_use *u = uses; u; u = u->next) {
    owners[n] = u->owner;
    index[n++] = u->index;
  }
  kiln_builder b = before ? kiln_builder_before(before) : kiln_builder_at_end(ctx, entry);
  b.loc = arg->loc;
  kiln_value *v = fl_build_tensor_to_scalar(&b, arg, scalar);
  for (uint32_t k = 0; k < n; k++) kiln_op_set_operand(owners[k], index[k], v);
}

/* Scalar operands of every func.return in the function become rank-0
 * tensors built just before it. */
static void tensorize_results(kiln_op *func) {
  for (kiln_block *blk = func->regions[0].first; blk; blk = blk->next) {
    kiln_op *ret = kiln_block_terminator(blk);
    if (!ret || ret->kind != KILN_OP_FUNC_RETURN) continue;
    for (uint32_t i = 0; i < ret->num_operands; i++) {
      kiln_value *v = kiln_op_operand(ret, i);
      if (!fl_is_scalar(v->type)) continue;
      kiln_builder b = kiln_builder_before(ret);
      b.loc = ret->loc;
      kiln_op_set_operand(ret, i, fl_build_scalar_to_tensor(&b, v));
    }
  }
}

/* Integers the module format can describe (kiln_fb_ElementType). */
static bool carried(const kiln_type *t) {
  if (t->kind != KILN_TYPE_INTEGER) return true;
  return t->width == 1 || t->width == 8 || t->width == 16 || t->width == 32 || t->width == 64;
}

static kiln_error *check_types(kiln_op *func, const kiln_type *fty) {
  const char *name = kiln_symbol_name(func);
  for (uint32_t i = 0; i < fty->num_inputs + fty->num_results; i++) {
    const kiln_type *t = fty->types[i];
    if (!fl_is_scalar(t) || carried(t)) continue;
    bool arg = i < fty->num_inputs;
    uint32_t k = arg ? i : i - fty->num_inputs;
    char *ts = kiln_type_to_string(t);
    kiln_error *e = kiln_op_error(func, "%s #%u of @%s has type %s, which a module signature cannot "
                                  "describe; scalar arguments and results must be i1, i8, i16, i32, "
                                  "i64, index, f16, bf16, f32 or f64",
                                  arg ? "argument" : "result", k, name ? name : "?", ts);
    free(ts);
    return e;
  }
  return NULL;
}

/* One host function that nothing calls: its scalar arguments and results
 * become 0-d tensors. */
static kiln_error *tensorize_func(kiln_context *ctx, kiln_op *func, kiln_block *entry, void *user) {
  const callee_set *calls = user;
  const kiln_attr *ft = kiln_op_get_attr(func, "function_type");
  if (!ft || ft->kind != KILN_ATTR_TYPE || ft->type->kind != KILN_TYPE_FUNCTION ||
      called(calls, kiln_symbol_name(func)))
    return NULL;
  const kiln_type *fty = ft->type;
  kiln_error *bad = check_types(func, fty);
  if (bad) return bad;
  uint32_t nin = fty->num_inputs, nres = fty->num_results;
  const kiln_type **types = kiln_alloc(ctx, (nin + nres + 1) * sizeof *types);
  bool changed = false;
  for (uint32_t i = 0; i < nin + nres; i++) {
    types[i] = fty->types[i];
    if (fl_is_scalar(types[i])) {
      types[i] = fl_scalar_tensor_type(ctx, types[i]);
      changed = true;
    }
  }
  if (!changed) return NULL;
  kiln_op *first = entry->first; /* the extracts go before it, in argument order */
  for (uint32_t i = 0; i < entry->num_args && i < nin; i++)
    if (fl_is_scalar(entry->args[i]->type)) tensorize_arg(ctx, entry, first, i);
  tensorize_results(func);
  kiln_op_set_attr(func, "function_type", kiln_attr_type(ctx, kiln_type_function(ctx, nin, types, nres, types + nin)));
  return NULL;
}

kiln_error *kiln_flow_pass_tensorize_scalars(kiln_op *module, void *user) {
  (void)user;
  callee_set calls = {.ctx = kiln_op_context(module)};
  kiln_walk_pre(module, note_call, &calls);
  return fl_each_host_func(module, "tensorize-scalars", tensorize_func, &calls);
}

/* generalize-named-ops: the named ops that are only data movement or
 * elementwise work (linalg.transpose, linalg.broadcast, linalg.map),
 * linalg.fill when its result is read as an input (not only written as an
 * init), and linalg.reduce when it reads a generic's result become
 * linalg.generic, so fuse-elementwise can merge them.
 *
 * Takes: host functions on tensors. Guarantees: the generic has the named
 * op's implied indexing maps (kiln_linalg_iteration) and computes the same
 * values; matmul, conv, pooling, other reduces and softmax are kept as they are
 * (codegen picks specialized strategies for them). */
#include "fl_internal.h"

/* Is a result of op read as an input by some structured op? */
static bool read_as_input(kiln_op *op) {
  for (uint32_t r = 0; r < op->num_results; r++)
    for (kiln_use *u = op->results[r].uses; u; u = u->next)
      if (kiln_op_has_flag(u->owner, KILN_OPF_LINALG) &&
          u->index < kiln_linalg_num_inputs(u->owner))
        return true;
  return false;
}

/* Does op read a value computed by a linalg.generic (a fusion chance)? */
static bool reads_generic(kiln_op *op) {
  for (uint32_t i = 0; i < kiln_linalg_num_inputs(op); i++) {
    kiln_op *d = kiln_op_operand(op, i)->def;
    if (d && d->kind == KILN_OP_LINALG_GENERIC) return true;
  }
  return false;
}

static bool wanted(kiln_op *op) {
  if (op->num_results < 1) return false;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind != KILN_TYPE_TENSOR) return false;
  if (op->kind == KILN_OP_LINALG_REDUCE) return reads_generic(op);
  if (op->num_results != 1) return false;
  switch (op->kind) {
  case KILN_OP_LINALG_TRANSPOSE:
  case KILN_OP_LINALG_BROADCAST:
  case KILN_OP_LINALG_MAP: return true;
  case KILN_OP_LINALG_FILL: return read_as_input(op);
  default: return false;
  }
}

static void generalize(kiln_context *ctx, kiln_op *op) {
  const kiln_affine_map **maps = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int loops = kiln_linalg_iteration(op, maps, red);
  if (loops < 0) return; /* malformed: the verifier reports it */
  uint32_t nin = kiln_linalg_num_inputs(op), nout = op->num_operands - nin;
  kiln_value **ops = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *ops);
  for (uint32_t i = 0; i < op->num_operands; i++) ops[i] = kiln_op_operand(op, i);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_op *g = fl_build_generic(&b, nin, ops, nout, ops + nin, maps, (uint32_t)loops, red);
  kiln_block *body = g->regions[0].first;
  if ((op->kind == KILN_OP_LINALG_MAP || op->kind == KILN_OP_LINALG_REDUCE) && op->num_regions &&
      op->regions[0].first) {
    /* map's body takes the inputs only, reduce's the inputs then the
     * inits, like the generic's: move its ops over, mapping args. */
    kiln_block *old = op->regions[0].first;
    for (uint32_t i = 0; i < old->num_args && i < body->num_args; i++)
      kiln_value_replace_all_uses(old->args[i], body->args[i]);
    while (old->first) {
      kiln_op *o = old->first;
      kiln_op_remove(o);
      kiln_block_append_op(body, o);
    }
  } else {
    /* transpose, broadcast, fill: yield the (only) input */
    fl_build_yield(ctx, body, 1, &body->args[0], op->loc);
  }
  for (uint32_t i = 0; i < op->num_results && i < g->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_result(g, i));
  kiln_op_erase(op);
}

kiln_error *kiln_flow_pass_generalize_named(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = fl_require_valid(module, "generalize-named-ops");
  if (valid) return valid;
  kiln_context *ctx = kiln_op_context(module);
  uint32_t nf;
  kiln_op **funcs = fl_host_funcs(module, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    kiln_block *body = fl_func_body(funcs[f]);
    for (kiln_op *op = body ? body->first : NULL; op;) {
      kiln_op *next = op->next;
      if (wanted(op)) generalize(ctx, op);
      op = next;
    }
  }
  return NULL;
}

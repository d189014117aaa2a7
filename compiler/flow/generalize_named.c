/* generalize-named-ops: the named ops that are only data movement or
 * elementwise work (linalg.transpose, linalg.broadcast, linalg.map) and
 * linalg.fill when its result is read as an input (not only written as an
 * init) become linalg.generic, so fuse-elementwise can merge them.
 *
 * Takes: host functions on tensors. Guarantees: the generic has the named
 * op's implied indexing maps (kiln_linalg_iteration) and computes the same
 * values; matmul, conv, pooling, reduce and softmax are kept as they are
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

static bool wanted(kiln_op *op) {
  if (op->num_results != 1 || op->results[0].type->kind != KILN_TYPE_TENSOR) return false;
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
  if (op->kind == KILN_OP_LINALG_MAP && op->num_regions && op->regions[0].first) {
    /* map's body takes the inputs only: move its ops over, mapping args. */
    kiln_block *old = op->regions[0].first;
    for (uint32_t i = 0; i < old->num_args && i < nin; i++)
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
  kiln_value_replace_all_uses(kiln_op_result(op, 0), kiln_op_result(g, 0));
  kiln_op_erase(op);
}

kiln_error *kiln_flow_pass_generalize_named(kiln_op *module, void *user) {
  (void)user;
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

/* generalize-named-ops: the named ops that are only data movement or
 * elementwise work (linalg.transpose, linalg.broadcast, linalg.map),
 * linalg.fill when its result is read as an input (not only written as an
 * init), linalg.reduce when it reads a generic's result, and float
 * matmul/batch_matmul of static shapes reading a transposed operand
 * become linalg.generic, so fold-views and fuse-elementwise can merge
 * them.
 *
 * Takes: host functions on tensors. Guarantees: the generic has the named
 * op's implied indexing maps (kiln_linalg_iteration) and computes the same
 * values; other matmuls, conv, pooling, other reduces and softmax are kept
 * as they are (codegen picks specialized strategies for them; a generic
 * matmul takes the implicit-GEMM path, which packs a transposed operand). */
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

/* Is v a transpose (a linalg.transpose, or a generic that only yields its
 * input read through a permutation other than the identity)? */
static bool transposed(kiln_value *v) {
  kiln_op *d = v->def;
  if (!d) return false;
  if (d->kind == KILN_OP_LINALG_TRANSPOSE) return true;
  if (!fl_is_copy(d)) return false;
  const kiln_affine_map *maps[3];
  if (fl_iteration(d, NULL, maps, NULL) < 0 || kiln_affine_map_is_identity(maps[0]) ||
      !kiln_affine_map_is_identity(maps[1]))
    return false;
  for (uint32_t r = 0; r < maps[0]->num_results; r++)
    if (maps[0]->results[r]->kind != KILN_AFFINE_DIM) return false;
  return maps[0]->num_results == maps[1]->num_results;
}

/* A float matmul/batch_matmul reading a transposed operand (attention's
 * Q.K^T): as a generic, fold-views and fuse-elementwise make it read the
 * untransposed tensor in place (codegen packs it), instead of a transpose
 * dispatch writing it out first. */
static bool matmul_of_transpose(kiln_op *op) {
  if ((op->kind != KILN_OP_LINALG_MATMUL && op->kind != KILN_OP_LINALG_BATCH_MATMUL) ||
      op->num_operands != 3 || op->num_results != 1)
    return false;
  const kiln_type *et = kiln_type_elem_or_self(op->results[0].type);
  if (!kiln_type_is_float(et)) return false;
  for (uint32_t i = 0; i < 2; i++)
    if (kiln_type_elem_or_self(kiln_op_operand(op, i)->type) != et) return false;
  /* the implicit-GEMM path wants static shapes: with run-time dims (a
   * dynamic sequence) the named op keeps the matmul microkernel */
  for (uint32_t i = 0; i < 3; i++)
    if (!fl_is_static_tensor(kiln_op_operand(op, i)->type)) return false;
  return transposed(kiln_op_operand(op, 0)) || transposed(kiln_op_operand(op, 1));
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
  case KILN_OP_LINALG_MATMUL:
  case KILN_OP_LINALG_BATCH_MATMUL: return matmul_of_transpose(op);
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
    /* transpose, broadcast, fill, matmul: the named op's implied body
     * (linalg_bodies.def), the one the parser and lower-to-loops build */
    kiln_builder bb = kiln_builder_at_end(ctx, body);
    bb.loc = op->loc;
    kiln_value *y = kiln_linalg_named_body(&bb, op->kind, body->args[nin]->type, body->args, nin);
    fl_build_yield(ctx, body, 1, &y, op->loc);
  }
  for (uint32_t i = 0; i < op->num_results && i < g->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_result(g, i));
  kiln_op_erase(op);
}

static void visit(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)next, (void)user;
  if (wanted(op)) generalize(ctx, op);
}

kiln_error *kiln_flow_pass_generalize_named(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "generalize-named-ops", visit, NULL);
}

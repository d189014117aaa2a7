/* split-wide-concats: a tensor.concat of more pieces than one kernel can
 * bind becomes a concat of a concat.
 *
 * Takes: host functions before form-dispatch-regions. A kernel binds at
 * most FL_MAX_BINDINGS buffers (the export's 32-bit binding masks); a
 * concat's copy dispatch binds each piece, its result, and after
 * place-concats the tie to the chain's buffer, so a concat of more than
 * FL_MAX_CONCAT_PIECES pieces (a DenseNet block of 32 layers concatenates
 * 33) could not be compiled. Guarantees: every tensor.concat has at most
 * FL_MAX_CONCAT_PIECES operands. A wider one keeps its last
 * FL_MAX_CONCAT_PIECES - 1 pieces and reads the others through one inner
 * concat (split again while still too wide) along the same dim, placed
 * before it: the same value, element for element. The last pieces stay
 * in the outer concat because they are the ones place-concats can have
 * their producers write in place (the newest layer's output); the inner
 * concat's pieces are copied twice. */
#include "fl_internal.h"

static kiln_op *split(kiln_context *ctx, kiln_op *cat) {
  const kiln_attr *dim = kiln_op_get_attr(cat, "dim");
  const kiln_type *rt = cat->results[0].type;
  if (cat->num_operands <= FL_MAX_CONCAT_PIECES || !dim || dim->kind != KILN_ATTR_INTEGER ||
      rt->kind != KILN_TYPE_TENSOR || dim->i < 0 || dim->i >= (int64_t)rt->rank)
    return NULL;
  const uint32_t n = cat->num_operands, keep = FL_MAX_CONCAT_PIECES - 1, inner_n = n - keep;
  int64_t *shape = kiln_alloc(ctx, (rt->rank + 1) * sizeof *shape);
  for (uint32_t d = 0; d < rt->rank; d++) shape[d] = rt->shape[d];
  int64_t along = 0;
  for (uint32_t i = 0; i < inner_n; i++) {
    const kiln_type *t = kiln_op_operand(cat, i)->type;
    int64_t s = t->kind == KILN_TYPE_TENSOR && (int64_t)t->rank == (int64_t)rt->rank ? t->shape[dim->i]
                                                                                  : KILN_DYNAMIC;
    along = s == KILN_DYNAMIC || along == KILN_DYNAMIC ? KILN_DYNAMIC : along + s;
  }
  shape[dim->i] = along;
  const kiln_type *it = kiln_type_tensor(ctx, rt->rank, shape, rt->elem, rt->layout);
  kiln_value **ops = kiln_alloc(ctx, n * sizeof *ops);
  for (uint32_t i = 0; i < n; i++) ops[i] = kiln_op_operand(cat, i);
  kiln_op *inner = kiln_op_create(ctx, KILN_OP_TENSOR_CONCAT, cat->loc, inner_n, ops, 1, &it, cat->attrs, 0);
  kiln_block_insert_before(cat, inner);
  ops[inner_n - 1] = kiln_op_result(inner, 0);
  kiln_op *outer = kiln_op_create(ctx, KILN_OP_TENSOR_CONCAT, cat->loc, keep + 1, ops + inner_n - 1, 1, &rt,
                                  cat->attrs, 0);
  kiln_block_insert_before(cat, outer);
  kiln_value_replace_all_uses(kiln_op_result(cat, 0), kiln_op_result(outer, 0));
  kiln_op_erase(cat);
  return inner;
}

static void split_op(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)next, (void)user;
  if (op->kind != KILN_OP_TENSOR_CONCAT) return;
  for (kiln_op *c = op; c;) c = split(ctx, c);
}

kiln_error *kiln_flow_pass_split_wide_concats(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "split-wide-concats", split_op, NULL);
}

/* Helpers of the hal passes: module walks, sizes, types and attributes,
 * the memref copy builder. See hl_internal.h. */
#include "hl_internal.h"

#include <string.h>

kiln_op **hl_module_ops(kiln_op *module, kiln_op_kind kind, uint32_t *n) {
  kiln_context *ctx = kiln_op_context(module);
  kiln_block *body = kiln_module_body(module);
  uint32_t count = 0;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next) count += o->kind == kind;
  kiln_op **v = kiln_alloc(ctx, (count + 1) * sizeof *v);
  count = 0;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next)
    if (o->kind == kind) v[count++] = o;
  *n = count;
  return v;
}

kiln_error *hl_each_func(kiln_op *module, const char *pass, kiln_func_fn fn, void *user) {
  kiln_error *err = hl_require_valid(module, pass);
  return err ? err : kiln_each_func(module, fn, user);
}

kiln_error *hl_each_variant(kiln_op *module, const char *pass, hl_variant_fn fn, void *user) {
  kiln_error *err = hl_require_valid(module, pass);
  if (err) return err;
  kiln_context *ctx = kiln_op_context(module);
  uint32_t ne;
  kiln_op **exes = hl_module_ops(module, KILN_OP_HAL_EXECUTABLE, &ne);
  for (uint32_t x = 0; x < ne && !err; x++) {
    kiln_block *eb = exes[x]->regions[0].first;
    for (kiln_op *var = eb ? eb->first : NULL; var && !err; var = var->next)
      if (var->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) err = fn(ctx, exes[x], var, user);
  }
  return err;
}

kiln_op *hl_variant_kernel(kiln_op *variant) {
  kiln_block *b = variant->regions[0].first;
  for (kiln_op *o = b ? b->first : NULL; o; o = o->next) {
    if (o->kind != KILN_OP_BUILTIN_MODULE) continue;
    kiln_block *mb = o->regions[0].first;
    for (kiln_op *f = mb ? mb->first : NULL; f; f = f->next)
      if (f->kind == KILN_OP_FUNC_FUNC) return f;
  }
  return NULL;
}

int64_t hl_byte_size(const kiln_type *t) {
  if (!kiln_type_is_shaped(t) || !kiln_type_has_static_shape(t)) return -1;
  int64_t n = kiln_type_num_elements(t);
  size_t es = kiln_dense_elem_size(t->elem);
  if (n < 0 || es == 0 || (uint64_t)n > (uint64_t)INT64_MAX / es) return -1;
  return n * (int64_t)es;
}

const kiln_type *hl_arg_tensor_type(kiln_value *arg, kiln_value **dims, uint32_t *ndims) {
  for (kiln_use *u = arg->uses; u; u = u->next) {
    kiln_op *o = u->owner;
    uint32_t first;
    const kiln_type *t;
    if (o->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD) first = 1, t = o->results[0].type;
    else if (o->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE && u->index == 1) first = 2, t = kiln_op_operand(o, 0)->type;
    else continue;
    if (ndims) *ndims = 0;
    for (uint32_t i = first; dims && i < o->num_operands && i - first < KILN_MAX_LOOPS; i++)
      dims[(*ndims)++] = kiln_op_operand(o, i);
    return t;
  }
  return NULL;
}

const kiln_type *hl_memref_for(kiln_context *ctx, const kiln_type *t) {
  return kiln_type_memref(ctx, t->rank, t->shape, t->elem, NULL, NULL);
}

void hl_build_copy(kiln_builder *b, kiln_value *src, kiln_value *dst) {
  kiln_context *ctx = b->ctx;
  uint32_t rank = dst->type->rank;
  const kiln_attr *id = kiln_attr_affine_map(ctx, kiln_affine_map_identity(ctx, rank));
  const kiln_attr *maps[2] = {id, id};
  const kiln_attr **its = kiln_alloc(ctx, (rank + 1) * sizeof *its);
  for (uint32_t i = 0; i < rank; i++) its[i] = kiln_attr_opaque(ctx, "linalg", "iterator_type<parallel>");
  int64_t seg[2] = {1, 1};
  kiln_named_attr e[3] = {
      hl_named(ctx, "indexing_maps", kiln_attr_array(ctx, 2, maps)),
      hl_named(ctx, "iterator_types", kiln_attr_array(ctx, rank, its)),
      hl_named(ctx, "operandSegmentSizes", kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 2, seg, NULL)),
  };
  kiln_value *ops[2] = {src, dst};
  kiln_op *g = kiln_build(b, KILN_OP_LINALG_GENERIC, 2, ops, 0, NULL, kiln_attr_dict(ctx, 3, e));
  kiln_block *body = kiln_op_entry_block(ctx, g, 0);
  kiln_value *in = kiln_block_add_arg(ctx, body, src->type->elem, b->loc);
  kiln_block_add_arg(ctx, body, dst->type->elem, b->loc);
  kiln_block_append_op(body, kiln_op_create(ctx, KILN_OP_LINALG_YIELD, b->loc, 1, &in, 0, NULL, NULL, 0));
}

const kiln_type *hl_type(kiln_context *ctx, const char *name) {
  return kiln_type_opaque(ctx, "hal", kiln_intern_cstr(ctx, name));
}

kiln_named_attr hl_named(kiln_context *ctx, const char *name, const kiln_attr *v) {
  kiln_named_attr a = {kiln_intern_cstr(ctx, name), v};
  return a;
}

const kiln_attr *hl_i32(kiln_context *ctx, int64_t v) { return kiln_attr_int(ctx, kiln_type_int(ctx, 32), v); }
const kiln_attr *hl_i64(kiln_context *ctx, int64_t v) { return kiln_attr_int(ctx, kiln_type_int(ctx, 64), v); }

kiln_error *hl_require_valid(kiln_op *module, const char *pass) { return kiln_verify_input(module, pass); }

bool hl_init_read(kiln_op *op, uint32_t j) {
  switch (op->kind) {
  case KILN_OP_LINALG_GENERIC: {
    kiln_block *b = op->regions[0].first;
    uint32_t k = kiln_linalg_num_inputs(op) + j;
    if (b && k < b->num_args && kiln_value_has_uses(b->args[k])) return true;
    /* an output map that is not a permutation of loops (an insert at an
     * offset, a strided write) leaves elements it does not write as the
     * init had them */
    const kiln_affine_map **maps = kiln_alloc(kiln_op_context(op), (op->num_operands + 1) * sizeof *maps);
    if (kiln_linalg_iteration(op, maps, NULL) < 0 || k >= op->num_operands) return true;
    const kiln_affine_map *m = maps[k];
    return !kiln_affine_map_is_projected_permutation(m) ||
           m->num_results != kiln_op_operand(op, k)->type->rank;
  }
  case KILN_OP_LINALG_FILL:
  case KILN_OP_LINALG_SOFTMAX:
  case KILN_OP_LINALG_MAP:
  case KILN_OP_LINALG_TRANSPOSE:
  case KILN_OP_LINALG_BROADCAST: return false;
  default: return true;
  }
}

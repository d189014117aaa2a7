/* Small IR builders of code generation (compiler/codegen/common).
 * Takes: a builder's insertion point. Guarantees: index arithmetic folds
 * constants (cg_add, cg_mul, cg_muli), loops end with their scf.yield,
 * and memref.subview results carry the strided layout they view. */
#include "codegen_common.h"


kiln_value *cg_affine_value(kiln_builder *b, const kiln_affine_expr *e, kiln_value *const *ivs) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: return ivs[e->value];
  case KILN_AFFINE_CONST: return cg_index(b, e->value);
  case KILN_AFFINE_ADD: return cg_add(b, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_MUL: return cg_mul(b, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_MOD:
    return cg_bin(b, KILN_OP_ARITH_REMSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_FLOORDIV:
    return cg_bin(b, KILN_OP_ARITH_FLOORDIVSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_CEILDIV:
    return cg_bin(b, KILN_OP_ARITH_CEILDIVSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  default: return NULL;
  }
}

kiln_value *cg_index(kiln_builder *b, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(b->ctx, kiln_type_index(b->ctx), v));
}

kiln_value *cg_const_like(kiln_builder *b, const kiln_type *t, double f, int64_t i) {
  if (kiln_type_is_float(t)) return kiln_build_constant(b, kiln_attr_float(b->ctx, t, f));
  return kiln_build_constant(b, kiln_attr_int(b->ctx, t, i));
}

kiln_value *cg_bin(kiln_builder *b, kiln_op_kind kind, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(b, kind, 2, ops, 1, &t, NULL), 0);
}

kiln_value *cg_cmpi(kiln_builder *b, int64_t pred, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *t = kiln_type_int(b->ctx, 1);
  kiln_named_attr na = {"predicate", kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 64), pred)};
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_CMPI, 2, ops, 1, &t,
                                   kiln_attr_dict(b->ctx, 1, &na)), 0);
}

bool cg_const_int(const kiln_value *v, int64_t *out) {
  const kiln_attr *a = kiln_value_constant(v);
  if (!a || a->kind != KILN_ATTR_INTEGER) return false;
  *out = a->i;
  return true;
}

kiln_value *cg_add(kiln_builder *b, kiln_value *x, kiln_value *y) {
  int64_t p, q;
  bool cx = cg_const_int(x, &p), cy = cg_const_int(y, &q);
  if (cx && cy) return cg_index(b, p + q);
  if (cx && p == 0) return y;
  if (cy && q == 0) return x;
  return cg_bin(b, KILN_OP_ARITH_ADDI, x, y);
}

kiln_value *cg_mul(kiln_builder *b, kiln_value *x, kiln_value *y) {
  int64_t p, q;
  bool cx = cg_const_int(x, &p), cy = cg_const_int(y, &q);
  if (cx && cy) return cg_index(b, p * q);
  if ((cx && p == 0) || (cy && q == 0)) return cg_index(b, 0);
  if (cx && p == 1) return y;
  if (cy && q == 1) return x;
  return cg_bin(b, KILN_OP_ARITH_MULI, x, y);
}

kiln_value *cg_muli(kiln_builder *b, kiln_value *x, int64_t c) {
  return cg_mul(b, x, cg_index(b, c));
}

kiln_op *cg_for(kiln_builder *b, kiln_value *lb, kiln_value *ub, kiln_value *step,
                uint32_t ninit, kiln_value *const *inits, kiln_builder *body) {
  kiln_value **ops = kiln_alloc(b->ctx, (3 + ninit) * sizeof *ops);
  const kiln_type **types = kiln_alloc(b->ctx, (ninit + 1) * sizeof *types);
  ops[0] = lb, ops[1] = ub, ops[2] = step;
  for (uint32_t i = 0; i < ninit; i++) ops[3 + i] = inits[i], types[i] = inits[i]->type;
  kiln_op *loop = kiln_build(b, KILN_OP_SCF_FOR, 3 + ninit, ops, ninit, types, NULL);
  kiln_block *blk = kiln_op_entry_block(b->ctx, loop, 0);
  kiln_block_add_arg(b->ctx, blk, lb->type, b->loc);
  kiln_value **args = kiln_alloc(b->ctx, (ninit + 1) * sizeof *args);
  for (uint32_t i = 0; i < ninit; i++) args[i] = kiln_block_add_arg(b->ctx, blk, inits[i]->type, b->loc);
  kiln_builder yb = kiln_builder_at_end(b->ctx, blk);
  yb.loc = b->loc;
  kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, ninit, args, 0, NULL, NULL);
  *body = kiln_builder_before(y);
  body->loc = b->loc;
  return loop;
}

kiln_value *cg_for_iv(kiln_op *loop) { return loop->regions[0].first->args[0]; }

void cg_for_set_yield(kiln_op *loop, uint32_t n, kiln_value *const *vals) {
  kiln_op *y = kiln_block_terminator(loop->regions[0].first);
  kiln_op_set_operands(y, n, vals);
}

kiln_value *cg_load(kiln_builder *b, kiln_value *memref, uint32_t n, kiln_value *const *idx) {
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  ops[0] = memref;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  const kiln_type *t = memref->type->elem;
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_LOAD, 1 + n, ops, 1, &t, NULL), 0);
}

void cg_store(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
              kiln_value *const *idx) {
  kiln_value *ops[2 + KILN_MAX_LOOPS];
  ops[0] = val, ops[1] = memref;
  for (uint32_t i = 0; i < n; i++) ops[2 + i] = idx[i];
  kiln_build(b, KILN_OP_MEMREF_STORE, 2 + n, ops, 0, NULL, NULL);
}

kiln_value *cg_vload(kiln_builder *b, const kiln_type *vt, kiln_value *memref, uint32_t n,
                     kiln_value *const *idx) {
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  ops[0] = memref;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_LOAD, 1 + n, ops, 1, &vt, NULL), 0);
}

void cg_vstore(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
               kiln_value *const *idx) {
  kiln_value *ops[2 + KILN_MAX_LOOPS];
  ops[0] = val, ops[1] = memref;
  for (uint32_t i = 0; i < n; i++) ops[2 + i] = idx[i];
  kiln_build(b, KILN_OP_VECTOR_STORE, 2 + n, ops, 0, NULL, NULL);
}

kiln_value *cg_broadcast(kiln_builder *b, kiln_value *s, const kiln_type *vt) {
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_BROADCAST, 1, &s, 1, &vt, NULL), 0);
}

kiln_value *cg_dim(kiln_builder *b, kiln_value *memref, uint32_t d) {
  const kiln_type *t = memref->type;
  if (t->shape[d] != KILN_DYNAMIC) return cg_index(b, t->shape[d]);
  kiln_value *ops[2] = {memref, cg_index(b, d)};
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *cg_subview(kiln_builder *b, kiln_value *src, kiln_value *const *offs,
                       kiln_value *const *sizes) {
  const kiln_type *t = src->type;
  uint32_t r = t->rank;
  int64_t so[KILN_MAX_LOOPS], ss[KILN_MAX_LOOPS], st[KILN_MAX_LOOPS], shape[KILN_MAX_LOOPS];
  int64_t strides[KILN_MAX_LOOPS], off;
  kiln_value *ops[1 + 2 * KILN_MAX_LOOPS];
  uint32_t n = 0, noff = 0, nsz = 0;
  ops[n++] = src;
  kiln_memref_strides(t, strides, &off);
  int64_t res_off = off;
  for (uint32_t i = 0; i < r; i++) {
    int64_t c;
    if (cg_const_int(offs[i], &c)) {
      so[i] = c;
      if (res_off != KILN_DYNAMIC && strides[i] != KILN_DYNAMIC) res_off += c * strides[i];
      else res_off = KILN_DYNAMIC;
    } else {
      so[i] = KILN_DYNAMIC, ops[n++] = offs[i], noff++;
      res_off = KILN_DYNAMIC;
    }
  }
  for (uint32_t i = 0; i < r; i++) {
    int64_t c;
    if (cg_const_int(sizes[i], &c)) ss[i] = c, shape[i] = c;
    else ss[i] = KILN_DYNAMIC, shape[i] = KILN_DYNAMIC, ops[n++] = sizes[i], nsz++;
    st[i] = 1;
  }
  kiln_context *c = b->ctx;
  const kiln_attr *layout = kiln_attr_strided(c, res_off, r, strides);
  const kiln_type *rt = kiln_type_memref(c, r, shape, t->elem, layout, t->memspace);
  int64_t seg[4] = {1, noff, nsz, 0};
  kiln_named_attr na[4] = {
      {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 4, seg, NULL)},
      {"static_offsets", kiln_attr_dense_i64_array(c, r, so)},
      {"static_sizes", kiln_attr_dense_i64_array(c, r, ss)},
      {"static_strides", kiln_attr_dense_i64_array(c, r, st)}};
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_SUBVIEW, n, ops, 1, &rt,
                                   kiln_attr_dict(c, 4, na)), 0);
}

/* linalg's implied iteration spaces: kiln_linalg_iteration gives, for any
 * structured op (generic and every named op but softmax), its indexing maps
 * and which loops reduce, so flow, codegen and the verifier read one
 * definition of what each named op iterates over. Takes a parsed or built
 * op; guarantees -1 for ops without a structured iteration space. */
#include "dialects.h"

static const kiln_affine_expr *D(kiln_context *c, unsigned i) { return kiln_affine_dim(c, i); }

/* a * s + b * d (the strided window access of convolutions and pooling) */
static const kiln_affine_expr *window(kiln_context *c, unsigned a, int64_t s,
                                      unsigned b, int64_t d) {
  const kiln_affine_expr *x = kiln_affine_binary(c, KILN_AFFINE_MUL, D(c, a), kiln_affine_const(c, s));
  const kiln_affine_expr *y = kiln_affine_binary(c, KILN_AFFINE_MUL, D(c, b), kiln_affine_const(c, d));
  return kiln_affine_binary(c, KILN_AFFINE_ADD, x, y);
}

static const kiln_affine_map *mk(kiln_context *c, uint32_t dims, uint32_t n,
                                 const kiln_affine_expr *const *e) {
  return kiln_affine_map_get(c, dims, 0, n, e);
}

/* strides/dilations attribute value i (dense<..> or array<i64>), default 1 */
int64_t ir_linalg_hw_attr(const kiln_op *op, const char *name, int i) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a) return 1;
  if (a->kind == KILN_ATTR_DENSE && kiln_type_num_elements(a->type) == 2 &&
      kiln_type_is_int_or_index(a->type->elem))
    return kiln_dense_get_int(a, i);
  if (a->kind == KILN_ATTR_DENSE_ARRAY && a->count == 2)
    return ((const int64_t *)a->data)[i];
  return 0; /* malformed; the verifier reports it */
}

int ir_linalg_rank_of(const kiln_op *op, uint32_t i) {
  const kiln_type *t = kiln_op_operand(op, i)->type;
  return kiln_type_is_ranked(t) ? (int)t->rank : (kiln_type_is_shaped(t) ? -1 : 0);
}

int kiln_linalg_iteration(const kiln_op *op, const kiln_affine_map **maps,
                          bool *red) {
  if (!(op->info->flags & KILN_OPF_LINALG) || op->kind == KILN_OP_LINALG_SOFTMAX)
    return -1;
  kiln_context *c = kiln_op_context(op);
  bool r[KILN_MAX_LOOPS] = {0};
  int loops = -1;
  const kiln_affine_expr *e[KILN_MAX_LOOPS];
  switch (op->kind) {
  case KILN_OP_LINALG_GENERIC: {
    const kiln_attr *im = kiln_op_get_attr(op, "indexing_maps");
    const kiln_attr *it = kiln_op_get_attr(op, "iterator_types");
    if (!im || !it || im->kind != KILN_ATTR_ARRAY || it->kind != KILN_ATTR_ARRAY ||
        im->count != op->num_operands || it->count > KILN_MAX_LOOPS)
      return -1;
    loops = (int)it->count;
    for (uint32_t i = 0; i < it->count; i++) {
      const kiln_attr *x = it->elems[i];
      if (x->kind != KILN_ATTR_OPAQUE) return -1;
      if (strcmp(x->str, "iterator_type<reduction>") == 0) r[i] = true;
      else if (strcmp(x->str, "iterator_type<parallel>") != 0) return -1;
    }
    for (uint32_t i = 0; i < im->count; i++) {
      if (im->elems[i]->kind != KILN_ATTR_AFFINE_MAP) return -1;
      maps[i] = im->elems[i]->map;
      if (maps[i]->num_dims != (uint32_t)loops || maps[i]->num_symbols) return -1;
    }
    break;
  }
  case KILN_OP_LINALG_FILL: {
    if (op->num_operands != 2) return -1;
    int rk = ir_linalg_rank_of(op, 1);
    if (rk < 0 || rk > KILN_MAX_LOOPS) return -1;
    loops = rk;
    maps[0] = mk(c, (uint32_t)rk, 0, NULL);
    maps[1] = kiln_affine_map_identity(c, (uint32_t)rk);
    break;
  }
  case KILN_OP_LINALG_MATMUL:
    if (op->num_operands != 3) return -1;
    loops = 3, r[2] = true;
    e[0] = D(c, 0), e[1] = D(c, 2), maps[0] = mk(c, 3, 2, e);
    e[0] = D(c, 2), e[1] = D(c, 1), maps[1] = mk(c, 3, 2, e);
    e[0] = D(c, 0), e[1] = D(c, 1), maps[2] = mk(c, 3, 2, e);
    break;
  case KILN_OP_LINALG_BATCH_MATMUL:
    if (op->num_operands != 3) return -1;
    loops = 4, r[3] = true;
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 3), maps[0] = mk(c, 4, 3, e);
    e[0] = D(c, 0), e[1] = D(c, 3), e[2] = D(c, 2), maps[1] = mk(c, 4, 3, e);
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 2), maps[2] = mk(c, 4, 3, e);
    break;
  case KILN_OP_LINALG_MATVEC:
    if (op->num_operands != 3) return -1;
    loops = 2, r[1] = true;
    e[0] = D(c, 0), e[1] = D(c, 1), maps[0] = mk(c, 2, 2, e);
    e[0] = D(c, 1), maps[1] = mk(c, 2, 1, e);
    e[0] = D(c, 0), maps[2] = mk(c, 2, 1, e);
    break;
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: { /* n oh ow f kh kw c */
    if (op->num_operands != 3) return -1;
    int64_t sh = ir_linalg_hw_attr(op, "strides", 0), sw = ir_linalg_hw_attr(op, "strides", 1);
    int64_t dh = ir_linalg_hw_attr(op, "dilations", 0), dw = ir_linalg_hw_attr(op, "dilations", 1);
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return -1;
    loops = 7, r[4] = r[5] = r[6] = true;
    e[0] = D(c, 0), e[1] = window(c, 1, sh, 4, dh), e[2] = window(c, 2, sw, 5, dw), e[3] = D(c, 6);
    maps[0] = mk(c, 7, 4, e);
    e[0] = D(c, 4), e[1] = D(c, 5), e[2] = D(c, 6), e[3] = D(c, 3), maps[1] = mk(c, 7, 4, e);
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 2), e[3] = D(c, 3), maps[2] = mk(c, 7, 4, e);
    break;
  }
  case KILN_OP_LINALG_CONV_2D_NCHW_FCHW: { /* n f oh ow c kh kw */
    if (op->num_operands != 3) return -1;
    int64_t sh = ir_linalg_hw_attr(op, "strides", 0), sw = ir_linalg_hw_attr(op, "strides", 1);
    int64_t dh = ir_linalg_hw_attr(op, "dilations", 0), dw = ir_linalg_hw_attr(op, "dilations", 1);
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return -1;
    loops = 7, r[4] = r[5] = r[6] = true;
    e[0] = D(c, 0), e[1] = D(c, 4), e[2] = window(c, 2, sh, 5, dh), e[3] = window(c, 3, sw, 6, dw);
    maps[0] = mk(c, 7, 4, e);
    e[0] = D(c, 1), e[1] = D(c, 4), e[2] = D(c, 5), e[3] = D(c, 6), maps[1] = mk(c, 7, 4, e);
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 2), e[3] = D(c, 3), maps[2] = mk(c, 7, 4, e);
    break;
  }
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_MAX:
  case KILN_OP_LINALG_POOLING_NHWC_SUM: { /* n oh ow c kh kw */
    if (op->num_operands != 3) return -1;
    int64_t sh = ir_linalg_hw_attr(op, "strides", 0), sw = ir_linalg_hw_attr(op, "strides", 1);
    int64_t dh = ir_linalg_hw_attr(op, "dilations", 0), dw = ir_linalg_hw_attr(op, "dilations", 1);
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return -1;
    loops = 6, r[4] = r[5] = true;
    e[0] = D(c, 0), e[1] = window(c, 1, sh, 4, dh), e[2] = window(c, 2, sw, 5, dw), e[3] = D(c, 3);
    maps[0] = mk(c, 6, 4, e);
    if (op->kind == KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC) {
      e[0] = D(c, 4), e[1] = D(c, 5), e[2] = D(c, 3), maps[1] = mk(c, 6, 3, e);
    } else {
      e[0] = D(c, 4), e[1] = D(c, 5), maps[1] = mk(c, 6, 2, e);
    }
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 2), e[3] = D(c, 3), maps[2] = mk(c, 6, 4, e);
    break;
  }
  case KILN_OP_LINALG_POOLING_NCHW_MAX:
  case KILN_OP_LINALG_POOLING_NCHW_SUM: { /* n c oh ow kh kw */
    if (op->num_operands != 3) return -1;
    int64_t sh = ir_linalg_hw_attr(op, "strides", 0), sw = ir_linalg_hw_attr(op, "strides", 1);
    int64_t dh = ir_linalg_hw_attr(op, "dilations", 0), dw = ir_linalg_hw_attr(op, "dilations", 1);
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return -1;
    loops = 6, r[4] = r[5] = true;
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = window(c, 2, sh, 4, dh), e[3] = window(c, 3, sw, 5, dw);
    maps[0] = mk(c, 6, 4, e);
    e[0] = D(c, 4), e[1] = D(c, 5), maps[1] = mk(c, 6, 2, e);
    e[0] = D(c, 0), e[1] = D(c, 1), e[2] = D(c, 2), e[3] = D(c, 3), maps[2] = mk(c, 6, 4, e);
    break;
  }
  case KILN_OP_LINALG_TRANSPOSE: {
    const kiln_attr *perm = kiln_op_get_attr(op, "permutation");
    int rk = ir_linalg_rank_of(op, 1);
    if (!perm || perm->kind != KILN_ATTR_DENSE_ARRAY || rk < 0 || rk > KILN_MAX_LOOPS ||
        perm->count != (uint32_t)rk)
      return -1;
    loops = rk;
    /* out[i] = in[perm[i]]: input map sends loops to permuted positions */
    const int64_t *pv = perm->data;
    const kiln_affine_expr *in[KILN_MAX_LOOPS];
    for (int i = 0; i < rk; i++) {
      if (pv[i] < 0 || pv[i] >= rk) return -1;
      in[pv[i]] = D(c, (unsigned)i);
    }
    maps[0] = mk(c, (uint32_t)rk, (uint32_t)rk, in);
    maps[1] = kiln_affine_map_identity(c, (uint32_t)rk);
    break;
  }
  case KILN_OP_LINALG_BROADCAST:
  case KILN_OP_LINALG_REDUCE: {
    bool bc = op->kind == KILN_OP_LINALG_BROADCAST;
    const kiln_attr *dims = kiln_op_get_attr(op, "dimensions");
    uint32_t nin = kiln_linalg_num_inputs(op);
    if (!dims || dims->kind != KILN_ATTR_DENSE_ARRAY || !nin) return -1;
    int rk = ir_linalg_rank_of(op, bc ? 1 : 0);
    if (rk < 0 || rk > KILN_MAX_LOOPS) return -1;
    loops = rk;
    bool drop[KILN_MAX_LOOPS] = {0};
    for (uint32_t i = 0; i < dims->count; i++) {
      int64_t d = ((const int64_t *)dims->data)[i];
      if (d < 0 || d >= rk || drop[d]) return -1;
      drop[d] = true;
      if (!bc) r[d] = true;
    }
    const kiln_affine_expr *sm[KILN_MAX_LOOPS];
    uint32_t ns = 0;
    for (int i = 0; i < rk; i++)
      if (!drop[i]) sm[ns++] = D(c, (unsigned)i);
    const kiln_affine_map *full = kiln_affine_map_identity(c, (uint32_t)rk);
    const kiln_affine_map *small = mk(c, (uint32_t)rk, ns, sm);
    for (uint32_t i = 0; i < op->num_operands; i++)
      maps[i] = bc ? (i == 0 ? small : full) : (i < nin ? full : small);
    break;
  }
  case KILN_OP_LINALG_MAP: {
    int rk = ir_linalg_rank_of(op, op->num_operands - 1);
    if (rk < 0 || rk > KILN_MAX_LOOPS) return -1;
    loops = rk;
    for (uint32_t i = 0; i < op->num_operands; i++)
      maps[i] = kiln_affine_map_identity(c, (uint32_t)rk);
    break;
  }
  default:
    return -1;
  }
  if (red)
    for (int i = 0; i < loops; i++) red[i] = r[i];
  return loops;
}

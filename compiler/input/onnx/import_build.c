/* IR-building helpers shared by the operator families: empty/filled
 * tensors, scalar constants and conversions, linalg.generic with numpy
 * broadcasting maps, reshapes, slices, pads, transposes.
 *
 * Takes: static ranked tensors. Guarantees: every op built here satisfies
 * kiln_verify and prints in the form mlir-opt-19 reads (operandSegmentSizes
 * as its parser would set them). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

static const kiln_attr *i32seg(oi_ctx *c, uint32_t n, const int64_t *v) {
  return kiln_attr_dense_array(c->ctx, kiln_type_int(c->ctx, 32), n, v, NULL);
}

kiln_value *oi_scalar(kiln_builder *b, const kiln_type *et, double f, int64_t i) {
  const kiln_attr *a = kiln_type_is_float(et) ? kiln_attr_float(b->ctx, et, f)
                                              : kiln_attr_int(b->ctx, et, i);
  return kiln_build_constant(b, a);
}

kiln_value *oi_filled(oi_ctx *c, const kiln_type *t, double f, int64_t i) {
  return oi_fill_into(c, oi_empty(c, t), f, i);
}

kiln_value *oi_fill_into(oi_ctx *c, kiln_value *init, double f, int64_t i) {
  const kiln_type *t = init->type;
  kiln_value *s = oi_scalar(&c->b, t->elem, f, i);
  kiln_value *ops[2] = {s, init};
  int64_t seg[2] = {1, 1};
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "operandSegmentSizes"), i32seg(c, 2, seg)};
  kiln_op *op = kiln_build(&c->b, KILN_OP_LINALG_FILL, 2, ops, 1, &t,
                           kiln_attr_dict(c->ctx, 1, &e));
  return kiln_op_result(op, 0);
}

void oi_elem_lowest(const kiln_type *et, int32_t dtype, double *f, int64_t *i) {
  *f = -INFINITY;
  *i = 0;
  if (kiln_type_is_float(et)) return;
  uint32_t w = et->width;
  if (oi_dtype_is_unsigned(dtype) || w == 1) *i = 0;
  else *i = w >= 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
}

void oi_elem_highest(const kiln_type *et, int32_t dtype, double *f, int64_t *i) {
  *f = INFINITY;
  *i = 0;
  if (kiln_type_is_float(et)) return;
  uint32_t w = et->width;
  if (w == 1) *i = 1;
  else if (oi_dtype_is_unsigned(dtype)) *i = w >= 64 ? -1 : (int64_t)((UINT64_C(1) << w) - 1);
  else *i = w >= 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1;
}

kiln_op *oi_generic(oi_ctx *c, uint32_t nin, kiln_value *const *ins, uint32_t nout,
                    kiln_value *const *outs, const kiln_affine_map *const *maps,
                    uint32_t loops, const bool *red, oi_body_fn body, void *user) {
  kiln_context *ctx = c->ctx;
  uint32_t n = nin + nout;
  kiln_value **ops = kiln_alloc(ctx, (n + 1) * sizeof *ops);
  const kiln_attr **mattrs = kiln_alloc(ctx, (n + 1) * sizeof *mattrs);
  const kiln_attr **its = kiln_alloc(ctx, (loops + 1) * sizeof *its);
  const kiln_type **rtypes = kiln_alloc(ctx, (nout + 1) * sizeof *rtypes);
  for (uint32_t i = 0; i < nin; i++) ops[i] = ins[i];
  for (uint32_t i = 0; i < nout; i++) ops[nin + i] = outs[i], rtypes[i] = outs[i]->type;
  for (uint32_t i = 0; i < n; i++) mattrs[i] = kiln_attr_affine_map(ctx, maps[i]);
  for (uint32_t i = 0; i < loops; i++)
    its[i] = kiln_attr_opaque(ctx, "linalg", red && red[i] ? "iterator_type<reduction>"
                                                           : "iterator_type<parallel>");
  int64_t seg[2] = {nin, nout};
  kiln_named_attr e[3] = {
      {kiln_intern_cstr(ctx, "indexing_maps"), kiln_attr_array(ctx, n, mattrs)},
      {kiln_intern_cstr(ctx, "iterator_types"), kiln_attr_array(ctx, loops, its)},
      {kiln_intern_cstr(ctx, "operandSegmentSizes"), i32seg(c, 2, seg)},
  };
  kiln_op *g = kiln_op_create(ctx, KILN_OP_LINALG_GENERIC, c->b.loc, n, ops, nout, rtypes,
                              kiln_attr_dict(ctx, 3, e), 1);
  kiln_builder_insert(&c->b, g);
  kiln_block *blk = kiln_op_entry_block(ctx, g, 0);
  for (uint32_t i = 0; i < n; i++)
    kiln_block_add_arg(ctx, blk, kiln_type_elem_or_self(ops[i]->type), c->b.loc);
  kiln_builder bb = kiln_builder_at_end(ctx, blk);
  bb.loc = c->b.loc;
  kiln_value **y = kiln_alloc(ctx, (nout + 1) * sizeof *y);
  if (!body(c, &bb, blk->args, y, user)) return NULL;
  kiln_op *yo = kiln_op_create(ctx, KILN_OP_LINALG_YIELD, c->b.loc, nout, y, 0, NULL, NULL, 0);
  kiln_block_append_op(blk, yo);
  return g;
}

const kiln_affine_map *oi_map_dims(oi_ctx *c, uint32_t loops, uint32_t n, const int64_t *dims) {
  const kiln_affine_expr *r[OI_MAX_RANK * 2 + 1];
  for (uint32_t i = 0; i < n; i++)
    r[i] = dims[i] < 0 ? kiln_affine_const(c->ctx, 0) : kiln_affine_dim(c->ctx, (unsigned)dims[i]);
  return kiln_affine_map_get(c->ctx, loops, 0, n, r);
}

bool oi_broadcast_shape(oi_ctx *c, uint32_t n, oi_val *const *vals, uint32_t *rank,
                        int64_t *shape) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < n; i++)
    if (vals[i]->type->rank > r) r = vals[i]->type->rank;
  for (uint32_t d = 0; d < r; d++) shape[d] = 1;
  for (uint32_t i = 0; i < n; i++) {
    const kiln_type *t = vals[i]->type;
    for (uint32_t d = 0; d < t->rank; d++) {
      int64_t s = t->shape[d], *o = &shape[r - t->rank + d];
      if (s == *o || s == 1) continue;
      if (*o == 1) *o = s;
      /* a '?' against a size: that size, checked at run time (a dynamic
       * dim never broadcasts) */
      else if (s == KILN_DYNAMIC) continue;
      else if (*o == KILN_DYNAMIC) *o = s;
      else
        return oi_invalid(c, "input %u: dimension %u (%lld) does not broadcast against %lld", i,
                          d, (long long)s, (long long)*o);
    }
  }
  *rank = r;
  return true;
}

const kiln_affine_map *oi_broadcast_map(oi_ctx *c, const kiln_type *in, uint32_t rank,
                                        const int64_t *shape) {
  int64_t dims[OI_MAX_RANK];
  uint32_t off = rank - in->rank;
  for (uint32_t d = 0; d < in->rank; d++)
    dims[d] = (in->shape[d] == 1 && shape[off + d] != 1) ? -1 : (int64_t)(off + d);
  return oi_map_dims(c, rank, in->rank, dims);
}

kiln_value *oi_elementwise_ir(oi_ctx *c, uint32_t nin, kiln_value *const *in, uint32_t rank,
                              const int64_t *shape, const kiln_type *et, oi_body_fn body,
                              void *user) {
  const kiln_type *ot = kiln_type_tensor(c->ctx, rank, shape, et, NULL);
  kiln_value *out = oi_empty(c, ot);
  const kiln_affine_map **maps = kiln_alloc(c->ctx, (nin + 2) * sizeof *maps);
  for (uint32_t i = 0; i < nin; i++) maps[i] = oi_broadcast_map(c, in[i]->type, rank, shape);
  maps[nin] = kiln_affine_map_identity(c->ctx, rank);
  kiln_op *g = oi_generic(c, nin, in, 1, &out, maps, rank, NULL, body, user);
  return g ? kiln_op_result(g, 0) : NULL;
}

kiln_value *oi_elementwise(oi_ctx *c, uint32_t nin, oi_val *const *in, const kiln_type *et,
                           oi_body_fn body, void *user) {
  uint32_t rank;
  int64_t shape[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, nin, in, &rank, shape)) return NULL;
  kiln_value **ir = kiln_alloc(c->ctx, (nin + 1) * sizeof *ir);
  for (uint32_t i = 0; i < nin; i++)
    if (!(ir[i] = oi_ir(c, in[i]))) return NULL;
  return oi_elementwise_ir(c, nin, ir, rank, shape, et, body, user);
}

kiln_value *oi_loop_index(kiln_builder *b, uint32_t loop) {
  kiln_context *ctx = b->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  kiln_named_attr e = {kiln_intern_cstr(ctx, "dim"), kiln_attr_int(ctx, kiln_type_int(ctx, 64), loop)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_INDEX, 0, NULL, 1, &it, kiln_attr_dict(ctx, 1, &e)), 0);
}

kiln_value *oi_loop_index_i64(kiln_builder *b, uint32_t loop) {
  kiln_value *ix = oi_loop_index(b, loop);
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &ix, 1, &i64, NULL), 0);
}

kiln_value *oi_op1(kiln_builder *b, kiln_op_kind k, kiln_value *x) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &x->type, NULL), 0);
}

kiln_value *oi_op2(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  return kiln_op_result(kiln_build(b, k, 2, ops, 1, &x->type, NULL), 0);
}

static kiln_value *cmp(kiln_builder *b, kiln_op_kind k, int pred, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *i1 = kiln_type_int(b->ctx, 1);
  kiln_named_attr e = {kiln_intern_cstr(b->ctx, "predicate"),
                       kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 64), pred)};
  return kiln_op_result(kiln_build(b, k, 2, ops, 1, &i1, kiln_attr_dict(b->ctx, 1, &e)), 0);
}

kiln_value *oi_cmpf(kiln_builder *b, int pred, kiln_value *x, kiln_value *y) {
  return cmp(b, KILN_OP_ARITH_CMPF, pred, x, y);
}

kiln_value *oi_cmpi(kiln_builder *b, int pred, kiln_value *x, kiln_value *y) {
  return cmp(b, KILN_OP_ARITH_CMPI, pred, x, y);
}

kiln_value *oi_select(kiln_builder *b, kiln_value *cnd, kiln_value *x, kiln_value *y) {
  kiln_value *ops[3] = {cnd, x, y};
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, ops, 1, &x->type, NULL), 0);
}

kiln_value *oi_extract(kiln_builder *b, kiln_value *t, uint32_t n, kiln_value *const *idx) {
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = t;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  const kiln_type *et = t->type->elem;
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + n, ops, 1, &et, NULL), 0);
}

kiln_value *oi_insert(kiln_builder *b, kiln_value *x, kiln_value *t, uint32_t n, kiln_value *const *idx) {
  kiln_value *ops[OI_MAX_RANK + 2];
  ops[0] = x, ops[1] = t;
  for (uint32_t i = 0; i < n; i++) ops[2 + i] = idx[i];
  const kiln_type *tt = t->type;
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_INSERT, 2 + n, ops, 1, &tt, NULL), 0);
}

kiln_op *oi_for(kiln_builder *b, kiln_value *lb, kiln_value *ub, uint32_t n, kiln_value *const *inits,
                kiln_builder *body, kiln_value **iv, kiln_value **args) {
  kiln_value *ops[3 + OI_MAX_FOR_ARGS];
  const kiln_type *types[OI_MAX_FOR_ARGS];
  ops[0] = lb, ops[1] = ub;
  ops[2] = kiln_build_constant(b, kiln_attr_int(b->ctx, kiln_type_index(b->ctx), 1));
  for (uint32_t i = 0; i < n; i++) ops[3 + i] = inits[i], types[i] = inits[i]->type;
  kiln_op *loop = kiln_build(b, KILN_OP_SCF_FOR, 3 + n, ops, n, types, NULL);
  kiln_block *blk = kiln_op_entry_block(b->ctx, loop, 0);
  *iv = kiln_block_add_arg(b->ctx, blk, lb->type, b->loc);
  for (uint32_t i = 0; i < n; i++) args[i] = kiln_block_add_arg(b->ctx, blk, inits[i]->type, b->loc);
  kiln_builder yb = kiln_builder_at_end(b->ctx, blk);
  yb.loc = b->loc;
  kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, n, args, 0, NULL, NULL);
  *body = kiln_builder_before(y);
  body->loc = b->loc;
  return loop;
}

void oi_set_yield(kiln_op *op, uint32_t region, uint32_t n, kiln_value *const *v) {
  kiln_op_set_operands(kiln_block_terminator(op->regions[region].first), n, v);
}

static kiln_value *cast1(kiln_builder *b, kiln_op_kind k, kiln_value *x, const kiln_type *t) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

kiln_value *oi_convert(kiln_builder *b, kiln_value *x, int32_t from, int32_t to,
                       const kiln_type *tt) {
  const kiln_type *ft = x->type;
  if (ft == tt && oi_dtype_is_unsigned(from) == oi_dtype_is_unsigned(to)) return x;
  bool ff = kiln_type_is_float(ft), tf = kiln_type_is_float(tt);
  bool fu = oi_dtype_is_unsigned(from);
  if (to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
    if (ff) return oi_cmpf(b, OI_F_UNE, x, oi_scalar(b, ft, 0, 0));
    if (ft->width == 1) return x;
    return oi_cmpi(b, OI_NE, x, oi_scalar(b, ft, 0, 0));
  }
  if (ff && to == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16 && from != to) {
    /* to bf16 by truncation, as ONNX's reference for Cast up to opset 17
     * does (Cast-19 later asks for rounding); NaN stays a quiet NaN */
    const kiln_type *f32 = kiln_type_f32(b->ctx), *i32 = kiln_type_int(b->ctx, 32), *i16 = kiln_type_int(b->ctx, 16);
    kiln_value *f = ft->width == 32 ? x : cast1(b, ft->width < 32 ? KILN_OP_ARITH_EXTF : KILN_OP_ARITH_TRUNCF, x, f32);
    kiln_value *bits = oi_op2(b, KILN_OP_ARITH_SHRUI, cast1(b, KILN_OP_ARITH_BITCAST, f, i32), oi_scalar(b, i32, 0, 16));
    kiln_value *h = cast1(b, KILN_OP_ARITH_TRUNCI, bits, i16);
    h = oi_select(b, oi_cmpf(b, OI_F_UNO, f, f), oi_scalar(b, i16, 0, 0x7FC0), h);
    return cast1(b, KILN_OP_ARITH_BITCAST, h, tt);
  }
  if (ff && tf) {
    if (ft == tt) return x;
    if (ft->width == 16 && tt->width == 16) /* bf16 -> f16: through f32 */
      x = cast1(b, KILN_OP_ARITH_EXTF, x, kiln_type_f32(b->ctx)), ft = x->type;
    /* f64 -> f16 goes through f32: a direct truncf needs a libgcc helper */
    if (ft->width == 64 && tt->width == 16)
      x = cast1(b, KILN_OP_ARITH_TRUNCF, x, kiln_type_f32(b->ctx));
    return cast1(b, ft->width < tt->width ? KILN_OP_ARITH_EXTF : KILN_OP_ARITH_TRUNCF, x, tt);
  }
  const kiln_type *f32 = kiln_type_f32(b->ctx);
  int32_t F32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  if (ff && from == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16) /* bf16 -> integer: through f32 */
    return oi_convert(b, cast1(b, KILN_OP_ARITH_EXTF, x, f32), F32, to, tt);
  if (ff) return cast1(b, oi_dtype_is_unsigned(to) ? KILN_OP_ARITH_FPTOUI : KILN_OP_ARITH_FPTOSI,
                       x, tt);
  if (tf && to == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16) /* integer -> bf16: through f32 */
    return oi_convert(b, cast1(b, fu ? KILN_OP_ARITH_UITOFP : KILN_OP_ARITH_SITOFP, x, f32), F32, to, tt);
  if (tf) return cast1(b, fu ? KILN_OP_ARITH_UITOFP : KILN_OP_ARITH_SITOFP, x, tt);
  if (ft->width == tt->width) return x;
  if (ft->width > tt->width) return cast1(b, KILN_OP_ARITH_TRUNCI, x, tt);
  return cast1(b, fu ? KILN_OP_ARITH_EXTUI : KILN_OP_ARITH_EXTSI, x, tt);
}

typedef struct { int32_t from, to; const kiln_type *et; } cast_user;

static bool cast_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  cast_user *cu = u;
  y[0] = oi_convert(b, a[0], cu->from, cu->to, cu->et);
  return true;
}

kiln_value *oi_cast_tensor(oi_ctx *c, kiln_value *v, int32_t from, int32_t to) {
  const kiln_type *et = oi_elem_type(c, to);
  if (et == v->type->elem && oi_dtype_is_unsigned(from) == oi_dtype_is_unsigned(to) &&
      to != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
    return v;
  cast_user cu = {from, to, et};
  return oi_elementwise_ir(c, 1, &v, v->type->rank, v->type->shape, et, cast_body, &cu);
}

/* Reassociation attribute from group boundaries: group g holds dims
 * [start[g], start[g+1]). */
static const kiln_attr *reassoc(oi_ctx *c, uint32_t ngroups, const uint32_t *start) {
  const kiln_attr *groups[OI_MAX_RANK + 1], *idx[OI_MAX_RANK + 1];
  for (uint32_t g = 0; g < ngroups; g++) {
    uint32_t k = 0;
    for (uint32_t d = start[g]; d < start[g + 1]; d++)
      idx[k++] = kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), d);
    groups[g] = kiln_attr_array(c->ctx, k, idx);
  }
  return kiln_attr_array(c->ctx, ngroups, groups);
}

static kiln_value *collapse(oi_ctx *c, kiln_value *v, const kiln_type *rt, const kiln_attr *re) {
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "reassociation"), re};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_COLLAPSE_SHAPE, 1, &v, 1, &rt,
                                   kiln_attr_dict(c->ctx, 1, &e)), 0);
}

static kiln_value *expand(oi_ctx *c, kiln_value *v, const kiln_type *rt, const kiln_attr *re) {
  kiln_named_attr e[2] = {{kiln_intern_cstr(c->ctx, "reassociation"), re},
                          {kiln_intern_cstr(c->ctx, "static_output_shape"),
                           kiln_attr_dense_i64_array(c->ctx, rt->rank, rt->shape)}};
  /* a '?' output dim is the only one of its group that is not 1: the
   * group's source dim (group_dims pairs '?' with '?') */
  kiln_value *ops[1 + OI_MAX_RANK];
  uint32_t n = 0;
  ops[n++] = v;
  for (uint32_t g = 0; g < re->count; g++) {
    const kiln_attr *grp = re->elems[g];
    for (uint32_t j = 0; j < grp->count; j++)
      if (rt->shape[grp->elems[j]->i] == KILN_DYNAMIC) {
        kiln_value *dops[2] = {v, kiln_build_constant(&c->b, kiln_attr_int(c->ctx, kiln_type_index(c->ctx), g))};
        const kiln_type *it = kiln_type_index(c->ctx);
        ops[n++] = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_DIM, 2, dops, 1, &it, NULL), 0);
      }
  }
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXPAND_SHAPE, n, ops, 1, &rt,
                                   kiln_attr_dict(c->ctx, 2, e)), 0);
}

/* Groups src and dst dims into runs of equal products (unit dims join a
 * neighbouring run); false when that fails. */
static bool group_dims(const kiln_type *src, uint32_t dr, const int64_t *dst, uint32_t *ng,
                       uint32_t *ss, uint32_t *ds) {
  uint32_t sr = src->rank, i = 0, j = 0, g = 0;
  if (sr == 0 || dr == 0) return false;
  while (i < sr && j < dr) {
    ss[g] = i, ds[g] = j;
    int64_t pi = src->shape[i++], pj = dst[j++];
    /* a dynamic dim maps to a dynamic dim alone (with unit dims) */
    if ((pi == KILN_DYNAMIC) != (pj == KILN_DYNAMIC)) return false;
    if (pi == KILN_DYNAMIC) {
      while (i < sr && src->shape[i] == 1 && !(j < dr && dst[j] == 1)) i++;
      while (j < dr && dst[j] == 1 && !(i < sr && src->shape[i] == 1)) j++;
      g++;
      continue;
    }
    while (pi != pj) {
      if (i < sr && src->shape[i] == KILN_DYNAMIC) return false;
      if (j < dr && dst[j] == KILN_DYNAMIC) return false;
      if (pi < pj) {
        if (i >= sr) return false;
        pi *= src->shape[i++];
      } else {
        if (j >= dr) return false;
        pj *= dst[j++];
      }
    }
    g++;
  }
  /* leftover unit dims join the last group */
  for (; i < sr; i++)
    if (src->shape[i] != 1) return false;
  for (; j < dr; j++)
    if (dst[j] != 1) return false;
  ss[g] = sr, ds[g] = dr;
  *ng = g;
  return g > 0;
}

kiln_value *oi_reshape(oi_ctx *c, kiln_value *v, uint32_t rank, const int64_t *shape) {
  const kiln_type *t = v->type;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, rank, shape);
  if (rt == t) return v;
  if (oi_has_dyn(t) || oi_has_dyn(rt)) {
    /* dynamic dims must pair up (unit dims in between); no route through
     * rank 1, whose size the import cannot name */
    uint32_t ng, ss[OI_MAX_RANK + 1], ds[OI_MAX_RANK + 1];
    if (!group_dims(t, rank, shape, &ng, ss, ds)) {
      oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a reshape of a tensor with dynamic dims that does not keep them");
      return NULL;
    }
  }
  /* A zero-element tensor is a fresh empty one of the new shape. */
  if (oi_numel(t) == 0) return oi_empty(c, rt);
  const kiln_attr *none = kiln_attr_array(c->ctx, 0, NULL);
  if (t->rank == 0) return expand(c, v, rt, none);  /* all dims are 1 */
  if (rank == 0) return collapse(c, v, rt, none);
  uint32_t ng, ss[OI_MAX_RANK + 1], ds[OI_MAX_RANK + 1];
  if (!group_dims(t, rank, shape, &ng, ss, ds)) { /* through rank 1 */
    int64_t n = oi_numel(t);
    kiln_value *flat = oi_reshape(c, v, 1, &n);
    return oi_reshape(c, flat, rank, shape);
  }
  int64_t mid[OI_MAX_RANK];
  for (uint32_t g = 0; g < ng; g++) {
    mid[g] = 1;
    for (uint32_t d = ss[g]; d < ss[g + 1]; d++) mid[g] *= t->shape[d];
  }
  const kiln_type *mt = kiln_type_with_shape(c->ctx, t, ng, mid);
  kiln_value *m = mt == t ? v : collapse(c, v, mt, reassoc(c, ng, ss));
  return mt == rt ? m : expand(c, m, rt, reassoc(c, ng, ds));
}

kiln_value *oi_slice(oi_ctx *c, kiln_value *v, const int64_t *off, const int64_t *size,
                     const int64_t *stride) {
  const kiln_type *t = v->type;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, size);
  bool whole = rt == t;
  for (uint32_t i = 0; whole && i < t->rank; i++) whole = off[i] == 0 && stride[i] == 1;
  if (whole) return v;
  /* a '?' size is a whole dynamic dim (offset 0, stride 1) */
  kiln_value *ops[1 + OI_MAX_RANK];
  uint32_t no = 0;
  ops[no++] = v;
  for (uint32_t i = 0; i < t->rank; i++)
    if (size[i] == KILN_DYNAMIC) {
      const kiln_type *it = kiln_type_index(c->ctx);
      kiln_value *dops[2] = {v, kiln_build_constant(&c->b, kiln_attr_int(c->ctx, it, i))};
      ops[no++] = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_DIM, 2, dops, 1, &it, NULL), 0);
    }
  int64_t seg[4] = {1, 0, no - 1, 0};
  kiln_named_attr e[4] = {
      {kiln_intern_cstr(c->ctx, "operandSegmentSizes"), i32seg(c, 4, seg)},
      {kiln_intern_cstr(c->ctx, "static_offsets"), kiln_attr_dense_i64_array(c->ctx, t->rank, off)},
      {kiln_intern_cstr(c->ctx, "static_sizes"), kiln_attr_dense_i64_array(c->ctx, t->rank, size)},
      {kiln_intern_cstr(c->ctx, "static_strides"), kiln_attr_dense_i64_array(c->ctx, t->rank, stride)},
  };
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXTRACT_SLICE, no, ops, 1, &rt,
                                   kiln_attr_dict(c->ctx, 4, e)), 0);
}

kiln_value *oi_pad(oi_ctx *c, kiln_value *v, const int64_t *lo, const int64_t *hi, double f,
                   int64_t i) {
  const kiln_type *t = v->type;
  int64_t shape[OI_MAX_RANK];
  bool none = true;
  for (uint32_t d = 0; d < t->rank; d++) {
    shape[d] = t->shape[d] + lo[d] + hi[d];
    none = none && lo[d] == 0 && hi[d] == 0;
  }
  if (none) return v;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  int64_t seg[3] = {1, 0, 0};
  kiln_named_attr e[3] = {
      {kiln_intern_cstr(c->ctx, "operandSegmentSizes"), i32seg(c, 3, seg)},
      {kiln_intern_cstr(c->ctx, "static_high"), kiln_attr_dense_i64_array(c->ctx, t->rank, hi)},
      {kiln_intern_cstr(c->ctx, "static_low"), kiln_attr_dense_i64_array(c->ctx, t->rank, lo)},
  };
  kiln_op *p = kiln_op_create(c->ctx, KILN_OP_TENSOR_PAD, c->b.loc, 1, &v, 1, &rt,
                              kiln_attr_dict(c->ctx, 3, e), 1);
  kiln_builder_insert(&c->b, p);
  kiln_block *blk = kiln_op_entry_block(c->ctx, p, 0);
  for (uint32_t d = 0; d < t->rank; d++)
    kiln_block_add_arg(c->ctx, blk, kiln_type_index(c->ctx), c->b.loc);
  kiln_builder bb = kiln_builder_at_end(c->ctx, blk);
  bb.loc = c->b.loc;
  kiln_value *s = oi_scalar(&bb, t->elem, f, i);
  kiln_build(&bb, KILN_OP_TENSOR_YIELD, 1, &s, 0, NULL, NULL);
  return kiln_op_result(p, 0);
}

kiln_value *oi_transpose_val(oi_ctx *c, oi_val *v, const int64_t *perm) {
  const kiln_type *t = v->type;
  bool id = true;
  for (uint32_t d = 0; d < t->rank; d++) id = id && perm[d] == (int64_t)d;
  const void *data = NULL;
  size_t nbytes = 0;
  bool splat = false;
  if (!id && !v->v) {
    if (v->cst) {
      data = v->cst->data, nbytes = v->cst->nbytes, splat = v->cst->splat;
    } else if (v->tensor) {
      kiln_onnx_bytes bytes;
      if (!kiln_onnx_model_tensor_bytes(c->model, v->tensor, &bytes, c->st)) return NULL;
      data = bytes.data, nbytes = bytes.size;
    }
  }
  size_t es = kiln_dense_elem_size(t->elem);
  int64_t n = oi_numel(t);
  if (!data || (!splat && nbytes != (size_t)n * es)) {
    kiln_value *x = oi_ir(c, v);
    return x ? oi_transpose(c, x, perm) : NULL;
  }
  int64_t shape[OI_MAX_RANK], sstride[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = t->shape[perm[d]];
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  if (splat) return kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, rt, true, data, nbytes));
  int64_t st = 1;
  for (int d = (int)t->rank - 1; d >= 0; d--) sstride[d] = st, st *= t->shape[d];
  char *out = kiln_alloc(c->ctx, (size_t)n * es + 1);
  int64_t coord[OI_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; i++) { /* coord: output coordinate of element i */
    int64_t src = 0;
    for (uint32_t d = 0; d < t->rank; d++) src += coord[d] * sstride[perm[d]];
    memcpy(out + (size_t)i * es, (const char *)data + (size_t)src * es, es);
    for (int d = (int)t->rank - 1; d >= 0; d--) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  /* out lives in the context's arena: borrow it rather than copy it again */
  return kiln_build_constant(&c->b, kiln_attr_dense_borrowed(c->ctx, rt, out, (size_t)n * es));
}

kiln_value *oi_transpose(oi_ctx *c, kiln_value *v, const int64_t *perm) {
  const kiln_type *t = v->type;
  bool id = true;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) {
    shape[d] = t->shape[perm[d]];
    id = id && perm[d] == (int64_t)d;
  }
  if (id) return v;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  kiln_value *ops[2] = {v, oi_empty(c, rt)};
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "permutation"),
                       kiln_attr_dense_i64_array(c->ctx, t->rank, perm)};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_LINALG_TRANSPOSE, 2, ops, 1, &rt,
                                   kiln_attr_dict(c->ctx, 1, &e)), 0);
}

/* Layout and scan family: DepthToSpace, SpaceToDepth (reshape, transpose,
 * reshape), CumSum and ReverseSequence (a gather over the output).
 *
 * Takes: rank-4 NCHW inputs for the depth/space ops; any rank for CumSum,
 * its axis a constant or a run-time scalar. Guarantees: depth/space ops
 * are pure data movement (expand_shape, linalg.transpose, collapse_shape);
 * CumSum is one generic over (dims..., j) whose reduction loop j adds x[j]
 * where j is before (or, exclusive, strictly before; reverse: after) the
 * output position, tested with linalg.index — quadratic in the axis
 * length, like the definition. With a run-time axis, j runs over the
 * largest dim and the body picks the axis (x read with tensor.extract,
 * j past the axis length adds nothing; an axis outside [-rank, rank-1]
 * selects no dim, so the result is all zeros). */
#include <string.h>

#include "import_internal.h"

static bool depth_space(oi_ctx *c, oi_node *n, bool to_space) {
  static const char *const d2s[] = {"blocksize", "mode", NULL};
  static const char *const s2d[] = {"blocksize", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, to_space ? d2s : s2d)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t bs;
  const char *mode = "DCR";
  if (!oi_attr(n, "blocksize")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'blocksize' is required");
  if (!oi_attr_int(c, n, "blocksize", 0, &bs) || !oi_size_ok(c, bs, 1, "blocksize")) return false;
  if (to_space && !oi_attr_string(c, n, "mode", "DCR", &mode)) return false;
  bool dcr = strcmp(mode, "DCR") == 0;
  if (!dcr && strcmp(mode, "CRD") != 0) return oi_invalid(c, "mode '%s' (DCR or CRD)", mode);
  const kiln_type *t = x->type;
  if (t->rank != 4) return oi_invalid(c, "input must be 4-D (N, C, H, W), has rank %u", t->rank);
  int64_t N = t->shape[0], C = t->shape[1], H = t->shape[2], W = t->shape[3];
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  int64_t s6[6], perm[6], out[4];
  if (to_space) {
    if (C % (bs * bs)) return oi_invalid(c, "C = %lld is not a multiple of blocksize^2", (long long)C);
    int64_t Cb = C / (bs * bs);
    if (dcr) {
      int64_t a[6] = {N, bs, bs, Cb, H, W}, p[6] = {0, 3, 4, 1, 5, 2};
      memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
    } else {
      int64_t a[6] = {N, Cb, bs, bs, H, W}, p[6] = {0, 1, 4, 2, 5, 3};
      memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
    }
    out[0] = N, out[1] = Cb, out[2] = H * bs, out[3] = W * bs;
  } else {
    if (H % bs || W % bs) return oi_invalid(c, "H and W must be multiples of blocksize %lld", (long long)bs);
    int64_t a[6] = {N, C, H / bs, bs, W / bs, bs}, p[6] = {0, 3, 5, 1, 2, 4};
    memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
    out[0] = N, out[1] = C * bs * bs, out[2] = H / bs, out[3] = W / bs;
  }
  kiln_value *r = oi_reshape(c, oi_transpose(c, oi_reshape(c, v, 6, s6), perm), 4, out);
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

bool oi_import_depth_to_space(oi_ctx *c, oi_node *n) { return depth_space(c, n, true); }
bool oi_import_space_to_depth(oi_ctx *c, oi_node *n) { return depth_space(c, n, false); }

typedef struct { uint32_t axis, loops; bool exclusive, reverse; } cum_user;

static bool cum_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  cum_user *cu = u;
  kiln_value *i = oi_loop_index(b, cu->axis), *j = oi_loop_index(b, cu->loops - 1);
  int pred = cu->reverse ? (cu->exclusive ? OI_SGT : OI_SGE) : (cu->exclusive ? OI_SLT : OI_SLE);
  kiln_value *take = oi_cmpi(b, pred, j, i);
  bool isf = kiln_type_is_float(a[0]->type);
  kiln_value *v = oi_select(b, take, a[0], oi_scalar(b, a[0]->type, 0, 0));
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[1], v);
  return true;
}

/* Run-time axis: the loop of dim d is the scan dim when axis == d. */
typedef struct { cum_user cu; kiln_value *x, *axis; } cum_dyn_user;

static bool cum_dyn_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  cum_dyn_user *cd = u;
  const kiln_type *xt = cd->x->type, *it = kiln_type_index(b->ctx);
  uint32_t r = xt->rank;
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = cd->axis;
  const kiln_type *at = cd->axis->type->elem;
  for (uint32_t d = 0; d < cd->axis->type->rank; d++) ops[1 + d] = oi_scalar(b, it, 0, 0);
  kiln_value *ax = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + cd->axis->type->rank, ops, 1, &at, NULL), 0);
  kiln_value *neg = oi_cmpi(b, OI_SLT, ax, oi_scalar(b, at, 0, 0));
  ax = oi_select(b, neg, oi_op2(b, KILN_OP_ARITH_ADDI, ax, oi_scalar(b, at, 0, r)), ax);
  kiln_value *j = oi_loop_index(b, r), *zero = oi_scalar(b, it, 0, 0);
  kiln_value *is[OI_MAX_RANK], *o[OI_MAX_RANK], *oa = zero, *size = zero;
  for (uint32_t d = 0; d < r; d++) {
    is[d] = oi_cmpi(b, OI_EQ, ax, oi_scalar(b, at, 0, d));
    o[d] = oi_loop_index(b, d);
    oa = oi_select(b, is[d], o[d], oa);
    size = oi_select(b, is[d], oi_scalar(b, it, 0, xt->shape[d]), size);
  }
  int pred = cd->cu.reverse ? (cd->cu.exclusive ? OI_SGT : OI_SGE) : (cd->cu.exclusive ? OI_SLT : OI_SLE);
  kiln_value *take = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpi(b, pred, j, oa), oi_cmpi(b, OI_SLT, j, size));
  kiln_value *jj = oi_select(b, take, j, zero);
  ops[0] = cd->x;
  for (uint32_t d = 0; d < r; d++) ops[1 + d] = oi_select(b, is[d], jj, o[d]);
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + r, ops, 1, &xt->elem, NULL), 0);
  bool isf = kiln_type_is_float(v->type);
  v = oi_select(b, take, v, oi_scalar(b, v->type, 0, 0));
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[1], v);
  (void)c;
  return true;
}

bool oi_import_cumsum(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"exclusive", "reverse", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *av = x ? oi_in(c, n, 1) : NULL;
  if (!av || !oi_check_type(c, x, OI_T_FLOAT | OI_T_SINT, "input 0")) return false;
  if (av->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 && av->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "axis must be int32 or int64, not %s", oi_dtype_name(av->dtype));
  if (oi_numel(av->type) != 1 || av->type->rank > 1) return oi_invalid(c, "axis must be a scalar");
  int64_t excl, rev;
  const kiln_type *t = x->type;
  if (t->rank == 0 || t->rank + 1 > KILN_MAX_LOOPS) return oi_unsupported(c, "CumSum on rank %u", t->rank);
  cum_user cu = {0, t->rank + 1, false, false};
  if (!oi_attr_int(c, n, "exclusive", 0, &excl) || !oi_attr_int(c, n, "reverse", 0, &rev)) return false;
  cu.exclusive = excl != 0, cu.reverse = rev != 0;
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  bool red[KILN_MAX_LOOPS] = {0};
  red[t->rank] = true;
  if (!av->cst && !av->tensor) { /* run-time axis */
    cum_dyn_user cd = {cu, v, oi_ir(c, av)};
    int64_t k = 0;
    for (uint32_t d = 0; d < t->rank; d++) k = t->shape[d] > k ? t->shape[d] : k;
    if (!cd.axis) return false;
    kiln_value *init = oi_filled(c, t, 0, 0);
    if (oi_numel(t) == 0 || k == 0) {
      oi_set_out(c, n, 0, init, x->dtype);
      return true;
    }
    int64_t od[OI_MAX_RANK];
    for (uint32_t d = 0; d < t->rank; d++) od[d] = d;
    /* a splat i8 input over j gives the reduction loop its size (its
     * value is never used) */
    const int8_t zero = 0;
    kiln_value *jin = kiln_build_constant(
        &c->b, kiln_attr_dense(c->ctx, oi_tensor_type(c, 1, &k, ONNX__TENSOR_PROTO__DATA_TYPE__INT8), true, &zero, 1));
    int64_t jd = t->rank;
    const kiln_affine_map *maps[2] = {oi_map_dims(c, cu.loops, 1, &jd), oi_map_dims(c, cu.loops, t->rank, od)};
    kiln_op *g = oi_generic(c, 1, &jin, 1, &init, maps, cu.loops, red, cum_dyn_body, &cd);
    if (!g) return false;
    oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
    return true;
  }
  int64_t *ax, cnt;
  if (!oi_const_ints(c, av, "input 1 (axis)", &ax, &cnt)) return false;
  if (!oi_axis(c, ax[0], t->rank, "axis", &cu.axis)) return false;
  /* loops: output dims, then j over the axis; x read at (.., j, ..) */
  int64_t xin[OI_MAX_RANK], xout[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) xin[d] = d == cu.axis ? t->rank : d, xout[d] = d;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, cu.loops, t->rank, xin), oi_map_dims(c, cu.loops, t->rank, xout)};
  kiln_value *init = oi_filled(c, t, 0, 0);
  kiln_op *g = oi_generic(c, 1, &v, 1, &init, maps, cu.loops, red, cum_body, &cu);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

/* ReverseSequence: y[.., t, .., b, ..] = x[.., L-1-t, .., b, ..] for t <
 * L = sequence_lens[b], else x itself; the lengths are read per batch
 * element at run time. */
typedef struct { kiln_value *x; uint32_t time, batch; } revseq_user;

static bool revseq_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  revseq_user *r = u;
  const kiln_type *xt = r->x->type, *it = kiln_type_index(b->ctx);
  kiln_value *len = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &a[0], 1, &it, NULL), 0);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = r->x;
  for (uint32_t d = 0; d < xt->rank; d++) ops[1 + d] = oi_loop_index(b, d);
  kiln_value *t = ops[1 + r->time];
  kiln_value *rev = oi_op2(b, KILN_OP_ARITH_SUBI, oi_op2(b, KILN_OP_ARITH_SUBI, len, oi_scalar(b, it, 0, 1)), t);
  ops[1 + r->time] = oi_select(b, oi_cmpi(b, OI_SLT, t, len), rev, t);
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, xt->rank + 1, ops, 1, &xt->elem, NULL), 0);
  return true;
}

bool oi_import_reverse_sequence(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"batch_axis", "time_axis", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *lv = x ? oi_in(c, n, 1) : NULL;
  if (!lv) return false;
  if (lv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "sequence_lens must be int64, not %s", oi_dtype_name(lv->dtype));
  int64_t ba, ta;
  if (!oi_attr_int(c, n, "batch_axis", 1, &ba) || !oi_attr_int(c, n, "time_axis", 0, &ta)) return false;
  const kiln_type *t = x->type;
  if (t->rank < 2 || !((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
    return oi_invalid(c, "batch_axis %lld and time_axis %lld on rank %u (0 and 1, or 1 and 0)", (long long)ba,
                      (long long)ta, t->rank);
  if (lv->type->rank != 1 || lv->type->shape[0] != t->shape[ba])
    return oi_invalid(c, "sequence_lens must be 1-D of the batch size %lld", (long long)t->shape[ba]);
  revseq_user r = {oi_ir(c, x), (uint32_t)ta, (uint32_t)ba};
  kiln_value *lens = oi_ir(c, lv), *out = oi_empty(c, t);
  if (!r.x || !lens) return false;
  if (oi_numel(t) > 0) {
    int64_t bd = ba;
    const kiln_affine_map *maps[2] = {oi_map_dims(c, t->rank, 1, &bd), kiln_affine_map_identity(c->ctx, t->rank)};
    kiln_op *g = oi_generic(c, 1, &lens, 1, &out, maps, t->rank, NULL, revseq_body, &r);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, x->dtype);
  return true;
}

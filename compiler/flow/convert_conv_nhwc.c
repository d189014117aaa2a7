/* convert-convs-to-nhwc: 2-D convolutions on NCHW activations with
 * constant filters become channels-last convolutions between two
 * transposes:
 *   y = conv_nchw(x, W)  ->  y = T(conv_nhwc(T(x, [0,2,3,1]), W'), [0,3,1,2])
 * with W' the filter permuted at compile time into the layout the CPU
 * kernels read without packing (output channels contiguous):
 *   groups = 1          linalg.conv_2d_nhwc_hwcf, W' [kh, kw, C, M]
 *   depthwise (C/G = M/G = 1)
 *                       linalg.depthwise_conv_2d_nhwc_hwc, W' [kh, kw, C]
 *   other groups        a linalg.generic over (n, oh, ow, g, m, kh, kw, c)
 *                       on [N, H, W, G, C/G] views, W' [G, kh, kw, C/G, M/G]
 *   one group, a filter of 64 KiB or more, M a multiple of 32 (or 16)
 *                       the same generic over blocks of NB = 32 (16)
 *                       output channels, all reading [N, H, W, C]:
 *                       W' [M/NB, kh, kw, C, NB], the output [N, OH, OW,
 *                       M/NB, NB] viewed as [N, OH, OW, M] (blocked_width)
 * The blocked form is for the CPU kernels only: with no llvm-cpu target
 * (fl_targets_cpu) filters stay HWCF, the form the GPU's shared-memory
 * tiles read.
 * In NHWC a convolution's output channels are contiguous in both the
 * filter and the output, and a depthwise convolution's channels are
 * contiguous in all three operands: the vector lanes run along them for
 * any spatial size, stride and dilation, with no staging of NCHW output
 * rows and no weight packing per call (measured: bench/conv_cpu, and
 * MobileNetV2 in bench/models). propagate-transposes then moves the
 * transposes through the elementwise ops, pads and pools between
 * convolutions, where pairs cancel, so activations stay NHWC from one
 * convolution to the next.
 *
 * Takes: host functions on tensors (before generalize-named-ops). A
 * convolution qualifies when it is linalg.conv_2d_nchw_fchw or the ONNX
 * importer's form (import_conv.c): a multiply-accumulate linalg.generic
 * over (n, g, m, oh, ow, c, kh, kw) reading X [N, G, C/G, H, W] (a
 * reshape of a 4-D tensor) at (n, g, c, oh*s + kh*d, ow*s + kw*d) and
 * W [G, M/G, C/G, kh, kw], writing [N, G, M/G, OH, OW] whose one reader
 * collapses it to [N, M, OH, OW]; the filter is a constant (through
 * reshapes), the init a fill. The batch N may be a run-time dim (every
 * other dim static): the NHWC tensors then take it as their one dynamic
 * dim, from the input's. Guarantees: the same values, computed by
 * the channels-last op; anything else is left as it was. */
#include "fl_internal.h"

#include <string.h>

typedef struct conv {
  kiln_op *op;            /* the convolution */
  kiln_value *x4;         /* the 4-D NCHW input */
  const kiln_attr *w;     /* the filter's elements */
  kiln_value *fill;       /* the init's fill value */
  kiln_op *collapse;      /* the generic form's [N, M, OH, OW] view (or NULL) */
  kiln_value *nv;         /* the run-time batch (rewrite), NULL when static */
  int64_t n, g, cg, mg, kh, kw, oh, ow;
  int64_t stride[2], dil[2];
} conv;

/* v's elements when v is a constant, possibly through reshapes. */
static const kiln_attr *constant_of(kiln_value *v) {
  while (v->def && (v->def->kind == KILN_OP_TENSOR_EXPAND_SHAPE ||
                    v->def->kind == KILN_OP_TENSOR_COLLAPSE_SHAPE ||
                    v->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE))
    v = kiln_op_operand(v->def, 0);
  const kiln_attr *a = kiln_value_constant(v);
  return a && a->kind == KILN_ATTR_DENSE ? a : NULL;
}

/* The fill value of init (a linalg.fill result), else NULL. */
static kiln_value *fill_of(kiln_value *init) {
  kiln_op *d = init->def;
  if (!d || d->kind != KILN_OP_LINALG_FILL || d->num_operands != 2) return NULL;
  kiln_value *s = kiln_op_operand(d, 0);
  return s->type->kind == KILN_TYPE_TENSOR ? NULL : s;
}

/* e == a*s + b*d for dims a, b with s, d >= 1 (either order). */
static bool window_expr(const kiln_affine_expr *e, int a, int b, int64_t *s, int64_t *d) {
  if (e->kind != KILN_AFFINE_ADD) return false;
  const kiln_affine_expr *t[2] = {e->lhs, e->rhs};
  int64_t coef[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    const kiln_affine_expr *x = t[i];
    int64_t k = 1;
    if (x->kind == KILN_AFFINE_MUL && x->rhs->kind == KILN_AFFINE_CONST) k = x->rhs->value, x = x->lhs;
    if (x->kind != KILN_AFFINE_DIM || k < 1) return false;
    if (x->value == a && !coef[0]) coef[0] = k;
    else if (x->value == b && !coef[1]) coef[1] = k;
    else return false;
  }
  *s = coef[0], *d = coef[1];
  return coef[0] && coef[1];
}

/* Static but for a run-time batch (dim 0): the only dynamic dim the
 * rewrite carries through. */
static bool static_but_batch(const kiln_type *t) {
  if (t->kind != KILN_TYPE_TENSOR || !kiln_type_is_ranked(t) || t->rank < 1) return false;
  for (uint32_t d = 1; d < t->rank; d++)
    if (t->shape[d] == KILN_DYNAMIC) return false;
  return true;
}

static bool is_dim(const kiln_affine_expr *e, int l) {
  return e->kind == KILN_AFFINE_DIM && e->value == l;
}

/* Body: yield addf(out, mulf(x, w)) (operands in either order), x
 * possibly (when int_input) sitofp of integer bytes (the importer's
 * depthwise convolution of a quantized model: the named op's implied body
 * converts them too). */
bool fl_conv_mac_body(kiln_op *op, bool int_input) {
  kiln_block *b = op->regions[0].first;
  if (!b || b->num_args != 3) return false;
  kiln_op *mul = b->first;
  kiln_value *x = b->args[0];
  if (int_input && mul && mul->kind == KILN_OP_ARITH_SITOFP && kiln_op_operand(mul, 0) == x) {
    x = kiln_op_result(mul, 0);
    if (!kiln_value_has_one_use(x)) return false;
    mul = mul->next;
  }
  kiln_op *add = mul ? mul->next : NULL, *y = add ? add->next : NULL;
  if (!y || y->next || mul->kind != KILN_OP_ARITH_MULF || add->kind != KILN_OP_ARITH_ADDF ||
      y->kind != KILN_OP_LINALG_YIELD || kiln_op_operand(y, 0) != kiln_op_result(add, 0))
    return false;
  kiln_value *m0 = kiln_op_operand(mul, 0), *m1 = kiln_op_operand(mul, 1);
  kiln_value *a0 = kiln_op_operand(add, 0), *a1 = kiln_op_operand(add, 1);
  kiln_value *mv = kiln_op_result(mul, 0);
  return ((m0 == x && m1 == b->args[1]) || (m0 == b->args[1] && m1 == x)) &&
         ((a0 == b->args[2] && a1 == mv) || (a1 == b->args[2] && a0 == mv));
}

/* The importer's grouped NCHW generic. */
static bool match_generic(kiln_op *op, conv *cv) {
  if (op->num_operands != 3 || op->num_results != 1 || kiln_linalg_num_inputs(op) != 2 ||
      !fl_conv_mac_body(op, true))
    return false;
  const kiln_affine_map *maps[3];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  if (fl_iteration(op, bounds, maps, red) != 8) return false;
  const kiln_affine_map *xm = maps[0], *wm = maps[1], *om = maps[2];
  if (xm->num_results != 5 || wm->num_results != 5 || om->num_results != 5 ||
      !kiln_affine_map_is_projected_permutation(om) || !kiln_affine_map_is_projected_permutation(wm))
    return false;
  int n = (int)om->results[0]->value, g = (int)om->results[1]->value, m = (int)om->results[2]->value;
  int oh = (int)om->results[3]->value, ow = (int)om->results[4]->value;
  int c = (int)wm->results[2]->value, kh = (int)wm->results[3]->value, kw = (int)wm->results[4]->value;
  if (red[n] || red[g] || red[m] || red[oh] || red[ow] || !red[c] || !red[kh] || !red[kw] ||
      !is_dim(wm->results[0], g) || !is_dim(wm->results[1], m) || !is_dim(xm->results[0], n) ||
      !is_dim(xm->results[1], g) || !is_dim(xm->results[2], c) ||
      !window_expr(xm->results[3], oh, kh, &cv->stride[0], &cv->dil[0]) ||
      !window_expr(xm->results[4], ow, kw, &cv->stride[1], &cv->dil[1]))
    return false;
  for (int l = 0; l < 8; l++)
    if (bounds[l] < 1 && !(l == n && bounds[l] == -1)) return false;
  cv->n = bounds[n] == -1 ? KILN_DYNAMIC : bounds[n], cv->g = bounds[g], cv->mg = bounds[m], cv->oh = bounds[oh], cv->ow = bounds[ow];
  cv->cg = bounds[c], cv->kh = bounds[kh], cv->kw = bounds[kw];
  /* X: a reshape of [N, G*C/G, H, W]; the result: one collapse back. */
  kiln_value *x = kiln_op_operand(op, 0);
  kiln_op *xd = x->def;
  if (!xd || (xd->kind != KILN_OP_TENSOR_EXPAND_SHAPE && xd->kind != KILN_OP_FLOW_TENSOR_RESHAPE))
    return false;
  cv->x4 = kiln_op_operand(xd, 0);
  const kiln_type *x4 = cv->x4->type, *x5 = x->type;
  if (!static_but_batch(x4) || x4->rank != 4 || x4->shape[0] != x5->shape[0] ||
      x4->shape[1] != cv->g * cv->cg || x4->shape[2] != x5->shape[3] || x4->shape[3] != x5->shape[4])
    return false;
  kiln_value *r = kiln_op_result(op, 0);
  if (!kiln_value_has_one_use(r)) return false;
  kiln_op *u = r->uses->owner;
  if (u->kind != KILN_OP_TENSOR_COLLAPSE_SHAPE && u->kind != KILN_OP_FLOW_TENSOR_RESHAPE) return false;
  const kiln_type *yt = u->results[0].type;
  if (!static_but_batch(yt) || yt->rank != 4 || yt->shape[0] != cv->n ||
      yt->shape[1] != cv->g * cv->mg || yt->shape[2] != cv->oh || yt->shape[3] != cv->ow)
    return false;
  cv->collapse = u;
  cv->w = constant_of(kiln_op_operand(op, 1));
  return cv->w != NULL;
}

/* linalg.conv_2d_nchw_fchw: X [N, C, H, W], W [M, C, kh, kw]. */
static bool match_named(kiln_op *op, conv *cv) {
  if (op->num_operands != 3 || op->num_results != 1) return false;
  kiln_value *x = kiln_op_operand(op, 0), *w = kiln_op_operand(op, 1);
  const kiln_type *yt = op->results[0].type;
  if (!static_but_batch(x->type) || !fl_is_static_tensor(w->type) || !static_but_batch(yt) ||
      x->type->rank != 4 || yt->rank != 4 || x->type->shape[0] != yt->shape[0])
    return false;
  if (!fl_pair_attr(op, "strides", cv->stride) || !fl_pair_attr(op, "dilations", cv->dil))
    return false;
  cv->x4 = x;
  cv->n = yt->shape[0], cv->g = 1, cv->mg = yt->shape[1], cv->oh = yt->shape[2], cv->ow = yt->shape[3];
  cv->cg = w->type->shape[1], cv->kh = w->type->shape[2], cv->kw = w->type->shape[3];
  cv->w = constant_of(w);
  return cv->w != NULL;
}

static bool match(kiln_op *op, conv *cv) {
  memset(cv, 0, sizeof *cv);
  cv->op = op;
  bool ok = op->kind == KILN_OP_LINALG_GENERIC ? match_generic(op, cv)
            : op->kind == KILN_OP_LINALG_CONV_2D_NCHW_FCHW ? match_named(op, cv) : false;
  if (!ok || kiln_dense_count(cv->w) < 1 || !kiln_type_is_float(op->results[0].type->elem)) return false;
  /* integer input bytes: only as a depthwise convolution (its vector
   * loop converts them; the grouped generic and one-group kernels read
   * floats) */
  if (!kiln_type_is_float(cv->x4->type->elem) && (cv->g < 2 || cv->mg != 1 || cv->cg != 1)) return false;
  cv->fill = fill_of(kiln_op_operand(op, 2));
  return cv->fill != NULL;
}

/* tensor.empty of t, whose dynamic dim (the batch, if any) is nv. */
static kiln_value *empty(kiln_builder *b, const kiln_type *t, kiln_value *nv) {
  uint32_t n = t->shape[0] == KILN_DYNAMIC;
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EMPTY, n, &nv, 1, &t, NULL), 0);
}

/* perm keeps the batch first (perm[0] == 0). */
static kiln_value *transpose(kiln_builder *b, kiln_value *v, const int64_t *perm, kiln_value *nv) {
  const kiln_type *t = v->type;
  int64_t shape[KILN_MAX_LOOPS];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = t->shape[perm[d]];
  const kiln_type *rt = kiln_type_with_shape(b->ctx, t, t->rank, shape);
  kiln_value *ops[2] = {v, empty(b, rt, nv)};
  kiln_named_attr e = {"permutation", kiln_attr_dense_i64_array(b->ctx, t->rank, perm)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_TRANSPOSE, 2, ops, 1, &rt,
                                   kiln_attr_dict(b->ctx, 1, &e)), 0);
}

/* A reshape keeping the batch first (its run-time size nv, if dynamic). */
static kiln_value *reshape(kiln_builder *b, kiln_value *v, uint32_t rank, const int64_t *shape,
                           kiln_value *nv) {
  const kiln_type *rt = kiln_type_with_shape(b->ctx, v->type, rank, shape);
  kiln_value *ops[2] = {v, nv};
  uint32_t n = 1 + (rt->shape[0] == KILN_DYNAMIC);
  return kiln_op_result(kiln_build(b, KILN_OP_FLOW_TENSOR_RESHAPE, n, ops, 1, &rt, NULL), 0);
}

static kiln_value *filled(kiln_builder *b, kiln_value *s, const kiln_type *t, kiln_value *nv) {
  kiln_value *ops[2] = {s, empty(b, t, nv)};
  int64_t seg[2] = {1, 1};
  kiln_named_attr e = {"operandSegmentSizes",
                       kiln_attr_dense_array(b->ctx, kiln_type_int(b->ctx, 32), 2, seg, NULL)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, kiln_attr_dict(b->ctx, 1, &e)), 0);
}

/* The filter [G, M/G, C/G, kh, kw] (any reshape of it: the same
 * row-major elements), viewed as [b0, b1, C/G, kh, kw] (b0 * b1 = M: the
 * groups or output-channel blocks, then the channels of each), permuted
 * by perm, then viewed with `rank` dims of `shape`, as a constant at b. */
static kiln_value *filter(kiln_builder *b, const conv *cv, int64_t b0, int64_t b1, const int64_t *perm,
                          uint32_t rank, const int64_t *shape) {
  int64_t s5[5] = {b0, b1, cv->cg, cv->kh, cv->kw};
  const kiln_type *et = cv->w->type->elem;
  const kiln_attr *w = kiln_attr_dense_reshape(b->ctx, cv->w, kiln_type_tensor(b->ctx, 5, s5, et, NULL));
  w = kiln_attr_dense_transpose(b->ctx, w, perm);
  w = kiln_attr_dense_reshape(b->ctx, w, kiln_type_tensor(b->ctx, rank, shape, et, NULL));
  return kiln_build_constant(b, w);
}

static const kiln_attr *pair(kiln_context *ctx, const int64_t *v) {
  int64_t two = 2;
  const kiln_type *t = kiln_type_tensor(ctx, 1, &two, kiln_type_int(ctx, 64), NULL);
  return kiln_attr_dense(ctx, t, false, v, 2 * sizeof *v);
}

/* A named NHWC convolution (implied body, no region). */
static kiln_value *named_conv(kiln_builder *b, kiln_op_kind kind, kiln_value *x, kiln_value *w,
                              kiln_value *init, const conv *cv) {
  kiln_named_attr e[3] = {
      {"dilations", pair(b->ctx, cv->dil)},
      {"operandSegmentSizes",
       kiln_attr_dense_array(b->ctx, kiln_type_int(b->ctx, 32), 2, (int64_t[]){2, 1}, NULL)},
      {"strides", pair(b->ctx, cv->stride)}};
  kiln_value *ops[3] = {x, w, init};
  const kiln_type *rt = init->type;
  return kiln_op_result(kiln_build(b, kind, 3, ops, 1, &rt, kiln_attr_dict(b->ctx, 3, e)), 0);
}

/* Erases v's defining op when nothing reads v, then its operands' (the
 * old convolution's input view, filter view, init). */
static void erase_unused(kiln_value *v) {
  kiln_op *d = v->def;
  if (!d || kiln_value_has_uses(v) || d->num_results != 1 ||
      (!kiln_op_has_flag(d, KILN_OPF_PURE) && d->kind != KILN_OP_LINALG_FILL &&
       d->kind != KILN_OP_FLOW_TENSOR_RESHAPE))
    return;
  kiln_value *ops[4];
  uint32_t n = d->num_operands < 4 ? d->num_operands : 4;
  for (uint32_t i = 0; i < n; i++) ops[i] = kiln_op_operand(d, i);
  kiln_op_erase(d);
  for (uint32_t i = 0; i < n; i++)
    if (kiln_type_is_shaped(ops[i]->type)) erase_unused(ops[i]);
}

/* Output channels per filter block for a one-group convolution whose
 * filter is too large to stay in cache as HWCF: 32 or 16 (a multiple of
 * every vector width's column block) dividing M, else 0 (HWCF). Blocked,
 * the filter rows a column block of the microkernel reads are adjacent
 * ([M/NB][C][kh][kw][NB]) instead of a whole output-channel row apart, a
 * power-of-two stride that maps them onto few cache sets; no call then
 * packs them. */
#define CV_BLOCKED_MIN_BYTES (64 * 1024)
static int64_t blocked_width(const conv *cv, bool cpu) {
  int64_t M = cv->mg, bytes = M * cv->cg * cv->kh * cv->kw * 4;
  if (!cpu || cv->g != 1 || bytes < CV_BLOCKED_MIN_BYTES) return 0;
  return M % 32 == 0 && M > 32 ? 32 : M % 16 == 0 && M > 16 ? 16 : 0;
}

static void rewrite(kiln_context *ctx, conv *cv, bool cpu) {
  kiln_op *op = cv->op;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
  kiln_value *nv = cv->n == KILN_DYNAMIC ? fl_build_dim(&b, cv->x4, 0) : NULL;
  kiln_value *x = transpose(&b, cv->x4, to_nhwc, nv);
  const kiln_type *et = op->results[0].type->elem;
  int64_t M = cv->g * cv->mg;
  /* [G, M/G, C/G, kh, kw] -> [G, kh, kw, C/G, M/G] */
  static const int64_t hwcf[5] = {0, 3, 4, 2, 1}, hwc[5] = {3, 4, 0, 1, 2};
  /* Large one-group filters as output-channel blocks [M/NB, C, kh, kw, NB]. */
  int64_t nb = blocked_width(cv, cpu);
  kiln_value *out;
  if (!nb && (cv->g == 1 || (cv->mg == 1 && cv->cg == 1))) {
    bool dw = cv->g > 1;
    int64_t os[4] = {cv->n, cv->oh, cv->ow, M}, ws[4] = {cv->kh, cv->kw, cv->g * cv->cg, M};
    kiln_value *init = filled(&b, cv->fill, kiln_type_tensor(ctx, 4, os, et, NULL), nv);
    kiln_value *w = filter(&b, cv, cv->g, cv->mg, dw ? hwc : hwcf, dw ? 3 : 4, ws);
    out = named_conv(&b, dw ? KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC : KILN_OP_LINALG_CONV_2D_NHWC_HWCF,
                     x, w, init, cv);
  } else {
    /* loops (n, oh, ow, g, m, kh, kw, c): groups of [N, H, W, G, C/G], or
     * blocks of NB output channels reading all of [N, H, W, C] */
    int64_t ng = nb ? M / nb : cv->g, mg = nb ? nb : cv->mg;
    const kiln_type *xt = x->type;
    int64_t xs[5] = {xt->shape[0], xt->shape[1], xt->shape[2], cv->g, cv->cg};
    kiln_value *x5 = nb ? x : reshape(&b, x, 5, xs, nv);
    int64_t os[5] = {cv->n, cv->oh, cv->ow, ng, mg};
    kiln_value *init = filled(&b, cv->fill, kiln_type_tensor(ctx, 5, os, et, NULL), nv);
    const kiln_affine_expr *D[8];
    for (unsigned l = 0; l < 8; l++) D[l] = kiln_affine_dim(ctx, l);
    /* The reduction loops are (kh, kw, c), not (c, kh, kw): the
     * microkernel runs them in loop order, so with the input channel
     * innermost each register row reads its pixel's channels in a run, a
     * line serving 16 steps, where channel-first touches kh x (rows + kw
     * - 1) lines per channel, a pixel (C x 4 bytes: 2 KiB at 512
     * channels) apart, which fall into few L1 sets and evict each other. */
    enum { kh = 5, kw = 6, kc = 7 };
    const kiln_affine_expr *wh = kiln_affine_binary(
        ctx, KILN_AFFINE_ADD, kiln_affine_binary(ctx, KILN_AFFINE_MUL, D[1], kiln_affine_const(ctx, cv->stride[0])),
        kiln_affine_binary(ctx, KILN_AFFINE_MUL, D[kh], kiln_affine_const(ctx, cv->dil[0])));
    const kiln_affine_expr *ww = kiln_affine_binary(
        ctx, KILN_AFFINE_ADD, kiln_affine_binary(ctx, KILN_AFFINE_MUL, D[2], kiln_affine_const(ctx, cv->stride[1])),
        kiln_affine_binary(ctx, KILN_AFFINE_MUL, D[kw], kiln_affine_const(ctx, cv->dil[1])));
    const kiln_affine_expr *xe[5] = {D[0], wh, ww, D[3], D[kc]}, *xb[4] = {D[0], wh, ww, D[kc]};
    /* Filters are [G, kh, kw, C/G, M/G] or blocked [M/NB, kh, kw, C, NB],
     * in the order of the reduction loops as the microkernel's panel rows
     * are, so a block of them is one contiguous panel that lower_conv
     * reads in place. */
    const kiln_affine_expr *we[5] = {D[3], D[kh], D[kw], D[kc], D[4]};
    const kiln_affine_expr *oe[5] = {D[0], D[1], D[2], D[3], D[4]};
    const kiln_affine_map *maps[3] = {nb ? kiln_affine_map_get(ctx, 8, 0, 4, xb) : kiln_affine_map_get(ctx, 8, 0, 5, xe),
                                      kiln_affine_map_get(ctx, 8, 0, 5, we),
                                      kiln_affine_map_get(ctx, 8, 0, 5, oe)};
    static const bool red[8] = {false, false, false, false, false, true, true, true};
    int64_t ws[5] = {ng, cv->kh, cv->kw, cv->cg, mg};
    kiln_value *ins[2] = {x5, filter(&b, cv, ng, mg, hwcf, 5, ws)};
    kiln_op *g = fl_build_generic(&b, 2, ins, 1, &init, maps, 8, red);
    kiln_block *body = g->regions[0].first, *old = op->regions[0].first;
    kiln_value_map vm = {0};
    for (uint32_t i = 0; i < 3; i++) kiln_value_map_add(ctx, &vm, old->args[i], body->args[i]);
    for (kiln_op *o = old->first; o; o = o->next) kiln_block_append_op(body, kiln_op_clone(o, &vm));
    int64_t s4[4] = {cv->n, cv->oh, cv->ow, M};
    out = reshape(&b, kiln_op_result(g, 0), 4, s4, nv);
  }
  kiln_value *y4 = transpose(&b, out, to_nchw, nv);
  if (cv->collapse) {
    kiln_value_replace_all_uses(kiln_op_result(cv->collapse, 0), y4);
    kiln_op_erase(cv->collapse);
  } else {
    kiln_value_replace_all_uses(kiln_op_result(op, 0), y4);
  }
  kiln_value *old[3] = {kiln_op_operand(op, 0), kiln_op_operand(op, 1), kiln_op_operand(op, 2)};
  kiln_op_erase(op);
  for (int i = 0; i < 3; i++) erase_unused(old[i]);
}

static void visit(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  conv cv;
  if (match(op, &cv)) {
    if (cv.collapse == *next) *next = (*next)->next;
    rewrite(ctx, &cv, *(const bool *)user);
  }
}

kiln_error *kiln_flow_pass_convert_conv_nhwc(kiln_op *module, void *user) {
  (void)user;
  bool cpu = fl_targets_cpu(module);
  return fl_each_host_op(module, "convert-convs-to-nhwc", visit, &cpu);
}

/* Convolution: Conv (1-D..3-D, groups, pads, strides, dilations,
 * auto_pad) and the window arithmetic shared with pooling.
 *
 * Takes: X [N, C, spatial...], W [M, C/group, k...], optional B [M].
 * Guarantees: X is zero-padded with tensor.pad, then one linalg.generic
 * over loops (n, g, m, o..., c, k...) reads X and W through expand_shape
 * views [N, G, C/G, ...] / [G, M/G, C/G, ...] (so groups need no floordiv
 * in maps) and accumulates into a zero-filled init; the bias is one
 * broadcasting elementwise generic. */
#include <string.h>

#include "import_internal.h"

bool oi_window_attrs(oi_ctx *c, oi_node *n, const kiln_type *x, const int64_t *k, bool allow_ceil,
                     oi_window *w) {
  memset(w, 0, sizeof *w);
  if (x->rank < 3) return oi_invalid(c, "input rank %u < 3 (N, C, spatial...)", x->rank);
  uint32_t s = x->rank - 2;
  w->spatial = s;
  const int64_t *ks, *st, *di, *pa;
  size_t nk, ns, nd, np;
  const char *ap;
  int64_t ceil_mode = 0;
  if (!oi_attr_ints(c, n, "kernel_shape", &ks, &nk) || !oi_attr_ints(c, n, "strides", &st, &ns) ||
      !oi_attr_ints(c, n, "dilations", &di, &nd) || !oi_attr_ints(c, n, "pads", &pa, &np) ||
      !oi_attr_string(c, n, "auto_pad", "NOTSET", &ap) ||
      (allow_ceil && !oi_attr_int(c, n, "ceil_mode", 0, &ceil_mode)))
    return false;
  if (!k && !ks) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'kernel_shape' is required");
  if ((ks && nk != s) || (st && ns != s) || (di && nd != s) || (pa && np != 2 * s))
    return oi_invalid(c, "kernel_shape/strides/dilations/pads do not match %u spatial dims", s);
  bool same_u = strcmp(ap, "SAME_UPPER") == 0, same_l = strcmp(ap, "SAME_LOWER") == 0,
       valid = strcmp(ap, "VALID") == 0;
  if (!same_u && !same_l && !valid && strcmp(ap, "NOTSET") != 0)
    return oi_invalid(c, "auto_pad '%s' (NOTSET, SAME_UPPER, SAME_LOWER or VALID)", ap);
  for (uint32_t i = 0; i < s; i++) {
    /* the window arithmetic below needs every spatial size */
    if (x->shape[2 + i] == KILN_DYNAMIC)
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC,
                     "input spatial dim %u (shape[%u]) is unknown; windows need static spatial sizes", i,
                     2 + i);
    w->in[i] = x->shape[2 + i];
    w->k[i] = k ? k[i] : ks[i];
    if (ks && k && ks[i] != k[i])
      return oi_invalid(c, "kernel_shape[%u] = %lld but the weights have %lld", i, (long long)ks[i], (long long)k[i]);
    w->stride[i] = st ? st[i] : 1;
    w->dil[i] = di ? di[i] : 1;
    if (!oi_size_ok(c, w->k[i], 1, "kernel size") || !oi_size_ok(c, w->stride[i], 1, "stride") ||
        !oi_size_ok(c, w->dil[i], 1, "dilation"))
      return false;
    int64_t ek = (w->k[i] - 1) * w->dil[i] + 1;
    if (same_u || same_l) {
      int64_t o = (w->in[i] + w->stride[i] - 1) / w->stride[i];
      int64_t total = (o - 1) * w->stride[i] + ek - w->in[i];
      if (total < 0) total = 0;
      w->pad_lo[i] = same_u ? total / 2 : (total + 1) / 2;
      w->pad_hi[i] = total - w->pad_lo[i];
    } else if (!valid && pa) {
      w->pad_lo[i] = pa[i];
      w->pad_hi[i] = pa[s + i];
      if (!oi_size_ok(c, pa[i], 0, "pad") || !oi_size_ok(c, pa[s + i], 0, "pad")) return false;
    }
    int64_t span = w->in[i] + w->pad_lo[i] + w->pad_hi[i] - ek;
    if (span < 0) return oi_invalid(c, "window (%lld) larger than padded input (dim %u)", (long long)ek, i);
    w->out[i] = (ceil_mode ? (span + w->stride[i] - 1) / w->stride[i] : span / w->stride[i]) + 1;
    /* ceil mode: a last window starting in the padded input may overhang;
     * pad further so reads stay in bounds (pooling excludes it) */
    if (ceil_mode && (w->out[i] - 1) * w->stride[i] >= w->in[i] + w->pad_lo[i]) w->out[i]--;
    w->lo[i] = w->pad_lo[i];
    int64_t need = (w->out[i] - 1) * w->stride[i] + ek;
    w->hi[i] = need - w->in[i] - w->lo[i];
    if (w->hi[i] < 0) w->hi[i] = 0;
  }
  return true;
}

const kiln_affine_expr *oi_window_expr(oi_ctx *c, const oi_window *w, uint32_t i, uint32_t o_loop,
                                       uint32_t k_loop) {
  kiln_context *ctx = c->ctx;
  const kiln_affine_expr *o = kiln_affine_binary(ctx, KILN_AFFINE_MUL, kiln_affine_dim(ctx, o_loop),
                                                 kiln_affine_const(ctx, w->stride[i]));
  const kiln_affine_expr *k = kiln_affine_binary(ctx, KILN_AFFINE_MUL, kiln_affine_dim(ctx, k_loop),
                                                 kiln_affine_const(ctx, w->dil[i]));
  return kiln_affine_binary(ctx, KILN_AFFINE_ADD, o, k);
}

static bool mac_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  bool isf = kiln_type_is_float(a[2]->type);
  kiln_value *x = a[0];
  if (isf && !kiln_type_is_float(x->type)) { /* integer bytes under a float filter: exact */
    const kiln_type *ft = a[2]->type;
    x = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &x, 1, &ft, NULL), 0);
  }
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[2],
                oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, x, a[1]));
  return true;
}

static bool add_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, kiln_type_is_float(a[0]->type) ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[0], a[1]);
  return true;
}

/* The convolution proper on an already padded X [N, C, ...]: W is either
 * ONNX's [M, C/G, k...] (viewed as [G, M/G, C/G, k...]) or, when
 * `grouped`, already in that view. Returns [N, M, out...]. */
static kiln_value *conv_core(oi_ctx *c, kiln_value *xv, kiln_value *wi, int64_t N, int64_t G,
                             int64_t Mg, int64_t Cg, const oi_window *wp, bool grouped) {
  const oi_window w = *wp;
  uint32_t s = w.spatial;
  int64_t xs[OI_MAX_RANK + 1], ws[OI_MAX_RANK + 1], os[OI_MAX_RANK + 1];
  xs[0] = N, xs[1] = G, xs[2] = Cg;
  ws[0] = G, ws[1] = Mg, ws[2] = Cg;
  os[0] = N, os[1] = G, os[2] = Mg;
  for (uint32_t i = 0; i < s; i++) {
    xs[3 + i] = xv->type->shape[2 + i];
    ws[3 + i] = w.k[i];
    os[3 + i] = w.out[i];
  }
  kiln_value *xg = oi_reshape(c, xv, s + 3, xs), *wg = grouped ? wi : oi_reshape(c, wi, s + 3, ws);
  const kiln_type *ot = kiln_type_with_shape(c->ctx, wi->type, s + 3, os);
  kiln_value *init = oi_filled(c, ot, 0, 0);
  /* loops: n g m o(s) cg k(s) */
  uint32_t loops = 4 + 2 * s, lo_o = 3, l_c = 3 + s, lo_k = 4 + s;
  const kiln_affine_expr *ex[OI_MAX_RANK + 1], *ew[OI_MAX_RANK + 1], *eo[OI_MAX_RANK + 1];
  kiln_context *ctx = c->ctx;
  ex[0] = kiln_affine_dim(ctx, 0), ex[1] = kiln_affine_dim(ctx, 1), ex[2] = kiln_affine_dim(ctx, l_c);
  ew[0] = kiln_affine_dim(ctx, 1), ew[1] = kiln_affine_dim(ctx, 2), ew[2] = kiln_affine_dim(ctx, l_c);
  eo[0] = kiln_affine_dim(ctx, 0), eo[1] = kiln_affine_dim(ctx, 1), eo[2] = kiln_affine_dim(ctx, 2);
  for (uint32_t i = 0; i < s; i++) {
    ex[3 + i] = oi_window_expr(c, &w, i, lo_o + i, lo_k + i);
    ew[3 + i] = kiln_affine_dim(ctx, lo_k + i);
    eo[3 + i] = kiln_affine_dim(ctx, lo_o + i);
  }
  const kiln_affine_map *maps[3] = {kiln_affine_map_get(ctx, loops, 0, s + 3, ex),
                                    kiln_affine_map_get(ctx, loops, 0, s + 3, ew),
                                    kiln_affine_map_get(ctx, loops, 0, s + 3, eo)};
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t l = l_c; l < loops; l++) red[l] = true;
  kiln_value *ins[2] = {xg, wg};
  kiln_op *g = oi_generic(c, 2, ins, 1, &init, maps, loops, red, mac_body, NULL);
  if (!g) return NULL;
  int64_t fs[OI_MAX_RANK];
  fs[0] = N, fs[1] = G * Mg;
  for (uint32_t i = 0; i < s; i++) fs[2 + i] = w.out[i];
  return oi_reshape(c, kiln_op_result(g, 0), s + 2, fs);
}

/* Adds bias B [M] along dim 1 of r. */
kiln_value *oi_add_bias(oi_ctx *c, kiln_value *r, oi_val *bv) {
  const kiln_type *t = r->type;
  int64_t bs[OI_MAX_RANK];
  for (uint32_t i = 0; i < t->rank; i++) bs[i] = i == 1 ? t->shape[1] : 1;
  kiln_value *bi = oi_ir(c, bv);
  if (!bi) return NULL;
  kiln_value *ins[2] = {r, oi_reshape(c, bi, t->rank, bs)};
  return oi_elementwise_ir(c, 2, ins, t->rank, t->shape, t->elem, add_body, NULL);
}

/* A 1-D convolution on the padded X [N, C, L], computed as a 2-D one of
 * height 1 ([N, C, 1, L] by [M, C/G, 1, k]): the channels-last rewrite, the
 * blocked filters and the conv microkernels key on the 2-D form, which the
 * 1-D one missed (a Conv1d 512->512 k3 s2 over 3199 positions took 2.0x
 * ONNX Runtime's time as 1-D, 1.2x as 2-D). Returns [N, M, out]. */
static kiln_value *conv1d_as_2d(oi_ctx *c, kiln_value *xv, kiln_value *wi, int64_t N, int64_t G,
                                int64_t M, int64_t Cg, const oi_window *w1) {
  oi_window w = {.spatial = 2};
  w.in[0] = w.k[0] = w.out[0] = w.stride[0] = w.dil[0] = 1;
  w.in[1] = w1->in[0], w.k[1] = w1->k[0], w.out[1] = w1->out[0];
  w.stride[1] = w1->stride[0], w.dil[1] = w1->dil[0];
  w.lo[1] = w1->lo[0], w.hi[1] = w1->hi[0], w.pad_lo[1] = w1->pad_lo[0], w.pad_hi[1] = w1->pad_hi[0];
  const int64_t *xs = xv->type->shape;
  int64_t x4[4] = {xs[0], xs[1], 1, xs[2]}, w4[4] = {M, Cg, 1, w1->k[0]}, o3[3] = {N, M, w1->out[0]};
  kiln_value *r = conv_core(c, oi_reshape(c, xv, 4, x4), oi_reshape(c, wi, 4, w4), N, G, M / G, Cg, &w, false);
  return r ? oi_reshape(c, r, 3, o3) : NULL;
}

kiln_value *oi_conv_ir(oi_ctx *c, oi_node *n, kiln_value *xv, kiln_value *wi, int64_t pad) {
  const kiln_type *xt = xv->type, *wt = wi->type;
  if (wt->rank != xt->rank) {
    oi_invalid(c, "W has rank %u, X rank %u", wt->rank, xt->rank);
    return NULL;
  }
  if (xt->rank < 3 || 2 * xt->rank + 2 > KILN_MAX_LOOPS) {
    oi_unsupported(c, "convolutions over %u spatial dims", xt->rank < 2 ? 0 : xt->rank - 2);
    return NULL;
  }
  int64_t group;
  if (!oi_attr_int(c, n, "group", 1, &group)) return NULL;
  int64_t N = xt->shape[0], C = xt->shape[1], M = wt->shape[0], Cg = wt->shape[1];
  if (group < 1 || C % group || M % group || C / group != Cg) {
    oi_invalid(c, "group %lld does not fit C = %lld, M = %lld, W's C/group = %lld", (long long)group, (long long)C,
               (long long)M, (long long)Cg);
    return NULL;
  }
  oi_window w;
  if (!oi_window_attrs(c, n, xt, wt->shape + 2, false, &w)) return NULL;
  uint32_t s = w.spatial;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  for (uint32_t i = 0; i < s; i++) lo[2 + i] = w.lo[i], hi[2 + i] = w.hi[i];
  xv = oi_pad(c, xv, lo, hi, 0, pad);
  int64_t os[OI_MAX_RANK];
  os[0] = N, os[1] = M;
  for (uint32_t i = 0; i < s; i++) os[2 + i] = w.out[i];
  if (!oi_dims_ok(c, s + 2, os, "convolution output")) return NULL;
  if (s == 1) return conv1d_as_2d(c, xv, wi, N, group, M, Cg, &w);
  return conv_core(c, xv, wi, N, group, M / group, Cg, &w, false);
}

bool oi_import_conv(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *wv = x ? oi_in(c, n, 1) : NULL, *bv = oi_opt_in(n, 2);
  if (!wv || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (wv->dtype != x->dtype || (bv && bv->dtype != x->dtype))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "X, W and B must share an element type");
  int64_t M = wv->type->rank ? wv->type->shape[0] : 0;
  if (bv && (bv->type->rank != 1 || bv->type->shape[0] != M))
    return oi_invalid(c, "B must be 1-D of size %lld", (long long)M);
  int q = oi_qdq_conv(c, n, x, wv, bv); /* a quantized model's Conv */
  if (q) return q > 0;
  kiln_value *xv = oi_ir(c, x), *wi = oi_ir(c, wv);
  if (!xv || !wi) return false;
  kiln_value *r = oi_conv_ir(c, n, xv, wi, 0);
  if (!r) return false;
  if (bv && !(r = oi_add_bias(c, r, bv))) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

static bool copy_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = a[0];
  return true;
}

/* Constant weights [C, Mg, k...] flipped and regrouped to [G, Mg, Cg, k...]
 * on the host, straight from the payload (one copy into the IR); NULL when
 * W is not a constant. */
static const kiln_attr *flip_const(oi_ctx *c, oi_val *wv, const kiln_type *gt, int64_t G, int64_t Mg,
                                   int64_t Cg, uint32_t s) {
  const void *data;
  size_t nbytes;
  bool splat = false;
  if (wv->tensor && !wv->cst) {
    kiln_onnx_bytes bytes;
    if (!kiln_onnx_model_tensor_bytes(c->model, wv->tensor, &bytes, c->st)) return NULL;
    data = bytes.data, nbytes = bytes.size;
  } else if (wv->cst) {
    data = wv->cst->data, nbytes = wv->cst->nbytes, splat = wv->cst->splat;
  } else {
    return NULL;
  }
  size_t es = kiln_dense_elem_size(gt->elem);
  int64_t n = oi_numel(gt);
  if (splat) return kiln_attr_dense(c->ctx, gt, true, data, nbytes);
  if ((size_t)n * es != nbytes) return NULL;
  char *out = kiln_alloc(c->ctx, (size_t)n * es + 1);
  int64_t K = 1;
  for (uint32_t i = 0; i < s; i++) K *= gt->shape[3 + i];
  for (int64_t g = 0; g < G; g++)
    for (int64_t m = 0; m < Mg; m++)
      for (int64_t cc = 0; cc < Cg; cc++)
        for (int64_t kk = 0; kk < K; kk++) {
          /* kk's spatial coordinates reversed = K-1-kk in row-major order */
          int64_t src = ((g * Cg + cc) * Mg + m) * K + (K - 1 - kk);
          int64_t dst = ((g * Mg + m) * Cg + cc) * K + kk;
          memcpy(out + (size_t)dst * es, (const char *)data + (size_t)src * es, es);
        }
  return kiln_attr_dense_borrowed(c->ctx, gt, out, (size_t)n * es); /* arena-owned */
}

/* ConvTranspose as a stride-1 convolution: X is spread out by the strides
 * (insert_slice with strides into zeros), padded by d*(k-1) minus the
 * declared pads (plus output_padding at the end), and convolved with the
 * kernel flipped in space and regrouped [C, M/G, k] -> [G, M/G, C/G, k]. */
bool oi_import_conv_transpose(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                                      "output_shape", "pads", "strides", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *wv = x ? oi_in(c, n, 1) : NULL, *bv = oi_opt_in(n, 2);
  if (!wv || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (wv->dtype != x->dtype || (bv && bv->dtype != x->dtype))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "X, W and B must share an element type");
  const kiln_type *xt = x->type, *wt = wv->type;
  if (wt->rank != xt->rank) return oi_invalid(c, "W has rank %u, X rank %u", wt->rank, xt->rank);
  if (xt->rank < 3 || 2 * xt->rank + 2 > KILN_MAX_LOOPS)
    return oi_unsupported(c, "transposed convolutions over %u spatial dims", xt->rank < 2 ? 0 : xt->rank - 2);
  uint32_t s = xt->rank - 2;
  int64_t group;
  if (!oi_attr_int(c, n, "group", 1, &group)) return false;
  int64_t N = xt->shape[0], C = xt->shape[1], Mg = wt->shape[1];
  if (group < 1 || C % group || wt->shape[0] != C)
    return oi_invalid(c, "group %lld does not fit C = %lld and W's first dimension %lld", (long long)group,
                      (long long)C, (long long)wt->shape[0]);
  int64_t G = group, Cg = C / G, M = Mg * G;
  if (bv && (bv->type->rank != 1 || bv->type->shape[0] != M))
    return oi_invalid(c, "B must be 1-D of size %lld", (long long)M);
  const int64_t *ks, *st, *di, *pa, *op, *osh;
  size_t nk, ns, nd, np, no, nos;
  const char *ap;
  if (!oi_attr_ints(c, n, "kernel_shape", &ks, &nk) || !oi_attr_ints(c, n, "strides", &st, &ns) ||
      !oi_attr_ints(c, n, "dilations", &di, &nd) || !oi_attr_ints(c, n, "pads", &pa, &np) ||
      !oi_attr_ints(c, n, "output_padding", &op, &no) || !oi_attr_ints(c, n, "output_shape", &osh, &nos) ||
      !oi_attr_string(c, n, "auto_pad", "NOTSET", &ap))
    return false;
  if ((ks && nk != s) || (st && ns != s) || (di && nd != s) || (pa && np != 2 * s) || (op && no != s) ||
      (osh && nos != s))
    return oi_invalid(c, "kernel_shape/strides/dilations/pads/output_padding/output_shape do not match %u spatial dims", s);
  bool same_u = strcmp(ap, "SAME_UPPER") == 0, same_l = strcmp(ap, "SAME_LOWER") == 0;
  if (!same_u && !same_l && strcmp(ap, "VALID") != 0 && strcmp(ap, "NOTSET") != 0)
    return oi_invalid(c, "auto_pad '%s' (NOTSET, SAME_UPPER, SAME_LOWER or VALID)", ap);
  oi_window w;
  memset(&w, 0, sizeof w);
  w.spatial = s;
  int64_t spread[OI_MAX_RANK], lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0}, sstride[OI_MAX_RANK];
  for (uint32_t i = 0; i < s; i++) {
    int64_t in = xt->shape[2 + i], k = wt->shape[2 + i], sd = st ? st[i] : 1, d = di ? di[i] : 1;
    int64_t opad = op ? op[i] : 0, plo = 0, phi = 0;
    if (ks && ks[i] != k) return oi_invalid(c, "kernel_shape[%u] = %lld but the weights have %lld", i, (long long)ks[i], (long long)k);
    if (!oi_size_ok(c, sd, 1, "stride") || !oi_size_ok(c, d, 1, "dilation") ||
        !oi_size_ok(c, opad, 0, "output_padding") || (osh && !oi_size_ok(c, osh[i], 1, "output_shape")) ||
        (pa && (!oi_size_ok(c, pa[i], 0, "pad") || !oi_size_ok(c, pa[s + i], 0, "pad"))))
      return false;
    int64_t full = sd * (in - 1) + opad + (k - 1) * d + 1;
    if (osh || same_u || same_l) {
      int64_t want = osh ? osh[i] : in * sd, total = full - want;
      if (total < 0) /* a larger output_shape acts as output_padding at the end */
        plo = 0, phi = total;
      else if (same_u) plo = total / 2, phi = total - total / 2;
      else plo = total - total / 2, phi = total / 2;
    } else if (pa) {
      plo = pa[i], phi = pa[s + i];
    }
    lo[2 + i] = d * (k - 1) - plo;
    hi[2 + i] = d * (k - 1) - phi + opad;
    if (lo[2 + i] < 0 || hi[2 + i] < 0)
      return oi_unsupported(c, "pads larger than the dilated kernel extent (dim %u)", i);
    spread[i] = (in - 1) * sd + 1;
    sstride[i] = sd;
    w.k[i] = k, w.stride[i] = 1, w.dil[i] = d;
    w.out[i] = full - plo - phi;
    if (w.out[i] < 1) return oi_invalid(c, "output dimension %u would be %lld", i, (long long)w.out[i]);
    if (!oi_size_ok(c, spread[i] + lo[2 + i] + hi[2 + i], 1, "padded input")) return false;
  }
  int64_t ps[OI_MAX_RANK], os[OI_MAX_RANK];
  ps[0] = os[0] = N, ps[1] = C, os[1] = M;
  for (uint32_t i = 0; i < s; i++) ps[2 + i] = spread[i] + lo[2 + i] + hi[2 + i], os[2 + i] = w.out[i];
  if (!oi_dims_ok(c, s + 2, ps, "padded input") || !oi_dims_ok(c, s + 2, os, "output")) return false;
  int64_t wg_s[OI_MAX_RANK + 1];
  wg_s[0] = G, wg_s[1] = Mg, wg_s[2] = Cg;
  for (uint32_t i = 0; i < s; i++) wg_s[3 + i] = w.k[i];
  const kiln_attr *flipped = flip_const(c, wv, kiln_type_with_shape(c->ctx, wt, s + 3, wg_s), G, Mg, Cg, s);
  kiln_value *xv = oi_ir(c, x), *wi = flipped ? kiln_build_constant(&c->b, flipped) : oi_ir(c, wv);
  if (!xv || !wi) return false;
  /* spread X by the strides */
  bool strided = false;
  for (uint32_t i = 0; i < s; i++) strided = strided || sstride[i] > 1;
  if (strided) {
    int64_t shape[OI_MAX_RANK], off[OI_MAX_RANK] = {0}, str[OI_MAX_RANK];
    shape[0] = N, shape[1] = C, str[0] = str[1] = 1;
    for (uint32_t i = 0; i < s; i++) shape[2 + i] = spread[i], str[2 + i] = sstride[i];
    kiln_value *z = oi_filled(c, kiln_type_with_shape(c->ctx, xt, s + 2, shape), 0, 0);
    int64_t seg[5] = {1, 1, 0, 0, 0};
    kiln_named_attr e[4] = {
        {kiln_intern_cstr(c->ctx, "operandSegmentSizes"),
         kiln_attr_dense_array(c->ctx, kiln_type_int(c->ctx, 32), 5, seg, NULL)},
        {kiln_intern_cstr(c->ctx, "static_offsets"), kiln_attr_dense_i64_array(c->ctx, s + 2, off)},
        {kiln_intern_cstr(c->ctx, "static_sizes"), kiln_attr_dense_i64_array(c->ctx, s + 2, xt->shape)},
        {kiln_intern_cstr(c->ctx, "static_strides"), kiln_attr_dense_i64_array(c->ctx, s + 2, str)},
    };
    kiln_value *ops[2] = {xv, z};
    xv = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_INSERT_SLICE, 2, ops, 1, &z->type,
                                   kiln_attr_dict(c->ctx, 4, e)), 0);
  }
  xv = oi_pad(c, xv, lo, hi, 0, 0);
  if (flipped) {
    kiln_value *r = conv_core(c, xv, wi, N, G, Mg, Cg, &w, true);
    if (!r || (bv && !(r = oi_add_bias(c, r, bv)))) return false;
    oi_set_out(c, n, 0, r, x->dtype);
    return true;
  }
  /* W [C, Mg, k] viewed [G, Cg, Mg, k] -> [G, Mg, Cg, k] flipped */
  int64_t wv_s[OI_MAX_RANK + 1];
  wv_s[0] = G, wv_s[1] = Cg, wv_s[2] = Mg;
  for (uint32_t i = 0; i < s; i++) wv_s[3 + i] = w.k[i];
  kiln_value *wview = oi_reshape(c, wi, s + 3, wv_s);
  kiln_context *ctx = c->ctx;
  const kiln_affine_expr *ee[OI_MAX_RANK + 1];
  ee[0] = kiln_affine_dim(ctx, 0), ee[1] = kiln_affine_dim(ctx, 2), ee[2] = kiln_affine_dim(ctx, 1);
  for (uint32_t i = 0; i < s; i++)
    ee[3 + i] = kiln_affine_binary(ctx, KILN_AFFINE_ADD,
                                   kiln_affine_binary(ctx, KILN_AFFINE_MUL, kiln_affine_dim(ctx, 3 + i),
                                                      kiln_affine_const(ctx, -1)),
                                   kiln_affine_const(ctx, w.k[i] - 1));
  kiln_value *wout = oi_empty(c, kiln_type_with_shape(ctx, wt, s + 3, wg_s));
  const kiln_affine_map *maps[2] = {kiln_affine_map_get(ctx, s + 3, 0, s + 3, ee),
                                    kiln_affine_map_identity(ctx, s + 3)};
  kiln_op *fl = oi_generic(c, 1, &wview, 1, &wout, maps, s + 3, NULL, copy_body, NULL);
  if (!fl) return false;
  kiln_value *r = conv_core(c, xv, kiln_op_result(fl, 0), N, G, Mg, Cg, &w, true);
  if (!r) return false;
  if (bv && !(r = oi_add_bias(c, r, bv))) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

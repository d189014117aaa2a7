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
    w->in[i] = x->shape[2 + i];
    w->k[i] = k ? k[i] : ks[i];
    if (ks && k && ks[i] != k[i])
      return oi_invalid(c, "kernel_shape[%u] = %lld but the weights have %lld", i, (long long)ks[i], (long long)k[i]);
    w->stride[i] = st ? st[i] : 1;
    w->dil[i] = di ? di[i] : 1;
    if (w->k[i] < 1 || w->stride[i] < 1 || w->dil[i] < 1)
      return oi_invalid(c, "kernel, stride and dilation must be >= 1 (dim %u)", i);
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
      if (pa[i] < 0 || pa[s + i] < 0) return oi_invalid(c, "negative pads");
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
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[2],
                oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, a[0], a[1]));
  return true;
}

static bool add_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, kiln_type_is_float(a[0]->type) ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[0], a[1]);
  return true;
}

bool oi_import_conv(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *wv = x ? oi_in(c, n, 1) : NULL, *bv = oi_opt_in(n, 2);
  if (!wv || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (wv->dtype != x->dtype || (bv && bv->dtype != x->dtype))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "X, W and B must share an element type");
  const kiln_type *xt = x->type, *wt = wv->type;
  if (wt->rank != xt->rank) return oi_invalid(c, "W has rank %u, X rank %u", wt->rank, xt->rank);
  if (xt->rank < 3 || 2 * xt->rank + 2 > KILN_MAX_LOOPS)
    return oi_unsupported(c, "convolutions over %u spatial dims", xt->rank < 2 ? 0 : xt->rank - 2);
  int64_t group;
  if (!oi_attr_int(c, n, "group", 1, &group)) return false;
  int64_t N = xt->shape[0], C = xt->shape[1], M = wt->shape[0], Cg = wt->shape[1];
  if (group < 1 || C % group || M % group || C / group != Cg)
    return oi_invalid(c, "group %lld does not fit C = %lld, M = %lld, W's C/group = %lld", (long long)group,
                      (long long)C, (long long)M, (long long)Cg);
  if (bv && (bv->type->rank != 1 || bv->type->shape[0] != M))
    return oi_invalid(c, "B must be 1-D of size %lld", (long long)M);
  oi_window w;
  if (!oi_window_attrs(c, n, xt, wt->shape + 2, false, &w)) return false;
  uint32_t s = w.spatial;
  kiln_value *xv = oi_ir(c, x), *wi = oi_ir(c, wv);
  if (!xv || !wi) return false;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  for (uint32_t i = 0; i < s; i++) lo[2 + i] = w.lo[i], hi[2 + i] = w.hi[i];
  xv = oi_pad(c, xv, lo, hi, 0, 0);
  int64_t G = group, Mg = M / G;
  int64_t xs[OI_MAX_RANK + 1], ws[OI_MAX_RANK + 1], os[OI_MAX_RANK + 1];
  xs[0] = N, xs[1] = G, xs[2] = Cg;
  ws[0] = G, ws[1] = Mg, ws[2] = Cg;
  os[0] = N, os[1] = G, os[2] = Mg;
  for (uint32_t i = 0; i < s; i++) {
    xs[3 + i] = xv->type->shape[2 + i];
    ws[3 + i] = w.k[i];
    os[3 + i] = w.out[i];
  }
  kiln_value *xg = oi_reshape(c, xv, s + 3, xs), *wg = oi_reshape(c, wi, s + 3, ws);
  const kiln_type *ot = kiln_type_with_shape(c->ctx, xt, s + 3, os);
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
  if (!g) return false;
  int64_t fs[OI_MAX_RANK];
  fs[0] = N, fs[1] = M;
  for (uint32_t i = 0; i < s; i++) fs[2 + i] = w.out[i];
  kiln_value *r = oi_reshape(c, kiln_op_result(g, 0), s + 2, fs);
  if (bv) {
    int64_t bs[OI_MAX_RANK];
    for (uint32_t i = 0; i < s + 2; i++) bs[i] = i == 1 ? M : 1;
    kiln_value *bi = oi_ir(c, bv);
    if (!bi) return false;
    kiln_value *ins2[2] = {r, oi_reshape(c, bi, s + 2, bs)};
    r = oi_elementwise_ir(c, 2, ins2, s + 2, fs, r->type->elem, add_body, NULL);
    if (!r) return false;
  }
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

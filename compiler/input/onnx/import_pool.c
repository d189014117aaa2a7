/* Pooling: MaxPool (with its Indices output, either storage order),
 * AveragePool (count_include_pad, ceil_mode), the global pools, and
 * MaxUnpool.
 *
 * Takes: X [N, C, spatial...]. Guarantees: X is padded (lowest value for
 * max, zero for average), then one linalg.generic over (n, c, o..., k...)
 * whose extra input is a tensor.empty of the window's shape (it only gives
 * the k loops their bounds); averages divide by a per-position count
 * constant computed here, so padding is excluded exactly as ONNX says.
 * Global pools are reductions over the spatial dims (keepdims). */
#include "import_internal.h"

typedef struct {
  bool max, isf, isu;
  const oi_window *w;    /* Indices: the window, NULL without */
  const int64_t *shape;  /* X's shape */
  bool col_major;        /* storage_order = 1 */
} pool_user;

/* MaxPool's Indices: the position of the window element in X (unpadded),
 * flattened row-major, or with the spatial dims reversed (column-major). */
static kiln_value *flat_index(kiln_builder *b, const pool_user *p) {
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  uint32_t s = p->w->spatial;
  kiln_value *pos[OI_MAX_RANK];
  pos[0] = oi_loop_index_i64(b, 0);
  pos[1] = oi_loop_index_i64(b, 1);
  for (uint32_t i = 0; i < s; i++) {
    kiln_value *o = oi_op2(b, KILN_OP_ARITH_MULI, oi_loop_index_i64(b, 2 + i), oi_scalar(b, i64, 0, p->w->stride[i]));
    kiln_value *k = oi_op2(b, KILN_OP_ARITH_MULI, oi_loop_index_i64(b, 2 + s + i), oi_scalar(b, i64, 0, p->w->dil[i]));
    pos[2 + i] = oi_op2(b, KILN_OP_ARITH_SUBI, oi_op2(b, KILN_OP_ARITH_ADDI, o, k), oi_scalar(b, i64, 0, p->w->lo[i]));
  }
  kiln_value *lin = pos[0];
  for (uint32_t d = 1; d < s + 2; d++) {
    uint32_t e = p->col_major && d >= 2 ? s + 2 - 1 - (d - 2) : d;
    lin = oi_op2(b, KILN_OP_ARITH_ADDI, oi_op2(b, KILN_OP_ARITH_MULI, lin, oi_scalar(b, i64, 0, p->shape[e])), pos[e]);
  }
  return lin;
}

static bool pool_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  pool_user *p = u;
  kiln_value *x = a[0], *acc = a[2];
  if (p->w) { /* max with its position: the first maximum wins */
    kiln_value *gt = p->isf ? oi_cmpf(b, OI_F_OGT, x, acc) : oi_cmpi(b, p->isu ? OI_UGT : OI_SGT, x, acc);
    y[0] = oi_select(b, gt, x, acc);
    y[1] = oi_select(b, gt, flat_index(b, p), a[3]);
    return true;
  }
  if (p->max)
    y[0] = p->isf ? oi_op2(b, KILN_OP_ARITH_MAXIMUMF, acc, x)
                  : oi_op2(b, p->isu ? KILN_OP_ARITH_MAXUI : KILN_OP_ARITH_MAXSI, acc, x);
  else y[0] = oi_op2(b, p->isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, acc, x);
  return true;
}

static bool div_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, a[0], a[1]);
  return true;
}

bool oi_import_pool(oi_ctx *c, oi_node *n) {
  static const char *const gk[] = {NULL};
  static const char *const ak[] = {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides", NULL};
  static const char *const mk2[] = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides", NULL};
  bool global = n->kind == OI_GLOBAL_MAX || n->kind == OI_GLOBAL_AVG;
  bool max = n->kind == OI_MAXPOOL || n->kind == OI_GLOBAL_MAX;
  if (!oi_arity(c, n, 1, 1, 1, max && !global ? 2 : 1) ||
      !oi_attrs_only(c, n, global ? gk : max ? mk2 : ak))
    return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, max ? OI_T_NUM : OI_T_FLOAT, "input 0")) return false;
  kiln_value *xv = oi_ir(c, x);
  kiln_value *r = xv ? oi_pool_ir(c, n, xv, x->dtype) : NULL;
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

kiln_value *oi_pool_ir(oi_ctx *c, oi_node *n, kiln_value *xv, int32_t dtype) {
  bool global = n->kind == OI_GLOBAL_MAX || n->kind == OI_GLOBAL_AVG;
  bool max = n->kind == OI_MAXPOOL || n->kind == OI_GLOBAL_MAX;
  const kiln_type *xt = xv->type;
  if (xt->rank < 3) {
    oi_invalid(c, "input rank %u < 3 (N, C, spatial...)", xt->rank);
    return NULL;
  }
  uint32_t s = xt->rank - 2;
  if (global) {
    bool axes[OI_MAX_RANK] = {0};
    double cnt = 1;
    for (uint32_t i = 0; i < s; i++) axes[2 + i] = true, cnt *= (double)xt->shape[2 + i];
    kiln_value *r = oi_reduce(c, xv, dtype, axes, true, max ? OI_RED_MAX : OI_RED_SUM);
    if (r && !max) {
      kiln_value *ins[2] = {r, kiln_build_constant(&c->b, kiln_attr_dense_splat_float(c->ctx, kiln_type_tensor(c->ctx, 0, NULL, xt->elem, NULL), cnt))};
      r = oi_elementwise_ir(c, 2, ins, r->type->rank, r->type->shape, xt->elem, div_body, NULL);
    }
    return r;
  }
  if (2 * s + 2 > KILN_MAX_LOOPS) {
    oi_unsupported(c, "pooling over %u spatial dims", s);
    return NULL;
  }
  int64_t storage = 0, cip = 0;
  if (max && !oi_attr_int(c, n, "storage_order", 0, &storage)) return NULL;
  if (storage != 0 && storage != 1) {
    oi_invalid(c, "storage_order %lld", (long long)storage);
    return NULL;
  }
  if (!max && !oi_attr_int(c, n, "count_include_pad", 0, &cip)) return NULL;
  if (!max && oi_attr(n, "dilations")) {
    const int64_t *d;
    size_t nd;
    if (!oi_attr_ints(c, n, "dilations", &d, &nd)) return NULL;
    for (size_t i = 0; i < nd; i++)
      if (d[i] != 1) {
        oi_unsupported(c, "AveragePool with dilations != 1");
        return NULL;
      }
  }
  oi_window w;
  if (!oi_window_attrs(c, n, xt, NULL, true, &w)) return NULL;
  double lf;
  int64_t li;
  if (max) oi_elem_lowest(xt->elem, dtype, &lf, &li);
  else lf = 0, li = 0;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  for (uint32_t i = 0; i < s; i++) lo[2 + i] = w.lo[i], hi[2 + i] = w.hi[i];
  xv = oi_pad(c, xv, lo, hi, lf, li);
  int64_t os[OI_MAX_RANK];
  os[0] = xt->shape[0], os[1] = xt->shape[1];
  for (uint32_t i = 0; i < s; i++) os[2 + i] = w.out[i];
  if (!oi_dims_ok(c, s + 2, os, "pooled output")) return NULL;
  const kiln_type *ot = kiln_type_with_shape(c->ctx, xt, s + 2, os);
  kiln_value *init = oi_filled(c, ot, lf, li);
  kiln_value *win = oi_empty(c, kiln_type_with_shape(c->ctx, xt, s, w.k));
  uint32_t loops = 2 + 2 * s;
  kiln_context *ctx = c->ctx;
  const kiln_affine_expr *ex[OI_MAX_RANK], *ek[OI_MAX_RANK], *eo[OI_MAX_RANK];
  ex[0] = eo[0] = kiln_affine_dim(ctx, 0);
  ex[1] = eo[1] = kiln_affine_dim(ctx, 1);
  for (uint32_t i = 0; i < s; i++) {
    ex[2 + i] = oi_window_expr(c, &w, i, 2 + i, 2 + s + i);
    ek[i] = kiln_affine_dim(ctx, 2 + s + i);
    eo[2 + i] = kiln_affine_dim(ctx, 2 + i);
  }
  const kiln_affine_map *maps[3] = {kiln_affine_map_get(ctx, loops, 0, s + 2, ex),
                                    kiln_affine_map_get(ctx, loops, 0, s, ek),
                                    kiln_affine_map_get(ctx, loops, 0, s + 2, eo)};
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t l = 2 + s; l < loops; l++) red[l] = true;
  kiln_value *ins[2] = {xv, win};
  bool indices = oi_has_out(n, 1);
  pool_user pu = {max, kiln_type_is_float(xt->elem), oi_dtype_is_unsigned(dtype), indices ? &w : NULL,
                  xt->shape, storage == 1};
  const kiln_type *it = oi_tensor_type(c, s + 2, os, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  kiln_value *outs[2] = {init, indices ? oi_filled(c, it, 0, 0) : NULL};
  const kiln_affine_map *maps4[4] = {maps[0], maps[1], maps[2], maps[2]};
  kiln_op *g = oi_generic(c, 2, ins, indices ? 2 : 1, outs, maps4, loops, red, pool_body, &pu);
  if (!g) return NULL;
  kiln_value *r = kiln_op_result(g, 0);
  if (indices) oi_set_out(c, n, 1, kiln_op_result(g, 1), ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  if (!max) {
    /* per-position count of window elements that are counted */
    int64_t total = 1;
    for (uint32_t i = 0; i < s; i++) total *= w.out[i];
    if (total > 64 * OI_FOLD_MAX) {
      oi_unsupported(c, "average pool over more than %d positions", 64 * OI_FOLD_MAX);
      return NULL;
    }
    double *cnt = kiln_alloc(ctx, (size_t)(total + 1) * sizeof *cnt);
    for (int64_t p = 0; p < total; p++) {
      int64_t rem = p;
      double prod = 1;
      for (int i = (int)s - 1; i >= 0; i--) {
        int64_t o = rem % w.out[i];
        rem /= w.out[i];
        int64_t k = 0;
        for (int64_t j = 0; j < w.k[i]; j++) {
          int64_t pos = o * w.stride[i] + j * w.dil[i] - w.pad_lo[i];
          bool in = cip ? (pos >= -w.pad_lo[i] && pos < w.in[i] + w.pad_hi[i]) : (pos >= 0 && pos < w.in[i]);
          k += in;
        }
        prod *= (double)(k ? k : 1);
      }
      cnt[p] = prod;
    }
    const kiln_type *ct = kiln_type_with_shape(ctx, xt, s, w.out);
    kiln_value *ins2[2] = {r, kiln_build_constant(&c->b, oi_dense_floats(c, ct, cnt))};
    r = oi_elementwise_ir(c, 2, ins2, s + 2, os, xt->elem, div_body, NULL);
    if (!r) return NULL;
  }
  return r;
}

/* MaxUnpool: zeros with X's values at the flat positions I gives (MaxPool's
 * Indices). One generic over (n, c, output position, input position) whose
 * reduction over the input positions of the same (n, c) plane picks the
 * value whose index is the output position: quadratic in the plane size,
 * and an index pointing into another (n, c) plane (which MaxPool never
 * produces) is dropped. output_shape may be run-time data (given or
 * computed): its spatial dims are then '?', checked on the host to be at
 * least the unpooled ones, and its N and C to be X's. */
typedef struct { uint32_t s; const int64_t *dshape; } unpool_user;

/* Indices count positions in the default output shape (DSHAPE); a larger
 * output_shape only adds room at the end of each dim. */
static bool unpool_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  unpool_user *p = u;
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *lin = oi_loop_index_i64(b, 0), *inside = NULL;
  for (uint32_t d = 1; d < p->s + 2; d++) {
    kiln_value *i = oi_loop_index_i64(b, d);
    if (d >= 2) {
      kiln_value *in = oi_cmpi(b, OI_SLT, i, oi_scalar(b, i64, 0, p->dshape[d]));
      inside = inside ? oi_op2(b, KILN_OP_ARITH_ANDI, inside, in) : in;
    }
    lin = oi_op2(b, KILN_OP_ARITH_ADDI, oi_op2(b, KILN_OP_ARITH_MULI, lin, oi_scalar(b, i64, 0, p->dshape[d])), i);
  }
  kiln_value *hit = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpi(b, OI_EQ, a[1], lin), inside);
  y[0] = oi_select(b, hit, a[0], a[2]);
  return true;
}

bool oi_import_max_unpool(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"kernel_shape", "pads", "strides", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *iv = x ? oi_in(c, n, 1) : NULL, *sv = oi_opt_in(n, 2);
  if (!iv || !oi_check_type(c, x, OI_T_NUM, "input 0 (X)")) return false;
  if (iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "I must be int64, not %s", oi_dtype_name(iv->dtype));
  const kiln_type *xt = x->type;
  if (xt->rank < 3) return oi_invalid(c, "input rank %u < 3 (N, C, spatial...)", xt->rank);
  if (iv->type->rank != xt->rank) return oi_invalid(c, "I has another rank than X");
  for (uint32_t d = 0; d < xt->rank; d++)
    if (iv->type->shape[d] != xt->shape[d]) return oi_invalid(c, "I has another shape than X");
  uint32_t s = xt->rank - 2;
  if (2 * s + 2 > KILN_MAX_LOOPS) return oi_unsupported(c, "unpooling over %u spatial dims", s);
  const int64_t *ks, *st, *pa;
  size_t nk, ns, np;
  if (!oi_attr_ints(c, n, "kernel_shape", &ks, &nk) || !oi_attr_ints(c, n, "strides", &st, &ns) ||
      !oi_attr_ints(c, n, "pads", &pa, &np))
    return false;
  if (nk != s || (st && ns != s) || (pa && np != 2 * s))
    return oi_invalid(c, "kernel_shape, strides and pads must cover the %u spatial dims", s);
  int64_t os[OI_MAX_RANK], ds[OI_MAX_RANK];
  os[0] = xt->shape[0], os[1] = xt->shape[1];
  for (uint32_t i = 0; i < s; i++)
    os[2 + i] = (xt->shape[2 + i] - 1) * (st ? st[i] : 1) + ks[i] - (pa ? pa[i] + pa[s + i] : 0);
  for (uint32_t d = 0; d < xt->rank; d++) ds[d] = os[d];
  kiln_value *odyn[OI_MAX_RANK] = {0}; /* host values of '?' output dims */
  if (sv && sv->sym) { /* given as run-time data: checked on the host */
    int64_t *sh, cnt;
    kiln_value **dy;
    if (!oi_shape_ints(c, sv, "input 2 (output_shape)", &sh, &dy, &cnt)) return false;
    if (cnt != xt->rank) return oi_invalid(c, "output_shape must be [N, C, spatial...] of X's N and C");
    kiln_value *room[OI_MAX_RANK];
    for (uint32_t d = 0; d < xt->rank; d++) {
      kiln_value *v = dy[d] ? dy[d] : oi_index(c, sh[d]);
      if (d < 2) {
        oi_check_eq(c, v, oi_index(c, os[d]));
        continue;
      }
      os[d] = KILN_DYNAMIC, odyn[d] = v;
      room[d - 2] = oi_ibin(c, KILN_OP_ARITH_SUBI, v, oi_index(c, ds[d]));
    }
    /* spatial dim i of output_shape at least the unpooled size */
    int64_t rs[OI_MAX_RANK];
    for (uint32_t i = 0; i < s; i++) rs[i] = KILN_DYNAMIC;
    oi_check_shape(c, s, rs, room, xt->elem);
    oi_check_shape(c, xt->rank, os, odyn, xt->elem);
  } else if (sv) { /* the output shape given: the same positions, more room */
    int64_t *v, cnt;
    if (!oi_const_ints(c, sv, "input 2 (output_shape)", &v, &cnt)) return false;
    if (cnt != xt->rank || v[0] != os[0] || v[1] != os[1])
      return oi_invalid(c, "output_shape must be [N, C, spatial...] of X's N and C");
    for (uint32_t d = 2; d < xt->rank; d++)
      if ((os[d] = v[d]) < ds[d]) return oi_invalid(c, "output_shape is smaller than the unpooled shape");
  }
  const bool dyn = odyn[2] != NULL;
  if (!dyn && !oi_dims_ok(c, xt->rank, os, "output")) return false;
  const kiln_type *ot = kiln_type_with_shape(c->ctx, xt, xt->rank, os);
  kiln_value *dl[OI_MAX_RANK];
  for (uint32_t d = 0, k = 0; d < xt->rank; d++)
    if (odyn[d]) dl[k++] = odyn[d];
  kiln_value *xv = oi_ir(c, x), *ix = oi_ir(c, iv);
  kiln_value *out = dyn ? oi_fill_into(c, oi_empty_dims(c, ot, dl), 0, 0) : oi_filled(c, ot, 0, 0);
  if (!xv || !ix) return false;
  if ((!dyn && oi_numel(ot) == 0) || oi_numel(xt) == 0) {
    oi_set_out(c, n, 0, out, x->dtype);
    return true;
  }
  uint32_t loops = 2 + 2 * s;
  int64_t qd[OI_MAX_RANK], pd[OI_MAX_RANK];
  qd[0] = pd[0] = 0, qd[1] = pd[1] = 1;
  for (uint32_t i = 0; i < s; i++) pd[2 + i] = 2 + i, qd[2 + i] = 2 + s + i;
  const kiln_affine_map *mq = oi_map_dims(c, loops, xt->rank, qd), *mp = oi_map_dims(c, loops, xt->rank, pd);
  const kiln_affine_map *maps[3] = {mq, mq, mp};
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t l = 2 + s; l < loops; l++) red[l] = true;
  kiln_value *ins[2] = {xv, ix};
  unpool_user p = {s, ds};
  kiln_op *g = oi_generic(c, 2, ins, 1, &out, maps, loops, red, unpool_body, &p);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

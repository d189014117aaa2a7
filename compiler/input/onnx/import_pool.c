/* Pooling: MaxPool, AveragePool (count_include_pad, ceil_mode), and the
 * global pools.
 *
 * Takes: X [N, C, spatial...]. Guarantees: X is padded (lowest value for
 * max, zero for average), then one linalg.generic over (n, c, o..., k...)
 * whose extra input is a tensor.empty of the window's shape (it only gives
 * the k loops their bounds); averages divide by a per-position count
 * constant computed here, so padding is excluded exactly as ONNX says.
 * Global pools are reductions over the spatial dims (keepdims). */
#include "import_internal.h"

typedef struct { bool max, isf; } pool_user;

static bool pool_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  pool_user *p = u;
  kiln_value *x = a[0], *acc = a[2];
  if (p->max) y[0] = p->isf ? oi_op2(b, KILN_OP_ARITH_MAXIMUMF, acc, x) : oi_op2(b, KILN_OP_ARITH_MAXSI, acc, x);
  else y[0] = oi_op2(b, p->isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, acc, x);
  return true;
}

static bool div_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, a[0], a[1]);
  return true;
}

bool oi_import_pool(oi_ctx *c, oi_node *n) {
  static const char *const gk[] = {NULL};
  static const char *const mk[] = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", NULL};
  static const char *const ak[] = {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides", NULL};
  static const char *const mk2[] = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides", NULL};
  bool global = n->kind == OI_GLOBAL_MAX || n->kind == OI_GLOBAL_AVG;
  bool max = n->kind == OI_MAXPOOL || n->kind == OI_GLOBAL_MAX;
  (void)mk;
  if (!oi_arity(c, n, 1, 1, 1, max && !global ? 2 : 1) ||
      !oi_attrs_only(c, n, global ? gk : max ? mk2 : ak))
    return false;
  if (oi_has_out(n, 1)) return oi_unsupported(c, "the Indices output of MaxPool");
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, max ? (OI_T_FLOAT | OI_T_SINT) : OI_T_FLOAT, "input 0")) return false;
  const kiln_type *xt = x->type;
  if (xt->rank < 3) return oi_invalid(c, "input rank %u < 3 (N, C, spatial...)", xt->rank);
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  uint32_t s = xt->rank - 2;
  if (global) {
    bool axes[OI_MAX_RANK] = {0};
    double cnt = 1;
    for (uint32_t i = 0; i < s; i++) axes[2 + i] = true, cnt *= (double)xt->shape[2 + i];
    kiln_value *r = oi_reduce(c, xv, x->dtype, axes, true, max ? OI_RED_MAX : OI_RED_SUM);
    if (!r) return false;
    if (!max) {
      kiln_value *ins[2] = {r, kiln_build_constant(&c->b, kiln_attr_dense_splat_float(c->ctx, kiln_type_tensor(c->ctx, 0, NULL, xt->elem, NULL), cnt))};
      r = oi_elementwise_ir(c, 2, ins, r->type->rank, r->type->shape, xt->elem, div_body, NULL);
      if (!r) return false;
    }
    oi_set_out(c, n, 0, r, x->dtype);
    return true;
  }
  if (2 * s + 2 > KILN_MAX_LOOPS) return oi_unsupported(c, "pooling over %u spatial dims", s);
  int64_t storage = 0, cip = 0;
  if (max && !oi_attr_int(c, n, "storage_order", 0, &storage)) return false;
  if (storage) return oi_unsupported(c, "storage_order = 1");
  if (!max && !oi_attr_int(c, n, "count_include_pad", 0, &cip)) return false;
  if (!max && oi_attr(n, "dilations")) {
    const int64_t *d;
    size_t nd;
    if (!oi_attr_ints(c, n, "dilations", &d, &nd)) return false;
    for (size_t i = 0; i < nd; i++)
      if (d[i] != 1) return oi_unsupported(c, "AveragePool with dilations != 1");
  }
  oi_window w;
  if (!oi_window_attrs(c, n, xt, NULL, true, &w)) return false;
  double lf;
  int64_t li;
  if (max) oi_elem_lowest(xt->elem, x->dtype, &lf, &li);
  else lf = 0, li = 0;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  for (uint32_t i = 0; i < s; i++) lo[2 + i] = w.lo[i], hi[2 + i] = w.hi[i];
  xv = oi_pad(c, xv, lo, hi, lf, li);
  int64_t os[OI_MAX_RANK];
  os[0] = xt->shape[0], os[1] = xt->shape[1];
  for (uint32_t i = 0; i < s; i++) os[2 + i] = w.out[i];
  if (!oi_dims_ok(c, s + 2, os, "pooled output")) return false;
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
  pool_user pu = {max, kiln_type_is_float(xt->elem)};
  kiln_op *g = oi_generic(c, 2, ins, 1, &init, maps, loops, red, pool_body, &pu);
  if (!g) return false;
  kiln_value *r = kiln_op_result(g, 0);
  if (!max) {
    /* per-position count of window elements that are counted */
    int64_t total = 1;
    for (uint32_t i = 0; i < s; i++) total *= w.out[i];
    if (total > 64 * OI_FOLD_MAX) return oi_unsupported(c, "average pool over more than %d positions", 64 * OI_FOLD_MAX);
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
    if (!r) return false;
  }
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

/* RoiAlign (the -16 form; RoiAlign-10 converts as output_half_pixel): average pooling of bilinear samples of X over each
 * region of interest, coordinate_transformation_mode half_pixel or
 * output_half_pixel, a fixed sampling_ratio.
 *
 * Takes: float X (N, C, H, W), rois (R, 4) of X's type, int64
 * batch_indices (R), any of them run-time values; sampling_ratio 0 (a
 * grid of ceil(roi size / output size) samples per bin, per ROI) needs
 * constant rois ("dynamic" otherwise: the sample count would depend on
 * run-time data); mode avg or max. Guarantees: one linalg.generic over
 * (R, C, out_h, out_w) with two reduction loops over the sampling grid
 * (the largest ROI's with sampling_ratio 0, each ROI masking its own);
 * the body computes each sample point from the ROI and adds its bilinear
 * value divided by the sample count (avg) or keeps the largest weighted
 * corner of any sample (max, as ONNX Runtime and ONNX's reference define
 * it; a point outside X counts 0; a ROI without samples gives 0), with
 * ONNX's (and ONNX Runtime's)
 * edge rules: a point more than one pixel outside X counts 0, coordinates
 * below 0 clamp to 0, points on the last row/column read it. A batch
 * index outside [0, N) reads image 0 clamped (the model is invalid). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

typedef struct {
  kiln_value *x, *rois, *bidx;
  double scale, offset;
  bool legacy; /* output_half_pixel: ROI sizes at least 1 */
  bool max;
  int64_t oh, ow, gh, gw;
  kiln_value *grid; /* per-ROI sample grid [R, 2] (sampling_ratio 0), or NULL */
} ra_user;

static kiln_value *fc(kiln_builder *b, const kiln_type *et, double v) { return oi_scalar(b, et, v, 0); }
static kiln_value *addf(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_ADDF, x, y); }
static kiln_value *subf(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_SUBF, x, y); }
static kiln_value *mulf(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_MULF, x, y); }

static kiln_value *index_of_float(kiln_builder *b, kiln_value *f) {
  const kiln_type *i64 = kiln_type_int(b->ctx, 64), *it = kiln_type_index(b->ctx);
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_ARITH_FPTOSI, 1, &f, 1, &i64, NULL), 0);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &it, NULL), 0);
}

/* One coordinate of a sample: its low/high pixel and the weight of high;
 * *out is true when it lies more than a pixel outside [0, size]. */
static void edge(kiln_builder *b, kiln_value *p, int64_t size, kiln_value **lo, kiln_value **hi, kiln_value **l,
                 kiln_value **out) {
  const kiln_type *et = p->type;
  kiln_value *zero = fc(b, et, 0), *last = fc(b, et, (double)(size - 1));
  *out = oi_op2(b, KILN_OP_ARITH_ORI, oi_cmpf(b, OI_F_OLT, p, fc(b, et, -1)),
                oi_cmpf(b, OI_F_OGT, p, fc(b, et, (double)size)));
  p = oi_select(b, oi_cmpf(b, OI_F_OLE, p, zero), zero, p);
  kiln_value *low = oi_op1(b, KILN_OP_MATH_FLOOR, p);
  kiln_value *at_end = oi_cmpf(b, OI_F_OGE, low, last);
  *lo = oi_select(b, at_end, last, low);
  *hi = oi_select(b, at_end, last, addf(b, low, fc(b, et, 1)));
  *l = oi_select(b, at_end, zero, subf(b, p, low));
}

static bool ra_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  ra_user *r = u;
  const kiln_type *xt = r->x->type, *et = xt->elem, *it = kiln_type_index(b->ctx);
  kiln_value *ri = oi_loop_index(b, 0), *ch = oi_loop_index(b, 1), *ph = oi_loop_index(b, 2), *pw = oi_loop_index(b, 3);
  kiln_value *iy = oi_loop_index(b, 4), *ix = oi_loop_index(b, 5);
  kiln_value *box[4];
  for (int k = 0; k < 4; k++) {
    kiln_value *ops[3] = {r->rois, ri, oi_scalar(b, it, 0, k)};
    box[k] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 3, ops, 1, &et, NULL), 0);
    box[k] = subf(b, mulf(b, box[k], fc(b, et, r->scale)), fc(b, et, r->offset));
  }
  kiln_value *ops[2] = {r->bidx, ri};
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *bi = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 2, ops, 1, &i64, NULL), 0);
  kiln_value *bad = oi_op2(b, KILN_OP_ARITH_ORI, oi_cmpi(b, OI_SLT, bi, oi_scalar(b, i64, 0, 0)),
                           oi_cmpi(b, OI_SGE, bi, oi_scalar(b, i64, 0, xt->shape[0])));
  bi = oi_select(b, bad, oi_scalar(b, i64, 0, 0), bi);
  bi = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &bi, 1, &it, NULL), 0);
  /* sample point: start + bin * p + (i + 0.5) * bin / grid, per axis */
  kiln_value *pt[2], *pos[2] = {ph, pw}, *gi[2] = {iy, ix}, *gn[2], *inside = NULL;
  int64_t outn[2] = {r->oh, r->ow};
  for (int k = 0; k < 2; k++) { /* this ROI's grid: fixed, or read from the table */
    gn[k] = fc(b, et, (double)(k ? r->gw : r->gh));
    if (!r->grid) continue;
    kiln_value *gops[3] = {r->grid, ri, oi_scalar(b, it, 0, k)};
    kiln_value *g = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 3, gops, 1, &i64, NULL), 0);
    kiln_value *gix = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &g, 1, &it, NULL), 0);
    kiln_value *in = oi_cmpi(b, OI_SLT, gi[k], gix);
    inside = inside ? oi_op2(b, KILN_OP_ARITH_ANDI, inside, in) : in;
    gn[k] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &g, 1, &et, NULL), 0);
  }
  for (int k = 0; k < 2; k++) { /* k 0: y from box[1], box[3]; k 1: x from box[0], box[2] */
    kiln_value *start = box[1 - k], *len = subf(b, box[3 - k], start);
    if (r->legacy) len = oi_select(b, oi_cmpf(b, OI_F_OLT, len, fc(b, et, 1)), fc(b, et, 1), len);
    kiln_value *bin = oi_op2(b, KILN_OP_ARITH_DIVF, len, fc(b, et, (double)outn[k]));
    const kiln_type *i64t = i64;
    kiln_value *pf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &pos[k], 1, &i64t, NULL), 0);
    pf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &pf, 1, &et, NULL), 0);
    kiln_value *gf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &gi[k], 1, &i64t, NULL), 0);
    gf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &gf, 1, &et, NULL), 0);
    kiln_value *frac = oi_op2(b, KILN_OP_ARITH_DIVF, addf(b, gf, fc(b, et, 0.5)), gn[k]);
    pt[k] = addf(b, start, addf(b, mulf(b, bin, pf), mulf(b, frac, bin)));
  }
  kiln_value *ylo, *yhi, *ly, *yout, *xlo, *xhi, *lx, *xout;
  edge(b, pt[0], xt->shape[2], &ylo, &yhi, &ly, &yout);
  edge(b, pt[1], xt->shape[3], &xlo, &xhi, &lx, &xout);
  kiln_value *one = fc(b, et, 1), *hy = subf(b, one, ly), *hx = subf(b, one, lx);
  kiln_value *ys[2] = {index_of_float(b, ylo), index_of_float(b, yhi)};
  kiln_value *xs[2] = {index_of_float(b, xlo), index_of_float(b, xhi)};
  kiln_value *wy[2] = {hy, ly}, *wx[2] = {hx, lx}, *v = NULL;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      kiln_value *xo[5] = {r->x, bi, ch, ys[j], xs[i]};
      kiln_value *e = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 5, xo, 1, &et, NULL), 0);
      e = mulf(b, e, mulf(b, wy[j], wx[i]));
      /* max mode takes the largest weighted corner, as ONNX Runtime and
       * ONNX's reference do, not the largest interpolated value */
      v = v ? (r->max ? oi_op2(b, KILN_OP_ARITH_MAXIMUMF, v, e) : addf(b, v, e)) : e;
    }
  v = oi_select(b, oi_op2(b, KILN_OP_ARITH_ORI, yout, xout), fc(b, et, 0), v);
  if (r->max) {
    kiln_value *m = oi_op2(b, KILN_OP_ARITH_MAXIMUMF, a[1], v);
    y[0] = inside ? oi_select(b, inside, m, a[1]) : m;
    return true;
  }
  v = oi_op2(b, KILN_OP_ARITH_DIVF, v, oi_op2(b, KILN_OP_ARITH_MAXIMUMF, mulf(b, gn[0], gn[1]), fc(b, et, 1)));
  if (inside) v = oi_select(b, inside, v, fc(b, et, 0));
  y[0] = addf(b, a[1], v);
  return true;
}

static bool zero_empty_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  kiln_value *none = oi_cmpi(b, OI_NE, a[0], oi_scalar(b, a[0]->type, 0, 0));
  y[0] = oi_select(b, none, oi_scalar(b, a[1]->type, 0, 0), a[1]);
  return true;
}

/* sampling_ratio 0: ceil(roi size / output size) samples per bin and
 * axis, per ROI, from constant rois (the body's ROI arithmetic, in
 * double). */
static bool adaptive_grid(oi_ctx *c, oi_val *rv, ra_user *r, int64_t **grid, int64_t *gmax) {
  double *roi;
  int64_t cnt;
  if (!oi_const(c, rv))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "sampling_ratio 0 with run-time rois: each ROI's sample count would "
                                             "be decided at run time (dynamic)");
  if (!oi_const_floats(c, rv, "input 1 (rois)", &roi, &cnt)) return false;
  int64_t R = cnt / 4;
  int64_t *g = kiln_alloc(c->ctx, (size_t)(2 * R + 1) * sizeof *g);
  gmax[0] = gmax[1] = 1;
  for (int64_t i = 0; i < R; i++)
    for (int k = 0; k < 2; k++) {
      double lo = roi[4 * i + 1 - k] * r->scale - r->offset, hi = roi[4 * i + 3 - k] * r->scale - r->offset;
      double len = hi - lo;
      if (r->legacy && len < 1) len = 1;
      double bins = ceil(len / (double)(k ? r->ow : r->oh));
      if (bins > 4096) return oi_unsupported(c, "ROI %lld needs %g samples per bin (at most 4096)", (long long)i, bins);
      int64_t n = bins < 0 ? 0 : (int64_t)bins; /* an empty ROI samples nothing */
      g[2 * i + k] = n;
      if (n > gmax[k]) gmax[k] = n;
    }
  *grid = g;
  return true;
}

bool oi_import_roialign(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"coordinate_transformation_mode", "mode", "output_height", "output_width",
                                      "sampling_ratio", "spatial_scale", NULL};
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *rv = x ? oi_in(c, n, 1) : NULL, *bv = rv ? oi_in(c, n, 2) : NULL;
  if (!bv || !oi_check_type(c, x, OI_T_FLOAT, "input 0 (X)")) return false;
  if (rv->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "rois must have X's element type");
  if (bv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "batch_indices must be int64, not %s", oi_dtype_name(bv->dtype));
  const char *ctm, *mode;
  int64_t oh, ow, sr;
  double scale;
  if (!oi_attr_string(c, n, "coordinate_transformation_mode", "half_pixel", &ctm) ||
      !oi_attr_string(c, n, "mode", "avg", &mode) || !oi_attr_int(c, n, "output_height", 1, &oh) ||
      !oi_attr_int(c, n, "output_width", 1, &ow) || !oi_attr_int(c, n, "sampling_ratio", 0, &sr) ||
      !oi_attr_float(c, n, "spatial_scale", 1.0, &scale))
    return false;
  ra_user r = {.scale = scale, .oh = oh, .ow = ow, .gh = sr, .gw = sr};
  if (strcmp(ctm, "half_pixel") == 0) r.offset = 0.5;
  else if (strcmp(ctm, "output_half_pixel") == 0) r.legacy = true;
  else return oi_invalid(c, "coordinate_transformation_mode '%s'", ctm);
  r.max = strcmp(mode, "max") == 0;
  if (!r.max && strcmp(mode, "avg") != 0) return oi_invalid(c, "mode '%s' (avg or max)", mode);
  if ((sr != 0 && !oi_size_ok(c, sr, 1, "sampling_ratio")) || !oi_size_ok(c, oh, 1, "output_height") ||
      !oi_size_ok(c, ow, 1, "output_width"))
    return false;
  int64_t *grid = NULL, gmax[2] = {sr, sr};
  if (sr == 0 && !adaptive_grid(c, rv, &r, &grid, gmax)) return false;
  r.gh = gmax[0], r.gw = gmax[1];
  const kiln_type *xt = x->type, *rt = rv->type, *bt = bv->type;
  if (xt->rank != 4) return oi_invalid(c, "X must have rank 4");
  if (rt->rank != 2 || rt->shape[1] != 4 || bt->rank != 1 || bt->shape[0] != rt->shape[0])
    return oi_invalid(c, "rois must be [R, 4] and batch_indices [R]");
  int64_t shape[4] = {rt->shape[0], xt->shape[1], oh, ow}, gshape[2] = {r.gh, r.gw};
  if (!oi_dims_ok(c, 4, shape, "result")) return false;
  const kiln_type *ot = oi_tensor_type(c, 4, shape, x->dtype);
  double lf = 0;
  int64_t li;
  if (r.max) oi_elem_lowest(xt->elem, x->dtype, &lf, &li);
  kiln_value *init = oi_filled(c, ot, lf, 0);
  if (oi_numel(ot) == 0 || oi_numel(xt) == 0) {
    oi_set_out(c, n, 0, init, x->dtype);
    return true;
  }
  r.x = oi_ir(c, x);
  r.rois = oi_ir(c, rv);
  r.bidx = oi_ir(c, bv);
  if (!r.x || !r.rois || !r.bidx) return false;
  if (grid) {
    int64_t gs[2] = {rt->shape[0], 2};
    r.grid = kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 2, gs, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), grid));
  }
  /* a splat i8 [grid, grid] input sizes the two reduction loops */
  const int8_t zero = 0;
  kiln_value *g = kiln_build_constant(
      &c->b, kiln_attr_dense(c->ctx, oi_tensor_type(c, 2, gshape, ONNX__TENSOR_PROTO__DATA_TYPE__INT8), true, &zero, 1));
  int64_t gd[2] = {4, 5}, od[4] = {0, 1, 2, 3};
  const kiln_affine_map *maps[2] = {oi_map_dims(c, 6, 2, gd), oi_map_dims(c, 6, 4, od)};
  bool red[6] = {false, false, false, false, true, true};
  kiln_op *op = oi_generic(c, 1, &g, 1, &init, maps, 6, red, ra_body, &r);
  if (!op) return false;
  kiln_value *res = kiln_op_result(op, 0);
  /* max over no samples is 0, not the identity the reduction starts from */
  bool empty = false;
  for (int64_t i = 0; grid && r.max && i < 2 * rt->shape[0]; i++) empty = empty || grid[i] == 0;
  if (empty) {
    int64_t R = rt->shape[0], *none = kiln_alloc(c->ctx, (size_t)(R + 1) * sizeof *none), rd = 0;
    for (int64_t i = 0; i < R; i++) none[i] = grid[2 * i] == 0 || grid[2 * i + 1] == 0;
    kiln_value *ins[2] = {kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 1, &R, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), none)), res};
    const kiln_affine_map *em[3] = {oi_map_dims(c, 4, 1, &rd), kiln_affine_map_identity(c->ctx, 4),
                                    kiln_affine_map_identity(c->ctx, 4)};
    kiln_value *out = oi_empty(c, ot);
    kiln_op *sel = oi_generic(c, 2, ins, 1, &out, em, 4, NULL, zero_empty_body, NULL);
    if (!sel) return false;
    res = kiln_op_result(sel, 0);
  }
  oi_set_out(c, n, 0, res, x->dtype);
  return true;
}

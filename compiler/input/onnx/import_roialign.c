/* RoiAlign (the -16 form; RoiAlign-10 converts as output_half_pixel): average pooling of bilinear samples of X over each
 * region of interest, coordinate_transformation_mode half_pixel or
 * output_half_pixel, a fixed sampling_ratio.
 *
 * Takes: float X (N, C, H, W), rois (R, 4) of X's type, int64
 * batch_indices (R), any of them run-time values; sampling_ratio > 0
 * (0 asks for a sample count that depends on each ROI's size at run time:
 * refused), mode avg (max refused). Guarantees: one linalg.generic over
 * (R, C, out_h, out_w) with two reduction loops over the sampling grid;
 * the body computes each sample point from the ROI and adds its bilinear
 * value divided by the sample count, with ONNX's (and ONNX Runtime's)
 * edge rules: a point more than one pixel outside X counts 0, coordinates
 * below 0 clamp to 0, points on the last row/column read it. A batch
 * index outside [0, N) reads image 0 clamped (the model is invalid). */
#include <string.h>

#include "import_internal.h"

typedef struct {
  kiln_value *x, *rois, *bidx;
  double scale, offset;
  bool legacy; /* output_half_pixel: ROI sizes at least 1 */
  int64_t oh, ow, gh, gw;
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
  kiln_value *pt[2], *pos[2] = {ph, pw}, *gi[2] = {iy, ix};
  int64_t outn[2] = {r->oh, r->ow}, grid[2] = {r->gh, r->gw};
  for (int k = 0; k < 2; k++) { /* k 0: y from box[1], box[3]; k 1: x from box[0], box[2] */
    kiln_value *start = box[1 - k], *len = subf(b, box[3 - k], start);
    if (r->legacy) len = oi_select(b, oi_cmpf(b, OI_F_OLT, len, fc(b, et, 1)), fc(b, et, 1), len);
    kiln_value *bin = oi_op2(b, KILN_OP_ARITH_DIVF, len, fc(b, et, (double)outn[k]));
    const kiln_type *i64t = i64;
    kiln_value *pf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &pos[k], 1, &i64t, NULL), 0);
    pf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &pf, 1, &et, NULL), 0);
    kiln_value *gf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &gi[k], 1, &i64t, NULL), 0);
    gf = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &gf, 1, &et, NULL), 0);
    kiln_value *frac = oi_op2(b, KILN_OP_ARITH_DIVF, addf(b, gf, fc(b, et, 0.5)), fc(b, et, (double)grid[k]));
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
      v = v ? addf(b, v, e) : e;
    }
  v = oi_select(b, oi_op2(b, KILN_OP_ARITH_ORI, yout, xout), fc(b, et, 0), v);
  v = oi_op2(b, KILN_OP_ARITH_DIVF, v, fc(b, et, (double)(r->gh * r->gw)));
  y[0] = addf(b, a[1], v);
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
  if (strcmp(mode, "avg") != 0) return oi_unsupported(c, "mode '%s' (avg only)", mode);
  if (sr == 0) return oi_unsupported(c, "sampling_ratio 0 (a sample count from each ROI's size at run time)");
  if (!oi_size_ok(c, sr, 1, "sampling_ratio") || !oi_size_ok(c, oh, 1, "output_height") ||
      !oi_size_ok(c, ow, 1, "output_width"))
    return false;
  const kiln_type *xt = x->type, *rt = rv->type, *bt = bv->type;
  if (xt->rank != 4) return oi_invalid(c, "X must have rank 4");
  if (rt->rank != 2 || rt->shape[1] != 4 || bt->rank != 1 || bt->shape[0] != rt->shape[0])
    return oi_invalid(c, "rois must be [R, 4] and batch_indices [R]");
  int64_t shape[4] = {rt->shape[0], xt->shape[1], oh, ow}, gshape[2] = {sr, sr};
  if (!oi_dims_ok(c, 4, shape, "result")) return false;
  const kiln_type *ot = oi_tensor_type(c, 4, shape, x->dtype);
  kiln_value *init = oi_filled(c, ot, 0, 0);
  if (oi_numel(ot) == 0 || oi_numel(xt) == 0) {
    oi_set_out(c, n, 0, init, x->dtype);
    return true;
  }
  r.x = oi_ir(c, x);
  r.rois = oi_ir(c, rv);
  r.bidx = oi_ir(c, bv);
  if (!r.x || !r.rois || !r.bidx) return false;
  /* a splat i8 [grid, grid] input sizes the two reduction loops */
  const int8_t zero = 0;
  kiln_value *g = kiln_build_constant(
      &c->b, kiln_attr_dense(c->ctx, oi_tensor_type(c, 2, gshape, ONNX__TENSOR_PROTO__DATA_TYPE__INT8), true, &zero, 1));
  int64_t gd[2] = {4, 5}, od[4] = {0, 1, 2, 3};
  const kiln_affine_map *maps[2] = {oi_map_dims(c, 6, 2, gd), oi_map_dims(c, 6, 4, od)};
  bool red[6] = {false, false, false, false, true, true};
  kiln_op *op = oi_generic(c, 1, &g, 1, &init, maps, 6, red, ra_body, &r);
  if (!op) return false;
  oi_set_out(c, n, 0, kiln_op_result(op, 0), x->dtype);
  return true;
}

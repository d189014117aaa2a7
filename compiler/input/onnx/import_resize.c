/* Resize (the -13 form; Resize-10/11 and Upsample convert by the table):
 * modes nearest, linear and cubic with constant scales or sizes;
 * coordinate transformations half_pixel, pytorch_half_pixel,
 * align_corners, asymmetric and tf_crop_and_resize (with a constant roi;
 * positions outside X get extrapolation_value); the four nearest
 * rounding modes; cubic_coeff_a and exclude_outside.
 *
 * Takes: X and constant scales/sizes (and roi for tf_crop_and_resize),
 * or sizes or f32 scales read from graph-input data (then roi may be a
 * run-time tensor).
 * Guarantees: with constant sizes or scales, the source
 * coordinate of every output position is computed here, once per
 * dimension, into small constant tables (nearest: index; linear: the two
 * neighbours clamped to the edge and the weight; cubic: the four taps
 * floor-1..floor+2 clamped to the edge and their weights, which
 * exclude_outside zeroes outside X and renormalizes — for linear that
 * changes nothing, the clamped taps being the edge); one linalg.generic
 * over the output takes the tables as 1-D inputs and reads X with
 * tensor.extract (2^k or 4^k taps for k resized dims); with sizes from
 * data, one pass per dim computing its coordinates in the kernel (below). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

#define OI_RESIZE_MAX_DIMS 4

typedef struct {
  kiln_value *x;
  bool linear, cubic, crop;
  uint32_t rank, nres, ntab;       /* ntab: tables before the crop masks */
  int32_t dim[OI_RESIZE_MAX_DIMS]; /* resized dims, in order */
  double extrap;
} resize_user;

/* tf_crop_and_resize: every resized dim's position inside X, or the
 * extrapolation value */
static kiln_value *crop_select(kiln_builder *b, const resize_user *r, kiln_value *const *a, kiln_value *v) {
  if (!r->crop) return v;
  kiln_value *in = NULL;
  for (uint32_t k = 0; k < r->nres; k++) {
    kiln_value *ok = oi_cmpi(b, OI_NE, a[r->ntab + k], oi_scalar(b, a[r->ntab + k]->type, 0, 0));
    in = in ? oi_op2(b, KILN_OP_ARITH_ANDI, in, ok) : ok;
  }
  return in ? oi_select(b, in, v, oi_scalar(b, v->type, r->extrap, 0)) : v;
}

static kiln_value *to_index(kiln_builder *b, kiln_value *v) {
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &it, NULL), 0);
}

/* Block args: per resized dim either [idx] (nearest) or [lo, hi, w]. */
static bool resize_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  resize_user *r = u;
  const kiln_type *et = r->x->type->elem;
  kiln_value *base[OI_MAX_RANK];
  for (uint32_t d = 0; d < r->rank; d++) base[d] = NULL;
  for (uint32_t d = 0; d < r->rank; d++) {
    bool resized = false;
    for (uint32_t k = 0; k < r->nres; k++) resized = resized || r->dim[k] == (int32_t)d;
    if (!resized) base[d] = oi_loop_index(b, d);
  }
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = r->x;
  if (!r->linear && !r->cubic) {
    for (uint32_t k = 0; k < r->nres; k++) base[r->dim[k]] = to_index(b, a[k]);
    for (uint32_t d = 0; d < r->rank; d++) ops[1 + d] = base[d];
    y[0] = crop_select(b, r, a, kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, r->rank + 1, ops, 1, &et, NULL), 0));
    return true;
  }
  if (r->cubic) { /* per dim: 4 index tables, then 4 weight tables */
    kiln_value *ix[OI_RESIZE_MAX_DIMS][4];
    for (uint32_t k = 0; k < r->nres; k++)
      for (uint32_t t = 0; t < 4; t++) ix[k][t] = to_index(b, a[8 * k + t]);
    kiln_value *acc = NULL;
    for (uint32_t corner = 0; corner < (1u << (2 * r->nres)); corner++) {
      kiln_value *wt = NULL;
      for (uint32_t k = 0; k < r->nres; k++) {
        uint32_t t = (corner >> (2 * k)) & 3;
        base[r->dim[k]] = ix[k][t];
        wt = wt ? oi_op2(b, KILN_OP_ARITH_MULF, wt, a[8 * k + 4 + t]) : a[8 * k + 4 + t];
      }
      for (uint32_t d = 0; d < r->rank; d++) ops[1 + d] = base[d];
      kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, r->rank + 1, ops, 1, &et, NULL), 0);
      kiln_value *tv = oi_op2(b, KILN_OP_ARITH_MULF, v, wt);
      acc = acc ? oi_op2(b, KILN_OP_ARITH_ADDF, acc, tv) : tv;
    }
    y[0] = crop_select(b, r, a, acc);
    return true;
  }
  kiln_value *lo[OI_RESIZE_MAX_DIMS], *hi[OI_RESIZE_MAX_DIMS], *w[OI_RESIZE_MAX_DIMS], *w1[OI_RESIZE_MAX_DIMS];
  kiln_value *one = oi_scalar(b, et, 1, 0);
  for (uint32_t k = 0; k < r->nres; k++) {
    lo[k] = to_index(b, a[3 * k]);
    hi[k] = to_index(b, a[3 * k + 1]);
    w[k] = a[3 * k + 2];
    w1[k] = oi_op2(b, KILN_OP_ARITH_SUBF, one, w[k]);
  }
  kiln_value *acc = NULL;
  for (uint32_t corner = 0; corner < (1u << r->nres); corner++) {
    kiln_value *wt = NULL;
    for (uint32_t k = 0; k < r->nres; k++) {
      bool up = (corner >> k) & 1;
      base[r->dim[k]] = up ? hi[k] : lo[k];
      kiln_value *f = up ? w[k] : w1[k];
      wt = wt ? oi_op2(b, KILN_OP_ARITH_MULF, wt, f) : f;
    }
    for (uint32_t d = 0; d < r->rank; d++) ops[1 + d] = base[d];
    kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, r->rank + 1, ops, 1, &et, NULL), 0);
    kiln_value *t = oi_op2(b, KILN_OP_ARITH_MULF, v, wt);
    acc = acc ? oi_op2(b, KILN_OP_ARITH_ADDF, acc, t) : t;
  }
  y[0] = crop_select(b, r, a, acc);
  return true;
}

enum { CT_HALF, CT_PYTORCH, CT_ALIGN, CT_ASYM, CT_CROP };
/* NM_DIRECTION: Resize-10 and Upsample with scales from data round
 * down where a dim grows and up where it shrinks, decided per dim by the
 * scale the kernel reads (as ONNX Runtime's rule for those versions). */
enum { NM_FLOOR_TIE, NM_CEIL_TIE, NM_FLOOR, NM_CEIL, NM_DIRECTION };

/* The source coordinate of output position x. `len` is the resized
 * length before flooring (in * scale), which ONNX's reference uses for
 * align_corners and pytorch_half_pixel. */
static double source_coord(int ct, double x, double scale, int64_t in, double len, double start, double end) {
  switch (ct) {
  case CT_CROP: /* roi [start, end] of the input, as fractions */
    return len > 1 ? start * (double)(in - 1) + x * (end - start) * (double)(in - 1) / (len - 1)
                   : 0.5 * (start + end) * (double)(in - 1);
  case CT_HALF: return (x + 0.5) / scale - 0.5;
  case CT_PYTORCH: return len > 1 ? (x + 0.5) / scale - 0.5 : 0;
  case CT_ALIGN: return len == 1 ? 0 : x * (double)(in - 1) / (len - 1);
  default: return x / scale;
  }
}

static int64_t clampi(int64_t v, int64_t in) { return v < 0 ? 0 : v >= in ? in - 1 : v; }

/* ---- sizes or scales read from data -------------------------------------
 * The resized dims are not known here, so every dim is resized, one pass
 * per dim (linear and cubic weights are products over dims, so the passes
 * compose to the same result up to rounding). A pass is a generic over
 * its output whose body computes, from the output index, the source
 * coordinate as source_coord does (in f64, scale = size / in), its taps
 * and weights as the tables above hold them, and reads the pass's input
 * (every read clamped into it; NaN coordinates read element 0). The
 * output length is a host value: sizes[d] read from data, or floor(in *
 * scale) from the scale's bits (oi_f32_scaled); the kernel reads the scale
 * itself from the scales tensor, and roi from its tensor. */
typedef struct {
  kiln_value *x, *o, *scales, *roi; /* pass input; host length; run-time tensors or NULL */
  uint32_t d, rank;
  int ct, nmode;
  bool linear, cubic, excl;
  double A, extrap;
} rp_user;

static kiln_value *f64c(kiln_builder *b, double v) { return oi_scalar(b, kiln_type_f64(b->ctx), v, 0); }

static kiln_value *cast_to(kiln_builder *b, kiln_op_kind k, kiln_value *x, const kiln_type *t) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

/* Element `i` of a 1-D run-time float tensor, as f64. */
static kiln_value *elem_f64(kiln_builder *b, kiln_value *t, uint32_t i) {
  kiln_value *ops[2] = {t, oi_scalar(b, kiln_type_index(b->ctx), 0, i)};
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 2, ops, 1, &t->type->elem, NULL), 0);
  const kiln_type *f64 = kiln_type_f64(b->ctx);
  return v->type == f64 ? v : cast_to(b, v->type->width < 64 ? KILN_OP_ARITH_EXTF : KILN_OP_ARITH_TRUNCF, v, f64);
}

/* A float position clamped into [0, in-1] (NaN -> 0), as an index. */
static kiln_value *tap(kiln_builder *b, kiln_value *v, int64_t in) {
  kiln_value *zero = f64c(b, 0), *last = f64c(b, (double)(in - 1));
  v = oi_select(b, oi_cmpf(b, OI_F_OGE, v, zero), v, zero);
  v = oi_select(b, oi_cmpf(b, OI_F_OLE, v, last), v, last);
  return cast_to(b, KILN_OP_ARITH_INDEX_CAST, cast_to(b, KILN_OP_ARITH_FPTOSI, v, kiln_type_int(b->ctx, 64)),
                 kiln_type_index(b->ctx));
}

static kiln_value *read_at(kiln_builder *b, const rp_user *p, kiln_value *idx) {
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = p->x;
  for (uint32_t k = 0; k < p->rank; k++) ops[1 + k] = k == p->d ? idx : oi_loop_index(b, k);
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, p->rank + 1, ops, 1, &p->x->type->elem, NULL), 0);
}

static bool rpass_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  rp_user *p = u;
  const kiln_type *f64 = kiln_type_f64(b->ctx), *i64 = kiln_type_int(b->ctx, 64), *et = p->x->type->elem;
  int64_t in = p->x->type->shape[p->d];
  kiln_value *i = cast_to(b, KILN_OP_ARITH_SITOFP, oi_loop_index_i64(b, p->d), f64);
  kiln_value *of = cast_to(b, KILN_OP_ARITH_SITOFP, cast_to(b, KILN_OP_ARITH_INDEX_CAST, p->o, i64), f64);
  kiln_value *half = f64c(b, 0.5), *one = f64c(b, 1), *zero = f64c(b, 0);
  kiln_value *scale = p->scales ? elem_f64(b, p->scales, p->d) : oi_op2(b, KILN_OP_ARITH_DIVF, of, f64c(b, in ? (double)in : 1));
  kiln_value *len = p->scales ? oi_op2(b, KILN_OP_ARITH_MULF, f64c(b, (double)in), scale) : of;
  kiln_value *in1 = f64c(b, (double)(in - 1)), *s;
  kiln_value *hp = oi_op2(b, KILN_OP_ARITH_SUBF, oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_ADDF, i, half), scale), half);
  kiln_value *more = oi_cmpf(b, OI_F_OGT, len, one), *lm1 = oi_op2(b, KILN_OP_ARITH_SUBF, len, one);
  switch (p->ct) {
  case CT_CROP: {
    kiln_value *st = elem_f64(b, p->roi, p->d), *en = elem_f64(b, p->roi, p->rank + p->d);
    kiln_value *span = oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_SUBF, en, st), in1);
    kiln_value *many = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, st, in1),
                              oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_MULF, i, span), lm1));
    kiln_value *mid = oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_MULF, half, oi_op2(b, KILN_OP_ARITH_ADDF, st, en)), in1);
    s = oi_select(b, more, many, mid);
    break;
  }
  case CT_HALF: s = hp; break;
  case CT_PYTORCH: s = oi_select(b, more, hp, zero); break;
  case CT_ALIGN:
    s = oi_select(b, oi_cmpf(b, OI_F_OEQ, len, one), zero, oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_MULF, i, in1), lm1));
    break;
  default: s = oi_op2(b, KILN_OP_ARITH_DIVF, i, scale); break;
  }
  kiln_value *f = oi_op1(b, KILN_OP_MATH_FLOOR, s), *v;
  if (!p->linear && !p->cubic) {
    kiln_value *r = f;
    if (p->nmode == NM_CEIL) r = oi_op1(b, KILN_OP_MATH_CEIL, s);
    else if (p->nmode == NM_DIRECTION) {
      kiln_value *up = oi_cmpf(b, OI_F_OGE, scale, one), *cl = oi_op1(b, KILN_OP_MATH_CEIL, s);
      r = oi_select(b, up, f, cl);
    } else if (p->nmode != NM_FLOOR) {
      kiln_value *tie = oi_cmpf(b, OI_F_OEQ, oi_op2(b, KILN_OP_ARITH_SUBF, s, f), half);
      r = oi_select(b, tie, p->nmode == NM_FLOOR_TIE ? f : oi_op2(b, KILN_OP_ARITH_ADDF, f, one), oi_op1(b, KILN_OP_MATH_ROUND, s));
    }
    v = read_at(b, p, tap(b, r, in));
  } else if (p->linear) {
    kiln_value *lo = tap(b, f, in), *hi = tap(b, oi_op2(b, KILN_OP_ARITH_ADDF, f, one), in);
    kiln_value *w = oi_op2(b, KILN_OP_ARITH_SUBF, s, f);
    w = cast_to(b, KILN_OP_ARITH_TRUNCF, oi_select(b, oi_cmpi(b, OI_EQ, lo, hi), zero, w), et);
    kiln_value *w1 = oi_op2(b, KILN_OP_ARITH_SUBF, oi_scalar(b, et, 1, 0), w);
    v = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, read_at(b, p, lo), w1),
               oi_op2(b, KILN_OP_ARITH_MULF, read_at(b, p, hi), w));
  } else {
    kiln_value *t = oi_op2(b, KILN_OP_ARITH_SUBF, s, f), *wk[4], *at[4], *sum = zero, *A = f64c(b, p->A);
    kiln_value *dist[4] = {oi_op2(b, KILN_OP_ARITH_ADDF, t, one), t, oi_op2(b, KILN_OP_ARITH_SUBF, one, t),
                           oi_op2(b, KILN_OP_ARITH_SUBF, f64c(b, 2), t)};
    for (int k = 0; k < 4; k++) {
      kiln_value *d = dist[k];
      if (k == 1 || k == 2) /* ((A + 2) d - (A + 3)) d^2 + 1 */
        wk[k] = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_SUBF,
                      oi_op2(b, KILN_OP_ARITH_MULF, f64c(b, p->A + 2), d), f64c(b, p->A + 3)),
                      oi_op2(b, KILN_OP_ARITH_MULF, d, d)), one);
      else /* ((A d - 5A) d + 8A) d - 4A */
        wk[k] = oi_op2(b, KILN_OP_ARITH_SUBF, oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_ADDF,
                      oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_SUBF, oi_op2(b, KILN_OP_ARITH_MULF, A, d),
                                                          f64c(b, 5 * p->A)), d), f64c(b, 8 * p->A)), d), f64c(b, 4 * p->A));
      at[k] = oi_op2(b, KILN_OP_ARITH_ADDF, f, f64c(b, k - 1));
      if (p->excl) {
        kiln_value *ok = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OGE, at[k], zero), oi_cmpf(b, OI_F_OLE, at[k], in1));
        wk[k] = oi_select(b, ok, wk[k], zero);
      }
      sum = oi_op2(b, KILN_OP_ARITH_ADDF, sum, wk[k]);
    }
    v = NULL;
    kiln_value *nz = oi_cmpf(b, OI_F_UNE, sum, zero);
    for (int k = 0; k < 4; k++) {
      kiln_value *w = p->excl ? oi_select(b, nz, oi_op2(b, KILN_OP_ARITH_DIVF, wk[k], sum), wk[k]) : wk[k];
      kiln_value *term = oi_op2(b, KILN_OP_ARITH_MULF, read_at(b, p, tap(b, at[k], in)), cast_to(b, KILN_OP_ARITH_TRUNCF, w, et));
      v = v ? oi_op2(b, KILN_OP_ARITH_ADDF, v, term) : term;
    }
  }
  if (p->ct == CT_CROP) {
    kiln_value *inside = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OGE, s, zero), oi_cmpf(b, OI_F_OLE, s, in1));
    v = oi_select(b, inside, v, oi_scalar(b, et, p->extrap, 0));
  }
  y[0] = v;
  return true;
}

static bool resize_from_data(oi_ctx *c, oi_node *n, oi_val *x, oi_val *sv, kiln_value **sizes, oi_val *rv,
                             rp_user *p) {
  const kiln_type *xt = x->type;
  uint32_t r = xt->rank;
  if (oi_has_dyn(xt)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input 0 has run-time dims and the output size is read from data");
  if (xt->elem->width > 32 && xt->elem != kiln_type_f64(c->ctx))
    return oi_unsupported(c, "element type %s with sizes from data", oi_dtype_name(x->dtype));
  if (sv && !(p->scales = oi_ir(c, sv))) return false;
  if (p->ct == CT_CROP) {
    if (!rv) return oi_invalid(c, "tf_crop_and_resize needs roi");
    if (oi_numel(rv->type) != 2 * (int64_t)r) return oi_invalid(c, "roi has %lld entries for rank %u", (long long)oi_numel(rv->type), r);
    if (!oi_check_type(c, rv, OI_T_FLOAT, "input 1 (roi)") || !(p->roi = oi_ir(c, rv))) return false;
  }
  kiln_value *cur = oi_ir(c, x), *dims[OI_MAX_RANK];
  if (!cur) return false;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) shape[d] = xt->shape[d];
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *o = sv ? oi_f32_scaled(c, sizes[d], xt->shape[d]) : sizes[d];
    int64_t in = xt->shape[d];
    if (in == 0) oi_check_eq(c, o, oi_index(c, 0)); /* nothing to read from */
    shape[d] = KILN_DYNAMIC, dims[d] = o;
    oi_check_shape(c, r, shape, dims, xt->elem);
    kiln_value *dd[OI_MAX_RANK];
    uint32_t nd = 0;
    for (uint32_t k = 0; k <= d; k++) dd[nd++] = dims[k];
    const kiln_type *ot = kiln_type_with_shape(c->ctx, xt, r, shape);
    kiln_value *init = oi_empty_dims(c, ot, dd);
    p->x = cur, p->d = d, p->o = o, p->rank = r;
    const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
    kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, r, NULL, rpass_body, p);
    if (!g) return false;
    cur = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, cur, x->dtype);
  return true;
}

bool oi_import_resize(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                      "exclude_outside", "extrapolation_value", NULL};
  if (!oi_arity(c, n, 1, 4, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *rv = oi_opt_in(n, 1), *sv = oi_opt_in(n, 2), *zv = oi_opt_in(n, 3);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  const char *mode, *ctm, *nm;
  int64_t excl;
  if (!oi_attr_string(c, n, "mode", "nearest", &mode) ||
      !oi_attr_string(c, n, "coordinate_transformation_mode", "half_pixel", &ctm) ||
      !oi_attr_string(c, n, "nearest_mode", "round_prefer_floor", &nm) ||
      !oi_attr_int(c, n, "exclude_outside", 0, &excl))
    return false;
  bool linear = strcmp(mode, "linear") == 0, cubic = strcmp(mode, "cubic") == 0;
  if (!linear && !cubic && strcmp(mode, "nearest") != 0)
    return oi_invalid(c, "mode '%s' (nearest, linear or cubic)", mode);
  double A;
  if (!oi_attr_float(c, n, "cubic_coeff_a", -0.75, &A)) return false;
  int ct = strcmp(ctm, "half_pixel") == 0 ? CT_HALF : strcmp(ctm, "pytorch_half_pixel") == 0 ? CT_PYTORCH
         : strcmp(ctm, "align_corners") == 0 ? CT_ALIGN : strcmp(ctm, "asymmetric") == 0 ? CT_ASYM
         : strcmp(ctm, "tf_crop_and_resize") == 0 ? CT_CROP : -1;
  if (ct < 0) return oi_unsupported(c, "coordinate_transformation_mode '%s'", ctm);
  int nmode = strcmp(nm, "round_prefer_floor") == 0 ? NM_FLOOR_TIE : strcmp(nm, "round_prefer_ceil") == 0 ? NM_CEIL_TIE
            : strcmp(nm, "floor") == 0 ? NM_FLOOR : strcmp(nm, "ceil") == 0 ? NM_CEIL : -1;
  if (nmode < 0) return oi_invalid(c, "nearest_mode '%s'", nm);
  /* Resize-10 / Upsample with scales from data: their conversion left
   * nearest_mode unset (upsample_nearest) */
  bool old_form = strcmp(n->op_type, "Upsample") == 0 || c->opset < 11;
  if (old_form && !linear && !cubic && !oi_attr(n, "nearest_mode")) nmode = NM_DIRECTION;
  const kiln_type *xt = x->type;
  uint32_t r = xt->rank;
  if (sv && oi_numel(sv->type) == 0) sv = NULL; /* an empty scales tensor means "use sizes" */
  if ((sv != NULL) == (zv != NULL)) return oi_invalid(c, "exactly one of scales and sizes must be given");
  kiln_value **bits = sv && sv->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ? oi_float_bits(c, sv) : NULL;
  if ((zv && zv->sym) || bits) {
    oi_val *sz = sv ? sv : zv;
    if (oi_numel(sz->type) != r || sz->type->rank != 1)
      return oi_invalid(c, "%s has %lld entries for rank %u", sv ? "scales" : "sizes", (long long)oi_numel(sz->type), r);
    double ex;
    if (!oi_attr_float(c, n, "extrapolation_value", 0, &ex)) return false;
    rp_user p = {.ct = ct, .nmode = nmode, .linear = linear, .cubic = cubic, .excl = excl != 0, .A = A, .extrap = ex};
    return resize_from_data(c, n, x, sv, bits ? bits : zv->sym, rv, &p);
  }
  double scale[OI_MAX_RANK];
  int64_t out[OI_MAX_RANK];
  if (sv) {
    double *s;
    int64_t cnt;
    if (!oi_const_floats(c, sv, "input 2 (scales)", &s, &cnt)) return false;
    if (cnt != r) return oi_invalid(c, "scales has %lld entries for rank %u", (long long)cnt, r);
    for (uint32_t d = 0; d < r; d++) {
      if (!(s[d] > 0)) return oi_invalid(c, "scale %u is not positive", d);
      if (!((double)xt->shape[d] * s[d] <= (double)OI_DIM_MAX)) return oi_unsupported(c, "scale %u too large", d);
      scale[d] = s[d];
      out[d] = (int64_t)floor((double)xt->shape[d] * s[d]);
    }
  } else {
    int64_t *s, cnt;
    if (!oi_const_ints(c, zv, "input 3 (sizes)", &s, &cnt)) return false;
    if (cnt != r) return oi_invalid(c, "sizes has %lld entries for rank %u", (long long)cnt, r);
    for (uint32_t d = 0; d < r; d++) {
      if (s[d] < 0) return oi_invalid(c, "size %u is negative", d);
      out[d] = s[d];
      scale[d] = xt->shape[d] ? (double)s[d] / (double)xt->shape[d] : 1;
    }
  }
  if (!oi_dims_ok(c, r, out, "resized output")) return false;
  double *roi = NULL, extrap;
  if (!oi_attr_float(c, n, "extrapolation_value", 0, &extrap)) return false;
  if (ct == CT_CROP) {
    int64_t cnt;
    if (!rv) return oi_invalid(c, "tf_crop_and_resize needs roi");
    if (!oi_const_floats(c, rv, "input 1 (roi)", &roi, &cnt)) return false;
    if (cnt != 2 * (int64_t)r) return oi_invalid(c, "roi has %lld entries for rank %u", (long long)cnt, r);
  }
  for (uint32_t d = 0; d < r; d++)
    if (out[d] > 64 * OI_FOLD_MAX) return oi_unsupported(c, "resized dimension %u of %lld", d, (long long)out[d]);
  /* host tables per dimension; identity dims need none */
  resize_user ru = {.linear = linear, .cubic = cubic, .rank = r, .crop = ct == CT_CROP, .extrap = extrap};
  int64_t *inside[OI_RESIZE_MAX_DIMS];
  kiln_value *ins[9 * OI_RESIZE_MAX_DIMS];
  const kiln_affine_map *maps[9 * OI_RESIZE_MAX_DIMS + 1];
  uint32_t nin = 0;
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  for (uint32_t d = 0; d < r; d++) {
    int64_t in = xt->shape[d], o = out[d];
    if (in == 0 || o == 0) continue;
    int64_t *lo = kiln_alloc(c->ctx, (size_t)o * sizeof *lo), *hi = kiln_alloc(c->ctx, (size_t)o * sizeof *hi);
    double *w = kiln_alloc(c->ctx, (size_t)o * sizeof *w);
    int64_t *cix[4];
    double *cw[4];
    for (int t = 0; cubic && t < 4; t++) {
      cix[t] = kiln_alloc(c->ctx, (size_t)o * sizeof *cix[t]);
      cw[t] = kiln_alloc(c->ctx, (size_t)o * sizeof *cw[t]);
    }
    bool ident = o == in;
    int64_t *okv = kiln_alloc(c->ctx, (size_t)o * sizeof *okv);
    for (int64_t i = 0; i < o; i++) {
      double s = source_coord(ct, (double)i, scale[d], in, sv ? (double)in * scale[d] : (double)o,
                              roi ? roi[d] : 0, roi ? roi[r + d] : 1);
      okv[i] = !(ct == CT_CROP && (s < 0 || s > (double)(in - 1)));
      ident = ident && okv[i];
      if (cubic) {
        double f = floor(s), t = s - f, sum = 0;
        double dist[4] = {t + 1, t, 1 - t, 2 - t};
        for (int k = 0; k < 4; k++) {
          double v = dist[k];
          cw[k][i] = k == 1 || k == 2 ? ((A + 2) * v - (A + 3)) * v * v + 1
                                      : ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
          int64_t at = (int64_t)f - 1 + k;
          if (excl && (at < 0 || at >= in)) cw[k][i] = 0;
          sum += cw[k][i];
          cix[k][i] = clampi(at, in);
        }
        if (excl && sum != 0)
          for (int k = 0; k < 4; k++) cw[k][i] /= sum;
        ident = ident && t == 0 && cix[1][i] == i;
      } else if (linear) {
        double f = floor(s);
        lo[i] = clampi((int64_t)f, in);
        hi[i] = clampi((int64_t)f + 1, in);
        w[i] = s - f;
        if (lo[i] == hi[i]) w[i] = 0;
        ident = ident && lo[i] == i && w[i] == 0;
      } else {
        double f = floor(s), frac = s - f, v;
        if (nmode == NM_FLOOR) v = f;
        else if (nmode == NM_CEIL) v = ceil(s);
        else if (nmode == NM_DIRECTION) v = scale[d] >= 1 ? f : ceil(s);
        else if (frac == 0.5) v = nmode == NM_FLOOR_TIE ? f : f + 1;
        else v = round(s);
        lo[i] = clampi((int64_t)v, in);
        ident = ident && lo[i] == i;
      }
    }
    if (ident) continue;
    if (ru.nres == OI_RESIZE_MAX_DIMS) return oi_unsupported(c, "more than %d resized dimensions", OI_RESIZE_MAX_DIMS);
    if (cubic && ru.nres == 3) return oi_unsupported(c, "cubic resize of more than 3 dimensions");
    inside[ru.nres] = okv;
    ru.dim[ru.nres++] = (int32_t)d;
    const kiln_type *tt = kiln_type_tensor(c->ctx, 1, &o, i64, NULL);
    int64_t dd = d;
    const kiln_affine_map *m = oi_map_dims(c, r, 1, &dd);
    if (cubic) {
      for (int t = 0; t < 4; t++) {
        ins[nin] = kiln_build_constant(&c->b, oi_dense_ints(c, tt, cix[t]));
        maps[nin++] = m;
      }
      const kiln_type *wt = kiln_type_tensor(c->ctx, 1, &o, xt->elem, NULL);
      for (int t = 0; t < 4; t++) {
        ins[nin] = kiln_build_constant(&c->b, oi_dense_floats(c, wt, cw[t]));
        maps[nin++] = m;
      }
      continue;
    }
    ins[nin] = kiln_build_constant(&c->b, oi_dense_ints(c, tt, lo));
    maps[nin++] = m;
    if (linear) {
      ins[nin] = kiln_build_constant(&c->b, oi_dense_ints(c, tt, hi));
      maps[nin++] = m;
      ins[nin] = kiln_build_constant(&c->b, oi_dense_floats(c, kiln_type_tensor(c->ctx, 1, &o, xt->elem, NULL), w));
      maps[nin++] = m;
    }
  }
  ru.ntab = nin;
  for (uint32_t k = 0; ru.crop && k < ru.nres; k++) { /* inside-X masks, after every table */
    int64_t o = out[ru.dim[k]], dd = ru.dim[k];
    ins[nin] = kiln_build_constant(&c->b, oi_dense_ints(c, kiln_type_tensor(c->ctx, 1, &o, i64, NULL), inside[k]));
    maps[nin++] = oi_map_dims(c, r, 1, &dd);
  }
  ru.x = oi_ir(c, x);
  if (!ru.x) return false;
  const kiln_type *ot = kiln_type_with_shape(c->ctx, xt, r, out);
  if (oi_numel(ot) == 0) {
    oi_set_out(c, n, 0, oi_empty(c, ot), x->dtype);
    return true;
  }
  if (ru.nres == 0) { /* nothing moves */
    oi_set_out_alias(c, n, 0, x);
    return true;
  }
  kiln_value *init = oi_empty(c, ot);
  maps[nin] = kiln_affine_map_identity(c->ctx, r);
  kiln_op *g = oi_generic(c, nin, ins, 1, &init, maps, r, NULL, resize_body, &ru);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

/* GridSample (opset 16): 2-D sampling of X (N, C, H, W) at the normalized
 * coordinates of Grid (N, Ho, Wo, 2), modes bilinear, nearest and
 * bicubic, padding zeros, border and reflection, align_corners 0/1 — the
 * semantics of PyTorch's grid_sample, which ONNX's test data come from.
 *
 * Takes: float X and Grid of static shapes (Grid may be a run-time
 * value). Guarantees: one linalg.generic over the output; its body reads
 * the grid point, unnormalizes it (align_corners: (g+1)/2*(size-1), else
 * ((g+1)*size-1)/2), applies the padding rule (border clamps, reflection
 * mirrors then clamps; bicubic applies it to each tap as PyTorch does),
 * and reads the 1, 4 or 16 taps of X with tensor.extract; a tap outside X
 * reads 0. nearest rounds half to even. Bicubic uses A = -0.75. */
#include <string.h>

#include "import_internal.h"

enum { GS_BILINEAR, GS_NEAREST, GS_BICUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

typedef struct {
  kiln_value *x, *grid;
  int32_t xdt, gdt;
  int mode, pad;
  bool align;
} gs_user;

static kiln_value *fc(kiln_builder *b, const kiln_type *et, double v) { return oi_scalar(b, et, v, 0); }
static kiln_value *add(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_ADDF, x, y); }
static kiln_value *sub(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_SUBF, x, y); }
static kiln_value *mul(kiln_builder *b, kiln_value *x, kiln_value *y) { return oi_op2(b, KILN_OP_ARITH_MULF, x, y); }
static kiln_value *flr(kiln_builder *b, kiln_value *x) { return oi_op1(b, KILN_OP_MATH_FLOOR, x); }

static kiln_value *clampf(kiln_builder *b, kiln_value *x, double lo, double hi) {
  const kiln_type *et = x->type;
  x = oi_select(b, oi_cmpf(b, OI_F_OLT, x, fc(b, et, lo)), fc(b, et, lo), x);
  return oi_select(b, oi_cmpf(b, OI_F_OGT, x, fc(b, et, hi)), fc(b, et, hi), x);
}

/* PyTorch's reflect_coordinates: mirror x into [lo2/2, hi2/2]. */
static kiln_value *reflect(kiln_builder *b, kiln_value *x, double lo2, double hi2) {
  const kiln_type *et = x->type;
  if (lo2 == hi2) return fc(b, et, 0);
  double mn = lo2 / 2, span = (hi2 - lo2) / 2;
  x = oi_op1(b, KILN_OP_MATH_ABSF, sub(b, x, fc(b, et, mn)));
  /* x >= 0: fmod(x, span) = x - span * floor(x / span) (arith.remf would
   * become a libm call the kernels cannot link) */
  kiln_value *flips = flr(b, oi_op2(b, KILN_OP_ARITH_DIVF, x, fc(b, et, span)));
  kiln_value *extra = sub(b, x, mul(b, flips, fc(b, et, span)));
  kiln_value *half = mul(b, flr(b, mul(b, flips, fc(b, et, 0.5))), fc(b, et, 2));
  kiln_value *even = oi_cmpf(b, OI_F_OEQ, half, flips);
  return oi_select(b, even, add(b, extra, fc(b, et, mn)), sub(b, fc(b, et, span + mn), extra));
}

/* The padding rule on a pixel coordinate along a dim of `size`. */
static kiln_value *padded(kiln_builder *b, const gs_user *g, kiln_value *x, int64_t size) {
  if (g->pad == GS_ZEROS) return x;
  if (g->pad == GS_REFLECTION)
    x = g->align ? reflect(b, x, 0, 2.0 * (double)(size - 1)) : reflect(b, x, -1, 2.0 * (double)size - 1);
  return clampf(b, x, 0, (double)(size - 1));
}

/* X[n, c, yi, xi] for integral float coordinates; 0 outside X. */
static kiln_value *tap(kiln_builder *b, const gs_user *g, kiln_value *n, kiln_value *c, kiln_value *xi,
                       kiln_value *yi) {
  const kiln_type *xt = g->x->type, *et = xt->elem, *it = kiln_type_index(b->ctx),
                  *i64 = kiln_type_int(b->ctx, 64);
  int64_t H = xt->shape[2], W = xt->shape[3];
  kiln_value *in = NULL, *pos[2] = {yi, xi};
  int64_t lim[2] = {H, W};
  for (int k = 0; k < 2; k++) {
    kiln_value *ok = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OGE, pos[k], fc(b, et, 0)),
                            oi_cmpf(b, OI_F_OLE, pos[k], fc(b, et, (double)(lim[k] - 1))));
    in = in ? oi_op2(b, KILN_OP_ARITH_ANDI, in, ok) : ok;
  }
  kiln_value *ops[5] = {g->x, n, c, NULL, NULL};
  for (int k = 0; k < 2; k++) {
    kiln_value *p = oi_select(b, in, pos[k], fc(b, et, 0));
    p = kiln_op_result(kiln_build(b, KILN_OP_ARITH_FPTOSI, 1, &p, 1, &i64, NULL), 0);
    ops[3 + k] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &p, 1, &it, NULL), 0);
  }
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 5, ops, 1, &et, NULL), 0);
  return oi_select(b, in, v, fc(b, et, 0));
}

/* Round half to even (nearbyint), as PyTorch's nearest mode. */
static kiln_value *rint_even(kiln_builder *b, kiln_value *x) {
  const kiln_type *et = x->type;
  kiln_value *f = flr(b, x), *d = sub(b, x, f), *up = add(b, f, fc(b, et, 1));
  kiln_value *half = fc(b, et, 0.5);
  kiln_value *f_even = oi_cmpf(b, OI_F_OEQ, mul(b, flr(b, mul(b, f, half)), fc(b, et, 2)), f);
  kiln_value *tie = oi_select(b, f_even, f, up);
  return oi_select(b, oi_cmpf(b, OI_F_OGT, d, half), up, oi_select(b, oi_cmpf(b, OI_F_OEQ, d, half), tie, f));
}

/* Cubic convolution weights of the 4 taps at t in [0, 1), A = -0.75. */
static void cubic_weights(kiln_builder *b, kiln_value *t, kiln_value **w) {
  const kiln_type *et = t->type;
  const double A = -0.75;
  kiln_value *one = fc(b, et, 1);
  kiln_value *xs[4] = {add(b, t, one), t, sub(b, one, t), sub(b, fc(b, et, 2), t)};
  for (int k = 0; k < 4; k++) {
    kiln_value *x = xs[k];
    if (k == 1 || k == 2) { /* ((A+2)x - (A+3)) x^2 + 1 */
      kiln_value *p = sub(b, mul(b, fc(b, et, A + 2), x), fc(b, et, A + 3));
      w[k] = add(b, mul(b, mul(b, p, x), x), one);
    } else { /* ((A x - 5A) x + 8A) x - 4A */
      kiln_value *p = sub(b, mul(b, fc(b, et, A), x), fc(b, et, 5 * A));
      p = add(b, mul(b, p, x), fc(b, et, 8 * A));
      w[k] = sub(b, mul(b, p, x), fc(b, et, 4 * A));
    }
  }
}

static bool gs_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  (void)a;
  gs_user *g = u;
  const kiln_type *xt = g->x->type, *et = xt->elem, *it = kiln_type_index(b->ctx);
  int64_t H = xt->shape[2], W = xt->shape[3];
  kiln_value *n = oi_loop_index(b, 0), *ch = oi_loop_index(b, 1), *h = oi_loop_index(b, 2), *w = oi_loop_index(b, 3);
  kiln_value *coord[2]; /* x (along W), y (along H) */
  int64_t size[2] = {W, H};
  for (int k = 0; k < 2; k++) {
    kiln_value *ops[5] = {g->grid, n, h, w, oi_scalar(b, it, 0, k)};
    kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 5, ops, 1, &g->grid->type->elem, NULL), 0);
    v = oi_convert(b, v, g->gdt, g->xdt, et);
    kiln_value *s = fc(b, et, (double)size[k]), *one = fc(b, et, 1);
    if (g->align) v = mul(b, mul(b, add(b, v, one), fc(b, et, 0.5)), fc(b, et, (double)(size[k] - 1)));
    else v = mul(b, sub(b, mul(b, add(b, v, one), s), one), fc(b, et, 0.5));
    coord[k] = g->mode == GS_BICUBIC ? v : padded(b, g, v, size[k]);
  }
  if (g->mode == GS_NEAREST) {
    y[0] = tap(b, g, n, ch, rint_even(b, coord[0]), rint_even(b, coord[1]));
    return true;
  }
  kiln_value *f[2] = {flr(b, coord[0]), flr(b, coord[1])}, *t[2];
  for (int k = 0; k < 2; k++) t[k] = sub(b, coord[k], f[k]);
  kiln_value *acc = NULL;
  if (g->mode == GS_BILINEAR) {
    kiln_value *one = fc(b, et, 1);
    kiln_value *wx[2] = {sub(b, one, t[0]), t[0]}, *wy[2] = {sub(b, one, t[1]), t[1]};
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 2; i++) {
        kiln_value *v = tap(b, g, n, ch, add(b, f[0], fc(b, et, i)), add(b, f[1], fc(b, et, j)));
        v = mul(b, v, mul(b, wx[i], wy[j]));
        acc = acc ? add(b, acc, v) : v;
      }
  } else {
    kiln_value *wx[4], *wy[4];
    cubic_weights(b, t[0], wx);
    cubic_weights(b, t[1], wy);
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        kiln_value *xi = padded(b, g, add(b, f[0], fc(b, et, i - 1)), W);
        kiln_value *yi = padded(b, g, add(b, f[1], fc(b, et, j - 1)), H);
        kiln_value *v = mul(b, tap(b, g, n, ch, xi, yi), mul(b, wx[i], wy[j]));
        acc = acc ? add(b, acc, v) : v;
      }
  }
  y[0] = acc;
  return true;
}

bool oi_import_gridsample(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"align_corners", "mode", "padding_mode", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *gv = x ? oi_in(c, n, 1) : NULL;
  if (!gv || !oi_check_type(c, x, OI_T_FLOAT, "input 0 (X)") || !oi_check_type(c, gv, OI_T_FLOAT, "input 1 (grid)"))
    return false;
  const char *mode, *pad;
  int64_t align;
  if (!oi_attr_string(c, n, "mode", "bilinear", &mode) || !oi_attr_string(c, n, "padding_mode", "zeros", &pad) ||
      !oi_attr_int(c, n, "align_corners", 0, &align))
    return false;
  gs_user g = {.xdt = x->dtype, .gdt = gv->dtype, .align = align != 0};
  if (strcmp(mode, "bilinear") == 0) g.mode = GS_BILINEAR;
  else if (strcmp(mode, "nearest") == 0) g.mode = GS_NEAREST;
  else if (strcmp(mode, "bicubic") == 0) g.mode = GS_BICUBIC;
  else return oi_invalid(c, "mode '%s' (bilinear, nearest or bicubic)", mode);
  if (strcmp(pad, "zeros") == 0) g.pad = GS_ZEROS;
  else if (strcmp(pad, "border") == 0) g.pad = GS_BORDER;
  else if (strcmp(pad, "reflection") == 0) g.pad = GS_REFLECTION;
  else return oi_invalid(c, "padding_mode '%s' (zeros, border or reflection)", pad);
  const kiln_type *xt = x->type, *gt = gv->type;
  if (xt->rank != 4) return oi_unsupported(c, "X of rank %u (2-D sampling, rank 4, only)", xt->rank);
  if (gt->rank != 4 || gt->shape[3] != 2 || gt->shape[0] != xt->shape[0])
    return oi_invalid(c, "grid must have shape (N, H_out, W_out, 2) with X's N");
  int64_t shape[4] = {xt->shape[0], xt->shape[1], gt->shape[1], gt->shape[2]};
  const kiln_type *ot = oi_tensor_type(c, 4, shape, x->dtype);
  g.x = oi_ir(c, x);
  g.grid = oi_ir(c, gv);
  if (!g.x || !g.grid) return false;
  kiln_value *out = oi_empty(c, ot);
  if (oi_numel(ot) > 0) {
    if (oi_numel(xt) == 0) { /* every tap is outside an empty X */
      oi_set_out(c, n, 0, oi_filled(c, ot, 0, 0), x->dtype);
      return true;
    }
    const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, 4);
    kiln_op *op = oi_generic(c, 0, NULL, 1, &out, &m, 4, NULL, gs_body, &g);
    if (!op) return false;
    out = kiln_op_result(op, 0);
  }
  oi_set_out(c, n, 0, out, x->dtype);
  return true;
}

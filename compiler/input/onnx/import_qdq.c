/* Products of dequantized operands in integer units: Conv, MatMul and
 * Gemm whose input is DequantizeLinear(xq) (constant scale and zero point,
 * per tensor) and whose weight is DequantizeLinear of a constant (per
 * tensor or per output channel), plus a constant float bias, become
 *   acc = op(xq - zx, wq - zw)            integer-valued f32 operands
 *   y   = acc * (sx * sw[m]) + b[m]       one rounding per output
 * instead of the op on the dequantized floats. The accumulation adds
 * integers, exactly while its partial sums stay below 2^24, so it equals
 * the i32 accumulation of an integer kernel (ONNX Runtime's among them);
 * the float form rounds every product and sum, and on deep networks those
 * rounding differences flip requantization ties that then reach the
 * output (ResNet-18: 2 quantization steps from ONNX Runtime on the float
 * form, 1 in integer units). The operands keep the float paths
 * (channels-last convolutions, packed constant weights); an integer kernel
 * can take the same operands later. xq - zx is the k DequantizeLinear
 * built (import_quant.c), else the dequantized value rounded back. The
 * product's output records acc, scales and the int32 bias (oi_prod), so
 * that a QuantizeLinear of it requantizes as integer kernels do, with no
 * division: round((acc + bias) * f32(x_scale * w_scale[m] / y_scale)),
 * ONNX Runtime's QLinearConv arithmetic. The 8-bit kernels below add
 * that int32 bias to their per-channel zero-point correction, so acc
 * holds it and the epilogue has one add less per element (the float
 * output is then (acc + bias) * scale, one rounding).
 *
 * QLinearConv and QLinearMatMul with constant weights and parameters
 * (oi_qdq_qlinear, at the end) take the same 8-bit paths through records
 * built here for their operands, and requantize as above.
 *
 * Takes: the node and its resolved inputs, whose DequantizeLinear
 * producers recorded what they dequantized (oi_val.dq, import_quant.c).
 * Guarantees: 1 with the node's output set when the form applies; 0,
 * having built nothing, when it does not (the caller imports the float
 * op); -1 on an error, reported. */
#include "import_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* a0 = the dequantized x = fl((xq - zx) * sx): xq - zx again, as
 * roundeven(x / sx). The error of the two roundings is below 2^-15 for
 * |xq - zx| <= 255 (sx a normal float far from the ends of the range, as
 * operands() checks), far from the 0.5 that would round to another
 * integer. Reading the dequantized value rather than xq keeps the
 * quantize -> dequantize pair one fusable chain when something else
 * (a residual add) reads the dequantized value too. */
static bool shift_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const float *sx = u;
  const kiln_type *f32 = kiln_type_f32(b->ctx);
  kiln_value *magic = oi_scalar(b, f32, 12582912.0, 0); /* 1.5 * 2^23: rounds to an integer, ties to even */
  kiln_value *k = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_DIVF, a[0], oi_scalar(b, f32, *sx, 0)), magic);
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, k, magic);
  return true;
}

/* a0 = acc, a1 = scale [M] (broadcast), a2 = bias [M] (optional) */
static bool scale_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const bool *has_bias = u;
  kiln_value *r = oi_op2(b, KILN_OP_ARITH_MULF, a[0], a[1]);
  y[0] = *has_bias ? oi_op2(b, KILN_OP_ARITH_ADDF, r, a[2]) : r;
  return true;
}

typedef struct {
  kiln_value *x, *w;  /* xq - zx (f32) and the constant wq - zw (f32) */
  double *scale;      /* sx * sw[m], rounded to f32 */
  int64_t m;          /* output channels */
  const float *wf;    /* w's values, row-major in w's (stored) shape */
  int64_t zx;         /* x's zero point */
  bool xu;            /* x is u8 (else i8) */
  const double *bias; /* the int32 bias [m] the integer kernels add to their correction, or NULL */
  kiln_value *x_sum;  /* x + 1.5 * 2^23 (oi_dq.k_sum), or NULL */
  oi_dq *dq;          /* x's DequantizeLinear record when x is its k (bytes shared through it), else NULL */
} qdq_operands;

/* The operands when x and w are dequantized as this file needs, W's
 * channels along `axis` (M of them); `transpose` stores the 2-D weight
 * transposed. 0: not that form, nothing built; -1: error; 1: done. */
static int operands(oi_ctx *c, oi_val *x, oi_val *w, uint32_t axis, bool transpose, qdq_operands *o) {
  const oi_dq *dx = x->dq, *dw = w->dq;
  const kiln_type *wt = w->type;
  if (!dx || !dw || dx->n != 1 || axis >= wt->rank || !(dx->scale[0] >= 0x1p-100 && dx->scale[0] <= 0x1p100))
    return 0;
  if (dw->n != 1 && (!dw->per_axis || dw->axis != axis)) return 0;
  int32_t U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if ((dx->q->dtype != U8 && dx->q->dtype != I8) || (dw->q->dtype != U8 && dw->q->dtype != I8)) return 0;
  const kiln_attr *wq = oi_const(c, dw->q);
  int64_t nw = oi_numel(wt), M = wt->shape[axis], inner = 1;
  if (!wq || nw <= 0 || M <= 0 || (dw->n != 1 && dw->n != M) || (transpose && wt->rank != 2)) return 0;
  for (uint32_t d = axis + 1; d < wt->rank; d++) inner *= wt->shape[d];
  bool wu = dw->q->dtype == U8;
  float *wf = kiln_alloc(c->ctx, (size_t)nw * sizeof(float) + 1);
  int64_t rows = transpose ? wt->shape[0] : 1, cols = transpose ? wt->shape[1] : nw;
  for (int64_t i = 0; i < nw; i++) {
    int64_t k = dw->n == 1 ? 0 : (i / inner) % M, wi = kiln_dense_get_int(wq, i);
    if (wu) wi &= 0xFF; /* u8 is stored as signless i8 */
    int64_t at = transpose ? (i % cols) * rows + i / cols : i;
    wf[at] = (float)(wi - (dw->zp ? dw->zp[k] : 0));
  }
  o->scale = kiln_alloc(c->ctx, (size_t)M * sizeof(double));
  for (int64_t m = 0; m < M; m++) o->scale[m] = (float)(dx->scale[0] * dw->scale[dw->n == 1 ? 0 : m]);
  o->m = M, o->wf = wf, o->zx = dx->zp ? dx->zp[0] : 0, o->xu = dx->q->dtype == U8, o->bias = NULL;
  o->x_sum = NULL, o->dq = NULL;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < wt->rank; d++) shape[d] = wt->shape[transpose ? wt->rank - 1 - d : d];
  const kiln_type *wft = oi_tensor_type(c, wt->rank, shape, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  if (!wft) return -1;
  o->w = kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, wft, false, wf, (size_t)nw * sizeof(float)));
  if (dx->k) { /* xq - zx as the DequantizeLinear built it (import_quant.c) */
    /* the record is the importer's own (allocated writable): the bytes
     * an 8-bit kernel makes of k are shared through it */
    o->x = dx->k, o->x_sum = dx->k_sum, o->dq = (oi_dq *)dx;
    return 1;
  }
  kiln_value *xd = oi_ir(c, x);
  if (!xd) return -1;
  float *sx = kiln_alloc(c->ctx, sizeof *sx);
  *sx = (float)dx->scale[0];
  const kiln_type *xt = x->type;
  o->x = oi_elementwise_ir(c, 1, &xd, xt->rank, xt->shape, kiln_type_f32(c->ctx), shift_body, sx);
  return o->x ? 1 : -1;
}

/* The record a QuantizeLinear of the product requantizes from: the bias
 * (if any) must be the int32 DequantizeLinear quantizers write, with
 * scale x_scale * w_scale[m] and zero point 0, each value below 2^24 so
 * that acc + bias stays exact in f32; else NULL. */
static const double *int_bias(oi_ctx *c, const qdq_operands *o, oi_val *bias) {
  const oi_dq *d = bias ? bias->dq : NULL;
  const kiln_attr *q = d && d->q->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT32 ? oi_const(c, d->q) : NULL;
  if (!q || (d->n != 1 && d->n != o->m) || oi_numel(d->q->type) != o->m) return NULL;
  double *bi = kiln_alloc(c->ctx, (size_t)o->m * sizeof *bi);
  for (int64_t m = 0; m < o->m; m++) {
    int64_t k = d->n == 1 ? 0 : m, v = kiln_dense_get_int(q, m);
    if ((d->zp && d->zp[k] != 0) || (float)d->scale[k] != (float)o->scale[m] || v <= -(1 << 24) || v >= (1 << 24))
      return NULL;
    bi[m] = (double)v;
  }
  return bi;
}

/* in_acc: the bias is in acc already (the integer kernels add it to
 * their zero-point correction) */
static const oi_prod *product(oi_ctx *c, kiln_value *acc, const qdq_operands *o, uint32_t dim, oi_val *bias,
                              bool in_acc) {
  const double *bi = NULL;
  if (bias && !in_acc && !(bi = int_bias(c, o, bias))) return NULL;
  oi_prod *p = kiln_alloc(c->ctx, sizeof *p);
  *p = (oi_prod){acc, o->scale, bi, o->m, dim};
  return p;
}

/* acc * scale + bias along dim `dim` of acc, as the node's output; with
 * in_acc, acc holds the integer bias already: acc * scale. */
static int finish(oi_ctx *c, oi_node *n, kiln_value *acc, const qdq_operands *o, uint32_t dim, oi_val *bias,
                  bool in_acc) {
  if (!acc) return -1;
  if (in_acc) bias = NULL;
  const kiln_type *t = acc->type;
  int64_t bs[OI_MAX_RANK], M = o->m;
  for (uint32_t i = 0; i < t->rank; i++) bs[i] = i == dim ? M : 1;
  const kiln_type *st = oi_tensor_type(c, 1, &M, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  if (!st) return -1;
  bool has_bias = bias != NULL;
  kiln_value *ins[3] = {acc, oi_reshape(c, kiln_build_constant(&c->b, oi_dense_floats(c, st, o->scale)), t->rank, bs),
                        has_bias ? oi_ir(c, bias) : NULL};
  if (has_bias && !ins[2]) return -1;
  if (has_bias) ins[2] = oi_reshape(c, ins[2], t->rank, bs);
  kiln_value *y = oi_elementwise_ir(c, has_bias ? 3 : 2, ins, t->rank, t->shape, t->elem, scale_body, &has_bias);
  if (!y) return -1;
  oi_set_out(c, n, 0, y, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  if (n->out[0]) n->out[0]->prod = product(c, acc, o, dim, bias, in_acc);
  return 1;
}

/* a0 = acc, a1 = multiplier [M], a2 = bias [M] (optional) */
static bool requant_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const bool *has_bias = u;
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, *has_bias ? oi_op2(b, KILN_OP_ARITH_ADDF, a[0], a[2]) : a[0], a[1]);
  return true;
}

kiln_value *oi_qdq_requant_input(oi_ctx *c, const oi_prod *p, float y_scale) {
  const kiln_type *t = p->acc->type;
  int64_t bs[OI_MAX_RANK], M = p->m;
  for (uint32_t i = 0; i < t->rank; i++) bs[i] = i == p->dim ? M : 1;
  const kiln_type *st = oi_tensor_type(c, 1, &M, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  if (!st) return NULL;
  double *mult = kiln_alloc(c->ctx, (size_t)M * sizeof *mult);
  for (int64_t m = 0; m < M; m++) mult[m] = (float)((float)p->scale[m] / y_scale); /* as ONNX Runtime's f32 */
  bool has_bias = p->bias != NULL;
  kiln_value *ins[3] = {p->acc, oi_reshape(c, kiln_build_constant(&c->b, oi_dense_floats(c, st, mult)), t->rank, bs),
                        has_bias ? oi_reshape(c, kiln_build_constant(&c->b, oi_dense_floats(c, st, p->bias)), t->rank, bs)
                                 : NULL};
  if (!ins[1] || (has_bias && !ins[2])) return NULL;
  return oi_elementwise_ir(c, has_bias ? 3 : 2, ins, t->rank, t->shape, t->elem, requant_body, &has_bias);
}

/* a bias this file takes: absent, or a constant 1-D [m] */
static bool bias_ok(oi_ctx *c, oi_val *b, int64_t m) {
  return !b || (oi_const(c, b) && b->type->rank == 1 && b->type->shape[0] == m);
}


static kiln_value *cast(kiln_builder *b, kiln_op_kind k, kiln_value *x, const kiln_type *t) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

/* a0 = k = xq - zx (f32), u = zx - shift: the i8 operand xq - shift
 * (or a0 = k + 1.5 * 2^23 and u less that: to_i8) */
static bool to_i8_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const float *zs = u;
  kiln_value *v = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], oi_scalar(b, kiln_type_f32(b->ctx), *zs, 0));
  y[0] = cast(b, KILN_OP_ARITH_FPTOSI, v, kiln_type_int(b->ctx, 8));
  return true;
}

/* x8 = xq - shift as bytes from k = x: k + (zx - shift), or from k's
 * rounding sum k + 1.5 * 2^23 where there is one (x_sum): the sum less
 * the constant (1.5 * 2^23 - zx + shift), exact in f32 (integers below
 * 2^24), one subtraction instead of two. */
static kiln_value *to_i8(oi_ctx *c, const qdq_operands *o, kiln_value *x, int64_t shift) {
  float *zs = kiln_alloc(c->ctx, sizeof *zs);
  *zs = (float)(o->zx - shift);
  if (o->x_sum && x == o->x) x = o->x_sum, *zs -= 12582912.0f;
  const kiln_type *xt = x->type;
  return oi_elementwise_ir(c, 1, &x, xt->rank, xt->shape, kiln_type_int(c->ctx, 8), to_i8_body, zs);
}

/* a0 = x8 (i8), u = zx - shift: k = x8 - (zx - shift) as f32 */
static bool from_i8_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const float *zs = u;
  /* one builder call per statement (the order C leaves open) */
  kiln_value *v = cast(b, KILN_OP_ARITH_SITOFP, a[0], kiln_type_f32(b->ctx));
  kiln_value *z = oi_scalar(b, kiln_type_f32(b->ctx), *zs, 0);
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, v, z);
  return true;
}

/* The bytes xq - shift of o's k (o->x, its DequantizeLinear o->dq),
 * made once per dequantized tensor, right after k. When k has readers
 * besides (a residual add's dequantized value next to this
 * convolution), they read k made from the bytes instead: the
 * requantization before k then has the bytes as its one reader and joins
 * its producer's kernel (which stores bytes, not i32 sums that each
 * reader would requantize again). NULL: k has no defining op. */
static kiln_value *shared_bytes(oi_ctx *c, const qdq_operands *o, int64_t shift) {
  oi_dq *d = o->dq;
  kiln_value *k = d->k;
  if (d->x8) return d->x8;
  if (!k->def) return NULL;
  kiln_builder saved = c->b;
  c->b = kiln_builder_after(k->def);
  kiln_value *x8 = to_i8(c, o, k, shift);
  kiln_op *own = x8 ? x8->def : NULL;
  bool others = false;
  for (kiln_use *u = k->uses; u; u = u->next) others |= u->owner != own;
  float *zs = kiln_alloc(c->ctx, sizeof *zs);
  *zs = (float)(o->zx - shift);
  const kiln_type *t = k->type;
  kiln_value *k8 = x8 && others ? oi_elementwise_ir(c, 1, &x8, t->rank, t->shape, kiln_type_f32(c->ctx), from_i8_body, zs)
                                : NULL;
  c->b = saved;
  if (!x8) return NULL;
  if (k8) {
    for (kiln_use *u = k->uses, *next; u; u = next) {
      next = u->next;
      if (u->owner != own) kiln_op_set_operand(u->owner, u->index, k8);
    }
    d->k = k8, d->k_sum = NULL;
    /* later DequantizeLinears of the same tensor share k8 and the bytes */
    oi_dq *s = (oi_dq *)d->q->dq_of;
    if (s && s != d && s->k == k) s->k = k8, s->k_sum = NULL, s->x8 = x8;
  }
  d->x8 = x8;
  return x8;
}

/* a0 = acc (i32), a1 = correction [N] (i32): f32(acc + correction) */
static bool from_i32_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)u;
  y[0] = cast(b, KILN_OP_ARITH_SITOFP, oi_op2(b, KILN_OP_ARITH_ADDI, a[0], a[1]), kiln_type_f32(b->ctx));
  return true;
}

static bool copy_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)b, (void)u;
  y[0] = a[0];
  return true;
}

/* v's first n dims as one (rows of a product): a reshape when they are
 * static, else a collapse whose size is the run-time product (a batch of
 * run-time size, the only run-time dim the int8 paths take). */
static kiln_value *merge_rows(oi_ctx *c, kiln_value *v, uint32_t n) {
  const kiln_type *t = v->type;
  if (oi_has_dyn(t)) return oi_merge_leading(c, v, n);
  int64_t s[OI_MAX_RANK];
  s[0] = 1;
  for (uint32_t d = 0; d < n; d++) s[0] *= t->shape[d];
  for (uint32_t d = n; d < t->rank; d++) s[d - n + 1] = t->shape[d];
  return oi_reshape(c, v, t->rank - n + 1, s);
}

/* A convolution's input x8 [N, C, H, W] (bytes) as the rows of its
 * product, [N*OH*OW, KH*KW*Cp]: channels-last (a transpose that
 * propagate-transposes cancels against the producer's), padded with the
 * byte of k = 0, its channels padded to Cp (a multiple of 4, dot4's
 * group; the weights of the extra channels are zeros, so their byte does
 * not matter), and for a window larger than one pixel or strided, each
 * output pixel's window copied out (im2col), channels innermost. N may be
 * a run-time batch; *pixels is then a tensor whose first three dims are
 * [N, OH, OW] (the product's rows split back by them). */
static kiln_value *conv_rows(oi_ctx *c, kiln_value *x8, const oi_window *w, int64_t taps, int64_t Cp, int64_t pad,
                             kiln_value **pixels) {
  static const int64_t to_nhwc[4] = {0, 2, 3, 1};
  const kiln_type *xt = x8->type;
  int64_t N = xt->shape[0], C = Cp, lo[4] = {0, 0, w->lo[0], w->lo[1]},
          hi[4] = {0, Cp - xt->shape[1], w->hi[0], w->hi[1]};
  bool padded = lo[2] || lo[3] || hi[1] || hi[2] || hi[3];
  if (padded) x8 = oi_pad(c, x8, lo, hi, 0, pad);
  x8 = x8 ? oi_transpose(c, x8, to_nhwc) : NULL;
  if (!x8) return NULL;
  bool direct = taps == 1 && w->stride[0] == 1 && w->stride[1] == 1 && w->out[0] == x8->type->shape[1] &&
                w->out[1] == x8->type->shape[2];
  *pixels = x8;
  if (direct) return merge_rows(c, x8, 3);
  /* loops (n, oh, ow, kh, kw, c), all parallel */
  kiln_context *ctx = c->ctx;
  int64_t os[6] = {N, w->out[0], w->out[1], w->k[0], w->k[1], C};
  const kiln_affine_expr *ex[4] = {kiln_affine_dim(ctx, 0), oi_window_expr(c, w, 0, 1, 3), oi_window_expr(c, w, 1, 2, 4),
                                   kiln_affine_dim(ctx, 5)}, *eo[6];
  for (unsigned l = 0; l < 6; l++) eo[l] = kiln_affine_dim(ctx, l);
  const kiln_affine_map *maps[2] = {kiln_affine_map_get(ctx, 6, 0, 4, ex), kiln_affine_map_get(ctx, 6, 0, 6, eo)};
  bool red[6] = {0};
  kiln_value *init = oi_empty(c, kiln_type_with_shape(ctx, x8->type, 6, os));
  kiln_op *g = init ? oi_generic(c, 1, &x8, 1, &init, maps, 6, red, copy_body, NULL) : NULL;
  if (!g) return NULL;
  kiln_value *win = kiln_op_result(g, 0);
  *pixels = win;
  if (!oi_has_dyn(win->type)) {
    int64_t rows[2] = {N * w->out[0] * w->out[1], taps * C};
    return oi_reshape(c, win, 2, rows);
  }
  int64_t nhwk[4] = {N, w->out[0], w->out[1], taps * C};
  kiln_value *r = oi_reshape(c, win, 4, nhwk);
  return r ? merge_rows(c, r, 3) : NULL;
}

/* The product x . w ([..., M, K] x [K, N], w constant) in 8-bit integers
 * with i32 accumulation (codegen/cpu's dot4 microkernel, vpdpbusd where
 * the target has VNNI): x8 = xq - 128 for u8 x (xq for i8), w8 = wq - zw,
 * acc = x8 . w8 + (shift - zx) * sum_k w8[k][n], the same integers as
 * (xq - zx) . (wq - zw). NULL (nothing built) unless every wq - zw fits in
 * i8 and the shapes are the kernel's: K static and a multiple of 4 (a
 * convolution pads its channels to one), N of 16 (the weights are
 * pre-packed per column tile; codegen's launch rule picks tiles of 64,
 * 48, 32 or 16 columns, and N = 16 is one whole tile); the rows (x's
 * leading dims, a convolution's batch) may be of run-time count.
 * With nhwc = {N, H, W, M}, x is a 1x1 convolution's NCHW input: its
 * bytes are made in NCHW (so that they join the producer's epilogue),
 * then read as [N*H*W, C] rows, and the product is returned as NCHW. */
static kiln_value *int8_matmul(oi_ctx *c, const qdq_operands *o, kiln_value *x, const float *wf, int64_t K,
                               int64_t N, const oi_window *win) {
  const kiln_type *xt = x->type;
  if (xt->rank < 2 || oi_dyn(xt, xt->rank - 1) || (!win && xt->shape[xt->rank - 1] != K)) return NULL;
  if (K < 4 || K % 4 != 0) return NULL;
  /* N padded to Np, a multiple of 16, with zero weights (24 or 40 output
   * channels); the product's extra columns are sliced off */
  int64_t Np = (N + 15) / 16 * 16;
  int8_t *w8 = kiln_alloc(c->ctx, (size_t)(K * Np));
  memset(w8, 0, (size_t)(K * Np));
  int32_t *corr = kiln_alloc(c->ctx, (size_t)N * sizeof *corr);
  int64_t shift = o->xu ? 128 : 0;
  for (int64_t n = 0; n < N; n++) {
    int64_t sum = 0;
    for (int64_t k = 0; k < K; k++) {
      float v = wf[k * N + n];
      if (!(v >= -128 && v <= 127)) return NULL;
      w8[k * Np + n] = (int8_t)v, sum += (int64_t)v;
    }
    int64_t cn = (shift - o->zx) * sum + (o->bias ? (int64_t)o->bias[n] : 0);
    if (cn <= INT32_MIN / 2 || cn >= INT32_MAX / 2) return NULL;
    corr[n] = (int32_t)cn;
  }
  const kiln_type *i8 = kiln_type_int(c->ctx, 8), *i32 = kiln_type_int(c->ctx, 32);
  int64_t kn[2] = {K, Np};
  kiln_value *wv = kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, kiln_type_tensor(c->ctx, 2, kn, i8, NULL),
                                                               false, w8, (size_t)(K * Np)));
  /* the bytes shared through x's DequantizeLinear: the requantization
   * before them then has one reader */
  kiln_value *x8 = o->dq && x == o->x ? shared_bytes(c, o, shift) : NULL;
  if (!x8) x8 = to_i8(c, o, x, shift);
  kiln_value *pixels = NULL;
  if (x8 && win) /* a convolution's NCHW bytes as [N*OH*OW, K] rows */
    x8 = conv_rows(c, x8, win, win->k[0] * win->k[1], K / (win->k[0] * win->k[1]), o->zx - shift, &pixels);
  kiln_value *acc = x8 ? oi_matmul_i32(c, x8, wv) : NULL;
  if (acc && Np != N) {
    const kiln_type *pt = acc->type;
    int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK];
    for (uint32_t d = 0; d < pt->rank; d++) size[d] = pt->shape[d], one[d] = 1;
    size[pt->rank - 1] = N;
    acc = oi_slice(c, acc, off, size, one);
  }
  uint32_t cdim = acc ? acc->type->rank - 1 : 0;
  if (acc && win) { /* a convolution's [N*OH*OW, M] back to [N, M, OH, OW] */
    static const int64_t to_nchw[4] = {0, 3, 1, 2};
    int64_t nhwm[4] = {xt->shape[0], win->out[0], win->out[1], N};
    acc = oi_has_dyn(acc->type) ? oi_split_leading(c, acc, pixels, 3) : oi_reshape(c, acc, 4, nhwm);
    acc = acc ? oi_transpose(c, acc, to_nchw) : NULL;
    cdim = 1;
  }
  if (!acc) return NULL;
  const kiln_type *at = acc->type;
  int64_t bs[OI_MAX_RANK];
  for (uint32_t d = 0; d < at->rank; d++) bs[d] = d == cdim ? N : 1;
  kiln_value *cv = kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, kiln_type_tensor(c->ctx, 1, &N, i32, NULL), false,
                                                              corr, (size_t)N * sizeof *corr));
  kiln_value *ins[2] = {acc, oi_reshape(c, cv, at->rank, bs)};
  return ins[1] ? oi_elementwise_ir(c, 2, ins, at->rank, at->shape, kiln_type_f32(c->ctx), from_i32_body, NULL) : NULL;
}

int oi_qdq_matmul(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w) {
  if (w->type->rank != 2 || x->type->rank < 2) return 0;
  qdq_operands o;
  int r = operands(c, x, w, 1, false, &o);
  if (r <= 0) return r;
  kiln_value *acc = int8_matmul(c, &o, o.x, o.wf, o.w->type->shape[0], o.w->type->shape[1], NULL);
  if (!acc) acc = oi_matmul_ir(c, o.x, o.w);
  return finish(c, n, acc, &o, acc ? acc->type->rank - 1 : 0, NULL, false);
}

int oi_qdq_gemm(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w, oi_val *bias, bool trans_b) {
  if (w->type->rank != 2 || x->type->rank != 2 || !bias_ok(c, bias, w->type->shape[trans_b ? 0 : 1])) return 0;
  qdq_operands o;
  int r = operands(c, x, w, trans_b ? 0 : 1, trans_b, &o);
  if (r <= 0) return r;
  o.bias = int_bias(c, &o, bias);
  kiln_value *acc = int8_matmul(c, &o, o.x, o.wf, o.w->type->shape[0], o.w->type->shape[1], NULL);
  bool in_acc = acc && o.bias;
  return finish(c, n, acc ? acc : oi_matmul_ir(c, o.x, o.w), &o, 1, bias, in_acc);
}

/* t's dims are static but for the first (a run-time batch): the 8-bit
 * convolutions' windows and channels are known when compiling. */
static bool batch_only(const kiln_type *t) {
  for (uint32_t d = 1; d < t->rank; d++)
    if (oi_dyn(t, d)) return false;
  return true;
}

/* A convolution of one group over 2-D static shapes (N may be a run-time
 * batch) is the matmul of its pixels by its windows: [N*OH*OW, KH*KW*C] x
 * [KH*KW*C, M] in NHWC (the rows are the input itself for a 1x1 stride-1 window, else copied out
 * of the padded input, conv_rows), between a transpose of x to
 * channels-last and one of the product back to NCHW, which
 * propagate-transposes cancels against the neighbouring convolutions'
 * own (convert-convs-to-nhwc), so the activations stay channels-last and
 * the product runs int8_matmul's dot4 microkernel. NULL (nothing built)
 * when it is not that form or int8_matmul declines. */
static kiln_value *int8_conv(oi_ctx *c, oi_node *n, const qdq_operands *o) {
  const kiln_type *xt = o->x->type, *wt = o->w->type;
  int64_t group;
  if (xt->rank != 4 || wt->rank != 4 || !batch_only(xt) || !oi_attr_int(c, n, "group", 1, &group) || group != 1)
    return NULL;
  oi_window win;
  if (!oi_window_attrs(c, n, xt, wt->shape + 2, false, &win)) return NULL;
  /* channels padded to Cp, a multiple of dot4's 4 (an RGB stem's 3 to
   * 4): zero weights, so the product is unchanged */
  int64_t C = xt->shape[1], Cp = (C + 3) / 4 * 4, M = o->m, KH = wt->shape[2], KW = wt->shape[3], K = KH * KW * Cp;
  if (wt->shape[1] != C) return NULL;
  /* W [M, C, KH, KW] as the matmul's [(kh, kw, c), M], c < Cp */
  float *wkn = kiln_alloc(c->ctx, (size_t)(K * M) * sizeof *wkn + 1);
  memset(wkn, 0, (size_t)(K * M) * sizeof *wkn);
  for (int64_t m = 0; m < M; m++)
    for (int64_t ci = 0; ci < C; ci++)
      for (int64_t t = 0; t < KH * KW; t++) wkn[(t * Cp + ci) * M + m] = o->wf[(m * C + ci) * KH * KW + t];
  return int8_matmul(c, o, o->x, wkn, K, M, &win);
}

/* a0 = the sums over bytes, a1 = the zero-point correction [M] */
static bool correct_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)u;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], a[1]);
  return true;
}

/* A depthwise convolution (one input and one output channel per group)
 * over bytes: x8 = xq - 128 for u8 x (xq for i8), made in NCHW (so that
 * it joins the producer's epilogue), padded with the byte of k = 0 and
 * convolved with the f32 filter wq - zw, then the per-channel constant
 * (shift - zx) * sum w[m]: the same integers as the convolution of k.
 * Every product and partial sum is an integer of magnitude at most
 * 255 * sum |w[m]|, checked below 2^24, so the f32 accumulation is exact;
 * convert-convs-to-nhwc makes it the channels-last depthwise convolution,
 * whose vector loop then reads one byte per element instead of the four
 * of an f32 k, and the pad and the producer's store move bytes too.
 * NULL (nothing built) when it is not that form. */
static kiln_value *int8_depthwise(oi_ctx *c, oi_node *n, const qdq_operands *o) {
  const kiln_type *xt = o->x->type, *wt = o->w->type;
  int64_t group;
  if (xt->rank != 4 || wt->rank != 4 || !batch_only(xt) || !oi_attr_int(c, n, "group", 1, &group)) return NULL;
  int64_t C = xt->shape[1], M = o->m, taps = wt->shape[2] * wt->shape[3], shift = o->xu ? 128 : 0;
  if (C < 2 || group != C || M != C || wt->shape[1] != 1) return NULL;
  double *corr = kiln_alloc(c->ctx, (size_t)M * sizeof *corr);
  for (int64_t m = 0; m < M; m++) {
    double sum = 0, mag = 0;
    for (int64_t t = 0; t < taps; t++) sum += o->wf[m * taps + t], mag += fabs(o->wf[m * taps + t]);
    corr[m] = (double)(shift - o->zx) * sum + (o->bias ? o->bias[m] : 0);
    if (255 * mag >= 0x1p24 || fabs(corr[m]) >= 0x1p24) return NULL;
  }
  kiln_value *x8 = to_i8(c, o, o->x, shift);
  kiln_value *acc = x8 ? oi_conv_ir(c, n, x8, o->w, o->zx - shift) : NULL;
  if (!acc) return NULL;
  const kiln_type *at = acc->type, *st = oi_tensor_type(c, 1, &M, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  int64_t bs[4] = {1, M, 1, 1};
  kiln_value *cv = st ? kiln_build_constant(&c->b, oi_dense_floats(c, st, corr)) : NULL;
  kiln_value *ins[2] = {acc, cv ? oi_reshape(c, cv, 4, bs) : NULL};
  return ins[1] ? oi_elementwise_ir(c, 2, ins, at->rank, at->shape, at->elem, correct_body, NULL) : NULL;
}

int oi_qdq_conv(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w, oi_val *bias) {
  if (w->type->rank < 3 || !bias_ok(c, bias, w->type->shape[0])) return 0;
  qdq_operands o;
  int r = operands(c, x, w, 0, false, &o);
  if (r <= 0) return r;
  o.bias = int_bias(c, &o, bias);
  kiln_value *acc = int8_conv(c, n, &o);
  if (!acc) acc = int8_depthwise(c, n, &o);
  bool in_acc = acc && o.bias;
  return finish(c, n, acc ? acc : oi_conv_ir(c, n, o.x, o.w, 0), &o, 1, bias, in_acc);
}

/* ---- QLinearConv and QLinearMatMul (the QOperator forms) on the same
 * integer paths: their u8/i8 input read as k = xq - zx, their constant
 * weight as a DequantizeLinear record, then requantized as ONNX Runtime's
 * QLinearConv: saturate(roundeven((acc + bias) * f32(f32(sx * sw[m]) /
 * sy)) + zy). ---- */

/* a0 = xq (u8/i8), u = {x's ONNX type, zx}: xq - zx as f32 (exact) */
typedef struct { int32_t t; float zx; } k_user;

static bool k_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const k_user *k = u;
  kiln_value *v = oi_convert(b, a[0], k->t, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, kiln_type_f32(b->ctx));
  kiln_value *z = oi_scalar(b, kiln_type_f32(b->ctx), k->zx, 0);
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, v, z);
  return true;
}

/* The n values of constant v (n = 1 or `m`), as doubles; NULL when v is
 * not a constant of that many elements. */
static double *const_values(oi_ctx *c, oi_val *v, int64_t m, int64_t *n, bool as_int) {
  const kiln_attr *a = v ? oi_const(c, v) : NULL;
  int64_t k = a ? oi_numel(v->type) : 0;
  if (!a || (k != 1 && k != m)) return NULL;
  bool u8 = v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  double *out = kiln_alloc(c->ctx, (size_t)k * sizeof *out);
  for (int64_t i = 0; i < k; i++)
    out[i] = as_int ? (double)(kiln_dense_get_int(a, i) & (u8 ? 0xFF : -1)) : kiln_dense_get_float(a, i);
  *n = k;
  return out;
}

int oi_qdq_qlinear(oi_ctx *c, oi_node *n, bool conv) {
  int32_t U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8,
          F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  oi_val *x = oi_opt_in(n, 0), *xs = oi_opt_in(n, 1), *xz = oi_opt_in(n, 2), *w = oi_opt_in(n, 3),
         *ws = oi_opt_in(n, 4), *wz = oi_opt_in(n, 5), *ys = oi_opt_in(n, 6), *yz = oi_opt_in(n, 7),
         *bias = conv ? oi_opt_in(n, 8) : NULL;
  if (!x || !xs || !xz || !w || !ws || !wz || !ys || !yz) return 0;
  if ((x->dtype != U8 && x->dtype != I8) || (w->dtype != U8 && w->dtype != I8) || (yz->dtype != U8 && yz->dtype != I8) ||
      xz->dtype != x->dtype || wz->dtype != w->dtype || xs->dtype != F || ws->dtype != F || ys->dtype != F)
    return 0; /* the generic path reports what is wrong */
  const kiln_type *wt = w->type;
  if (!oi_const(c, w) || (conv ? wt->rank < 3 : wt->rank != 2) || x->type->rank < 2) return 0;
  uint32_t axis = conv ? 0 : 1;
  int64_t M = wt->shape[axis], nxs, nxz, nws, nwz, nys, nyz, nb = 0;
  double *sx = const_values(c, xs, 1, &nxs, false), *zx = const_values(c, xz, 1, &nxz, true);
  double *sw = const_values(c, ws, M, &nws, false), *zw = const_values(c, wz, M, &nwz, true);
  double *sy = const_values(c, ys, 1, &nys, false), *zy = const_values(c, yz, 1, &nyz, true);
  if (!sx || !zx || !sw || !zw || !sy || !zy || nws != nwz || !(sy[0] >= 0x1p-100 && sy[0] <= 0x1p100)) return 0;
  double *bi = NULL;
  if (bias) {
    if (bias->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 || bias->type->rank != 1 ||
        !(bi = const_values(c, bias, M, &nb, true)) || nb != M)
      return 0;
    for (int64_t m = 0; m < M; m++)
      if (!(fabs(bi[m]) < 0x1p24)) return 0;
  }
  /* x and w as DequantizeLinear records, x's k built here */
  int64_t *zxi = kiln_alloc(c->ctx, sizeof *zxi), *zwi = kiln_alloc(c->ctx, (size_t)nwz * sizeof *zwi);
  zxi[0] = (int64_t)zx[0];
  for (int64_t i = 0; i < nwz; i++) zwi[i] = (int64_t)zw[i];
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return -1;
  k_user ku = {x->dtype, (float)zx[0]};
  const kiln_type *xt = x->type;
  kiln_value *k = oi_elementwise_ir(c, 1, &xv, xt->rank, xt->shape, kiln_type_f32(c->ctx), k_body, &ku);
  if (!k) return -1;
  oi_dq *dx = kiln_alloc(c->ctx, sizeof *dx), *dw = kiln_alloc(c->ctx, sizeof *dw);
  *dx = (oi_dq){x, sx, zxi, 1, 0, false, k, NULL, NULL};
  *dw = (oi_dq){w, sw, zwi, nws, axis, nws != 1, NULL, NULL, NULL};
  oi_val *xr = oi_val_copy(c, x), *wr = oi_val_copy(c, w);
  xr->dq = dx, wr->dq = dw;
  qdq_operands o;
  int r = operands(c, xr, wr, axis, false, &o);
  if (r <= 0) return r;
  o.bias = bi;
  kiln_value *acc = NULL;
  uint32_t dim = 1;
  if (conv) {
    acc = int8_conv(c, n, &o);
    if (!acc) acc = int8_depthwise(c, n, &o);
  } else {
    acc = int8_matmul(c, &o, o.x, o.wf, wt->shape[0], M, NULL);
    dim = acc ? acc->type->rank - 1 : 0;
  }
  if (!acc) return 0; /* the generic widening path then (what was built here is unused) */
  oi_prod p = {acc, o.scale, NULL, M, dim}; /* the int8 paths added the bias to acc */
  kiln_value *y = oi_qdq_requant_input(c, &p, (float)sy[0]);
  y = y ? oi_quantize_divided(c, y, (int64_t)zy[0], yz->dtype) : NULL;
  if (!y) return -1;
  oi_set_out(c, n, 0, y, yz->dtype);
  return 1;
}

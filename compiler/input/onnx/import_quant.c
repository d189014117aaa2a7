/* Quantization family: QuantizeLinear and DequantizeLinear (opset 13:
 * per-tensor or per-axis scale and zero point), DynamicQuantizeLinear, and
 * the integer products MatMulInteger, ConvInteger, QLinearMatMul and
 * QLinearConv (those two, with constant weights and parameters, on the
 * QDQ forms' 8-bit kernels: import_qdq.c), and the ends of the
 * com.microsoft QLinear elementwise ops and pools (import_qlinear.c).
 *
 * Takes: x, scale (scalar or 1-D along `axis`), optional zero point
 * (u8/i8; u8 when absent; DequantizeLinear also takes i32 x with an i32
 * zero point, the form quantizers write for biases); x may have run-time
 * dims (a dynamic batch), but not along a per-axis `axis`. Guarantees: one
 * elementwise generic; quantization rounds half to even and saturates to
 * the integer range; per-axis parameters are viewed to broadcast along
 * `axis`. DequantizeLinear of constants (a quantized model's weights and
 * biases) is an f32 constant, computed here as the kernel would compute
 * it, so that the ops reading it see a constant filter (the channels-last
 * convolution path, weight packing).
 *
 * With constant per-tensor parameters, the forms between quantized ops
 * avoid the u8 round trip and divisions, computing what the ops specify
 * exactly: DequantizeLinear is k = xq - zp then k * scale, and k is what
 * products in integer units read (import_qdq.c); when xq comes from a
 * QuantizeLinear with the same parameters, k is computed from that
 * float, as round(clamp(x / scale, lo - zp, hi - zp)); QuantizeLinear of
 * a dequantized value (through a Clip or Relu) multiplies k by one f32
 * ratio of the scales where that was checked exact for every k, and of a
 * product in integer units requantizes as integer kernels do
 * ((acc + bias) * scale ratio, import_qdq.c). */
#include <math.h>

#include "import_internal.h"

/* cst: the scale and zero point are the constants `scale` and `zp`, built
 * into the body instead of read as rank-0 inputs (each input a kernel
 * fusing the op must carry: a convolution whose epilogue read them ran
 * 20 times slower than with constants). */
/* k_only: dequantize's xq - zp as f32 only; k_given: a0 is that already;
 * k_of_float: a0 is the f32 that a QuantizeLinear with these parameters
 * quantized, and the result is xq - zp computed from it; divided: a0 is
 * that f32 divided by the scale already; narrow: quantize saturates to
 * [klo + zp, khi + zp] (a Clip folded in). */
typedef struct {
  bool quant, has_zp, zp_unsigned, cst, k_only, k_given, k_of_float, divided, narrow;
  int32_t out, zdt;
  float scale;
  int64_t zp;
  double klo, khi; /* narrow (or k_of_float): the range of xq - zp */
  bool sum_only;   /* k_of_float: the rounding's sum k + 1.5 * 2^23, not k */
} q_user;

/* s rounded to the nearest integer, ties to even (ONNX's rounding), for
 * f32 s: clamped to +-2^22 (every caller saturates to a far smaller range
 * afterwards), s + 1.5 * 2^23 lands where f32 steps are exactly 1, so the
 * add rounds (to nearest even, the default mode) and the subtraction is
 * exact. Four vector ops where a floor-based form took about thirty. */
static kiln_value *round_even(kiln_builder *b, kiln_value *s) {
  const kiln_type *f = s->type;
  kiln_value *lo = oi_scalar(b, f, -4194304.0, 0), *hi = oi_scalar(b, f, 4194304.0, 0);
  kiln_value *magic = oi_scalar(b, f, 12582912.0, 0);
  s = oi_op2(b, KILN_OP_ARITH_MINIMUMF, oi_op2(b, KILN_OP_ARITH_MAXIMUMF, s, lo), hi);
  return oi_op2(b, KILN_OP_ARITH_SUBF, oi_op2(b, KILN_OP_ARITH_ADDF, s, magic), magic);
}

/* a0 = k + 1.5 * 2^23 (an integer-valued f32 of [2^23, 2^24]): k, exactly */
static bool sub_magic_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, a[0], oi_scalar(b, kiln_type_f32(b->ctx), 12582912.0, 0));
  return true;
}

/* A clamp's lower bound of 0 as -0.0: maximumf(x, -0.0) differs from
 * maximumf(x, +0.0) only in the sign of a zero result, which the rounding
 * or integer conversion after every clamp here drops; with +0.0 LLVM
 * adds a signed-zero and NaN fix-up to x86's vmaxps (2 more ops per
 * vector in every requantizing epilogue with a ReLU's range). */
static double lower_bound(double lo) { return lo == 0 ? -0.0 : lo; }

/* a0 = x, a1 = scale, a2 = zero point (optional; a1, a2 absent when cst) */
static bool q_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  q_user *q = u;
  kiln_context *ctx = b->ctx;
  const kiln_type *f32 = kiln_type_f32(ctx), *i8 = kiln_type_int(ctx, 8);
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, I32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  int32_t zdt = q->zdt;
  const kiln_type *i32 = kiln_type_int(ctx, 32);
  kiln_value *scale = q->cst ? oi_scalar(b, f32, q->scale, 0) : a[1];
  if (q->k_of_float) {
    /* saturate(round(x / s) + zp) - zp = clamp(round(x / s), lo - zp,
     * hi - zp) = round(clamp(x / s, lo - zp, hi - zp)), the bounds being
     * integers; the clamp also keeps the value where the rounding's add
     * is exact. All f32 steps on small integers: exact. */
    double lo = q->klo, hi = q->khi;
    kiln_value *v = q->divided ? a[0] : oi_op2(b, KILN_OP_ARITH_DIVF, a[0], scale);
    /* One builder call per statement: C leaves the order of a call's
     * arguments open, and gcc and clang built these in opposite orders. */
    kiln_value *khi = oi_scalar(b, f32, hi, 0), *klo = oi_scalar(b, f32, lower_bound(lo), 0);
    v = oi_op2(b, KILN_OP_ARITH_MINIMUMF, oi_op2(b, KILN_OP_ARITH_MAXIMUMF, v, klo), khi);
    kiln_value *magic = oi_scalar(b, f32, 12582912.0, 0);
    kiln_value *sum = oi_op2(b, KILN_OP_ARITH_ADDF, v, magic);
    y[0] = q->sum_only ? sum : oi_op2(b, KILN_OP_ARITH_SUBF, sum, magic);
    return true;
  }
  if (!q->quant) { /* (x - zp) * scale, in f32 */
    kiln_value *k = a[0];
    if (!q->k_given) {
      kiln_value *xi = oi_convert(b, a[0], q->out, I32, i32);
      if (q->has_zp)
        xi = oi_op2(b, KILN_OP_ARITH_SUBI, xi, q->cst ? oi_scalar(b, i32, 0, q->zp) : oi_convert(b, a[2], zdt, I32, i32));
      k = oi_convert(b, xi, I32, F, f32);
    }
    y[0] = q->k_only ? k : oi_op2(b, KILN_OP_ARITH_MULF, k, scale);
    return true;
  }
  kiln_value *x = oi_convert(b, a[0], ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, F, f32);
  kiln_value *r = round_even(b, q->divided ? x : oi_op2(b, KILN_OP_ARITH_DIVF, x, scale));
  if (q->has_zp)
    r = oi_op2(b, KILN_OP_ARITH_ADDF, r, q->cst ? oi_scalar(b, f32, (double)q->zp, 0) : oi_convert(b, a[2], zdt, F, f32));
  double lo = q->zp_unsigned ? 0 : -128, hi = q->zp_unsigned ? 255 : 127;
  if (q->narrow) lo = q->klo + (double)q->zp, hi = q->khi + (double)q->zp;
  r = oi_op2(b, KILN_OP_ARITH_MAXIMUMF, r, oi_scalar(b, f32, lower_bound(lo), 0));
  r = oi_op2(b, KILN_OP_ARITH_MINIMUMF, r, oi_scalar(b, f32, hi, 0));
  y[0] = oi_convert(b, r, F, q->out, i8);
  return true;
}

/* Largest constant dequantized at import time (as fold-constants' limit):
 * a few ResNet-50 layers' weights, not an embedding table. */
#define Q_FOLD_MAX (1 << 22)

/* x, scale and zero point constants: (x - zp) * scale in f32, per `ax`
 * when the scale is 1-D; NULL when something is not a constant or too big. */
static const kiln_attr *dequantize_constant(oi_ctx *c, oi_val *x, oi_val *s, oi_val *z, bool per_axis,
                                            uint32_t ax) {
  const kiln_attr *xa = oi_const(c, x), *sa = xa ? oi_const(c, s) : NULL;
  const kiln_attr *za = z && sa ? oi_const(c, z) : NULL;
  const kiln_type *t = x->type;
  int64_t n = oi_numel(t);
  if (!xa || !sa || (z && !za) || n < 0 || n > Q_FOLD_MAX) return NULL;
  int64_t inner = 1;
  if (per_axis)
    for (uint32_t d = ax + 1; d < t->rank; d++) inner *= t->shape[d];
  bool xu = x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  bool zu = z && z->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  float *out = kiln_alloc(c->ctx, (size_t)n * sizeof(float) + 1);
  for (int64_t i = 0; i < n; i++) {
    int64_t k = per_axis ? (i / inner) % t->shape[ax] : 0;
    int64_t xi = kiln_dense_get_int(xa, i), zi = za ? kiln_dense_get_int(za, k) : 0;
    if (xu) xi &= 0xFF; /* the attribute holds u8 as signless i8 */
    if (zu) zi &= 0xFF;
    /* the kernel's arithmetic: i32 difference, to f32, times the f32 scale */
    out[i] = (float)(int32_t)(xi - zi) * (float)kiln_dense_get_float(sa, k);
  }
  const kiln_type *ft = oi_tensor_type(c, t->rank, t->shape, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  return ft ? kiln_attr_dense(c->ctx, ft, false, out, (size_t)n * sizeof(float)) : NULL;
}

/* What DequantizeLinear dequantizes, when its scale and zero point are
 * constants (at most OI_FOLD_MAX of them), for import_qdq.c; else NULL. */
static oi_dq *record_dq(oi_ctx *c, oi_val *x, oi_val *s, oi_val *z, bool per_axis, uint32_t ax) {
  const kiln_attr *sa = oi_const(c, s), *za = z && sa ? oi_const(c, z) : NULL;
  int64_t n = oi_numel(s->type);
  if (!sa || (z && !za) || n < 1 || n > OI_FOLD_MAX) return NULL;
  oi_dq *d = kiln_alloc(c->ctx, sizeof *d);
  double *sc = kiln_alloc(c->ctx, (size_t)n * sizeof *sc);
  int64_t *zp = za ? kiln_alloc(c->ctx, (size_t)n * sizeof *zp) : NULL;
  for (int64_t i = 0; i < n; i++) {
    sc[i] = kiln_dense_get_float(sa, i);
    if (zp) zp[i] = kiln_dense_get_int(za, i) & (z->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 ? 0xFF : -1);
  }
  *d = (oi_dq){x, sc, zp, n, ax, per_axis, NULL, NULL, NULL};
  return d;
}

void oi_note_clamp(oi_ctx *c, oi_val *out, const oi_val *x, double lo, double hi) {
  const oi_dq *d = x->dqc ? x->dqc->dq : x->dq;
  if (!d || !d->k || d->n != 1 || !(lo <= hi)) return;
  oi_dqc *r = kiln_alloc(c->ctx, sizeof *r);
  *r = (oi_dqc){d, lo, hi};
  if (x->dqc) { /* a clamp of a clamp */
    r->lo = lo > x->dqc->lo ? lo : x->dqc->lo;
    r->hi = hi < x->dqc->hi ? hi : x->dqc->hi;
    if (!(r->lo <= r->hi)) return;
  }
  out->dqc = r;
}

/* f32 round half to even, as the kernels compute it */
static float rne(float v) { return nearbyintf(v); }

/* Quantizing (scale s2) a dequantized k (scale s1, per tensor), maybe
 * clamped to [lo, hi] by Clip or Relu in between: computed as k * m with
 * one f32 multiplier m instead of (k * s1) / s2, when for every k the
 * dequantized operand can hold, round(k * m) equals round((k * s1) / s2)
 * in f32 (checked here, all of them: at most 256); the clamp moves after
 * the rounding, which is monotone, as the range [round(lo / s2),
 * round(hi / s2)] of xq - zp (q->klo, q->khi narrowed). NULL, q
 * untouched, when no multiplier passes the check or the form differs. */
static kiln_value *requant_dq(oi_ctx *c, oi_val *x, q_user *q) {
  const oi_dq *d = x->dqc ? x->dqc->dq : x->dq;
  double lo = x->dqc ? x->dqc->lo : -INFINITY, hi = x->dqc ? x->dqc->hi : INFINITY;
  if (!d || !d->k || d->n != 1) return NULL;
  int32_t U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if (d->q->dtype != U8 && d->q->dtype != I8) return NULL;
  float s1 = (float)d->scale[0], s2 = q->scale;
  if (!(s1 >= 0x1p-100f && s1 <= 0x1p100f && s2 >= 0x1p-100f && s2 <= 0x1p100f)) return NULL;
  int64_t z1 = d->zp ? d->zp[0] : 0, k0 = (d->q->dtype == U8 ? 0 : -128) - z1, k1 = k0 + 255;
  double klo = q->klo, khi = q->khi;
  if (lo > -INFINITY) klo = fmax(klo, rne((float)lo / s2));
  if (hi < INFINITY) khi = fmin(khi, rne((float)hi / s2));
  if (!(klo <= khi)) return NULL;
  float m0 = s1 / s2, cand[3] = {m0, nextafterf(m0, 0), nextafterf(m0, INFINITY)};
  for (int i = 0; i < 3; i++) {
    float m = cand[i];
    bool ok = true;
    for (int64_t k = k0; k <= k1 && ok; k++) {
      double e = fmin(fmax(rne(((float)k * s1) / s2), klo), khi), f = fmin(fmax(rne((float)k * m), klo), khi);
      ok = e == f;
    }
    if (!ok) continue;
    const kiln_type *t = x->type;
    kiln_value *kv = d->k;
    q_user mul = {0};
    mul.cst = true, mul.k_given = true, mul.scale = m;
    kiln_value *r = oi_elementwise_ir(c, 1, &kv, t->rank, t->shape, kiln_type_f32(c->ctx), q_body, &mul);
    if (!r) return NULL;
    q->divided = q->narrow = true;
    q->klo = klo, q->khi = khi;
    return r;
  }
  return NULL;
}

static bool quant(oi_ctx *c, oi_node *n, bool quantize) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *s = x ? oi_in(c, n, 1) : NULL, *z = oi_opt_in(n, 2);
  if (!s) return false;
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
          I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if (s->dtype != F) return oi_unsupported(c, "scale of type %s (f32 only)", oi_dtype_name(s->dtype));
  int32_t I32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  if (z && z->dtype != U8 && z->dtype != I8 && (quantize || z->dtype != I32))
    return oi_unsupported(c, "zero point of type %s (u8 or i8)", oi_dtype_name(z->dtype));
  if (quantize ? x->dtype != F : (x->dtype != U8 && x->dtype != I8 && x->dtype != I32))
    return oi_unsupported(c, "input of type %s", oi_dtype_name(x->dtype));
  if (z && !quantize && z->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "zero point and x differ in type");
  if (z && (z->type->rank != s->type->rank || oi_numel(z->type) != oi_numel(s->type)))
    return oi_invalid(c, "scale and zero point differ in shape");
  const kiln_type *t = x->type;
  int64_t axis;
  uint32_t ax = 0;
  if (!oi_attr_int(c, n, "axis", 1, &axis)) return false;
  bool per_axis = s->type->rank == 1;
  if (s->type->rank > 1) return oi_invalid(c, "scale must be a scalar or 1-D");
  if (per_axis) {
    if (!oi_axis(c, axis, t->rank, "axis", &ax)) return false;
    if (oi_dyn(t, ax))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "axis %u has a run-time size; per-axis parameters need a static one",
                     ax);
    if (s->type->shape[0] != t->shape[ax])
      return oi_invalid(c, "scale has %lld entries, axis %u has %lld", (long long)s->type->shape[0], ax,
                        (long long)t->shape[ax]);
  }
  oi_dq *dq = quantize ? NULL : record_dq(c, x, s, z, per_axis, ax);
  if (!quantize && (x->tensor || x->cst) && (s->tensor || s->cst) && (!z || z->tensor || z->cst)) {
    const kiln_attr *k = dequantize_constant(c, x, s, z, per_axis, ax);
    if (k) {
      oi_set_out_const(c, n, 0, k, F);
      if (n->out[0]) n->out[0]->dq = dq;
      return true;
    }
  }
  q_user q = {quantize, z != NULL, z ? z->dtype == U8 : true, false, false, false, false, false, false,
              quantize ? (z ? z->dtype : U8) : x->dtype, z ? z->dtype : U8, 0, 0, 0, 0, false};
  const kiln_attr *sa = per_axis ? NULL : oi_const(c, s), *za = z && sa ? oi_const(c, z) : NULL;
  if (sa && (!z || za)) { /* per-tensor constants: into the body */
    q.cst = true;
    q.scale = (float)kiln_dense_get_float(sa, 0);
    q.zp = za ? kiln_dense_get_int(za, 0) : 0;
    if (za && z->dtype == U8) q.zp &= 0xFF; /* u8 is stored as signless i8 */
    q.klo = (q.zp_unsigned ? 0 : -128) - (double)q.zp;
    q.khi = (q.zp_unsigned ? 255 : 127) - (double)q.zp;
    kiln_value *xv = oi_ir(c, x);
    int32_t out = quantize ? q.out : F;
    kiln_value *r;
    if (quantize && x->prod && xv) {
      /* quantizing a product in integer units: (acc + bias) * scale /
       * y_scale with the multiplier folded, as integer kernels (ONNX
       * Runtime's QLinearConv among them) requantize; no division */
      xv = oi_qdq_requant_input(c, x->prod, q.scale);
      q.divided = true;
    } else if (quantize && xv) {
      kiln_value *rq = requant_dq(c, x, &q);
      if (rq) xv = rq;
    }
    if (!quantize && dq && x->dtype != I32) {
      /* two steps, k = xq - zp then k * scale: a product in integer units
       * (import_qdq.c) reads k where it would round y / scale back to it,
       * and when k has several readers (a residual add besides the next
       * convolution) it is the one tensor stored and the multiply fuses
       * into the add, instead of a pass of its own that divides again */
      q_user qk = q;
      qk.k_only = true;
      /* quantizers write one DequantizeLinear per reader of a quantized
       * tensor: they share k, so that it is stored once and every reader
       * (the residual add too) reads it */
      const oi_dq *o = x->dq_of;
      const oi_q *xq = x->q;
      if (o && o->scale[0] == dq->scale[0] && (o->zp ? o->zp[0] : 0) == (dq->zp ? dq->zp[0] : 0)) {
        dq->k = o->k, dq->x8 = o->x8;
      } else {
        if (xq && xq->scale == q.scale && xq->zp == q.zp && xq->zp_unsigned == (x->dtype == U8)) {
          /* a quantize -> dequantize pair: k straight from the float */
          qk.k_of_float = true;
          qk.zp_unsigned = xq->zp_unsigned;
          qk.divided = xq->divided;
          qk.klo = xq->klo;
          qk.khi = xq->khi;
          xv = xq->x;
        }
        if (qk.k_of_float && xv) {
          /* k as (its rounding's sum) - 1.5 * 2^23: a reader adding an
           * integer to k (an 8-bit kernel's bytes) subtracts once */
          qk.sum_only = true;
          dq->k_sum = oi_elementwise_ir(c, 1, &xv, t->rank, t->shape, oi_elem_type(c, F), q_body, &qk);
          dq->k = dq->k_sum ? oi_elementwise_ir(c, 1, &dq->k_sum, t->rank, t->shape, oi_elem_type(c, F),
                                                sub_magic_body, NULL)
                            : NULL;
        } else {
          dq->k = xv ? oi_elementwise_ir(c, 1, &xv, t->rank, t->shape, oi_elem_type(c, F), q_body, &qk) : NULL;
        }
        if (dq->k) x->dq_of = dq;
      }
      q.k_given = true;
      r = dq->k ? oi_elementwise_ir(c, 1, &dq->k, t->rank, t->shape, oi_elem_type(c, F), q_body, &q) : NULL;
    } else {
      r = xv ? oi_elementwise_ir(c, 1, &xv, t->rank, t->shape, oi_elem_type(c, out), q_body, &q) : NULL;
    }
    if (!r) return false;
    oi_set_out(c, n, 0, r, out);
    if (n->out[0]) n->out[0]->dq = dq;
    if (quantize && n->out[0] && xv) {
      oi_q *rec = kiln_alloc(c->ctx, sizeof *rec);
      *rec = (oi_q){xv, q.scale, q.zp, q.zp_unsigned, q.divided, q.klo, q.khi};
      n->out[0]->q = rec;
    }
    return true;
  }
  kiln_value *ins[3] = {oi_ir(c, x), oi_ir(c, s), z ? oi_ir(c, z) : NULL};
  if (!ins[0] || !ins[1] || (z && !ins[2])) return false;
  if (per_axis) {
    int64_t sh[OI_MAX_RANK];
    for (uint32_t d = 0; d < t->rank; d++) sh[d] = d == ax ? t->shape[d] : 1;
    ins[1] = oi_reshape(c, ins[1], t->rank, sh);
    if (z) ins[2] = oi_reshape(c, ins[2], t->rank, sh);
  }
  int32_t out = quantize ? q.out : F;
  kiln_value *r = oi_elementwise_ir(c, z ? 3 : 2, ins, t->rank, t->shape, oi_elem_type(c, out), q_body, &q);
  if (!r) return false;
  oi_set_out(c, n, 0, r, out);
  if (n->out[0]) n->out[0]->dq = dq;
  return true;
}

bool oi_import_quantize(oi_ctx *c, oi_node *n) { return quant(c, n, true); }
bool oi_import_dequantize(oi_ctx *c, oi_node *n) { return quant(c, n, false); }

/* ---- the ends of ONNX Runtime's QLinear elementwise and pooling ops
 * (import_qlinear.c): one scale and one optional zero point per tensor,
 * built into the body when constant (as above), else read as rank-0
 * values. ---- */

/* q's parameters from scale s and zero point z (NULL: 0) of a tensor of
 * ONNX type t (u8/i8); ins[1], ins[2] the run-time ones. Returns the
 * number of body inputs (1 to 3), 0 on an error (reported). */
static uint32_t ql_params(oi_ctx *c, oi_val *s, oi_val *z, int32_t t, const char *what, q_user *q,
                          kiln_value **ins) {
  int32_t U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if (t != U8 && t != I8) {
    oi_unsupported(c, "%s of type %s (u8 or i8)", what, oi_dtype_name(t));
    return 0;
  }
  if (s->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
    oi_unsupported(c, "%s's scale of type %s (f32 only)", what, oi_dtype_name(s->dtype));
    return 0;
  }
  if (oi_numel(s->type) != 1) {
    oi_invalid(c, "%s's scale must hold one element (it has %lld)", what, (long long)oi_numel(s->type));
    return 0;
  }
  if (z && z->dtype != t) {
    oi_fail(c, KILN_ONNX_ERR_TYPE, "%s's zero point is %s, the tensor %s", what, oi_dtype_name(z->dtype),
            oi_dtype_name(t));
    return 0;
  }
  if (z && oi_numel(z->type) != 1) {
    oi_invalid(c, "%s's zero point must hold one element (it has %lld)", what, (long long)oi_numel(z->type));
    return 0;
  }
  q->has_zp = z != NULL, q->zp_unsigned = t == U8, q->zdt = t;
  const kiln_attr *sa = oi_const(c, s), *za = z && sa ? oi_const(c, z) : NULL;
  if (sa && (!z || za)) {
    q->cst = true;
    q->scale = (float)kiln_dense_get_float(sa, 0);
    q->zp = za ? kiln_dense_get_int(za, 0) & (t == U8 ? 0xFF : -1) : 0;
    return 1;
  }
  ins[1] = oi_ir(c, s), ins[2] = z ? oi_ir(c, z) : NULL;
  if (!ins[1] || (z && !ins[2])) return 0;
  ins[1] = oi_reshape(c, ins[1], 0, NULL);
  if (z) ins[2] = oi_reshape(c, ins[2], 0, NULL);
  return ins[1] && (!z || ins[2]) ? (z ? 3 : 2) : 0;
}

kiln_value *oi_qlinear_dequantize(oi_ctx *c, oi_val *x, oi_val *s, oi_val *z, const char *what) {
  q_user q = {0};
  q.out = x->dtype;
  kiln_value *ins[3] = {NULL, NULL, NULL};
  uint32_t nin = ql_params(c, s, z, x->dtype, what, &q, ins);
  ins[0] = nin ? oi_ir(c, x) : NULL;
  if (!ins[0]) return NULL;
  const kiln_type *t = x->type;
  return oi_elementwise_ir(c, nin, ins, t->rank, t->shape, kiln_type_f32(c->ctx), q_body, &q);
}

kiln_value *oi_quantize_divided(oi_ctx *c, kiln_value *v, int64_t zp, int32_t t) {
  q_user q = {0};
  q.quant = q.cst = q.divided = q.has_zp = true;
  q.out = q.zdt = t, q.zp = zp, q.zp_unsigned = t == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  const kiln_type *vt = v->type;
  return oi_elementwise_ir(c, 1, &v, vt->rank, vt->shape, kiln_type_int(c->ctx, 8), q_body, &q);
}

kiln_value *oi_qlinear_quantize(oi_ctx *c, kiln_value *v, oi_val *s, oi_val *z, int32_t t, const char *what) {
  q_user q = {0};
  q.quant = true, q.out = t;
  kiln_value *ins[3] = {v, NULL, NULL};
  uint32_t nin = ql_params(c, s, z, t, what, &q, ins);
  if (!nin) return NULL;
  const kiln_type *vt = v->type;
  return oi_elementwise_ir(c, nin, ins, vt->rank, vt->shape, kiln_type_int(c->ctx, 8), q_body, &q);
}

/* ---- integer products: MatMulInteger, ConvInteger, QLinearMatMul,
 * QLinearConv. Operands widen to i32 minus their zero points (scalar, or
 * per row of A / per output channel of W along `axis`), the product
 * accumulates in i32; the QLinear forms requantize with the real
 * multiplier x_scale * w_scale / y_scale (f32, as ONNX Runtime computes
 * it), rounding half to even and saturating to the output type. */
typedef struct { int32_t from, zfrom; bool has_zp; } widen_user;

static bool widen_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  widen_user *w = u;
  const kiln_type *i32 = kiln_type_int(b->ctx, 32);
  int32_t I32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  kiln_value *x = oi_convert(b, a[0], w->from, I32, i32);
  if (w->has_zp) x = oi_op2(b, KILN_OP_ARITH_SUBI, x, oi_convert(b, a[1], w->zfrom, I32, i32));
  y[0] = x;
  return true;
}

/* x - zp as i32; zp scalar/one-element, or 1-D along dim `axis` of x. */
static kiln_value *widen(oi_ctx *c, oi_val *x, oi_val *zp, uint32_t axis, const char *what) {
  if (x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 && x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT8) {
    oi_unsupported(c, "%s of type %s (u8 or i8)", what, oi_dtype_name(x->dtype));
    return NULL;
  }
  if (zp && zp->dtype != x->dtype) {
    oi_fail(c, KILN_ONNX_ERR_TYPE, "%s's zero point differs from it in type", what);
    return NULL;
  }
  const kiln_type *t = x->type;
  kiln_value *ins[2] = {oi_ir(c, x), zp ? oi_ir(c, zp) : NULL};
  if (!ins[0] || (zp && !ins[1])) return NULL;
  if (zp) {
    int64_t nz = oi_numel(zp->type), sh[OI_MAX_RANK];
    if (nz == 1) {
      ins[1] = oi_reshape(c, ins[1], 0, NULL);
    } else if (zp->type->rank == 1 && axis < t->rank && nz == t->shape[axis]) {
      for (uint32_t d = 0; d < t->rank; d++) sh[d] = d == axis ? nz : 1;
      ins[1] = oi_reshape(c, ins[1], t->rank, sh);
    } else {
      oi_invalid(c, "%s's zero point has %lld elements", what, (long long)nz);
      return NULL;
    }
  }
  widen_user w = {x->dtype, zp ? zp->dtype : 0, zp != NULL};
  return oi_elementwise_ir(c, zp ? 2 : 1, ins, t->rank, t->shape, kiln_type_int(c->ctx, 32), widen_body, &w);
}

/* a0 = acc (i32), a1 = x_scale * w_scale (f32, scalar or per channel),
 * a2 = y_scale, a3 = y zero point */
typedef struct { int32_t out; } requant_user;

static bool requant_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  requant_user *q = u;
  const kiln_type *f32 = kiln_type_f32(b->ctx);
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, I32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  bool isu = q->out == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  kiln_value *m = oi_op2(b, KILN_OP_ARITH_DIVF, a[1], a[2]);
  kiln_value *r = round_even(b, oi_op2(b, KILN_OP_ARITH_MULF, oi_convert(b, a[0], I32, F, f32), m));
  r = oi_op2(b, KILN_OP_ARITH_ADDF, r, oi_convert(b, a[3], q->out, F, f32));
  r = oi_op2(b, KILN_OP_ARITH_MAXIMUMF, r, oi_scalar(b, f32, lower_bound(isu ? 0 : -128), 0));
  r = oi_op2(b, KILN_OP_ARITH_MINIMUMF, r, oi_scalar(b, f32, isu ? 255 : 127, 0));
  y[0] = oi_convert(b, r, F, q->out, kiln_type_int(b->ctx, 8));
  return true;
}

static bool mul_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, a[0], a[1]);
  return true;
}

/* acc [.., M, ..] requantized; xs scalar, ws scalar or [M] along `axis`. */
static kiln_value *requant(oi_ctx *c, kiln_value *acc, oi_val *xs, oi_val *ws, uint32_t axis, oi_val *ys, oi_val *yz) {
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  if (xs->dtype != F || ws->dtype != F || ys->dtype != F) {
    oi_unsupported(c, "scales of a type other than f32");
    return NULL;
  }
  if (oi_numel(xs->type) != 1 || oi_numel(ys->type) != 1 || oi_numel(yz->type) != 1) {
    oi_invalid(c, "x_scale, y_scale and y_zero_point must hold one element");
    return NULL;
  }
  const kiln_type *t = acc->type;
  kiln_value *sx = oi_ir(c, xs), *sw = oi_ir(c, ws), *sy = oi_ir(c, ys), *zy = oi_ir(c, yz);
  if (!sx || !sw || !sy || !zy) return NULL;
  sx = oi_reshape(c, sx, 0, NULL), sy = oi_reshape(c, sy, 0, NULL), zy = oi_reshape(c, zy, 0, NULL);
  int64_t nw = oi_numel(ws->type), sh[OI_MAX_RANK];
  if (nw == 1) {
    sw = oi_reshape(c, sw, 0, NULL);
  } else if (ws->type->rank == 1 && nw == t->shape[axis]) {
    for (uint32_t d = 0; d < t->rank; d++) sh[d] = d == axis ? nw : 1;
    sw = oi_reshape(c, sw, t->rank, sh);
  } else {
    oi_invalid(c, "w_scale has %lld elements", (long long)nw);
    return NULL;
  }
  kiln_value *pair[2] = {sx, sw};
  const kiln_type *st = sw->type;
  kiln_value *scale = oi_elementwise_ir(c, 2, pair, st->rank, st->shape, kiln_type_f32(c->ctx), mul_body, NULL);
  if (!scale) return NULL;
  requant_user q = {yz->dtype};
  if (yz->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 && yz->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT8) {
    oi_unsupported(c, "y_zero_point of type %s", oi_dtype_name(yz->dtype));
    return NULL;
  }
  kiln_value *ins[4] = {acc, scale, sy, zy};
  return oi_elementwise_ir(c, 4, ins, t->rank, t->shape, kiln_type_int(c->ctx, 8), requant_body, &q);
}

bool oi_import_matmul_integer(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  bool ql = n->kind == OI_QLINEAR;
  if (!oi_arity(c, n, ql ? 8 : 2, ql ? 8 : 4, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  int q = ql ? oi_qdq_qlinear(c, n, false) : 0; /* constant weights: the 8-bit kernels */
  if (q) return q > 0;
  oi_val *a = oi_in(c, n, 0), *b = oi_in(c, n, ql ? 3 : 1);
  oi_val *az = oi_opt_in(n, ql ? 2 : 2), *bz = oi_opt_in(n, ql ? 5 : 3);
  if (!a || !b) return false;
  uint32_t ra = a->type->rank, rb = b->type->rank;
  /* a's zero point runs along its rows (dim -2), b's along its columns */
  kiln_value *va = widen(c, a, az, ra >= 2 ? ra - 2 : 0, "A");
  kiln_value *vb = va ? widen(c, b, bz, rb - 1, "B") : NULL;
  kiln_value *r = vb ? oi_matmul_ir(c, va, vb) : NULL;
  if (!r) return false;
  if (ql) {
    oi_val *as = oi_in(c, n, 1), *bs = oi_in(c, n, 4), *ys = oi_in(c, n, 6), *yz = oi_in(c, n, 7);
    if (!as || !bs || !ys || !yz) return false;
    r = requant(c, r, as, bs, r->type->rank - 1, ys, yz);
    if (!r) return false;
    oi_set_out(c, n, 0, r, yz->dtype);
    return true;
  }
  oi_set_out(c, n, 0, r, ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
  return true;
}

bool oi_import_conv_integer(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", NULL};
  bool ql = n->kind == OI_QLINEAR;
  if (!oi_arity(c, n, ql ? 8 : 2, ql ? 9 : 4, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  int q = ql ? oi_qdq_qlinear(c, n, true) : 0; /* constant weights: the 8-bit kernels */
  if (q) return q > 0;
  oi_val *x = oi_in(c, n, 0), *w = oi_in(c, n, ql ? 3 : 1);
  oi_val *xz = oi_opt_in(n, 2), *wz = oi_opt_in(n, ql ? 5 : 3);
  if (!x || !w) return false;
  /* zero points removed first, so the padding (zeros) is x's zero point */
  kiln_value *vx = widen(c, x, xz, 1, "x"), *vw = vx ? widen(c, w, wz, 0, "w") : NULL;
  kiln_value *r = vw ? oi_conv_ir(c, n, vx, vw, 0) : NULL;
  if (!r) return false;
  if (ql) {
    oi_val *xs = oi_in(c, n, 1), *ws = oi_in(c, n, 4), *ys = oi_in(c, n, 6), *yz = oi_in(c, n, 7);
    oi_val *bias = oi_opt_in(n, 8);
    if (!xs || !ws || !ys || !yz) return false;
    if (bias) {
      if (bias->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
        return oi_fail(c, KILN_ONNX_ERR_TYPE, "B must be int32, not %s", oi_dtype_name(bias->dtype));
      if (bias->type->rank != 1 || bias->type->shape[0] != r->type->shape[1])
        return oi_invalid(c, "B must be 1-D of size %lld", (long long)r->type->shape[1]);
      if (!(r = oi_add_bias(c, r, bias))) return false;
    }
    r = requant(c, r, xs, ws, 1, ys, yz);
    if (!r) return false;
    oi_set_out(c, n, 0, r, yz->dtype);
    return true;
  }
  oi_set_out(c, n, 0, r, ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
  return true;
}

/* ---- DynamicQuantizeLinear: u8 with a scale and zero point from the
 * data's range widened to include 0. ---- */
static bool dq_params_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  const kiln_type *f = a[0]->type;
  kiln_value *zero = oi_scalar(b, f, 0, 0);
  kiln_value *mx = oi_op2(b, KILN_OP_ARITH_MAXIMUMF, a[0], zero), *mn = oi_op2(b, KILN_OP_ARITH_MINIMUMF, a[1], zero);
  kiln_value *c255 = oi_scalar(b, f, 255, 0); /* before the subf: see q_body */
  kiln_value *s = oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_SUBF, mx, mn), c255);
  kiln_value *z = round_even(b, oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_SUBF, zero, mn), s));
  kiln_value *z255 = oi_scalar(b, f, 255, 0);
  z = oi_op2(b, KILN_OP_ARITH_MINIMUMF, oi_op2(b, KILN_OP_ARITH_MAXIMUMF, z, zero), z255);
  y[0] = s;
  y[1] = oi_convert(b, z, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
                    kiln_type_int(b->ctx, 8));
  return true;
}

bool oi_import_dynamic_quantize(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 1, 3, 3) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
    return oi_unsupported(c, "input of type %s (f32)", oi_dtype_name(x->dtype));
  const kiln_type *t = x->type;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  bool all[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) all[d] = true;
  kiln_value *mx = oi_reduce(c, xv, x->dtype, all, false, OI_RED_MAX);
  kiln_value *mn = mx ? oi_reduce(c, xv, x->dtype, all, false, OI_RED_MIN) : NULL;
  if (!mn) return false;
  const kiln_type *st = kiln_type_with_shape(c->ctx, t, 0, NULL);
  const kiln_type *zt = oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
  kiln_value *ins[2] = {mx, mn}, *outs[2] = {oi_empty(c, st), oi_empty(c, zt)};
  const kiln_affine_map *maps[4];
  for (int i = 0; i < 4; i++) maps[i] = kiln_affine_map_identity(c->ctx, 0);
  kiln_op *g = oi_generic(c, 2, ins, 2, outs, maps, 0, NULL, dq_params_body, NULL);
  if (!g) return false;
  q_user q = {true, true, true, false, false, false, false, false, false, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
              ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 0, 0, 0, 0, false};
  kiln_value *qi[3] = {xv, kiln_op_result(g, 0), kiln_op_result(g, 1)};
  kiln_value *r = oi_elementwise_ir(c, 3, qi, t->rank, t->shape, kiln_type_int(c->ctx, 8), q_body, &q);
  if (!r) return false;
  oi_set_out(c, n, 0, r, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
  oi_set_out(c, n, 1, kiln_op_result(g, 0), ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  oi_set_out(c, n, 2, kiln_op_result(g, 1), ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
  return true;
}

/* Quantization family: QuantizeLinear and DequantizeLinear (opset 13:
 * per-tensor or per-axis scale and zero point).
 *
 * Takes: x, scale (scalar or 1-D along `axis`), optional zero point
 * (u8/i8; u8 when absent). Guarantees: one elementwise generic;
 * quantization rounds half to even and saturates to the integer range;
 * per-axis parameters are viewed to broadcast along `axis`. */
#include "import_internal.h"

typedef struct { bool quant, has_zp, zp_unsigned; int32_t out; } q_user;

/* a0 = x, a1 = scale, a2 = zero point (optional) */
static bool q_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  q_user *q = u;
  kiln_context *ctx = b->ctx;
  const kiln_type *f32 = kiln_type_f32(ctx), *i8 = kiln_type_int(ctx, 8);
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, I32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  int32_t zdt = q->zp_unsigned ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 : ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if (!q->quant) { /* (x - zp) * scale, in f32 */
    kiln_value *xi = oi_convert(b, a[0], q->out, I32, kiln_type_int(ctx, 32));
    if (q->has_zp) xi = oi_op2(b, KILN_OP_ARITH_SUBI, xi, oi_convert(b, a[2], zdt, I32, kiln_type_int(ctx, 32)));
    y[0] = oi_op2(b, KILN_OP_ARITH_MULF, oi_convert(b, xi, I32, F, f32), a[1]);
    return true;
  }
  kiln_value *x = oi_convert(b, a[0], ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, F, f32);
  kiln_value *s = oi_op2(b, KILN_OP_ARITH_DIVF, x, a[1]);
  /* round half to even */
  kiln_value *half = oi_scalar(b, f32, 0.5, 0), *one = oi_scalar(b, f32, 1, 0), *two = oi_scalar(b, f32, 2, 0);
  kiln_value *fl = oi_op1(b, KILN_OP_MATH_FLOOR, s);
  kiln_value *diff = oi_op2(b, KILN_OP_ARITH_SUBF, s, fl), *up = oi_op2(b, KILN_OP_ARITH_ADDF, fl, one);
  kiln_value *even = oi_cmpf(b, OI_F_OEQ, oi_op2(b, KILN_OP_ARITH_MULF, oi_op1(b, KILN_OP_MATH_FLOOR,
                             oi_op2(b, KILN_OP_ARITH_MULF, fl, half)), two), fl);
  kiln_value *r = oi_select(b, oi_cmpf(b, OI_F_OGT, diff, half), up,
                            oi_select(b, oi_cmpf(b, OI_F_OEQ, diff, half), oi_select(b, even, fl, up), fl));
  if (q->has_zp) r = oi_op2(b, KILN_OP_ARITH_ADDF, r, oi_convert(b, a[2], zdt, F, f32));
  double lo = q->zp_unsigned ? 0 : -128, hi = q->zp_unsigned ? 255 : 127;
  r = oi_op2(b, KILN_OP_ARITH_MAXIMUMF, r, oi_scalar(b, f32, lo, 0));
  r = oi_op2(b, KILN_OP_ARITH_MINIMUMF, r, oi_scalar(b, f32, hi, 0));
  y[0] = oi_convert(b, r, F, q->out, i8);
  return true;
}

static bool quant(oi_ctx *c, oi_node *n, bool quantize) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *s = x ? oi_in(c, n, 1) : NULL, *z = oi_opt_in(n, 2);
  if (!s) return false;
  int32_t F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, U8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
          I8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  if (s->dtype != F) return oi_unsupported(c, "scale of type %s (f32 only)", oi_dtype_name(s->dtype));
  if (z && z->dtype != U8 && z->dtype != I8)
    return oi_unsupported(c, "zero point of type %s (u8 or i8)", oi_dtype_name(z->dtype));
  if (quantize ? x->dtype != F : (x->dtype != U8 && x->dtype != I8 && x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32))
    return oi_unsupported(c, "input of type %s", oi_dtype_name(x->dtype));
  if (!quantize && x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
    return oi_unsupported(c, "int32 input");
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
    if (s->type->shape[0] != t->shape[ax])
      return oi_invalid(c, "scale has %lld entries, axis %u has %lld", (long long)s->type->shape[0], ax,
                        (long long)t->shape[ax]);
  }
  q_user q = {quantize, z != NULL, z ? z->dtype == U8 : true, quantize ? (z ? z->dtype : U8) : x->dtype};
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
  return true;
}

bool oi_import_quantize(oi_ctx *c, oi_node *n) { return quant(c, n, true); }
bool oi_import_dequantize(oi_ctx *c, oi_node *n) { return quant(c, n, false); }

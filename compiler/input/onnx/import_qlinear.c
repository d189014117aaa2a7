/* ONNX Runtime's quantized elementwise and pooling operators (domain
 * com.microsoft), which its quantizer writes in the QOperator format
 * between QLinearConv / QLinearMatMul: QLinearAdd, QLinearMul,
 * QLinearAveragePool and QLinearGlobalAveragePool.
 *
 * Takes: u8 or i8 tensors, each with one f32 scale and an optional zero
 * point of its type (absent: 0), constant or computed; Add/Mul broadcast
 * numpy-style; the pools take AveragePool's attributes and
 * channels_last (0: [N, C, spatial...], 1: [N, spatial..., C]).
 * Guarantees: what ORT's schema defines, the float op on the dequantized
 * operands, quantized again: x = (xq - zx) * sx in f32, the op in f32
 * (the pools as Kiln's AveragePool / GlobalAveragePool), then
 * saturate(roundeven(y / sy) + zy) (import_quant.c). ORT's kernels
 * compute the same in fixed point or with the scales folded, so its
 * results may differ by one quantization step where a value lies next to
 * a rounding tie. A parameter of the wrong type or shape is an error
 * naming the tensor. */
#include "import_internal.h"

static bool add_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], a[1]);
  return true;
}

static bool mul_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  y[0] = oi_op2(b, KILN_OP_ARITH_MULF, a[0], a[1]);
  return true;
}

static bool quant_type(oi_ctx *c, const oi_val *x, const char *what) {
  if (x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 || x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT8)
    return true;
  return oi_fail(c, KILN_ONNX_ERR_TYPE, "%s must be uint8 or int8, not %s", what, oi_dtype_name(x->dtype));
}

/* QLinearAdd / QLinearMul (kind OI_ADD / OI_MUL): A, A_scale,
 * A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point */
bool oi_import_qlinear_binary(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 7, 8, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *a = oi_in(c, n, 0), *as = oi_in(c, n, 1), *bv = oi_in(c, n, 3), *bs = oi_in(c, n, 4), *cs = oi_in(c, n, 6);
  if (!a || !as || !bv || !bs || !cs || !quant_type(c, a, "A") || !quant_type(c, bv, "B")) return false;
  if (a->dtype != bv->dtype)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "A and B differ in type (%s and %s)", oi_dtype_name(a->dtype),
                   oi_dtype_name(bv->dtype));
  uint32_t rank;
  int64_t shape[OI_MAX_RANK];
  oi_val *pair[2] = {a, bv};
  if (!oi_broadcast_shape(c, 2, pair, &rank, shape)) return false;
  kiln_value *f[2] = {oi_qlinear_dequantize(c, a, as, oi_opt_in(n, 2), "A"), NULL};
  f[1] = f[0] ? oi_qlinear_dequantize(c, bv, bs, oi_opt_in(n, 5), "B") : NULL;
  if (!f[1]) return false;
  kiln_value *r = oi_elementwise_ir(c, 2, f, rank, shape, kiln_type_f32(c->ctx),
                                    n->kind == OI_MUL ? mul_body : add_body, NULL);
  r = r ? oi_qlinear_quantize(c, r, cs, oi_opt_in(n, 7), a->dtype, "C") : NULL;
  if (!r) return false;
  oi_set_out(c, n, 0, r, a->dtype);
  return true;
}

/* QLinearAveragePool (kind OI_AVGPOOL) and QLinearGlobalAveragePool
 * (OI_GLOBAL_AVG): X, x_scale, x_zero_point, y_scale, y_zero_point. A
 * channels-last X is pooled between two transposes (propagate-transposes
 * cancels them against channels-last neighbours). */
bool oi_import_qlinear_pool(oi_ctx *c, oi_node *n) {
  static const char *const gk[] = {"channels_last", NULL};
  static const char *const ak[] = {"auto_pad", "ceil_mode", "channels_last", "count_include_pad", "kernel_shape",
                                   "pads", "strides", NULL};
  bool global = n->kind == OI_GLOBAL_AVG;
  if (!oi_arity(c, n, 4, 5, 1, 1) || !oi_attrs_only(c, n, global ? gk : ak)) return false;
  oi_val *x = oi_in(c, n, 0), *xs = oi_in(c, n, 1), *ys = oi_in(c, n, 3);
  if (!x || !xs || !ys || !quant_type(c, x, "X")) return false;
  int64_t last;
  if (!oi_attr_int(c, n, "channels_last", 0, &last)) return false;
  if (last != 0 && last != 1) return oi_invalid(c, "channels_last must be 0 or 1, not %lld", (long long)last);
  uint32_t rank = x->type->rank;
  if (rank < 3) return oi_invalid(c, "X has rank %u, pools need 3 or more (N, C, spatial...)", rank);
  int64_t to_first[OI_MAX_RANK], to_last[OI_MAX_RANK];
  to_first[0] = to_last[0] = 0, to_first[1] = rank - 1, to_last[rank - 1] = 1;
  for (uint32_t d = 2; d < rank; d++) to_first[d] = d - 1, to_last[d - 1] = d;
  kiln_value *f = oi_qlinear_dequantize(c, x, xs, oi_opt_in(n, 2), "X");
  if (f && last) f = oi_transpose(c, f, to_first);
  kiln_value *r = f ? oi_pool_ir(c, n, f, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) : NULL;
  if (r && last) r = oi_transpose(c, r, to_last);
  r = r ? oi_qlinear_quantize(c, r, ys, oi_opt_in(n, 4), x->dtype, "Y") : NULL;
  if (!r) return false;
  oi_set_out(c, n, 0, r, x->dtype);
  return true;
}

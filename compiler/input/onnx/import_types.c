/* ONNX element types as IR types, and the type checks of import
 * functions.
 *
 * Takes: ONNX TensorProto.DataType values. Guarantees: every supported
 * type maps to a signless IR type (bool -> i1, u8 -> i8, ...); signedness
 * stays in the ONNX dtype carried by each value. Unsupported types
 * (string, complex, bf16) map to NULL. */
#include "import_internal.h"

const kiln_type *oi_elem_type(oi_ctx *c, int32_t dtype) {
  switch (dtype) {
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return kiln_type_f32(c->ctx);
  case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return kiln_type_f64(c->ctx);
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return kiln_type_f16(c->ctx);
  case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return kiln_type_bf16(c->ctx);
  case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return kiln_type_int(c->ctx, 1);
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return kiln_type_int(c->ctx, 8);
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: return kiln_type_int(c->ctx, 16);
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: return kiln_type_int(c->ctx, 32);
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return kiln_type_int(c->ctx, 64);
  default: return NULL;
  }
}

bool oi_dtype_is_float(int32_t d) {
  return d == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
}

bool oi_dtype_is_unsigned(int32_t d) {
  return d == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__UINT16 ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64 ||
         d == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
}

bool oi_dtype_is_int(int32_t d) {
  return !oi_dtype_is_float(d) && d != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL &&
         d != ONNX__TENSOR_PROTO__DATA_TYPE__STRING && kiln_onnx_dtype_known(d) &&
         d != ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16 &&
         d != ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64 &&
         d != ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128;
}

const char *oi_dtype_name(int32_t dtype) {
  if (dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) return "bool";
  const char *s = kiln_onnx_dtype_name(dtype);
  return s ? s : "unknown";
}

const kiln_type *oi_tensor_type(oi_ctx *c, uint32_t rank, const int64_t *shape,
                                int32_t dtype) {
  return kiln_type_tensor(c->ctx, rank, shape, oi_dtype_is_string(dtype) ? oi_text_type(c) : oi_elem_type(c, dtype),
                          NULL);
}

int64_t oi_numel(const kiln_type *t) { return kiln_type_num_elements(t); }

bool oi_dims_ok(oi_ctx *c, uint32_t rank, const int64_t *shape, const char *what) {
  int64_t n = 1;
  for (uint32_t d = 0; d < rank; d++) {
    if (shape[d] == KILN_DYNAMIC) continue; /* sized at run time */
    if (shape[d] < 0 || shape[d] > OI_DIM_MAX)
      return oi_unsupported(c, "%s: dimension %u is %lld (limit %lld)", what, d, (long long)shape[d],
                            (long long)OI_DIM_MAX);
    if (__builtin_mul_overflow(n, shape[d], &n) || n > OI_NUMEL_MAX) n = OI_NUMEL_MAX + 1;
  }
  if (n > OI_NUMEL_MAX)
    return oi_unsupported(c, "%s: more than %lld elements", what, (long long)OI_NUMEL_MAX);
  return true;
}

bool oi_size_ok(oi_ctx *c, int64_t v, int64_t lo, const char *what) {
  if (v < lo || v > OI_DIM_MAX)
    return oi_invalid(c, "%s is %lld (expected %lld..%lld)", what, (long long)v, (long long)lo,
                      (long long)OI_DIM_MAX);
  return true;
}

bool oi_check_type(oi_ctx *c, const oi_val *v, unsigned mask, const char *what) {
  unsigned cls = oi_dtype_is_float(v->dtype)                      ? OI_T_FLOAT
                 : v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ? OI_T_BOOL
                 : oi_dtype_is_unsigned(v->dtype)                  ? OI_T_UINT
                                                                   : OI_T_SINT;
  if (cls & mask) return true;
  return oi_unsupported(c, "%s: element type %s is not supported by this operator", what,
                        oi_dtype_name(v->dtype));
}

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
         d == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
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
  return kiln_type_tensor(c->ctx, rank, shape, oi_elem_type(c, dtype), NULL);
}

int64_t oi_numel(const kiln_type *t) { return kiln_type_num_elements(t); }

bool oi_check_type(oi_ctx *c, const oi_val *v, unsigned mask, const char *what) {
  unsigned cls = oi_dtype_is_float(v->dtype)                      ? OI_T_FLOAT
                 : v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ? OI_T_BOOL
                 : oi_dtype_is_unsigned(v->dtype)                  ? OI_T_UINT
                                                                   : OI_T_SINT;
  if (cls & mask) return true;
  return oi_unsupported(c, "%s: element type %s is not supported by this operator", what,
                        oi_dtype_name(v->dtype));
}

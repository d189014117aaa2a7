/* The ONNX data-type table (onnx_dtypes.def) as lookups: element size,
 * MLIR-style name and the typed TensorProto field that carries elements.
 * Unknown or UNDEFINED (0) types have no entry. */
#include "onnx_internal.h"

static const ox_dtype ox_dtypes[] = {
#define X(id, e, name, size, field, per) [id] = {name, size, OX_FIELD_##field, per},
#include "onnx_dtypes.def"
#undef X
};

const ox_dtype *ox_dtype_get(int32_t dtype) {
  if (dtype <= 0 || (size_t)dtype >= sizeof ox_dtypes / sizeof ox_dtypes[0])
    return NULL;
  return ox_dtypes[dtype].name ? &ox_dtypes[dtype] : NULL;
}

bool kiln_onnx_dtype_known(int32_t dtype) { return ox_dtype_get(dtype) != NULL; }

size_t kiln_onnx_dtype_size(int32_t dtype) {
  const ox_dtype *d = ox_dtype_get(dtype);
  return d ? d->size : 0;
}

const char *kiln_onnx_dtype_name(int32_t dtype) {
  const ox_dtype *d = ox_dtype_get(dtype);
  return d ? d->name : NULL;
}

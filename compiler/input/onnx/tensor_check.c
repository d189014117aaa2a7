/* Checks of one TensorProto wherever it sits (initializer, Constant value,
 * test-data file): data type, dims, and the payload.
 *
 * Takes a decoded tensor and a description of where it is. Guarantees on
 * success: the data type is in onnx_dtypes.def; every dim is >= 0 and the
 * element count and byte size fit in 63 bits; exactly one payload source
 * is present (raw_data, the typed field the data type uses, or external
 * data) or none when there are no elements; its size is exactly what the
 * dims need; external references are well formed (external.c). So the
 * byte view (tensor_bytes.c) can trust sizes without further checks. */
#include <stdio.h>

#include "onnx_internal.h"

bool kiln_onnx_tensor_count(const Onnx__TensorProto *t, uint64_t *count) {
  uint64_t c = 1;
  for (size_t i = 0; i < t->n_dims; i++) {
    int64_t d = t->dims[i];
    if (d < 0) return false;
    if (d != 0 && c > (uint64_t)INT64_MAX / (uint64_t)d) return false;
    c *= (uint64_t)d;
  }
  *count = c;
  return true;
}

bool ox_payload_size(const ox_dtype *dt, uint64_t count, size_t *size) {
  if (dt->size && count > (uint64_t)INT64_MAX / dt->size) return false;
  uint64_t s = count * dt->size;
  if (s > SIZE_MAX) return false;
  *size = (size_t)s;
  return true;
}

static const char *const ox_field_names[] = {
  [OX_FIELD_FLOAT] = "float_data",   [OX_FIELD_INT32] = "int32_data",
  [OX_FIELD_STRING] = "string_data", [OX_FIELD_INT64] = "int64_data",
  [OX_FIELD_DOUBLE] = "double_data", [OX_FIELD_UINT64] = "uint64_data",
};

bool ox_check_tensor(const Onnx__TensorProto *t, const char *where,
                     kiln_onnx_status *st) {
  if (!t->has_data_type)
    return ox_fail(st, KILN_ONNX_ERR_DTYPE, "%s: no data type", where);
  const ox_dtype *dt = ox_dtype_get(t->data_type);
  if (!dt)
    return ox_fail(st, KILN_ONNX_ERR_DTYPE, "%s: unknown data type %d",
                   where, (int)t->data_type);
  for (size_t i = 0; i < t->n_dims; i++)
    if (t->dims[i] < 0)
      return ox_fail(st, KILN_ONNX_ERR_DIMS, "%s: dimension %zu is %lld",
                     where, i, (long long)t->dims[i]);
  uint64_t count;
  size_t bytes = 0;
  if (!kiln_onnx_tensor_count(t, &count) ||
      !ox_payload_size(dt, count, &bytes))
    return ox_fail(st, KILN_ONNX_ERR_DIMS,
                   "%s: %zu dims whose element count or byte size "
                   "overflows 63 bits", where, t->n_dims);
  if (t->segment)
    return ox_fail(st, KILN_ONNX_ERR_UNSUPPORTED,
                   "%s: segmented tensors are not supported", where);

  /* Which typed fields hold values, and is it the data type's own? */
  size_t typed[] = {
    [OX_FIELD_FLOAT] = t->n_float_data,   [OX_FIELD_INT32] = t->n_int32_data,
    [OX_FIELD_STRING] = t->n_string_data, [OX_FIELD_INT64] = t->n_int64_data,
    [OX_FIELD_DOUBLE] = t->n_double_data, [OX_FIELD_UINT64] = t->n_uint64_data,
  };
  unsigned sources = 0;
  for (size_t f = 0; f < sizeof typed / sizeof typed[0]; f++) {
    if (!typed[f]) continue;
    if (f != dt->field)
      return ox_fail(st, KILN_ONNX_ERR_DATA,
                     "%s: %s given for a %s tensor (it uses %s)", where,
                     ox_field_names[f], dt->name, ox_field_names[dt->field]);
    sources++;
  }
  bool external = t->n_external_data > 0 ||
                  (t->has_data_location &&
                   t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
  if (t->has_data_location &&
      t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL &&
      t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT)
    return ox_fail(st, KILN_ONNX_ERR_DATA, "%s: unknown data_location %d",
                   where, (int)t->data_location);
  sources += t->has_raw_data + external;
  if (sources > 1)
    return ox_fail(st, KILN_ONNX_ERR_DATA,
                   "%s: payload given in %u places (raw_data, a typed field, "
                   "external data: pick one)", where, sources);

  if (t->has_raw_data) {
    if (dt->field == OX_FIELD_STRING)
      return ox_fail(st, KILN_ONNX_ERR_DATA,
                     "%s: raw_data on a string tensor", where);
    if (t->raw_data.len != bytes)
      return ox_fail(st, KILN_ONNX_ERR_DATA,
                     "%s: raw_data has %zu bytes, %llu elements of %s need "
                     "%zu", where, t->raw_data.len,
                     (unsigned long long)count, dt->name, bytes);
    return true;
  }
  if (external) {
    if (dt->field == OX_FIELD_STRING)
      return ox_fail(st, KILN_ONNX_ERR_DATA,
                     "%s: external data on a string tensor", where);
    ox_external_ref ref;
    if (!ox_external_parse(t, where, &ref, st)) return false;
    if (ref.has_length && ref.length != bytes)
      return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                     "%s: external length %llu, %llu elements of %s need "
                     "%zu", where, (unsigned long long)ref.length,
                     (unsigned long long)count, dt->name, bytes);
    return true;
  }
  size_t have = typed[dt->field];
  if (have == 0 && count != 0)
    return ox_fail(st, KILN_ONNX_ERR_DATA, "%s: no data for %llu elements",
                   where, (unsigned long long)count);
  if (have && (have % dt->per_element || have / dt->per_element != count))
    return ox_fail(st, KILN_ONNX_ERR_DATA,
                   "%s: %s holds %zu values, %llu elements of %s need %llu",
                   where, ox_field_names[dt->field], have,
                   (unsigned long long)count, dt->name,
                   (unsigned long long)count * dt->per_element);
  return true;
}

bool ox_check_sparse(const Onnx__SparseTensorProto *s, const char *where,
                     kiln_onnx_status *st) {
  char w[256];
  for (size_t i = 0; i < s->n_dims; i++)
    if (s->dims[i] < 0)
      return ox_fail(st, KILN_ONNX_ERR_DIMS, "%s: dimension %zu is %lld",
                     where, i, (long long)s->dims[i]);
  if (!s->values)
    return ox_fail(st, KILN_ONNX_ERR_DATA, "%s: sparse tensor without values",
                   where);
  ox_fmt(w, sizeof w, "%s (values)", where);
  if (!ox_check_tensor(s->values, w, st)) return false;
  if (s->indices) {
    ox_fmt(w, sizeof w, "%s (indices)", where);
    if (!ox_check_tensor(s->indices, w, st)) return false;
    if (s->indices->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
      return ox_fail(st, KILN_ONNX_ERR_DTYPE,
                     "%s: sparse indices must be i64", where);
  }
  return true;
}

/* Values serialized on their own: the input_N.pb / output_N.pb files of
 * ONNX test data, which hold a TensorProto, or for sequence, map and
 * optional graph values a SequenceProto, MapProto or OptionalProto.
 *
 * Takes bytes or a path and the kind (kiln_onnx_value_kind_of tells it
 * from the graph's declared type, as ONNX's generator decides). Guarantees
 * a decoded value whose every tensor passed ox_check_tensor, whose element
 * types are known, and whose nesting was bounded by the wire scan. */
#include <stdio.h>
#include <stdlib.h>

#include "onnx_internal.h"

struct kiln_onnx_value {
  ox_doc doc;
  kiln_onnx_value_kind kind;
};

kiln_onnx_value_kind kiln_onnx_value_kind_of(const Onnx__TypeProto *type) {
  if (!type) return KILN_ONNX_VALUE_TENSOR;
  switch (type->value_case) {
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return KILN_ONNX_VALUE_SEQUENCE;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return KILN_ONNX_VALUE_MAP;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return KILN_ONNX_VALUE_OPTIONAL;
  default: return KILN_ONNX_VALUE_TENSOR;
  }
}

static const ProtobufCMessageDescriptor *ox_value_desc(kiln_onnx_value_kind k) {
  switch (k) {
  case KILN_ONNX_VALUE_SEQUENCE: return &onnx__sequence_proto__descriptor;
  case KILN_ONNX_VALUE_MAP: return &onnx__map_proto__descriptor;
  case KILN_ONNX_VALUE_OPTIONAL: return &onnx__optional_proto__descriptor;
  default: return &onnx__tensor_proto__descriptor;
  }
}

static bool ox_check_sequence(const Onnx__SequenceProto *s, const char *where,
                              kiln_onnx_status *st);
static bool ox_check_map(const Onnx__MapProto *m, const char *where,
                         kiln_onnx_status *st);

static bool ox_check_optional(const Onnx__OptionalProto *o, const char *where,
                              kiln_onnx_status *st) {
  char w[256];
  ox_fmt(w, sizeof w, "%s (optional)", where);
  if (o->tensor_value && !ox_check_tensor(o->tensor_value, w, st)) return false;
  if (o->sparse_tensor_value && !ox_check_sparse(o->sparse_tensor_value, w, st))
    return false;
  if (o->sequence_value && !ox_check_sequence(o->sequence_value, w, st))
    return false;
  if (o->map_value && !ox_check_map(o->map_value, w, st)) return false;
  if (o->optional_value && !ox_check_optional(o->optional_value, w, st))
    return false;
  return true;
}

static bool ox_check_sequence(const Onnx__SequenceProto *s, const char *where,
                              kiln_onnx_status *st) {
  char w[256];
  for (size_t i = 0; i < s->n_tensor_values; i++) {
    ox_fmt(w, sizeof w, "%s element %zu", where, i);
    if (!ox_check_tensor(s->tensor_values[i], w, st)) return false;
  }
  for (size_t i = 0; i < s->n_sparse_tensor_values; i++) {
    ox_fmt(w, sizeof w, "%s element %zu", where, i);
    if (!ox_check_sparse(s->sparse_tensor_values[i], w, st)) return false;
  }
  for (size_t i = 0; i < s->n_sequence_values; i++) {
    ox_fmt(w, sizeof w, "%s element %zu", where, i);
    if (!ox_check_sequence(s->sequence_values[i], w, st)) return false;
  }
  for (size_t i = 0; i < s->n_map_values; i++) {
    ox_fmt(w, sizeof w, "%s element %zu", where, i);
    if (!ox_check_map(s->map_values[i], w, st)) return false;
  }
  for (size_t i = 0; i < s->n_optional_values; i++) {
    ox_fmt(w, sizeof w, "%s element %zu", where, i);
    if (!ox_check_optional(s->optional_values[i], w, st)) return false;
  }
  return true;
}

static bool ox_check_map(const Onnx__MapProto *m, const char *where,
                         kiln_onnx_status *st) {
  if (!kiln_onnx_dtype_known(m->key_type))
    return ox_fail(st, KILN_ONNX_ERR_DTYPE, "%s: map key type %d is unknown",
                   where, (int)m->key_type);
  size_t keys = m->n_keys + m->n_string_keys;
  size_t vals = 0;
  if (m->values) {
    const Onnx__SequenceProto *v = m->values;
    vals = v->n_tensor_values + v->n_sparse_tensor_values +
           v->n_sequence_values + v->n_map_values + v->n_optional_values;
    char w[256];
    ox_fmt(w, sizeof w, "%s values", where);
    if (!ox_check_sequence(v, w, st)) return false;
  }
  if (keys != vals)
    return ox_fail(st, KILN_ONNX_ERR_DATA, "%s: map has %zu keys, %zu values",
                   where, keys, vals);
  return true;
}

static bool ox_check_value(const kiln_onnx_value *v, kiln_onnx_status *st) {
  char q[OX_QUOTE_MAX], w[128];
  const ProtobufCMessage *m = v->doc.root;
  switch (v->kind) {
  case KILN_ONNX_VALUE_SEQUENCE: {
    const Onnx__SequenceProto *s = (const void *)m;
    ox_fmt(w, sizeof w, "sequence %s", ox_quote(q, s->name));
    return ox_check_sequence(s, w, st);
  }
  case KILN_ONNX_VALUE_MAP: {
    const Onnx__MapProto *mp = (const void *)m;
    ox_fmt(w, sizeof w, "map %s", ox_quote(q, mp->name));
    return ox_check_map(mp, w, st);
  }
  case KILN_ONNX_VALUE_OPTIONAL: {
    const Onnx__OptionalProto *o = (const void *)m;
    ox_fmt(w, sizeof w, "optional %s", ox_quote(q, o->name));
    return ox_check_optional(o, w, st);
  }
  default: {
    const Onnx__TensorProto *t = (const void *)m;
    ox_fmt(w, sizeof w, "tensor %s", ox_quote(q, t->name));
    return ox_check_tensor(t, w, st);
  }
  }
}

static bool ox_value_open(const void *bytes, size_t len, const char *dir,
                          kiln_onnx_value_kind kind, kiln_onnx_value **out,
                          kiln_onnx_status *st) {
  *out = NULL;
  if ((unsigned)kind > KILN_ONNX_VALUE_OPTIONAL)
    return ox_fail(st, KILN_ONNX_ERR_UNSUPPORTED, "unknown value kind %d",
                   (int)kind);
  kiln_onnx_value *v = calloc(1, sizeof *v);
  if (!v) return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  v->kind = kind;
  if (!ox_doc_decode(&v->doc, bytes, len, dir, ox_value_desc(kind), false,
                     st)) {
    free(v);
    return false;
  }
  if (!ox_check_value(v, st)) {
    kiln_onnx_value_free(v);
    return false;
  }
  *out = v;
  return true;
}

bool kiln_onnx_value_load(const void *bytes, size_t len,
                          kiln_onnx_value_kind kind, kiln_onnx_value **out,
                          kiln_onnx_status *st) {
  ox_ok(st);
  return ox_value_open(bytes, len, NULL, kind, out, st);
}

bool kiln_onnx_value_load_file(const char *path, kiln_onnx_value_kind kind,
                               kiln_onnx_value **out, kiln_onnx_status *st) {
  ox_ok(st);
  *out = NULL;
  const uint8_t *map;
  size_t len;
  if (!ox_map_file(path, &map, &len, st)) return false;
  char *dir = ox_dirname(path);
  bool ok = dir ? ox_value_open(map, len, dir, kind, out, st)
                : ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  free(dir);
  ox_unmap_file(map, len);
  return ok;
}

void kiln_onnx_value_free(kiln_onnx_value *v) {
  if (!v) return;
  ox_doc_release(&v->doc);
  free(v);
}

kiln_onnx_value_kind kiln_onnx_value_get_kind(const kiln_onnx_value *v) {
  return v->kind;
}

const ProtobufCMessage *kiln_onnx_value_message(const kiln_onnx_value *v) {
  return v->doc.root;
}

const Onnx__TensorProto *kiln_onnx_value_tensor(const kiln_onnx_value *v) {
  return v->kind == KILN_ONNX_VALUE_TENSOR
             ? (const Onnx__TensorProto *)v->doc.root : NULL;
}

bool kiln_onnx_value_tensor_bytes(kiln_onnx_value *v,
                                  const Onnx__TensorProto *t,
                                  kiln_onnx_bytes *out, kiln_onnx_status *st) {
  ox_ok(st);
  return ox_tensor_bytes(&v->doc, t, out, st);
}

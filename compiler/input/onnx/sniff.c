/* Content sniffing: does a buffer start like a serialized ModelProto?
 * The compiler driver uses it to pick the ONNX importer whatever the file
 * is called. Takes any bytes; reads at most the first 64 top-level fields
 * and never past LEN. A buffer passes when each of those fields is a
 * ModelProto field with its schema's wire type and an in-bounds payload,
 * ir_version (field 1) is present with a value in 1..100, and a graph
 * (field 7) or an opset_import (field 8) is seen. LEN may be a prefix of
 * the file (the driver reads 4 KiB): a graph or opset_import whose payload
 * runs past it still counts, since a real graph is usually the largest
 * field and comes early. Text formats fail at
 * once: their first byte decodes to a field ModelProto does not have or a
 * wire type it never uses. A pass is a strong hint, not a validation. */
#include "onnx_internal.h"

bool kiln_onnx_looks_like_model(const void *bytes, size_t len) {
  const uint8_t *p = bytes;
  const ProtobufCMessageDescriptor *desc = &onnx__model_proto__descriptor;
  bool ir = false, body = false;
  size_t pos = 0;
  for (unsigned fields = 0; fields < 64 && pos < len; fields++) {
    uint64_t tag, v;
    size_t n = ox_varint(p + pos, len - pos, 5, &tag);
    if (!n || tag > UINT32_MAX) return false;
    pos += n;
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
    if (!fd) return false;
    unsigned wire = (unsigned)(tag & 7);
    bool delimited = fd->type == PROTOBUF_C_TYPE_STRING ||
                     fd->type == PROTOBUF_C_TYPE_BYTES ||
                     fd->type == PROTOBUF_C_TYPE_MESSAGE;
    if (wire != (delimited ? 2u : 0u)) return false;
    n = ox_varint(p + pos, len - pos, delimited ? 5 : 10, &v);
    if (!n) return false;
    pos += n;
    if (delimited) {
      if (v > len - pos) return ir && (fd->id == 7 || fd->id == 8);
      pos += (size_t)v;
    }
    if (fd->id == 1) {
      if (v < 1 || v > 100) return false;
      ir = true;
    }
    if (fd->id == 7 || fd->id == 8) body = true;
    if (ir && body) return true;
  }
  return false;
}

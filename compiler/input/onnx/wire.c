/* Wire-format scan that runs before protobuf-c: one loop over the bytes
 * with an explicit stack of message frames (no recursion), guided by the
 * generated protobuf-c descriptors.
 *
 * Takes any bytes and the descriptor of the root message. Guarantees, when
 * it returns true: every tag, varint, fixed value and length-delimited
 * field lies inside its parent; tags, varints and lengths have the sizes
 * protobuf-c accepts (tag <= 5 bytes, varint <= 10, length <= 5 and below
 * 2 GiB); known fields use their schema's wire type (or packed encoding
 * for repeated scalars); no groups; no NUL inside string fields (C strings
 * would silently cut them); nesting at most KILN_ONNX_MAX_DEPTH. It also
 * estimates how many bytes protobuf-c will allocate, which becomes the
 * decoding budget. protobuf-c then only ever sees well-formed input. */
#include <string.h>

#include "onnx_internal.h"

typedef struct ox_frame {
  const ProtobufCMessageDescriptor *desc;
  size_t end;
} ox_frame;

/* How a varint read went: >0 bytes used, or one of these. */
enum { OX_VARINT_TRUNCATED = -1, OX_VARINT_TOO_LONG = -2 };

static int ox_varint_read(const uint8_t *p, size_t avail, size_t maxlen,
                          uint64_t *v) {
  uint64_t r = 0;
  for (size_t i = 0; i < maxlen; i++) {
    if (i >= avail) return OX_VARINT_TRUNCATED;
    if (i < 10) r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *v = r;
      return (int)i + 1;
    }
  }
  return OX_VARINT_TOO_LONG;
}

size_t ox_varint(const uint8_t *p, size_t avail, size_t maxlen, uint64_t *v) {
  int n = ox_varint_read(p, avail, maxlen, v);
  return n > 0 ? (size_t)n : 0;
}

static size_t ox_add_sat(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Wire type a field of this type uses when not packed. */
static unsigned ox_wire_of(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_FIXED32:
  case PROTOBUF_C_TYPE_FLOAT:
    return 5;
  case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_FIXED64:
  case PROTOBUF_C_TYPE_DOUBLE:
    return 1;
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_BYTES:
  case PROTOBUF_C_TYPE_MESSAGE:
    return 2;
  default:
    return 0;
  }
}

/* Bytes protobuf-c stores per element of a repeated field of type T. */
static size_t ox_elem_size(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_FIXED64:
  case PROTOBUF_C_TYPE_DOUBLE:
  case PROTOBUF_C_TYPE_INT64:
  case PROTOBUF_C_TYPE_SINT64:
  case PROTOBUF_C_TYPE_UINT64:
    return 8;
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_MESSAGE:
    return sizeof(void *);
  case PROTOBUF_C_TYPE_BYTES:
    return sizeof(ProtobufCBinaryData);
  default:
    return 4;
  }
}

static const char *const ox_wire_names[8] = {
  "varint", "fixed64", "length-delimited", "start-group",
  "end-group", "fixed32", "invalid(6)", "invalid(7)",
};

bool ox_wire_scan(const uint8_t *bytes, size_t len,
                  const ProtobufCMessageDescriptor *desc,
                  ox_scan_result *res, kiln_onnx_status *st) {
  ox_frame stack[KILN_ONNX_MAX_DEPTH];
  unsigned depth = 1;
  stack[0].desc = desc;
  stack[0].end = len;
  res->memory = desc->sizeof_message + 16;
  res->messages = 1;
  res->depth = 1;
  if (len > INT32_MAX)
    return ox_fail(st, KILN_ONNX_ERR_UNSUPPORTED,
                   "%zu bytes: a protobuf message is limited to 2 GiB "
                   "(store large weights as external data)", len);

  size_t pos = 0;
  while (depth > 0) {
    const ox_frame *f = &stack[depth - 1];
    const char *mname = f->desc->name;
    if (pos == f->end) {
      depth--;
      continue;
    }
    size_t at = pos;
    uint64_t tag;
    int n = ox_varint_read(bytes + pos, f->end - pos, 5, &tag);
    if (n == OX_VARINT_TRUNCATED)
      return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                     "byte %zu in %s: tag runs past the end", at, mname);
    if (n < 0 || tag > UINT32_MAX)
      return ox_fail(st, KILN_ONNX_ERR_WIRE,
                     "byte %zu in %s: tag is not a varint of at most 5 "
                     "bytes below 2^32", at, mname);
    pos += (size_t)n;
    unsigned wire = (unsigned)(tag & 7);
    uint32_t num = (uint32_t)(tag >> 3);
    if (num == 0)
      return ox_fail(st, KILN_ONNX_ERR_WIRE,
                     "byte %zu in %s: field number 0 (not protobuf)", at,
                     mname);
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(f->desc, num);
    const char *fname = fd ? fd->name : "?";
    if (wire == 3 || wire == 4 || wire > 5)
      return ox_fail(st, KILN_ONNX_ERR_WIRE,
                     "byte %zu in %s: field %u has wire type %s", at, mname,
                     num, ox_wire_names[wire]);
    bool packed = false;
    if (fd) {
      unsigned want = ox_wire_of(fd->type);
      packed = wire == 2 && want != 2 &&
               fd->label == PROTOBUF_C_LABEL_REPEATED;
      if (wire != want && !packed)
        return ox_fail(st, KILN_ONNX_ERR_WIRE,
                       "byte %zu in %s: field %u (%s) has wire type %s, "
                       "expected %s", at, mname, num, fname,
                       ox_wire_names[wire], ox_wire_names[want]);
    }

    uint64_t v;
    size_t size = 0; /* payload bytes after the tag (and length) */
    switch (wire) {
    case 0:
      n = ox_varint_read(bytes + pos, f->end - pos, 10, &v);
      if (n == OX_VARINT_TRUNCATED)
        return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                       "byte %zu in %s: varint of field %u (%s) runs past "
                       "the end", at, mname, num, fname);
      if (n < 0)
        return ox_fail(st, KILN_ONNX_ERR_WIRE,
                       "byte %zu in %s: varint of field %u (%s) is longer "
                       "than 10 bytes", at, mname, num, fname);
      pos += (size_t)n;
      break;
    case 1:
    case 5:
      size = wire == 1 ? 8 : 4;
      if (f->end - pos < size)
        return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                       "byte %zu in %s: %s field %u (%s) runs past the end",
                       at, mname, ox_wire_names[wire], num, fname);
      pos += size;
      break;
    case 2:
      n = ox_varint_read(bytes + pos, f->end - pos, 5, &v);
      if (n == OX_VARINT_TRUNCATED)
        return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                       "byte %zu in %s: length of field %u (%s) runs past "
                       "the end", at, mname, num, fname);
      if (n < 0 || v > INT32_MAX)
        return ox_fail(st, KILN_ONNX_ERR_WIRE,
                       "byte %zu in %s: length of field %u (%s) is not a "
                       "length below 2 GiB", at, mname, num, fname);
      pos += (size_t)n;
      if (v > f->end - pos)
        return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                       "byte %zu in %s: field %u (%s) claims %llu bytes, "
                       "only %zu remain", at, mname, num, fname,
                       (unsigned long long)v, f->end - pos);
      size = (size_t)v;
      break;
    }

    /* Memory protobuf-c will spend on this occurrence. */
    size_t mem = 0;
    if (!fd) {
      mem = sizeof(ProtobufCMessageUnknownField) + 32 + size;
    } else if (packed) {
      size_t count = 0;
      size_t w = ox_wire_of(fd->type);
      if (w == 0) {
        for (size_t p = pos; p < pos + size; count++) {
          n = ox_varint_read(bytes + p, pos + size - p, 10, &v);
          if (n == OX_VARINT_TRUNCATED)
            return ox_fail(st, KILN_ONNX_ERR_TRUNCATED,
                           "byte %zu in %s: packed field %u (%s) ends "
                           "inside a varint", at, mname, num, fname);
          if (n < 0)
            return ox_fail(st, KILN_ONNX_ERR_WIRE,
                           "byte %zu in %s: packed field %u (%s) holds a "
                           "varint longer than 10 bytes", at, mname, num,
                           fname);
          p += (size_t)n;
        }
      } else {
        size_t es = w == 1 ? 8 : 4;
        if (size % es)
          return ox_fail(st, KILN_ONNX_ERR_WIRE,
                         "byte %zu in %s: packed field %u (%s) has %zu "
                         "bytes, not a multiple of %zu", at, mname, num,
                         fname, size, es);
        count = size / es;
      }
      mem = count * ox_elem_size(fd->type) + 16;
    } else {
      if (fd->label == PROTOBUF_C_LABEL_REPEATED)
        mem = ox_elem_size(fd->type) + 16;
      if (fd->type == PROTOBUF_C_TYPE_STRING) {
        if (memchr(bytes + pos, 0, size))
          return ox_fail(st, KILN_ONNX_ERR_STRING,
                         "byte %zu in %s: string field %u (%s) contains a "
                         "NUL byte", at, mname, num, fname);
        mem += size + 1 + 16;
      } else if (fd->type == PROTOBUF_C_TYPE_BYTES) {
        mem += size + 16;
      }
    }
    res->memory = ox_add_sat(res->memory, mem);

    if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
      const ProtobufCMessageDescriptor *sub = fd->descriptor;
      if (depth >= KILN_ONNX_MAX_DEPTH)
        return ox_fail(st, KILN_ONNX_ERR_DEPTH,
                       "byte %zu in %s: field %u (%s) nests messages deeper "
                       "than %d levels", at, mname, num, fname,
                       KILN_ONNX_MAX_DEPTH);
      stack[depth].desc = sub;
      stack[depth].end = pos + size;
      depth++;
      if (depth > res->depth) res->depth = depth;
      res->messages++;
      res->memory = ox_add_sat(res->memory, sub->sizeof_message + 16);
      continue; /* pos stays at the start of the submessage */
    }
    if (wire == 2) pos += size;
  }
  return true;
}

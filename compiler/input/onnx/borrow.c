/* Large raw_data payloads stay in the mapped file instead of being copied
 * by protobuf-c (whose unpack copies every bytes field).
 *
 * Takes bytes that ox_wire_scan accepted and that outlive the decoded
 * document (doc.c keeps the file mapping). Guarantees: protobuf-c decodes
 * a skeleton of the message in which every TensorProto raw_data field of
 * at least OX_BORROW_MIN bytes is replaced by a marker, an unknown varint
 * field OX_BORROW_FIELD holding an index into a table of (offset, length)
 * in the original bytes; every enclosing message gets its new length (as a
 * 5-byte varint, which the wire format allows). After decoding, each
 * TensorProto with a marker gets raw_data pointing into the original
 * bytes and the marker is removed from its unknown fields, so the decoded
 * structs look exactly as if protobuf-c had copied the payload (the last
 * raw_data field wins, as protobuf's rules say). A tensor that protobuf-c
 * merges from several occurrences (a singular field given twice, here or
 * in a singular ancestor) keeps its raw_data in the skeleton: protobuf-c
 * drops the unknown fields of the earlier occurrences when it merges.
 * Marker fields already in the input are dropped, so a file cannot forge
 * one. The skeleton is as
 * large as the file minus the borrowed payloads and is freed once decoded.
 * Payload bytes are never read here, so their pages stay untouched until
 * someone uses the weights. */
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

typedef struct ox_borrowed {
  size_t offset, length;
  bool superseded; /* a later, small raw_data field of the tensor wins */
} ox_borrowed;

typedef struct ox_buf {
  uint8_t *data;
  size_t len, cap;
} ox_buf;

typedef struct ox_bframe {
  const ProtobufCMessageDescriptor *desc;
  size_t end;       /* input position where the message ends */
  size_t len_at;    /* output position of its 5-byte length; root: SIZE_MAX */
  size_t out_start; /* output position where its body starts */
  long marker;      /* table index of its last marker; -1: none */
  bool merged;      /* protobuf-c may merge it with another occurrence */
  uint64_t dups;    /* singular message fields (by index) given twice */
} ox_bframe;

static bool ox_buf_reserve(ox_buf *b, size_t more) {
  if (b->cap - b->len >= more) return true;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->len < more) {
    if (cap > SIZE_MAX / 2) return false;
    cap *= 2;
  }
  uint8_t *p = realloc(b->data, cap);
  if (!p) return false;
  b->data = p;
  b->cap = cap;
  return true;
}

static bool ox_buf_put(ox_buf *b, const void *p, size_t n) {
  if (!ox_buf_reserve(b, n)) return false;
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return true;
}

static bool ox_buf_varint(ox_buf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    n++;
  } while (v);
  return ox_buf_put(b, tmp, n);
}

/* V as exactly five varint bytes (padded with continuation bits). */
static void ox_varint5(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 5; i++) {
    p[i] = (uint8_t)((v >> (7 * i)) & 0x7f);
    if (i < 4) p[i] |= 0x80;
  }
}

/* Which singular message fields of the message at BYTES[POS..END) occur
 * more than once (bit = field index; indices >= 63 share bit 63). */
static uint64_t ox_dup_singular(const uint8_t *bytes, size_t pos, size_t end,
                                const ProtobufCMessageDescriptor *desc) {
  uint64_t seen = 0, dups = 0;
  while (pos < end) {
    uint64_t tag, v;
    size_t n = ox_varint(bytes + pos, end - pos, 5, &tag);
    if (!n) return ~(uint64_t)0; /* not scanned: assume the worst */
    pos += n;
    unsigned wire = (unsigned)(tag & 7);
    if (wire == 0 || wire == 2) {
      if (!(n = ox_varint(bytes + pos, end - pos, 10, &v))) return ~(uint64_t)0;
      pos += n;
      if (wire == 2) {
        if (v > end - pos) return ~(uint64_t)0;
        pos += (size_t)v;
      }
    } else {
      size_t size = wire == 1 ? 8 : 4;
      if (end - pos < size) return ~(uint64_t)0;
      pos += size;
    }
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(desc, (uint32_t)(tag >> 3));
    if (!fd || fd->type != PROTOBUF_C_TYPE_MESSAGE ||
        fd->label == PROTOBUF_C_LABEL_REPEATED || wire != 2)
      continue;
    size_t idx = (size_t)(fd - desc->fields);
    uint64_t bit = (uint64_t)1 << (idx < 63 ? idx : 63);
    if (seen & bit) dups |= bit;
    seen |= bit;
  }
  return dups;
}

static uint32_t ox_raw_data_field(void) {
  const ProtobufCFieldDescriptor *fd =
      protobuf_c_message_descriptor_get_field_by_name(
          &onnx__tensor_proto__descriptor, "raw_data");
  return fd ? fd->id : 0;
}

/* Builds the skeleton of BYTES into *OUT and the table of borrowed
 * payloads into *TAB / *NTAB. False only when memory runs out or the bytes
 * were not scanned (a broken invariant, reported as such). */
static bool ox_skeleton(const uint8_t *bytes, size_t len,
                        const ProtobufCMessageDescriptor *desc, ox_buf *out,
                        ox_borrowed **tab, size_t *ntab,
                        kiln_onnx_status *st) {
  const ProtobufCMessageDescriptor *tensor = &onnx__tensor_proto__descriptor;
  const uint32_t raw_num = ox_raw_data_field();
  ox_bframe stack[KILN_ONNX_MAX_DEPTH];
  unsigned depth = 1;
  stack[0] = (ox_bframe){desc, len, SIZE_MAX, 0, -1, false,
                         ox_dup_singular(bytes, 0, len, desc)};
  size_t cap = 0, pos = 0;
  *tab = NULL;
  *ntab = 0;
  while (depth > 0) {
    ox_bframe *f = &stack[depth - 1];
    if (pos == f->end) {
      if (f->len_at != SIZE_MAX) {
        size_t body = out->len - f->out_start;
        if (body > INT32_MAX) goto broken;
        ox_varint5(out->data + f->len_at, (uint32_t)body);
      }
      depth--;
      continue;
    }
    const size_t start = pos;
    uint64_t tag, v = 0;
    size_t n = ox_varint(bytes + pos, f->end - pos, 5, &tag);
    if (!n) goto broken;
    pos += n;
    const size_t tag_end = pos;
    const unsigned wire = (unsigned)(tag & 7);
    const uint32_t num = (uint32_t)(tag >> 3);
    size_t size = 0;
    if (wire == 0) {
      if (!(n = ox_varint(bytes + pos, f->end - pos, 10, &v))) goto broken;
      pos += n;
    } else if (wire == 1 || wire == 5) {
      size = wire == 1 ? 8 : 4;
      if (f->end - pos < size) goto broken;
      pos += size;
    } else if (wire == 2) {
      if (!(n = ox_varint(bytes + pos, f->end - pos, 5, &v))) goto broken;
      pos += n;
      if (v > f->end - pos) goto broken;
      size = (size_t)v;
    } else {
      goto broken;
    }
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(f->desc, num);
    if (wire == 2 && fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
      if (depth >= KILN_ONNX_MAX_DEPTH) goto broken;
      uint8_t len5[5] = {0};
      if (!ox_buf_put(out, bytes + start, tag_end - start) ||
          !ox_buf_put(out, len5, sizeof len5))
        goto oom;
      size_t idx = (size_t)(fd - f->desc->fields);
      bool merged = fd->label != PROTOBUF_C_LABEL_REPEATED &&
                    (f->merged ||
                     (f->dups >> (idx < 63 ? idx : 63) & 1));
      stack[depth++] = (ox_bframe){
          fd->descriptor, pos + size, out->len - 5, out->len, -1, merged,
          ox_dup_singular(bytes, pos, pos + size, fd->descriptor)};
      continue;
    }
    if (wire == 2) pos += size;
    if (f->desc == tensor && num == OX_BORROW_FIELD) continue; /* forged */
    if (f->desc == tensor && num == raw_num && wire == 2) {
      if (size >= OX_BORROW_MIN && !f->merged) {
        if (*ntab == cap) {
          size_t ncap = cap ? cap * 2 : 16;
          ox_borrowed *t = realloc(*tab, ncap * sizeof *t);
          if (!t) goto oom;
          *tab = t;
          cap = ncap;
        }
        (*tab)[*ntab] = (ox_borrowed){pos - size, size, false};
        f->marker = (long)*ntab;
        if (!ox_buf_varint(out, (uint64_t)OX_BORROW_FIELD << 3) ||
            !ox_buf_varint(out, *ntab))
          goto oom;
        (*ntab)++;
        continue;
      }
      if (f->marker >= 0) (*tab)[f->marker].superseded = true;
    }
    if (!ox_buf_put(out, bytes + start, pos - start)) goto oom;
  }
  return true;
oom:
  return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory building the "
                 "decoding skeleton");
broken:
  return ox_fail(st, KILN_ONNX_ERR_WIRE, "internal: the skeleton writer met "
                 "bytes the wire scan should have refused");
}

/* Points T's raw_data at its borrowed payload when T carries a marker,
 * and drops the markers from its unknown fields. */
static void ox_fix_tensor(Onnx__TensorProto *t, const uint8_t *bytes,
                          const ox_borrowed *tab, size_t ntab) {
  ProtobufCMessage *m = &t->base;
  size_t kept = 0;
  const ox_borrowed *last = NULL;
  for (size_t i = 0; i < m->n_unknown_fields; i++) {
    ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    uint64_t idx;
    if (u->tag == OX_BORROW_FIELD &&
        u->wire_type == PROTOBUF_C_WIRE_TYPE_VARINT &&
        ox_varint(u->data, u->len, 10, &idx) && idx < ntab) {
      last = &tab[idx];
      continue;
    }
    m->unknown_fields[kept++] = *u;
  }
  m->n_unknown_fields = kept;
  if (last && !last->superseded) {
    t->has_raw_data = 1;
    t->raw_data.data = (uint8_t *)(bytes + last->offset);
    t->raw_data.len = last->length;
  }
}

/* Visits every decoded message under ROOT (explicit stack of at most
 * MESSAGES entries: each message is pushed once) and fixes TensorProtos. */
static bool ox_fix_all(ProtobufCMessage *root, size_t messages,
                       const uint8_t *bytes, const ox_borrowed *tab,
                       size_t ntab, kiln_onnx_status *st) {
  ProtobufCMessage **stack = malloc((messages ? messages : 1) * sizeof *stack);
  if (!stack)
    return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  size_t top = 0;
  stack[top++] = root;
  while (top) {
    ProtobufCMessage *m = stack[--top];
    const ProtobufCMessageDescriptor *d = m->descriptor;
    if (d == &onnx__tensor_proto__descriptor)
      ox_fix_tensor((Onnx__TensorProto *)m, bytes, tab, ntab);
    char *base = (char *)m;
    for (unsigned i = 0; i < d->n_fields; i++) {
      const ProtobufCFieldDescriptor *fd = &d->fields[i];
      if (fd->type != PROTOBUF_C_TYPE_MESSAGE) continue;
      ProtobufCMessage *const *subs;
      size_t n;
      if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
        memcpy(&n, base + fd->quantifier_offset, sizeof n);
        memcpy(&subs, base + fd->offset, sizeof subs);
      } else {
        if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
          uint32_t which;
          memcpy(&which, base + fd->quantifier_offset, sizeof which);
          if (which != fd->id) continue;
        }
        subs = (ProtobufCMessage *const *)(base + fd->offset);
        n = *subs ? 1 : 0;
      }
      for (size_t k = 0; k < n; k++) {
        if (!subs[k]) continue;
        if (top == messages) { /* more messages than the scan counted */
          free(stack);
          return ox_fail(st, KILN_ONNX_ERR_DECODE,
                         "internal: decoded more messages than scanned");
        }
        stack[top++] = subs[k];
      }
    }
  }
  free(stack);
  return true;
}

bool ox_unpack_borrowing(const ProtobufCMessageDescriptor *desc,
                         ProtobufCAllocator *al, const uint8_t *bytes,
                         size_t len, size_t messages, ProtobufCMessage **root,
                         size_t *borrowed, kiln_onnx_status *st) {
  ox_buf out = {0};
  ox_borrowed *tab = NULL;
  size_t ntab = 0;
  *root = NULL;
  *borrowed = 0;
  if (!ox_skeleton(bytes, len, desc, &out, &tab, &ntab, st)) {
    free(out.data);
    free(tab);
    return false;
  }
  static const uint8_t empty[1];
  *root = protobuf_c_message_unpack(desc, al, out.len,
                                    out.len ? out.data : empty);
  free(out.data);
  bool ok = true;
  if (*root && ntab) {
    ok = ox_fix_all(*root, messages, bytes, tab, ntab, st);
    for (size_t i = 0; ok && i < ntab; i++)
      if (!tab[i].superseded) *borrowed += tab[i].length;
  }
  free(tab);
  return ok; /* on failure the arena still owns *root: caller releases */
}

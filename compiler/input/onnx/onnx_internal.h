/* Internals of the ONNX loader (prefix ox_): the bounded arena, the wire
 * scan, the decoded-document object shared by models and values, and the
 * checks each file implements. Not for use outside compiler/input/onnx. */
#ifndef KILN_ONNX_INTERNAL_H
#define KILN_ONNX_INTERNAL_H

#include "kiln_onnx.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the ONNX loader hands out payloads in place: little-endian hosts only"
#endif

/* ---- status.c ---- */
bool ox_fail(kiln_onnx_status *st, kiln_onnx_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ox_ok(kiln_onnx_status *st);
/* snprintf for "where" descriptions; cuts long text silently. */
void ox_fmt(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Quotes a name for messages: at most ~48 printable characters, others
 * shown as '?', "..." when cut. BUF must hold OX_QUOTE_MAX bytes. */
#define OX_QUOTE_MAX 64
const char *ox_quote(char buf[OX_QUOTE_MAX], const char *s);

/* ---- arena.c: bump allocation with a byte budget, freed at once ---- */
typedef struct ox_chunk ox_chunk;
typedef struct ox_arena {
  ox_chunk *head;
  size_t used;   /* bytes handed out, rounded to the alignment */
  size_t budget; /* SIZE_MAX = unlimited */
  bool exceeded; /* an allocation was refused for the budget */
} ox_arena;
void ox_arena_init(ox_arena *a, size_t budget);
void *ox_arena_alloc(ox_arena *a, size_t size); /* NULL: budget or OOM */
void ox_arena_release(ox_arena *a);
/* A ProtobufCAllocator drawing from A (free is a no-op). */
ProtobufCAllocator ox_arena_allocator(ox_arena *a);

/* ---- wire.c: structural scan before protobuf-c ---- */
typedef struct ox_scan_result {
  size_t memory;    /* estimated bytes protobuf-c will allocate */
  size_t messages;  /* messages seen, root included */
  unsigned depth;   /* deepest nesting seen (root = 1) */
} ox_scan_result;
/* Walks BYTES as message DESC without recursion: every tag, varint and
 * length in bounds, wire types matching the schema, no groups, no NUL in
 * strings, nesting at most KILN_ONNX_MAX_DEPTH. */
bool ox_wire_scan(const uint8_t *bytes, size_t len,
                  const ProtobufCMessageDescriptor *desc,
                  ox_scan_result *res, kiln_onnx_status *st);
/* Varint reader shared with the sniffer: returns bytes consumed, 0 when
 * truncated or longer than MAXLEN bytes. */
size_t ox_varint(const uint8_t *p, size_t avail, size_t maxlen, uint64_t *v);

/* ---- borrow.c: raw_data left in the mapped file ---- */
/* raw_data fields this large (bytes) are borrowed from the input. */
#define OX_BORROW_MIN 1024
/* The unknown field standing for a borrowed payload in the skeleton
 * (the largest field number protobuf allows). */
#define OX_BORROW_FIELD 536870911u
/* protobuf-c unpack of BYTES (scanned; MESSAGES as the scan counted) with
 * large TensorProto raw_data pointing into BYTES, which must outlive the
 * decoded structs. True with *root NULL: protobuf-c refused the input.
 * False: out of memory or a broken invariant (status set); *root, if set,
 * belongs to AL's arena. *borrowed: payload bytes left in place. */
bool ox_unpack_borrowing(const ProtobufCMessageDescriptor *desc,
                         ProtobufCAllocator *al, const uint8_t *bytes,
                         size_t len, size_t messages, ProtobufCMessage **root,
                         size_t *borrowed, kiln_onnx_status *st);

/* ---- doc.c: one decoded file (a model or a value) ---- */
typedef struct ox_bytes_cache ox_bytes_cache;
typedef struct ox_mapping ox_mapping;
typedef struct ox_doc {
  ox_arena arena;
  ProtobufCMessage *root;
  char *base_dir;          /* folder for external data; NULL if from memory */
  ox_bytes_cache *cache;   /* tensor -> bytes, for converted / mapped data */
  ox_mapping *mappings;    /* external-data mmaps, unmapped on free */
  const uint8_t *file_map; /* the decoded file, when raw_data borrows it */
  size_t file_len;
  size_t borrowed;         /* raw_data bytes left in file_map */
} ox_doc;
/* BORROW: BYTES outlive the document and large raw_data points into
 * them (borrow.c); otherwise protobuf-c copies everything it keeps. */
bool ox_doc_decode(ox_doc *doc, const void *bytes, size_t len,
                   const char *base_dir,
                   const ProtobufCMessageDescriptor *desc, bool borrow,
                   kiln_onnx_status *st);
/* The same for a file mapping (ox_map_file): large raw_data payloads stay
 * in the mapping, which the document then owns (unmapped by
 * ox_doc_release); on failure the caller still owns it. */
bool ox_doc_decode_mapped(ox_doc *doc, const uint8_t *map, size_t len,
                          const char *base_dir,
                          const ProtobufCMessageDescriptor *desc,
                          kiln_onnx_status *st);
void ox_doc_release(ox_doc *doc);
/* Maps a whole file read-only; *len 0 gives a NULL map. */
bool ox_map_file(const char *path, const uint8_t **map, size_t *len,
                 kiln_onnx_status *st);
void ox_unmap_file(const uint8_t *map, size_t len);
/* Folder part of PATH ("." when none), malloc'ed; NULL on OOM. */
char *ox_dirname(const char *path);

/* ---- dtypes.c ---- */
typedef enum ox_field {
  OX_FIELD_FLOAT, OX_FIELD_INT32, OX_FIELD_STRING, OX_FIELD_INT64,
  OX_FIELD_DOUBLE, OX_FIELD_UINT64,
} ox_field;
typedef struct ox_dtype {
  const char *name;
  size_t size;
  ox_field field;
  unsigned per_element;
} ox_dtype;
const ox_dtype *ox_dtype_get(int32_t dtype); /* NULL when unknown */

/* ---- tensor_check.c ---- */
/* Checks a tensor wherever it sits (WHERE names it in messages): known
 * data type, dims, exactly one payload source whose size matches, and for
 * external data a well-formed reference. */
bool ox_check_tensor(const Onnx__TensorProto *t, const char *where,
                     kiln_onnx_status *st);
bool ox_check_sparse(const Onnx__SparseTensorProto *s, const char *where,
                     kiln_onnx_status *st);
/* Payload bytes DTYPE x COUNT needs; false on overflow. */
bool ox_payload_size(const ox_dtype *dt, uint64_t count, size_t *size);

/* ---- external.c ---- */
typedef struct ox_external_ref {
  const char *location;
  uint64_t offset;
  uint64_t length;
  bool has_length;
} ox_external_ref;
/* Parses and checks T's external_data entries: location relative, inside
 * the model's folder (no "..", not absolute), decimal offset/length. */
bool ox_external_parse(const Onnx__TensorProto *t, const char *where,
                       ox_external_ref *ref, kiln_onnx_status *st);
/* Maps the referenced bytes; SIZE is what the tensor needs. */
bool ox_external_map(ox_doc *doc, const ox_external_ref *ref,
                     const char *where, size_t size, const void **data,
                     kiln_onnx_status *st);
void ox_external_unmap_all(ox_doc *doc);

/* ---- tensor_bytes.c ---- */
bool ox_tensor_bytes(ox_doc *doc, const Onnx__TensorProto *t,
                     kiln_onnx_bytes *out, kiln_onnx_status *st);

/* ---- names.c: scoped string sets for SSA name checks ---- */
typedef struct ox_names ox_names;
ox_names *ox_names_new(ox_arena *a, ox_names *parent);
/* Adds S; false when the arena is exhausted. */
bool ox_names_add(ox_names *n, const char *s);
bool ox_names_has(const ox_names *n, const char *s); /* this scope or up */
bool ox_names_has_local(const ox_names *n, const char *s);

/* ---- validate.c / value.c ---- */
bool ox_validate_model(ox_doc *doc, kiln_onnx_status *st);
bool ox_check_type(const Onnx__TypeProto *type, const char *where,
                   unsigned depth, kiln_onnx_status *st);

#endif

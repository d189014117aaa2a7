/* Zero-copy FlatBuffers reading for Kiln: the schema descriptor types, the
 * generic verifier, and the inline primitives the generated accessors use.
 *
 * Contract: accessors do no bounds checks of their own; they are safe only
 * on a buffer that kiln_fb_verify accepted with the same schema. The
 * verifier never allocates, follows every offset once, and bounds its work
 * (nesting depth, object count) so hostile input costs linear time.
 * Little-endian hosts only (x86-64, aarch64), as FlatBuffers itself. */
#ifndef KILN_FB_READER_H
#define KILN_FB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "Kiln's FlatBuffers reader assumes a little-endian host"
#endif

/* An error message naming what is wrong and where, filled on failure. */
typedef struct kiln_format_error {
  char message[256];
  /* Set by kiln_module_view_open when the file is a Kiln module of a format
   * version this reader does not read (not a corrupt one), so callers pick
   * their status code without reading the text, which a KILN_MESSAGES=OFF
   * build does not have. */
  bool incompatible;
} kiln_format_error_t;

/* Scalar types of the schema; KFB_* helpers map the .def spelling. */
typedef enum kiln_fb_scalar {
  KILN_FB_BOOL, KILN_FB_U8, KILN_FB_U16, KILN_FB_U32, KILN_FB_U64,
  KILN_FB_I32, KILN_FB_I64
} kiln_fb_scalar_t;

#define KFB_CTYPE_BOOL bool
#define KFB_CTYPE_U8 uint8_t
#define KFB_CTYPE_U16 uint16_t
#define KFB_CTYPE_U32 uint32_t
#define KFB_CTYPE_U64 uint64_t
#define KFB_CTYPE_I32 int32_t
#define KFB_CTYPE_I64 int64_t
#define KFB_SIZE_BOOL 1
#define KFB_SIZE_U8 1
#define KFB_SIZE_U16 2
#define KFB_SIZE_U32 4
#define KFB_SIZE_U64 8
#define KFB_SIZE_I32 4
#define KFB_SIZE_I64 8

typedef enum kiln_fb_kind {
  KILN_FB_FIELD_SCALAR,     /* ref: enum index + 1, or 0 */
  KILN_FB_FIELD_STRUCT,     /* ref: struct index */
  KILN_FB_FIELD_STRING,
  KILN_FB_FIELD_TABLE,      /* ref: table index */
  KILN_FB_FIELD_VEC_SCALAR, /* ref: enum index + 1, or 0 */
  KILN_FB_FIELD_VEC_STRUCT, /* ref: struct index */
  KILN_FB_FIELD_VEC_STRING,
  KILN_FB_FIELD_VEC_TABLE,  /* ref: table index */
  KILN_FB_FIELD_NAME,       /* a string that must be present, non-empty
                               and free of NUL bytes (a name or signature
                               parts of the file are found by) */
  KILN_FB_FIELD_VEC_DIMS    /* a vector of I64 tensor dims, each a size
                               or -1 (dynamic) */
} kiln_fb_kind_t;

/* Names (.fbs spellings, for messages and JSON keys) are offsets into the
 * schema's `names` blob (kiln_fb_name), and a descriptor's fields or values
 * an index into the schema's one array of them: no pointers, so the
 * descriptors are a third the size and need no relocations. */
typedef struct kiln_fb_field_desc {
  uint16_t name;
  uint16_t slot;
  uint8_t kind;   /* kiln_fb_kind_t */
  uint8_t scalar; /* kiln_fb_scalar_t, for scalar kinds */
  uint16_t ref;
} kiln_fb_field_desc_t;

typedef struct kiln_fb_table_desc {
  uint16_t fields; /* its first field in kiln_fb_schema_t.fields */
  uint16_t name, field_count;
} kiln_fb_table_desc_t;

typedef struct kiln_fb_struct_field_desc {
  uint16_t name;
  uint16_t offset;
  uint8_t scalar;
} kiln_fb_struct_field_desc_t;

typedef struct kiln_fb_struct_desc {
  uint16_t fields; /* its first field in kiln_fb_schema_t.struct_fields */
  uint16_t name, field_count, size, align;
} kiln_fb_struct_desc_t;

typedef struct kiln_fb_enum_value {
  int32_t value; /* FlatBuffers enums here are bytes; int32 leaves room */
  uint16_t name;
} kiln_fb_enum_value_t;

typedef struct kiln_fb_enum_desc {
  uint32_t valid; /* bit v set for each declared value v (all are 0..31) */
  uint16_t values; /* its first value in kiln_fb_schema_t.enum_values */
  uint16_t name, value_count;
} kiln_fb_enum_desc_t;

typedef struct kiln_fb_schema {
  const kiln_fb_table_desc_t *tables;
  const kiln_fb_field_desc_t *fields; /* every table's, table after table */
  const kiln_fb_struct_desc_t *structs;
  /* Struct fields and enum values only give printers (kiln-dump) their
   * names and layout: NULL, with no counts, where nothing prints. */
  const kiln_fb_struct_field_desc_t *struct_fields;
  const kiln_fb_enum_desc_t *enums;
  const kiln_fb_enum_value_t *enum_values;
  const char *names; /* NUL-separated; descriptors hold offsets into it */
  uint16_t table_count, struct_count, enum_count, root_table;
} kiln_fb_schema_t;

/* Field i of table td, struct field i of sd, value i of enum e. */
static inline const kiln_fb_field_desc_t *kiln_fb_table_field(
    const kiln_fb_schema_t *schema, const kiln_fb_table_desc_t *td,
    unsigned i) {
  return &schema->fields[td->fields + i];
}
static inline const kiln_fb_struct_field_desc_t *kiln_fb_struct_field(
    const kiln_fb_schema_t *schema, const kiln_fb_struct_desc_t *sd,
    unsigned i) {
  return &schema->struct_fields[sd->fields + i];
}
static inline const kiln_fb_enum_value_t *kiln_fb_enum_value(
    const kiln_fb_schema_t *schema, const kiln_fb_enum_desc_t *e, unsigned i) {
  return &schema->enum_values[e->values + i];
}

/* The name at offset `name` of schema's blob. */
static inline const char *kiln_fb_name(const kiln_fb_schema_t *schema,
                                       uint16_t name) {
  return schema->names + name;
}

/* Limits that keep verification of hostile input cheap. */
#define KILN_FB_MAX_DEPTH 32
#define KILN_FB_MAX_BUFFER 0x7fffffffu /* FlatBuffers' 2 GB offset reach */
/* Objects (tables, vectors, strings) one verification may visit: far
 * above any real module, low enough that a small FlatBuffer at the head of
 * a huge file cannot buy seconds of work by sharing subobjects. */
#define KILN_FB_MAX_OBJECTS (1u << 24)

/* Verifies buf[0..size) as a FlatBuffer whose root table is
 * schema->root_table: every offset, length, alignment, vtable, string
 * terminator and enum value. size may exceed the FlatBuffer (a module's
 * segments follow it); *extent receives the end of the furthest byte the
 * FlatBuffer uses. Returns false with err naming the field path. */
bool kiln_fb_verify(const kiln_fb_schema_t *schema, const uint8_t *buf,
                    uint64_t size, uint64_t *extent, kiln_format_error_t *err);

/* The size in bytes of a scalar type. */
unsigned kiln_fb_scalar_size(kiln_fb_scalar_t s);

/* ---- Inline primitives for verified buffers. ---- */

/* A string view; data is NUL-terminated, "" when the field is absent. */
typedef struct kiln_fb_string {
  const char *data;
  uint32_t size;
} kiln_fb_string_t;

static inline uint16_t kiln_fb_read_u16(const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline uint32_t kiln_fb_read_u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The address of field `slot` of the table at t, or NULL if absent. */
static inline const uint8_t *kiln_fb_field(const uint8_t *t, unsigned slot) {
  if (!t) return NULL;
  int32_t soffset;
  memcpy(&soffset, t, sizeof soffset);
  const uint8_t *vt = t - soffset;
  if (4u + 2u * slot + 2u > kiln_fb_read_u16(vt)) return NULL;
  uint16_t off = kiln_fb_read_u16(vt + 4 + 2 * slot);
  return off ? t + off : NULL;
}

/* Follows the uoffset stored at p. */
static inline const uint8_t *kiln_fb_deref(const uint8_t *p) {
  return p ? p + kiln_fb_read_u32(p) : NULL;
}

/* Field `slot` of t as a referenced object (table, vector, string). */
static inline const uint8_t *kiln_fb_ref(const uint8_t *t, unsigned slot) {
  return kiln_fb_deref(kiln_fb_field(t, slot));
}

static inline uint32_t kiln_fb_vec_count(const uint8_t *v) {
  return v ? kiln_fb_read_u32(v) : 0;
}

static inline kiln_fb_string_t kiln_fb_string_at(const uint8_t *s) {
  kiln_fb_string_t r = {"", 0};
  if (s) {
    r.size = kiln_fb_read_u32(s);
    r.data = (const char *)s + 4;
  }
  return r;
}

/* Element i of a vector of offsets (tables or strings); NULL past the end. */
static inline const uint8_t *kiln_fb_vec_ref(const uint8_t *v, uint32_t i) {
  return i < kiln_fb_vec_count(v) ? kiln_fb_deref(v + 4 + 4 * (size_t)i)
                                  : NULL;
}

#endif /* KILN_FB_READER_H */

/* Reading a .kiln module: verify once, then read in place.
 *
 * kiln_module_view_open takes the whole file (pointer + length, e.g. an
 * mmap) and checks everything the runtime relies on before any use: the
 * file identifier, the format version, the FlatBuffer structure (every
 * offset, length, alignment, vtable, enum value), and the module's own
 * invariants (bytecode ranges, segment indices and kinds, segments inside
 * the file, 64-byte aligned, in order and not overlapping the FlatBuffer).
 * It never allocates and never reads outside [file, file + size). After it
 * succeeds the typed accessors below read without further checks.
 *
 * Accessors are generated from kiln/module_schema.def: for a table T with
 * field F, kiln_fb_T_F(t) returns the value (the default, "" or a null
 * table when absent) and kiln_fb_T_F_present(t) says whether it is stored;
 * vectors add kiln_fb_T_F_count(t) and kiln_fb_T_F_at(t, i), and vectors
 * of scalars kiln_fb_T_F_data(t) for the raw little-endian elements. */
#ifndef KILN_MODULE_FORMAT_H
#define KILN_MODULE_FORMAT_H

#include "kiln/fb_reader.h"

/* The version this builder writes, and the oldest one readers accept
 * (version 2 added ExecutableVariant.exports, version 3 changed the
 * segments' content hash; kiln_module.fbs lists them). */
#define KILN_MODULE_FORMAT_VERSION 3u
#define KILN_MODULE_FORMAT_VERSION_MIN 1u
#define KILN_MODULE_FILE_IDENTIFIER "KILN"
/* Every segment starts at a multiple of this file offset... */
#define KILN_MODULE_SEGMENT_ALIGNMENT 64u
/* ...and segments of at least LARGE_SEGMENT_SIZE bytes at a multiple of
 * LARGE_SEGMENT_ALIGNMENT, so that an mmap can hand out whole pages. */
#define KILN_MODULE_LARGE_SEGMENT_SIZE 65536u
#define KILN_MODULE_LARGE_SEGMENT_ALIGNMENT 4096u
/* Launch limits a VariantExport must respect (CUDA's, for every SM Kiln
 * targets): threads per block in all and per dimension, and shared memory
 * per block, static plus dynamic (228 KiB, the largest any SM offers). */
#define KILN_MODULE_MAX_BLOCK_THREADS 1024u
#define KILN_MODULE_MAX_BLOCK_X 1024u
#define KILN_MODULE_MAX_BLOCK_Y 1024u
#define KILN_MODULE_MAX_BLOCK_Z 64u
#define KILN_MODULE_MAX_SHARED_MEMORY_BYTES (228u * 1024u)

/* ---- Generated types and accessors. ---- */

#define KFB_LOAD_BOOL(dst, p) ((dst) = (*(p) != 0))
#define KFB_LOAD_U8(dst, p) memcpy(&(dst), (p), 1)
#define KFB_LOAD_U16(dst, p) memcpy(&(dst), (p), 2)
#define KFB_LOAD_U32(dst, p) memcpy(&(dst), (p), 4)
#define KFB_LOAD_U64(dst, p) memcpy(&(dst), (p), 8)
#define KFB_LOAD_I32(dst, p) memcpy(&(dst), (p), 4)
#define KFB_LOAD_I64(dst, p) memcpy(&(dst), (p), 8)

#define KFB_ENUM(e, st) typedef enum kiln_fb_##e {
#define KFB_ENUM_VALUE(e, name, value) kiln_fb_##e##_##name = value,
#define KFB_ENUM_END(e) } kiln_fb_##e##_t;
#define KFB_STRUCT(s, size, align) typedef struct kiln_fb_##s {
#define KFB_STRUCT_FIELD(s, f, offset, st) KFB_CTYPE_##st f;
#define KFB_STRUCT_END(s) } kiln_fb_##s##_t;
#define KFB_TABLE(t) typedef struct kiln_fb_##t { const uint8_t *p; } kiln_fb_##t##_t;
#include "kiln/module_schema.def"

/* kiln_fb_S_read(p): struct S stored at p (zeroes when p is NULL). */
#define KFB_STRUCT(s, size, align)                                     \
  enum { KILN_FB_##s##_SIZE = size };                                  \
  static inline kiln_fb_##s##_t kiln_fb_##s##_read(const uint8_t *p) { \
    kiln_fb_##s##_t r;                                                 \
    memset(&r, 0, sizeof r);                                           \
    if (p) {
#define KFB_STRUCT_FIELD(s, f, offset, st) KFB_LOAD_##st(r.f, p + offset);
#define KFB_STRUCT_END(s) \
  }                       \
  return r;               \
  }
#include "kiln/module_schema.def"

#define KFB_PRESENT_(t, f, slot)                                     \
  static inline bool kiln_fb_##t##_##f##_present(kiln_fb_##t##_t x) { \
    return kiln_fb_field(x.p, slot) != NULL;                          \
  }
#define KFB_SCALAR(t, f, slot, st, def)                                 \
  KFB_PRESENT_(t, f, slot)                                              \
  static inline KFB_CTYPE_##st kiln_fb_##t##_##f(kiln_fb_##t##_t x) {   \
    const uint8_t *p = kiln_fb_field(x.p, slot);                        \
    KFB_CTYPE_##st v = def;                                             \
    if (p) KFB_LOAD_##st(v, p);                                         \
    return v;                                                           \
  }
#define KFB_ENUM_FIELD(t, f, slot, st, e, def)                          \
  KFB_PRESENT_(t, f, slot)                                              \
  static inline kiln_fb_##e##_t kiln_fb_##t##_##f(kiln_fb_##t##_t x) {  \
    const uint8_t *p = kiln_fb_field(x.p, slot);                        \
    KFB_CTYPE_##st v = def;                                             \
    if (p) KFB_LOAD_##st(v, p);                                         \
    return (kiln_fb_##e##_t)v;                                          \
  }
#define KFB_STRUCT_REF(t, f, slot, s)                                   \
  KFB_PRESENT_(t, f, slot)                                              \
  static inline kiln_fb_##s##_t kiln_fb_##t##_##f(kiln_fb_##t##_t x) {  \
    return kiln_fb_##s##_read(kiln_fb_field(x.p, slot));                \
  }
#define KFB_STRING(t, f, slot)                                          \
  KFB_PRESENT_(t, f, slot)                                              \
  static inline kiln_fb_string_t kiln_fb_##t##_##f(kiln_fb_##t##_t x) { \
    return kiln_fb_string_at(kiln_fb_ref(x.p, slot));                   \
  }
#define KFB_TABLE_REF(t, f, slot, sub)                                  \
  KFB_PRESENT_(t, f, slot)                                              \
  static inline kiln_fb_##sub##_t kiln_fb_##t##_##f(kiln_fb_##t##_t x) { \
    kiln_fb_##sub##_t r = {kiln_fb_ref(x.p, slot)};                     \
    return r;                                                           \
  }
#define KFB_VEC_COUNT_(t, f, slot)                                          \
  KFB_PRESENT_(t, f, slot)                                                  \
  static inline uint32_t kiln_fb_##t##_##f##_count(kiln_fb_##t##_t x) {     \
    return kiln_fb_vec_count(kiln_fb_ref(x.p, slot));                       \
  }
#define KFB_VEC_SCALAR(t, f, slot, st)                                      \
  KFB_VEC_COUNT_(t, f, slot)                                                \
  static inline const uint8_t *kiln_fb_##t##_##f##_data(kiln_fb_##t##_t x) { \
    const uint8_t *v = kiln_fb_ref(x.p, slot);                              \
    return v ? v + 4 : NULL;                                                \
  }                                                                         \
  static inline KFB_CTYPE_##st kiln_fb_##t##_##f##_at(kiln_fb_##t##_t x,    \
                                                      uint32_t i) {         \
    const uint8_t *v = kiln_fb_ref(x.p, slot);                              \
    KFB_CTYPE_##st r = 0;                                                   \
    if (i < kiln_fb_vec_count(v))                                           \
      KFB_LOAD_##st(r, v + 4 + (size_t)i * KFB_SIZE_##st);                  \
    return r;                                                               \
  }
#define KFB_VEC_STRUCT(t, f, slot, s)                                       \
  KFB_VEC_COUNT_(t, f, slot)                                                \
  static inline kiln_fb_##s##_t kiln_fb_##t##_##f##_at(kiln_fb_##t##_t x,   \
                                                       uint32_t i) {        \
    const uint8_t *v = kiln_fb_ref(x.p, slot);                              \
    return kiln_fb_##s##_read(i < kiln_fb_vec_count(v)                      \
                                  ? v + 4 + (size_t)i * KILN_FB_##s##_SIZE     \
                                  : NULL);                                  \
  }
#define KFB_VEC_STRING(t, f, slot)                                          \
  KFB_VEC_COUNT_(t, f, slot)                                                \
  static inline kiln_fb_string_t kiln_fb_##t##_##f##_at(kiln_fb_##t##_t x,  \
                                                        uint32_t i) {       \
    return kiln_fb_string_at(kiln_fb_vec_ref(kiln_fb_ref(x.p, slot), i));   \
  }
#define KFB_VEC_TABLE(t, f, slot, sub)                                      \
  KFB_VEC_COUNT_(t, f, slot)                                                \
  static inline kiln_fb_##sub##_t kiln_fb_##t##_##f##_at(kiln_fb_##t##_t x, \
                                                         uint32_t i) {      \
    kiln_fb_##sub##_t r = {kiln_fb_vec_ref(kiln_fb_ref(x.p, slot), i)};     \
    return r;                                                               \
  }
#include "kiln/module_schema.def"
#undef KFB_PRESENT_
#undef KFB_VEC_COUNT_

/* Schema indices, for code walking kiln_module_schema generically. */
#define KFB_TABLE(t) KILN_FB_TABLE_##t,
enum kiln_fb_table_index {
#include "kiln/module_schema.def"
  KILN_FB_TABLE_COUNT_
};
#define KFB_STRUCT(s, size, align) KILN_FB_STRUCT_##s,
enum kiln_fb_struct_index {
#include "kiln/module_schema.def"
  KILN_FB_STRUCT_COUNT_
};
#define KFB_ENUM(e, st) KILN_FB_ENUM_##e,
enum kiln_fb_enum_index {
#include "kiln/module_schema.def"
  KILN_FB_ENUM_COUNT_
};

/* The schema descriptors generated from module_schema.def. */
extern const kiln_fb_schema_t kiln_module_schema;

/* ---- The verified module. ---- */

typedef struct kiln_module_view {
  const uint8_t *file;
  uint64_t file_size;
  uint64_t flatbuffer_size; /* bytes the FlatBuffer spans from the start */
  kiln_fb_Module_t root;
} kiln_module_view_t;

/* Verifies the whole file and fills *view. On failure returns false and
 * err->message says what is wrong and where (e.g. "functions[2].
 * bytecode_size: range 96+4096 exceeds the 512-byte bytecode"). A
 * runtime-only reader built without CUDA, dispatch observers or message
 * text skips the fields only those parts read (format/module/CMakeLists.txt). */
bool kiln_module_view_open(kiln_module_view_t *view, const void *file,
                           uint64_t file_size, kiln_format_error_t *err);

/* The stored (possibly compressed) bytes of segment `index`. */
const uint8_t *kiln_module_segment_data(const kiln_module_view_t *view,
                                        uint32_t index, uint64_t *size);

/* The bytecode of function `index`. */
const uint8_t *kiln_module_function_bytecode(const kiln_module_view_t *view,
                                             uint32_t index, uint32_t *size);

/* Index of the function named name[0..len), or -1. */
int64_t kiln_module_find_function(const kiln_module_view_t *view,
                                  const char *name, size_t len);

/* The segments' content hash this builder records: kiln-hash-64 of
 * data[0..size) (module_hash.c specifies it). */
uint64_t kiln_module_hash(const void *data, uint64_t size);
/* FNV-1a 64: the content hash of format versions 1 and 2. */
uint64_t kiln_module_hash_fnv1a(const void *data, uint64_t size);
/* The content hash of data[0..size) as the view's format version records
 * it. */
uint64_t kiln_module_segment_hash(const kiln_module_view_t *view,
                                  const void *data, uint64_t size);

/* Checks an uncompressed segment's bytes against its content hash (this
 * reads the whole segment, so view_open leaves it to the caller). */
bool kiln_module_segment_check_hash(const kiln_module_view_t *view,
                                    uint32_t index, kiln_format_error_t *err);

/* "f32", "bf16", ...; "?" for Unknown or invalid values. */
const char *kiln_module_element_type_name(kiln_fb_ElementType_t type);
/* Storage size in bytes of one element (i1 takes a byte); 0 if invalid
 * and for str, whose elements vary in size (kiln/runtime.h: the layout). */
unsigned kiln_module_element_type_size(kiln_fb_ElementType_t type);

#endif /* KILN_MODULE_FORMAT_H */

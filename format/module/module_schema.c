/* The .kiln schema descriptors, generated from kiln/module_schema.def.
 * They drive the generic verifier (fb_verify.c) and any generic walker
 * (kiln-dump --raw-json); names are the .fbs spellings so that messages
 * and JSON use the same words as flatc. */
#include "kiln/module_format.h"

#include <stddef.h>

/* Every name in one blob, laid out as a struct of char arrays so that each
 * descriptor can hold its name's offset (offsetof) instead of a pointer.
 * A KILN_MESSAGES=OFF build keeps the descriptors' structure but not
 * their names, which only spell messages and JSON keys: its blob is "". */
#ifdef KILN_NO_MESSAGES
static const char kfb_names[1] = "";
#define KFB_NAME_(member) 0
#else
/* A runtime-only build (KILN_FORMAT_RUNTIME_ONLY) keeps the names its
 * verifier's messages use (tables, fields, enums) and drops those only the
 * JSON printer reads (enum values, structs and their fields); its structs
 * name the empty string at offset 0. */
#ifdef KILN_FORMAT_RUNTIME_ONLY
#define KFB_JSON_NAME_(...)
#else
#define KFB_JSON_NAME_(...) __VA_ARGS__
#endif
#define KFB_ENUM(e, st) char e_##e[sizeof #e];
#define KFB_ENUM_VALUE(e, name, value) \
  KFB_JSON_NAME_(char v_##e##_##name[sizeof #name];)
#define KFB_STRUCT(s, size, align) KFB_JSON_NAME_(char s_##s[sizeof #s];)
#define KFB_STRUCT_FIELD(s, f, offset, st) \
  KFB_JSON_NAME_(char sf_##s##_##f[sizeof #f];)
/* A field whose name another field already spells, whole or as its end,
 * stores no copy: KFB_SAME_<member> names that field's member and how
 * many leading bytes of it to skip. Each target is a field every build
 * has (none under #if in the .def), and a check below holds each pair to
 * the same length; test_format_fb_generic and the dump goldens read the
 * names back. */
#define KFB_SAME_(target, skip)                                 \
  ~, (offsetof(struct kfb_name_blob, target) + (skip)), KFB_DROP_, \
      (sizeof((struct kfb_name_blob *)0)->target - (skip))
#define KFB_SAME_f_SourceNode_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_Import_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_Rodata_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_ExecutableExport_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_ExecutableVariant_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_Executable_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_BundledTensor_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_Module_name KFB_SAME_(f_Function_name, 0)
#define KFB_SAME_f_SourceNode_kind KFB_SAME_(f_Segment_kind, 0)
#define KFB_SAME_f_ExecutableVariant_segment KFB_SAME_(f_Rodata_segment, 0)
#define KFB_SAME_f_ExecutableVariant_exports KFB_SAME_(f_Executable_exports, 0)
#define KFB_SAME_f_BundledTensor_element_type KFB_SAME_(f_TensorType_element_type, 0)
#define KFB_SAME_f_BundledTensor_dims KFB_SAME_(f_TensorType_dims, 0)
#define KFB_SAME_f_BundledCase_inputs KFB_SAME_(f_Function_inputs, 0)
#define KFB_SAME_f_BundledCase_outputs KFB_SAME_(f_Function_outputs, 0)
#define KFB_SAME_f_Import_signature \
  KFB_SAME_(f_Function_vm_signature, sizeof "vm_" - 1)
#define KFB_SAME_f_Segment_offset \
  KFB_SAME_(f_Function_bytecode_offset, sizeof "bytecode_" - 1)
#define KFB_SAME_f_Segment_size \
  KFB_SAME_(f_Function_bytecode_size, sizeof "bytecode_" - 1)
/* The second and third of a list, after the argument's expansion. */
#define KFB_ARG2_(a, b, ...) b
#define KFB_ARG2(...) KFB_ARG2_(__VA_ARGS__)
#define KFB_ARG3_(a, b, c, ...) c
#define KFB_ARG3(...) KFB_ARG3_(__VA_ARGS__)
#define KFB_ARG4_(a, b, c, d, ...) d
#define KFB_ARG4(...) KFB_ARG4_(__VA_ARGS__)
#define KFB_KEEP_(...) __VA_ARGS__
#define KFB_DROP_(...)
/* KFB_OWN_(m)(x): x unless member m is another's name (KFB_SAME_). */
#define KFB_OWN_(m) KFB_ARG3(KFB_SAME_##m, ~, KFB_KEEP_, ~)
#define KFB_F_MEMBER_(t, f) \
  KFB_OWN_(f_##t##_##f)(char f_##t##_##f[sizeof #f];)
#define KFB_TABLE(t) char t_##t[sizeof #t];
#define KFB_SCALAR(t, f, slot, st, def) KFB_F_MEMBER_(t, f)
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) KFB_F_MEMBER_(t, f)
#define KFB_STRUCT_REF(t, f, slot, s) KFB_F_MEMBER_(t, f)
#define KFB_STRING(t, f, slot) KFB_F_MEMBER_(t, f)
#define KFB_TABLE_REF(t, f, slot, sub) KFB_F_MEMBER_(t, f)
#define KFB_VEC_SCALAR(t, f, slot, st) KFB_F_MEMBER_(t, f)
#define KFB_VEC_STRUCT(t, f, slot, s) KFB_F_MEMBER_(t, f)
#define KFB_VEC_STRING(t, f, slot) KFB_F_MEMBER_(t, f)
#define KFB_VEC_TABLE(t, f, slot, sub) KFB_F_MEMBER_(t, f)
struct kfb_name_blob {
  char none[1]; /* "": the dropped names' offset */
#include "kiln/module_schema.def"
};

#define KFB_ENUM(e, st) #e,
#define KFB_ENUM_VALUE(e, name, value) KFB_JSON_NAME_(#name,)
#define KFB_STRUCT(s, size, align) KFB_JSON_NAME_(#s,)
#define KFB_STRUCT_FIELD(s, f, offset, st) KFB_JSON_NAME_(#f,)
#define KFB_F_INIT_(t, f) KFB_OWN_(f_##t##_##f)(#f,)
#define KFB_TABLE(t) #t,
#define KFB_SCALAR(t, f, slot, st, def) KFB_F_INIT_(t, f)
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) KFB_F_INIT_(t, f)
#define KFB_STRUCT_REF(t, f, slot, s) KFB_F_INIT_(t, f)
#define KFB_STRING(t, f, slot) KFB_F_INIT_(t, f)
#define KFB_TABLE_REF(t, f, slot, sub) KFB_F_INIT_(t, f)
#define KFB_VEC_SCALAR(t, f, slot, st) KFB_F_INIT_(t, f)
#define KFB_VEC_STRUCT(t, f, slot, s) KFB_F_INIT_(t, f)
#define KFB_VEC_STRING(t, f, slot) KFB_F_INIT_(t, f)
#define KFB_VEC_TABLE(t, f, slot, sub) KFB_F_INIT_(t, f)
static const struct kfb_name_blob kfb_name_blob = {
    "",
#include "kiln/module_schema.def"
};
_Static_assert(sizeof kfb_name_blob <= UINT16_MAX, "names must fit uint16_t offsets");
#define kfb_names ((const char *)&kfb_name_blob)
#define KFB_NAME_(member) \
  (uint16_t)KFB_ARG2(KFB_SAME_##member, offsetof(struct kfb_name_blob, member), ~)

/* A shared name is as long as the field's own. */
#define KFB_F_SAME_LEN_(t, f)                                             \
  _Static_assert(KFB_ARG4(KFB_SAME_f_##t##_##f, ~, ~, sizeof #f, ~) == \
                     sizeof #f,                                           \
                 #t "." #f ": its KFB_SAME_ target is spelled otherwise");
#define KFB_SCALAR(t, f, slot, st, def) KFB_F_SAME_LEN_(t, f)
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) KFB_F_SAME_LEN_(t, f)
#define KFB_STRUCT_REF(t, f, slot, s) KFB_F_SAME_LEN_(t, f)
#define KFB_STRING(t, f, slot) KFB_F_SAME_LEN_(t, f)
#define KFB_TABLE_REF(t, f, slot, sub) KFB_F_SAME_LEN_(t, f)
#define KFB_VEC_SCALAR(t, f, slot, st) KFB_F_SAME_LEN_(t, f)
#define KFB_VEC_STRUCT(t, f, slot, s) KFB_F_SAME_LEN_(t, f)
#define KFB_VEC_STRING(t, f, slot) KFB_F_SAME_LEN_(t, f)
#define KFB_VEC_TABLE(t, f, slot, sub) KFB_F_SAME_LEN_(t, f)
#include "kiln/module_schema.def"
#endif

/* The verifier checks enum values against a 32-bit mask of the declared
 * ones; the value tables only give printers (kiln-dump) their names, so a
 * runtime-only build (KILN_FORMAT_RUNTIME_ONLY) has none. */
#define KFB_ENUM_VALUE(e, name, value)                                   \
  _Static_assert((value) >= 0 && (value) < 32,                           \
                 #e "." #name ": kiln_fb_enum_desc_t.valid holds 0..31");
#include "kiln/module_schema.def"

/* The verifier reads an absent enum field as 0 (KFB_ENUM_UNSET). */
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) \
  _Static_assert((def) == 0, #t "." #f ": enum fields default to 0");
#include "kiln/module_schema.def"

#define KFB_ENUM(e, st) enum { kfb_valid_##e = 0
#define KFB_ENUM_VALUE(e, name, value) | (1 << (value))
#define KFB_ENUM_UNSET(e, name, value) /* never valid */
#define KFB_ENUM_END(e) };
#include "kiln/module_schema.def"

/* Each field's index in kfb_fields (all tables' fields in one array,
 * in .def order), and each table's first and end: a table's enumerator
 * is set back by one so that its first field takes the same number. The
 * same for struct fields and enum values, which only printers read. */
#define KFB_FIELD_(t, f) kfb_field_##t##_##f,
#define KFB_TABLE(t) kfb_first_##t, kfb_back_##t = kfb_first_##t - 1,
#define KFB_TABLE_END(t) kfb_end_##t, kfb_endback_##t = kfb_end_##t - 1,
#define KFB_SCALAR(t, f, slot, st, def) KFB_FIELD_(t, f)
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) KFB_FIELD_(t, f)
#define KFB_STRUCT_REF(t, f, slot, s) KFB_FIELD_(t, f)
#define KFB_STRING(t, f, slot) KFB_FIELD_(t, f)
#define KFB_TABLE_REF(t, f, slot, sub) KFB_FIELD_(t, f)
#define KFB_VEC_SCALAR(t, f, slot, st) KFB_FIELD_(t, f)
#define KFB_VEC_STRUCT(t, f, slot, s) KFB_FIELD_(t, f)
#define KFB_VEC_STRING(t, f, slot) KFB_FIELD_(t, f)
#define KFB_VEC_TABLE(t, f, slot, sub) KFB_FIELD_(t, f)
enum kfb_field_index {
#include "kiln/module_schema.def"
  kfb_field_count
};
#undef KFB_FIELD_
_Static_assert(kfb_field_count <= UINT16_MAX, "field indices are uint16_t");

#ifdef KILN_FORMAT_RUNTIME_ONLY /* the verifier reads size and alignment */
#define KFB_VALUES_(e) 0, KFB_NAME_(e_##e), 0
#define KFB_SFIELDS_(s) 0, 0, 0
#define KFB_STRUCT_FIELDS_ NULL
#define KFB_ENUM_VALUES_ NULL
#else
#define KFB_ENUM(e, st) kfb_first_value_##e, kfb_back_##e = kfb_first_value_##e - 1,
#define KFB_ENUM_VALUE(e, name, value) kfb_value_##e##_##name,
#define KFB_ENUM_END(e) kfb_end_value_##e, kfb_endback_##e = kfb_end_value_##e - 1,
enum kfb_value_index {
#include "kiln/module_schema.def"
};
#define KFB_STRUCT(s, size, align) kfb_first_sf_##s, kfb_back_##s = kfb_first_sf_##s - 1,
#define KFB_STRUCT_FIELD(s, f, offset, st) kfb_sf_##s##_##f,
#define KFB_STRUCT_END(s) kfb_end_sf_##s, kfb_endback_##s = kfb_end_sf_##s - 1,
enum kfb_struct_field_index {
#include "kiln/module_schema.def"
};
#define KFB_VALUES_(e) \
  kfb_first_value_##e, KFB_NAME_(e_##e), kfb_end_value_##e - kfb_first_value_##e
#define KFB_SFIELDS_(s) \
  kfb_first_sf_##s, KFB_NAME_(s_##s), kfb_end_sf_##s - kfb_first_sf_##s

static const kiln_fb_enum_value_t kfb_enum_values[] = {
#define KFB_ENUM_VALUE(e, name, value) {value, KFB_NAME_(v_##e##_##name)},
#include "kiln/module_schema.def"
};
static const kiln_fb_struct_field_desc_t kfb_struct_fields[] = {
#define KFB_STRUCT_FIELD(s, f, offset, st) {KFB_NAME_(sf_##s##_##f), offset, KILN_FB_##st},
#include "kiln/module_schema.def"
};
#define KFB_STRUCT_FIELDS_ kfb_struct_fields
#define KFB_ENUM_VALUES_ kfb_enum_values
#endif

static const kiln_fb_field_desc_t kfb_fields[] = {
#define KFB_F_(t, f) KFB_NAME_(f_##t##_##f)
#define KFB_SCALAR(t, f, slot, st, def) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_SCALAR, KILN_FB_##st, 0},
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_SCALAR, KILN_FB_##st, KILN_FB_ENUM_##e + 1},
#define KFB_STRUCT_REF(t, f, slot, s) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_STRUCT, 0, KILN_FB_STRUCT_##s},
#define KFB_STRING(t, f, slot) {KFB_F_(t, f), slot, KILN_FB_FIELD_STRING, 0, 0},
#define KFB_NAME(t, f, slot) {KFB_F_(t, f), slot, KILN_FB_FIELD_NAME, 0, 0},
#define KFB_TABLE_REF(t, f, slot, sub) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_TABLE, 0, KILN_FB_TABLE_##sub},
#define KFB_VEC_SCALAR(t, f, slot, st) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_VEC_SCALAR, KILN_FB_##st, 0},
#define KFB_DIMS(t, f, slot) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_VEC_DIMS, KILN_FB_I64, 0},
#define KFB_VEC_STRUCT(t, f, slot, s) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_VEC_STRUCT, 0, KILN_FB_STRUCT_##s},
#define KFB_VEC_STRING(t, f, slot) {KFB_F_(t, f), slot, KILN_FB_FIELD_VEC_STRING, 0, 0},
#define KFB_VEC_TABLE(t, f, slot, sub) \
  {KFB_F_(t, f), slot, KILN_FB_FIELD_VEC_TABLE, 0, KILN_FB_TABLE_##sub},
#include "kiln/module_schema.def"
};

#define KFB_COUNT_(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))

static const kiln_fb_enum_desc_t kfb_enums[] = {
#define KFB_ENUM(e, st) {(uint32_t)kfb_valid_##e, KFB_VALUES_(e)},
#include "kiln/module_schema.def"
};

static const kiln_fb_struct_desc_t kfb_structs[] = {
#define KFB_STRUCT(s, size, align) {KFB_SFIELDS_(s), size, align},
#include "kiln/module_schema.def"
};

static const kiln_fb_table_desc_t kfb_tables[] = {
#define KFB_TABLE(t) \
  {kfb_first_##t, KFB_NAME_(t_##t), kfb_end_##t - kfb_first_##t},
#include "kiln/module_schema.def"
};

const kiln_fb_schema_t kiln_module_schema = {
    kfb_tables, kfb_fields, kfb_structs, KFB_STRUCT_FIELDS_,
    kfb_enums, KFB_ENUM_VALUES_, kfb_names,
    KFB_COUNT_(kfb_tables), KFB_COUNT_(kfb_structs), KFB_COUNT_(kfb_enums),
    KILN_FB_TABLE_Module,
};

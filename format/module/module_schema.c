/* The .kiln schema descriptors, generated from kiln/module_schema.def.
 * They drive the generic verifier (fb_verify.c) and any generic walker
 * (kiln-dump --raw-json); names are the .fbs spellings so that messages
 * and JSON use the same words as flatc. */
#include "kiln/module_format.h"

/* A KILN_MESSAGES=OFF build keeps the descriptors' structure but not
 * their names, which only spell messages and JSON keys. */
#ifdef KILN_NO_MESSAGES
#define KFB_NAME_(x) ""
#else
#define KFB_NAME_(x) #x
#endif

#define KFB_ENUM(e, st) static const kiln_fb_enum_value_t kfb_values_##e[] = {
#define KFB_ENUM_VALUE(e, name, value) {KFB_NAME_(name), value},
#define KFB_ENUM_END(e) };
#include "kiln/module_schema.def"

#define KFB_STRUCT(s, size, align) \
  static const kiln_fb_struct_field_desc_t kfb_sfields_##s[] = {
#define KFB_STRUCT_FIELD(s, f, offset, st) {KFB_NAME_(f), offset, KILN_FB_##st},
#define KFB_STRUCT_END(s) };
#include "kiln/module_schema.def"

#define KFB_TABLE(t) static const kiln_fb_field_desc_t kfb_fields_##t[] = {
#define KFB_TABLE_END(t) };
#define KFB_SCALAR(t, f, slot, st, def) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_SCALAR, KILN_FB_##st, 0},
#define KFB_ENUM_FIELD(t, f, slot, st, e, def) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_SCALAR, KILN_FB_##st, KILN_FB_ENUM_##e + 1},
#define KFB_STRUCT_REF(t, f, slot, s) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_STRUCT, 0, KILN_FB_STRUCT_##s},
#define KFB_STRING(t, f, slot) {KFB_NAME_(f), slot, KILN_FB_FIELD_STRING, 0, 0},
#define KFB_TABLE_REF(t, f, slot, sub) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_TABLE, 0, KILN_FB_TABLE_##sub},
#define KFB_VEC_SCALAR(t, f, slot, st) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_VEC_SCALAR, KILN_FB_##st, 0},
#define KFB_VEC_STRUCT(t, f, slot, s) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_VEC_STRUCT, 0, KILN_FB_STRUCT_##s},
#define KFB_VEC_STRING(t, f, slot) {KFB_NAME_(f), slot, KILN_FB_FIELD_VEC_STRING, 0, 0},
#define KFB_VEC_TABLE(t, f, slot, sub) \
  {KFB_NAME_(f), slot, KILN_FB_FIELD_VEC_TABLE, 0, KILN_FB_TABLE_##sub},
#include "kiln/module_schema.def"

#define KFB_COUNT_(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))

static const kiln_fb_enum_desc_t kfb_enums[] = {
#define KFB_ENUM(e, st) {KFB_NAME_(e), kfb_values_##e, KFB_COUNT_(kfb_values_##e)},
#include "kiln/module_schema.def"
};

static const kiln_fb_struct_desc_t kfb_structs[] = {
#define KFB_STRUCT(s, size, align) \
  {KFB_NAME_(s), kfb_sfields_##s, KFB_COUNT_(kfb_sfields_##s), size, align},
#include "kiln/module_schema.def"
};

static const kiln_fb_table_desc_t kfb_tables[] = {
#define KFB_TABLE(t) {KFB_NAME_(t), kfb_fields_##t, KFB_COUNT_(kfb_fields_##t)},
#include "kiln/module_schema.def"
};

const kiln_fb_schema_t kiln_module_schema = {
    kfb_tables, kfb_structs, kfb_enums,
    KFB_COUNT_(kfb_tables), KFB_COUNT_(kfb_structs), KFB_COUNT_(kfb_enums),
    KILN_FB_TABLE_Module,
};

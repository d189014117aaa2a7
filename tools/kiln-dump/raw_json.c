/* kiln-dump --raw-json: the whole FlatBuffer as JSON, walked generically
 * through the schema descriptors (kiln_module_schema) with the reader's
 * primitives. Field names, enum names and presence rules follow flatc's
 * --json --strict-json output, so the two can be compared value for value:
 * this is how the tests check that our reader and flatc see the same file. */
#include <inttypes.h>

#include "dump.h"

static int64_t krj_scalar(const uint8_t *p, kiln_fb_scalar_t s) {
  uint8_t b[8] = {0};
  memcpy(b, p, kiln_fb_scalar_size(s));
  switch (s) {
    case KILN_FB_BOOL:
    case KILN_FB_U8: return b[0];
    case KILN_FB_U16: return kiln_fb_read_u16(b);
    case KILN_FB_U32: return kiln_fb_read_u32(b);
    case KILN_FB_I32: {
      int32_t v;
      memcpy(&v, b, 4);
      return v;
    }
    default: {
      int64_t v;
      memcpy(&v, b, 8);
      return v;
    }
  }
}

static void krj_value(FILE *out, const kiln_fb_schema_t *schema,
                      const uint8_t *p, kiln_fb_scalar_t s,
                      const kiln_fb_enum_desc_t *e) {
  int64_t v = krj_scalar(p, s);
  if (s == KILN_FB_BOOL) {
    fputs(v ? "true" : "false", out);
    return;
  }
  for (unsigned i = 0; e && i < e->value_count; i++)
    if (kiln_fb_enum_value(schema, e, i)->value == v) {
      fprintf(out, "\"%s\"",
              kiln_fb_name(schema, kiln_fb_enum_value(schema, e, i)->name));
      return;
    }
  if (s == KILN_FB_U64)
    fprintf(out, "%" PRIu64, (uint64_t)v);
  else
    fprintf(out, "%" PRId64, v);
}

static void krj_struct(FILE *out, const kiln_fb_schema_t *schema,
                       const uint8_t *p, const kiln_fb_struct_desc_t *sd) {
  fputc('{', out);
  for (unsigned i = 0; i < sd->field_count; i++) {
    const kiln_fb_struct_field_desc_t *f = kiln_fb_struct_field(schema, sd, i);
    fprintf(out, "%s\"%s\":", i ? "," : "", kiln_fb_name(schema, f->name));
    krj_value(out, schema, p + f->offset, f->scalar, NULL);
  }
  fputc('}', out);
}

static void krj_string(FILE *out, const uint8_t *s) {
  kiln_fb_string_t str = kiln_fb_string_at(s);
  kdump_json_string(out, str.data, str.size);
}

static void krj_table(FILE *out, const kiln_fb_schema_t *schema,
                      const uint8_t *t, unsigned ti) {
  const kiln_fb_table_desc_t *td = &schema->tables[ti];
  bool first = true;
  fputc('{', out);
  for (unsigned i = 0; i < td->field_count; i++) {
    const kiln_fb_field_desc_t *f = kiln_fb_table_field(schema, td, i);
    const uint8_t *p = kiln_fb_field(t, f->slot);
    if (!p) continue;
    fprintf(out, "%s\"%s\":", first ? "" : ",", kiln_fb_name(schema, f->name));
    first = false;
    const kiln_fb_enum_desc_t *e = f->ref ? &schema->enums[f->ref - 1] : NULL;
    const uint8_t *ref = f->kind == KILN_FB_FIELD_SCALAR ||
                                 f->kind == KILN_FB_FIELD_STRUCT
                             ? NULL
                             : kiln_fb_deref(p);
    uint32_t n = ref ? kiln_fb_vec_count(ref) : 0;
    switch ((kiln_fb_kind_t)f->kind) {
      case KILN_FB_FIELD_SCALAR: krj_value(out, schema, p, f->scalar, e); break;
      case KILN_FB_FIELD_STRUCT: krj_struct(out, schema, p, &schema->structs[f->ref]); break;
      case KILN_FB_FIELD_STRING:
      case KILN_FB_FIELD_NAME: krj_string(out, ref); break;
      case KILN_FB_FIELD_TABLE: krj_table(out, schema, ref, f->ref); break;
      case KILN_FB_FIELD_VEC_DIMS:
      case KILN_FB_FIELD_VEC_SCALAR: {
        unsigned size = kiln_fb_scalar_size(f->scalar);
        fputc('[', out);
        for (uint32_t k = 0; k < n; k++) {
          if (k) fputc(',', out);
          krj_value(out, schema, ref + 4 + (size_t)k * size, f->scalar, e);
        }
        fputc(']', out);
        break;
      }
      case KILN_FB_FIELD_VEC_STRUCT: {
        const kiln_fb_struct_desc_t *sd = &schema->structs[f->ref];
        fputc('[', out);
        for (uint32_t k = 0; k < n; k++) {
          if (k) fputc(',', out);
          krj_struct(out, schema, ref + 4 + (size_t)k * sd->size, sd);
        }
        fputc(']', out);
        break;
      }
      case KILN_FB_FIELD_VEC_STRING:
      case KILN_FB_FIELD_VEC_TABLE:
        fputc('[', out);
        for (uint32_t k = 0; k < n; k++) {
          if (k) fputc(',', out);
          if (f->kind == KILN_FB_FIELD_VEC_STRING)
            krj_string(out, kiln_fb_vec_ref(ref, k));
          else
            krj_table(out, schema, kiln_fb_vec_ref(ref, k), f->ref);
        }
        fputc(']', out);
        break;
    }
  }
  fputc('}', out);
}

int kdump_raw_json(FILE *out, const kiln_module_view_t *m) {
  krj_table(out, &kiln_module_schema, m->root.p, kiln_module_schema.root_table);
  fputc('\n', out);
  return 0;
}

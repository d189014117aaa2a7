/* kiln_module_schema's names (format/module/module_schema.c) against
 * module_schema.def: every table's and field's descriptor, walked in .def
 * order, names the .def spelling. The blob stores a name another field
 * already spells only once (KFB_SAME_), so this is what shows each shared
 * offset points at the right text, not merely at one of equal length. */
#include <check.h>
#include <string.h>

#include "kiln/module_format.h"

START_TEST(test_descriptor_names) {
  const kiln_fb_schema_t *s = &kiln_module_schema;
  unsigned t = 0, f = 0, checked = 0;
  const kiln_fb_table_desc_t *td = NULL;
#define KFB_TABLE(tn)                                                  \
  td = &s->tables[t++];                                                \
  f = 0;                                                               \
  ck_assert_str_eq(kiln_fb_name(s, td->name), #tn);
#define KFB_TABLE_END(tn) ck_assert_uint_eq(f, td->field_count);
#define KFB_F_(tn, fn)                                                 \
  ck_assert_uint_lt(f, td->field_count);                               \
  ck_assert_msg(strcmp(kiln_fb_name(s, kiln_fb_table_field(s, td, f++)->name), \
                       #fn) == 0,                                      \
                "%s.%s is named '%s'", #tn, #fn,                       \
                kiln_fb_name(s, kiln_fb_table_field(s, td, f - 1)->name)); \
  checked++;
#define KFB_SCALAR(tn, fn, slot, st, def) KFB_F_(tn, fn)
#define KFB_ENUM_FIELD(tn, fn, slot, st, e, def) KFB_F_(tn, fn)
#define KFB_STRUCT_REF(tn, fn, slot, st) KFB_F_(tn, fn)
#define KFB_STRING(tn, fn, slot) KFB_F_(tn, fn)
#define KFB_TABLE_REF(tn, fn, slot, sub) KFB_F_(tn, fn)
#define KFB_VEC_SCALAR(tn, fn, slot, st) KFB_F_(tn, fn)
#define KFB_VEC_STRUCT(tn, fn, slot, st) KFB_F_(tn, fn)
#define KFB_VEC_STRING(tn, fn, slot) KFB_F_(tn, fn)
#define KFB_VEC_TABLE(tn, fn, slot, sub) KFB_F_(tn, fn)
#include "kiln/module_schema.def"
  ck_assert_uint_eq(t, s->table_count);
  /* The shared names are among these: Import.name, Segment.size, ... */
  ck_assert_uint_gt(checked, 50);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("schema_names");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, test_descriptor_names);
  suite_add_tcase(suite, tc);
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

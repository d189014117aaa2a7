/* The generic FlatBuffers layer on its own, with small hand-written
 * schemas: nesting depth is bounded (a recursive schema, which the module
 * schema cannot express), vtables are shared, scalars and vectors are
 * aligned in the final buffer, defaults are omitted, misuse of the builder
 * is reported instead of producing a broken buffer. */
#include <check.h>
#include <stdlib.h>

#include "kiln/fb_builder.h"
#include "kiln/fb_reader.h"

/* table Node { value: ulong; child: Node; name: string; nums: [long]; }
 * Names are offsets into node_names. */
static const char node_names[] = "value\0child\0name\0nums\0Node";
static const kiln_fb_field_desc_t node_fields[] = {
    {0, 0, KILN_FB_FIELD_SCALAR, KILN_FB_U64, 0},
    {6, 1, KILN_FB_FIELD_TABLE, 0, 0},
    {12, 2, KILN_FB_FIELD_STRING, 0, 0},
    {17, 3, KILN_FB_FIELD_VEC_SCALAR, KILN_FB_I64, 0},
};
static const kiln_fb_table_desc_t node_table[] = {{0, 22, 4}};
static const kiln_fb_schema_t node_schema = {
    node_table, node_fields, NULL, NULL, NULL, NULL, node_names, 1, 0, 0, 0};

/* A chain of `depth` nested Nodes. */
static void build_chain(kiln_fbb_t *f, int depth, const uint8_t **data, size_t *size) {
  kiln_fbb_init(f);
  kiln_fbb_ref_t child = 0;
  for (int i = 0; i < depth; i++) {
    int64_t nums[2] = {i, -i};
    kiln_fbb_ref_t v = kiln_fbb_vector(f, nums, 2, 8, 8);
    kiln_fbb_ref_t s = kiln_fbb_string(f, "n", 1);
    kiln_fbb_table_start(f);
    uint64_t value = (uint64_t)i;
    kiln_fbb_add_scalar(f, 0, &value, 8, value == 0);
    kiln_fbb_add_ref(f, 1, child);
    kiln_fbb_add_ref(f, 2, s);
    kiln_fbb_add_ref(f, 3, v);
    child = kiln_fbb_table_end(f);
  }
  const char *why = NULL;
  ck_assert_msg(kiln_fbb_finish(f, child, "TEST", data, size, &why), "%s", why);
}

START_TEST(test_depth_limit) {
  kiln_fbb_t f;
  const uint8_t *data;
  size_t size;
  kiln_format_error_t err;
  build_chain(&f, KILN_FB_MAX_DEPTH, &data, &size);
  uint64_t extent = 0;
  ck_assert_msg(kiln_fb_verify(&node_schema, data, size, &extent, &err), "%s", err.message);
  ck_assert_uint_eq(extent, size);
  kiln_fbb_free(&f);

  build_chain(&f, KILN_FB_MAX_DEPTH + 1, &data, &size);
  ck_assert(!kiln_fb_verify(&node_schema, data, size, &extent, &err));
  ck_assert_msg(strstr(err.message, "tables nest deeper than 32 levels"), "%s", err.message);
  ck_assert_msg(strncmp(err.message, "Node.child.child.", 17) == 0, "%s", err.message);
  kiln_fbb_free(&f);
}
END_TEST

START_TEST(test_layout_properties) {
  kiln_fbb_t f;
  const uint8_t *data;
  size_t size;
  kiln_format_error_t err;
  build_chain(&f, 3, &data, &size);
  ck_assert(kiln_fb_verify(&node_schema, data, size, NULL, &err));
  ck_assert_int_eq(memcmp(data + 4, "TEST", 4), 0);
  const uint8_t *n2 = kiln_fb_deref(data), *n1 = kiln_fb_ref(n2, 1), *n0 = kiln_fb_ref(n1, 1);
  ck_assert_ptr_nonnull(n0);
  ck_assert_ptr_null(kiln_fb_ref(n0, 1));
  /* The innermost node's value is the default (0) and is not stored. */
  ck_assert_ptr_null(kiln_fb_field(n0, 0));
  ck_assert_ptr_nonnull(kiln_fb_field(n1, 0));
  /* n1 and n2 have identical vtables: shared. */
  int32_t s1, s2;
  memcpy(&s1, n1, 4);
  memcpy(&s2, n2, 4);
  ck_assert_ptr_eq(n1 - s1, n2 - s2);
  /* 8-byte scalars and the [long] elements are 8-aligned in the buffer. */
  ck_assert_uint_eq((size_t)(kiln_fb_field(n2, 0) - data) % 8, 0);
  const uint8_t *nums = kiln_fb_ref(n2, 3);
  ck_assert_uint_eq((size_t)(nums + 4 - data) % 8, 0);
  ck_assert_uint_eq(kiln_fb_vec_count(nums), 2);
  int64_t second;
  memcpy(&second, nums + 12, 8);
  ck_assert_int_eq(second, -2);
  kiln_fb_string_t name = kiln_fb_string_at(kiln_fb_ref(n2, 2));
  ck_assert_uint_eq(name.size, 1);
  ck_assert_str_eq(name.data, "n");
  ck_assert_uint_eq(size % 8, 0);
  kiln_fbb_free(&f);
}
END_TEST

START_TEST(test_builder_misuse_reported) {
  kiln_fbb_t f;
  kiln_fbb_init(&f);
  uint32_t x = 1;
  kiln_fbb_add_scalar(&f, 0, &x, 4, false); /* no table started */
  kiln_fbb_table_start(&f);
  kiln_fbb_ref_t t = kiln_fbb_table_end(&f);
  const uint8_t *data;
  size_t size;
  const char *why = NULL;
  ck_assert(!kiln_fbb_finish(&f, t, "TEST", &data, &size, &why));
  ck_assert_str_eq(why, "field added outside a table");
  kiln_fbb_free(&f);

  kiln_fbb_init(&f);
  kiln_fbb_table_start(&f);
  kiln_fbb_string(&f, "x", 1); /* strings must precede their table */
  t = kiln_fbb_table_end(&f);
  ck_assert(!kiln_fbb_finish(&f, t, "TEST", &data, &size, &why));
  ck_assert_str_eq(why, "string created inside a table");
  kiln_fbb_free(&f);

  kiln_fbb_init(&f);
  ck_assert(!kiln_fbb_finish(&f, 0, "TEST", &data, &size, &why));
  ck_assert_str_eq(why, "finish without a root table");
  kiln_fbb_free(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_fb_generic");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_depth_limit);
  tcase_add_test(tc, test_layout_properties);
  tcase_add_test(tc, test_builder_misuse_reported);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

/* Unit tests of kiln_value_set_type: retyping a result or a block argument
 * keeps every use (uses point at the value), users see the new interned
 * type at once, the printer shows it, and the verifier, not the setter,
 * reports a retyping that leaves users invalid. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static kiln_context *ctx;

static void setup(void) { ctx = kiln_context_create(); }
static void teardown(void) { kiln_context_destroy(ctx); }

static char diags[4096];
static void capture_diag(void *user, const char *text) {
  (void)user;
  strncat(diags, text, sizeof diags - strlen(diags) - 1);
}

static kiln_op *parse(const char *text) {
  kiln_op *m = kiln_parse_source(ctx, "t.mlir", text, strlen(text));
  ck_assert_ptr_nonnull(m);
  ck_assert(kiln_verify(m));
  return m;
}

typedef struct {
  kiln_op_kind kind;
  kiln_op *found;
} find_state;

static kiln_walk_result find_kind(kiln_op *op, void *user) {
  find_state *s = user;
  if (op->kind != s->kind) return KILN_WALK_ADVANCE;
  s->found = op;
  return KILN_WALK_INTERRUPT;
}

static kiln_op *find(kiln_op *root, kiln_op_kind kind) {
  find_state s = {kind, NULL};
  kiln_walk_pre(root, find_kind, &s);
  ck_assert_ptr_nonnull(s.found);
  return s.found;
}

static const kiln_type *tensor1(int64_t n) {
  return kiln_type_tensor(ctx, 1, &n, kiln_type_f32(ctx), NULL);
}

static const char *const refine_src =
    "func.func @f(%a: tensor<4xf32>) -> tensor<?xf32> {\n"
    "  %0 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>\n"
    "  %1 = arith.negf %0 : tensor<?xf32>\n"
    "  %2 = arith.addf %1, %1 : tensor<?xf32>\n"
    "  return %2 : tensor<?xf32>\n"
    "}\n";

START_TEST(result_retyped_in_place) {
  kiln_op *m = parse(refine_src);
  kiln_op *neg = find(m, KILN_OP_ARITH_NEGF), *add = find(m, KILN_OP_ARITH_ADDF);
  kiln_value *v = kiln_op_result(neg, 0);
  ck_assert_uint_eq(kiln_value_use_count(v), 2);
  kiln_value_set_type(v, tensor1(4));
  /* Same value, same uses; users read the new (interned) type. */
  ck_assert_ptr_eq(v->type, tensor1(4));
  ck_assert_uint_eq(kiln_value_use_count(v), 2);
  ck_assert_ptr_eq(kiln_op_operand(add, 0), v);
  ck_assert_ptr_eq(kiln_op_operand(add, 1)->type, tensor1(4));
  char *s = kiln_print_op_to_string(m, 0);
  ck_assert_ptr_nonnull(strstr(s, "%0 = arith.negf %cast : tensor<4xf32>"));
  free(s);
  /* negf's result now differs from its operand: the setter let it be,
   * the verifier names the op. */
  kiln_context_set_diag_handler(ctx, capture_diag, NULL);
  diags[0] = 0;
  ck_assert(!kiln_verify(m));
  ck_assert_ptr_nonnull(strstr(diags, "arith.negf"));
  /* Refining the whole chain consistently verifies again. */
  kiln_value_set_type(kiln_op_result(add, 0), tensor1(4));
  kiln_value_set_type(kiln_op_result(find(m, KILN_OP_TENSOR_CAST), 0), tensor1(4));
  diags[0] = 0;
  ck_assert(!kiln_verify(m)); /* return still promises tensor<?xf32> */
  ck_assert_ptr_nonnull(strstr(diags, "return"));
}
END_TEST

START_TEST(block_argument_retyped) {
  kiln_op *m = parse(refine_src);
  kiln_op *cast = find(m, KILN_OP_TENSOR_CAST);
  kiln_value *arg = kiln_op_operand(cast, 0);
  ck_assert_ptr_null(arg->def); /* a block argument */
  kiln_value_set_type(arg, tensor1(KILN_DYNAMIC));
  ck_assert_ptr_eq(kiln_op_operand(cast, 0), arg);
  ck_assert_uint_eq(kiln_value_use_count(arg), 1);
  char *s = kiln_print_op_to_string(m, 0);
  ck_assert_ptr_nonnull(strstr(s, "tensor.cast %arg0 : tensor<?xf32> to tensor<?xf32>"));
  free(s);
}
END_TEST

static Suite *value_type_suite(void) {
  Suite *s = suite_create("value_type");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, result_retyped_in_place);
  tcase_add_test(tc, block_argument_retyped);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(value_type_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

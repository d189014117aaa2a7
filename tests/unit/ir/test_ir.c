/* Unit tests of the IR API: interning, attributes and float spelling,
 * affine simplification, building/mutating IR (builder, replace-all-uses,
 * erase, clone, walks), verification failures, diagnostics capture, the
 * structured-op iteration spaces, and the pass manager. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static kiln_context *ctx;

static void setup(void) { ctx = kiln_context_create(); }
static void teardown(void) { kiln_context_destroy(ctx); }

typedef struct {
  char text[8192];
  size_t len;
} capture;

static void capture_diag(void *user, const char *text) {
  capture *c = user;
  size_t n = strlen(text);
  if (c->len + n < sizeof c->text) {
    memcpy(c->text + c->len, text, n + 1);
    c->len += n;
  }
}

static char *attr_str(const kiln_attr *a) { return kiln_attr_to_string(a); }

#define CHECK_ATTR(a, want)              \
  do {                                   \
    char *s_ = attr_str(a);              \
    ck_assert_str_eq(s_, want);          \
    free(s_);                            \
  } while (0)

START_TEST(types_are_interned) {
  int64_t s1[2] = {4, KILN_DYNAMIC}, s2[2] = {4, KILN_DYNAMIC}, s3[2] = {4, 8};
  const kiln_type *f32 = kiln_type_f32(ctx);
  const kiln_type *a = kiln_type_tensor(ctx, 2, s1, f32, NULL);
  const kiln_type *b = kiln_type_tensor(ctx, 2, s2, f32, NULL);
  const kiln_type *c = kiln_type_tensor(ctx, 2, s3, f32, NULL);
  ck_assert_ptr_eq(a, b);
  ck_assert_ptr_ne(a, c);
  ck_assert_ptr_eq(kiln_type_int(ctx, 32), kiln_type_int(ctx, 32));
  ck_assert_ptr_ne(kiln_type_int(ctx, 32), kiln_type_int_sign(ctx, 32, KILN_UNSIGNED));
  ck_assert_int_eq(kiln_type_num_elements(a), -1);
  ck_assert_int_eq(kiln_type_num_elements(c), 32);
  ck_assert(!kiln_type_has_static_shape(a));
  char *s = kiln_type_to_string(a);
  ck_assert_str_eq(s, "tensor<4x?xf32>");
  free(s);
  const kiln_type *ins[2] = {a, f32};
  s = kiln_type_to_string(kiln_type_function(ctx, 2, ins, 2, ins));
  ck_assert_str_eq(s, "(tensor<4x?xf32>, f32) -> (tensor<4x?xf32>, f32)");
  free(s);
  ck_assert_ptr_eq(kiln_type_with_elem(ctx, c, kiln_type_f16(ctx))->elem, kiln_type_f16(ctx));
}
END_TEST

START_TEST(attributes) {
  const kiln_type *i8 = kiln_type_int(ctx, 8);
  ck_assert_ptr_eq(kiln_attr_int(ctx, i8, 255), kiln_attr_int(ctx, i8, -1));
  CHECK_ATTR(kiln_attr_int(ctx, i8, 255), "-1 : i8");
  CHECK_ATTR(kiln_attr_int(ctx, kiln_type_int(ctx, 1), 1), "true");
  CHECK_ATTR(kiln_attr_float(ctx, kiln_type_f32(ctx), 0.1), "1.000000e-01 : f32");
  CHECK_ATTR(kiln_attr_float(ctx, kiln_type_f64(ctx), 0.123456789), "0.123456789 : f64");
  CHECK_ATTR(kiln_attr_float(ctx, kiln_type_f32(ctx), 123456789.0), "0x4CEB79A3 : f32");
  CHECK_ATTR(kiln_attr_float(ctx, kiln_type_f16(ctx), 0.1), "9.997550e-02 : f16");
  CHECK_ATTR(kiln_attr_float(ctx, kiln_type_f64(ctx), 1.2345678912345e-10),
             "1.2345678912344999E-10 : f64");
  kiln_named_attr e[3] = {{"zeta", kiln_attr_unit(ctx)},
                          {"alpha", kiln_attr_string(ctx, "x\"y", 3)},
                          {"mid", kiln_attr_dense_i64_array(ctx, 2, (int64_t[]){1, 2})}};
  const kiln_attr *d = kiln_attr_dict(ctx, 3, e);
  CHECK_ATTR(d, "{alpha = \"x\\22y\", mid = array<i64: 1, 2>, zeta}");
  ck_assert_ptr_eq(kiln_dict_get(d, "mid"), e[2].value);
  ck_assert_ptr_null(kiln_dict_get(d, "nope"));
  const kiln_attr *d2 = kiln_dict_set(ctx, d, "mid", NULL);
  ck_assert_int_eq(d2->count, 2);
  ck_assert_ptr_eq(kiln_dict_set(ctx, d2, "mid", e[2].value), d);
  /* dense: all-equal elements become a splat */
  int64_t shape[1] = {3};
  const kiln_type *t = kiln_type_tensor(ctx, 1, shape, kiln_type_f32(ctx), NULL);
  float same[3] = {2, 2, 2}, diff[3] = {1, 2, 3};
  const kiln_attr *sp = kiln_attr_dense(ctx, t, false, same, sizeof same);
  ck_assert(sp->splat);
  ck_assert_ptr_eq(sp, kiln_attr_dense_splat_float(ctx, t, 2.0));
  CHECK_ATTR(sp, "dense<2.000000e+00> : tensor<3xf32>");
  const kiln_attr *df = kiln_attr_dense(ctx, t, false, diff, sizeof diff);
  ck_assert(!df->splat);
  ck_assert(kiln_dense_get_float(df, 2) == 3.0);
  CHECK_ATTR(df, "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>");
}
END_TEST

START_TEST(half_precision) {
  float vals[] = {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
    ck_assert(kiln_f16_to_f32(kiln_f32_to_f16(vals[i])) == vals[i]);
  ck_assert_uint_eq(kiln_f32_to_f16(1e6f), 0x7c00); /* overflow to inf */
  ck_assert_uint_eq(kiln_f32_to_bf16(1.0f), 0x3f80);
  ck_assert(kiln_bf16_to_f32(kiln_f32_to_bf16(3.0f)) == 3.0f);
}
END_TEST

START_TEST(affine_simplification) {
  const kiln_affine_expr *d0 = kiln_affine_dim(ctx, 0), *d1 = kiln_affine_dim(ctx, 1);
  const kiln_affine_expr *c2 = kiln_affine_const(ctx, 2);
  ck_assert_ptr_eq(kiln_affine_binary(ctx, KILN_AFFINE_ADD, d0, kiln_affine_const(ctx, 0)), d0);
  ck_assert_ptr_eq(kiln_affine_binary(ctx, KILN_AFFINE_ADD, c2, d0),
                   kiln_affine_binary(ctx, KILN_AFFINE_ADD, d0, c2));
  ck_assert_ptr_null(kiln_affine_binary(ctx, KILN_AFFINE_MUL, d0, d1)); /* non-affine */
  const kiln_affine_expr *neg = kiln_affine_binary(ctx, KILN_AFFINE_MUL, d1, kiln_affine_const(ctx, -1));
  const kiln_affine_expr *r[2] = {kiln_affine_binary(ctx, KILN_AFFINE_ADD, d0, neg),
                                  kiln_affine_binary(ctx, KILN_AFFINE_FLOORDIV, d0, c2)};
  const kiln_affine_map *m = kiln_affine_map_get(ctx, 2, 0, 2, r);
  ck_assert_ptr_eq(m, kiln_affine_map_get(ctx, 2, 0, 2, r));
  CHECK_ATTR(kiln_attr_affine_map(ctx, m), "affine_map<(d0, d1) -> (d0 - d1, d0 floordiv 2)>");
  ck_assert(kiln_affine_map_is_identity(kiln_affine_map_identity(ctx, 3)));
  ck_assert(!kiln_affine_map_is_projected_permutation(m));
}
END_TEST

/* Builds: func @f(%a: f32) -> f32 { %c = const 2.0; %x = mulf %a, %c;
 * %y = addf %x, %x; return %y } */
static kiln_op *build_func(kiln_op **mul, kiln_op **add, kiln_op **ret) {
  const kiln_type *f32 = kiln_type_f32(ctx);
  kiln_loc loc = {kiln_intern_cstr(ctx, "test"), 1, 1, NULL};
  kiln_op *module = kiln_module_create(ctx, loc);
  const kiln_type *fn = kiln_type_function(ctx, 1, &f32, 1, &f32);
  kiln_named_attr fa[2] = {{"sym_name", kiln_attr_string(ctx, "f", 1)},
                           {"function_type", kiln_attr_type(ctx, fn)}};
  kiln_op *func = kiln_op_create(ctx, KILN_OP_FUNC_FUNC, loc, 0, NULL, 0, NULL,
                                 kiln_attr_dict(ctx, 2, fa), 1);
  kiln_block_append_op(kiln_module_body(module), func);
  kiln_block *entry = kiln_op_entry_block(ctx, func, 0);
  kiln_value *a = kiln_block_add_arg(ctx, entry, f32, loc);
  kiln_builder b = kiln_builder_at_end(ctx, entry);
  b.loc = loc;
  kiln_value *c = kiln_build_constant(&b, kiln_attr_float(ctx, f32, 2.0));
  kiln_value *ops[2] = {a, c};
  *mul = kiln_build(&b, KILN_OP_ARITH_MULF, 2, ops, 1, &f32, NULL);
  kiln_value *x = kiln_op_result(*mul, 0);
  kiln_value *xx[2] = {x, x};
  *add = kiln_build(&b, KILN_OP_ARITH_ADDF, 2, xx, 1, &f32, NULL);
  kiln_value *y = kiln_op_result(*add, 0);
  *ret = kiln_build(&b, KILN_OP_FUNC_RETURN, 1, &y, 0, NULL, NULL);
  return module;
}

static kiln_walk_result count_ops(kiln_op *op, void *user) {
  (void)op;
  (*(int *)user)++;
  return KILN_WALK_ADVANCE;
}

START_TEST(build_mutate_print) {
  kiln_op *mul, *add, *ret;
  kiln_op *m = build_func(&mul, &add, &ret);
  ck_assert(kiln_verify(m));
  char *s = kiln_print_op_to_string(m, 0);
  ck_assert_str_eq(s, "module {\n"
                      "  func.func @f(%arg0: f32) -> f32 {\n"
                      "    %cst = arith.constant 2.000000e+00 : f32\n"
                      "    %0 = arith.mulf %arg0, %cst : f32\n"
                      "    %1 = arith.addf %0, %0 : f32\n"
                      "    return %1 : f32\n"
                      "  }\n"
                      "}\n\n");
  free(s);
  kiln_value *x = kiln_op_result(mul, 0);
  ck_assert_uint_eq(kiln_value_use_count(x), 2);
  ck_assert_ptr_nonnull(kiln_value_constant(kiln_op_operand(mul, 1)));
  /* Replace the add's uses by the mul and erase the add. */
  kiln_value_replace_all_uses(kiln_op_result(add, 0), x);
  ck_assert(!kiln_value_has_uses(kiln_op_result(add, 0)));
  kiln_op_erase(add);
  ck_assert_uint_eq(kiln_value_use_count(x), 1);
  ck_assert_ptr_eq(kiln_op_operand(ret, 0), x);
  int n = 0;
  kiln_walk_pre(m, count_ops, &n);
  ck_assert_int_eq(n, 5); /* module, func, constant, mulf, return */
  /* Clone the function under another name: independent uses. */
  kiln_op *func = kiln_op_parent_op(mul);
  kiln_value_map vm = {0};
  kiln_op *copy = kiln_op_clone(func, &vm);
  kiln_op_set_attr(copy, "sym_name", kiln_attr_string(ctx, "g", 1));
  kiln_block_insert_after(func, copy);
  ck_assert(kiln_verify(m));
  ck_assert_uint_eq(kiln_value_use_count(x), 1);
  ck_assert_ptr_eq(kiln_symbol_lookup(m, "g"), copy);
  ck_assert_ptr_ne(kiln_value_map_lookup(&vm, x), x);
  n = 0;
  kiln_walk_post(m, count_ops, &n);
  ck_assert_int_eq(n, 9); /* module + two functions of 4 ops */
}
END_TEST

START_TEST(verifier_reports) {
  capture cap = {{0}, 0};
  kiln_context_set_diag_handler(ctx, capture_diag, &cap);
  kiln_op *mul, *add, *ret;
  kiln_op *m = build_func(&mul, &add, &ret);
  /* Move the add before the mul: its operand no longer dominates it. */
  kiln_op_move_before(add, mul);
  ck_assert(!kiln_verify(m));
  ck_assert_ptr_nonnull(strstr(cap.text, "test:1:1: error: 'arith.addf' op operand #0 does not dominate this use"));
  kiln_op_move_before(mul, add);
  cap.len = 0, cap.text[0] = 0;
  ck_assert(kiln_verify(m));
  /* A return with the wrong arity. */
  kiln_op_set_operands(ret, 0, NULL);
  ck_assert(!kiln_verify(m));
  ck_assert_ptr_nonnull(strstr(cap.text, "has 0 operands, but enclosing function (@f) returns 1"));
  ck_assert_uint_ge(kiln_context_error_count(ctx), 2);
}
END_TEST

/* kiln_verify_input, a pass's check of its input: NULL on a module that
 * verifies; otherwise the pass's name and the first diagnostic this
 * verification emitted (not one the context held from before). */
START_TEST(verify_input_names_pass_and_first_diagnostic) {
  capture cap = {{0}, 0};
  kiln_context_set_diag_handler(ctx, capture_diag, &cap);
  kiln_op *mul, *add, *ret;
  kiln_op *m = build_func(&mul, &add, &ret);
  ck_assert_ptr_null(kiln_verify_input(m, "some-pass"));
  /* an earlier, unrelated error in the context */
  ck_assert_ptr_null(kiln_parse_source(ctx, "other.mlir", "func.func @", 11));
  ck_assert_uint_ge(kiln_context_error_count(ctx), 1);
  kiln_op_move_before(add, mul); /* the add's operand no longer dominates it */
  kiln_error *e = kiln_verify_input(m, "some-pass");
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(kiln_error_message(e), "some-pass: the input module does not verify: "
                                          "test:1:1: 'arith.addf' op operand #0 does not dominate this use");
  kiln_error_free(e);
  /* a second failure reports its own first diagnostic */
  kiln_op_move_before(mul, add);
  kiln_op_set_operands(ret, 0, NULL);
  e = kiln_verify_input(m, "other-pass");
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(strstr(kiln_error_message(e), "other-pass: the input module does not verify: test:1:1: "));
  ck_assert_ptr_nonnull(strstr(kiln_error_message(e), "has 0 operands, but enclosing function (@f) returns 1"));
  kiln_error_free(e);
}
END_TEST

START_TEST(parse_diagnostics) {
  capture cap = {{0}, 0};
  kiln_context_set_diag_handler(ctx, capture_diag, &cap);
  const char *src = "func.func @f(%a: f32) -> f32 {\n  return %b : f32\n}\n";
  ck_assert_ptr_null(kiln_parse_source(ctx, "in.mlir", src, strlen(src)));
  ck_assert_str_eq(cap.text, "in.mlir:2:10: error: use of undeclared SSA value name '%b'\n"
                             "  return %b : f32\n"
                             "         ^\n");
  /* Not NUL-terminated: the parser stops at len. */
  cap.len = 0, cap.text[0] = 0;
  const char *cut = "func.func @f() {\n  return\n}XXXX";
  kiln_op *m = kiln_parse_source(ctx, "cut.mlir", cut, strlen(cut) - 4);
  ck_assert_ptr_nonnull(m);
  ck_assert(kiln_verify(m));
  ck_assert_str_eq(cap.text, "");
}
END_TEST

/* The linalg.matmul of a function parsed from custom syntax: A (4x8) and
 * B (8x16) of element type IN into C of OUT. */
static kiln_op *parse_matmul(const char *in, const char *out) {
  char src[1024];
  snprintf(src, sizeof src,
           "func.func @f(%%a: tensor<4x8x%s>, %%b: tensor<8x16x%s>, %%c: tensor<4x16x%s>) -> tensor<4x16x%s> {\n"
           "  %%0 = linalg.matmul ins(%%a, %%b : tensor<4x8x%s>, tensor<8x16x%s>) outs(%%c : tensor<4x16x%s>) "
           "-> tensor<4x16x%s>\n"
           "  return %%0 : tensor<4x16x%s>\n}\n",
           in, in, out, out, in, in, out, out, out);
  kiln_op *m = kiln_parse_source(ctx, "mm.mlir", src, strlen(src));
  ck_assert_ptr_nonnull(m);
  ck_assert(kiln_verify(m));
  return kiln_op_region(kiln_module_body(m)->first, 0)->first->first;
}

START_TEST(structured_iteration) {
  kiln_op *mm = parse_matmul("f32", "f32");
  ck_assert_int_eq(mm->kind, KILN_OP_LINALG_MATMUL);
  ck_assert_uint_eq(kiln_linalg_num_inputs(mm), 2);
  ck_assert_uint_eq(kiln_linalg_num_outputs(mm), 1);
  const kiln_affine_map *maps[3];
  bool red[KILN_MAX_LOOPS];
  ck_assert_int_eq(kiln_linalg_iteration(mm, maps, red), 3);
  ck_assert(!red[0] && !red[1] && red[2]);
  CHECK_ATTR(kiln_attr_affine_map(ctx, maps[1]), "affine_map<(d0, d1, d2) -> (d2, d1)>");
}
END_TEST

/* Named structured ops carry their implied body (linalg_bodies.def): every
 * one but softmax has a row, so a new named op cannot go without; parsed
 * from custom syntax, a matmul of i8 into i32 gets mlir-opt's region
 * (sign-extend both inputs, multiply, accumulate). */
START_TEST(named_op_bodies) {
  for (int k = 0; k < KILN_OP_UNREGISTERED; k++) {
    const kiln_op_info *info = kiln_op_info_get((kiln_op_kind)k);
    bool named = (info->flags & KILN_OPF_LINALG) && info->min_regions == 0 && k != KILN_OP_LINALG_SOFTMAX;
    ck_assert_msg(named == (kiln_linalg_body_of((kiln_op_kind)k) != KILN_LINALG_BODY_NONE), "%s", info->name);
  }
  kiln_op *mm = parse_matmul("i8", "i32");
  ck_assert_uint_eq(mm->num_regions, 1);
  static const kiln_op_kind want[] = {KILN_OP_ARITH_EXTSI, KILN_OP_ARITH_EXTSI, KILN_OP_ARITH_MULI,
                                      KILN_OP_ARITH_ADDI, KILN_OP_LINALG_YIELD};
  kiln_block *body = mm->regions[0].first;
  kiln_op *o = body->first;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, o = o->next) {
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(o->kind, want[i]);
  }
  ck_assert_ptr_null(o);
  /* the accumulation reads the output's block argument first */
  ck_assert_ptr_eq(kiln_op_operand(body->last->prev, 0), body->args[2]);
}
END_TEST

/* A pass that fails on the first arith.addf it finds, through
 * kiln_op_error like every pass. */
static kiln_error *test_fail_pass(kiln_op *module, void *user) {
  (void)user;
  kiln_op *f = kiln_module_body(module)->first;
  for (kiln_op *op = kiln_op_region(f, 0)->first->first; op; op = op->next)
    if (op->kind == KILN_OP_ARITH_ADDF) return kiln_op_error(op, "is refused by %s", "test-fail");
  return NULL;
}

/* kiln_op_error: the one form of a pass's error about an op, located when
 * the op's place is known; it is also the context's error diagnostic
 * (source line and caret), and a failing pass's op reaches both the error
 * the pass manager returns and the diagnostics. */
START_TEST(op_errors_name_op_and_place) {
  capture cap = {{0}, 0};
  kiln_context_set_diag_handler(ctx, capture_diag, &cap);
  const char *src =
      "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n";
  kiln_op *m = kiln_parse_source(ctx, "add.mlir", src, strlen(src));
  ck_assert_ptr_nonnull(m);
  const unsigned before = kiln_context_error_count(ctx);
  kiln_op *add = kiln_op_region(kiln_module_body(m)->first, 0)->first->first;
  kiln_error *e = kiln_op_error(add, "has %d problems", 2);
  ck_assert_str_eq(kiln_error_message(e), "add.mlir:2:8: 'arith.addf' op has 2 problems");
  kiln_error_free(e);
  ck_assert_uint_eq(kiln_context_error_count(ctx), before + 1);
  ck_assert_str_eq(kiln_context_error_text(ctx, before), "add.mlir:2:8: 'arith.addf' op has 2 problems");
  ck_assert_str_eq(cap.text, "add.mlir:2:8: error: 'arith.addf' op has 2 problems\n"
                             "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
                             "       ^\n");

  /* through the pass manager: the error names the pass and the op's place,
   * the diagnostic carries the same place */
  cap.len = 0, cap.text[0] = 0;
  kiln_pass_info fail = {"test-fail", "fails on addf", test_fail_pass, NULL, KILN_PASS_MODULE};
  kiln_pass_register(&fail);
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  ck_assert_ptr_null(kiln_pm_add_pass(pm, "test-fail"));
  e = kiln_pm_run(pm, m);
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(kiln_error_message(e),
                   "pass 'test-fail' failed: add.mlir:2:8: 'arith.addf' op is refused by test-fail");
  kiln_error_free(e);
  kiln_pm_destroy(pm);
  ck_assert_ptr_nonnull(strstr(cap.text, "add.mlir:2:8: error: 'arith.addf' op is refused by test-fail\n"));
  ck_assert_uint_eq(kiln_context_error_count(ctx), before + 2);

  /* kiln_op_fail keeps and emits only the first cause */
  cap.len = 0, cap.text[0] = 0;
  kiln_error *first = NULL;
  ck_assert(!kiln_op_fail(&first, add, "first"));
  ck_assert(!kiln_op_fail(&first, add, "second"));
  ck_assert_str_eq(kiln_error_message(first), "add.mlir:2:8: 'arith.addf' op first");
  kiln_error_free(first);
  ck_assert_ptr_null(strstr(cap.text, "second"));
  ck_assert_uint_eq(kiln_context_error_count(ctx), before + 3);

  add->loc.file = NULL;
  e = kiln_op_error(add, "is unplaced");
  ck_assert_str_eq(kiln_error_message(e), "'arith.addf' op is unplaced");
  kiln_error_free(e);
  ck_assert_str_eq(kiln_context_error_text(ctx, before + 3), "<unknown>: 'arith.addf' op is unplaced");
  ck_assert_str_eq(kiln_error_message(NULL), "ok");
}
END_TEST

START_TEST(value_map) {
  kiln_value_map m = {0};
  kiln_block *b = kiln_block_create(ctx);
  kiln_value *vs[3000];
  kiln_loc l = {0};
  for (int i = 0; i < 3000; i++) vs[i] = kiln_block_add_arg(ctx, b, kiln_type_f32(ctx), l);
  for (int i = 0; i < 1500; i++) kiln_value_map_add(ctx, &m, vs[i], vs[2999 - i]);
  kiln_value_map_add(ctx, &m, vs[7], vs[8]); /* the later mapping wins */
  for (int i = 0; i < 1500; i++)
    ck_assert_ptr_eq(kiln_value_map_lookup(&m, vs[i]), i == 7 ? vs[8] : vs[2999 - i]);
  for (int i = 1500; i < 3000; i++) ck_assert_ptr_null(kiln_value_map_lookup(&m, vs[i]));
  /* count = 0 empties it (users reset maps that way), over many rounds */
  for (int round = 0; round < 300; round++) {
    m.count = 0;
    for (int i = 0; i < 20; i++) kiln_value_map_add(ctx, &m, vs[(round * 20 + i) % 3000], vs[i]);
    for (int i = 0; i < 20; i++)
      ck_assert_ptr_eq(kiln_value_map_lookup(&m, vs[(round * 20 + i) % 3000]), vs[i]);
    if (round) ck_assert_ptr_null(kiln_value_map_lookup(&m, vs[((round - 1) * 20) % 3000]));
  }
}
END_TEST

static kiln_walk_result erase_returns(kiln_op *op, void *user) {
  (void)user;
  if (op->kind == KILN_OP_FUNC_RETURN) kiln_op_erase(op);
  return KILN_WALK_ADVANCE;
}

static kiln_error *test_break_pass(kiln_op *module, void *user) {
  (void)user;
  kiln_walk_post(module, erase_returns, NULL);
  return NULL;
}

static kiln_error *test_count_pass(kiln_op *module, void *user) {
  int n = 0;
  kiln_walk_pre(module, count_ops, &n);
  *(int *)user = n;
  return n > 100 ? kiln_error_new("too many ops") : NULL;
}

/* Source nodes of locations: fusing keeps A's place and each node once,
 * A's first; an op without nodes contributes "file:line:col (op)". */
START_TEST(location_nodes) {
  kiln_loc a = {kiln_intern_cstr(ctx, "onnx"), 3, 0, kiln_intern_cstr(ctx, "/a/Conv (Conv)")};
  kiln_loc b = {kiln_intern_cstr(ctx, "onnx"), 5, 0,
                kiln_intern_cstr(ctx, "Relu#4 (Relu)\n/a/Conv (Conv)")};
  kiln_loc f = kiln_loc_fuse(ctx, a, b);
  ck_assert_uint_eq(f.line, 3);
  ck_assert_str_eq(f.nodes, "/a/Conv (Conv)\nRelu#4 (Relu)");
  ck_assert_ptr_eq(kiln_loc_fuse(ctx, f, b).nodes, f.nodes); /* nothing new: same string */
  ck_assert_ptr_eq(kiln_loc_fuse(ctx, (kiln_loc){0}, a).nodes, a.nodes);
  kiln_loc m = {kiln_intern_cstr(ctx, "m.mlir"), 7, 9, NULL};
  kiln_op *op = kiln_op_create(ctx, KILN_OP_FUNC_RETURN, m, 0, NULL, 0, NULL, NULL, 0);
  const char *n = kiln_loc_nodes_add(ctx, NULL, op);
  ck_assert_str_eq(n, "m.mlir:7:9 (func.return)");
  ck_assert_str_eq(kiln_loc_nodes_add(ctx, a.nodes, op), "/a/Conv (Conv)\nm.mlir:7:9 (func.return)");
  op->loc = b;
  ck_assert_str_eq(kiln_loc_nodes_add(ctx, n, op), "m.mlir:7:9 (func.return)\nRelu#4 (Relu)\n/a/Conv (Conv)");
}
END_TEST

START_TEST(pass_manager) {
  static int counted;
  kiln_pass_info count = {"test-count", "counts ops", test_count_pass, &counted, KILN_PASS_MODULE};
  kiln_pass_info brk = {"test-break", "erases returns", test_break_pass, NULL, KILN_PASS_MODULE};
  kiln_pass_register(&count);
  kiln_pass_register(&brk);
  kiln_pipeline_register("test-pipe", "count twice", "test-count,test-count");
  ck_assert_ptr_nonnull(kiln_pass_lookup("test-count"));
  kiln_op *mul, *add, *ret;
  kiln_op *m = build_func(&mul, &add, &ret);
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  ck_assert_ptr_null(kiln_pm_add_pipeline(pm, "builtin.module(func.func(test-pipe))"));
  FILE *dump = tmpfile();
  kiln_pm_print_after(pm, "test-count", dump);
  kiln_error *e = kiln_pm_run(pm, m);
  ck_assert_ptr_null(e);
  ck_assert_int_eq(counted, 6);
  rewind(dump);
  char buf[256] = {0};
  ck_assert_ptr_nonnull(fgets(buf, sizeof buf, dump));
  ck_assert_str_eq(buf, "// -----// IR Dump After test-count //----- //\n");
  fclose(dump);
  kiln_pm_destroy(pm);

  capture cap = {{0}, 0};
  kiln_context_set_diag_handler(ctx, capture_diag, &cap);
  pm = kiln_pm_create(ctx);
  ck_assert_ptr_null(kiln_pm_add_pass(pm, "test-break"));
  e = kiln_pm_run(pm, m);
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(kiln_error_message(e), "pass 'test-break' produced invalid IR");
  kiln_error_free(e);
  e = kiln_pm_add_pipeline(pm, "no-such-pass");
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(strstr(kiln_error_message(e), "unknown pass or pipeline 'no-such-pass'"));
  kiln_error_free(e);
  kiln_pm_destroy(pm);
}
END_TEST

static Suite *ir_suite(void) {
  Suite *s = suite_create("ir");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, types_are_interned);
  tcase_add_test(tc, attributes);
  tcase_add_test(tc, half_precision);
  tcase_add_test(tc, affine_simplification);
  tcase_add_test(tc, build_mutate_print);
  tcase_add_test(tc, verifier_reports);
  tcase_add_test(tc, verify_input_names_pass_and_first_diagnostic);
  tcase_add_test(tc, parse_diagnostics);
  tcase_add_test(tc, structured_iteration);
  tcase_add_test(tc, named_op_bodies);
  tcase_add_test(tc, pass_manager);
  tcase_add_test(tc, location_nodes);
  tcase_add_test(tc, value_map);
  tcase_add_test(tc, op_errors_name_op_and_place);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(ir_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Inputs the translation cannot handle are errors naming the op and its
 * location, never crashes; malformed IR is rejected by the verifiers of
 * the dialect rows (cf, memref, vector, hal.interface). */
#include <check.h>
#include <string.h>

#include "harness.h"

static const char *translate(const char *text, bool kernel) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  const char *r = harness_translate(text, kernel, c, &m);
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return r;
}

static void expect(const char *text, bool kernel, const char *needle) {
  const char *r = translate(text, kernel);
  ck_assert_msg(r != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg(strstr(r, needle) != NULL, "error '%s' lacks '%s'", r, needle);
}

START_TEST(libm_functions_need_approximation) {
  expect("func.func @f(%x: f32) -> f32 {\n  %0 = math.exp %x : f32\n  return %0 : f32\n}\n",
         false, "test.mlir:2:8: 'math.exp' op would become a libm call");
}
END_TEST

START_TEST(heap_allocation_refused) {
  expect("func.func @f() {\n  %0 = memref.alloc() : memref<4xf32>\n  return\n}\n", false,
         "'memref.alloc' op heap allocation is not available");
}
END_TEST

START_TEST(interface_ops_only_in_kernels) {
  expect("func.func @f() -> index {\n  %0 = hal.interface.workgroup.id {dim = 0 : index} : index\n"
         "  return %0 : index\n}\n",
         false, "only valid in a kernel");
}
END_TEST

START_TEST(tensors_are_not_translatable) {
  expect("func.func @f(%t: tensor<4xf32>) {\n  return\n}\n", false,
         "argument #0 has a type that cannot be translated: tensor<4xf32>");
}
END_TEST

START_TEST(verifiers_reject_malformed_ops) {
  expect("func.func @f(%m: memref<4xf32>, %i: index) -> f32 {\n"
         "  %0 = \"memref.load\"(%m, %i, %i) : (memref<4xf32>, index, index) -> f32\n"
         "  return %0 : f32\n}\n",
         false, "incorrect number of indices");
  expect("func.func @f(%v: vector<4xf32>) -> f32 {\n"
         "  %0 = vector.extract %v[7] : f32 from vector<4xf32>\n  return %0 : f32\n}\n",
         false, "out of bounds");
  expect("func.func @f() {\n  %0 = hal.interface.binding {binding = 40 : i32} : memref<4xf32>\n"
         "  return\n}\n",
         true, "out of range");
  expect("func.func @f(%c: i1, %a: i32) {\n  cf.cond_br %c, ^bb1(%a : i32), ^bb1\n"
         "^bb1(%x: i32):\n  return\n}\n",
         false, "target block has 1");
  expect("func.func @f() {\n  cf.br ^bb9\n}\n", false, "undefined block");
  expect("func.func @f(%m: memref<16x16xf32>) {\n"
         "  %s = memref.subview %m[1, 4] [4, 4] [1, 2] : memref<16x16xf32> to "
         "memref<4x4xf32, strided<[16, 1], offset: 20>>\n  return\n}\n",
         false, "stride 1 of the result type should be 2");
  expect("func.func @f(%m: memref<16x16xf32>) {\n"
         "  %s = memref.subview %m[1, 4] [4, 4] [1, 1] : memref<16x16xf32> to "
         "memref<4x4xf32, strided<[16, 1], offset: 4>>\n  return\n}\n",
         false, "offset of the result type should be 20");
}
END_TEST

START_TEST(kernels_with_arguments_are_helpers) {
  /* A kernel module: a public function with arguments is an internal
   * helper, and its interface ops are refused. */
  expect("func.func @g(%a: index) -> index {\n"
         "  %0 = hal.interface.workgroup.id {dim = 0 : index} : index\n"
         "  return %0 : index\n}\n",
         true, "only valid in a kernel");
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_to_llvm_errors");
  TCase *tc = tcase_create("errors");
  tcase_add_test(tc, libm_functions_need_approximation);
  tcase_add_test(tc, heap_allocation_refused);
  tcase_add_test(tc, interface_ops_only_in_kernels);
  tcase_add_test(tc, tensors_are_not_translatable);
  tcase_add_test(tc, verifiers_reject_malformed_ops);
  tcase_add_test(tc, kernels_with_arguments_are_helpers);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

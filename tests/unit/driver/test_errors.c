/* One compiler error type (compiler/driver): given a bad input, each
 * front end (the MLIR text parser, the ONNX importer) and each back end
 * (llvm-cpu, cuda/PTX) makes kiln_compile return a kiln_error that says
 * where the offending op stands: file:line:col and the op's name for MLIR
 * input, the node's index, name and op type for ONNX input. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#ifdef KILN_TEST_ONNX
#include "modeltext.h"
#endif

static char work[256], path[512];

static void write_input(const char *name, const void *bytes, size_t n) {
  snprintf(path, sizeof path, "%s/%s", work, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

/* kiln_compile of `path` for target (NULL: the host) to a module. */
static kiln_error *compile(const char *target) {
  kiln_session *s = kiln_session_create();
  ck_assert_ptr_nonnull(s);
  kiln_error *err = target ? kiln_session_add_target(s, target) : NULL;
  char out[600];
  snprintf(out, sizeof out, "%s.kiln", path);
  s->options.input_path = path;
  s->options.output_path = out;
  if (!err) err = kiln_compile(s);
  kiln_session_destroy(s);
  return err;
}

/* The compile fails with an error holding every NULL-ended fragment. */
static void expect(const char *target, ...) {
  kiln_error *e = compile(target);
  ck_assert_msg(e != NULL, "%s compiled, expected an error", path);
  const char *msg = kiln_error_message(e);
  va_list ap;
  va_start(ap, target);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
    ck_assert_msg(strstr(msg, s), "error '%s' lacks '%s'", msg, s);
  va_end(ap);
  kiln_error_free(e);
}

START_TEST(mlir_parser) {
  static const char text[] = "func.func @f(%a: f32) -> f32 {\n"
                             "  %0 = arith.addf %a, %nope : f32\n"
                             "  return %0 : f32\n"
                             "}\n";
  write_input("bad_parse.mlir", text, sizeof text - 1);
  expect(NULL, "bad_parse.mlir:2:23: use of undeclared SSA value name '%nope'", NULL);
}
END_TEST

#ifdef KILN_TEST_ONNX
START_TEST(onnx_importer) {
  size_t n;
  uint8_t *bytes = modeltext_build("in x f32 2,3; out y; node Relu x -> t; node NoSuchOp t -> y", &n);
  write_input("bad_import.onnx", bytes, n);
  free(bytes);
  expect(NULL, "bad_import.onnx", "node 1", "NoSuchOp", NULL);
}
END_TEST
#endif

/* A kernel the code generators take, holding an op no back end lowers (a
 * heap allocation in a kernel): the error comes from the target's
 * translation, located at the op. */
static void kernel_input(const char *name, const char *target) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "\"hal.executable\"() ({\n"
                   "  \"hal.executable.variant\"() ({\n"
                   "    \"hal.executable.export\"() {binding_count = 1 : i32, ordinal = 0 : i32, "
                   "push_constant_count = 0 : i32, readonly_mask = 0 : i32, sym_name = \"k\", "
                   "workload = array<i64: 4>} : () -> ()\n"
                   "    module {\n"
                   "      func.func @k() {\n"
                   "        %%0 = memref.alloc() : memref<4xf32>\n"
                   "        return\n"
                   "      }\n"
                   "    }\n"
                   "  }) {sym_name = \"v\", target = \"%s\"} : () -> ()\n"
                   "}) {sym_name = \"e\", sym_visibility = \"private\"} : () -> ()\n",
                   target);
  ck_assert_int_lt(n, (int)sizeof text);
  write_input(name, text, (size_t)n);
}

START_TEST(llvm_cpu_back_end) {
  kernel_input("bad_cpu.mlir", "llvm-cpu");
  expect("llvm-cpu", "translate-llvm-cpu", "bad_cpu.mlir:6:14: 'memref.alloc' op", NULL);
}
END_TEST

START_TEST(cuda_back_end) {
  kernel_input("bad_cuda.mlir", "cuda:sm_80");
  expect("cuda:sm_80", "translate-cuda", "bad_cuda.mlir:6:14: 'memref.alloc' op", NULL);
}
END_TEST

int main(void) {
  snprintf(work, sizeof work, "%s/test_errors.XXXXXX", KILN_TEST_WORK);
  if (!mkdtemp(work)) return 1;
  Suite *s = suite_create("driver_errors");
  TCase *tc = tcase_create("one_error_type");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, mlir_parser);
#ifdef KILN_TEST_ONNX
  tcase_add_test(tc, onnx_importer);
#else
  printf("note: onnx_importer not run: this build has no ONNX importer (protobuf-c)\n");
#endif
  tcase_add_test(tc, llvm_cpu_back_end);
  tcase_add_test(tc, cuda_back_end);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

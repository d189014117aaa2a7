/* Test helpers: see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "codegen_transforms.h"
#include "mlir_input.h"

static char msg[4096];

static void capture(void *user, const char *text) {
  (void)user;
  size_t n = strlen(msg);
  snprintf(msg + n, sizeof msg - n, "%s", text);
}

const char *harness_translate(const char *text, bool kernel, LLVMContextRef c,
                              LLVMModuleRef *out) {
  return harness_translate_opts(text, kernel, false, c, out);
}

const char *harness_translate_opts(const char *text, bool kernel, bool approx,
                                   LLVMContextRef c, LLVMModuleRef *out) {
  msg[0] = 0;
  *out = NULL;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, capture, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "test.mlir", text, strlen(text), true, &m);
  if (!e && approx) e = kiln_approximate_math(m);
  if (!e) e = kiln_scf_to_cf(m);
  if (!e && !kiln_verify(m)) e = kiln_error_new("scf-to-cf left invalid IR");
  if (!e) {
    kiln_to_llvm_options o = {.kernel_module = kernel};
    e = kiln_to_llvm_translate(m, &o, c, "test", out);
  }
  const char *r = NULL;
  if (e) {
    size_t n = strlen(msg);
    snprintf(msg + n, sizeof msg - n, "%s", kiln_error_message(e));
    kiln_error_free(e);
    r = msg;
  }
  kiln_context_destroy(ctx);
  return r;
}

const char *harness_compile(const char *text, kiln_llvm_cpu_bytes_t *so) {
  return harness_compile_opts(text, false, so);
}

const char *harness_compile_opts(const char *text, bool approx, kiln_llvm_cpu_bytes_t *so) {
  return harness_compile_target(text, approx, "llvm-cpu", so);
}

const char *harness_compile_target(const char *text, bool approx, const char *target_name,
                                   kiln_llvm_cpu_bytes_t *so) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m;
  const char *r = harness_translate_opts(text, true, approx, c, &m);
  if (!r) {
    kiln_llvm_cpu_target_t target;
    kiln_error *s = kiln_llvm_cpu_target_parse(target_name, &target);
    if (!s) {
      s = kiln_llvm_cpu_compile(m, &target, so);
      kiln_llvm_cpu_target_release(&target);
    }
    if (s) {
      snprintf(msg, sizeof msg, "%s", kiln_error_message(s));
      kiln_error_free(s);
      r = msg;
    }
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(c);
  return r;
}

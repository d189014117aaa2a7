/* libFuzzer target: arbitrary MLIR text through the front end's parser and
 * verifier, approximate-math, scf-to-cf and the translation to LLVM IR
 * (as a plain module and as a kernel module); whatever translates must
 * pass LLVM's verifier. Finds crashes on malformed or unexpected IR. */
#include <llvm-c/Analysis.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_transforms.h"
#include "mlir_input.h"
#include "to_llvm.h"

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, quiet, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "fuzz.mlir", (const char *)data, size, true, &m);
  if (!e) e = kiln_approximate_math(m);
  if (!e) e = kiln_scf_to_cf(m);
  if (!e && !kiln_verify(m)) e = kiln_error_new("passes left invalid IR");
  for (int kernel = 0; kernel < 2 && !e; kernel++) {
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef lm = NULL;
    kiln_to_llvm_options o = {.kernel_module = kernel, .emit_c_wrappers = !kernel};
    kiln_error *te = kiln_to_llvm_translate(m, &o, c, "fuzz", &lm);
    if (!te) {
      char *msg = NULL;
      if (LLVMVerifyModule(lm, LLVMReturnStatusAction, &msg)) {
        /* A translated module LLVM rejects is a translation bug. */
        abort();
      }
      LLVMDisposeMessage(msg);
      LLVMDisposeModule(lm);
    }
    kiln_error_free(te);
    LLVMContextDispose(c);
  }
  kiln_error_free(e);
  kiln_context_destroy(ctx);
  return 0;
}

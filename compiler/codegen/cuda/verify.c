/* Runs LLVM's module verifier in reporting mode: a broken module (from a
 * bug in an earlier lowering) becomes an error carrying LLVM's report
 * instead of an abort inside LLVM. Also the back end's small error and
 * bytes helpers. */
#include <stdlib.h>

#include <llvm-c/Analysis.h>

#include "cptx_internal.h"

kiln_error *cptx_error_llvm(const char *what, char *msg) {
  kiln_error *e = kiln_error_new("%s: %s", what, msg && *msg ? msg : "(no message from LLVM)");
  if (msg) LLVMDisposeMessage(msg);
  return e;
}

void kiln_ptx_bytes_free(kiln_ptx_bytes_t *bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}

kiln_error *kiln_ptx_verify(LLVMModuleRef module) {
  char *report = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &report))
    return cptx_error_llvm("cuda: the LLVM module failed verification", report);
  if (report) LLVMDisposeMessage(report);
  return NULL;
}

/* Runs LLVM's module verifier in reporting mode: a broken module (from a
 * bug in an earlier lowering) becomes an error carrying LLVM's report
 * instead of an abort inside LLVM. Also frees the back end's bytes. */
#include <stdlib.h>

#include <llvm-c/Analysis.h>

#include "cptx_internal.h"

void kiln_ptx_bytes_free(kiln_ptx_bytes_t *bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}

kiln_error *kiln_ptx_verify(LLVMModuleRef module) {
  char *report = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &report))
    return kiln_error_take("cuda: the LLVM module failed verification", report, LLVMDisposeMessage);
  if (report) LLVMDisposeMessage(report);
  return NULL;
}

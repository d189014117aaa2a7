/* Runs LLVM's module verifier in reporting mode: a broken module (from a
 * bug in an earlier lowering) becomes an error status carrying LLVM's
 * report instead of an abort inside LLVM. */
#include <llvm-c/Analysis.h>

#include "cptx_internal.h"

kiln_error *kiln_ptx_verify(LLVMModuleRef module) {
  char *report = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &report))
    return kiln_llvm_cpu_error_llvm("cuda: the LLVM module failed verification", report);
  if (report) LLVMDisposeMessage(report);
  return NULL;
}

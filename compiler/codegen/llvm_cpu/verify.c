/* Runs LLVM's module verifier in reporting mode: a broken module (from a
 * bug in an earlier lowering) becomes an error status carrying LLVM's
 * report instead of an abort inside LLVM. */
#include <llvm-c/Analysis.h>

#include "lcpu_internal.h"

kiln_error *kiln_llvm_cpu_verify(LLVMModuleRef module) {
  char *report = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &report))
    return kiln_error_take("llvm-cpu: the LLVM module failed verification", report,
                           LLVMDisposeMessage);
  if (report) LLVMDisposeMessage(report);
  return NULL;
}

/* Runs LLVM's default<O3> pipeline on a prepared module. The NVPTX target
 * machine adds its own passes to it (NVVMReflect, range metadata on
 * special-register reads from the launch bounds, address-space
 * inference), which is why tm must be the one the module was prepared
 * for. */
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cptx_internal.h"

kiln_error *kiln_ptx_optimize(LLVMModuleRef module,
                              LLVMTargetMachineRef tm) {
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
  LLVMErrorRef err = LLVMRunPasses(module, "default<O3>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (!err) return NULL;
  char *msg = LLVMGetErrorMessage(err);
  kiln_error *s = kiln_error_new("cuda: the O3 pipeline failed: %s", msg);
  LLVMDisposeErrorMessage(msg);
  return s;
}

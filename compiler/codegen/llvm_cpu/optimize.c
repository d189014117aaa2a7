/* Runs LLVM's default<O3> pipeline on a prepared module with the target
 * machine's cost model, loop and SLP vectorization, interleaving and
 * unrolling on (lcpu_optimize can leave unrolling out: loops are then
 * unrolled only where metadata forces it). A pipeline error (none is
 * expected for the fixed pipeline string) becomes a status. */
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "lcpu_internal.h"

kiln_error *lcpu_optimize(LLVMModuleRef module, LLVMTargetMachineRef tm,
                          bool unroll) {
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(opts, 1);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, unroll);
  LLVMErrorRef err = LLVMRunPasses(module, "default<O3>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (!err) return NULL;
  char *msg = LLVMGetErrorMessage(err);
  kiln_error *s =
      kiln_error_new("llvm-cpu: the O3 pipeline failed: %s", msg);
  LLVMDisposeErrorMessage(msg);
  return s;
}

kiln_error *kiln_llvm_cpu_optimize(LLVMModuleRef module,
                                   LLVMTargetMachineRef tm) {
  return lcpu_optimize(module, tm, true);
}

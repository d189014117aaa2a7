/* The llvm-cpu back end in one function, step by step: a module holding
 * the kernels and the export table goes in, the bytes of a linked shared
 * object come out. Later stages that need an intermediate form (IR after
 * O3, assembly) call the same steps themselves. */
#include "lcpu_internal.h"

kiln_llvm_cpu_status_t kiln_llvm_cpu_compile(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    kiln_llvm_cpu_bytes_t *out) {
  out->data = NULL;
  out->size = 0;
  LLVMTargetMachineRef tm = NULL;
  kiln_llvm_cpu_status_t s = kiln_llvm_cpu_target_machine_create(target, &tm);
  if (!s) s = kiln_llvm_cpu_verify(module);
  if (!s) s = kiln_llvm_cpu_prepare(module, tm);
  if (!s) s = kiln_llvm_cpu_optimize(module, tm);
  kiln_llvm_cpu_bytes_t object = {0};
  if (!s) s = kiln_llvm_cpu_emit(module, tm, KILN_LLVM_CPU_EMIT_OBJECT, &object);
  if (!s) s = kiln_llvm_cpu_link(target, NULL, object.data, object.size, out);
  kiln_llvm_cpu_bytes_free(&object);
  if (tm) LLVMDisposeTargetMachine(tm);
  return s;
}

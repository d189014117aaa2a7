/* The cuda back end in one function, step by step: a module holding the
 * kernels goes in, PTX text for one SM version and the metadata of each
 * kernel come out. Later stages that need an intermediate form (IR after
 * O3) call the same steps themselves. */
#include <string.h>

#include "cptx_internal.h"

kiln_error *kiln_ptx_compile(LLVMModuleRef module,
                             const kiln_ptx_target_t *target,
                             kiln_ptx_result_t *out) {
  memset(out, 0, sizeof *out);
  LLVMTargetMachineRef tm = NULL;
  kiln_error *s = kiln_ptx_target_machine_create(target, &tm);
  if (!s) s = kiln_ptx_verify(module);
  if (!s) s = kiln_ptx_prepare(module, tm);
  if (!s) s = kiln_ptx_optimize(module, tm);
  if (!s) s = kiln_ptx_kernel_infos(module, tm, out);
  if (!s) s = kiln_ptx_emit(module, tm, KILN_PTX_EMIT_PTX, &out->ptx);
  if (s) kiln_ptx_result_release(out);
  if (tm) LLVMDisposeTargetMachine(tm);
  return s;
}

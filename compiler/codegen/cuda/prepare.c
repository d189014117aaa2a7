/* Makes a verified module fit for PTX before it is optimized: the target
 * machine's triple and data layout; every kernel (kiln_ptx_is_kernel) a
 * definition with external linkage, both kernel markings present, a void
 * result and Kiln's parameter shape (bindings as ptr addrspace(1), then
 * i32 push constants); every other defined function and global internal,
 * so the PTX exports exactly the .entry kernels and O3 may inline and
 * drop helpers; no declared global other than the dynamic shared array;
 * the instruction check (instructions.c) and the callee check
 * (callees.c). */
#include <string.h>

#include <llvm-c/Target.h>

#include "cptx_internal.h"

static bool cptx_is_local(LLVMValueRef global) {
  LLVMLinkage l = LLVMGetLinkage(global);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* Kiln's kernel parameters: N bindings, then only i32 push constants. */
static kiln_error *cptx_check_kernel(LLVMModuleRef module,
                                     LLVMValueRef fn) {
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  if (LLVMIsDeclaration(fn))
    return kiln_error_new("cuda kernel '%s' is declared but has no body", name);
  if (cptx_is_local(fn))
    return kiln_error_new("cuda kernel '%s' has internal linkage; a PTX .entry "
                          "must be visible to the driver",
                          name);
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  if (LLVMGetTypeKind(LLVMGetReturnType(type)) != LLVMVoidTypeKind)
    return kiln_error_new("cuda kernel '%s' must return void", name);
  if (LLVMIsFunctionVarArg(type))
    return kiln_error_new("cuda kernel '%s' must not be variadic", name);
  unsigned n = LLVMCountParams(fn);
  bool in_constants = false;
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, i));
    bool binding = LLVMGetTypeKind(t) == LLVMPointerTypeKind &&
                   LLVMGetPointerAddressSpace(t) == KILN_PTX_ADDRSPACE_GLOBAL;
    bool constant = LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
                    LLVMGetIntTypeWidth(t) == 32;
    if (binding && !in_constants) continue;
    if (constant) {
      in_constants = true;
      continue;
    }
    char *shown = LLVMPrintTypeToString(t);
    kiln_error *s = kiln_error_new(
        "cuda kernel '%s': parameter %u has type %s; a Kiln kernel takes its "
        "bindings (ptr addrspace(1)) first, then i32 push constants",
        name, i, shown);
    LLVMDisposeMessage(shown);
    return s;
  }
  /* Either marking alone would do for LLVM 19; both keep the module
   * meaning the same to every reader (and to later LLVMs, which read only
   * the calling convention). */
  cptx_mark_kernel(module, fn);
  return NULL;
}

kiln_error *kiln_ptx_prepare(LLVMModuleRef module,
                             LLVMTargetMachineRef tm) {
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(module, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(module, layout);
  LLVMDisposeTargetData(layout);

  unsigned kernels = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (kiln_ptx_is_kernel(module, fn)) {
      kiln_error *s = cptx_check_kernel(module, fn);
      if (s) return s;
      kernels++;
    } else if (!LLVMIsDeclaration(fn)) {
      LLVMSetLinkage(fn, LLVMInternalLinkage);
    }
  }
  if (kernels == 0)
    return kiln_error_new("cuda: the module defines no kernel (add one with "
                       "kiln_ptx_abi_add_kernel)");
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    if (!LLVMIsDeclaration(g)) {
      LLVMSetLinkage(g, LLVMInternalLinkage);
      continue;
    }
    if (strcmp(name, KILN_PTX_DYNAMIC_SHARED_SYMBOL) == 0 &&
        LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == KILN_PTX_ADDRSPACE_SHARED)
      continue;
    return kiln_error_new("cuda: global '%s' is declared but not defined in the "
                          "module; Kiln's PTX links no library (the only external "
                          "global is the dynamic shared array '%s')",
                       name, KILN_PTX_DYNAMIC_SHARED_SYMBOL);
  }
  kiln_error *s = cptx_check_instructions(module);
  return s ? s : cptx_check_callees(module);
}

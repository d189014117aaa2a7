/* Shared memory (PTX .shared, LLVM addrspace(3)): static arrays as
 * internal globals with an undef initializer (shared memory cannot be
 * initialized; LLVM prints them as `.shared .align A .b8 NAME[BYTES]`),
 * and the one dynamic array per module, an external zero-length global
 * that PTX prints as `.extern .shared .align 16 .b8 NAME[]` and the launch
 * sizes. */
#include <string.h>

#include "cptx_internal.h"

kiln_error *kiln_ptx_add_shared_array(const kiln_ptx_abi_t *abi,
                                      LLVMModuleRef module,
                                      const char *name, LLVMTypeRef elem,
                                      uint64_t count, uint32_t align,
                                      LLVMValueRef *out) {
  *out = NULL;
  const char *shown = name && *name ? name : "(unnamed)";
  if (count == 0)
    return kiln_error_new("cuda shared array '%s': zero elements", shown);
  if (!elem || !LLVMTypeIsSized(elem))
    return kiln_error_new("cuda shared array '%s': element type has no size", shown);
  if (align & (align - 1))
    return kiln_error_new("cuda shared array '%s': alignment %u is not a power "
                          "of two",
                          shown, align);
  /* The size check uses LLVM's store size for the NVPTX data layout,
   * which for the scalar and vector types a kernel uses is the host's. */
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(module);
  unsigned long long elem_bytes = LLVMABISizeOfType(dl, elem);
  if (elem_bytes == 0 || count > CPTX_MAX_STATIC_SHARED / elem_bytes)
    return kiln_error_new("cuda shared array '%s': %llu elements of %llu bytes "
                          "exceed the %u bytes of static shared memory a block "
                          "may declare",
                          shown, (unsigned long long)count, elem_bytes,
                          CPTX_MAX_STATIC_SHARED);
  LLVMTypeRef type = LLVMArrayType2(elem, count);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(module, type, name ? name : "",
                                               KILN_PTX_ADDRSPACE_SHARED);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetInitializer(g, LLVMGetUndef(type));
  LLVMSetAlignment(g, align ? align : LLVMABIAlignmentOfType(dl, elem));
  (void)abi;
  *out = g;
  return NULL;
}

kiln_error *kiln_ptx_dynamic_shared(const kiln_ptx_abi_t *abi,
                                    LLVMModuleRef module,
                                    LLVMValueRef *out) {
  *out = NULL;
  LLVMTypeRef type = LLVMArrayType2(LLVMInt8TypeInContext(abi->context), 0);
  LLVMValueRef g = LLVMGetNamedGlobal(module, KILN_PTX_DYNAMIC_SHARED_SYMBOL);
  if (g) {
    if (!LLVMIsDeclaration(g) ||
        LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != KILN_PTX_ADDRSPACE_SHARED ||
        LLVMGlobalGetValueType(g) != type)
      return kiln_error_new("cuda: the module already has a global '%s' that is "
                            "not the dynamic shared array",
                            KILN_PTX_DYNAMIC_SHARED_SYMBOL);
    *out = g;
    return NULL;
  }
  if (LLVMGetNamedFunction(module, KILN_PTX_DYNAMIC_SHARED_SYMBOL))
    return kiln_error_new("cuda: the module already has a function '%s'",
                          KILN_PTX_DYNAMIC_SHARED_SYMBOL);
  g = LLVMAddGlobalInAddressSpace(module, type, KILN_PTX_DYNAMIC_SHARED_SYMBOL,
                                  KILN_PTX_ADDRSPACE_SHARED);
  LLVMSetLinkage(g, LLVMExternalLinkage);
  LLVMSetAlignment(g, 16);
  *out = g;
  return NULL;
}

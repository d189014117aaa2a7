/* The callee check: a PTX module from Kiln is self-contained (no
 * libdevice, no libm, no separate linking), so every called function must
 * be defined in the module or be an LLVM intrinsic that NVPTX selects to
 * instructions. Anything else would reach ptxas as an unresolved .extern
 * .func, or, for the math intrinsics of cuda_libm_intrinsics.def, stop
 * LLVM's code generator (which exits or aborts the process). Guarantees
 * an error naming the function instead. */
#include <string.h>

#include "cptx_internal.h"

static const char *const cptx_libm[] = {
#define CPTX_LIBM(NAME) NAME,
#include "cuda_libm_intrinsics.def"
#undef CPTX_LIBM
};

/* Whether intrinsic NAME is llvm.FAMILY or llvm.FAMILY.<suffixes> for a
 * listed family. */
static const char *cptx_libm_family(const char *name, size_t len) {
  if (len < 5 || memcmp(name, "llvm.", 5) != 0) return NULL;
  const char *base = name + 5;
  size_t n = strcspn(base, ".");
  for (size_t i = 0; i < CPTX_COUNT(cptx_libm); i++)
    if (strlen(cptx_libm[i]) == n && memcmp(base, cptx_libm[i], n) == 0)
      return cptx_libm[i];
  return NULL;
}

kiln_error *cptx_check_callees(LLVMModuleRef module) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (!LLVMIsDeclaration(fn) || !LLVMGetFirstUse(fn)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (LLVMGetIntrinsicID(fn) == 0)
      return kiln_error_new("cuda: function '%s' is called but not defined in "
                            "the module; Kiln's PTX links no library (no libm, "
                            "no libdevice), so every callee must be generated "
                         "code (math functions come from the code "
                         "generator's polynomial approximations)",
                         name);
    const char *family = cptx_libm_family(name, len);
    if (family)
      return kiln_error_new("cuda: intrinsic '%s' has no NVPTX instruction and "
                            "would need a libm call, which Kiln's PTX cannot "
                            "link; the code generator must expand '%s' into its "
                            "polynomial approximation first",
                            name, family);
  }
  return NULL;
}

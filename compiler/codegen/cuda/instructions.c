/* The instruction check: IR that LLVM 19's NVPTX back end cannot turn
 * into valid PTX, refused by name before code generation instead of
 * ending in an LLVM abort ("Undefined external symbol", from soft-float
 * and 128-bit conversion routines PTX has no library for) or in PTX that
 * ptxas rejects (a dynamically sized alloca is emitted with alignment 0).
 * Refuses: values of type fp128, x86_fp80 or ppc_fp128 (scalar or in a
 * vector); conversions between floating point and integers wider than 64
 * bits; allocas whose element count is not a constant. O3 creates none of
 * these from code that has none, so prepare() runs the check once. */
#include "cptx_internal.h"

static bool cptx_soft_float(LLVMTypeRef t) {
  if (!t) return false;
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMVectorTypeKind || k == LLVMScalableVectorTypeKind) {
    t = LLVMGetElementType(t);
    k = LLVMGetTypeKind(t);
  }
  return k == LLVMFP128TypeKind || k == LLVMX86_FP80TypeKind ||
         k == LLVMPPC_FP128TypeKind;
}

static unsigned cptx_int_bits(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static kiln_error *cptx_check_one(const char *fn, LLVMValueRef in) {
  LLVMOpcode op = LLVMGetInstructionOpcode(in);
  if (op == LLVMAlloca && !LLVMIsConstant(LLVMGetOperand(in, 0)))
    return kiln_error_new("cuda: function '%s' has an alloca whose size is known "
                          "only at run time; LLVM 19 emits PTX for it that ptxas "
                          "rejects (alignment 0), so use a fixed size or the "
                          "dynamic shared array",
                          fn);
  LLVMTypeRef types[3] = {LLVMTypeOf(in), NULL, NULL};
  int n = LLVMGetNumOperands(in);
  for (int i = 0; i < n && i < 2; i++) types[i + 1] = LLVMTypeOf(LLVMGetOperand(in, i));
  for (int i = 0; i < 3; i++)
    if (cptx_soft_float(types[i])) {
      char *shown = LLVMPrintTypeToString(types[i]);
      kiln_error *s = kiln_error_new(
          "cuda: function '%s' uses type %s, which NVPTX cannot lower (it "
          "needs a soft-float library PTX cannot link)",
          fn, shown);
      LLVMDisposeMessage(shown);
      return s;
    }
  unsigned bits = 0;
  if (op == LLVMFPToSI || op == LLVMFPToUI) bits = cptx_int_bits(types[0]);
  if (op == LLVMSIToFP || op == LLVMUIToFP) bits = cptx_int_bits(types[1]);
  if (bits > 64)
    return kiln_error_new("cuda: function '%s' converts between floating point "
                          "and i%u; NVPTX lowers such conversions only up to 64 "
                          "bits (wider ones need a library routine PTX cannot "
                          "link)",
                       fn, bits);
  return NULL;
}

kiln_error *cptx_check_instructions(LLVMModuleRef module) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn)) {
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in)) {
        kiln_error *s = cptx_check_one(name, in);
        if (s) return s;
      }
  }
  return NULL;
}

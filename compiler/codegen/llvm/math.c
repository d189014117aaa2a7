/* math ops as LLVM intrinsics: sqrt and fabs (single instructions on every
 * Kiln target), floor, ceil and round (instructions with SSE4.1 or on
 * aarch64; approximate-math expands them for baseline x86-64, where they
 * would become libm calls that lld then refuses), and rsqrt as 1 / sqrt. Transcendental ops (exp, log, tanh, erf, sin, cos,
 * powf, ...) would become libm calls, which a no-libc executable cannot
 * have: they are an error here, and approximate-math (codegen/transforms)
 * replaces them by polynomials beforehand. */
#include "tl_internal.h"

static LLVMValueRef part(tl *t, kiln_op *op, LLVMValueRef *x, LLVMTypeRef rt) {
  switch (op->kind) {
  case KILN_OP_MATH_SQRT: return tl_call_intrinsic(t, "llvm.sqrt", rt, x, 1);
  case KILN_OP_MATH_ABSF: return tl_call_intrinsic(t, "llvm.fabs", rt, x, 1);
  case KILN_OP_MATH_FLOOR: return tl_call_intrinsic(t, "llvm.floor", rt, x, 1);
  case KILN_OP_MATH_CEIL: return tl_call_intrinsic(t, "llvm.ceil", rt, x, 1);
  case KILN_OP_MATH_ROUND: return tl_call_intrinsic(t, "llvm.round", rt, x, 1);
  /* llvm.fmuladd, not llvm.fma: a multiply and an add where the target
   * has no FMA (baseline x86-64), never an fmaf call. */
  case KILN_OP_MATH_FMA: return tl_call_intrinsic(t, "llvm.fmuladd", rt, x, 3);
  case KILN_OP_MATH_RSQRT: {
    LLVMValueRef s = tl_call_intrinsic(t, "llvm.sqrt", rt, x, 1);
    LLVMTypeRef et = LLVMGetTypeKind(rt) == LLVMVectorTypeKind ? LLVMGetElementType(rt) : rt;
    LLVMValueRef one = LLVMConstReal(et, 1.0);
    if (et != rt) one = tl_splat(t, one, rt);
    return LLVMBuildFDiv(t->b, one, s, "");
  }
  default:
    return tl_fail(t, op, "would become a libm call; run approximate-math first");
  }
}

void tl_math(tl *t, kiln_op *op) {
  LLVMValueRef x[3];
  for (uint32_t i = 0; i < op->num_operands && i < 3; i++)
    if (!(x[i] = tl_operand(t, op, i))) return;
  LLVMValueRef r = tl_map_parts(t, op, x, op->num_operands, op->results[0].type, part);
  if (r) tl_set(t, &op->results[0], r);
}

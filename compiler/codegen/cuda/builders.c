/* In-kernel builders over NVVM intrinsics: special registers (thread and
 * block ids and sizes), the block barrier, warp shuffles and a butterfly
 * warp reduction. Each call declares its intrinsic in the builder's
 * module on first use (LLVMGetIntrinsicDeclaration), so code generation
 * never spells intrinsic names or signatures itself. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cptx_internal.h"

static const char *const cptx_sreg_names[] = {
#define CPTX_SREG(ID, PTX) PTX,
#include "cuda_sregs.def"
#undef CPTX_SREG
};

static LLVMModuleRef cptx_builder_module(LLVMBuilderRef b) {
  return LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
}

/* A call of the non-overloaded intrinsic NAME. */
static LLVMValueRef cptx_call(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                              const char *name, LLVMValueRef *args,
                              unsigned count, const char *result) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  assert(id != 0 && "NVVM intrinsic unknown to this LLVM");
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cptx_builder_module(b), id, NULL, 0);
  LLVMTypeRef type = LLVMIntrinsicGetType(abi->context, id, NULL, 0);
  return LLVMBuildCall2(b, type, fn, args, count, result);
}

LLVMValueRef kiln_ptx_read_sreg(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                                kiln_ptx_sreg_t reg, uint32_t dim) {
  assert(reg < KILN_PTX_SREG_COUNT && dim < 3 && "special register out of range");
  if (reg >= KILN_PTX_SREG_COUNT) reg = KILN_PTX_SREG_THREAD_ID;
  if (dim > 2) dim = 2;
  char name[64], result[16];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c",
           cptx_sreg_names[reg], "xyz"[dim]);
  snprintf(result, sizeof result, "%s.%c", cptx_sreg_names[reg], "xyz"[dim]);
  return cptx_call(abi, b, name, NULL, 0, result);
}

void kiln_ptx_barrier(const kiln_ptx_abi_t *abi, LLVMBuilderRef b) {
  cptx_call(abi, b, "llvm.nvvm.barrier0", NULL, 0, "");
}

LLVMValueRef kiln_ptx_shuffle(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                              kiln_ptx_shuffle_t kind, LLVMValueRef value,
                              LLVMValueRef lane) {
  static const char *const modes[] = {"idx", "up", "down", "bfly"};
  bool is_float = LLVMTypeOf(value) == abi->f32;
  assert((is_float || LLVMTypeOf(value) == abi->i32) && "shuffle of i32 or float");
  assert(kind <= KILN_PTX_SHUFFLE_XOR && "unknown shuffle kind");
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s",
           modes[kind <= KILN_PTX_SHUFFLE_XOR ? kind : 0], is_float ? "f32" : "i32");
  /* PTX's c operand packs the segment mask (bits 8..12; 0: one 32-lane
   * segment) and the clamp lane: the last lane for idx/down/bfly, the
   * first for up, so out-of-warp sources read the lane's own value. */
  uint32_t c = kind == KILN_PTX_SHUFFLE_UP ? 0u : 31u;
  LLVMValueRef args[4] = {LLVMConstInt(abi->i32, 0xffffffffu, 0), value, lane,
                          LLVMConstInt(abi->i32, c, 0)};
  return cptx_call(abi, b, name, args, 4, "shfl");
}

LLVMValueRef kiln_ptx_warp_reduce(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                                  LLVMOpcode op, LLVMValueRef value) {
  assert((op == LLVMAdd || op == LLVMFAdd || op == LLVMMul || op == LLVMFMul ||
          op == LLVMAnd || op == LLVMOr || op == LLVMXor) &&
         "warp reduction of an associative binary opcode");
  for (uint32_t mask = 16; mask > 0; mask >>= 1) {
    LLVMValueRef other = kiln_ptx_shuffle(abi, b, KILN_PTX_SHUFFLE_XOR, value,
                                          LLVMConstInt(abi->i32, mask, 0));
    value = LLVMBuildBinOp(b, op, value, other, "wred");
  }
  return value;
}

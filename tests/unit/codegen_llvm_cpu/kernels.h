/* Test kernels built with the LLVM-C builder through the llvm-cpu ABI
 * helpers, each in a fresh module with its export table:
 *   mul:  out[i] = a[i] * b[i] (f32) for i in this workgroup's tile of
 *         KERNELS_MUL_TILE elements, clipped to n = push constant 0;
 *         bindings a (0, read-only), b (1, read-only), out (2).
 *   fill: zeroes binding 0 whole (length from the dispatch state), i32 by
 *         i32, and a fixed KERNELS_FILL_FIXED-word prefix of binding 1:
 *         the loops LLVM likes to turn into memset.
 *   copy: the first KERNELS_COPY_BYTES bytes of binding 0 = a constant
 *         table (byte i is kernels_copy_byte(i)), byte by byte: the loop
 *         LLVM likes to turn into memcpy (the table cannot alias).
 *   memops: explicit intrinsics, L = push constant 0, A = binding 0
 *         (L bytes), B = binding 1 (L + 32 bytes):
 *           memcpy(B, A, L); memset(A, 0x7f, L) (i32 length);
 *           memmove(B + 16, B, L); memmove(B, B + 16, L).
 *   transpose: binding 1 (4x32x64 f32) = binding 0 (64x4x32) transposed,
 *         three static loops: a nest LLVM's unroller flattens whole. */
#ifndef KILN_TEST_CODEGEN_LLVM_KERNELS_H
#define KILN_TEST_CODEGEN_LLVM_KERNELS_H

#include "llvm_cpu.h"

#define KERNELS_MUL_TILE 1024u
#define KERNELS_FILL_FIXED (1u << 16)
#define KERNELS_COPY_BYTES 4096u

static inline uint8_t kernels_copy_byte(uint32_t i) {
  return (uint8_t)(i * 37u + (i >> 8));
}

LLVMModuleRef kernels_mul_module(LLVMContextRef ctx);
LLVMModuleRef kernels_fill_module(LLVMContextRef ctx);
LLVMModuleRef kernels_copy_module(LLVMContextRef ctx);
LLVMModuleRef kernels_memops_module(LLVMContextRef ctx);
LLVMModuleRef kernels_transpose_module(LLVMContextRef ctx);

/* Compiles a module for TARGET_TEXT with kiln_llvm_cpu_compile; on failure
 * returns the status (the module is disposed either way). */
kiln_error *kernels_compile(LLVMModuleRef module,
                            const char *target_text,
                            kiln_llvm_cpu_bytes_t *so);

#endif

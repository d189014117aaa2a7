/* Test kernels built with the LLVM-C builder through the cuda back end's
 * ABI helpers (no hand-written intrinsic names), all f32:
 *   elementwise: out[i] = a[i] + b[i], i = blockIdx.x*blockDim.x +
 *         threadIdx.x, only where i < n = push constant 0; bindings a, b
 *         (read-only), out; .maxntid 256.
 *   matmul_tiled: C[MxN] = A[MxK] * B[KxN], push constants M, N, K, with
 *         16x16 tiles of A and B staged in static shared memory between
 *         barriers; every load and the store are guarded, so sizes need
 *         not be multiples of 16; .reqntid 16x16.
 *   reduce_sum: out[blockIdx.x] = sum of in[i] over the block's 256
 *         elements below n: a warp shuffle reduction, the warps' partial
 *         sums through shared memory, a final warp reduction; .reqntid 256.
 *   reverse_block: out[i] = in[the block's element blockDim.x-1-tid]
 *         through the dynamic shared array; .maxntid 1024. */
#ifndef KILN_TEST_CODEGEN_CUDA_KERNELS_H
#define KILN_TEST_CODEGEN_CUDA_KERNELS_H

#include "cuda_ptx.h"

#define KERNELS_TILE 16u
#define KERNELS_REDUCE_BLOCK 256u

typedef enum kernels_id {
  KERNELS_ELEMENTWISE,
  KERNELS_MATMUL,
  KERNELS_REDUCE,
  KERNELS_REVERSE,
  KERNELS_COUNT
} kernels_id_t;

extern const char *const kernels_names[KERNELS_COUNT];

/* Adds kernel ID to M; NULL (and a message on stderr) on a helper error,
 * which would be a bug in the test or the helpers. */
LLVMValueRef kernels_add(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                         kernels_id_t id);

/* A module with the kernels whose bit (1 << id) is in MASK, in id order. */
LLVMModuleRef kernels_module(LLVMContextRef ctx, unsigned mask);

#define KERNELS_ALL ((1u << KERNELS_COUNT) - 1)

#endif

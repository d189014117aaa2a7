/* GPU code generation (cuda:sm_XX variants) between the HAL's bufferized
 * kernels and the NVPTX back end (compiler/codegen/cuda), plus the
 * SIMT-on-CPU check of its numerics.
 *
 * Takes: a kernel module (ir.h, KILN_PASS_KERNELS): a cuda variant's inner
 * module holding kernels of linalg ops on memrefs (PIPELINE.md, hal).
 * Guarantees, in the order compiler/driver/pipeline.def runs them:
 *   select-gpu-launch-config  kiln.launch on each kernel: the llvm-cpu
 *       tile sizes and workgroup count (so every variant of an executable
 *       agrees on the grid), pipeline "gpu-*", block_size [T, 1, 1]
 *       with T per SM (workgroup_size stays [1, 1, 1], see there); workgroup_count on the export and dispatch sites
 *   tile-and-distribute       workgroup tiles (= thread blocks), reusing
 *       compiler/codegen/cpu's pass
 *   gpu-tile-matmul-shared    f32 matmul / batch_matmul / conv_2d_nhwc_hwcf
 *       (implicit GEMM) roots: block
 *       tiles walked per K step through workgroup memory (cooperative,
 *       vector<4xf32> global loads where whole and aligned), barriers,
 *       per-thread register tiles; marked kiln.gpu_distributed
 *   distribute-to-threads     every other top-level linalg op split along one
 *       parallel loop into contiguous chunks per thread
 *       (hal.interface.thread.id, partial chunks guarded by their sizes),
 *       small-output reductions shared by the whole block (partials in
 *       workgroup memory, folded after a barrier), or run by thread 0
 *       alone; a hal.interface.barrier between them
 *   lower-to-loops, remove-single-iteration-loops (codegen/cpu)
 *   simt-to-loops (SIMT variant only): thread ids become loops, split at
 *       every barrier (loop fission), so the kernel runs on a CPU
 * Public prefix kiln_codegen_gpu_; internal prefix gpu_. */
#ifndef KILN_CODEGEN_GPU_H
#define KILN_CODEGEN_GPU_H

#include "ir.h"

/* Threads per block for an SM version (sm_80: 64, sm_90: 128). */
int64_t kiln_codegen_gpu_block_size(uint32_t sm_version);

/* A copy of the (lowered) cuda variant VAR, inserted after it, whose
 * kernels run the threads of a block as loops (simt-to-loops): target
 * "llvm-cpu", name "simt_cpu_" + VAR's name. *out is the new variant. */
kiln_error *kiln_codegen_gpu_add_simt_variant(kiln_op *var, kiln_op **out);

/* Registers the passes of passes.def under their command-line names. */
void kiln_codegen_gpu_register(void);

/* The passes, on one kernel module (the kernels of one variant). */
#define KILN_CODEGEN_GPU_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_codegen_gpu_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_CODEGEN_GPU_PASS

#endif

/* Internals of compiler/codegen/gpu (prefix gpu_). The IR builders and
 * root/iteration helpers are compiler/codegen/common's (codegen_common.h),
 * and tiles come from the llvm-cpu launch rule, which lives there too
 * (cg_launch_rule_all): the GPU path tiles exactly like the CPU path so
 * both agree on the grid, without including the CPU back end's header. */
#ifndef KILN_CODEGEN_GPU_INTERNAL_H
#define KILN_CODEGEN_GPU_INTERNAL_H

#include "codegen_common.h"
#include "codegen_gpu.h"

/* Threads per block recorded in kiln.launch (block_size[0]), or 1. */
int64_t gpu_block_threads(kiln_op *func);

/* Kernels of an inner module: public func.func without arguments. */
bool gpu_is_kernel(const kiln_op *f);

/* Unit attribute on top-level kernel ops (and their workgroup-memory
 * allocas) that a pass already spread over the block's threads, with
 * their own barriers: distribute-to-threads must leave them alone. */
#define GPU_DISTRIBUTED "kiln.gpu_distributed"

/* Matmul launch parameters for an SM and the rows and columns of a plain
 * matmul's workgroup tile (0 otherwise; select_launch_config.c): threads
 * per block, block tile BM x BN, K step, thread tile TM x TN. */
typedef struct gpu_matmul_config {
  int64_t threads, bm, bn, bk, tm, tn;
} gpu_matmul_config;
gpu_matmul_config gpu_matmul_config_for(uint32_t sm_version, int64_t workgroup_rows, int64_t workgroup_cols);

/* The convolutions gpu-tile-matmul-shared takes as implicit GEMMs
 * (tile_matmul_shared.c): conv_2d_nhwc_hwcf, conv_2d_nchw_fchw, and the
 * ONNX importer's Conv, a multiply-accumulate linalg.generic over (n, g,
 * m, oh, ow | c, kh, kw) with X[n][g][c][oh*sh + kh*dh][ow*sw + kw*dw],
 * W[g][m][c][kh][kw], out[n][g][m][oh][ow] (groups and depthwise
 * included). NONE, or the layout with the strides and dilations. */
typedef enum { GPU_CONV_NONE, GPU_CONV_NHWC, GPU_CONV_NCHW, GPU_CONV_GROUPED } gpu_conv_layout;
gpu_conv_layout gpu_match_conv(const kiln_op *op, int64_t *sh, int64_t *sw, int64_t *dh, int64_t *dw);

/* Does the kernel hold a memref.alloca outside workgroup memory (a
 * bufferized intermediate: private to each GPU thread)? */
bool gpu_has_private_scratch(kiln_op *func);

kiln_value *gpu_interface(kiln_builder *b, kiln_op_kind kind, int64_t dim);

#endif

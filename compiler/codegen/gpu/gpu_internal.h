/* Internals of compiler/codegen/gpu (prefix gpu_). The IR builders and
 * root/iteration helpers are compiler/codegen/cpu's (cg_internal.h): the
 * GPU path tiles exactly like the CPU path so both agree on the grid. */
#ifndef KILN_CODEGEN_GPU_INTERNAL_H
#define KILN_CODEGEN_GPU_INTERNAL_H

#include "cg_internal.h"
#include "codegen_gpu.h"

/* Threads per block recorded in kiln.launch (block_size[0]), or 1. */
int64_t gpu_block_threads(kiln_op *func);

/* Kernels of an inner module: public func.func without arguments. */
bool gpu_is_kernel(const kiln_op *f);

kiln_value *gpu_interface(kiln_builder *b, kiln_op_kind kind, int64_t dim);

#endif

/* The cuda target's passes over kiln IR (library kiln_cuda_passes, beside
 * the PTX back end of cuda_ptx.h that they drive): the last steps of the
 * cuda pipeline in compiler/driver/pipeline.def, after the GPU passes of
 * compiler/codegen/gpu. */
#ifndef KILN_CUDA_PASSES_H
#define KILN_CUDA_PASSES_H

#include "ir.h"

/* Registers the passes of cuda_passes.def (kernel passes, ir.h:
 * KILN_PASS_KERNELS). */
void kiln_cuda_register_passes(void);

#define KILN_CUDA_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_cuda_##ID(kiln_op *inner, void *user);
#include "cuda_passes.def"
#undef KILN_CUDA_PASS

#endif

/* Registration of the codegen/gpu passes (generated from passes.def), as
 * kernel passes (ir.h: KILN_PASS_KERNELS): each runs on a cuda variant's
 * inner module or on a codegen-level module of kernels. The order they run
 * in is compiler/driver/pipeline.def's. */
#include "codegen_gpu.h"

void kiln_codegen_gpu_register(void) {
#define KILN_CODEGEN_GPU_PASS(ID, NAME, DESCRIPTION)                                    \
  {                                                                                     \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_codegen_gpu_##ID, NULL, \
                                        KILN_PASS_KERNELS};                             \
    kiln_pass_register(&info);                                                          \
  }
#include "passes.def"
#undef KILN_CODEGEN_GPU_PASS
}

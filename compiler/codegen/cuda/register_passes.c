/* Registration of the cuda target's passes, generated from
 * cuda_passes.def. Registering twice is harmless. */
#include "cuda_passes.h"

void kiln_cuda_register_passes(void) {
#define KILN_CUDA_PASS(ID, NAME, DESCRIPTION)                                    \
  {                                                                              \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_cuda_##ID, NULL, \
                                        KILN_PASS_KERNELS};                      \
    kiln_pass_register(&info);                                                   \
  }
#include "cuda_passes.def"
#undef KILN_CUDA_PASS
}

/* Registration of the codegen/cpu passes (generated from passes.def), as
 * kernel passes (ir.h: KILN_PASS_KERNELS). Registering twice is harmless;
 * the order they run in is compiler/driver/pipeline.def's. */
#include "codegen_cpu.h"

void kiln_codegen_cpu_register(void) {
#define KILN_CODEGEN_CPU_PASS(ID, NAME, DESCRIPTION)                                    \
  {                                                                                     \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_codegen_cpu_##ID, NULL, \
                                        KILN_PASS_KERNELS};                             \
    kiln_pass_register(&info);                                                          \
  }
#include "passes.def"
#undef KILN_CODEGEN_CPU_PASS
}

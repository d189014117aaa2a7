/* Registration of the codegen/cpu passes (generated from passes.def) and
 * of their pipeline. Registering twice is harmless. */
#include "codegen_cpu.h"

void kiln_codegen_cpu_register(void) {
#define KILN_CODEGEN_CPU_PASS(ID, NAME, DESCRIPTION)                    \
  {                                                                     \
    static const kiln_pass_info info = {NAME, DESCRIPTION,              \
                                        kiln_codegen_cpu_##ID, NULL};   \
    kiln_pass_register(&info);                                          \
  }
#include "passes.def"
#undef KILN_CODEGEN_CPU_PASS
  kiln_pipeline_register("llvm-cpu-codegen",
                         "the llvm-cpu codegen passes of compiler/codegen/cpu, in order",
                         "select-launch-config,tile-and-distribute,specialize-full-tiles,"
                         "lower-to-loops,remove-single-iteration-loops");
}

/* The llvm-cpu target's passes over kiln IR (library kiln_llvm_cpu_passes,
 * beside the back end of llvm_cpu.h that they drive): translate-llvm-cpu,
 * the last pass of the llvm-cpu pipeline in compiler/driver/pipeline.def. */
#ifndef KILN_LLVM_CPU_PASSES_H
#define KILN_LLVM_CPU_PASSES_H

#include "ir.h"

/* Registers translate-llvm-cpu (a kernel pass, ir.h: KILN_PASS_KERNELS). */
void kiln_llvm_cpu_register_passes(void);

/* translate-llvm-cpu on the inner module of one llvm-cpu variant (the
 * compile session is the context's): its shared object goes into the
 * session. user is ignored. */
kiln_error *kiln_llvm_cpu_translate_variant(kiln_op *inner, void *user);

#endif

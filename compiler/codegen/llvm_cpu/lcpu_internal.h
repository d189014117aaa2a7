/* Helpers shared by the files of the llvm-cpu back end (prefix lcpu_):
 * memory intrinsics, instruction counts, O3, one-time LLVM target
 * initialization. */
#ifndef KILN_CODEGEN_LLVM_CPU_INTERNAL_H
#define KILN_CODEGEN_LLVM_CPU_INTERNAL_H

#include "llvm_cpu.h"

/* Replaces llvm.memset/memcpy/memmove calls by calls of internal byte-loop
 * helpers (memops.c); prepare() runs it before setting attributes. */
kiln_error *lcpu_lower_mem_intrinsics(LLVMModuleRef module);

/* LLVM instructions in the module's function bodies. */
uint64_t lcpu_count_instructions(LLVMModuleRef module);

/* default<O3>, with LLVM's loop unrolling or without it (kiln_llvm_cpu_
 * optimize is the former). */
kiln_error *lcpu_optimize(LLVMModuleRef module, LLVMTargetMachineRef tm,
                          bool unroll);

/* Registers the backends of every llvm_cpu_arches.def entry with LLVM,
 * once per process, thread-safely. */
void lcpu_initialize_llvm(void);

#endif /* KILN_CODEGEN_LLVM_CPU_INTERNAL_H */

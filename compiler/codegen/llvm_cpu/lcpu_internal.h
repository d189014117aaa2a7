/* Helpers shared by the files of the llvm-cpu back end (prefix lcpu_):
 * building error statuses, one-time LLVM target initialization. */
#ifndef KILN_CODEGEN_LLVM_CPU_INTERNAL_H
#define KILN_CODEGEN_LLVM_CPU_INTERNAL_H

#include "llvm_cpu.h"

#if defined(__GNUC__)
#define LCPU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LCPU_PRINTF(f, a)
#endif

/* A failed status with a printf-formatted message. Never returns NULL: when
 * memory runs out the status carries a fixed message instead. */
kiln_llvm_cpu_status_t lcpu_errorf(const char *fmt, ...) LCPU_PRINTF(1, 2);

/* A failed status from an LLVM-owned message (freed here with
 * LLVMDisposeMessage), prefixed by `what`. msg may be NULL. */
kiln_llvm_cpu_status_t lcpu_error_llvm(const char *what, char *msg);

/* Replaces llvm.memset/memcpy/memmove calls by calls of internal byte-loop
 * helpers (memops.c); prepare() runs it before setting attributes. */
kiln_llvm_cpu_status_t lcpu_lower_mem_intrinsics(LLVMModuleRef module);

/* LLVM instructions in the module's function bodies. */
uint64_t lcpu_count_instructions(LLVMModuleRef module);

/* default<O3>, with LLVM's loop unrolling or without it (kiln_llvm_cpu_
 * optimize is the former). */
kiln_llvm_cpu_status_t lcpu_optimize(LLVMModuleRef module, LLVMTargetMachineRef tm,
                                     bool unroll);

/* Registers the backends of every llvm_cpu_arches.def entry with LLVM,
 * once per process, thread-safely. */
void lcpu_initialize_llvm(void);

#endif /* KILN_CODEGEN_LLVM_CPU_INTERNAL_H */
